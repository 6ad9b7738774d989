/**
 * Offline card payments, store and forward, over sync push on both databases: a card the terminal approved
 * offline arrives as a `pending_forward` tender with the terminal's token; the server forwards it to the processor
 * exactly once (two pushes of the same order, two pushes at once, and the workflow called again never forward twice),
 * a capture moves the money from store-and-forward clearing to card-present clearing, and a decline on forward leaves
 * the customer a balance due (a receivable) listed for the back office with the receipt's customer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegisterSale, catalogSnapshot, type Order } from '../../core/index.ts';
import { openMutation } from '../../sync-server/src/kernel/mutation.ts';
import { SandboxProcessor, type ChargeRequest, type PaymentProcessor } from '../../sync-server/src/modules/payments/processors.ts';
import { forwardOfflineCardPayments } from '../../sync-server/src/workflows/offline-card-forward.ts';
import { databaseTargets } from '../support/databases.ts';
import type { PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;

const NOW = new Date('2026-04-02T15:00:00.000Z');
const LATTE = { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_small'], quantity: 1 };
const TOKEN_OK = 'saf_visa_4242_abcdefghijklmnopabcdefgh';
const TOKEN_DECLINES = 'saf_visa_0002_ponmlkjihgfedcbaponmlkji';

describe.each(databaseTargets())('offline card payments on $name', (target) => {
  let server: TestServer;
  let register: PairedRegister;
  let sequence = 0;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => NOW });
    register = (await server.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: {} })).json();
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const push = (docs: Order[]) =>
    call(
      'POST',
      '/api/sync/orders/push',
      docs.map((d) => ({ assumedMasterState: null, newDocumentState: d })),
    );
  const offlineSale = (token: string, last4: string, extra: { customerId?: string } = {}): Order => {
    const { order } = buildRegisterSale({
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      sequence: ++sequence,
      currency: 'USD',
      createdAt: NOW.toISOString(),
      lines: [LATTE],
      payment: { method: 'card', cardBrand: 'VISA', last4, offline: { token, approvedAt: NOW.toISOString() } },
      catalog: catalogSnapshot(server.catalog.items, server.catalog.taxRates),
    });
    return extra.customerId ? { ...order, customerId: extra.customerId } : order;
  };
  const count = async (sql: string, params: unknown[] = []) => Number((await server.db.query<{ n: number }>(sql, params)).rows[0]!.n);
  const balance = async (accountCode: string, sourceId: string) =>
    count(
      `SELECT coalesce(sum(p.amount_cents), 0)::int AS n FROM postings p JOIN journal_transactions j ON j.id = p.journal_transaction_id
        JOIN accounts a ON a.id = p.account_id WHERE a.code = $1 AND j.source_id = $2`,
      [accountCode, sourceId],
    );
  const events = (type: string, id: string) =>
    count(`SELECT count(*)::int AS n FROM event_outbox WHERE type = $1 AND payload->'data'->'object'->>'id' = $2`, [type, id]);
  const listed = async (query = ''): Promise<Json[]> => {
    const res = await call('GET', `/api/pos/offline-cards/payments${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };

  it('forwards an offline approval once: two pushes of the same order capture it once, into card-present clearing', async () => {
    const order = offlineSale(TOKEN_OK, '4242');
    const tender = order.tenders[0]!;
    expect(tender.offline?.state).toBe('pending_forward');
    const first = await push([order]);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual([]);
    const again = await push([order]);
    expect(again.statusCode, again.body).toBe(200);

    const payment = (await listed()).find((p) => p.id === tender.id)!;
    expect(payment).toMatchObject({
      orderId: order.id,
      state: 'captured',
      forwardAttempts: 1,
      balanceDueCents: 0,
      cardBrand: 'VISA',
      last4: '4242',
      declineCode: null,
    });
    expect(payment.processorReference).toMatch(/^sbx_/);
    expect(JSON.stringify(payment)).not.toContain(TOKEN_OK); // the token stays on the server
    expect(await balance('card_clearing:store_and_forward', order.id)).toBe(0);
    expect(await balance('card_clearing:card_present', order.id)).toBe(order.totalCents);
    expect(await events('payment.forwarded', tender.id)).toBe(1);
    expect(await count('SELECT count(*)::int AS n FROM audit_log WHERE action = $1 AND entity_id = $2', ['payment.forwarded', tender.id])).toBe(1);
  });

  it('two pushes of one order at the same time forward it once; the workflow run again forwards nothing', async () => {
    const order = offlineSale(TOKEN_OK.replace('abcdef', 'fedcba'), '4242');
    const [a, b] = await Promise.all([push([order]), push([order])]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(await events('payment.forwarded', order.tenders[0]!.id)).toBe(1);

    const seen: ChargeRequest[] = [];
    const counting: PaymentProcessor = { name: 'counting', charge: (request) => (seen.push(request), new SandboxProcessor().charge(request)) };
    const forwarded = await server.db.transaction(async (tx) =>
      forwardOfflineCardPayments(await openMutation(tx, { merchantId: server.credentials.merchantId, actor: 'system' }, NOW), [order], counting),
    );
    expect(forwarded).toBe(0);
    expect(seen).toEqual([]);
  });

  it('a processor that cannot be reached leaves the payment pending_forward and unclaimed; a retry forwards it once', async () => {
    const cash = buildRegisterSale({
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      sequence: ++sequence,
      currency: 'USD',
      createdAt: NOW.toISOString(),
      lines: [LATTE],
      payment: { method: 'cash', tenderedCents: 1000 },
      catalog: catalogSnapshot(server.catalog.items, server.catalog.taxRates),
    }).order;
    expect((await push([cash])).json()).toEqual([]);
    const tender = { ...offlineSale(TOKEN_OK.replace('ghij', 'jihg'), '4242').tenders[0]! };
    const order: Order = { ...cash, tenders: [tender] };
    const run = (processor: PaymentProcessor, retryIds: string[] = []) =>
      server.db.transaction(async (tx) =>
        forwardOfflineCardPayments(
          await openMutation(tx, { merchantId: server.credentials.merchantId, actor: 'system' }, NOW),
          [order],
          processor,
          retryIds,
        ),
      );
    const down: PaymentProcessor = { name: 'down', charge: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    expect(await run(down)).toBe(0);
    const row = async () =>
      (
        await server.db.query<{ state: string; forward_attempts: number }>(
          'SELECT state, forward_attempts FROM offline_card_payments WHERE id = $1',
          [tender.id],
        )
      ).rows[0];
    expect(await row()).toEqual({ state: 'pending_forward', forward_attempts: 0 });
    expect(await run(new SandboxProcessor(), [tender.id])).toBe(1);
    expect(await row()).toEqual({ state: 'captured', forward_attempts: 1 });
    expect(await run(new SandboxProcessor(), [tender.id])).toBe(0);
    expect(await events('payment.forwarded', tender.id)).toBe(1);
  });

  it('a decline on forward leaves a balance due, listed with the receipt customer; the sale itself stays stored', async () => {
    const customer = await call('POST', '/api/pos/customers', {
      givenName: 'Ada',
      familyName: 'Lovelace',
      email: 'ada@example.com',
      phone: '+14155550100',
    });
    expect(customer.statusCode, customer.body).toBe(201);
    const order = offlineSale(TOKEN_DECLINES, '0002', { customerId: customer.json().id });
    const res = await push([order]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([]);
    expect((await call('GET', `/api/pos/orders/${order.id}`)).statusCode).toBe(200);

    const declined = await listed('?state=declined');
    const payment = declined.find((p) => p.orderId === order.id)!;
    expect(payment).toMatchObject({
      state: 'declined',
      declineCode: 'card_declined',
      amountCents: order.totalCents,
      balanceDueCents: order.totalCents,
      receiptNumber: order.receiptNumber,
      forwardAttempts: 1,
      customer: { id: customer.json().id, name: 'Ada Lovelace', email: 'ada@example.com', phone: '+14155550100' },
    });
    expect(await balance('customer_receivables:offline_card_declined', order.id)).toBe(order.totalCents);
    expect(await balance('card_clearing:store_and_forward', order.id)).toBe(0);
    expect(await events('payment.forward_declined', order.tenders[0]!.id)).toBe(1);
    expect((await listed('?state=captured')).every((p) => p.state === 'captured')).toBe(true);
    const tb = (await call('GET', '/api/pos/ledger/trial-balance')).json();
    expect(tb.totalCents).toBe(0);
  });

  it('limits: defaults, changed by staff (400 naming the field), read by a register', async () => {
    expect((await call('GET', '/api/pos/offline-cards/limits')).json()).toEqual({
      maxPaymentCents: 10000,
      maxOutstandingCents: 100000,
      forwardWithinHours: 24,
    });
    for (const [body, field] of [
      [{ maxPaymentCents: -1 }, 'maxPaymentCents'],
      [{ forwardWithinHours: 0 }, 'forwardWithinHours'],
      [{ forwardWithinHours: 169 }, 'forwardWithinHours'],
      [{ maxOutstandingCents: '5' }, 'maxOutstandingCents'],
      [{ other: 1 }, 'other'],
      [{}, '(body)'],
    ] as const) {
      const res = await call('PATCH', '/api/pos/offline-cards/limits', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(field);
    }
    const patched = await call('PATCH', '/api/pos/offline-cards/limits', { maxPaymentCents: 5000, forwardWithinHours: 168 });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toEqual({ maxPaymentCents: 5000, maxOutstandingCents: 100000, forwardWithinHours: 168 });
    expect((await call('GET', '/api/pos/offline-cards/limits')).json()).toMatchObject({ maxPaymentCents: 5000 });
  });

  it('refuses an offline tender that is not a card, or a token that carries a card number', async () => {
    const card = offlineSale(TOKEN_OK.replace('abc', 'xyz'), '4242');
    const check = { ...card, tenders: [{ ...card.tenders[0]!, method: 'check' as const }] };
    const pan = offlineSale('saf_visa_4242_4111111111111111', '4242');
    const res = await push([check, pan]);
    expect(res.statusCode, res.body).toBe(200);
    expect(await count('SELECT count(*)::int AS n FROM offline_card_payments WHERE order_id = ANY($1::text[])', [[check.id, pan.id]])).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM orders WHERE id = ANY($1::text[])', [[check.id, pan.id]])).toBe(0);
  });
});
