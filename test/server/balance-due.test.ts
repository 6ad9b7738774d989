/**
 * Balance due and card settlement, through the API on both databases:
 * - a declined or expired offline card forward leaves the ORDER in state `balance_due` (amount, reason, the tender as a
 *   declined payment), shown with the receipt's customer; refunds wait; the balance is collected with cash and card
 *   through `POST /api/pos/orders/{id}/payments` (Cr `customer_receivables:offline_card_declined`) → `paid` again;
 * - an ACH payment returned at settlement reopens the order it paid (payment `returned`, reversal posted first), and
 *   the balance is collected the same way (Cr `customer_receivables`);
 * - card payments (staff API, register card present, forwarded offline card, pay page) are `pending` settlement until
 *   the card rail's 2 days pass, then `settled` by the tick, in `GET /api/pos/settlements` and the settlements report;
 * - the pay page posts the routed rail's fee when the processor reports none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegisterSale, catalogSnapshot, type Order } from '../../core/index.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import type { PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;

const NOW = new Date('2026-05-04T15:00:00.000Z');
const HOUR = 3_600_000;
const LATTE = { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_small'], quantity: 1 };
const CROISSANTS = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 2 };
const TOKEN_DECLINES = 'saf_visa_0002_ponmlkjihgfedcbaponmlkji';
const TOKEN_OK = 'saf_visa_4242_abcdefghijklmnopabcdefgh';

describe.each(databaseTargets())('balance due on the order, card settlement on $name', (target) => {
  let server: TestServer;
  let register: PairedRegister;
  let sequence = 0;
  let now = NOW;
  let token = '';
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now, webhooks: { enabled: false } });
    register = (await server.app.inject({ method: 'POST', url: '/api/dev/pair-register', payload: {} })).json();
    token = server.credentials.staffToken;
  });
  afterAll(async () => {
    await server?.close();
  });

  const at = async (when: Date) => {
    now = when;
    token = await server.issueStaffToken({ now });
  };
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const tick = async () => (await (server.app as unknown as { recurringInvoices: { runOnce(): Promise<Json> } }).recurringInvoices.runOnce()) as Json;
  const push = (docs: Order[]) =>
    call(
      'POST',
      '/api/sync/orders/push',
      docs.map((d) => ({ assumedMasterState: null, newDocumentState: d })),
    );
  const sale = (payment: Parameters<typeof buildRegisterSale>[0]['payment'], extra: { customerId?: string; createdAt?: string } = {}): Order => {
    const { order } = buildRegisterSale({
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      sequence: ++sequence,
      currency: 'USD',
      createdAt: extra.createdAt ?? now.toISOString(),
      lines: [LATTE],
      payment,
      catalog: catalogSnapshot(server.catalog.items, server.catalog.taxRates),
    });
    return extra.customerId ? { ...order, customerId: extra.customerId } : order;
  };
  const order = async (id: string) => {
    const res = await call('GET', `/api/pos/orders/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Json;
  };
  const accountOf = async (accountCode: string, sourceId: string) =>
    Number(
      (
        await server.db.query<{ n: number }>(
          `SELECT coalesce(sum(p.amount_cents), 0)::int AS n FROM postings p JOIN journal_transactions j ON j.id = p.journal_transaction_id
            JOIN accounts a ON a.id = p.account_id WHERE a.code = $1 AND j.source_id = $2`,
          [accountCode, sourceId],
        )
      ).rows[0]!.n,
    );
  const audits = async (action: string, entityId: string) =>
    (
      await server.db.query<{ data: Json }>('SELECT data FROM audit_log WHERE action = $1 AND entity_id = $2 ORDER BY seq', [action, entityId])
    ).rows.map((r) => r.data);
  const settlementsOf = async (sourceId: string) => (await call('GET', `/api/pos/settlements?sourceId=${sourceId}`)).json().data as Json[];

  it('a declined forward leaves the order with a balance due, shown with the customer; it is collected in cash and by card, and the order is paid again', async () => {
    const customer = await call('POST', '/api/pos/customers', {
      givenName: 'Grace',
      familyName: 'Hopper',
      email: 'grace@example.com',
      phone: '+14155550111',
    });
    expect(customer.statusCode, customer.body).toBe(201);
    const sold = sale(
      { method: 'card', cardBrand: 'VISA', last4: '0002', offline: { token: TOKEN_DECLINES, approvedAt: now.toISOString() } },
      { customerId: customer.json().id },
    );
    expect((await push([sold])).json()).toEqual([]);
    const total = sold.totalCents;

    const owed = await order(sold.id);
    expect(owed).toMatchObject({
      state: 'balance_due',
      balanceDueCents: total,
      balanceDueReason: 'offline_card_declined',
      customerId: customer.json().id,
      totalCents: total,
      paidCents: total,
    });
    expect(owed.payments).toEqual([
      expect.objectContaining({
        id: `pmt_${sold.tenders[0]!.id.slice(4)}`,
        state: 'declined',
        declineCode: 'card_declined',
        amountCents: total,
        last4: '0002',
      }),
    ]);
    expect((await call('GET', '/api/pos/orders?status=balance_due')).json().data.map((o: Json) => o.id)).toContain(sold.id);
    expect(await audits('order.balance_due', sold.id)).toEqual([
      expect.objectContaining({
        from: 'paid',
        to: 'balance_due',
        balanceDueCents: total,
        reason: 'offline_card_declined',
        code: 'card_declined',
        receivableAccount: 'customer_receivables:offline_card_declined',
      }),
    ]);
    expect(await accountOf('customer_receivables:offline_card_declined', sold.id)).toBe(total);
    // The offline card list shows the same balance with the receipt's customer.
    const listed = (await call('GET', '/api/pos/offline-cards/payments?state=declined')).json().data.find((p: Json) => p.orderId === sold.id);
    expect(listed).toMatchObject({ balanceDueCents: total, customer: { name: 'Grace Hopper', email: 'grace@example.com' } });

    // Refunds wait until the balance is collected.
    const refund = await call('POST', `/api/pos/orders/${sold.id}/refunds`, { amountCents: 100 });
    expect(refund.statusCode).toBe(409);
    expect(refund.json()).toMatchObject({ currentState: 'balance_due' });

    // Collecting more than is due, or with a tip, is refused before anything is charged or written.
    for (const [tenders, field] of [
      [[{ method: 'cash', amountCents: total + 1 }], 'tenders'],
      [[{ method: 'card', amountCents: 100, tipCents: 10, cardToken: 'tok_visa' }], 'tenders.0.tipCents'],
      [[], 'tenders'],
    ] as const) {
      const res = await call('POST', `/api/pos/orders/${sold.id}/payments`, { tenders });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors.map((e: Json) => e.path)).toContain(field);
    }
    // A declined card while collecting is kept (with its routing) and leaves the balance as it was.
    const declined = await call('POST', `/api/pos/orders/${sold.id}/payments`, {
      tenders: [{ method: 'card', amountCents: 100, cardToken: 'tok_declined' }],
    });
    expect(declined.statusCode).toBe(402);
    expect((await order(sold.id)).balanceDueCents).toBe(total);

    const part = await call('POST', `/api/pos/orders/${sold.id}/payments`, { tenders: [{ method: 'cash', amountCents: 200, tenderedCents: 500 }] });
    expect(part.statusCode, part.body).toBe(201);
    expect(part.json()).toMatchObject({ state: 'balance_due', balanceDueCents: total - 200 });
    const rest = await call('POST', `/api/pos/orders/${sold.id}/payments`, {
      tenders: [{ method: 'card', amountCents: total - 200, cardToken: 'tok_visa' }],
    });
    expect(rest.statusCode, rest.body).toBe(201);
    const paid = rest.json();
    expect(paid).toMatchObject({ state: 'paid', balanceDueCents: 0, paidCents: total });
    expect(paid.balanceDueReason).toBeUndefined();
    const card = paid.payments.find((p: Json) => p.method === 'card' && p.state === 'captured');
    expect(paid.payments.map((p: Json) => [p.method, p.state, p.amountCents])).toEqual([
      ['card', 'declined', total],
      ['card', 'declined', 100],
      ['cash', 'captured', 200],
      ['card', 'captured', total - 200],
    ]);
    expect(card).toMatchObject({ rail: 'card_not_present', routing: expect.objectContaining({ chosen: 'card_not_present' }) });
    expect(card.feeCents).toBeGreaterThan(0);
    // The receivable is cleared by the collection: Cr the receivable, Dr the drawer and card clearing.
    expect(await accountOf('customer_receivables:offline_card_declined', sold.id)).toBe(0);
    expect(await accountOf(`cash_drawer:R${register.registerNumber}`, sold.id)).toBe(200);
    expect(await accountOf('card_clearing:card_not_present', sold.id)).toBe(total - 200 - card.feeCents);
    expect(
      (await call('GET', '/api/pos/offline-cards/payments?state=declined')).json().data.find((p: Json) => p.orderId === sold.id).balanceDueCents,
    ).toBe(0);
    expect(await audits('order.balance_collected', sold.id)).toEqual([
      expect.objectContaining({ from: 'balance_due', to: 'balance_due', collectedCents: 200, balanceDueCents: total - 200 }),
      expect.objectContaining({ from: 'balance_due', to: 'paid', collectedCents: total - 200, balanceDueCents: 0 }),
    ]);
    // The card that collected it settles on the card rail's schedule like any card payment.
    expect(await settlementsOf(card.id)).toEqual([
      expect.objectContaining({
        sourceType: 'order_payment',
        rail: 'card_not_present',
        status: 'pending',
        amountCents: total - 200,
        settlesAt: new Date(now.getTime() + 48 * HOUR).toISOString(),
      }),
    ]);
    // Paid again, it can be refunded.
    expect((await call('POST', `/api/pos/orders/${sold.id}/refunds`, { amountCents: 100 })).statusCode).toBe(201);
    expect((await call('GET', '/api/pos/ledger/trial-balance')).json().totalCents).toBe(0);
    expect((await verifyAuditChain(server.db, server.credentials.merchantId)).ok).toBe(true);
  });

  it('a forward that expired before it was sent leaves the order with a balance due too', async () => {
    const late = sale(
      {
        method: 'card',
        cardBrand: 'VISA',
        last4: '4242',
        offline: { token: TOKEN_OK, approvedAt: new Date(now.getTime() - 25 * HOUR).toISOString() },
      },
      { createdAt: new Date(now.getTime() - 25 * HOUR).toISOString() },
    );
    expect((await push([late])).json()).toEqual([]);
    expect(await order(late.id)).toMatchObject({ state: 'balance_due', balanceDueCents: late.totalCents, balanceDueReason: 'offline_card_expired' });
    expect((await order(late.id)).payments[0]).toMatchObject({ state: 'declined', declineCode: 'forward_window_expired' });
  });

  it('card payments are pending until the card rail settles; the tick settles them (payouts wait for it: rails-payouts.test.ts)', async () => {
    // A register card-present sale, a forwarded offline card, and a staff API card tender.
    const present = sale({ method: 'card', cardBrand: 'VISA', last4: '4242' });
    const forwarded = sale({
      method: 'card',
      cardBrand: 'VISA',
      last4: '4242',
      offline: { token: TOKEN_OK.replace('abc', 'cba'), approvedAt: now.toISOString() },
    });
    expect((await push([present, forwarded])).json()).toEqual([]);
    const created = await call('POST', '/api/pos/orders', { lineItems: [CROISSANTS] });
    expect(created.statusCode, created.body).toBe(201);
    const api = created.json();
    const paid = await call('POST', `/api/pos/orders/${api.id}/payments`, {
      tenders: [{ method: 'card', amountCents: api.totalCents, cardToken: 'tok_visa' }],
    });
    expect(paid.statusCode, paid.body).toBe(201);
    const apiPayment = paid.json().payments[0].id;
    // Visible on the payment itself.
    expect(paid.json().payments[0].settlement).toMatchObject({
      status: 'pending',
      settlesAt: new Date(now.getTime() + 48 * HOUR).toISOString(),
      settledAt: null,
    });
    expect((await order(present.id)).payments[0].settlement).toMatchObject({ status: 'pending' });

    const settlesAt = new Date(now.getTime() + 48 * HOUR).toISOString();
    expect(await settlementsOf(`pmt_${present.tenders[0]!.id.slice(4)}`)).toEqual([
      expect.objectContaining({
        sourceType: 'order_payment',
        rail: 'card_present',
        amountCents: present.totalCents,
        status: 'pending',
        settlesAt,
        journalTransactionId: present.journalTransactionId,
      }),
    ]);
    expect(await settlementsOf(forwarded.tenders[0]!.id)).toEqual([
      expect.objectContaining({ sourceType: 'offline_card', rail: 'card_present', amountCents: forwarded.totalCents, status: 'pending', settlesAt }),
    ]);
    expect(await settlementsOf(apiPayment)).toEqual([
      expect.objectContaining({ sourceType: 'order_payment', rail: 'card_not_present', amountCents: api.totalCents, status: 'pending', settlesAt }),
    ]);
    const report = async () => (await call('GET', `/api/pos/reports/settlements?from=${NOW.toISOString().slice(0, 10)}`)).json();
    expect((await report()).rows.find((r: Json) => r.rail === 'card_present')).toMatchObject({
      pendingCount: 2,
      pendingCents: present.totalCents + forwarded.totalCents,
    });

    expect((await tick()).settlements).toEqual({ settled: 0, returned: 0 });
    await at(new Date(NOW.getTime() + 48 * HOUR));
    const settled = (await tick()).settlements;
    expect(settled.returned).toBe(0);
    expect(settled.settled).toBeGreaterThanOrEqual(3);
    for (const id of [`pmt_${present.tenders[0]!.id.slice(4)}`, forwarded.tenders[0]!.id, apiPayment]) {
      expect((await settlementsOf(id))[0]).toMatchObject({ status: 'settled', settledAt: now.toISOString(), returnCode: null });
    }
    expect((await report()).rows.find((r: Json) => r.rail === 'card_present')).toMatchObject({
      pendingCount: 0,
      settledCount: 2,
      settledCents: present.totalCents + forwarded.totalCents,
    });
    expect((await order(api.id)).payments[0].settlement).toMatchObject({ status: 'settled', settledAt: now.toISOString() });
    expect((await order(forwarded.id)).payments[0].settlement).toMatchObject({ status: 'settled' });
  });

  it('an ACH payment returned at settlement reopens the order it paid; the balance is collected and the order is paid again', async () => {
    const created = await call('POST', '/api/pos/orders', { lineItems: [CROISSANTS] });
    const api = created.json();
    const link = await call('POST', '/api/pos/pay-requests', { orderId: api.id, phone: '+14155550123' });
    expect(link.statusCode, link.body).toBe(201);
    const pr = link.json();
    const res = await server.app.inject({
      method: 'POST',
      url: `/pay/${pr.id}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ method: 'bank_transfer', token: 'btok_sbx_110000000_3338' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await order(api.id)).toMatchObject({ state: 'paid', balanceDueCents: 0 });

    await at(new Date(now.getTime() + 72 * HOUR));
    expect((await tick()).settlements.returned).toBe(1);
    const [returned] = await settlementsOf(pr.id);
    expect(returned).toMatchObject({ status: 'returned', returnCode: 'R01' });

    const reopened = await order(api.id);
    expect(reopened).toMatchObject({ state: 'balance_due', balanceDueCents: api.totalCents, balanceDueReason: 'bank_payment_returned' });
    expect(reopened.payments).toEqual([
      expect.objectContaining({
        reference: pr.id,
        rail: 'ach',
        state: 'returned',
        declineCode: 'R01',
        settlement: expect.objectContaining({ status: 'returned', returnCode: 'R01' }),
      }),
    ]);
    expect(await audits('order.balance_due', api.id)).toEqual([
      expect.objectContaining({
        from: 'paid',
        to: 'balance_due',
        reason: 'bank_payment_returned',
        code: 'R01',
        journalTransactionId: returned!.reversalJournalTransactionId,
      }),
    ]);
    // The reversal put the amount back in the order's receivable; collecting it in cash clears it.
    expect(await accountOf('customer_receivables', api.id)).toBe(api.totalCents);
    const collected = await call('POST', `/api/pos/orders/${api.id}/payments`, { tenders: [{ method: 'cash', amountCents: api.totalCents }] });
    expect(collected.statusCode, collected.body).toBe(201);
    expect(collected.json()).toMatchObject({ state: 'paid', balanceDueCents: 0 });
    expect(await accountOf('customer_receivables', api.id)).toBe(0);
    // A returned payment is never refunded: a refund draws on the cash that collected the balance.
    const refund = await call('POST', `/api/pos/orders/${api.id}/refunds`, { amountCents: api.totalCents });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json().refund.allocations).toEqual([
      expect.objectContaining({ accountCode: expect.stringMatching(/^cash_drawer:/), amountCents: api.totalCents }),
    ]);
    expect((await call('GET', '/api/pos/ledger/trial-balance')).json().totalCents).toBe(0);
    expect((await verifyAuditChain(server.db, server.credentials.merchantId)).ok).toBe(true);
  });

  it('an ACH payment of an invoice returned at settlement opens the invoice again for its amount', async () => {
    const customer = await call('POST', '/api/pos/customers', { givenName: 'Edsger', phone: '+14155550122' });
    const draft = await call('POST', '/api/pos/invoices', { customerId: customer.json().id, lineItems: [CROISSANTS], dueDate: '2026-06-30' });
    expect(draft.statusCode, draft.body).toBe(201);
    const sent = (await call('POST', `/api/pos/invoices/${draft.json().id}/send`, {})).json();
    // A declined invoice card keeps its routing decision, like an order's.
    const declined = await call('POST', `/api/pos/invoices/${sent.id}/payments`, { amountCents: 100, method: 'card', cardToken: 'tok_declined' });
    expect(declined.statusCode).toBe(402);
    const attempt = (await call('GET', `/api/pos/invoices/${sent.id}`)).json().payments.find((p: Json) => p.state === 'declined');
    expect(attempt).toMatchObject({
      routing: { chosen: 'card_not_present', candidates: [expect.objectContaining({ rail: 'card_not_present', reason: 'chosen' })] },
    });
    const res = await server.app.inject({
      method: 'POST',
      url: `/pay/${sent.payRequestId}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ method: 'bank_transfer', token: 'btok_sbx_110000000_3338' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call('GET', `/api/pos/invoices/${sent.id}`)).json()).toMatchObject({ status: 'paid', paidCents: sent.totalCents });

    await at(new Date(now.getTime() + 72 * HOUR));
    expect((await tick()).settlements.returned).toBe(1);
    expect((await call('GET', `/api/pos/invoices/${sent.id}`)).json()).toMatchObject({
      status: 'sent',
      paidCents: 0,
      balanceDueCents: sent.totalCents,
    });
    expect(await audits('invoice.payment_returned', sent.id)).toEqual([
      expect.objectContaining({ from: 'paid', to: 'sent', amountCents: sent.totalCents, code: 'R01', balanceDueCents: sent.totalCents }),
    ]);
    // It takes a payment again (collected in cash here).
    const again = await call('POST', `/api/pos/invoices/${sent.id}/payments`, {
      amountCents: sent.totalCents,
      method: 'cash',
      registerId: register.registerId,
    });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ status: 'paid', paidCents: sent.totalCents });
  });

  it("the pay page posts the routed rail's fee when the processor reports none", async () => {
    const link = await call('POST', '/api/pos/pay-requests', { amountCents: 10_000, phone: '+14155550123' });
    const pr = link.json();
    const res = await server.app.inject({
      method: 'POST',
      url: `/pay/${pr.id}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ method: 'card', token: 'tok_sbx_visa_4242' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    // Card not present: 2.9 % + 0.30 of 100.00 = 3.20, posted Dr processing_fees, Cr card clearing.
    expect(await accountOf('processing_fees', pr.id)).toBe(320);
    expect(await accountOf('card_clearing:card_not_present', pr.id)).toBe(10_000 - 320);
  });
});
