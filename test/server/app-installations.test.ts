/**
 * Install and authorise: a merchant owner installs a listed app approving a subset of its scopes, the
 * in-platform app's launch token works within the granted scopes (200) and not outside them (403), uninstalling
 * revokes its tokens (401 on the next request) and deletes its webhook subscriptions, a listed app that changes its
 * scopes cannot widen an installation's grant, only owners install, and a listed app's new launch URL or redirect URIs
 * are not used before a reviewer approves them. Driven over HTTP through Fastify, on PGlite and PostgreSQL.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPlatformAdmin } from '../../sync-server/src/modules/apps/service.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { databaseTargets } from '../support/databases.ts';
import { OpenApiConformance } from '../support/openapi-conformance.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { injectClient } from '../support/inject-client.ts';

type Json = Record<string, any>;

describe.each(databaseTargets())('app installations on $name', (target) => {
  let server: TestServer;
  let reviewer: string;
  let dev: string;
  let owner: string;
  let cashier: string;
  let conformance: OpenApiConformance;
  const departures: string[] = [];

  const { call, ok } = injectClient(
    () => server.app,
    (method, url, res) => {
      const route = url.split('?')[0]!.replace(/\/(app|ins)_[0-9A-Za-z_]+/, '/:id');
      if (route.includes('app-installations') || route.includes('app-directory')) departures.push(...conformance.check(method, route, res));
    },
  );
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
    expect(example).toMatchObject({
      form: 'in_platform',
      priceCents: 0,
      currency: null,
      launchUrl: '/example-app/index.html',
      scopes: [{ scope: 'catalog:read', explanation: expect.any(String) }],
    });
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
    expect(installation).toMatchObject({
      id: expect.stringMatching(/^ins_/),
      appId: app.id,
      appName: 'Stock Buddy',
      form: 'in_platform',
      grantedScopes: ['catalog:read', 'webhooks'],
      status: 'installed',
      launchUrl: 'https://tool.example/app',
    });
    expect((await call('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes: ['catalog:read'] })).statusCode).toBe(409);
    expect((await ok('GET', '/api/pos/app-installations', cashier)).data.map((i: Json) => i.id)).toContain(installation.id);

    // A cashier launches it: a 1-hour token with only the granted scopes.
    const before = Date.now();
    const launch = await ok('POST', `/api/pos/app-installations/${installation.id}/launch`, cashier);
    const after = Date.now();
    expect(launch).toMatchObject({
      launchUrl: 'https://tool.example/app',
      accessToken: expect.stringMatching(/^rpa_/),
      expiresAt: expect.any(String),
    });
    // 1 hour from the server's clock at the call.
    expect(new Date(launch.expiresAt).getTime()).toBeGreaterThanOrEqual(before + 3600_000);
    expect(new Date(launch.expiresAt).getTime()).toBeLessThanOrEqual(after + 3600_000);
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
    const keyed = (key: string) =>
      server.app.inject({
        method: 'POST',
        url: `/api/pos/app-installations/${installation.id}/launch`,
        headers: { authorization: `Bearer ${cashier}`, 'idempotency-key': key },
      });
    const first = await keyed('launch-once');
    expect(first.statusCode).toBe(200);
    const replayed = await keyed('launch-once');
    expect(replayed.statusCode).toBe(409);
    expect(replayed.json().code).toBe('token_not_replayed');
    expect(replayed.body).not.toContain(first.json().accessToken);
    const stored = await server.db.query<{ body: string }>(
      `SELECT response_body::text AS body FROM idempotency_keys WHERE response_body::text LIKE '%rpa_%'`,
    );
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
    expect((await ok('GET', '/api/pos/app-installations', owner)).data.find((i: Json) => i.id === installation.id).grantedScopes).toEqual([
      'catalog:read',
    ]);
    // The owner approves again: uninstall, install with the new scope.
    await ok('DELETE', `/api/pos/app-installations/${installation.id}`, owner);
    const wider = await ok('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes: ['catalog:read', 'orders:read'] });
    const widerToken = (await ok('POST', `/api/pos/app-installations/${wider.installation.id}/launch`, owner)).accessToken as string;
    expect((await call('GET', '/api/pos/orders', widerToken)).statusCode).toBe(200);
  });

  it("a listed in-platform app's new launch URL waits for review: installations launch the approved page until a reviewer approves", async () => {
    const app = await listedApp({ ...inPlatform, name: 'Frame Swap', scopes: ['catalog:read'] });
    const { installation } = await ok('POST', '/api/pos/app-installations', owner, { appId: app.id, scopes: ['catalog:read'] });
    const edited = await ok('PATCH', `/api/developer/apps/${app.id}`, dev, { launchUrl: 'https://phish.example/login' });
    expect(edited).toMatchObject({
      status: 'submitted',
      listed: true,
      changesInReview: ['launchUrl'],
      approved: { launchUrl: 'https://tool.example/app' },
    });
    expect((await ok('POST', `/api/pos/app-installations/${installation.id}/launch`, cashier)).launchUrl).toBe('https://tool.example/app');
    expect((await ok('GET', '/api/pos/app-installations', cashier)).data.find((i: Json) => i.id === installation.id).launchUrl).toBe(
      'https://tool.example/app',
    );
    expect((await ok('GET', `/api/pos/app-directory/${app.id}`, cashier)).launchUrl).toBe('https://tool.example/app');
    await ok('POST', `/api/platform/apps/${app.id}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${app.id}/approve`, reviewer);
    expect((await ok('POST', `/api/pos/app-installations/${installation.id}/launch`, cashier)).launchUrl).toBe('https://phish.example/login');
    await ok('DELETE', `/api/pos/app-installations/${installation.id}`, owner);
  });

  it('answers as the OpenAPI document says', () => {
    expect(departures).toEqual([]);
  });
});

/** A cookie jar for one browser-like session against the authorization server. */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

describe.each(databaseTargets())('OAuth 2.0 for external integrations (code + PKCE + refresh, real HTTP) on $name', (target) => {
  let server: TestServer;
  let reviewer: string;
  let dev: string;
  let owner: string;
  let appId: string;
  /** Moves the server's clock (connect-ticket expiry). */
  let offsetMs = 0;

  const api = (method: string, path: string, token?: string, body?: unknown) =>
    fetch(new URL(path, server.baseUrl), {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const ok = async (method: string, path: string, token: string, body?: unknown): Promise<Json> => {
    const res = await api(method, path, token, body);
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
    return JSON.parse(text);
  };
  const install = async (scopes: string[]): Promise<{ installationId: string; ticket: string; connectUrl: string }> => {
    const res = await ok('POST', '/api/pos/app-installations', owner, { appId, scopes });
    const url = new URL(res.connectUrl);
    return { installationId: url.searchParams.get('installation')!, ticket: url.searchParams.get('ticket')!, connectUrl: res.connectUrl };
  };
  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };

  /** The app's side of the browser: /oauth/authorize → interaction → back → redirect URI. Answers the last redirect (or error). */
  async function authorize(params: Record<string, string>): Promise<{ status: number; location: URL | null; body: string }> {
    const jar = new Jar();
    const auth = new URL('/oauth/authorize', server.baseUrl);
    for (const [k, v] of Object.entries({
      client_id: appId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      code_challenge_method: 'S256',
      state: 'st-1',
      ...params,
    }))
      auth.searchParams.set(k, v);
    let url = auth.toString();
    for (let hop = 0; hop < 6; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.take(res);
      const location = res.headers.get('location');
      if (!location) return { status: res.status, location: null, body: await res.text() };
      const next = new URL(location, url);
      if (next.origin + next.pathname === REDIRECT_URI || !next.href.startsWith(server.baseUrl))
        return { status: res.status, location: next, body: '' };
      url = next.href;
    }
    throw new Error('too many redirects');
  }
  const token = async (form: Record<string, string>) => {
    const res = await fetch(new URL('/oauth/token', server.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: appId, ...form }).toString(),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    server = await startTestServer({
      target,
      staticDir: null,
      listen: true,
      webhooks: { enabled: false },
      clock: () => new Date(Date.now() + offsetMs),
    });
    reviewer = (await addPlatformAdmin(server.db, { email: 'reviewer@oauth.example', name: 'Rita Reviewer' })).token;
    dev = (await ok('POST', '/api/developers', '', { name: 'OAuth Labs', email: 'dev@oauth-labs.example' })).developerToken;
    owner = server.credentials.staffToken;
    const made = await ok('POST', '/api/developer/apps', dev, {
      name: 'Ledger Link',
      description: 'Sends your sales to your accounting.',
      form: 'external',
      redirectUris: [REDIRECT_URI],
      scopes: ['catalog:read', 'orders:read', 'webhooks'],
      category: 'Accounting',
      launchUrl: 'https://ledgerlink.example/connect',
    });
    appId = made.id;
    await ok('POST', `/api/developer/apps/${appId}/submit`, dev);
    await ok('POST', `/api/platform/apps/${appId}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${appId}/approve`, reviewer);
    await ok('POST', `/api/platform/apps/${appId}/list`, reviewer);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('advertises its addresses from BASE_URL and only what it does: RFC 8414 metadata, no openid, PAR, DPoP or client secrets; GET /oauth/token is 405', async () => {
    const issuer = `${server.baseUrl}/oauth`;
    const metadata = async (path: string, headers: Record<string, string> = {}) => {
      // A raw socket request so Host itself can be forged (fetch sets it from the URL).
      const url = new URL(path, server.baseUrl);
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers }, (r) => {
          let body = '';
          r.on('data', (c: Buffer) => (body += c.toString()));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(res.status, res.body).toBe(200);
      return JSON.parse(res.body) as Record<string, unknown>;
    };
    const rfc8414 = await metadata('/.well-known/oauth-authorization-server/oauth');
    const discovery = await metadata('/oauth/.well-known/openid-configuration');
    const forged = await metadata('/oauth/.well-known/openid-configuration', {
      host: 'evil.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    });
    for (const doc of [rfc8414, discovery, forged]) {
      expect(doc.issuer).toBe(issuer);
      expect(doc.authorization_endpoint).toBe(`${issuer}/authorize`);
      expect(doc.token_endpoint).toBe(`${issuer}/token`);
      expect(doc.revocation_endpoint).toBe(`${issuer}/revoke`);
      expect(JSON.stringify(doc)).not.toContain('evil.example');
      expect(doc.scopes_supported).not.toContain('openid');
      expect(doc.token_endpoint_auth_methods_supported).toEqual(['none']);
      expect(doc).not.toHaveProperty('pushed_authorization_request_endpoint');
      expect(doc).not.toHaveProperty('dpop_signing_alg_values_supported');
      expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    }
    const get = await fetch(new URL('/oauth/token', server.baseUrl));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('runs the code + PKCE flow from the connect URL: exact redirect URI, granted scopes only, single-use codes, refresh tokens', async () => {
    const { installationId, ticket, connectUrl } = await install(['catalog:read', 'webhooks']);
    expect(connectUrl).toMatch(/^https:\/\/ledgerlink\.example\/connect\?installation=ins_[0-9A-Z]{26}&ticket=rct_/);
    const { verifier, challenge } = pkce();
    const base = { code_challenge: challenge, installation: installationId, ticket };

    // A redirect URI not registered exactly is refused at the server (never redirected to).
    for (const redirect_uri of [`${REDIRECT_URI}/`, `${REDIRECT_URI}?x=1`, 'http://127.0.0.1:10/callback', 'https://evil.example/callback']) {
      const res = await authorize({ ...base, scope: 'catalog:read', redirect_uri });
      expect(res.location, redirect_uri).toBeNull();
      expect(res.status, redirect_uri).toBe(400);
      expect(res.body).toMatch(/redirect_uri/);
    }
    // Scopes outside the four are refused at once (400, no redirect); outside the app's approval, or outside the
    // merchant's grant, refused back at the redirect URI.
    const unknown = await authorize({ ...base, scope: 'catalog:read admin:all' });
    expect(unknown.status).toBe(400);
    expect(unknown.location).toBeNull();
    expect(unknown.body).toMatch(/invalid_scope/);
    for (const scope of ['pay:create', 'catalog:read orders:read']) {
      const res = await authorize({ ...base, scope });
      expect(res.location?.searchParams.get('error'), `${scope}: ${res.status} ${res.location} ${res.body}`).toBe('invalid_scope');
      expect(res.location?.searchParams.get('code')).toBeNull();
    }
    // No PKCE: refused.
    const noPkce = await authorize({ installation: installationId, ticket, scope: 'catalog:read' });
    expect(noPkce.location?.searchParams.get('error')).toBe('invalid_request');

    const granted = await authorize({ ...base, scope: 'catalog:read webhooks' });
    expect(granted.location?.searchParams.get('state')).toBe('st-1');
    const code = granted.location!.searchParams.get('code')!;
    expect(code).toBeTruthy();
    // The ticket was single use.
    const again = await authorize({ ...base, scope: 'catalog:read' });
    expect(again.location?.searchParams.get('error')).toBe('access_denied');

    // A wrong verifier is refused; the right one answers an access and a refresh token.
    const wrong = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toMatchObject({
      token_type: 'Bearer',
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      scope: 'catalog:read webhooks',
    });
    expect(tokens.body.id_token).toBeUndefined();

    // The access token is the installation's app token: within scope 200, outside 403.
    expect((await api('GET', '/api/pos/catalog', tokens.body.access_token)).status).toBe(200);
    const outside = await api('GET', '/api/pos/orders', tokens.body.access_token);
    expect(outside.status).toBe(403);
    expect(((await outside.json()) as Json).code).toBe('insufficient_scope');
    expect((await api('GET', '/api/pos/app-installations', tokens.body.access_token)).status).toBe(403);

    // Refresh: a new access token that works; the refresh token rotates.
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.access_token).not.toBe(tokens.body.access_token);
    expect((await api('GET', '/api/pos/catalog', refreshed.body.access_token)).status).toBe(200);

    // The code is single use: a second exchange is refused, and the tokens it gave are revoked (RFC 6749 §4.1.2).
    const reused = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    expect((await api('GET', '/api/pos/catalog', refreshed.body.access_token)).status).toBe(401);

    // Nothing secret is stored in clear: no code, token or ticket in oauth_models.
    const { rows } = await server.db.query<{ t: string }>('SELECT id || payload::text AS t FROM oauth_models');
    const stored = rows.map((r) => r.t).join('\n');
    for (const secret of [code, tokens.body.access_token, tokens.body.refresh_token, refreshed.body.access_token, ticket])
      expect(stored).not.toContain(secret);
    await ok('DELETE', `/api/pos/app-installations/${installationId}`, owner);
  });

  it('a replayed install answers the installation and says the connect URL is withheld: the one-time ticket is kept nowhere', async () => {
    const send = (key: string) =>
      fetch(new URL('/api/pos/app-installations', server.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ appId, scopes: ['catalog:read'] }),
      });
    const first = await send('install-once');
    expect(first.status).toBe(201);
    const answer = (await first.json()) as Json;
    const ticket = new URL(answer.connectUrl).searchParams.get('ticket')!;
    expect(ticket).toMatch(/^rct_/);
    expect(answer.connectUrlWithheld).toBeUndefined();
    const replay = await send('install-once');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const replayed = (await replay.json()) as Json;
    expect(replayed).toEqual({ installation: answer.installation, connectUrlWithheld: true });
    const stored = await server.db.query<{ body: string }>(`SELECT response_body::text AS body FROM idempotency_keys`);
    for (const { body } of stored.rows) expect(body).not.toContain(ticket);
    await ok('DELETE', `/api/pos/app-installations/${answer.installation.id}`, owner);
  });

  it('a connect ticket expires after 10 minutes', async () => {
    const { installationId, ticket } = await install(['catalog:read']);
    offsetMs = 11 * 60 * 1000;
    try {
      const late = await authorize({ code_challenge: pkce().challenge, installation: installationId, ticket, scope: 'catalog:read' });
      expect(late.location?.searchParams.get('error')).toBe('access_denied');
      expect(late.location?.searchParams.get('code')).toBeNull();
    } finally {
      offsetMs = 0;
    }
    await ok('DELETE', `/api/pos/app-installations/${installationId}`, owner);
  });

  it('access tokens and in-platform launch tokens stop working after their hour', async () => {
    const { installationId, ticket } = await install(['catalog:read']);
    const { verifier, challenge } = pkce();
    const code = (
      await authorize({ code_challenge: challenge, installation: installationId, ticket, scope: 'catalog:read' })
    ).location!.searchParams.get('code')!;
    const tokens = (await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier })).body;
    const example = (await ok('GET', '/api/pos/app-directory', owner)).data.find((a: Json) => a.name === 'Shelf labels');
    const framed = (await ok('POST', '/api/pos/app-installations', owner, { appId: example.id, scopes: ['catalog:read'] })).installation;
    const launched = (await ok('POST', `/api/pos/app-installations/${framed.id}/launch`, owner)).accessToken;
    for (const t of [tokens.access_token, launched]) expect((await api('GET', '/api/pos/catalog', t)).status).toBe(200);
    offsetMs = 61 * 60 * 1000;
    try {
      for (const t of [tokens.access_token, launched]) expect((await api('GET', '/api/pos/catalog', t)).status).toBe(401);
    } finally {
      offsetMs = 0;
    }
    await ok('DELETE', `/api/pos/app-installations/${installationId}`, owner);
    await ok('DELETE', `/api/pos/app-installations/${framed.id}`, owner);
  });

  it('uninstalling revokes the access and refresh tokens at once and deletes the webhook subscriptions the app made', async () => {
    const { installationId, ticket } = await install(['catalog:read', 'webhooks']);
    const { verifier, challenge } = pkce();
    const granted = await authorize({ code_challenge: challenge, installation: installationId, ticket, scope: 'catalog:read webhooks' });
    const code = granted.location!.searchParams.get('code')!;
    const tokens = (await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier })).body;
    const hook = await ok('POST', '/api/pos/webhooks', tokens.access_token, { url: 'https://ledgerlink.example/hooks', eventTypes: ['order.paid'] });
    expect(hook.appId).toBe(installationId);

    await ok('DELETE', `/api/pos/app-installations/${installationId}`, owner);
    expect((await api('GET', '/api/pos/catalog', tokens.access_token)).status).toBe(401);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await ok('GET', '/api/pos/webhooks', owner)).data.map((w: Json) => w.id)).not.toContain(hook.id);
  });

  it("a listed integration's new redirect URIs and launch URL wait for review: the OAuth server accepts only the approved URIs, the connect URL is the approved page", async () => {
    const COLLECTOR = 'http://127.0.0.1:11/collect';
    const edited = await ok('PATCH', `/api/developer/apps/${appId}`, dev, {
      redirectUris: [COLLECTOR],
      launchUrl: 'https://collector.example/connect',
    });
    expect(edited).toMatchObject({
      status: 'submitted',
      listed: true,
      changesInReview: ['redirectUris', 'launchUrl'],
      approved: { redirectUris: [REDIRECT_URI], launchUrl: 'https://ledgerlink.example/connect' },
    });
    const first = await install(['catalog:read']);
    expect(first.connectUrl).toMatch(/^https:\/\/ledgerlink\.example\/connect\?installation=/);
    const { verifier, challenge } = pkce();
    // The revision's redirect URI is refused at the server (never redirected to); the approved one still works.
    const refused = await authorize({
      code_challenge: challenge,
      installation: first.installationId,
      ticket: first.ticket,
      scope: 'catalog:read',
      redirect_uri: COLLECTOR,
    });
    expect(refused.location).toBeNull();
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/redirect_uri/);
    const granted = await authorize({ code_challenge: challenge, installation: first.installationId, ticket: first.ticket, scope: 'catalog:read' });
    const code = granted.location?.searchParams.get('code');
    expect(code, `${granted.status} ${granted.location} ${granted.body}`).toBeTruthy();
    expect((await token({ grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI, code_verifier: verifier })).status).toBe(200);
    await ok('DELETE', `/api/pos/app-installations/${first.installationId}`, owner);

    // Approved: the new URIs are the only ones, and installs connect from the new page.
    await ok('POST', `/api/platform/apps/${appId}/start-review`, reviewer);
    await ok('POST', `/api/platform/apps/${appId}/approve`, reviewer);
    const second = await install(['catalog:read']);
    expect(second.connectUrl).toMatch(/^https:\/\/collector\.example\/connect\?installation=/);
    const next = pkce();
    const old = await authorize({
      code_challenge: next.challenge,
      installation: second.installationId,
      ticket: second.ticket,
      scope: 'catalog:read',
    });
    expect(old.location).toBeNull();
    expect(old.status).toBe(400);
    const moved = await authorize({
      code_challenge: next.challenge,
      installation: second.installationId,
      ticket: second.ticket,
      scope: 'catalog:read',
      redirect_uri: COLLECTOR,
    });
    expect(moved.location?.origin + moved.location!.pathname).toBe(COLLECTOR);
    expect(moved.location?.searchParams.get('code')).toBeTruthy();
    await ok('DELETE', `/api/pos/app-installations/${second.installationId}`, owner);
  });
});
