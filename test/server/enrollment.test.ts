/**
 * No route gives a staff token to a stranger: register enrollment with one-time pairing codes, register
 * credentials scoped to syncing and selling, the back office's register list and revocation, the demo's loopback-only
 * self-pairing, and single-use SSE tickets instead of a token in the stream URL. Over HTTP (app.inject, and a real
 * socket for the stream), on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { newId } from '../../core/index.ts';

const MINUTE = 60_000;

describe.each(databaseTargets())('register enrollment on $name', (target) => {
  let server: TestServer;
  let now = new Date('2026-05-04T10:00:00.000Z');
  let staffToken: string;

  beforeAll(async () => {
    // Roomy pairing quotas here: the rate-limit case below runs on a server of its own with the real ones.
    const roomy = (name: string) => new RateLimit({ name, quota: 1000, windowSeconds: 60 });
    server = await startTestServer({
      target,
      staticDir: null,
      listen: true,
      streamKeepAliveMs: 200,
      clock: () => now,
      pairingRateLimits: { perClient: roomy('pairing'), global: roomy('pairing-global') },
    });
    staffToken = await server.issueStaffToken({ ttlSeconds: 30 * 24 * 3600, now });
  });
  afterAll(async () => {
    await server?.close();
  });

  const registerCount = async () => Number((await server.db.query<{ n: number | string }>('SELECT count(*) AS n FROM registers')).rows[0]!.n);
  const json = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown, extra: Record<string, string> = {}) =>
    server.app.inject({
      method,
      url,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...extra,
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  it('the demo self-pairing answers loopback only, never a staff token, and strangers create no register', async () => {
    const before = await registerCount();
    // 20 calls from another machine, through a proxy claiming loopback, or to a rebinding host name: all refused.
    for (let i = 0; i < 20; i++) {
      const stranger = await server.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: {}, remoteAddress: '203.0.113.7' });
      expect(stranger.statusCode).toBe(403);
      expect(stranger.json()).toMatchObject({ code: 'loopback_only' });
    }
    const spoofed = await server.app.inject({
      method: 'POST',
      url: '/api/dev/pair-register',
      payload: {},
      headers: { 'x-forwarded-for': '127.0.0.1' },
    });
    expect(spoofed.statusCode).toBe(403);
    const rebound = await server.app.inject({
      method: 'POST',
      url: '/api/dev/pair-register',
      payload: {},
      headers: { host: 'attacker.example:8787' },
    });
    expect(rebound.statusCode).toBe(403);
    expect(await registerCount()).toBe(before);

    // On loopback: a register credential, which syncs but opens no staff route.
    const local = await server.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: {} });
    expect(local.statusCode, local.body).toBe(200);
    const paired = local.json<Record<string, unknown>>();
    expect(paired).not.toHaveProperty('staffToken');
    expect(paired.registerToken).toMatch(/^rrc_[A-Za-z0-9_-]{43}$/);
    const token = paired.registerToken as string;
    expect((await json('GET', '/api/sync/catalog-items/pull', token)).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['GET', '/api/pos/orders', undefined],
      ['GET', '/api/pos/settings', undefined],
      ['GET', '/api/pos/registers', undefined],
      ['POST', '/api/pos/registers/pairing-codes', {}],
      ['POST', '/api/pos/webhooks', { url: 'https://example.com/hook', eventTypes: ['order.created'] }],
    ] as const) {
      const res = await json(method, url, token, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({ code: 'register_not_allowed' });
    }
  });

  it('without demo mode the open pairing route does not exist', async () => {
    const plain = await startTestServer({
      target,
      staticDir: null,
      demoSelfPair: false,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
    });
    try {
      const before = Number((await plain.db.query<{ n: string }>('SELECT count(*) AS n FROM registers')).rows[0]!.n);
      for (let i = 0; i < 20; i++)
        expect((await plain.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: {} })).statusCode).toBe(404);
      expect(Number((await plain.db.query<{ n: string }>('SELECT count(*) AS n FROM registers')).rows[0]!.n)).toBe(before);
      // The way in is a code a staff member made.
      const register = await enrollRegister(plain, plain.credentials.staffToken);
      expect(register.registerToken).toMatch(/^rrc_/);
    } finally {
      await plain.close();
    }
  });

  it('a pairing code is short, typeable, stored hashed, expires after 10 minutes and works once', async () => {
    const created = await json('POST', '/api/pos/registers/pairing-codes', staffToken, { name: 'Front counter' });
    expect(created.statusCode, created.body).toBe(201);
    const code = created.json<{ code: string; expiresAt: string; locationId: string; name: string }>();
    expect(code.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(code.expiresAt).toBe(new Date(now.getTime() + 10 * MINUTE).toISOString());
    expect(code.locationId).toMatch(/^loc_/);
    const stored = await server.db.query<Record<string, unknown>>('SELECT * FROM pairing_codes');
    expect(JSON.stringify(stored.rows)).not.toContain(code.code.replace('-', ''));
    // App tokens and cashiers cannot make codes, list or revoke registers: owners and managers do.
    expect((await json('POST', '/api/pos/registers/pairing-codes', server.credentials.appToken, {})).statusCode).toBe(403);
    const idp = await IdentityProvider.load(server.db, server.baseUrl);
    const cashier = await idp.issueStaffToken({ staffId: 'stf_cashier', merchantId: server.credentials.merchantId, role: 'cashier' }, { now });
    const manager = await idp.issueStaffToken({ staffId: 'stf_manager', merchantId: server.credentials.merchantId, role: 'manager' }, { now });
    for (const [method, url] of [
      ['POST', '/api/pos/registers/pairing-codes'],
      ['GET', '/api/pos/registers'],
      ['POST', '/api/pos/registers/reg_x/revoke'],
    ] as const) {
      const res = await json(method, url, cashier, method === 'POST' ? {} : undefined);
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toMatchObject({ code: 'role_not_allowed' });
    }
    expect((await json('POST', '/api/pos/registers/pairing-codes', manager, {})).statusCode).toBe(201);

    // Typed in lower case without the dash: accepted, once.
    const typed = code.code.replace('-', '').toLowerCase();
    const paired = await json('POST', '/api/register/pair', undefined, { code: typed });
    expect(paired.statusCode, paired.body).toBe(200);
    expect(paired.json()).toMatchObject({
      registerName: 'Front counter',
      locationId: code.locationId,
      merchantId: server.credentials.merchantId,
      lastReceiptSequence: 0,
    });
    const again = await json('POST', '/api/register/pair', undefined, { code: code.code });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'invalid_pairing_code', errors: [{ path: 'code' }] });

    // A code not used within 10 minutes is refused.
    const late = (await json('POST', '/api/pos/registers/pairing-codes', staffToken, {})).json<{ code: string }>();
    now = new Date(now.getTime() + 10 * MINUTE + 1000);
    try {
      const expired = await json('POST', '/api/register/pair', undefined, { code: late.code });
      expect(expired.statusCode).toBe(400);
      expect(expired.json()).toMatchObject({ code: 'invalid_pairing_code' });
    } finally {
      now = new Date(now.getTime() - 10 * MINUTE - 1000);
    }

    // Bad input names its field.
    for (const [body, path] of [
      [{}, 'code'],
      [{ code: 'nope' }, 'code'],
      [{ code: late.code, extra: 1 }, 'extra'],
      [{ code: late.code, registerId: 'x' }, 'registerId'],
    ] as const) {
      const res = await json('POST', '/api/register/pair', undefined, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const badLocation = await json('POST', '/api/pos/registers/pairing-codes', staffToken, { locationId: 'loc_unknown' });
    expect(badLocation.statusCode).toBe(400);
    expect(badLocation.json().errors[0]).toMatchObject({ path: 'locationId' });
  });

  it('lists registers with name, location and last seen, and a revoked register is refused on its next request', async () => {
    const register = await enrollRegister(server, staffToken, { name: 'Patio' });
    const auth = { authorization: `Bearer ${register.registerToken}` };
    expect((await server.app.inject({ method: 'GET', url: '/api/sync/orders/pull', headers: auth })).statusCode).toBe(200);

    const listed = await json('GET', '/api/pos/registers', staffToken);
    expect(listed.statusCode, listed.body).toBe(200);
    const row = listed.json<{ data: Record<string, unknown>[] }>().data.find((r) => r.id === register.registerId);
    expect(row).toMatchObject({
      name: 'Patio',
      number: register.registerNumber,
      kind: 'terminal',
      locationId: register.locationId,
      locationName: expect.any(String),
      lastSeenAt: expect.any(String),
      revokedAt: null,
    });

    const revoked = await json('POST', `/api/pos/registers/${register.registerId}/revoke`, staffToken, {});
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toMatchObject({ id: register.registerId, revokedAt: expect.any(String) });
    const refused = await server.app.inject({ method: 'GET', url: '/api/sync/orders/pull', headers: auth });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'invalid_token' });
    expect((await json('POST', '/api/sync/stream-tickets', register.registerToken, {})).statusCode).toBe(401);
    // The demo self-pairing does not undo a revocation.
    const selfPair = await server.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: { registerId: register.registerId } });
    expect(selfPair.statusCode).toBe(409);
    expect(selfPair.json()).toMatchObject({ code: 'register_revoked' });
    // A manager's new code pairs it again, same number; the old credential stays dead.
    const back = await enrollRegister(server, staffToken, { registerId: register.registerId });
    expect(back).toMatchObject({ registerId: register.registerId, registerNumber: register.registerNumber });
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/sync/orders/pull', headers: { authorization: `Bearer ${back.registerToken}` } }))
        .statusCode,
    ).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/api/sync/orders/pull', headers: auth })).statusCode).toBe(401);

    const audit = await server.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE entity_id = $1 ORDER BY seq`, [register.registerId]);
    expect(audit.rows.map((r) => r.action)).toEqual(['register.paired', 'register.revoked', 'register.paired']);
    expect((await json('POST', '/api/pos/registers/reg_unknown/revoke', staffToken, {})).statusCode).toBe(404);
  });

  it('names demo registers by browser, and retires the ones never used to sell in one step', async () => {
    const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const firefox = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
    const pair = async (userAgent: string) =>
      (await server.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: {}, headers: { 'user-agent': userAgent } })).json<{
        registerId: string;
        registerNumber: number;
        registerName: string;
        registerToken: string;
      }>();
    const idle = await pair(chrome);
    expect(idle.registerName).toBe(`Demo register ${idle.registerNumber} (Chrome on Linux)`);
    const sold = await pair(firefox);
    expect(sold.registerName).toBe(`Demo register ${sold.registerNumber} (Firefox on Windows)`);
    const busy = await pair(chrome);
    const kept = await pair(chrome);
    // `sold` synced a shift; `idle`, `sold` and `kept` were last seen an hour ago; `busy` just now.
    const shift = {
      id: newId('shift'),
      registerId: sold.registerId,
      registerNumber: sold.registerNumber,
      currency: 'USD',
      openedAt: now.toISOString(),
      openingFloatCents: 0,
      openingCount: [],
    };
    expect((await json('POST', '/api/sync/shifts/push', sold.registerToken, [{ assumedMasterState: null, newDocumentState: shift }])).json()).toEqual(
      [],
    );
    for (const r of [idle, sold, busy, kept]) expect((await json('GET', '/api/sync/orders/pull', r.registerToken)).statusCode).toBe(200);
    await server.db.query(`UPDATE register_credentials SET last_seen_at = now() - interval '1 hour' WHERE register_id = ANY($1)`, [
      [idle.registerId, sold.registerId, kept.registerId],
    ]);

    const listed = (await json('GET', '/api/pos/registers?limit=200', staffToken)).json<{ data: { id: string; hasSold: boolean }[] }>().data;
    expect(listed.find((r) => r.id === sold.registerId)?.hasSold).toBe(true);
    expect(listed.find((r) => r.id === idle.registerId)?.hasSold).toBe(false);

    const retired = await json('POST', '/api/pos/registers/retire-unused', staffToken, { keepRegisterId: kept.registerId });
    expect(retired.statusCode, retired.body).toBe(200);
    const retiredIds = retired.json<{ retired: { id: string; revokedAt: string | null }[] }>().retired.map((r) => r.id);
    expect(retiredIds).toContain(idle.registerId);
    expect(retiredIds).not.toContain(sold.registerId);
    expect(retiredIds).not.toContain(busy.registerId);
    expect(retiredIds).not.toContain(kept.registerId);
    expect((await json('GET', '/api/sync/orders/pull', idle.registerToken)).statusCode).toBe(401);
    expect((await json('GET', '/api/sync/orders/pull', sold.registerToken)).statusCode).toBe(200);
    const audit = await server.db.query<{ action: string; data: unknown }>(
      `SELECT action, data FROM audit_log WHERE entity_id = $1 AND action = 'register.revoked'`,
      [idle.registerId],
    );
    expect(audit.rows).toEqual([{ action: 'register.revoked', data: { reason: 'unused' } }]);
    // Once more: nothing left to retire but what was kept.
    expect((await json('POST', '/api/pos/registers/retire-unused', staffToken, { keepRegisterId: kept.registerId })).json()).toMatchObject({
      retired: [],
    });
  });

  it('a register credential pushes and reads its own register only', async () => {
    const mine = await enrollRegister(server, staffToken);
    const other = await enrollRegister(server, staffToken);
    const sale = buildSale({ register: other, sequence: 1, catalog: server.catalog, createdAt: now.toISOString() });
    const pushed = await json('POST', '/api/sync/orders/push', mine.registerToken, [{ newDocumentState: sale.order }]);
    expect(pushed.statusCode).toBe(403);
    expect(pushed.json()).toMatchObject({ code: 'other_register', errors: [{ path: '[0].newDocumentState.registerId' }] });
    expect((await json('GET', `/api/sync/registers/${other.registerId}`, mine.registerToken)).statusCode).toBe(403);
    expect((await json('GET', `/api/sync/registers/${mine.registerId}`, mine.registerToken)).statusCode).toBe(200);
    const own = buildSale({ register: mine, sequence: 1, catalog: server.catalog, createdAt: now.toISOString() });
    const ok = await json('POST', '/api/sync/orders/push', mine.registerToken, [{ newDocumentState: own.order }]);
    expect(ok.json()).toEqual([]);
  });

  it('pairing attempts are rate-limited per client address', async () => {
    const limited = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, recurringInvoices: { enabled: false } });
    try {
      const from = '198.51.100.23';
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await limited.app.inject({ method: 'POST', url: '/api/register/pair', payload: { code: 'AAAA-AAAA' }, remoteAddress: from });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) {
          expect(res.headers['retry-after']).toBeDefined();
          expect(String(res.headers['ratelimit-policy'])).toContain('"pairing";q=10;w=60');
        }
      }
      expect(statuses).toEqual([...Array(10).fill(400), 429]);
      // Another address still pairs.
      expect((await enrollRegister(limited, limited.credentials.staffToken)).registerToken).toMatch(/^rrc_/);
    } finally {
      await limited.close();
    }
  });

  it('the stream takes a single-use ticket valid for seconds, never a token in the URL', async () => {
    const register = await enrollRegister(server, staffToken);
    // The old way: a long-lived token in the query string. Refused, for staff tokens and register credentials alike.
    for (const token of [staffToken, register.registerToken]) {
      const res = await fetch(`${server.baseUrl}/api/sync/orders/stream?token=${encodeURIComponent(token)}`);
      expect(res.status).toBe(400); // `token` is not a parameter of the stream any more
      await res.body?.cancel();
    }
    expect((await json('POST', '/api/sync/stream-tickets', undefined, {})).statusCode).toBe(401);
    expect((await json('POST', '/api/sync/stream-tickets', server.credentials.appToken, {})).statusCode).toBe(403);

    const issued = await json('POST', '/api/sync/stream-tickets', register.registerToken, {});
    expect(issued.statusCode, issued.body).toBe(201);
    const { ticket, expiresAt } = issued.json<{ ticket: string; expiresAt: string }>();
    expect(ticket).toMatch(/^sst_/);
    expect(new Date(expiresAt).getTime() - now.getTime()).toBe(30_000);
    const stored = await server.db.query<Record<string, unknown>>('SELECT * FROM stream_tickets');
    expect(JSON.stringify(stored.rows)).not.toContain(ticket);

    const controller = new AbortController();
    const open = await fetch(`${server.baseUrl}/api/sync/orders/stream?ticket=${ticket}`, { signal: controller.signal });
    expect(open.status).toBe(200);
    const reader = open.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('RESYNC');
    controller.abort();
    await reader.cancel().catch(() => undefined);

    // Used once: the same URL again is refused.
    const replay = await fetch(`${server.baseUrl}/api/sync/orders/stream?ticket=${ticket}`);
    expect(replay.status).toBe(401);
    await replay.body?.cancel();
    // Not used within 30 seconds: refused.
    const slow = (await json('POST', '/api/sync/stream-tickets', register.registerToken, {})).json<{ ticket: string }>().ticket;
    now = new Date(now.getTime() + 31_000);
    const late = await fetch(`${server.baseUrl}/api/sync/orders/stream?ticket=${slow}`);
    expect(late.status).toBe(401);
    await late.body?.cancel();
    now = new Date(now.getTime() - 31_000);

    // A stream open when its register is revoked ends (at its next keep-alive).
    const live = (await json('POST', '/api/sync/stream-tickets', register.registerToken, {})).json<{ ticket: string }>().ticket;
    const streaming = await fetch(`${server.baseUrl}/api/sync/orders/stream?ticket=${live}`);
    expect(streaming.status).toBe(200);
    const liveReader = streaming.body!.getReader();
    expect(new TextDecoder().decode((await liveReader.read()).value)).toContain('RESYNC');
    expect((await json('POST', `/api/pos/registers/${register.registerId}/revoke`, staffToken, {})).statusCode).toBe(200);
    for (;;) if ((await liveReader.read()).done) break; // ends; a stream left open would time the test out
  });

  it('staff sign in on a paired register with a PIN kept as scrypt, for a shift token; wrong PINs are limited', async () => {
    const register = await enrollRegister(server, staffToken);
    const listed = await json('GET', '/api/register/staff', register.registerToken);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json()).toEqual({
      data: [{ id: server.credentials.staffId, name: 'Demo Owner', role: 'owner', pinSetAt: expect.any(String) }],
      offlineSignInDays: 7,
    });
    const stored = (await server.db.query<{ pin_hash: string }>('SELECT pin_hash FROM staff WHERE id = $1', [server.credentials.staffId])).rows[0]!
      .pin_hash;
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain(server.credentials.ownerPin);

    expect(
      (await json('POST', '/api/register/sign-in', undefined, { staffId: server.credentials.staffId, pin: server.credentials.ownerPin })).statusCode,
    ).toBe(401);
    const wrongPin = server.credentials.ownerPin === '0000' ? '1111' : '0000';
    const wrong = await json('POST', '/api/register/sign-in', register.registerToken, { staffId: server.credentials.staffId, pin: wrongPin });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'invalid_pin' });
    const badShape = await json('POST', '/api/register/sign-in', register.registerToken, { staffId: server.credentials.staffId, pin: '12ab' });
    expect(badShape.statusCode).toBe(400);
    expect(badShape.json().errors[0]).toMatchObject({ path: 'pin' });

    const signedIn = await json('POST', '/api/register/sign-in', register.registerToken, {
      staffId: server.credentials.staffId,
      pin: server.credentials.ownerPin,
    });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const shift = signedIn.json<{ staffToken: string; expiresAt: string; staff: { role: string } }>();
    expect(shift.staff.role).toBe('owner');
    expect(signedIn.json()).toMatchObject({ offlineSignInDays: 7, staff: { pinSetAt: listed.json().data[0].pinSetAt } });
    expect(new Date(shift.expiresAt).getTime() - now.getTime()).toBe(12 * 3600 * 1000);
    expect((await json('GET', '/api/pos/settings', shift.staffToken)).statusCode).toBe(200);
    const audited = await server.db.query<{ action: string; register_id: string | null }>(
      `SELECT action, register_id FROM audit_log WHERE action = 'staff.signed_in' ORDER BY seq DESC LIMIT 1`,
    );
    expect(audited.rows[0]).toMatchObject({ register_id: register.registerId });

    // Five attempts a minute per register (a malformed one counts too): the sixth is refused, even with the right PIN.
    for (let i = 0; i < 2; i++)
      expect(
        (await json('POST', '/api/register/sign-in', register.registerToken, { staffId: server.credentials.staffId, pin: wrongPin })).statusCode,
      ).toBe(401);
    const limited = await json('POST', '/api/register/sign-in', register.registerToken, {
      staffId: server.credentials.staffId,
      pin: server.credentials.ownerPin,
    });
    expect(limited.statusCode).toBe(429);
  });

  it('a disabled staff member is neither listed nor signed in; a new PIN changes pinSetAt; the store sets the offline window', async () => {
    const register = await enrollRegister(server, staffToken);
    const created = await json(
      'POST',
      '/api/pos/staff',
      staffToken,
      { name: 'Dana Disabled', role: 'cashier', pin: '4321' },
      { 'idempotency-key': newId('order') },
    );
    expect(created.statusCode, created.body).toBe(201);
    const dana = created.json<{ id: string; disabled: boolean }>();
    expect(dana.disabled).toBe(false);
    const listed = async () =>
      (await json('GET', '/api/register/staff', register.registerToken)).json<{
        data: { id: string; pinSetAt: string }[];
        offlineSignInDays: number;
      }>();
    const firstPinSetAt = (await listed()).data.find((s) => s.id === dana.id)!.pinSetAt;

    now = new Date(now.getTime() + MINUTE);
    expect((await json('POST', `/api/pos/staff/${dana.id}/pin`, staffToken, { pin: '5678' }, { 'idempotency-key': newId('order') })).statusCode).toBe(
      200,
    );
    expect((await listed()).data.find((s) => s.id === dana.id)!.pinSetAt).not.toBe(firstPinSetAt);

    const patch = (body: unknown) =>
      server.app.inject({
        method: 'PATCH',
        url: `/api/pos/staff/${dana.id}`,
        headers: { authorization: `Bearer ${staffToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const disabled = await patch({ disabled: true });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect(disabled.json()).toMatchObject({ disabled: true });
    expect((await listed()).data.map((s) => s.id)).not.toContain(dana.id);
    const refused = await json('POST', '/api/register/sign-in', register.registerToken, { staffId: dana.id, pin: '5678' });
    expect(refused.statusCode).toBe(401);
    expect((await patch({ disabled: 'yes' })).json().errors[0]).toMatchObject({ path: 'disabled' });
    // The store keeps an enabled owner.
    const lastOwner = await server.app.inject({
      method: 'PATCH',
      url: `/api/pos/staff/${server.credentials.staffId}`,
      headers: { authorization: `Bearer ${staffToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ disabled: true }),
    });
    expect(lastOwner.statusCode).toBe(409);
    expect((await patch({ disabled: false })).json()).toMatchObject({ disabled: false });
    expect((await json('POST', '/api/register/sign-in', register.registerToken, { staffId: dana.id, pin: '5678' })).statusCode).toBe(200);

    const settings = await server.app.inject({
      method: 'PATCH',
      url: '/api/pos/settings',
      headers: { authorization: `Bearer ${staffToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ offlineSignInDays: 2 }),
    });
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json()).toMatchObject({ offlineSignInDays: 2 });
    expect((await listed()).offlineSignInDays).toBe(2);
  });
});
