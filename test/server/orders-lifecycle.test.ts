import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderViewSchema, refundRecordSchema, type OrderView, type RefundRecord } from '../../core/index.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { StateConflictError } from '../../sync-server/src/modules/orders/service.ts';
import { applyExternalPayment } from '../../sync-server/src/workflows/order-payment.ts';
import { databaseTargets } from '../support/databases.ts';
import { buildSale } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister } from '../support/enroll.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');

/** Latte (large, oat) + 2 croissants + haircut: products with tax, a service without. */
const CART = [
  { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large', 'mod_extra_oat_milk'], quantity: 1 },
  { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 },
  { catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', quantity: 1 },
];

describe.each(databaseTargets())('orders lifecycle on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => NOW });
  });
  afterAll(async () => {
    await server?.close();
  });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}, token = server.credentials.staffToken) =>
    server.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(payload),
    });
  const get = (url: string, token = server.credentials.staffToken) =>
    server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  const create = async (payload: unknown = { lineItems: CART }): Promise<OrderView> => {
    const res = await post('/api/pos/orders', payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const count = async (table: string, where = 'true', params: unknown[] = []) =>
    Number((await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params)).rows[0]!.n);
  const counts = async () => ({
    orders: await count('orders'),
    payments: await count('order_payments'),
    refunds: await count('order_refunds'),
    journal: await count('journal_transactions'),
    audit: await count('audit_log'),
    events: await count('event_outbox'),
  });
  const events = async (type: string, objectId: string) =>
    count('event_outbox', `type = $1 AND (payload->'data'->'object'->>'id' = $2 OR payload->'data'->'object'->>'orderId' = $2)`, [type, objectId]);
  const expectLedgerSound = async () => {
    const tb = await get('/api/pos/ledger/trial-balance');
    expect(tb.json().totalCents).toBe(0);
    const unbalanced = await server.db.query(
      `SELECT jt.id FROM journal_transactions jt JOIN postings p ON p.journal_transaction_id = jt.id GROUP BY jt.id HAVING SUM(p.amount_cents) <> 0 OR COUNT(*) < 2`,
    );
    expect(unbalanced.rows).toEqual([]);
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
    return tb.json<{ accounts: { code: string; balanceCents: number }[] }>().accounts;
  };
  const expect409 = (res: LightMyRequestResponse, currentState: string) => {
    expect(res.statusCode, res.body).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 409, code: 'illegal_state_transition', currentState });
    expect(res.json().detail).toContain(currentState);
  };

  it('creates an open order priced from the catalog, announced and audited', async () => {
    const before = await counts();
    const order = await create({ lineItems: CART, discounts: [{ name: 'Loyalty', kind: 'percentage', basisPoints: 1000 }], note: 'table 4' });
    expect(orderViewSchema.parse(order)).toEqual(order);
    expect(order).toMatchObject({
      state: 'open',
      source: 'api',
      paidCents: 0,
      tipCents: 0,
      refundedCents: 0,
      payments: [],
      refunds: [],
      note: 'table 4',
      createdAt: NOW.toISOString(),
    });
    expect(order.receiptNumber).toMatch(/^R\d+-000001$/);
    // Prices come from the catalog: variation + chosen modifiers.
    const latte = server.catalog.items.find((i) => i.id === 'itm_latte')!;
    const modifiers = latte.modifierLists.flatMap((l) => l.modifiers).filter((m) => CART[0]!.modifierIds!.includes(m.id));
    const lattePrice = latte.variations[0]!.priceCents + modifiers.reduce((a, m) => a + m.priceCents, 0);
    expect(order.lines.map((l) => l.unitPriceCents)).toEqual([lattePrice, 375, 3500]);
    expect(order.subtotalCents).toBe(lattePrice + 2 * 375 + 3500);
    expect(order.discountCents).toBe(Math.round(order.subtotalCents / 10));
    expect(order.balanceDueCents).toBe(order.totalCents);
    expect(await counts()).toMatchObject({ orders: before.orders + 1, journal: before.journal, events: before.events + 1 });
    expect(await events('order.created', order.id)).toBe(1);
    const fetched = await get(`/api/pos/orders/${order.id}`, server.credentials.appToken);
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(order);
    const second = await create();
    expect(Number(second.receiptNumber.split('-')[1])).toBe(2);
  });

  it('refuses prices, unknown references and unknown fields with a 400 naming the field, writing nothing', async () => {
    const before = await counts();
    const cases: [unknown, string][] = [
      [{ lineItems: [{ ...CART[1], priceCents: 1 }] }, 'lineItems.0.priceCents'],
      [{ lineItems: [{ catalogItemId: 'itm_nope', variationId: 'var_croissant_regular', quantity: 1 }] }, 'lineItems.0.catalogItemId'],
      [{ lineItems: [{ ...CART[1], quantity: 0 }] }, 'lineItems.0.quantity'],
      [{ lineItems: [] }, 'lineItems'],
      [{ lineItems: CART, customerId: 'cus_01HZZZZZZZZZZZZZZZZZZZZZZZ' }, 'customerId'],
      [{ lineItems: CART, totalCents: 5 }, 'totalCents'],
    ];
    for (const [payload, path] of cases) {
      const res = await post('/api/pos/orders', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
      expect(res.json().detail).toContain(path);
    }
    expect(await counts()).toEqual(before);
    // Staff only: an app token (even with orders:read) cannot create.
    const app = await post('/api/pos/orders', { lineItems: CART }, {}, server.credentials.appToken);
    expect(app.statusCode).toBe(403);
  });

  it('pays with several tenders and a tip: open → paid, ledger balanced, order.paid once', async () => {
    const order = await create();
    const half = Math.floor(order.totalCents / 2);
    const cash = await post(`/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: half, tenderedCents: half + 115 }] });
    expect(cash.statusCode, cash.body).toBe(201);
    expect(cash.json()).toMatchObject({ state: 'open', paidCents: half, balanceDueCents: order.totalCents - half });
    expect(cash.json().payments[0]).toMatchObject({ method: 'cash', state: 'captured', amountCents: half, changeCents: 115 });
    expect(await events('order.paid', order.id)).toBe(0);

    const rest = order.totalCents - half;
    const final = await post(`/api/pos/orders/${order.id}/payments`, {
      tenders: [
        { method: 'card', amountCents: rest - 100 + 300, tipCents: 300, cardToken: 'tok_visa' },
        { method: 'check', amountCents: 100, checkNumber: '1042' },
      ],
    });
    expect(final.statusCode, final.body).toBe(201);
    const paid: OrderView = final.json();
    expect(paid).toMatchObject({
      state: 'paid',
      tipCents: 300,
      paidCents: order.totalCents + 300,
      balanceDueCents: 0,
      journalTransactionId: `jtx_${order.id.slice(4)}`,
    });
    expect(paid.payments!.map((p) => [p.method, p.state, p.rail])).toEqual([
      ['cash', 'captured', 'cash'],
      ['card', 'captured', 'card_not_present'],
      ['check', 'captured', 'check'],
    ]);
    expect(paid.payments![1]).toMatchObject({ cardBrand: 'visa', last4: '4242' });
    expect(paid.tenders).toHaveLength(3);
    expect(await events('order.paid', order.id)).toBe(1);
    const accounts = await expectLedgerSound();
    expect(accounts.find((a) => a.code === 'customer_receivables')?.balanceCents ?? 0).toBe(0);
    const journal = await get(`/api/pos/ledger/journal-transactions?sourceId=${order.id}`);
    const kinds: string[] = journal.json().data.map((j: { kind: string }) => j.kind);
    expect(kinds.filter((k) => k !== 'fee')).toEqual(['payment', 'payment', 'payment', 'sale']);
    // The routed card's processing fee (every card payment is routed) is its own journal transaction.
    expect(kinds.filter((k) => k === 'fee')).toHaveLength(1);

    // Paid orders are never paid again nor canceled.
    expect409(await post(`/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: 1 }] }), 'paid');
    expect409(await post(`/api/pos/orders/${order.id}/cancel`, {}), 'paid');
  });

  it('keeps a declined card as a declined payment: no money moves, the order stays open, an approved card then pays it', async () => {
    const order = await create();
    const before = await counts();
    const trialBefore = (await get('/api/pos/ledger/trial-balance')).json();
    const declined = await post(
      `/api/pos/orders/${order.id}/payments`,
      {
        tenders: [
          { method: 'cash', amountCents: 100 },
          { method: 'card', amountCents: 200, tipCents: 20, cardToken: 'tok_declined' },
        ],
      },
      { 'idempotency-key': `decline-${order.id}` },
    );
    expect(declined.statusCode).toBe(402);
    expect(declined.json()).toMatchObject({
      code: 'card_declined',
      paymentId: expect.stringMatching(/^pmt_/),
      errors: [{ path: 'tenders.1.cardToken' }],
    });
    // All tenders or none: the cash tender is not taken; only the declined attempt is kept, with its audit row.
    expect(await counts()).toEqual({ ...before, payments: before.payments + 1, audit: before.audit + 1 });
    expect((await get('/api/pos/ledger/trial-balance')).json()).toEqual(trialBefore);
    const seen = (await get(`/api/pos/orders/${order.id}`)).json() as OrderView;
    expect(seen).toMatchObject({ state: 'open', paidCents: 0, balanceDueCents: order.totalCents });
    expect(seen.payments).toEqual([
      expect.objectContaining({
        id: declined.json().paymentId,
        state: 'declined',
        method: 'card',
        amountCents: 200,
        tipCents: 20,
        declineCode: 'card_declined',
        journalTransactionId: null,
        capturedAt: null,
      }),
    ]);

    // The same request again (same key) replays the 402; nothing new is stored.
    const replay = await post(
      `/api/pos/orders/${order.id}/payments`,
      {
        tenders: [
          { method: 'cash', amountCents: 100 },
          { method: 'card', amountCents: 200, tipCents: 20, cardToken: 'tok_declined' },
        ],
      },
      { 'idempotency-key': `decline-${order.id}` },
    );
    expect(replay.statusCode).toBe(402);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().paymentId).toBe(declined.json().paymentId);
    expect((await counts()).payments).toBe(before.payments + 1);
    const second = await post(`/api/pos/orders/${order.id}/payments`, {
      tenders: [{ method: 'card', amountCents: order.totalCents, cardToken: 'tok_insufficient_funds' }],
    });
    expect(second.json()).toMatchObject({ code: 'insufficient_funds' });

    // Another card pays it; a full refund goes back to that card only.
    const paid = await post(`/api/pos/orders/${order.id}/payments`, {
      tenders: [{ method: 'card', amountCents: order.totalCents, cardToken: 'tok_visa' }],
    });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json()).toMatchObject({ state: 'paid', paidCents: order.totalCents });
    expect(paid.json().payments.map((p: { state: string }) => p.state)).toEqual(['declined', 'declined', 'captured']);
    const refund = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: order.totalCents });
    expect(refund.statusCode, refund.body).toBe(201);
    const approvedId = paid.json().payments[2].id;
    expect(refund.json().refund.allocations).toEqual([expect.objectContaining({ paymentId: approvedId, amountCents: order.totalCents })]);
    const after = (await get(`/api/pos/orders/${order.id}`)).json() as OrderView;
    expect(after.payments!.map((p) => [p.state, p.refundedCents])).toEqual([
      ['declined', 0],
      ['declined', 0],
      ['refunded', order.totalCents],
    ]);
    const audit = await server.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'payment.declined' AND data->>'orderId' = $1`,
      [order.id],
    );
    expect(audit.rows[0]!.n).toBe(2);
    await expectLedgerSound();
  });

  it('overpayments and bad tenders write nothing', async () => {
    const order = await create();
    const before = await counts();
    const over = await post(`/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: order.totalCents + 1 }] });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'overpayment', errors: [{ path: 'tenders' }] });
    const tipTooBig = await post(`/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: 100, tipCents: 101 }] });
    expect(tipTooBig.statusCode).toBe(400);
    expect(tipTooBig.json().errors[0].path).toBe('tenders.0.tipCents');
    const badCard = await post(`/api/pos/orders/${order.id}/payments`, {
      tenders: [{ method: 'card', amountCents: 100, cardToken: 'tok_visa', cardNumber: '4242424242424242' }],
    });
    expect(badCard.statusCode).toBe(400);
    expect(await counts()).toEqual(before);
    const missing = await post('/api/pos/orders/ord_01HZZZZZZZZZZZZZZZZZZZZZZZ/payments', { tenders: [{ method: 'cash', amountCents: 100 }] });
    expect(missing.statusCode).toBe(404);
  });

  it('cancels an open order, giving back what it had collected; a canceled order moves no more', async () => {
    const order = await create();
    await post(`/api/pos/orders/${order.id}/payments`, {
      tenders: [{ method: 'card', amountCents: 500, tipCents: 50, cardToken: 'tok_mastercard' }],
    });
    const res = await post(`/api/pos/orders/${order.id}/cancel`, { reason: 'customer left' });
    expect(res.statusCode, res.body).toBe(200);
    const canceled: OrderView = res.json();
    expect(canceled).toMatchObject({ state: 'canceled', refundedCents: 500, balanceDueCents: 0 });
    expect(canceled.payments![0]).toMatchObject({ state: 'refunded', refundedCents: 500 });
    expect(canceled.refunds![0]).toMatchObject({ kind: 'cancellation', amountCents: 500, tipCents: 50 });
    expect(await events('payment.refunded', order.id)).toBe(1);
    const accounts = await expectLedgerSound();
    expect(accounts.find((a) => a.code === 'customer_receivables')?.balanceCents ?? 0).toBe(0);

    expect409(await post(`/api/pos/orders/${order.id}/cancel`, {}), 'canceled');
    expect409(await post(`/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: 100 }] }), 'canceled');
    expect409(await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 1 }), 'canceled');

    const plain = await create();
    expect409(await post(`/api/pos/orders/${plain.id}/refunds`, { amountCents: 1 }), 'open');
    const canceledPlain = await post(`/api/pos/orders/${plain.id}/cancel`, {});
    expect(canceledPlain.json()).toMatchObject({ state: 'canceled', refundedCents: 0, refunds: [] });
  });

  it('refunds partly by line and by amount up to the paid amount, never beyond', async () => {
    const order = await create();
    const paid: OrderView = (
      await post(`/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: order.totalCents + 200, tipCents: 200 }] })
    ).json();
    expect(paid.state).toBe('paid');
    const croissants = paid.lines[1]!;

    const byLine = await post(`/api/pos/orders/${order.id}/refunds`, { lines: [{ lineId: croissants.id, quantity: 1 }], reason: 'stale' });
    expect(byLine.statusCode, byLine.body).toBe(201);
    const first: { refund: RefundRecord; order: OrderView } = byLine.json();
    expect(refundRecordSchema.parse(first.refund)).toEqual(first.refund);
    expect(first.refund).toMatchObject({ kind: 'refund', restock: true, reason: 'stale', lines: [{ lineId: croissants.id, quantity: 1 }] });
    expect(first.refund.amountCents).toBe(Math.round((croissants.netCents + croissants.taxCents) / 2));
    expect(first.order).toMatchObject({ state: 'partially_refunded', refundedCents: first.refund.amountCents });
    expect(first.order.lines).toEqual(paid.lines); // never an edit of the order
    expect(await events('payment.refunded', order.id)).toBe(1);
    // Stock: the paid order sold 2 croissants, the refund put 1 back (croissants track stock; drinks do not).
    const movements = await server.db.query<{ kind: string; quantity: number; source_id: string }>(
      `SELECT kind, quantity, source_id FROM stock_movements WHERE variation_id = 'var_croissant_regular' AND source_id = ANY($1::text[]) ORDER BY kind DESC`,
      [[order.id, first.refund.id]],
    );
    expect(movements.rows.map((r) => [r.kind, Number(r.quantity), r.source_id])).toEqual([
      ['sale', -2, order.id],
      ['return', 1, first.refund.id],
    ]);

    // A line cannot be refunded beyond its quantity; the order not beyond what was paid.
    const tooMany = await post(`/api/pos/orders/${order.id}/refunds`, { lines: [{ lineId: croissants.id, quantity: 2 }] });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ code: 'refund_exceeds_remaining', errors: [{ path: 'lines.0.quantity' }] });
    const left = paid.paidCents - first.refund.amountCents;
    const beyond = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: left + 1 });
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json()).toMatchObject({ code: 'refund_exceeds_remaining', errors: [{ path: 'amountCents' }] });
    const unknownLine = await post(`/api/pos/orders/${order.id}/refunds`, { lines: [{ lineId: 'lin_01HZZZZZZZZZZZZZZZZZZZZZZZ', quantity: 1 }] });
    expect(unknownLine.json().errors[0].path).toBe('lines.0.lineId');
    const both = await post(`/api/pos/orders/${order.id}/refunds`, { lines: [{ lineId: croissants.id, quantity: 1 }], amountCents: 5 });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors[0].path).toBe('amountCents');

    const partAmount = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 1000 });
    expect(partAmount.statusCode).toBe(201);
    expect(partAmount.json().order).toMatchObject({ state: 'partially_refunded', refundedCents: first.refund.amountCents + 1000 });
    const rest = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: left - 1000 });
    expect(rest.statusCode, rest.body).toBe(201);
    const done: OrderView = rest.json().order;
    expect(done).toMatchObject({ state: 'refunded', refundedCents: paid.paidCents });
    expect(done.payments![0]).toMatchObject({ state: 'refunded', refundedCents: paid.paidCents });
    expect(done.refunds).toHaveLength(3);
    const refunds = done.refunds!;
    expect(refunds.reduce((a, r) => a + r.goodsCents, 0)).toBe(paid.totalCents);
    expect(refunds.reduce((a, r) => a + r.taxCents, 0)).toBe(paid.taxCents);
    expect(refunds.reduce((a, r) => a + r.tipCents, 0)).toBe(200);
    expect409(await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 1 }), 'refunded');
    const accounts = await expectLedgerSound();
    expect(accounts.find((a) => a.code === 'refunds')!.balanceCents).toBeGreaterThan(0);
  });

  it('refunds a register sale pushed by sync, which was announced as created and paid', async () => {
    const register = await enrollRegister(server, server.credentials.staffToken);
    const sale = buildSale({ register, sequence: 1, catalog: server.catalog, method: 'card', createdAt: NOW.toISOString() });
    const pushed = await server.app.inject({
      method: 'POST',
      url: '/api/sync/orders/push',
      headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify([{ assumedMasterState: null, newDocumentState: sale.order }]),
    });
    expect(pushed.json()).toEqual([]);
    expect(await events('order.created', sale.order.id)).toBe(1);
    expect(await events('order.paid', sale.order.id)).toBe(1);

    const view: OrderView = (await get(`/api/pos/orders/${sale.order.id}`)).json();
    expect(view).toMatchObject({ source: 'register', state: 'paid' });
    expect(view.payments![0]).toMatchObject({ method: 'card', rail: 'card_present', accountCode: 'card_clearing:card_present', state: 'captured' });
    const line = view.lines[0]!;
    const refunded = await post(`/api/pos/orders/${sale.order.id}/refunds`, { lines: [{ lineId: line.id, quantity: 1 }], restock: false });
    expect(refunded.statusCode, refunded.body).toBe(201);
    expect(refunded.json().order.payments[0]).toMatchObject({ state: 'partially_refunded' });
    expect(refunded.json().refund.allocations[0].accountCode).toBe('card_clearing:card_present');
    expect(await count('stock_movements', `kind = 'return' AND source_id = $1`, [refunded.json().refund.id])).toBe(0);
    await expectLedgerSound();
    // The register pulls the new state of its order.
    const pulled = await server.app.inject({
      method: 'GET',
      url: '/api/sync/orders/pull?limit=1000',
      headers: { authorization: `Bearer ${register.registerToken}` },
    });
    expect(pulled.json().documents.find((d: { id: string }) => d.id === sale.order.id)).toMatchObject({ state: 'partially_refunded' });
  });

  it('applyExternalPayment records pay-link payments on an open order (for the pay-request and invoice services)', async () => {
    const order = await create();
    const merchantId = server.credentials.merchantId;
    const clock = { clock: () => NOW };
    const part = await server.db.transaction((tx) =>
      applyExternalPayment(tx, clock, { merchantId, orderId: order.id, amountCents: 1000, rail: 'apple_pay', reference: 'pr_test', method: 'card' }),
    );
    expect(part).toMatchObject({ state: 'open', paidCents: 1000 });
    const done = await server.db.transaction((tx) =>
      applyExternalPayment(tx, clock, {
        merchantId,
        orderId: order.id,
        amountCents: order.totalCents - 1000 + 100,
        tipCents: 100,
        rail: 'apple_pay',
        reference: 'pr_test',
      }),
    );
    expect(done).toMatchObject({ state: 'paid', tipCents: 100 });
    expect(done.payments!.map((p) => [p.rail, p.accountCode, p.reference])).toEqual([
      ['apple_pay', 'card_clearing:apple_pay', 'pr_test'],
      ['apple_pay', 'card_clearing:apple_pay', 'pr_test'],
    ]);
    expect(await events('order.paid', order.id)).toBe(1);
    await expect(
      server.db.transaction((tx) =>
        applyExternalPayment(tx, clock, { merchantId, orderId: order.id, amountCents: 1, rail: 'apple_pay', reference: 'pr_test' }),
      ),
    ).rejects.toBeInstanceOf(StateConflictError);
    await expectLedgerSound();
  });

  it('replays an Idempotency-Key with the stored response and pays once', async () => {
    const key = { 'idempotency-key': 'order-create-1' };
    const a = await post('/api/pos/orders', { lineItems: CART }, key);
    const b = await post('/api/pos/orders', { lineItems: CART }, key);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json()).toEqual(a.json());
    const order: OrderView = a.json();
    const payKey = { 'idempotency-key': 'order-pay-1' };
    const body = { tenders: [{ method: 'cash', amountCents: order.totalCents }] };
    const p1 = await post(`/api/pos/orders/${order.id}/payments`, body, payKey);
    const p2 = await post(`/api/pos/orders/${order.id}/payments`, body, payKey);
    expect(p1.statusCode).toBe(201);
    expect(p2.headers['idempotent-replayed']).toBe('true');
    expect(p2.json()).toEqual(p1.json());
    expect(await count('order_payments', 'order_id = $1', [order.id])).toBe(1);
    const refundKey = { 'idempotency-key': 'order-refund-1' };
    const r1 = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 100 }, refundKey);
    const r2 = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 100 }, refundKey);
    expect(r2.json()).toEqual(r1.json());
    expect(await count('order_refunds', 'order_id = $1', [order.id])).toBe(1);
    const reused = await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 101 }, refundKey);
    expect(reused.statusCode).toBe(422);
  });

  it('lists orders with filters and cursor pagination', async () => {
    const all: OrderView[] = [];
    let cursor: string | null = null;
    do {
      const res: LightMyRequestResponse = await get(`/api/pos/orders?limit=3${cursor ? `&cursor=${cursor}` : ''}`, server.credentials.appToken);
      expect(res.statusCode).toBe(200);
      all.push(...res.json().data);
      cursor = res.json().nextCursor;
    } while (cursor);
    expect(all.length).toBe(await count('orders'));
    const open = await get('/api/pos/orders?status=open&limit=200');
    expect(open.json().data.length).toBeGreaterThan(0);
    expect(open.json().data.every((o: OrderView) => o.state === 'open')).toBe(true);
    const api = await get('/api/pos/orders?source=register&limit=200');
    expect(api.json().data.every((o: OrderView) => o.source === 'register')).toBe(true);
    const inRange = await get(`/api/pos/orders?createdFrom=${NOW.toISOString()}&createdTo=2026-03-01T12:00:00.001Z&limit=200`);
    expect(inRange.json().data.length).toBe(all.length);
    const before = await get('/api/pos/orders?createdTo=2026-03-01T00:00:00Z');
    expect(before.json().data).toEqual([]);
    for (const bad of ['status=lost', 'customerId=cus_1', 'createdFrom=yesterday', 'limit=0', 'sort=asc']) {
      const res = await get(`/api/pos/orders?${bad}`);
      expect(res.statusCode, bad).toBe(400);
    }
  });

  it('re-prints and sends receipts by SMS and e-mail', async () => {
    const customer = await post('/api/pos/customers', { givenName: 'Ada', phone: '+1 415 555 0199', email: 'Ada@Example.com' });
    expect(customer.statusCode, customer.body).toBe(201);
    const order = await create({ lineItems: CART, customerId: customer.json().id });
    await post(`/api/pos/orders/${order.id}/payments`, {
      tenders: [{ method: 'cash', amountCents: order.totalCents, tenderedCents: order.totalCents + 500 }],
    });
    const receipt = await get(`/api/pos/orders/${order.id}/receipt`);
    expect(receipt.statusCode).toBe(200);
    expect(receipt.json()).toMatchObject({
      receiptNumber: order.receiptNumber,
      merchantName: server.credentials.merchantName,
      state: 'paid',
      paidCents: order.totalCents,
    });
    expect(receipt.json().text).toContain(order.receiptNumber);
    expect(receipt.json().text).toContain('Change');

    const sms = await post(`/api/pos/orders/${order.id}/receipts`, { channel: 'sms' });
    expect(sms.statusCode, sms.body).toBe(202);
    expect(sms.json()).toMatchObject({ channel: 'sms', to: '+14155550199' });
    const queued = await server.db.query<{ body: string }>('SELECT body FROM sms_outbox WHERE id = $1', [sms.json().id]);
    expect(queued.rows[0]!.body).toContain(order.receiptNumber);
    // A number typed for the receipt is read like a customer's: national in the store's country (US), else a 400 naming `to`.
    const national = await post(`/api/pos/orders/${order.id}/receipts`, { channel: 'sms', to: '(415) 555-0142' });
    expect(national.statusCode, national.body).toBe(202);
    expect(national.json()).toMatchObject({ channel: 'sms', to: '+14155550142' });
    const notANumber = await post(`/api/pos/orders/${order.id}/receipts`, { channel: 'sms', to: '555-0142' });
    expect(notANumber.statusCode).toBe(400);
    expect(notANumber.json().errors[0].path).toBe('to');
    const email = await post(`/api/pos/orders/${order.id}/receipts`, { channel: 'email', to: 'other@example.com' });
    expect(email.json()).toMatchObject({ channel: 'email', to: 'other@example.com' });
    const mail = await server.db.query<{ subject: string; body: string }>('SELECT subject, body FROM email_outbox WHERE id = $1', [email.json().id]);
    expect(mail.rows[0]!.subject).toContain(order.receiptNumber);
    expect(mail.rows[0]!.body).toContain('Total');

    const anonymous = await create();
    const noRecipient = await post(`/api/pos/orders/${anonymous.id}/receipts`, { channel: 'email' });
    expect(noRecipient.statusCode).toBe(400);
    expect(noRecipient.json().errors[0].path).toBe('to');
    const history = await get(`/api/pos/customers/${customer.json().id}/orders`);
    expect(history.json().data.map((o: OrderView) => o.id)).toEqual([order.id]);
    const byCustomer = await get(`/api/pos/orders?customerId=${customer.json().id}`, server.credentials.appToken);
    expect(byCustomer.json().data.map((o: OrderView) => o.id)).toEqual([order.id]);
    await expectLedgerSound();
  });
});
