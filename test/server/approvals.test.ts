/**
 * Manager approvals: a cashier refunds up to the store's `cashierRefundLimitCents`; above it the refund needs
 * a manager's (or owner's) approval from `POST /api/register/approvals` (PIN), single use, recorded as `approvedBy`.
 * Over HTTP (app.inject), on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale, DEMO_CART } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe.each(databaseTargets())('manager approvals on $name', (target) => {
  let server: TestServer;
  let owner: string;
  let register: EnrolledRegister;
  let cashierId: string;
  let cashier: string;
  let managerId: string;
  let sequence = 7000;

  const call = (method: string, url: string, token: string, payload?: unknown) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const signIn = async (staffId: string, pin: string, on: EnrolledRegister = register): Promise<string> => {
    const res = await call('POST', '/api/register/sign-in', on.registerToken, { staffId, pin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ staffToken: string }>().staffToken;
  };
  /** A paid register sale pushed to the server: its order id and total (cents). */
  const paidOrder = async (): Promise<{ id: string; totalCents: number }> => {
    const lines = [...DEMO_CART, { ...DEMO_CART[2]!, quantity: 3 }];
    const order = {
      ...buildSale({ register, sequence: sequence++, catalog: server.catalog, lines, tenderedCents: 1000_00 }).order,
      staffId: server.credentials.staffId,
    };
    const res = await call('POST', '/api/sync/orders/push', register.registerToken, [{ assumedMasterState: null, newDocumentState: order }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([]);
    return { id: order.id, totalCents: order.totalCents };
  };
  const approve = (body: Record<string, unknown>) => call('POST', '/api/register/approvals', register.registerToken, body);

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    owner = server.credentials.staffToken;
    register = await enrollRegister(server, owner);
    cashierId = (await call('POST', '/api/pos/staff', owner, { name: 'Cass Cashier', role: 'cashier', pin: '1357' })).json<{ id: string }>().id;
    managerId = (await call('POST', '/api/pos/staff', owner, { name: 'Max Manager', role: 'manager', pin: '8642' })).json<{ id: string }>().id;
    cashier = await signIn(cashierId, '1357');
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a cashier refunds up to the store's limit; above it only with a manager's single-use approval, recorded", async () => {
    const order = await paidOrder();
    expect(order.totalCents).toBeGreaterThan(100_00);
    const settings = (await call('GET', '/api/pos/settings', owner)).json<{ cashierRefundLimitCents: number }>();
    expect(settings.cashierRefundLimitCents).toBe(50_00);

    const small = await call('POST', `/api/pos/orders/${order.id}/refunds`, cashier, { amountCents: 50_00 });
    expect(small.statusCode, small.body).toBe(201);
    expect(small.json().refund).toMatchObject({ amountCents: 50_00, approvedBy: null });

    const big = await call('POST', `/api/pos/orders/${order.id}/refunds`, cashier, { amountCents: 50_01 });
    expect(big.statusCode, big.body).toBe(403);
    expect(big.json()).toMatchObject({ code: 'approval_required', errors: [{ path: 'approval' }] });

    // Wrong PIN, a cashier's PIN: refused, no token.
    const wrong = await approve({ staffId: managerId, pin: '0000', action: 'refund', orderId: order.id, amountCents: 50_01 });
    expect(wrong.statusCode, wrong.body).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'invalid_pin' });
    const byCashier = await approve({ staffId: cashierId, pin: '1357', action: 'refund', orderId: order.id, amountCents: 50_01 });
    expect(byCashier.statusCode, byCashier.body).toBe(403);
    expect(byCashier.json()).toMatchObject({ code: 'approver_not_allowed' });
    expect(byCashier.body).not.toContain('apv_');
    const badBody = await approve({ staffId: managerId, pin: '8642', action: 'void' });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json()).toMatchObject({ errors: [{ path: 'action' }] });

    const granted = await approve({ staffId: managerId, pin: '8642', action: 'refund', orderId: order.id, amountCents: 50_01 });
    expect(granted.statusCode, granted.body).toBe(201);
    const approval = granted.json<{ approval: string }>().approval;
    expect(granted.json()).toMatchObject({ approvedBy: managerId, action: 'refund', orderId: order.id, amountCents: 50_01 });
    const stored = await server.db.query<{ token_hash: string }>('SELECT token_hash FROM manager_approvals WHERE approved_by = $1', [managerId]);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]!.token_hash).not.toContain(approval);

    // Bound to the amount: not for more.
    const more = await call('POST', `/api/pos/orders/${order.id}/refunds`, cashier, { amountCents: 50_02, approval });
    expect(more.statusCode, more.body).toBe(403);
    expect(more.json()).toMatchObject({ code: 'approval_invalid' });

    const approved = await call('POST', `/api/pos/orders/${order.id}/refunds`, cashier, { amountCents: 50_01, approval });
    expect(approved.statusCode, approved.body).toBe(201);
    expect(approved.json().refund).toMatchObject({ amountCents: 50_01, approvedBy: managerId });
    const view = (await call('GET', `/api/pos/orders/${order.id}`, owner)).json<{ refunds: { approvedBy: string | null }[] }>();
    expect(view.refunds.map((r) => r.approvedBy)).toEqual([null, managerId]);
    const audit = await server.db.query<{ data: { approvedBy: string | null } }>(
      `SELECT data FROM audit_log WHERE action = 'order.refunded' AND entity_id = $1 ORDER BY seq`,
      [order.id],
    );
    expect(audit.rows.map((r) => r.data.approvedBy)).toEqual([null, managerId]);

    // Single use.
    const again = await call('POST', `/api/pos/orders/${order.id}/refunds`, cashier, { amountCents: 50_01, approval });
    expect(again.statusCode, again.body).toBe(403);
    expect(again.json()).toMatchObject({ code: 'approval_invalid' });

    // PIN attempts share the register's sign-in quota (5 per minute): the sixth is 429.
    const sixth = await approve({ staffId: managerId, pin: '8642', action: 'refund' });
    expect(sixth.statusCode, sixth.body).toBe(429);
  });

  it('an approval is bound to its order; managers and owners refund above the limit without one', async () => {
    const first = await paidOrder();
    const second = await paidOrder();
    // The back office asks with the signed-in staff's token (its own quota).
    const granted = await call('POST', '/api/register/approvals', owner, {
      staffId: server.credentials.staffId,
      pin: server.credentials.ownerPin,
      action: 'refund',
      orderId: first.id,
    });
    expect(granted.statusCode, granted.body).toBe(201);
    const elsewhere = await call('POST', `/api/pos/orders/${second.id}/refunds`, cashier, {
      amountCents: 60_00,
      approval: granted.json<{ approval: string }>().approval,
    });
    expect(elsewhere.statusCode, elsewhere.body).toBe(403);
    expect(elsewhere.json()).toMatchObject({ code: 'approval_invalid' });

    const manager = await signIn(managerId, '8642', await enrollRegister(server, owner));
    const byManager = await call('POST', `/api/pos/orders/${second.id}/refunds`, manager, { amountCents: 60_00 });
    expect(byManager.statusCode, byManager.body).toBe(201);
    expect(byManager.json().refund).toMatchObject({ approvedBy: null });
  });

  it('the owner sets the limit in the settings', async () => {
    const patched = await call('PATCH', '/api/pos/settings', owner, { cashierRefundLimitCents: 100_00 });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ cashierRefundLimitCents: 100_00 });
    expect((await call('PATCH', '/api/pos/settings', owner, { cashierRefundLimitCents: -1 })).json()).toMatchObject({
      errors: [{ path: 'cashierRefundLimitCents' }],
    });
    const order = await paidOrder();
    const res = await call('POST', `/api/pos/orders/${order.id}/refunds`, cashier, { amountCents: 99_00 });
    expect(res.statusCode, res.body).toBe(201);
  });

  it("a pushed sale whose overridden price names no manager's approval is quarantined; with a manager's it is stored", async () => {
    // The croissant sold at 1.00 instead of the catalog's price: totals consistent, the line carries the override.
    const catalog = {
      ...server.catalog,
      items: server.catalog.items.map((i) =>
        i.id === 'itm_croissant' ? { ...i, variations: i.variations.map((v) => ({ ...v, priceCents: 1_00 })) } : i,
      ),
    };
    const overridden = (approvedBy: string) => {
      const order = buildSale({ register, sequence: sequence++, catalog }).order;
      const lines = order.lines.map((l) => (l.catalogItemId === 'itm_croissant' ? { ...l, priceOverride: { reason: 'day-old', approvedBy } } : l));
      return { ...order, lines, staffId: cashierId };
    };
    const byCashier = overridden(cashierId);
    const byStranger = overridden('stf_nobody_here');
    const byManager = overridden(managerId);
    const res = await call(
      'POST',
      '/api/sync/orders/push',
      register.registerToken,
      [byCashier, byStranger, byManager].map((d) => ({ assumedMasterState: null, newDocumentState: d })),
    );
    expect(res.statusCode, res.body).toBe(200);
    const stored = await server.db.query<{ id: string; data: { lines: { priceOverride?: { approvedBy: string } }[] } }>(
      'SELECT id, data FROM orders WHERE id = ANY($1::text[])',
      [[byCashier.id, byStranger.id, byManager.id]],
    );
    expect(stored.rows.map((r) => r.id)).toEqual([byManager.id]);
    expect(stored.rows[0]!.data.lines.some((l) => l.priceOverride?.approvedBy === managerId)).toBe(true);
    const reasons = await server.db.query<{ doc_id: string; reason: string }>(
      'SELECT doc_id, reason FROM quarantine WHERE doc_id = ANY($1::text[])',
      [[byCashier.id, byStranger.id]],
    );
    expect(Object.fromEntries(reasons.rows.map((r) => [r.doc_id, r.reason]))).toEqual({
      [byCashier.id]: expect.stringMatching(/^lines\.\d+\.priceOverride\.approvedBy stf_\S+ is not a manager or owner of this store \(a cashier\)/),
      [byStranger.id]: expect.stringMatching(/^lines\.\d+\.priceOverride\.approvedBy stf_nobody_here is not a manager or owner of this store: /),
    });
  });
});
