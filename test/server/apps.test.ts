/**
 * Developers and apps: developer sign-up, app registration with validated scopes and redirect URIs, the
 * review path by platform admins (draft → submitted → in_review → approved | rejected → listed), a listed app sent
 * back to review by a change of its scopes, price, redirect URIs or launch URL while it keeps serving its approved
 * version, the isolation of developers from
 * each other, and the app directory merchants' staff see. Driven over HTTP through Fastify, on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPlatformAdmin } from '../../sync-server/src/modules/apps/service.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister } from '../support/enroll.ts';
import { OpenApiConformance } from '../support/openapi-conformance.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { injectClient } from '../support/inject-client.ts';

type Json = Record<string, any>;

const externalApp = {
  name: 'Shelf Sync',
  description: 'Keeps your online shelf in step with the register stock.',
  form: 'external',
  redirectUris: ['https://shelfsync.example/oauth/callback', 'http://127.0.0.1:8765/cb'],
  webhookUrl: 'https://shelfsync.example/hooks',
  scopes: ['catalog:read', 'webhooks'],
  pricing: { model: 'monthly', amountCents: 1500, currency: 'usd' },
  iconUrl: 'https://shelfsync.example/icon.png',
  category: 'Inventory',
};

describe.each(databaseTargets())('developers and apps on $name', (target) => {
  let server: TestServer;
  let reviewer: string;
  let devA: string;
  let devB: string;

  let conformance: OpenApiConformance;
  /** Every answer that departs from the OpenAPI document (checked at the end). */
  const departures: string[] = [];
  const { call, ok } = injectClient(
    () => server.app,
    (method, url, res) => {
      const route = url.split('?')[0]!.replace(/\/app_[0-9A-Z]+/, '/:id');
      if (!route.startsWith('/api/pos/staff') && !route.startsWith('/api/register')) departures.push(...conformance.check(method, route, res));
    },
  );
  const signUp = async (name: string, email: string): Promise<string> => {
    const res = await call('POST', '/api/developers', undefined, { name, email });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().developerToken).toMatch(/^rpd_/);
    return res.json().developerToken;
  };
  /** Registers `body` as devA and takes it through review to listed. */
  const listedApp = async (body: Json): Promise<Json> => {
    const made = await ok('POST', '/api/developer/apps', devA, body);
    await ok('POST', `/api/developer/apps/${made.id}/submit`, devA);
    await ok('POST', `/api/platform/apps/${made.id}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${made.id}/approve`, reviewer);
    return ok('POST', `/api/platform/apps/${made.id}/list`, reviewer);
  };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    conformance = await OpenApiConformance.of(server.app);
    reviewer = (await addPlatformAdmin(server.db, { email: 'reviewer@platform.example', name: 'Rita Reviewer' })).token;
    devA = await signUp('Acme Apps', 'dev@acme.example');
    devB = await signUp('Bolt Apps', 'dev@bolt.example');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('takes an app through the whole review path: draft → submitted → in_review → rejected → submitted → in_review → approved → listed, every step audited', async () => {
    const draft = await ok('POST', '/api/developer/apps', devA, externalApp);
    expect(draft).toMatchObject({
      status: 'draft',
      listed: false,
      scopes: ['catalog:read', 'webhooks'],
      approvedScopes: null,
      pricing: { model: 'monthly', amountCents: 1500, currency: 'USD' },
    });
    // Not reviewable before it is submitted.
    expect((await call('POST', `/api/platform/apps/${draft.id}/approve`, reviewer)).statusCode).toBe(409);
    expect((await ok('POST', `/api/developer/apps/${draft.id}/submit`, devA)).status).toBe('submitted');
    // Frozen while submitted.
    const frozen = await call('PATCH', `/api/developer/apps/${draft.id}`, devA, { name: 'Sneaky' });
    expect(frozen.statusCode).toBe(409);
    expect(frozen.json()).toMatchObject({ code: 'illegal_state_transition', entity: 'app', currentState: 'submitted' });
    const queue = await ok('GET', '/api/platform/apps', reviewer);
    expect(queue.data.map((a: Json) => a.id)).toContain(draft.id);
    expect((await ok('POST', `/api/platform/apps/${draft.id}/start-review`, reviewer)).status).toBe('in_review');
    // A rejection needs reasons.
    const noReasons = await call('POST', `/api/platform/apps/${draft.id}/reject`, reviewer, { reasons: [] });
    expect(noReasons.statusCode).toBe(400);
    expect(noReasons.json().errors[0].path).toBe('reasons');
    const rejected = await ok('POST', `/api/platform/apps/${draft.id}/reject`, reviewer, {
      reasons: ['The icon is missing its alt text.', 'Explain why webhooks are needed.'],
    });
    expect(rejected).toMatchObject({
      status: 'rejected',
      rejectionReasons: ['The icon is missing its alt text.', 'Explain why webhooks are needed.'],
      listed: false,
    });
    // The developer fixes it and submits again.
    expect(
      (
        await ok('PATCH', `/api/developer/apps/${draft.id}`, devA, {
          description: 'Keeps your online shelf in step; webhooks tell it of stock changes.',
        })
      ).status,
    ).toBe('rejected');
    await ok('POST', `/api/developer/apps/${draft.id}/submit`, devA);
    await ok('POST', `/api/platform/apps/${draft.id}/start-review`, reviewer);
    const approved = await ok('POST', `/api/platform/apps/${draft.id}/approve`, reviewer);
    expect(approved).toMatchObject({ status: 'approved', approvedScopes: ['catalog:read', 'webhooks'], listed: false, rejectionReasons: null });
    // Approved is not listed yet: the directory does not show it.
    expect((await ok('GET', '/api/pos/app-directory', server.credentials.staffToken)).data.map((a: Json) => a.id)).not.toContain(draft.id);
    const listed = await ok('POST', `/api/platform/apps/${draft.id}/list`, reviewer);
    expect(listed).toMatchObject({ status: 'listed', listed: true });
    expect(listed.listedAt).toEqual(expect.any(String));

    const history = (await ok('GET', `/api/developer/apps/${draft.id}`, devA)).history.map(
      (e: Json) => `${e.action}:${e.fromStatus ?? '-'}→${e.toStatus}`,
    );
    expect(history).toEqual([
      'created:-→draft',
      'submit:draft→submitted',
      'start_review:submitted→in_review',
      'reject:in_review→rejected',
      'edited:rejected→rejected',
      'submit:rejected→submitted',
      'start_review:submitted→in_review',
      'approve:in_review→approved',
      'list:approved→listed',
    ]);
    const reviewed = await ok('GET', `/api/platform/apps/${draft.id}`, reviewer);
    expect(reviewed.history.find((e: Json) => e.action === 'reject')).toMatchObject({
      actor: expect.stringMatching(/^platform_admin:/),
      data: { reasons: expect.any(Array) },
    });
    // The review trail is append-only in the database itself.
    await expect(server.db.query('DELETE FROM app_review_events WHERE app_id = $1', [draft.id])).rejects.toThrow(/append-only/);
  });

  it('sends a listed app whose scopes change back to review; it stays listed with the approved scopes until approved again', async () => {
    const app = await listedApp({ ...externalApp, name: 'Order Owl', category: 'Reporting', scopes: ['orders:read'] });
    // Other edits of a listed app apply at once.
    expect((await ok('PATCH', `/api/developer/apps/${app.id}`, devA, { description: 'Order reports, hourly.' })).status).toBe('listed');
    const widened = await ok('PATCH', `/api/developer/apps/${app.id}`, devA, { scopes: ['orders:read', 'pay:create'] });
    expect(widened).toMatchObject({ status: 'submitted', listed: true, scopes: ['orders:read', 'pay:create'], approvedScopes: ['orders:read'] });
    const entry = async () =>
      (await ok('GET', '/api/pos/app-directory?q=Order%20Owl', server.credentials.staffToken)).data.find((a: Json) => a.id === app.id);
    expect((await entry()).scopes).toEqual([{ scope: 'orders:read', explanation: expect.stringMatching(/orders/) }]);
    // A rejection of the new scopes keeps the old listing.
    await ok('POST', `/api/platform/apps/${app.id}/start-review`, reviewer);
    expect(await ok('POST', `/api/platform/apps/${app.id}/reject`, reviewer, { reasons: ['pay:create is not needed for reports.'] })).toMatchObject({
      status: 'rejected',
      listed: true,
      approvedScopes: ['orders:read'],
    });
    expect((await entry()).scopes.map((s: Json) => s.scope)).toEqual(['orders:read']);
    // Resubmitted and approved: listed again at once with the new scopes.
    await ok('POST', `/api/developer/apps/${app.id}/submit`, devA);
    await ok('POST', `/api/platform/apps/${app.id}/start-review`, reviewer);
    expect(await ok('POST', `/api/platform/apps/${app.id}/approve`, reviewer)).toMatchObject({
      status: 'listed',
      listed: true,
      approvedScopes: ['orders:read', 'pay:create'],
    });
    expect((await entry()).scopes.map((s: Json) => s.scope)).toEqual(['orders:read', 'pay:create']);
  });

  it('sends a listed app whose price, redirect URIs or launch URL change back to review; the directory keeps serving the approved version until approved', async () => {
    const app = await listedApp({
      ...externalApp,
      name: 'Till Tally',
      category: 'Accounting',
      launchUrl: 'https://shelfsync.example/connect',
      pricing: { model: 'monthly', amountCents: 90_000, currency: 'USD' },
    });
    const entry = async () => ok('GET', `/api/pos/app-directory/${app.id}`, server.credentials.staffToken);
    const listedVersion = {
      priceCents: 90_000,
      pricing: { model: 'monthly', amountCents: 90_000, currency: 'USD' },
      launchUrl: 'https://shelfsync.example/connect',
      form: 'external',
    };
    expect(await entry()).toMatchObject(listedVersion);
    // Name, description, icon and category apply at once.
    expect(await ok('PATCH', `/api/developer/apps/${app.id}`, devA, { name: 'Till Tally Pro', category: 'Bookkeeping' })).toMatchObject({
      status: 'listed',
      changesInReview: [],
    });
    expect(await entry()).toMatchObject({ name: 'Till Tally Pro', category: 'Bookkeeping', ...listedVersion });
    // Price 900.00 → 100,000.00, new redirect URIs and a new launch URL: back to review, still listed as approved.
    const revised = await ok('PATCH', `/api/developer/apps/${app.id}`, devA, {
      pricing: { model: 'monthly', amountCents: 10_000_000, currency: 'USD' },
      redirectUris: ['https://collector.example/cb'],
      launchUrl: 'https://collector.example/start',
    });
    expect(revised).toMatchObject({
      status: 'submitted',
      listed: true,
      pricing: { amountCents: 10_000_000 },
      redirectUris: ['https://collector.example/cb'],
      changesInReview: ['pricing', 'redirectUris', 'launchUrl'],
      approved: {
        pricing: { amountCents: 90_000 },
        redirectUris: externalApp.redirectUris,
        launchUrl: 'https://shelfsync.example/connect',
        scopes: externalApp.scopes,
        form: 'external',
      },
    });
    expect(await entry()).toMatchObject(listedVersion);
    expect(
      (await ok('GET', '/api/pos/app-directory?q=Till%20Tally', server.credentials.staffToken)).data.find((a: Json) => a.id === app.id),
    ).toMatchObject(listedVersion);
    const queued = (await ok('GET', '/api/platform/apps', reviewer)).data.find((a: Json) => a.id === app.id);
    expect(queued).toMatchObject({ status: 'submitted', changesInReview: ['pricing', 'redirectUris', 'launchUrl'] });
    // Rejected: still the approved version. Put back as approved, it is listed again without review.
    await ok('POST', `/api/platform/apps/${app.id}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${app.id}/reject`, reviewer, { reasons: ['The new redirect URI is not on your domain.'] });
    expect(await entry()).toMatchObject(listedVersion);
    const undone = await ok('PATCH', `/api/developer/apps/${app.id}`, devA, {
      pricing: { model: 'monthly', amountCents: 90_000, currency: 'USD' },
      redirectUris: [...externalApp.redirectUris].reverse(),
      launchUrl: 'https://shelfsync.example/connect',
    });
    expect(undone).toMatchObject({ status: 'listed', changesInReview: [] });
    // A new price alone, approved: the directory has it at once, and the approval names what changed.
    await ok('PATCH', `/api/developer/apps/${app.id}`, devA, { pricing: { model: 'monthly', amountCents: 95_000, currency: 'USD' } });
    await ok('POST', `/api/platform/apps/${app.id}/start-review`, reviewer);
    expect(await ok('POST', `/api/platform/apps/${app.id}/approve`, reviewer)).toMatchObject({
      status: 'listed',
      approved: { pricing: { amountCents: 95_000 } },
      changesInReview: [],
    });
    expect((await entry()).priceCents).toBe(95_000);
    const history = (await ok('GET', `/api/developer/apps/${app.id}`, devA)).history;
    expect(history.at(-1)).toMatchObject({
      action: 'approve',
      data: { changed: ['pricing'], pricing: { from: { amountCents: 90_000 }, to: { amountCents: 95_000 } } },
    });
  });

  it('refuses scopes outside the four, bad redirect URIs and bad pricing with a 400 naming the field', async () => {
    const bad: [Json, string][] = [
      [{ scopes: ['catalog:read', 'catalog:write'] }, 'scopes.1'],
      [{ scopes: ['admin'] }, 'scopes.0'],
      [{ scopes: [] }, 'scopes'],
      [{ redirectUris: ['http://shelfsync.example/cb'] }, 'redirectUris.0'],
      [{ redirectUris: ['https://shelfsync.example/cb#frag'] }, 'redirectUris.0'],
      [{ redirectUris: ['javascript:alert(1)'] }, 'redirectUris.0'],
      [{ redirectUris: ['not a uri'] }, 'redirectUris.0'],
      [{ redirectUris: [] }, 'redirectUris'],
      [{ webhookUrl: 'http://shelfsync.example/hooks' }, 'webhookUrl'],
      [{ pricing: { model: 'monthly', amountCents: -5, currency: 'USD' } }, 'pricing.amountCents'],
      [{ pricing: { model: 'monthly', amountCents: 500, currency: 'XYZ' } }, 'pricing.currency'],
      [{ form: 'plugin' }, 'form'],
      [{ name: '  ' }, 'name'],
    ];
    for (const [change, path] of bad) {
      const res = await call('POST', '/api/developer/apps', devA, { ...externalApp, ...change });
      expect(res.statusCode, JSON.stringify(change)).toBe(400);
      expect(
        res.json().errors.map((e: Json) => e.path),
        JSON.stringify(change),
      ).toContain(path);
    }
    // In-platform apps take no redirect URIs; loopback http is fine for external ones.
    expect((await call('POST', '/api/developer/apps', devA, { ...externalApp, form: 'in_platform' })).json().errors[0].path).toBe('redirectUris');
    expect(
      (await call('POST', '/api/developer/apps', devA, { ...externalApp, form: 'in_platform', redirectUris: [], webhookUrl: null })).statusCode,
    ).toBe(201);
    expect(
      (await call('POST', '/api/developer/apps', devA, { ...externalApp, redirectUris: ['http://localhost:3000/cb', 'http://[::1]:9/cb'] }))
        .statusCode,
    ).toBe(201);
    // A patch is checked like a create.
    const app = await ok('POST', '/api/developer/apps', devA, externalApp);
    const patched = await call('PATCH', `/api/developer/apps/${app.id}`, devA, { scopes: ['orders:write'] });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().errors[0].path).toBe('scopes.0');
    // Sign-up: e-mail checked, taken once.
    expect((await call('POST', '/api/developers', undefined, { name: 'X', email: 'not-an-email' })).json().errors[0].path).toBe('email');
    expect((await call('POST', '/api/developers', undefined, { name: 'Acme again', email: 'DEV@acme.example' })).statusCode).toBe(409);
  });

  it('lets only platform admins review: a merchant owner, an app token and developers are refused', async () => {
    const app = await ok('POST', '/api/developer/apps', devA, externalApp);
    await ok('POST', `/api/developer/apps/${app.id}/submit`, devA);
    for (const token of [server.credentials.staffToken, server.credentials.appToken, devA, devB]) {
      const res = await call('POST', `/api/platform/apps/${app.id}/start-review`, token);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('platform_admin_only');
      expect((await call('GET', '/api/platform/apps', token)).statusCode).toBe(403);
    }
    expect((await call('POST', `/api/platform/apps/${app.id}/start-review`)).statusCode).toBe(401);
    expect((await call('POST', `/api/platform/apps/${app.id}/start-review`, 'rpp_forged')).statusCode).toBe(401);
    // Nor may the developer approve their own app from the developer routes (there are none): still submitted.
    expect((await ok('GET', `/api/developer/apps/${app.id}`, devA)).status).toBe('submitted');
    // Developer routes refuse merchant staff.
    expect((await call('GET', '/api/developer/apps', server.credentials.staffToken)).statusCode).toBe(403);
    expect((await call('GET', '/api/developer/apps', 'rpd_forged')).statusCode).toBe(401);
  });

  it("hides one developer's apps from another: 404 on read, edit and submit, absent from their list", async () => {
    const mine = await ok('POST', '/api/developer/apps', devA, { ...externalApp, name: 'Private Parrot' });
    for (const [method, url, body] of [
      ['GET', `/api/developer/apps/${mine.id}`, undefined],
      ['PATCH', `/api/developer/apps/${mine.id}`, { name: 'Stolen' }],
      ['POST', `/api/developer/apps/${mine.id}/submit`, undefined],
    ] as const) {
      const res = await call(method, url, devB, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.body).not.toContain('Private Parrot');
    }
    expect((await ok('GET', '/api/developer/apps', devB)).data.map((a: Json) => a.id)).not.toContain(mine.id);
    expect((await ok('GET', '/api/developer/apps', devA)).data.map((a: Json) => a.id)).toContain(mine.id);
    expect((await ok('GET', `/api/developer/apps/${mine.id}`, devA)).name).toBe('Private Parrot');
  });

  it('shows merchant staff only listed apps in the directory, with plain-words scopes, price, search and categories', async () => {
    const listed = await listedApp({
      ...externalApp,
      name: 'Till Tunes',
      description: 'Music for the shop floor.',
      category: 'Ambience',
      scopes: ['catalog:read'],
      pricing: { model: 'free' },
    });
    const draft = await ok('POST', '/api/developer/apps', devA, { ...externalApp, name: 'Till Tunes Draft', category: 'Ambience' });
    const inReview = await ok('POST', '/api/developer/apps', devA, { ...externalApp, name: 'Till Tunes Review', category: 'Ambience' });
    await ok('POST', `/api/developer/apps/${inReview.id}/submit`, devA);

    // A cashier may browse the directory; app tokens may not.
    const cashier = await ok('POST', '/api/pos/staff', server.credentials.staffToken, { name: 'Casey Directory', role: 'cashier', pin: '2468' });
    const register = await enrollRegister(server, server.credentials.staffToken);
    const browse = (await ok('POST', '/api/register/sign-in', register.registerToken, { staffId: cashier.id, pin: '2468' })).staffToken;
    const all = await ok('GET', '/api/pos/app-directory', browse);
    const ids = all.data.map((a: Json) => a.id);
    expect(ids).toContain(listed.id);
    expect(ids).not.toContain(draft.id);
    expect(ids).not.toContain(inReview.id);
    expect(all.data.find((a: Json) => a.id === listed.id)).toEqual({
      id: listed.id,
      name: 'Till Tunes',
      description: 'Music for the shop floor.',
      developerName: 'Acme Apps',
      form: 'external',
      scopes: [{ scope: 'catalog:read', explanation: 'See your items, prices, tax rates and stock levels.' }],
      pricing: { model: 'free' },
      priceCents: 0,
      currency: null,
      iconUrl: externalApp.iconUrl,
      category: 'Ambience',
      launchUrl: null,
    });
    // Nothing a merchant should not see (redirect URIs, status, developer e-mail).
    expect(JSON.stringify(all)).not.toMatch(/redirect|dev@acme|status/);
    expect(all.categories).toContain('Ambience');

    expect((await ok('GET', '/api/pos/app-directory?q=tunes', browse)).data.map((a: Json) => a.name)).toEqual(['Till Tunes']);
    expect((await ok('GET', '/api/pos/app-directory?q=shop%20floor', browse)).data.map((a: Json) => a.name)).toEqual(['Till Tunes']);
    expect((await ok('GET', '/api/pos/app-directory?q=%25', browse)).data).toEqual([]);
    expect((await ok('GET', '/api/pos/app-directory?category=ambience', browse)).data.map((a: Json) => a.name)).toEqual(['Till Tunes']);
    expect((await ok('GET', '/api/pos/app-directory?category=Nothing', browse)).data).toEqual([]);
    expect((await call('GET', '/api/pos/app-directory', server.credentials.appToken)).statusCode).toBe(403);
    expect((await call('GET', '/api/pos/app-directory')).statusCode).toBe(401);
    expect((await call('GET', '/api/pos/app-directory?sort=x', browse)).statusCode).toBe(400);
  });

  it('rate-limits developer sign-up per client address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await call('POST', '/api/developers', undefined, { name: `Spam ${i}`, email: `spam${i}@spam.example` })).statusCode);
    // Two sign-ups and one refused duplicate happened above from the same address; the quota is 5 an hour.
    expect(statuses).toContain(429);
    const limited = await call('POST', '/api/developers', undefined, { name: 'Spam 9', email: 'spam9@spam.example' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('answers only what the OpenAPI document states (statuses, media types, schemas) on every call above', () => {
    expect(departures).toEqual([]);
  });
});
