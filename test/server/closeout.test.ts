import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeZReport, newId, type CashMovement, type Order, type Shift, type ShiftCloseout } from '../../core/index.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import { databaseTargets } from '../support/databases.ts';
import { cutoffAwayFromNow } from '../support/business-day.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Shifts and the daily closeout over HTTP and the sync push (core/shifts.ts, workflows/shift-closeout.ts):
 * paid in/out and over/short post to the ledger with their records; the server recomputes a shift's figures from
 * the sales it holds and flags what differs from the register's; the store closeout waits for (or records) missing
 * registers, signs a checkpoint and locks the day.
 */
type Doc = Record<string, unknown> & { id: string; rejection?: { reason: string; at: string } };

describe.each(databaseTargets())('shifts and closeout on $name', (target) => {
  let server: TestServer;
  let a: EnrolledRegister;
  let b: EnrolledRegister;
  let sequence = 0;
  const start = Date.now() - 40 * 60_000;
  const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString();

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null });
    // The shifts below, 40 to 27 min ago, must share one business day at any time of the run.
    await cutoffAwayFromNow(server.db, server.credentials.merchantId);
    a = await enrollRegister(server, server.credentials.staffToken, { name: 'Front' });
    b = await enrollRegister(server, server.credentials.staffToken, { name: 'Patio' });
  });
  afterAll(async () => {
    await server?.close();
  });

  const staff = () => ({ authorization: `Bearer ${server.credentials.staffToken}` });
  const push = async (collection: string, docs: unknown[], token = a.registerToken) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/sync/${collection}/push`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(docs.map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
    });
    expect(res.statusCode).toBe(200);
    return res.json<Doc[]>();
  };
  const get = async <T>(url: string) => {
    const res = await server.app.inject({ method: 'GET', url, headers: staff() });
    return { status: res.statusCode, body: res.json<T>(), raw: res };
  };
  const balance = async (code: string) => {
    const tb = (await get<{ accounts: { code: string; balanceCents: number }[] }>('/api/pos/ledger/trial-balance')).body;
    return tb.accounts.find((x) => x.code === code)?.balanceCents ?? 0;
  };
  const sale = (minutes: number, method: 'cash' | 'card' = 'cash'): Order =>
    buildSale({ register: a, sequence: ++sequence, catalog: server.catalog, createdAt: at(minutes), method }).order;
  const openShift = (minutes: number, floatCents: number): Shift => ({
    id: newId('shift'),
    registerId: a.registerId,
    registerNumber: a.registerNumber,
    currency: 'USD',
    openedAt: at(minutes),
    openingFloatCents: floatCents,
    openingCount: [{ kind: 'note', valueCents: 2_000, count: floatCents / 2_000 }],
  });
  const movement = (shift: Shift, minutes: number, kind: CashMovement['kind'], amountCents: number, reason?: string): CashMovement => ({
    id: newId('cashMovement'),
    shiftId: shift.id,
    registerId: shift.registerId,
    registerNumber: shift.registerNumber,
    kind,
    amountCents,
    ...(reason ? { reason } : {}),
    createdAt: at(minutes),
  });
  /** The closeout as the register makes it: its own Z-report over the sales it stores, and a count `deltaCents` off. */
  const closeShift = (shift: Shift, minutes: number, sales: Order[], movements: CashMovement[], deltaCents: number): ShiftCloseout => {
    const expected = computeZReport(shift, sales, movements).expectedCashCents;
    const counted = expected + deltaCents;
    const twenties = Math.floor(counted / 2_000);
    const rest = counted - twenties * 2_000;
    const counts = [
      { kind: 'note' as const, valueCents: 2_000, count: twenties },
      { kind: 'coin' as const, valueCents: 1, count: rest },
    ];
    const closedAt = at(minutes);
    return {
      id: newId('shiftCloseout'),
      shiftId: shift.id,
      registerId: shift.registerId,
      registerNumber: shift.registerNumber,
      currency: 'USD',
      closedAt,
      counted: counts,
      countedCashCents: counted,
      report: computeZReport(shift, sales, movements, { count: { closedAt, countedCashCents: counted } }),
    };
  };

  let firstShift: Shift;

  it('records a shift with sales, paid in/out and a no-sale; the short posts to cash over/short with the closeout; figures agree', async () => {
    const drawerBefore = await balance(`cash_drawer:R${a.registerNumber}`);
    const shift = (firstShift = openShift(0, 10_000));
    const sales = [sale(1), sale(2, 'card'), sale(3)];
    const moves = [
      movement(shift, 4, 'paid_in', 5_000, 'change from the safe'),
      movement(shift, 5, 'paid_out', 1_250, 'window cleaner'),
      movement(shift, 6, 'no_sale', 0),
    ];
    expect(await push('shifts', [shift])).toEqual([]);
    expect(await push('orders', sales)).toEqual([]);
    expect(await push('cash-movements', moves)).toEqual([]);
    const closeout = closeShift(shift, 7, sales, moves, -150);
    expect(closeout.report.overShortCents).toBe(-150);
    expect(await push('shift-closeouts', [closeout])).toEqual([]);
    // Pushing it again stores nothing new.
    expect(await push('shift-closeouts', [closeout])).toEqual([]);

    const view = await get<{ status: string; report: Record<string, unknown>; differences: unknown[] }>(`/api/pos/shifts/${shift.id}`);
    expect(view.status).toBe(200);
    expect(view.body.status).toBe('closed');
    expect(view.body.differences).toEqual([]);
    const cashSales = sales.filter((o) => o.tenders[0]!.method === 'cash').reduce((s, o) => s + o.totalCents, 0);
    expect(view.body.report).toMatchObject({
      kind: 'z',
      salesCount: 3,
      openingFloatCents: 10_000,
      paidInCents: 5_000,
      paidOutCents: 1_250,
      noSaleCount: 1,
      cashSalesCents: cashSales,
      expectedCashCents: 10_000 + cashSales + 5_000 - 1_250,
      countedCashCents: 10_000 + cashSales + 5_000 - 1_250 - 150,
      overShortCents: -150,
      firstReceiptNumber: sales[0]!.receiptNumber,
      lastReceiptNumber: sales[2]!.receiptNumber,
    });
    expect((view.body.report.cardByBrand as Record<string, { count: number }>).visa?.count).toBe(1);
    // The ledger: the drawer moved by the cash sales, paid in, paid out and the short; the short is an expense.
    expect(await balance('cash_over_short')).toBe(150);
    expect((await balance(`cash_drawer:R${a.registerNumber}`)) - drawerBefore).toBe(cashSales + 5_000 - 1_250 - 150);

    const csv = await server.app.inject({ method: 'GET', url: `/api/pos/shifts/${shift.id}/report?format=csv`, headers: staff() });
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body).toMatch(/Over\/short,-\$1\.50/);
    const pdf = await server.app.inject({ method: 'GET', url: `/api/pos/shifts/${shift.id}/report?format=pdf`, headers: staff() });
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('quarantines a paid out without a reason and a count in notes the currency does not have', async () => {
    const bad = { ...movement(firstShift, 6, 'paid_out', 100), reason: undefined };
    const [rejected] = await push('cash-movements', [bad]);
    expect(rejected!.rejection!.reason).toMatch(/reason/);
    const shift = openShift(8, 2_000);
    const closeout = closeShift(shift, 9, [], [], 0);
    const [euro] = await push('shift-closeouts', [{ ...closeout, counted: [{ kind: 'note', valueCents: 20_000, count: 0 }, ...closeout.counted] }]);
    expect(euro!.rejection!.reason).toContain('note 20000 is not a USD denomination');
    const count = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM shift_closeouts WHERE id = $1', [closeout.id]);
    expect(count.rows[0]!.n).toBe(0);
  });

  it('a shift and closeout made offline and pushed before all their sales: the server flags the difference until the sales arrive', async () => {
    const shift = openShift(10, 4_000);
    const sales = [sale(11), sale(12)];
    const closeout = closeShift(shift, 13, sales, [], 0);
    expect(await push('shifts', [shift])).toEqual([]);
    expect(await push('orders', [sales[0]])).toEqual([]);
    expect(await push('shift-closeouts', [closeout])).toEqual([]);
    const partial = (await get<{ differences: { field: string; register: unknown; server: unknown }[] }>(`/api/pos/shifts/${shift.id}`)).body;
    expect(partial.differences.map((d) => d.field)).toEqual(
      expect.arrayContaining(['salesCount', 'expectedCashCents', 'overShortCents', 'lastReceiptNumber']),
    );
    expect(partial.differences.find((d) => d.field === 'salesCount')).toEqual({ field: 'salesCount', register: 2, server: 1 });
    expect(await push('orders', [sales[1]])).toEqual([]);
    const full = (await get<{ differences: unknown[]; report: { salesCount: number } }>(`/api/pos/shifts/${shift.id}`)).body;
    expect(full.differences).toEqual([]);
    expect(full.report.salesCount).toBe(2);
  });

  it('the store closeout waits for a register offline all day, names it, closes with it recorded as missing, then the day is locked', async () => {
    const { businessDay } = (await get<{ businessDay: string }>(`/api/pos/shifts/${firstShift.id}`)).body;
    const status = (
      await get<{ missing: { registerId: string; reason: string }[]; shifts: unknown[]; closed: boolean }>(`/api/pos/closeouts/${businessDay}`)
    ).body;
    expect(status.closed).toBe(false);
    expect(status.shifts).toHaveLength(2);
    expect(status.missing.map((m) => m.registerId)).toContain(b.registerId);
    expect(status.missing.map((m) => m.registerId)).not.toContain(a.registerId);

    const close = (body: unknown) =>
      server.app.inject({
        method: 'POST',
        url: '/api/pos/closeouts',
        headers: { ...staff(), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const waits = await close({ businessDay });
    expect(waits.statusCode).toBe(409);
    expect(waits.json()).toMatchObject({ code: 'registers_missing' });
    expect(waits.json<{ detail: string }>().detail).toContain(`R${b.registerNumber}`);
    expect(waits.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toContain(`registers.${b.registerId}`);

    const closed = await close({ businessDay, closeWithMissing: true });
    expect(closed.statusCode).toBe(201);
    const body = closed.json<{
      closed: boolean;
      missing: { registerId: string }[];
      totals: { salesCount: number };
      checkpoint: { seq: number } | null;
    }>();
    expect(body.closed).toBe(true);
    expect(body.missing.map((m) => m.registerId)).toContain(b.registerId);
    expect(body.totals.salesCount).toBe(5);
    expect(body.checkpoint?.seq).toBeGreaterThan(0);
    const checkpoints = await server.db.query<{ reason: string }>(
      "SELECT reason FROM audit_checkpoints WHERE merchant_id = $1 AND reason = 'closeout'",
      [server.credentials.merchantId],
    );
    expect(checkpoints.rows.length).toBe(1);

    // Locked: closing again is a 409 naming the day; a record pushed into it is quarantined naming the day.
    const again = await close({ businessDay, closeWithMissing: true });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'day_closed' });
    expect(again.json<{ detail: string }>().detail).toContain(businessDay);
    const [late] = await push('cash-movements', [movement(firstShift, 6, 'no_sale', 0)]);
    expect(late!.rejection!.reason).toContain(`business day ${businessDay} is closed`);

    // The offline register's shift of that day, synced after the close, falls into the next business day.
    const offline: Shift = { ...openShift(1, 2_000), registerId: b.registerId, registerNumber: b.registerNumber };
    expect(await push('shifts', [offline], b.registerToken)).toEqual([]);
    const moved = (await get<{ businessDay: string }>(`/api/pos/shifts/${offline.id}`)).body;
    expect(moved.businessDay > businessDay).toBe(true);

    const list = (await get<{ days: { businessDay: string; missingCount: number }[] }>('/api/pos/closeouts')).body;
    expect(list.days[0]).toMatchObject({ businessDay });
    const report = await server.app.inject({ method: 'GET', url: `/api/pos/closeouts/${businessDay}/report?format=csv`, headers: staff() });
    expect(report.body).toMatch(/Number of sales,5/);
  });

  it('a sale rung up with no shift open counts in the shift that follows; the expected cash is the drawer ledger; a register report that leaves it out is flagged', async () => {
    // Two days back, on a day no other case uses: a first shift P (nothing sold), then the register sells with no
    // shift open — cash, then card — each time opening the next shift.
    const day = (minutes: number) => -2 * 24 * 60 + minutes;
    const drawer = `cash_drawer:R${a.registerNumber}`;
    const drawerBefore = await balance(drawer);
    const p = openShift(day(0), 2_000);
    expect(await push('shifts', [p])).toEqual([]);
    expect(await push('shift-closeouts', [closeShift(p, day(2), [], [], 0)])).toEqual([]);

    // S: its first sale (cash) was stamped before the shift opened, as the register did before this was fixed, and the
    // register's Z-report left it out: the cash in the drawer shows as over.
    const s1 = sale(day(5));
    const s = openShift(day(6), 0);
    const s2 = sale(day(7), 'card');
    const sMoves = [movement(s, day(7), 'paid_out', 300, 'stamps')];
    expect(await push('shifts', [s])).toEqual([]);
    expect(await push('orders', [s1, s2])).toEqual([]);
    expect(await push('cash-movements', sMoves)).toEqual([]);
    const sClose = closeShift(s, day(8), [s1, s2], sMoves, s1.totalCents); // the register's report counts s2 only
    expect(sClose.report).toMatchObject({ salesCount: 1, expectedCashCents: -300, overShortCents: s1.totalCents });
    expect(await push('shift-closeouts', [sClose])).toEqual([]);
    const sView = (
      await get<{ report: Record<string, unknown>; differences: { field: string; register: unknown; server: unknown }[] }>(`/api/pos/shifts/${s.id}`)
    ).body;
    expect(sView.report).toMatchObject({
      salesCount: 2,
      cashSalesCents: s1.totalCents,
      paidOutCents: 300,
      expectedCashCents: s1.totalCents - 300,
      overShortCents: 0,
      firstReceiptNumber: s1.receiptNumber,
    });
    expect(sView.differences).toEqual(
      expect.arrayContaining([
        { field: 'salesCount', register: 1, server: 2 },
        { field: 'expectedCashCents', register: -300, server: s1.totalCents - 300 },
        { field: 'overShortCents', register: s1.totalCents, server: 0 },
      ]),
    );

    // T: its first sale (card) opened it at the sale's own time, as the register does now: the register and the server
    // count the same, and the drawer account moved by exactly what the server expects.
    const t1 = sale(day(10), 'card');
    const t = openShift(day(10), 2_000);
    const t2 = sale(day(11));
    expect(await push('shifts', [t])).toEqual([]);
    expect(await push('orders', [t1, t2])).toEqual([]);
    const tClose = closeShift(t, day(12), [t1, t2], [], 0);
    expect(tClose.report).toMatchObject({ salesCount: 2, cashSalesCents: t2.totalCents, expectedCashCents: 2_000 + t2.totalCents });
    expect(await push('shift-closeouts', [tClose])).toEqual([]);
    const tView = (await get<{ report: Record<string, unknown>; differences: unknown[] }>(`/api/pos/shifts/${t.id}`)).body;
    expect(tView.differences).toEqual([]);
    expect(tView.report).toMatchObject({ salesCount: 2, expectedCashCents: 2_000 + t2.totalCents, overShortCents: 0 });

    // The ledger: the drawer got both cash sales, the paid out, and the over the register wrongly posted for S.
    const ledger = (await balance(drawer)) - drawerBefore;
    expect(ledger).toBe(s1.totalCents - 300 + t2.totalCents + s1.totalCents);
    // What the server expects (less the floats, which are not posted) is the drawer's postings but the over/short.
    expect((sView.report.expectedCashCents as number) - 0 + ((tView.report.expectedCashCents as number) - 2_000)).toBe(ledger - s1.totalCents);
  });

  it('a push whose later document is rolled back keeps the audit record of the earlier ones: the audit trail still verifies', async () => {
    // Three days back. A closeout with a short posts jtx_<X>; a cash movement cmv_<X> of another shift would post the
    // same journal transaction id with other content, so the database refuses it inside its savepoint — after a paid in
    // of the same push was stored, whose journal transaction waits for the push's closing audit record.
    const day = (minutes: number) => -3 * 24 * 60 + minutes;
    const p = openShift(day(0), 2_000);
    const pClose = closeShift(p, day(2), [], [], -100);
    expect(await push('shifts', [p])).toEqual([]);
    expect(await push('shift-closeouts', [pClose])).toEqual([]);
    const q = openShift(day(3), 2_000);
    expect(await push('shifts', [q])).toEqual([]);
    const paidIn = movement(q, day(4), 'paid_in', 500, 'change from the safe');
    const clash = { ...movement(q, day(5), 'paid_out', 200, 'parking'), id: pClose.id.replace(/^clo_/, 'cmv_') };
    const outcomes = await push('cash-movements', [paidIn, clash]);
    expect(outcomes.map((o) => o.id)).toEqual([clash.id]);
    expect(outcomes[0]!.rejection!.reason).toContain('could not be stored');
    expect((await get<{ movements: { id: string }[] }>(`/api/pos/shifts/${q.id}`)).body.movements.map((mv) => mv.id)).toEqual([paidIn.id]);
    const verify = await get<{ ok: boolean; problems?: unknown[] }>('/api/pos/audit/verify');
    expect(verify.body).toMatchObject({ ok: true });
  });

  it('a cashier cannot close the day (403 role_not_allowed)', async () => {
    const idp = await IdentityProvider.load(server.db, server.baseUrl);
    const cashier = await idp.issueStaffToken({ staffId: 'stf_cashier', merchantId: server.credentials.merchantId, role: 'cashier' });
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/pos/closeouts',
      headers: { authorization: `Bearer ${cashier}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ businessDay: '2026-01-05' }),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'role_not_allowed' });
    expect(await server.db.query("SELECT 1 FROM store_closeouts WHERE business_day = '2026-01-05'").then((r) => r.rows.length)).toBe(0);
  });

  it('a day that is not a calendar date is a 400 naming businessDay', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/pos/closeouts',
      headers: { ...staff(), 'content-type': 'application/json' },
      payload: JSON.stringify({ businessDay: '2026-02-30' }),
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('businessDay');
  });
});
