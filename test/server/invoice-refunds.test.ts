/**
 * Invoice refunds and routed invoice card payments, through the staff API on both databases: a card payment of an invoice is routed
 * (candidates, fees, reason kept on the payment; the processing fee posted), a declined card is kept as a payment in
 * state `declined`, and a paid invoice is refunded (ledger reversal of revenue and tax against the payments' accounts,
 * audit, `payment.refunded` webhook event), never beyond what was paid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceSchema } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;
const NOW = new Date('2026-03-02T10:00:00.000Z');

describe.each(databaseTargets())('invoice refunds, declines and routing on $name', (target) => {
  let server: TestServer;
  let customerId: string;
  beforeAll(async () => {
    server = await startTestServer({
      target,
      staticDir: null,
      clock: () => NOW,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
    });
    customerId = (await call('POST', '/api/pos/customers', { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com' })).json().id;
  });
  afterAll(async () => {
    await server?.close();
  });

  function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, token?: string) {
    return server.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${token ?? server.credentials.staffToken}`,
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
  }
  const journalOf = async (sourceId: string) =>
    (await call('GET', `/api/pos/ledger/journal-transactions?sourceId=${sourceId}`)).json().data as {
      id: string;
      kind: string;
      postings: { accountCode: string; amountCents: number }[];
    }[];
  const count = async (sql: string, params: unknown[] = []) => Number((await server.db.query<{ n: number }>(sql, params)).rows[0]!.n);

  /** An issued invoice: 2 lattes (1100, tax 96) + an untaxed 5000 line = 6196. */
  async function sentInvoice(): Promise<Json> {
    const d = await call('POST', '/api/pos/invoices', {
      customerId,
      lineItems: [{ catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large'], quantity: 2 }],
      customLines: [{ description: 'Catering setup', amountCents: 5000 }],
      dueDate: '2026-03-16',
    });
    expect(d.statusCode, d.body).toBe(201);
    const sent = await call('POST', `/api/pos/invoices/${d.json().id}/send`, {});
    expect(sent.statusCode, sent.body).toBe(200);
    return sent.json();
  }

  it('routes an invoice card payment: the decision is kept on the payment and its processing fee is posted', async () => {
    const inv = await sentInvoice();
    const res = await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 1000, method: 'card', cardToken: 'tok_visa' });
    expect(res.statusCode, res.body).toBe(201);
    const payment = res.json().payments[0];
    // card_not_present: 2.90 % + 30 → 29 + 30 = 59.
    expect(payment).toMatchObject({
      state: 'captured',
      rail: 'card_not_present',
      feeCents: 59,
      routing: { chosen: 'card_not_present', feeCents: 59, reason: expect.stringContaining('card_not_present') },
    });
    expect(payment.routing.candidates).toEqual([expect.objectContaining({ rail: 'card_not_present', feeCents: 59, reason: 'chosen' })]);
    const fee = (await journalOf(inv.id)).find((j) => j.kind === 'fee');
    expect(fee?.postings).toEqual([
      { accountCode: 'processing_fees', amountCents: 59 },
      { accountCode: 'card_clearing:card_not_present', amountCents: -59 },
    ]);
  });

  it('a rail that is down refuses the card before any charge (409 no_rail_available), nothing recorded', async () => {
    const inv = await sentInvoice();
    expect((await call('PATCH', '/api/pos/rails/card_not_present', { status: 'down' })).statusCode).toBe(200);
    try {
      const before = await count('SELECT count(*)::int AS n FROM invoice_payments');
      const res = await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 1000, method: 'card', cardToken: 'tok_visa' });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ code: 'no_rail_available', detail: expect.stringContaining('card_not_present down') });
      expect(await count('SELECT count(*)::int AS n FROM invoice_payments')).toBe(before);
    } finally {
      expect((await call('PATCH', '/api/pos/rails/card_not_present', { status: 'up' })).statusCode).toBe(200);
    }
  });

  it('keeps a declined invoice card payment as a payment in state declined, with no money and no journal transaction', async () => {
    const inv = await sentInvoice();
    const journalBefore = (await journalOf(inv.id)).length;
    const res = await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 700, method: 'card', cardToken: 'tok_insufficient_funds' });
    expect(res.statusCode).toBe(402);
    const { paymentId } = res.json();
    expect(paymentId).toMatch(/^ipm_/);
    const after = (await call('GET', `/api/pos/invoices/${inv.id}`)).json();
    expect(invoiceSchema.parse(after)).toEqual(after);
    expect(after).toMatchObject({ status: 'sent', paidCents: 0, balanceDueCents: 6196 });
    expect(after.payments).toEqual([
      expect.objectContaining({
        id: paymentId,
        state: 'declined',
        declineCode: 'insufficient_funds',
        amountCents: 700,
        journalTransactionId: null,
        feeCents: 0,
      }),
    ]);
    expect((await journalOf(inv.id)).length).toBe(journalBefore);
    // A declined payment is never refunded, and an unpaid invoice cannot be refunded at all.
    const refund = await call('POST', `/api/pos/invoices/${inv.id}/refunds`, {});
    expect(refund.statusCode).toBe(409);
    expect(refund.json()).toMatchObject({ currentState: 'sent' });
  });

  it('refunds a paid invoice in parts: revenue and tax reversed against the payments, audited, webhook event, never beyond what was paid', async () => {
    const inv = await sentInvoice();
    expect((await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 4000, method: 'check', checkNumber: '1001' })).statusCode).toBe(
      201,
    );
    const paid = await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 2196, method: 'card', cardToken: 'tok_visa' });
    expect(paid.json()).toMatchObject({ status: 'paid', refundedCents: 0 });
    const [checkPayment, cardPayment] = paid.json().payments;

    // Newest payment first: 3000 takes the card's 2196 and 804 of the check. Tax share: 3000 × 96 / 6196 = 46.48 → 46.
    const first = await call('POST', `/api/pos/invoices/${inv.id}/refunds`, { amountCents: 3000, reason: 'Event canceled' });
    expect(first.statusCode, first.body).toBe(201);
    const afterFirst = first.json();
    expect(invoiceSchema.parse(afterFirst)).toEqual(afterFirst);
    expect(afterFirst).toMatchObject({ status: 'paid', paidCents: 6196, refundedCents: 3000, balanceDueCents: 0 });
    expect(afterFirst.refunds).toEqual([
      expect.objectContaining({
        amountCents: 3000,
        taxCents: 46,
        reason: 'Event canceled',
        allocations: [
          { paymentId: cardPayment.id, amountCents: 2196, accountCode: 'card_clearing:card_not_present' },
          { paymentId: checkPayment.id, amountCents: 804, accountCode: 'check_clearing' },
        ],
      }),
    ]);
    expect(afterFirst.payments.map((p: Json) => p.refundedCents)).toEqual([804, 2196]);
    const refundJournal = (await journalOf(inv.id)).find((j) => j.id === afterFirst.refunds[0].journalTransactionId)!;
    expect(refundJournal.kind).toBe('refund');
    expect(refundJournal.postings).toEqual(
      expect.arrayContaining([
        { accountCode: 'refunds', amountCents: 2954 },
        { accountCode: 'sales_tax_payable', amountCents: 46 },
        { accountCode: 'card_clearing:card_not_present', amountCents: -2196 },
        { accountCode: 'check_clearing', amountCents: -804 },
      ]),
    );

    // Audit and webhook event.
    const refundId = afterFirst.refunds[0].id;
    expect(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'invoice.refunded' AND entity_id = $1`, [inv.id])).toBe(1);
    expect(
      await count(`SELECT count(*)::int AS n FROM event_outbox WHERE type = 'payment.refunded' AND payload->'data'->'object'->>'id' = $1`, [
        refundId,
      ]),
    ).toBe(1);

    // More than is left: 400 naming amountCents; a payment not of the invoice: 400 naming paymentId; cashier: 403.
    const over = await call('POST', `/api/pos/invoices/${inv.id}/refunds`, { amountCents: 3197 });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'refund_exceeds_refundable', errors: [{ path: 'amountCents' }] });
    const unknown = await call('POST', `/api/pos/invoices/${inv.id}/refunds`, { paymentId: 'ipm_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ errors: [{ path: 'paymentId' }] });
    const bad = await call('POST', `/api/pos/invoices/${inv.id}/refunds`, { amountCents: -1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ errors: [{ path: 'amountCents' }] });

    // The rest (no amount: everything left); the tax refunded adds up to the invoice's tax exactly.
    const rest = await call('POST', `/api/pos/invoices/${inv.id}/refunds`, {});
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.json()).toMatchObject({ refundedCents: 6196 });
    expect(rest.json().refunds[1]).toMatchObject({ amountCents: 3196, taxCents: 50 });
    const none = await call('POST', `/api/pos/invoices/${inv.id}/refunds`, {});
    expect(none.statusCode).toBe(400);
    expect((await call('GET', '/api/pos/ledger/trial-balance')).json().totalCents).toBe(0);
  });
});
