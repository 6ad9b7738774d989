/**
 * Returns at the register: a return (core/returns.ts) is pushed through sync (`POST /api/sync/returns/push`),
 * online or after an outage; the server refunds the lines (restock, ledger), de-duplicates by the return's id, refuses
 * (quarantines) a return of more than was sold — across registers —, waits for a sale not synced yet (409), and keeps
 * the store's approval rule for a cashier above the limit. Over HTTP (app.inject), on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cashDrawerAccount,
  computeZReport,
  newId,
  planReturn,
  priorOfReturns,
  type CatalogItem,
  type Order,
  type RegisterReturn,
  type Shift,
  type ShiftCloseout,
} from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { cutoffAwayFromNow } from '../support/business-day.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe.each(databaseTargets())('register returns on $name', (target) => {
  let server: TestServer;
  let owner: string;
  let register: EnrolledRegister;
  let other: EnrolledRegister;
  let cashierId: string;
  let managerId: string;
  let sequence = 100;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const croissants = (quantity: number) => [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity }];
  const sell = async (quantity: number, on = register, push = true): Promise<Order> => {
    const { order } = buildSale({ register: on, sequence: sequence++, catalog: server.catalog, lines: croissants(quantity), tenderedCents: 1000_00 });
    if (push) {
      const res = await call('POST', '/api/sync/orders/push', on.registerToken, [{ newDocumentState: order }]);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual([]);
    }
    return order;
  };
  const returnOf = (order: Order, quantity: number, on = register, extra: Partial<RegisterReturn> = {}): RegisterReturn => {
    const lines = [{ lineId: order.lines[0]!.id, quantity }];
    return {
      id: newId('registerReturn'),
      registerId: on.registerId,
      orderId: order.id,
      receiptNumber: order.receiptNumber,
      createdAt: new Date().toISOString(),
      lines,
      restock: true,
      amountCents: planReturn(order, [], lines).amountCents,
      tender: { method: 'cash' },
      ...extra,
    };
  };
  const pushReturns = (docs: RegisterReturn[], on = register) =>
    call(
      'POST',
      '/api/sync/returns/push',
      on.registerToken,
      docs.map((d) => ({ assumedMasterState: null, newDocumentState: d })),
    );
  const stock = async () =>
    (await call('GET', '/api/pos/catalog/items/itm_croissant', owner)).json<CatalogItem>().variations.find((v) => v.id === 'var_croissant_regular')!
      .stockOnHand ?? 0;
  const orderView = async (id: string) =>
    (await call('GET', `/api/pos/orders/${id}`, owner)).json<{
      state: string;
      refundedCents: number;
      refunds: { id: string; amountCents: number; approvedBy: string | null; allocations: { accountCode: string; amountCents: number }[] }[];
    }>();

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    // The two shifts of the cash-return case, an hour ago, must share one business day at any time of the run.
    await cutoffAwayFromNow(server.db, server.credentials.merchantId);
    owner = server.credentials.staffToken;
    register = await enrollRegister(server, owner);
    other = await enrollRegister(server, owner);
    cashierId = (await call('POST', '/api/pos/staff', owner, { name: 'Cass Cashier', role: 'cashier', pin: '1357' })).json<{ id: string }>().id;
    managerId = (await call('POST', '/api/pos/staff', owner, { name: 'Max Manager', role: 'manager', pin: '8642' })).json<{ id: string }>().id;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refunds the returned lines to the drawer, restocks them, and stores the return once (pulled back with its refund)', async () => {
    const order = await sell(3);
    const before = await stock();
    const ret = returnOf(order, 2);
    const res = await pushReturns([ret]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([]);
    expect(await stock()).toBe(before + 2);
    const view = await orderView(order.id);
    expect(view.state).toBe('partially_refunded');
    expect(view.refunds).toHaveLength(1);
    expect(view.refunds[0]!.amountCents).toBe(ret.amountCents);
    expect(view.refunds[0]!.allocations).toEqual([
      expect.objectContaining({ accountCode: cashDrawerAccount(register.registerNumber), amountCents: ret.amountCents }),
    ]);

    // The same return again (a retry after a lost answer): nothing new.
    const again = await pushReturns([ret]);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual([]);
    expect((await orderView(order.id)).refunds).toHaveLength(1);
    expect(await stock()).toBe(before + 2);

    const pulled = await call('GET', '/api/sync/returns/pull?seq=0&limit=100', register.registerToken);
    expect(pulled.statusCode, pulled.body).toBe(200);
    const doc = pulled.json<{ documents: (RegisterReturn & { syncSeq: number })[] }>().documents.find((d) => d.id === ret.id);
    expect(doc).toMatchObject({ id: ret.id, refundId: view.refunds[0]!.id, amountCents: ret.amountCents });
    expect(doc!.syncSeq).toBeGreaterThan(0);
  });

  it('refuses a return of more than was sold, across registers, and keeps it in quarantine', async () => {
    const order = await sell(2);
    const first = await pushReturns([returnOf(order, 1, other)], other);
    expect(first.json()).toEqual([]);
    // Register 2 gave the cash back from its own drawer.
    expect((await orderView(order.id)).refunds[0]!.allocations).toEqual([
      expect.objectContaining({ accountCode: cashDrawerAccount(other.registerNumber) }),
    ]);
    // Register 1 did not know: it returns both croissants offline; the server has only one left.
    const late = returnOf(order, 2);
    const res = await pushReturns([late]);
    expect(res.statusCode, res.body).toBe(200);
    const [rejected] = res.json<(RegisterReturn & { rejection: { reason: string } })[]>();
    expect(rejected).toMatchObject({ id: late.id });
    expect(rejected!.rejection.reason).toMatch(/refund_exceeds_remaining.*only 1 of 2/);
    expect((await orderView(order.id)).refunds).toHaveLength(1);
    const q = await server.db.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM quarantine WHERE collection = 'returns' AND doc_id = $1`, [
      late.id,
    ]);
    expect(Number(q.rows[0]!.n)).toBe(1);
  });

  it('waits (409) for a sale that has not reached the server yet, then stores the return', async () => {
    const order = await sell(1, register, false);
    const ret = returnOf(order, 1);
    const early = await pushReturns([ret]);
    expect(early.statusCode, early.body).toBe(409);
    expect(early.json()).toMatchObject({ code: 'order_not_synced' });
    await call('POST', '/api/sync/orders/push', register.registerToken, [{ newDocumentState: order }]);
    const res = await pushReturns([ret]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([]);
    expect((await orderView(order.id)).state).toBe('refunded');
  });

  it("a cashier's return above the store's limit needs a manager's approval, recorded on the refund", async () => {
    const order = await sell(30);
    const without = returnOf(order, 20, register, { staffId: cashierId });
    expect(without.amountCents).toBeGreaterThan(50_00);
    const refused = await pushReturns([without]);
    expect(refused.json<{ rejection: { reason: string } }[]>()[0]!.rejection.reason).toMatch(/approval_required/);

    const granted = await call('POST', '/api/register/approvals', register.registerToken, {
      staffId: managerId,
      pin: '8642',
      action: 'refund',
      orderId: order.id,
      amountCents: without.amountCents,
    });
    expect(granted.statusCode, granted.body).toBe(201);
    const withApproval = returnOf(order, 20, register, { staffId: cashierId, approval: granted.json<{ approval: string }>().approval });
    const res = await pushReturns([withApproval]);
    expect(res.json()).toEqual([]);
    expect((await orderView(order.id)).refunds[0]!.approvedBy).toBe(managerId);

    // A manager's own return needs no approval.
    const small = await pushReturns([returnOf(order, 10, register, { staffId: managerId })]);
    expect(small.json()).toEqual([]);
  });

  it("tells the register the store's approval limit (GET /api/register/return-rules)", async () => {
    const res = await call('GET', '/api/register/return-rules', register.registerToken);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ cashierRefundLimitCents: 50_00 });
  });

  it('a register gives back, return by return, exactly what the server refunds, and the whole sale in the end', async () => {
    const order = await sell(3);
    const made: { orderId: string; lines: { lineId: string; quantity: number }[] }[] = [];
    let given = 0;
    const lines = [{ lineId: order.lines[0]!.id, quantity: 1 }];
    for (let i = 0; i < 3; i++) {
      const amountCents = planReturn(order, priorOfReturns(order, made), lines).amountCents;
      const res = await pushReturns([{ ...returnOf(order, 1), amountCents }]);
      expect(res.json()).toEqual([]);
      const view = await orderView(order.id);
      expect(view.refunds.at(-1)!.amountCents).toBe(amountCents);
      given += amountCents;
      made.push({ orderId: order.id, lines });
    }
    expect(given).toBe(order.totalCents);
    expect((await orderView(order.id)).state).toBe('refunded');
    expect(() => planReturn(order, priorOfReturns(order, made), lines)).toThrow(/only 0 of 3/);
    expect(() => planReturn({ ...order, state: 'refunded' }, [], lines)).toThrow(/refunded/);
  });

  it("counts a cash return in the shift it was made in: the server's recomputed shifts agree with the register's, the day's Z-report shows the same refund", async () => {
    const minutes = (m: number) => new Date(Date.now() - 60 * 60_000 + m * 60_000).toISOString();
    const shiftAt = (m: number): Shift => ({
      id: newId('shift'),
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      currency: 'USD',
      openedAt: minutes(m),
      openingFloatCents: 0,
    });
    const close = (shift: Shift, m: number, sales: Order[], cashRefundsCents: number): ShiftCloseout => {
      const closedAt = minutes(m);
      // As the register counts a return's refund: in the shift it was made in (refunds and the cash given back).
      const refundsCents = cashRefundsCents;
      const expected = computeZReport(shift, sales, [], { cashRefundsCents, refundsCents }).expectedCashCents;
      return {
        id: newId('shiftCloseout'),
        shiftId: shift.id,
        registerId: shift.registerId,
        registerNumber: shift.registerNumber,
        currency: 'USD',
        closedAt,
        counted: expected > 0 ? [{ kind: 'coin', valueCents: 1, count: expected }] : [],
        countedCashCents: Math.max(0, expected),
        report: computeZReport(shift, sales, [], { count: { closedAt, countedCashCents: Math.max(0, expected) }, cashRefundsCents, refundsCents }),
      };
    };
    const pushDocs = async (collection: string, docs: unknown[]) => {
      const res = await call(
        'POST',
        `/api/sync/${collection}/push`,
        register.registerToken,
        docs.map((d) => ({ newDocumentState: d })),
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual([]);
    };
    // Shift 1 sells 2 croissants in cash and closes; shift 2 (next morning) takes one back in cash, and takes a paid in to cover it.
    const first = shiftAt(0);
    const { order } = buildSale({
      register,
      sequence: sequence++,
      catalog: server.catalog,
      lines: croissants(2),
      tenderedCents: 1000_00,
      createdAt: minutes(1),
    });
    await pushDocs('shifts', [first]);
    await pushDocs('orders', [order]);
    await pushDocs('shift-closeouts', [close(first, 2, [order], 0)]);
    const second = shiftAt(3);
    await pushDocs('shifts', [second]);
    const ret = returnOf(order, 1, register, { shiftId: second.id, createdAt: minutes(4) });
    await pushDocs('returns', [ret]);
    const secondClose = close({ ...second, openingFloatCents: 0 }, 5, [], ret.amountCents);
    expect(secondClose.report.cashSalesCents).toBe(-ret.amountCents);
    // A drawer that starts at 0 cannot give back cash: the register counts 0 and is short; the server must agree.
    await pushDocs('shift-closeouts', [secondClose]);
    for (const shift of [first, second]) {
      const view = await call('GET', `/api/pos/shifts/${shift.id}`, owner);
      expect(view.statusCode, view.body).toBe(200);
      expect(view.json<{ differences: unknown[] }>().differences, shift === first ? "the sale's shift" : "the return's shift").toEqual([]);
      // The refund counts in the shift the return was made in — as on the register — and so in the store's day.
      expect(view.json<{ report: { refundsCents: number } }>().report.refundsCents).toBe(shift === first ? 0 : ret.amountCents);
    }
    // The day's Z-report shows the refund as the shift does (it once said $3.80 in the shift and $0.00 for the day):
    // on screen (the day's totals), in the JSON download and on the CSV's refund row.
    const money = (cents: number) => `-$${(cents / 100).toFixed(2)}`;
    const day = (await call('GET', `/api/pos/shifts/${second.id}`, owner)).json<{ businessDay: string }>().businessDay;
    const status = await call('GET', `/api/pos/closeouts/${day}`, owner);
    expect(status.statusCode, status.body).toBe(200);
    const { shifts, totals } = status.json<{
      shifts: { shift: { id: string }; report: { refundsCents: number } }[];
      totals: { refundsCents: number };
    }>();
    expect(shifts.find((s) => s.shift.id === second.id)?.report.refundsCents).toBe(ret.amountCents);
    expect(totals.refundsCents).toBe(ret.amountCents);
    const json = await call('GET', `/api/pos/closeouts/${day}/report?format=json`, owner);
    expect(json.json<{ refundsCents: number }>().refundsCents).toBe(ret.amountCents);
    const shiftCsv = (await call('GET', `/api/pos/shifts/${second.id}/report?format=csv`, owner)).body;
    const dayCsv = (await call('GET', `/api/pos/closeouts/${day}/report?format=csv`, owner)).body;
    expect(shiftCsv).toContain(`Refunds (returns made in this shift),${money(ret.amountCents)}`);
    expect(dayCsv).toContain(`Refunds (returns),${money(ret.amountCents)}`);
  });

  it('refuses an invalid return naming the field', async () => {
    const order = await sell(1);
    const bad = { ...returnOf(order, 1), lines: [{ lineId: 'lin_nope', quantity: 1 }] };
    const res = await pushReturns([bad]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ rejection: { reason: string } }[]>()[0]!.rejection.reason).toMatch(/lines\.0\.lineId/);
  });
});
