/**
 * Payment rails (`/api/pos/rails`), payouts (`/api/pos/payouts`) and money movement off in the demo store
 *: through HTTP on both databases. The demo store answers 403 `money_movement_disabled` to a payout and
 * never reaches the configured (live) processor or the payout adapter; a store that is not the demo, on the same
 * server, runs its charges on the configured processor and its payout to the end (Dr bank, Cr card clearing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RAILS, RAIL_NAMES, railConfigSchema, routingDecisionSchema } from '../../core/index.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { ensureChartOfAccounts } from '../../sync-server/src/kernel/ledger.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import type { ChargeRequest, ChargeResult, PaymentProcessor } from '../../sync-server/src/modules/payments/processors.ts';
import type { PayoutAdapter, PayoutRequest } from '../../sync-server/src/modules/payments/payouts.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;
const NOW = new Date('2026-03-06T12:00:00.000Z');
const MERCHANT_B = 'mer_01JRA1LSST0RE0000000000000';
const STAFF_B = 'stf_01JRA1LSST0RE0000000000000';

/** A stand-in for a live processor: approves every charge, reports a 3.92 fee at capture, and remembers it. */
class RecordingProcessor implements PaymentProcessor {
  readonly name = 'live-stand-in';
  readonly charges: ChargeRequest[] = [];
  async charge(request: ChargeRequest): Promise<ChargeResult> {
    this.charges.push(request);
    const rail = request.rail ?? 'card_not_present';
    return {
      outcome: 'captured',
      rail,
      accountCode: `card_clearing:${rail}`,
      processorReference: `live_${this.charges.length}`,
      brand: request.method === 'bank_transfer' ? null : 'visa',
      last4: request.token.slice(-4),
      feeCents: 392,
    };
  }
}

describe.each(databaseTargets())('payment rails, payouts and money movement on $name', (target) => {
  let server: TestServer;
  let tokenB: string;
  let idp: IdentityProvider;
  let now = NOW;
  const live = new RecordingProcessor();
  const payoutCalls: PayoutRequest[] = [];
  const payouts: PayoutAdapter = {
    name: 'sandbox',
    async payout(request) {
      payoutCalls.push(request);
      return { processorReference: `po_${payoutCalls.length}` };
    },
  };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now, paymentProcessor: live, payouts });
    // Store B: not the demo (is_demo false), with its owner signed in.
    await server.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO merchants (id, name, currency) VALUES ($1, 'Store B', 'USD')`, [MERCHANT_B]);
      await tx.query(`INSERT INTO staff (id, merchant_id, name, role) VALUES ($1, $2, 'Owner B', 'owner')`, [STAFF_B, MERCHANT_B]);
      await ensureChartOfAccounts(tx, MERCHANT_B);
    });
    idp = await IdentityProvider.load(server.db, server.baseUrl);
    tokenB = await idp.issueStaffToken({ staffId: STAFF_B, merchantId: MERCHANT_B, role: 'owner' });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: unknown,
    bearer = server.credentials.staffToken,
    headers: Record<string, string> = {},
  ) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${bearer}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const fieldsOf = (res: { json(): Json }) => ((res.json().errors ?? []) as { path: string }[]).map((e) => e.path);
  const count = async (sql: string, params: unknown[] = []) => Number((await server.db.query<{ n: number }>(sql, params)).rows[0]!.n);
  const balances = async (token: string) =>
    Object.fromEntries(
      ((await call('GET', '/api/pos/ledger/trial-balance', undefined, token)).json().accounts as { code: string; balanceCents: number }[]).map(
        (a) => [a.code, a.balanceCents],
      ),
    );
  const payLink = async (token: string, amountCents: number, cardToken: string) => {
    const created = await call('POST', '/api/pos/pay-requests', { amountCents, phone: '+14155550123' }, token);
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const res = await server.app.inject({
      method: 'POST',
      url: `/pay/${id}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(cardToken.startsWith('btok_') ? { method: 'bank_transfer', token: cardToken } : { method: 'card', token: cardToken }),
    });
    return Object.assign(res, { payRequestId: id });
  };

  it('lists the eight rails with the documented defaults; staff only', async () => {
    const res = await call('GET', '/api/pos/rails');
    expect(res.statusCode, res.body).toBe(200);
    const rails = res.json().data as Json[];
    expect(rails.map((r) => r.rail)).toEqual([...RAIL_NAMES]);
    expect(rails).toEqual(DEFAULT_RAILS);
    expect(rails.find((r) => r.rail === 'ach')).toMatchObject({ fee: { basisPoints: 80, fixedCents: 0, capCents: 500 }, settlementHours: 72 });
    expect((await call('GET', '/api/pos/rails', undefined, server.credentials.appToken)).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/rails' })).statusCode).toBe(401);
  });

  it("routes a payment on the store's rails: a rail marked down is skipped, with the reason", async () => {
    const before = await call('GET', '/api/pos/rails/route?method=bank&amountCents=50000');
    expect(before.statusCode, before.body).toBe(200);
    expect(routingDecisionSchema.parse(before.json())).toMatchObject({ chosen: 'ach', feeCents: 400 });

    const down = await call('PATCH', '/api/pos/rails/ach', { status: 'down' });
    expect(down.statusCode, down.body).toBe(200);
    expect(railConfigSchema.parse(down.json())).toMatchObject({ rail: 'ach', status: 'down', fee: { basisPoints: 80 } });
    const after = (await call('GET', '/api/pos/rails/route?method=bank&amountCents=50000')).json();
    expect(after.chosen).toBe('instant_bank');
    expect(after.candidates).toContainEqual({ rail: 'ach', feeCents: 400, settlementHours: 72, available: false, reason: 'down' });
    // Offline, no bank rail at all; debit cards are cheaper than credit on the terminal.
    expect((await call('GET', '/api/pos/rails/route?method=bank&amountCents=50000&online=false')).json().chosen).toBeNull();
    const debit = (await call('GET', '/api/pos/rails/route?method=card&amountCents=10000&present=true&funding=debit')).json();
    const credit = (await call('GET', '/api/pos/rails/route?method=card&amountCents=10000&present=true&funding=credit')).json();
    expect([debit.feeCents, credit.feeCents]).toEqual([160, 270]);

    // The other store's rails are its own.
    expect((await call('GET', '/api/pos/rails', undefined, tokenB)).json().data.find((r: Json) => r.rail === 'ach').status).toBe('up');
    expect(
      await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'rail.updated' AND merchant_id = $1`, [server.credentials.merchantId]),
    ).toBe(1);
    expect((await call('PATCH', '/api/pos/rails/ach', { status: 'up' })).statusCode).toBe(200);
  });

  it('a pay-link payment goes on the rail routing chose, and keeps the decision; no rail → 409 before any charge', async () => {
    expect((await call('PATCH', '/api/pos/rails/ach', { status: 'down' })).statusCode).toBe(200);
    const paid = await payLink(server.credentials.staffToken, 50_000, 'btok_sbx_110000000_6789');
    expect(paid.statusCode, paid.body).toBe(200);
    const record = (await call('GET', `/api/pos/pay-requests/${paid.payRequestId}`)).json();
    expect(record.payment).toMatchObject({ method: 'bank_transfer', rail: 'instant_bank' });
    expect(routingDecisionSchema.parse(record.payment.routing)).toEqual({
      chosen: 'instant_bank',
      feeCents: 750,
      candidates: [
        { rail: 'ach', feeCents: 400, settlementHours: 72, available: false, reason: 'down' },
        { rail: 'instant_bank', feeCents: 750, settlementHours: 0, available: true, reason: 'chosen' },
      ],
      reason: expect.stringContaining('instant_bank'),
    });
    const [jt] = (await call('GET', `/api/pos/ledger/journal-transactions?sourceId=${paid.payRequestId}`)).json().data;
    expect(jt.postings).toContainEqual({ accountCode: 'card_clearing:instant_bank', amountCents: 50_000 });

    // Instant bank off too: no rail takes a bank payment; the link stays pending and nothing is charged.
    expect((await call('PATCH', '/api/pos/rails/instant_bank', { enabled: false })).statusCode).toBe(200);
    const refused = await payLink(server.credentials.staffToken, 50_000, 'btok_sbx_110000000_6789');
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'no_rail_available', detail: expect.stringMatching(/ach down, instant_bank disabled/) });
    expect((await call('GET', `/api/pos/pay-requests/${refused.payRequestId}`)).json().status).toBe('pending');
    // A card still goes: on card not present, its decision kept.
    const card = await payLink(server.credentials.staffToken, 1_000, 'tok_sbx_visa_4242');
    expect((await call('GET', `/api/pos/pay-requests/${card.payRequestId}`)).json().payment.routing).toMatchObject({
      chosen: 'card_not_present',
      feeCents: 59,
    });
    for (const [rail, body] of [
      ['ach', { status: 'up' }],
      ['instant_bank', { enabled: true }],
    ] as const)
      expect((await call('PATCH', `/api/pos/rails/${rail}`, body)).statusCode).toBe(200);
  });

  it('refuses bad rail settings with a problem naming the field, and changes nothing', async () => {
    const before = (await call('GET', '/api/pos/rails')).json();
    const cases: [string, unknown, string][] = [
      ['ach', { fee: { basisPoints: 10_001, fixedCents: 0, capCents: null } }, 'fee.basisPoints'],
      ['ach', { fee: { basisPoints: 80, fixedCents: -1, capCents: null } }, 'fee.fixedCents'],
      ['ach', { fee: { basisPoints: 80, fixedCents: 0 } }, 'fee.capCents'],
      ['ach', { debitFee: { basisPoints: 10, fixedCents: 0, capCents: null } }, 'debitFee'],
      ['ach', { minCents: 20_000_000 }, 'minCents'],
      ['ach', { maxCents: 0 }, 'maxCents'],
      ['ach', { status: 'sideways' }, 'status'],
      ['ach', { settlementHours: 1.5 }, 'settlementHours'],
      ['ach', { rail: 'cash' }, 'rail'],
      ['wire', { enabled: false }, 'rail'],
    ];
    for (const [rail, body, field] of cases) {
      const res = await call('PATCH', `/api/pos/rails/${rail}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect((await call('PATCH', '/api/pos/rails/ach', {})).statusCode).toBe(400);
    expect((await call('GET', '/api/pos/rails/route?method=wire&amountCents=1')).statusCode).toBe(400);
    expect(fieldsOf(await call('GET', '/api/pos/rails/route?method=card&amountCents=-1'))).toContain('amountCents');
    expect((await call('GET', '/api/pos/rails')).json()).toEqual(before);
  });

  it('the demo store says money movement is disabled and refuses a payout with 403, before anything moves', async () => {
    expect((await call('GET', '/api/pos/settings')).json().moneyMovement).toBe('disabled');
    // A sale on the demo store's sandbox rail puts money in card clearing…
    expect((await payLink(server.credentials.staffToken, 2_000, 'tok_sbx_visa_4242')).statusCode).toBe(200);
    const ledger = await balances(server.credentials.staffToken);
    expect(ledger['card_clearing:card_not_present']).toBeGreaterThan(0);
    const counts = async () => ({
      payouts: await count('SELECT count(*)::int AS n FROM payouts'),
      journal: await count('SELECT count(*)::int AS n FROM journal_transactions'),
    });
    const before = await counts();

    // … but it never leaves the store.
    for (const body of [{}, { amountCents: 1_000 }]) {
      const res = await call('POST', '/api/pos/payouts', body);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 403, code: 'money_movement_disabled' });
      expect(res.json().detail).toMatch(/money movement is disabled in the demo store/);
    }
    expect(await counts()).toEqual(before);
    expect(payoutCalls).toEqual([]);
    expect(await balances(server.credentials.staffToken)).toEqual(ledger);
    expect((await call('GET', '/api/pos/payouts')).json()).toEqual({ data: [], nextCursor: null });
  });

  it('the demo store never reaches the configured processor: its charges run on the sandbox', async () => {
    const declined = await payLink(server.credentials.staffToken, 1_500, 'tok_sbx_visa_0002');
    expect(declined.statusCode).toBe(402); // the sandbox's documented declining card: the live stand-in approves everything
    expect((await payLink(server.credentials.staffToken, 1_500, 'tok_sbx_mastercard_4444')).statusCode).toBe(200);
    expect(live.charges.filter((c) => c.amountCents === 1_500)).toEqual([]);
    expect(live.charges).toEqual([]);
  });

  it('a store that is not the demo charges on the configured processor and runs its payout to the end', async () => {
    expect((await call('GET', '/api/pos/settings', undefined, tokenB)).json().moneyMovement).toBe('enabled');
    expect((await call('POST', '/api/pos/payouts', {}, tokenB)).json()).toMatchObject({ status: 409, code: 'nothing_to_pay_out' });

    const card = await payLink(tokenB, 12_500, 'tok_sbx_visa_0002');
    expect(card.statusCode).toBe(200); // the live stand-in approves it
    expect(live.charges).toHaveLength(1);
    expect(live.charges[0]).toMatchObject({ rail: 'card_not_present', amountCents: 12_500 });
    // The fee the processor reported posts to the ledger: processing fees against card clearing.
    expect(await balances(tokenB)).toMatchObject({ 'card_clearing:card_not_present': 12_108, processing_fees: 392 });

    // The card payment is pending until its rail settles (cards: 2 days, the sandbox's schedule): no payout of it yet.
    const [pendingCard] = (await call('GET', `/api/pos/settlements?sourceId=${card.payRequestId}`, undefined, tokenB)).json().data as Json[];
    expect(pendingCard).toMatchObject({
      sourceType: 'pay_request',
      rail: 'card_not_present',
      amountCents: 12_500,
      status: 'pending',
      settlesAt: new Date(NOW.getTime() + 48 * 3_600_000).toISOString(),
    });
    expect((await call('POST', '/api/pos/payouts', {}, tokenB)).json()).toMatchObject({ status: 409, code: 'nothing_to_pay_out' });
    const tokenAtNow = tokenB;
    now = new Date(NOW.getTime() + 48 * 3_600_000);
    tokenB = await idp.issueStaffToken({ staffId: STAFF_B, merchantId: MERCHANT_B, role: 'owner' }, { now });
    const tick = () =>
      (
        server.app as unknown as { recurringInvoices: { runOnce(): Promise<{ settlements: { settled: number; returned: number } }> } }
      ).recurringInvoices.runOnce();
    expect((await tick()).settlements.settled).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `/api/pos/settlements?sourceId=${card.payRequestId}`, undefined, tokenB)).json().data[0]).toMatchObject({
      status: 'settled',
      settledAt: now.toISOString(),
    });

    const tooMuch = await call('POST', '/api/pos/payouts', { amountCents: 12_109 }, tokenB);
    expect(tooMuch.json()).toMatchObject({ status: 409, code: 'insufficient_balance' });
    expect(fieldsOf(tooMuch)).toEqual(['amountCents']);
    for (const [body, field] of [
      [{ amountCents: 0 }, 'amountCents'],
      [{ amountCents: 1.5 }, 'amountCents'],
      [{ amount: 5 }, 'amount'],
    ] as [unknown, string][]) {
      const res = await call('POST', '/api/pos/payouts', body, tokenB);
      expect(res.statusCode).toBe(400);
      expect(fieldsOf(res)).toContain(field);
    }

    const partial = await call('POST', '/api/pos/payouts', { amountCents: 2_500 }, tokenB, { 'idempotency-key': 'payout-1' });
    expect(partial.statusCode, partial.body).toBe(201);
    expect(partial.json()).toMatchObject({
      amountCents: 2_500,
      currency: 'USD',
      status: 'paid',
      processor: 'sandbox',
      createdBy: `staff:${STAFF_B}`,
      createdAt: now.toISOString(),
    });
    const replay = await call('POST', '/api/pos/payouts', { amountCents: 2_500 }, tokenB, { 'idempotency-key': 'payout-1' });
    expect(replay.json()).toEqual(partial.json());
    const rest = await call('POST', '/api/pos/payouts', {}, tokenB);
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.json().amountCents).toBe(9_608);
    expect(payoutCalls.map((p) => [p.merchantId, p.amountCents])).toEqual([
      [MERCHANT_B, 2_500],
      [MERCHANT_B, 9_608],
    ]);

    const after = await balances(tokenB);
    expect(after.bank).toBe(12_108);
    expect(after['card_clearing:card_not_present']).toBe(0);
    const journal = (await call('GET', `/api/pos/ledger/journal-transactions?sourceId=${rest.json().id}`, undefined, tokenB)).json().data;
    expect(journal).toMatchObject([
      {
        id: rest.json().journalTransactionId,
        kind: 'payout',
        sourceType: 'payout',
        postings: [
          { accountCode: 'bank', amountCents: 9_608 },
          { accountCode: 'card_clearing:card_not_present', amountCents: -9_608 },
        ],
      },
    ]);
    const list = (await call('GET', '/api/pos/payouts?limit=1', undefined, tokenB)).json();
    expect(list.data.map((p: Json) => p.id)).toEqual([rest.json().id]);
    expect((await call('GET', `/api/pos/payouts?limit=1&cursor=${encodeURIComponent(list.nextCursor)}`, undefined, tokenB)).json()).toEqual({
      data: [partial.json()],
      nextCursor: null,
    });
    expect((await call('POST', '/api/pos/payouts', {}, tokenB)).json().code).toBe('nothing_to_pay_out');
    expect(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'payout.paid' AND merchant_id = $1`, [MERCHANT_B])).toBe(2);
    expect((await verifyAuditChain(server.db, MERCHANT_B)).ok).toBe(true);
    now = NOW;
    tokenB = tokenAtNow;
  });
  it('bank payments are pending until their rail settles: the tick settles them, or posts the reversal of a returned one', async () => {
    const tick = () =>
      (
        server.app as unknown as { recurringInvoices: { runOnce(): Promise<{ settlements: { settled: number; returned: number } }> } }
      ).recurringInvoices.runOnce();
    const settlementsOf = async (sourceId: string, token: string) =>
      (await call('GET', `/api/pos/settlements?sourceId=${sourceId}`, undefined, token)).json().data as Json[];

    // Store B: an ACH payment is captured but not settled: no payout of it yet.
    const b = await payLink(tokenB, 20_000, 'btok_sbx_110000000_6789');
    expect(b.statusCode, b.body).toBe(200);
    expect(live.charges.at(-1)).toMatchObject({ method: 'bank_transfer', rail: 'ach' });
    const [pendingB] = await settlementsOf(b.payRequestId, tokenB);
    expect(pendingB).toMatchObject({
      rail: 'ach',
      amountCents: 20_000,
      status: 'pending',
      settlesAt: new Date(NOW.getTime() + 72 * 3_600_000).toISOString(),
      settledAt: null,
    });
    expect((await call('POST', '/api/pos/payouts', {}, tokenB)).json().code).toBe('nothing_to_pay_out');

    // The demo store: a payment from the sandbox's returning account (…3338).
    const demo = await payLink(server.credentials.staffToken, 30_000, 'btok_sbx_110000000_3338');
    expect(demo.statusCode, demo.body).toBe(200);
    const clearingBefore = (await balances(server.credentials.staffToken))['card_clearing:ach'] ?? 0;

    expect((await tick()).settlements).toEqual({ settled: 0, returned: 0 }); // not due yet
    now = new Date(NOW.getTime() + 72 * 3_600_000);
    const staff = await server.issueStaffToken({ now });
    tokenB = await idp.issueStaffToken({ staffId: STAFF_B, merchantId: MERCHANT_B, role: 'owner' }, { now });
    expect((await tick()).settlements).toEqual({ settled: 1, returned: 1 });
    expect((await tick()).settlements).toEqual({ settled: 0, returned: 0 });

    expect((await settlementsOf(b.payRequestId, tokenB))[0]).toMatchObject({ status: 'settled', settledAt: now.toISOString(), returnCode: null });
    const payout = await call('POST', '/api/pos/payouts', {}, tokenB);
    expect(payout.statusCode, payout.body).toBe(201);
    expect(payout.json().amountCents).toBe(20_000 - 392); // the settled payment less the fee the processor reported

    const [returned] = await settlementsOf(demo.payRequestId, staff);
    expect(returned).toMatchObject({ status: 'returned', returnCode: 'R01', settledAt: now.toISOString() });
    const all = (await call('GET', `/api/pos/ledger/journal-transactions?sourceId=${demo.payRequestId}`, undefined, staff)).json().data as Json[];
    // The routed rail's fee posts when the processor reports none; it is its own transaction, not reversed.
    expect(all.filter((j) => j.kind === 'fee').map((j) => j.postings)).toEqual([
      [
        { accountCode: 'processing_fees', amountCents: 240 },
        { accountCode: 'card_clearing:ach', amountCents: -240 },
      ],
    ]);
    const journal = all.filter((j) => j.kind !== 'fee');
    expect(journal).toHaveLength(2);
    const [sale, reversal] = journal;
    expect(reversal).toMatchObject({ id: returned!.reversalJournalTransactionId, kind: 'adjustment' });
    expect(reversal!.postings).toEqual(sale!.postings.map((p: Json) => ({ accountCode: p.accountCode, amountCents: -p.amountCents })));
    expect((await balances(staff))['card_clearing:ach']).toBe(clearingBefore - 30_000);
    expect((await call('GET', '/api/pos/settlements?status=returned', undefined, staff)).json().data.map((x: Json) => x.id)).toEqual([returned!.id]);
    expect((await verifyAuditChain(server.db, server.credentials.merchantId)).ok).toBe(true);

    // The settlements report of the day.
    const report = async (token: string) => (await call('GET', '/api/pos/reports/settlements?from=2026-03-06', undefined, token)).json();
    // (Card payments settle on their rail's schedule too, so each store's card rail has its row beside ACH's.)
    expect((await report(staff)).rows.find((r: Json) => r.rail === 'ach')).toEqual({
      rail: 'ach',
      pendingCount: 0,
      pendingCents: 0,
      settledCount: 0,
      settledCents: 0,
      returnedCount: 1,
      returnedCents: 30_000,
    });
    expect((await report(tokenB)).rows).toEqual([
      { rail: 'ach', pendingCount: 0, pendingCents: 0, settledCount: 1, settledCents: 20_000, returnedCount: 0, returnedCents: 0 },
      { rail: 'card_not_present', pendingCount: 0, pendingCents: 0, settledCount: 1, settledCents: 12_500, returnedCount: 0, returnedCents: 0 },
    ]);
    expect((await call('GET', '/api/pos/reports/settlements?from=2026-03-06&format=csv', undefined, staff)).statusCode).toBe(400);
  });
});
