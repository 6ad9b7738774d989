/**
 * Issue 15 "Install and authorise": a merchant owner installs a listed app approving a subset of its scopes, the
 * in-platform app's launch token works within the granted scopes (200) and not outside them (403), uninstalling
 * revokes its tokens (401 on the next request) and deletes its webhook subscriptions, a listed app that changes its
 * scopes cannot widen an installation's grant, and only owners install. Driven over HTTP through Fastify, on PGlite
 * and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPlatformAdmin } from '../../sync-server/src/modules/apps/service.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { databaseTargets } from '../support/databases.ts';
import { OpenApiConformance } from '../support/openapi-conformance.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;

describe.each(databaseTargets())('app installations on $name', (target) => {
  let server: TestServer;
  let reviewer: string;
  let dev: string;
  let owner: string;
  let cashier: string;
  let conformance: OpenApiConformance;
  const departures: string[] = [];

  const call = async (method: string, url: string, token?: string, body?: unknown) => {
    const res = await server.app.inject({
      method: method as 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    const route = url.split('?')[0]!.replace(/\/(app|ins)_[0-9A-Za-z_]+/, '/:id');
    if (route.includes('app-installations') || route.includes('app-directory')) departures.push(...conformance.check(method, route, res));
    return res;
  };
  const ok = async (method: string, url: string, token: string, body?: unknown): Promise<Json> => {
    const res = await call(method, url, token, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };
  const listedApp = async (body: Json): Promise<Json> => {
    const made = await ok('POST', '/api/developer/apps', dev, body);
    await ok('POST', `/api/developer/apps/${made.id}/submit`, dev);
    await ok('POST', `/api/platform/apps/${made.id}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${made.id}/approve`, reviewer);
    return ok('POST', `/api/platform/apps/${made.id}/list`, reviewer);
  };
  const inPlatform = { description: 'Runs inside the register.', form: 'in_platform', category: 'Tools', launchUrl: 'https://tool.example/app' };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    conformance = await OpenApiConformance.of(server.app);
    reviewer = (await addPlatformAdmin(server.db, { email: 'reviewer@installs.example', name: 'Rita Reviewer' })).token;
    const signUp = await call('POST', '/api/developers', undefined, { name: 'Install Labs', email: 'dev@install-labs.example' });
    dev = signUp.json().developerToken;
    owner = server.credentials.staffToken;
    const made = await ok('POST', '/api/pos/staff', owner, { name: 'Cody Cashier', role: 'cashier', pin: '2468' });
    const idp = await IdentityProvider.load(server.db, server.baseUrl);
    cashier = await idp.issueStaffToken({ staffId: made.id, merchantId: server.credentials.merchantId, role: 'cashier' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists the seeded example in-platform app with its launch URL, and answers one listed app in detail', async () => {
    const directory = await ok('GET', '/api/pos/app-directory', cashier);
    const example = directory.data.find((a: Json) => a.name === 'Shelf labels');
    expect(example).toMatchObject({ form: 'in_platform', priceCents: 0, currency: null, launchUrl: '/example-app/index.html', scopes: [{ scope: 'catalog:read', explanation: expect.any(String) }] });
    const detail = await ok('GET', `/api/pos/app-directory/${example.id}`, cashier);
    expect(detail).toMatchObject({ id: example.id, name: 'Shelf labels', category: expect.any(String), launchUrl: '/example-app/index.html' });
    const draft = await ok('POST', '/api/developer/apps', dev, { ...inPlatform, name: 'Unlisted Tool', scopes: ['catalog:read'] });
    expect((await call('GET', `/api/pos/app-directory/${draft.id}`, cashier)).statusCode).toBe(404);
  });

  it('installs a subset of the approved scopes; the launch token calls within them (200), not outside them (403); uninstalling revokes it and deletes its webhooks', async () => {
    const app = await listedApp({ ...inPlatform, name: 'Stock Buddy', scopes: ['catalog:read', 'orders:read', 'webhooks'] });
    // Only owners install; the scopes must be a non-empty subset of the approved ones.
    expect((await call('POST', '/api/pos/app-installations', cashier, { appId: app.id, scopes: ['catalog:read'] })).statusCode).toBe(403);
    for (const scopes of [[], ['pay:create'], ['catalog:read', 'admin:all']]) {
      const bad = await call('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes });
      expect(bad.statusCode, bad.body).toBe(400);
      expect(bad.json().errors[0].path).toMatch(/^scopes/);
    }
    expect((await call('POST', '/api/pos/app-installations', owner, { appId: 'app_nope', scopes: ['catalog:read'] })).statusCode).toBe(404);

    const installed = await call('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes: ['catalog:read', 'webhooks'] });
    expect(installed.statusCode, installed.body).toBe(201);
    const { installation, connectUrl } = installed.json();
    expect(connectUrl).toBeUndefined();
    expect(installation).toMatchObject({ id: expect.stringMatching(/^ins_/), appId: app.id, appName: 'Stock Buddy', form: 'in_platform', grantedScopes: ['catalog:read', 'webhooks'], status: 'installed', launchUrl: 'https://tool.example/app' });
    expect((await call('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes: ['catalog:read'] })).statusCode).toBe(409);
    expect((await ok('GET', '/api/pos/app-installations', cashier)).data.map((i: Json) => i.id)).toContain(installation.id);

    // A cashier launches it: a 1-hour token with only the granted scopes.
    const launch = await ok('POST', `/api/pos/app-installations/${installation.id}/launch`, cashier);
    expect(launch).toMatchObject({ launchUrl: 'https://tool.example/app', accessToken: expect.stringMatching(/^rpa_/), expiresAt: expect.any(String) });
    expect(new Date(launch.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(3600_000);
    const token = launch.accessToken as string;
    expect((await call('GET', '/api/pos/catalog', token)).statusCode).toBe(200);
    const outside = await call('GET', '/api/pos/orders', token);
    expect(outside.statusCode).toBe(403);
    expect(outside.json().code).toBe('insufficient_scope');
    expect((await call('GET', '/api/pos/app-installations', token)).statusCode).toBe(403);
    const hook = await call('POST', '/api/pos/webhooks', token, { url: 'https://tool.example/hooks', eventTypes: ['order.paid'] });
    expect(hook.statusCode, hook.body).toBe(201);
    expect(hook.json().appId).toBe(installation.id);
    // A second launch token of the same installation sees the same subscription (owned by the installation).
    const again = (await ok('POST', `/api/pos/app-installations/${installation.id}/launch`, cashier)).accessToken as string;
    expect((await ok('GET', '/api/pos/webhooks', again)).data.map((w: Json) => w.id)).toEqual([hook.json().id]);

    // A replayed Idempotency-Key never answers the token again (it is not stored).
    const keyed = (key: string) => server.app.inject({ method: 'POST', url: `/api/pos/app-installations/${installation.id}/launch`, headers: { authorization: `Bearer ${cashier}`, 'idempotency-key': key } });
    const first = await keyed('launch-once');
    expect(first.statusCode).toBe(200);
    const replayed = await keyed('launch-once');
    expect(replayed.statusCode).toBe(409);
    expect(replayed.json().code).toBe('token_not_replayed');
    expect(replayed.body).not.toContain(first.json().accessToken);
    const stored = await server.db.query<{ body: string }>(`SELECT response_body::text AS body FROM idempotency_keys WHERE response_body::text LIKE '%rpa_%'`);
    expect(stored.rows).toEqual([]);

    // Only owners uninstall.
    expect((await call('DELETE', `/api/pos/app-installations/${installation.id}`, cashier)).statusCode).toBe(403);
    const gone = await ok('DELETE', `/api/pos/app-installations/${installation.id}`, owner);
    expect(gone).toMatchObject({ id: installation.id, status: 'uninstalled', uninstalledAt: expect.any(String) });
    for (const t of [token, again]) {
      const res = await call('GET', '/api/pos/catalog', t);
      expect(res.statusCode).toBe(401);
    }
    const subs = await ok('GET', '/api/pos/webhooks', owner);
    expect(subs.data.map((w: Json) => w.id)).not.toContain(hook.json().id);
    expect((await call('DELETE', `/api/pos/app-installations/${installation.id}`, owner)).statusCode).toBe(409);
    expect((await call('POST', `/api/pos/app-installations/${installation.id}/launch`, cashier)).statusCode).toBe(409);
    expect((await ok('GET', '/api/pos/app-installations', owner)).data.map((i: Json) => i.id)).not.toContain(installation.id);
    expect((await ok('GET', '/api/pos/app-installations?status=uninstalled', owner)).data.map((i: Json) => i.id)).toContain(installation.id);
    const audit = await server.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE entity_id = $1 ORDER BY seq`, [installation.id]);
    expect(audit.rows.map((r) => r.action)).toEqual(['app.installed', 'app.launched', 'app.launched', 'app.launched', 'app.uninstalled']);
    // It can be installed again afterwards.
    const reinstalled = await ok('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes: ['catalog:read'] });
    await ok('DELETE', `/api/pos/app-installations/${reinstalled.installation.id}`, owner);
  });

  it("a listed app that changes its scopes cannot widen an installation's grant without the owner approving again", async () => {
    const app = await listedApp({ ...inPlatform, name: 'Widening Widget', scopes: ['catalog:read'] });
    const { installation } = await ok('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes: ['catalog:read'] });
    await ok('PATCH', `/api/developer/apps/${app.id}`, dev, { scopes: ['catalog:read', 'orders:read'] });
    await ok('POST', `/api/platform/apps/${app.id}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${app.id}/approve`, reviewer);
    const token = (await ok('POST', `/api/pos/app-installations/${installation.id}/launch`, owner)).accessToken as string;
    expect((await call('GET', '/api/pos/orders', token)).statusCode).toBe(403);
    expect((await ok('GET', '/api/pos/app-installations', owner)).data.find((i: Json) => i.id === installation.id).grantedScopes).toEqual(['catalog:read']);
    // The owner approves again: uninstall, install with the new scope.
    await ok('DELETE', `/api/pos/app-installations/${installation.id}`, owner);
    const wider = await ok('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes: ['catalog:read', 'orders:read'] });
    const widerToken = (await ok('POST', `/api/pos/app-installations/${wider.installation.id}/launch`, owner)).accessToken as string;
    expect((await call('GET', '/api/pos/orders', widerToken)).statusCode).toBe(200);
  });

  it('answers as the OpenAPI document says', () => {
    expect(departures).toEqual([]);
  });
});
