/**
 * Roles: the server enforces owner / manager / cashier on the API from ONE permission table
 * (`platform/auth/permissions.ts`), and owners and managers manage the staff (`/api/pos/staff`). Staff tokens are the
 * real ones a register's PIN sign-in gives. Over HTTP (app.inject), on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { requiredRole, ROUTE_ROLES } from '../../sync-server/src/platform/auth/permissions.ts';

type Doc = { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };

describe.each(databaseTargets())('roles on $name', (target) => {
  let server: TestServer;
  let owner: string;
  let register: EnrolledRegister;
  let doc: Doc;

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    owner = server.credentials.staffToken;
    register = await enrollRegister(server, owner);
    doc = (await server.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Doc;
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: string, url: string, token: string, payload?: unknown) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  /** A shift token from the register's PIN sign-in, as the register gets it. */
  const signIn = async (staffId: string, pin: string): Promise<string> => {
    const res = await call('POST', '/api/register/sign-in', register.registerToken, { staffId, pin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ staffToken: string }>().staffToken;
  };
  /** Every documented operation a staff token may call: `[METHOD, fastify url, concrete url]`. */
  const staffOperations = (): [string, string, string][] =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => (op.security ?? []).some((s) => 'staffToken' in s))
        .map(
          ([method, _op]) => [method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1'), path.replace(/\{(\w+)\}/g, 'x1')] as [string, string, string],
        ),
    );

  it('owners add managers, managers add cashiers only, owners change roles and PINs; the last owner stays', async () => {
    const manager = await call('POST', '/api/pos/staff', owner, { name: '  Maria Manager ', role: 'manager', pin: '4821' });
    expect(manager.statusCode, manager.body).toBe(201);
    expect(manager.json()).toMatchObject({ id: expect.stringMatching(/^stf_/), name: 'Maria Manager', role: 'manager', hasPin: true, email: null });
    const managerToken = await signIn(manager.json<{ id: string }>().id, '4821');

    const cashier = await call('POST', '/api/pos/staff', managerToken, { name: 'Carl Cashier', role: 'cashier', pin: '1357' });
    expect(cashier.statusCode, cashier.body).toBe(201);
    const cashierId = cashier.json<{ id: string }>().id;
    const second = await call('POST', '/api/pos/staff', managerToken, { name: 'Mo', role: 'manager' });
    expect(second.statusCode).toBe(403);
    expect(second.json()).toMatchObject({ code: 'role_not_allowed', errors: [{ path: 'role' }] });
    expect((await call('PATCH', `/api/pos/staff/${cashierId}`, managerToken, { role: 'manager' })).json()).toMatchObject({
      code: 'role_not_allowed',
    });

    const blank = await call('POST', '/api/pos/staff', owner, { name: '   ', role: 'cashier' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json()).toMatchObject({ errors: [{ path: 'name' }] });
    expect((await call('POST', '/api/pos/staff', owner, { name: 'Pat', role: 'boss' })).json()).toMatchObject({ errors: [{ path: 'role' }] });
    expect((await call('POST', '/api/pos/staff', owner, { name: 'Pat', role: 'cashier', pin: '12' })).json()).toMatchObject({
      errors: [{ path: 'pin' }],
    });

    const listed = await call('GET', '/api/pos/staff?limit=2', managerToken);
    expect(listed.statusCode, listed.body).toBe(200);
    const page1 = listed.json<{ data: { id: string }[]; nextCursor: string | null }>();
    expect(page1.data).toHaveLength(2);
    const page2 = (await call('GET', `/api/pos/staff?limit=10&cursor=${page1.nextCursor}`, managerToken)).json<{
      data: { id: string; role: string }[];
    }>();
    const everyone = [...page1.data, ...page2.data];
    expect(everyone.map((s) => s.id).sort()).toEqual([server.credentials.staffId, manager.json<{ id: string }>().id, cashierId].sort());
    expect(listed.body).not.toMatch(/scrypt|pin_hash|4821/);

    // The owner promotes the cashier, resets their PIN: the old PIN stops working.
    const promoted = await call('PATCH', `/api/pos/staff/${cashierId}`, owner, { role: 'manager', name: 'Carl' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json()).toMatchObject({ role: 'manager', name: 'Carl' });
    expect((await call('POST', `/api/pos/staff/${cashierId}/pin`, owner, { pin: '97531' })).statusCode).toBe(200);
    expect((await call('POST', '/api/register/sign-in', register.registerToken, { staffId: cashierId, pin: '1357' })).statusCode).toBe(401);
    await signIn(cashierId, '97531');
    expect((await call('PATCH', `/api/pos/staff/${cashierId}`, owner, { role: 'cashier' })).statusCode).toBe(200);

    const lastOwner = await call('PATCH', `/api/pos/staff/${server.credentials.staffId}`, owner, { role: 'manager' });
    expect(lastOwner.statusCode).toBe(409);
    expect(lastOwner.json()).toMatchObject({ code: 'last_owner' });
    expect((await call('PATCH', '/api/pos/staff/stf_nobody', owner, { name: 'X' })).statusCode).toBe(404);

    const audit = await server.db.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE entity_id = $1 AND action <> 'staff.signed_in' ORDER BY seq`,
      [cashierId],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['staff.created', 'staff.pin_set', 'staff.updated', 'staff.pin_set', 'staff.updated']);
  });

  it('the permission table names only real routes', () => {
    const routes = new Set(staffOperations().map(([method, url]) => `${method} ${url}`));
    expect(Object.keys(ROUTE_ROLES).filter((key) => !routes.has(key))).toEqual([]);
  });

  it("walks every documented route with a cashier's and a manager's token: only what the table allows answers", async () => {
    const cashierRes = await call('POST', '/api/pos/staff', owner, { name: 'Walker', role: 'cashier', pin: '2468' });
    const managerRes = await call('POST', '/api/pos/staff', owner, { name: 'Walking Manager', role: 'manager', pin: '8642' });
    const tokens = {
      cashier: await signIn(cashierRes.json<{ id: string }>().id, '2468'),
      manager: await signIn(managerRes.json<{ id: string }>().id, '8642'),
    };
    const seen = { cashier: { allowed: 0, refused: 0 }, manager: { allowed: 0, refused: 0 } };
    for (const [method, url, concrete] of staffOperations()) {
      if (url.endsWith('/stream')) continue; // a single-use ticket, not a Bearer token (its ticket route is walked)
      const needed = requiredRole(method, url);
      for (const role of ['cashier', 'manager'] as const) {
        const allowed = needed === 'cashier' || (role === 'manager' && needed === 'manager');
        const res = await call(method, concrete, tokens[role], method === 'GET' || method === 'DELETE' ? undefined : {});
        if (allowed) {
          seen[role].allowed++;
          expect(res.statusCode === 403 && res.body.includes('role_not_allowed'), `${role} ${method} ${url}: ${res.body.slice(0, 200)}`).toBe(false);
        } else {
          seen[role].refused++;
          expect(res.statusCode, `${role} ${method} ${url}: ${res.body}`).toBe(403);
          expect(res.json(), `${role} ${method} ${url}`).toMatchObject({ code: 'role_not_allowed', detail: expect.stringContaining(needed) });
        }
      }
    }
    // Selling and refunds (above the store's limit only with a manager's approval) are open to cashiers; reports, settings, webhooks and the audit trail are not.
    expect(requiredRole('POST', '/api/pos/orders')).toBe('cashier');
    expect(requiredRole('POST', '/api/pos/orders/:id/refunds')).toBe('cashier');
    expect(requiredRole('PATCH', '/api/pos/settings')).toBe('owner');
    expect(requiredRole('GET', '/api/pos/audit/checkpoints')).toBe('owner');
    expect(seen.cashier.allowed).toBeGreaterThan(20);
    expect(seen.cashier.refused).toBeGreaterThan(50);
    expect(seen.manager.refused).toBeGreaterThan(10);
  });

  it('a pushed sale names a staff member of this store, else it is quarantined with the reason', async () => {
    const other = await startTestServer({ target, staticDir: null });
    const strangerId = other.credentials.staffId;
    await other.close();
    const sale = (sequence: number, staffId: string) => ({ ...buildSale({ register, sequence, catalog: server.catalog }).order, staffId });
    const mine = sale(9001, server.credentials.staffId);
    const unknown = sale(9002, 'stf_nobody_here');
    const stranger = sale(9003, strangerId);
    const res = await call(
      'POST',
      '/api/sync/orders/push',
      register.registerToken,
      [mine, unknown, stranger].map((d) => ({ assumedMasterState: null, newDocumentState: d })),
    );
    expect(res.statusCode, res.body).toBe(200);
    const stored = await server.db.query<{ id: string }>('SELECT id FROM orders WHERE id = ANY($1::text[])', [[mine.id, unknown.id, stranger.id]]);
    expect(stored.rows.map((r) => r.id)).toEqual([mine.id]);
    const reasons = await server.db.query<{ doc_id: string; reason: string }>(
      'SELECT doc_id, reason FROM quarantine WHERE doc_id = ANY($1::text[]) ORDER BY doc_id',
      [[unknown.id, stranger.id]],
    );
    expect(reasons.rows.map((r) => r.doc_id).sort()).toEqual([unknown.id, stranger.id].sort());
    for (const row of reasons.rows) expect(row.reason).toMatch(/staffId \S+ is not a staff member of this store/);
  });
});
