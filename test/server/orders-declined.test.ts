import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderSchema, orderViewSchema, type OrderView } from '../../core/index.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister } from '../support/enroll.ts';

/**
 * Declined card attempts on API orders (payment `pending → declined`): `POST /api/pos/orders/{id}/payments`
 * with a sandbox decline token answers 402 naming the attempt (`paymentId`) and commits it as a payment in state
 * `declined` — no journal transaction, no money toward the order, audit `payment.declined` — while the order stays
 * open. Everything is asserted through HTTP, with the database only counting rows.
 */

const NOW = new Date('2026-03-01T12:00:00.000Z');
const DAY = '2026-03-01';

/** Latte + 2 croissants + haircut: taxed products and an untaxed service. */
const CART = [
  { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large'], quantity: 1 },
  { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 },
  { catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', quantity: 1 },
];

interface TrialBalance {
  totalCents: number;
  accounts: { code: string; balanceCents: number }[];
}

interface TenderRow {
  key: string;
  count: number;
  amountCents: number;
  tipCents: number;
  refundCents: number;
  netCents: number;
}

describe.each(databaseTargets())('declined card payments on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => NOW });
  });
  afterAll(async () => {
    await server?.close();
  });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    server.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(payload),
    });
  const get = (url: string, token = server.credentials.staffToken) =>
    server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  const create = async (): Promise<OrderView> => {
    const res = await post('/api/pos/orders', { lineItems: CART });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const pay = (orderId: string, tenders: unknown[], headers: Record<string, string> = {}) =>
    post(`/api/pos/orders/${orderId}/payments`, { tenders }, headers);
  const view = async (orderId: string): Promise<OrderView> => {
    const res = await get(`/api/pos/orders/${orderId}`);
    expect(res.statusCode, res.body).toBe(200);
    // The declined attempt is a valid payment of the published schema.
    return orderViewSchema.parse(res.json());
  };
  const trialBalance = async (): Promise<TrialBalance> => (await get('/api/pos/ledger/trial-balance')).json();
  const count = async (table: string, where = 'true', params: unknown[] = []) =>
    Number((await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params)).rows[0]!.n);
  const counts = async () => ({
    payments: await count('order_payments'),
    declined: await count('order_payments', `state = 'declined'`),
    journal: await count('journal_transactions'),
    postings: await count('postings'),
    refunds: await count('order_refunds'),
    audit: await count('audit_log'),
    declinedAudit: await count('audit_log', `action = 'payment.declined'`),
    events: await count('event_outbox'),
  });
  const expectDeclined = (res: LightMyRequestResponse, code: string, path: string): string => {
    expect(res.statusCode, res.body).toBe(402);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({
      status: 402,
      code,
      paymentId: expect.stringMatching(/^pmt_[0-9A-HJKMNP-TV-Z]{26}$/),
      errors: [{ path, message: `declined: ${code}` }],
    });
    expect(body.detail).toContain(body.paymentId);
    return body.paymentId as string;
  };
  const expectLedgerSound = async () => {
    expect((await trialBalance()).totalCents).toBe(0);
    const unbalanced = await server.db.query(
      `SELECT jt.id FROM journal_transactions jt JOIN postings p ON p.journal_transaction_id = jt.id GROUP BY jt.id HAVING SUM(p.amount_cents) <> 0 OR COUNT(*) < 2`,
    );
    expect(unbalanced.rows).toEqual([]);
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
  };
  const tenderReport = async (): Promise<Map<string, TenderRow>> => {
    const res = await get(`/api/pos/reports/sales?from=${DAY}&groupBy=tender`);
    expect(res.statusCode, res.body).toBe(200);
    return new Map((res.json().rows as TenderRow[]).map((r) => [r.key, r]));
  };
  const zeroRow = { count: 0, amountCents: 0, tipCents: 0, refundCents: 0, netCents: 0 };
  const delta = (after: Map<string, TenderRow>, before: Map<string, TenderRow>, key: string) => {
    const a = after.get(key) ?? { key, ...zeroRow };
    const b = before.get(key) ?? { key, ...zeroRow };
    return {
      count: a.count - b.count,
      amountCents: a.amountCents - b.amountCents,
      tipCents: a.tipCents - b.tipCents,
      refundCents: a.refundCents - b.refundCents,
    };
  };

  it('stores a declined card as a declined payment: visible on the order, audited, no money and no journal transaction', async () => {
    const order = await create();
    const before = await counts();
    const tbBefore = await trialBalance();

    const res = await pay(order.id, [{ method: 'card', amountCents: 1000, tipCents: 150, cardToken: 'tok_declined' }]);
    const paymentId = expectDeclined(res, 'card_declined', 'tenders.0.cardToken');

    // One declined row and its audit row; no journal transaction, no posting, no webhook event.
    expect(await counts()).toEqual({
      ...before,
      payments: before.payments + 1,
      declined: before.declined + 1,
      audit: before.audit + 1,
      declinedAudit: before.declinedAudit + 1,
    });
    expect(await trialBalance()).toEqual(tbBefore);
    expect(
      await count('postings p JOIN journal_transactions j ON j.id = p.journal_transaction_id', `j.source_id = $1 OR j.id LIKE '%' || $2 || '%'`, [
        order.id,
        paymentId.slice(4),
      ]),
    ).toBe(0);

    const seen = await view(order.id);
    expect(seen).toMatchObject({ state: 'open', paidCents: 0, tipCents: 0, tenders: [], balanceDueCents: order.totalCents, refundedCents: 0 });
    expect(seen.payments).toEqual([
      {
        id: paymentId,
        orderId: order.id,
        state: 'declined',
        method: 'card',
        rail: 'card_not_present',
        amountCents: 1000,
        tipCents: 150,
        tenderedCents: null,
        changeCents: null,
        refundedCents: 0,
        cardBrand: null,
        last4: null,
        authCode: null,
        reference: 'tok_declined',
        accountCode: 'card_clearing:card_not_present',
        journalTransactionId: null,
        createdAt: NOW.toISOString(),
        capturedAt: null,
        declineCode: 'card_declined',
        // The routing decision is kept on a declined payment like a captured one's (candidates, fees, reason).
        routing: expect.objectContaining({
          chosen: 'card_not_present',
          candidates: [expect.objectContaining({ rail: 'card_not_present', available: true, reason: 'chosen' })],
        }),
        feeCents: 0,
      },
    ]);
    // Still listed as an open order.
    const open = (await get('/api/pos/orders?status=open&source=api&limit=200')).json() as { data: OrderView[] };
    expect(open.data.map((o) => o.id)).toContain(order.id);

    const audit = await server.db.query<{ entity_id: string; data: Record<string, unknown> }>(
      `SELECT entity_id, data FROM audit_log WHERE action = 'payment.declined' AND entity_type = 'payment' AND entity_id = $1`,
      [paymentId],
    );
    expect(audit.rows).toEqual([
      {
        entity_id: paymentId,
        data: expect.objectContaining({
          orderId: order.id,
          method: 'card',
          rail: 'card_not_present',
          amountCents: 1000,
          declineCode: 'card_declined',
          state: 'declined',
        }),
      },
    ]);

    // A receipt lists what was taken: not the declined attempt.
    const receipt = await get(`/api/pos/orders/${order.id}/receipt`);
    expect(receipt.statusCode, receipt.body).toBe(200);
    expect(receipt.json()).toMatchObject({ paidCents: 0, tenders: [], balanceDueCents: order.totalCents });
    expect(receipt.json().text).not.toContain('card');
    await expectLedgerSound();
  });

  it('takes none of the tenders of a request with a declined card; the later approved payment pays the order', async () => {
    const order = await create();
    const before = await counts();
    const tbBefore = await trialBalance();
    const reportBefore = await tenderReport();

    const res = await pay(order.id, [
      { method: 'cash', amountCents: 500, tenderedCents: 1000 },
      { method: 'check', amountCents: 300, checkNumber: '1001' },
      { method: 'card', amountCents: order.totalCents - 800, cardToken: 'tok_insufficient_funds' },
    ]);
    const declinedId = expectDeclined(res, 'insufficient_funds', 'tenders.2.cardToken');
    // The cash and the check are not taken: only the declined attempt is stored.
    expect(await counts()).toEqual({
      ...before,
      payments: before.payments + 1,
      declined: before.declined + 1,
      audit: before.audit + 1,
      declinedAudit: before.declinedAudit + 1,
    });
    expect(await trialBalance()).toEqual(tbBefore);
    const afterDecline = await view(order.id);
    expect(afterDecline).toMatchObject({ state: 'open', paidCents: 0, balanceDueCents: order.totalCents });
    expect(afterDecline.payments!.map((p) => [p.id, p.state, p.amountCents, p.declineCode])).toEqual([
      [declinedId, 'declined', order.totalCents - 800, 'insufficient_funds'],
    ]);

    // Part in cash, then the rest on an approved card, tip on top.
    const cash = await pay(order.id, [{ method: 'cash', amountCents: 500 }]);
    expect(cash.statusCode, cash.body).toBe(201);
    expect(cash.json()).toMatchObject({ state: 'open', paidCents: 500, balanceDueCents: order.totalCents - 500 });
    const rest = order.totalCents - 500;
    const paid = await pay(order.id, [{ method: 'card', amountCents: rest + 200, tipCents: 200, cardToken: 'tok_visa' }]);
    expect(paid.statusCode, paid.body).toBe(201);
    const paidView = orderViewSchema.parse(paid.json());
    expect(paidView).toMatchObject({ state: 'paid', paidCents: order.totalCents + 200, tipCents: 200, balanceDueCents: 0 });
    expect(paidView.tenders.map((t) => [t.method, t.amountCents])).toEqual([
      ['cash', 500],
      ['card', rest + 200],
    ]);
    expect(paidView.payments!.map((p) => [p.state, p.method, p.amountCents, p.declineCode])).toEqual([
      ['declined', 'card', order.totalCents - 800, 'insufficient_funds'],
      ['captured', 'cash', 500, null],
      ['captured', 'card', rest + 200, null],
    ]);
    expect(paidView.payments![2]).toMatchObject({
      cardBrand: 'visa',
      last4: '4242',
      journalTransactionId: expect.any(String),
      capturedAt: NOW.toISOString(),
    });
    // The declined row is untouched by the capture of the others.
    expect(paidView.payments![0]).toMatchObject({ id: declinedId, journalTransactionId: null, capturedAt: null, refundedCents: 0 });

    // Reports count the sale with the two payments that took money, not the declined amount.
    const reportAfter = await tenderReport();
    expect(delta(reportAfter, reportBefore, 'card')).toEqual({ count: 1, amountCents: rest + 200, tipCents: 200, refundCents: 0 });
    expect(delta(reportAfter, reportBefore, 'cash')).toEqual({ count: 1, amountCents: 500, tipCents: 0, refundCents: 0 });
    expect(delta(reportAfter, reportBefore, 'check')).toEqual({ count: 0, amountCents: 0, tipCents: 0, refundCents: 0 });

    const receipt = (await get(`/api/pos/orders/${order.id}/receipt`)).json();
    expect(receipt.tenders.map((t: { method: string; amountCents: number }) => [t.method, t.amountCents])).toEqual([
      ['cash', 500],
      ['card', rest + 200],
    ]);

    // Paid orders refuse further payments (409), declined or not, and store nothing.
    const late = await pay(order.id, [{ method: 'card', amountCents: 100, cardToken: 'tok_declined' }]);
    expect(late.statusCode, late.body).toBe(409);
    expect((await view(order.id)).payments).toHaveLength(3);
    await expectLedgerSound();
  });

  it('refunds and cancellations never draw on a declined attempt', async () => {
    // Paid: cash 1000, a declined card, then visa for the rest.
    const order = await create();
    expect((await pay(order.id, [{ method: 'cash', amountCents: 1000 }])).statusCode).toBe(201);
    const declinedId = expectDeclined(
      await pay(order.id, [{ method: 'card', amountCents: order.totalCents - 1000, cardToken: 'tok_declined' }]),
      'card_declined',
      'tenders.0.cardToken',
    );
    const paid = await pay(order.id, [{ method: 'card', amountCents: order.totalCents - 1000, cardToken: 'tok_mastercard' }]);
    expect(paid.statusCode, paid.body).toBe(201);
    const [cashPayment, declined, cardPayment] = (paid.json() as OrderView).payments!;
    expect([cashPayment!.state, declined!.id, cardPayment!.state]).toEqual(['captured', declinedId, 'captured']);
    const reportBefore = await tenderReport();

    // A refund larger than the latest payment spills over to the cash, skipping the declined attempt between them.
    const first = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: cardPayment!.amountCents + 100 });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().refund.allocations).toEqual([
      { paymentId: cardPayment!.id, amountCents: cardPayment!.amountCents, accountCode: 'card_clearing:card_not_present' },
      { paymentId: cashPayment!.id, amountCents: 100, accountCode: cashPayment!.accountCode },
    ]);
    expect(first.json().order).toMatchObject({ state: 'partially_refunded', refundedCents: cardPayment!.amountCents + 100 });
    // The rest: only the cash is left to refund; the declined attempt never counts as refundable money.
    const tooMuch = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 901 });
    expect(tooMuch.statusCode, tooMuch.body).toBe(400);
    expect(tooMuch.json()).toMatchObject({ code: 'refund_exceeds_remaining', errors: [{ path: 'amountCents' }] });
    const second = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 900 });
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().refund.allocations).toEqual([{ paymentId: cashPayment!.id, amountCents: 900, accountCode: cashPayment!.accountCode }]);
    const after = await view(order.id);
    expect(after).toMatchObject({ state: 'refunded', refundedCents: order.totalCents });
    expect(after.payments!.map((p) => [p.id, p.state, p.refundedCents])).toEqual([
      [cashPayment!.id, 'refunded', 1000],
      [declinedId, 'declined', 0],
      [cardPayment!.id, 'refunded', cardPayment!.amountCents],
    ]);
    // The refunds report gives the money back to card and cash only.
    const reportAfter = await tenderReport();
    expect(delta(reportAfter, reportBefore, 'card').refundCents).toBe(cardPayment!.amountCents);
    expect(delta(reportAfter, reportBefore, 'cash').refundCents).toBe(1000);

    // Canceling an open order gives back what it took, not the declined attempt.
    const open = await create();
    expect((await pay(open.id, [{ method: 'cash', amountCents: 700 }])).statusCode).toBe(201);
    const openDeclined = expectDeclined(
      await pay(open.id, [{ method: 'card', amountCents: 300, cardToken: 'tok_insufficient_funds' }]),
      'insufficient_funds',
      'tenders.0.cardToken',
    );
    const canceled = await post(`/api/pos/orders/${open.id}/cancel`, { reason: 'customer left' });
    expect(canceled.statusCode, canceled.body).toBe(200);
    const canceledView = orderViewSchema.parse(canceled.json());
    expect(canceledView).toMatchObject({ state: 'canceled', refundedCents: 700 });
    expect(canceledView.refunds).toEqual([
      expect.objectContaining({ kind: 'cancellation', amountCents: 700, allocations: [expect.objectContaining({ amountCents: 700 })] }),
    ]);
    expect(canceledView.refunds![0]!.allocations.map((a) => a.paymentId)).not.toContain(openDeclined);
    expect(canceledView.payments!.map((p) => [p.state, p.refundedCents])).toEqual([
      ['refunded', 700],
      ['declined', 0],
    ]);
    await expectLedgerSound();
  });

  it('replays a decline for the same Idempotency-Key without storing it twice; a new attempt is a new declined payment', async () => {
    const order = await create();
    const tenders = [{ method: 'card', amountCents: 1200, cardToken: 'tok_declined' }];
    const key = `decline-${order.id}`;
    const before = await counts();
    const first = await pay(order.id, tenders, { 'idempotency-key': key });
    const paymentId = expectDeclined(first, 'card_declined', 'tenders.0.cardToken');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const stored = await counts();
    expect(stored).toEqual({
      ...before,
      payments: before.payments + 1,
      declined: before.declined + 1,
      audit: before.audit + 1,
      declinedAudit: before.declinedAudit + 1,
    });

    for (let i = 0; i < 2; i++) {
      const replay = await pay(order.id, tenders, { 'idempotency-key': key });
      expect(replay.statusCode).toBe(402);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['content-type']).toContain('application/problem+json');
      expect(replay.json()).toEqual(first.json());
    }
    expect(await counts()).toEqual(stored);
    expect((await view(order.id)).payments!.map((p) => p.id)).toEqual([paymentId]);

    // The same key with another body is refused, storing nothing.
    const reused = await pay(order.id, [{ method: 'card', amountCents: 1300, cardToken: 'tok_declined' }], { 'idempotency-key': key });
    expect(reused.statusCode, reused.body).toBe(422);
    expect(reused.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await counts()).toEqual(stored);

    // A new attempt (new key, or none) is another declined payment.
    const again = expectDeclined(await pay(order.id, tenders, { 'idempotency-key': `${key}-2` }), 'card_declined', 'tenders.0.cardToken');
    const noKey = expectDeclined(await pay(order.id, tenders), 'card_declined', 'tenders.0.cardToken');
    expect(new Set([paymentId, again, noKey]).size).toBe(3);
    expect((await view(order.id)).payments!.map((p) => [p.id, p.state])).toEqual([
      [paymentId, 'declined'],
      [again, 'declined'],
      [noKey, 'declined'],
    ]);

    // An approved payment under a fresh key still pays the order; its replay returns the paid order.
    const payKey = `pay-${order.id}`;
    const paid = await pay(order.id, [{ method: 'card', amountCents: order.totalCents, cardToken: 'tok_amex' }], { 'idempotency-key': payKey });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json()).toMatchObject({ state: 'paid', paidCents: order.totalCents });
    const paidReplay = await pay(order.id, [{ method: 'card', amountCents: order.totalCents, cardToken: 'tok_amex' }], { 'idempotency-key': payKey });
    expect(paidReplay.statusCode).toBe(201);
    expect(paidReplay.headers['idempotent-replayed']).toBe('true');
    expect((await view(order.id)).payments!.map((p) => p.state)).toEqual(['declined', 'declined', 'declined', 'captured']);
    await expectLedgerSound();
  });

  it('refuses an invalid request with 400 before any card reaches the rail: no declined attempt is stored', async () => {
    const order = await create();
    const before = await counts();
    // A tip above its tender's amount, after a card the rail would decline.
    const tip = await pay(order.id, [
      { method: 'card', amountCents: 100, cardToken: 'tok_declined' },
      { method: 'cash', amountCents: 100, tipCents: 101 },
    ]);
    expect(tip.statusCode, tip.body).toBe(400);
    expect(tip.json()).toMatchObject({ code: 'validation_error', errors: [{ path: 'tenders.1.tipCents' }] });
    // Cash handed over below its amount.
    const tendered = await pay(order.id, [
      { method: 'card', amountCents: 100, cardToken: 'tok_insufficient_funds' },
      { method: 'cash', amountCents: 100, tenderedCents: 50 },
    ]);
    expect(tendered.statusCode, tendered.body).toBe(400);
    expect(tendered.json()).toMatchObject({ code: 'validation_error', errors: [{ path: 'tenders.1.tenderedCents' }] });
    // More than the balance, on a declined card.
    const over = await pay(order.id, [{ method: 'card', amountCents: order.totalCents + 1, cardToken: 'tok_declined' }]);
    expect(over.statusCode, over.body).toBe(400);
    expect(over.json()).toMatchObject({ code: 'overpayment', errors: [{ path: 'tenders' }] });
    // A token outside the sandbox list.
    const unknown = await pay(order.id, [{ method: 'card', amountCents: 100, cardToken: 'tok_unknown' }]);
    expect(unknown.statusCode, unknown.body).toBe(400);
    expect(unknown.json().errors).toEqual([expect.objectContaining({ path: 'tenders.0.cardToken' })]);

    expect(await counts()).toEqual(before);
    expect(await view(order.id)).toMatchObject({ state: 'open', payments: [] });
  });

  it('keeps register-pushed orders as they were: tenders in the document, payments derived from them', async () => {
    const register = await enrollRegister(server, server.credentials.staffToken);
    const sale = buildSale({ register, sequence: 1, catalog: server.catalog, method: 'card', createdAt: NOW.toISOString() });
    const pushed = await server.app.inject({
      method: 'POST',
      url: '/api/sync/orders/push',
      headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify([{ assumedMasterState: null, newDocumentState: sale.order }]),
    });
    expect(pushed.json()).toEqual([]);

    // Its payment is derived from the document's tender, with the new field present and null.
    const seen = await view(sale.order.id);
    expect(seen).toMatchObject({ source: 'register', state: 'paid' });
    expect(seen.payments).toEqual([
      expect.objectContaining({ id: `pmt_${sale.order.tenders[0]!.id.slice(4)}`, state: 'captured', method: 'card', declineCode: null }),
    ]);
    // A paid register sale takes no API payment: a declined card is refused (409) and leaves no row behind.
    const before = await counts();
    const refused = await pay(sale.order.id, [{ method: 'card', amountCents: 100, cardToken: 'tok_declined' }]);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(await counts()).toEqual(before);

    // The register pulls its document exactly as it pushed it: tenders inside, no payment fields added.
    const pulled = await server.app.inject({
      method: 'GET',
      url: '/api/sync/orders/pull?limit=1000',
      headers: { authorization: `Bearer ${register.registerToken}` },
    });
    expect(pulled.statusCode, pulled.body).toBe(200);
    const { _deleted: deleted, ...doc } = pulled.json().documents.find((d: { id: string }) => d.id === sale.order.id);
    expect(deleted).toBe(false);
    expect(orderSchema.parse(doc)).toEqual(doc);
    expect(doc).not.toHaveProperty('payments');
    expect(doc.tenders).toEqual(sale.order.tenders);
  });
});
