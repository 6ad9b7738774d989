import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceSchema, payRequestRecordSchema } from '../../core/index.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister } from '../support/enroll.ts';

const START = new Date('2026-03-02T10:00:00.000Z');

describe.each(databaseTargets())('invoices on $name', (target) => {
  let server: TestServer;
  let now = START;
  let customerId: string;
  let emailOnlyCustomerId: string;

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now, webhooks: { enabled: false } });
    const made = await call('POST', '/api/pos/customers', {
      givenName: 'Ada',
      familyName: 'Lovelace',
      email: 'ada@example.com',
      phone: '+14155550123',
    });
    expect(made.statusCode).toBe(201);
    customerId = made.json().id;
    const emailOnly = await call('POST', '/api/pos/customers', { givenName: 'Bob', email: 'bob@example.com' });
    emailOnlyCustomerId = emailOnly.json().id;
  });
  afterAll(async () => {
    await server?.close();
  });

  let staffToken = '';
  function call(
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
    token = staffToken || server.credentials.staffToken,
  ) {
    return server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
  }

  const n = async (sql: string, params: unknown[] = []) => Number((await server.db.query<{ n: number }>(sql, params)).rows[0]!.n);
  const counts = async () => ({
    invoices: await n('SELECT count(*)::int AS n FROM invoices'),
    payments: await n('SELECT count(*)::int AS n FROM invoice_payments'),
    journal: await n('SELECT count(*)::int AS n FROM journal_transactions'),
    payRequests: await n('SELECT count(*)::int AS n FROM pay_requests'),
    audit: await n('SELECT count(*)::int AS n FROM audit_log'),
    sms: await n('SELECT count(*)::int AS n FROM sms_outbox'),
    email: await n('SELECT count(*)::int AS n FROM email_outbox'),
  });
  const journalOf = async (sourceId: string) =>
    (await call('GET', `/api/pos/ledger/journal-transactions?sourceId=${sourceId}`)).json().data as {
      id: string;
      kind: string;
      postings: { accountCode: string; amountCents: number }[];
    }[];
  const receivables = async () =>
    (await call('GET', '/api/pos/ledger/trial-balance')).json().accounts.find((a: { code: string }) => a.code === 'customer_receivables')
      ?.balanceCents ?? 0;

  const latte = { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large'], quantity: 2 };
  const draftBody = () => ({
    customerId,
    lineItems: [latte],
    customLines: [{ description: 'Catering setup', amountCents: 5000 }],
    dueDate: '2026-03-16',
    memo: 'March event',
  });

  async function draft(body: unknown = draftBody()) {
    const res = await call('POST', '/api/pos/invoices', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }
  async function sentInvoice(body: unknown = draftBody()) {
    const d = await draft(body);
    const res = await call('POST', `/api/pos/invoices/${d.id}/send`, {});
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  it('drafts an invoice priced on the server, with nothing in the ledger', async () => {
    const before = await counts();
    const inv = await draft();
    expect(invoiceSchema.parse(inv)).toEqual(inv);
    // 2 × (450 + 100) = 1100 latte, taxed 8.75 % = 96.25 → 96 (half-even); custom line 5000 untaxed.
    expect(inv).toMatchObject({
      status: 'draft',
      number: expect.stringMatching(/^INV-\d{6}$/),
      subtotalCents: 6100,
      taxCents: 96,
      totalCents: 6196,
      paidCents: 0,
      balanceDueCents: 6196,
      dueDate: '2026-03-16',
      memo: 'March event',
      payUrl: null,
      sentAt: null,
    });
    expect(inv.billTo).toEqual({ customerId, name: 'Ada Lovelace', email: 'ada@example.com', phone: '+14155550123' });
    expect(inv.lines.map((l: { type: string; description: string }) => [l.type, l.description])).toEqual([
      ['catalog', expect.stringContaining('Latte')],
      ['custom', 'Catering setup'],
    ]);
    expect(await counts()).toEqual({ ...before, invoices: before.invoices + 1, audit: before.audit + 1 });
    const fetched = await call('GET', `/api/pos/invoices/${inv.id}`);
    expect(fetched.json()).toEqual({ ...inv, payments: [], refunds: [] });
  });

  it('edits a draft (lines re-priced), and refuses to edit a sent invoice with 409', async () => {
    const inv = await draft();
    const patched = await call('PATCH', `/api/pos/invoices/${inv.id}`, {
      customLines: [{ description: 'Flowers', amountCents: 1999, quantity: 2 }],
      memo: null,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ subtotalCents: 1100 + 3998, totalCents: 1100 + 96 + 3998, memo: null });
    await call('POST', `/api/pos/invoices/${inv.id}/send`, {});
    const refused = await call('PATCH', `/api/pos/invoices/${inv.id}`, { memo: 'late' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'illegal_state_transition', entity: 'invoice', entityId: inv.id, currentState: 'sent' });
  });

  const bad: [string, () => unknown, string][] = [
    ['unknown customer', () => ({ ...draftBody(), customerId: 'cus_01J00000000000000000000000' }), 'customerId'],
    ['a price on a catalog line', () => ({ ...draftBody(), lineItems: [{ ...latte, priceCents: 1 }] }), 'lineItems.0.priceCents'],
    ['no lines', () => ({ customerId, dueDate: '2026-03-16' }), 'lineItems'],
    ['bad due date', () => ({ ...draftBody(), dueDate: '16/03/2026' }), 'dueDate'],
    ['custom amount 0', () => ({ ...draftBody(), customLines: [{ description: 'x', amountCents: 0 }] }), 'customLines.0.amountCents'],
    [
      'custom line unknown tax rate',
      () => ({ ...draftBody(), customLines: [{ description: 'x', amountCents: 10, taxRateIds: ['tax_nope'] }] }),
      'customLines.0.taxRateIds.0',
    ],
    ['unknown catalog variation', () => ({ ...draftBody(), lineItems: [{ ...latte, variationId: 'var_nope' }] }), 'lineItems.0.variationId'],
    ['unknown field', () => ({ ...draftBody(), discount: 5 }), 'discount'],
    ['memo over 500', () => ({ ...draftBody(), memo: 'x'.repeat(501) }), 'memo'],
  ];
  it.each(bad)('400 for %s, naming the field, nothing written', async (_label, body, field) => {
    const before = await counts();
    const res = await call('POST', '/api/pos/invoices', body());
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(field);
    expect(res.json().detail).toContain(field);
    expect(await counts()).toEqual(before);
  });

  it('sending issues it: SMS and e-mail carry the pay link; receivables and revenue posted, balanced', async () => {
    const receivablesBefore = await receivables();
    const before = await counts();
    const inv = await sentInvoice();
    expect(inv).toMatchObject({
      status: 'sent',
      sentAt: START.toISOString(),
      payRequestId: expect.stringMatching(/^pr_/),
      payUrl: `${server.baseUrl}/pay/${inv.payRequestId}`,
    });
    const after = await counts();
    expect(after).toMatchObject({ sms: before.sms + 1, email: before.email + 1, journal: before.journal + 1, payRequests: before.payRequests + 1 });
    const sms = (
      await server.db.query<{ body: string; to_phone: string }>('SELECT body, to_phone FROM sms_outbox ORDER BY created_at DESC, id DESC LIMIT 1')
    ).rows[0]!;
    expect(sms.to_phone).toBe('+14155550123');
    expect(sms.body).toContain(inv.payUrl);
    expect(sms.body).toContain(inv.number);
    const mail = (
      await server.db.query<{ body: string; subject: string; to_address: string }>(
        'SELECT body, subject, to_address FROM email_outbox ORDER BY created_at DESC, id DESC LIMIT 1',
      )
    ).rows[0]!;
    expect(mail).toMatchObject({ to_address: 'ada@example.com', subject: expect.stringContaining(inv.number) });
    expect(mail.body).toContain(inv.payUrl);
    expect(mail.body).toContain('$61.96');

    const [issue] = await journalOf(inv.id);
    expect(issue!.id).toBe(inv.issueJournalTransactionId);
    expect(issue!.postings).toEqual(
      expect.arrayContaining([
        { accountCode: 'customer_receivables', amountCents: 6196 },
        { accountCode: 'sales_revenue', amountCents: -1100 },
        { accountCode: 'service_revenue', amountCents: -5000 },
        { accountCode: 'sales_tax_payable', amountCents: -96 },
      ]),
    );
    expect(issue!.postings.reduce((a, p) => a + p.amountCents, 0)).toBe(0);
    expect(await receivables()).toBe(receivablesBefore + 6196);
    const link = await call('GET', `/api/pos/pay-requests/${inv.payRequestId}`);
    expect(payRequestRecordSchema.parse(link.json())).toMatchObject({
      status: 'pending',
      amountCents: 6196,
      invoiceId: inv.id,
      phone: '+14155550123',
    });
  });

  it('e-mail only customers get the invoice by e-mail; asking for SMS is a 400 naming channels.0', async () => {
    const d = await draft({ ...draftBody(), customerId: emailOnlyCustomerId });
    const before = await counts();
    const refused = await call('POST', `/api/pos/invoices/${d.id}/send`, { channels: ['sms'] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].path).toBe('channels.0');
    expect(await counts()).toEqual(before);
    const ok = await call('POST', `/api/pos/invoices/${d.id}/send`, {});
    expect(ok.statusCode).toBe(200);
    expect(await counts()).toMatchObject({ email: before.email + 1, sms: before.sms });
    const link = (await call('GET', `/api/pos/pay-requests/${ok.json().payRequestId}`)).json();
    expect(link.phone).toBeNull();
  });

  it('partial payment at the register, then the rest through the pay page: sent → partially_paid → paid', async () => {
    const { registerId, registerNumber } = await enrollRegister(server, server.credentials.staffToken);
    const inv = await sentInvoice();
    const firstLink = inv.payRequestId;

    const partial = await call(
      'POST',
      `/api/pos/invoices/${inv.id}/payments`,
      { amountCents: 2000, method: 'cash', registerId },
      { 'idempotency-key': `cash-${inv.id}` },
    );
    expect(partial.statusCode, partial.body).toBe(201);
    const after1 = partial.json();
    expect(after1).toMatchObject({ status: 'partially_paid', paidCents: 2000, balanceDueCents: 4196 });
    expect(after1.payments).toHaveLength(1);
    expect(after1.payments[0]).toMatchObject({ method: 'cash', accountCode: `cash_drawer:R${registerNumber}`, channel: 'api', amountCents: 2000 });
    // A replay of the same key records nothing new.
    const replay = await call(
      'POST',
      `/api/pos/invoices/${inv.id}/payments`,
      { amountCents: 2000, method: 'cash', registerId },
      { 'idempotency-key': `cash-${inv.id}` },
    );
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await call('GET', `/api/pos/invoices/${inv.id}`)).json().payments).toHaveLength(1);

    // The old link is replaced by one for the new balance; the old URL leads on to it.
    expect(after1.payRequestId).not.toBe(firstLink);
    const old = (await call('GET', `/api/pos/pay-requests/${firstLink}`)).json();
    expect(old).toMatchObject({ status: 'canceled', supersededBy: after1.payRequestId });
    const redirect = await server.app.inject({ method: 'GET', url: `/pay/${firstLink}` });
    expect(redirect.statusCode).toBe(303);
    expect(redirect.headers.location).toBe(`/pay/${after1.payRequestId}`);
    expect((await call('GET', `/api/pos/pay-requests/${after1.payRequestId}`)).json().amountCents).toBe(4196);

    const page = await server.app.inject({ method: 'GET', url: `/pay/${after1.payRequestId}` });
    expect(page.body).toContain(inv.number);
    expect(page.body).toContain('$41.96');

    const paid = await server.app.inject({
      method: 'POST',
      url: `/pay/${after1.payRequestId}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ method: 'card', token: 'tok_sbx_visa_4242' }),
    });
    expect(paid.statusCode, paid.body).toBe(200);
    const final = (await call('GET', `/api/pos/invoices/${inv.id}`)).json();
    expect(final).toMatchObject({
      status: 'paid',
      paidCents: 6196,
      balanceDueCents: 0,
      paidAt: START.toISOString(),
      payRequestId: null,
      payUrl: null,
    });
    expect(final.payments[1]).toMatchObject({
      method: 'card',
      rail: 'card_not_present',
      channel: 'pay_page',
      cardBrand: 'visa',
      last4: '4242',
      payRequestId: after1.payRequestId,
      amountCents: 4196,
    });

    const journal = await journalOf(inv.id);
    expect(journal.map((j) => j.kind)).toEqual(['sale', 'payment', 'payment']);
    expect(journal[1]!.postings).toEqual([
      { accountCode: `cash_drawer:R${registerNumber}`, amountCents: 2000 },
      { accountCode: 'customer_receivables', amountCents: -2000 },
    ]);
    expect(journal[2]!.postings).toEqual([
      { accountCode: 'card_clearing:card_not_present', amountCents: 4196 },
      { accountCode: 'customer_receivables', amountCents: -4196 },
    ]);
    // The invoice's receivable is settled: its postings to receivables net to zero.
    expect(
      journal
        .flatMap((j) => j.postings)
        .filter((p) => p.accountCode === 'customer_receivables')
        .reduce((a, p) => a + p.amountCents, 0),
    ).toBe(0);
    expect((await call('GET', '/api/pos/ledger/trial-balance')).json().totalCents).toBe(0);
  });

  it('illegal moves answer 409 naming the current state; overpayment is a 400; nothing written', async () => {
    const d = await draft();
    const before = await counts();
    const payDraft = await call('POST', `/api/pos/invoices/${d.id}/payments`, { amountCents: 100, method: 'other' });
    expect(payDraft.statusCode).toBe(409);
    expect(payDraft.json()).toMatchObject({ code: 'illegal_state_transition', entity: 'invoice', entityId: d.id, currentState: 'draft' });

    await call('POST', `/api/pos/invoices/${d.id}/send`, {});
    const before2 = await counts();
    const over = await call('POST', `/api/pos/invoices/${d.id}/payments`, { amountCents: 6197, method: 'check', checkNumber: '1001' });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'overpayment', errors: [{ path: 'amountCents' }] });
    expect(await counts()).toEqual(before2);

    const full = await call('POST', `/api/pos/invoices/${d.id}/payments`, { amountCents: 6196, method: 'check', checkNumber: '1001' });
    expect(full.json()).toMatchObject({ status: 'paid' });
    for (const [path, body] of [
      ['void', {}],
      ['send', {}],
      ['payments', { amountCents: 1, method: 'other' }],
    ] as const) {
      const res = await call('POST', `/api/pos/invoices/${d.id}/${path}`, body);
      expect(res.statusCode, path).toBe(409);
      expect(res.json()).toMatchObject({ currentState: 'paid' });
    }
    expect(before.invoices).toBeGreaterThan(0);
  });

  it('a declined card charges nothing: the attempt is kept as a declined payment with its audit row (402 naming cardToken)', async () => {
    const inv = await sentInvoice();
    const before = await counts();
    const res = await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 500, method: 'card', cardToken: 'tok_declined' });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ code: 'card_declined', errors: [{ path: 'cardToken' }], paymentId: expect.stringMatching(/^ipm_/) });
    expect(await counts()).toEqual({ ...before, payments: before.payments + 1, audit: before.audit + 1 });
    const audited = await server.db.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM audit_log WHERE action = 'invoice.payment_declined' AND entity_id = $1`,
      [inv.id],
    );
    expect(audited.rows).toEqual([
      { data: expect.objectContaining({ method: 'card', amountCents: 500, declineCode: 'card_declined', cardToken: 'tok_declined' }) },
    ]);
    const ok = await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 500, method: 'card', cardToken: 'tok_mastercard' });
    expect(ok.json().payments[0]).toMatchObject({
      id: res.json().paymentId,
      state: 'declined',
      declineCode: 'card_declined',
      amountCents: 500,
      journalTransactionId: null,
    });
    expect(ok.json().payments[1]).toMatchObject({
      state: 'captured',
      cardBrand: 'mastercard',
      last4: '4444',
      accountCode: 'card_clearing:card_not_present',
    });
    expect(ok.json()).toMatchObject({ paidCents: 500 });
  });

  it('payment input is validated field by field', async () => {
    const inv = await sentInvoice();
    const cases: [unknown, string][] = [
      [{ amountCents: 100, method: 'cash' }, 'registerId'],
      [{ amountCents: 100, method: 'card' }, 'cardToken'],
      [{ amountCents: 100, method: 'card', cardToken: '4242424242424242' }, 'cardToken'],
      [{ amountCents: 0, method: 'other' }, 'amountCents'],
      [{ amountCents: 100, method: 'barter' }, 'method'],
      [{ amountCents: 100, method: 'cash', registerId: 'reg_nope' }, 'registerId'],
    ];
    for (const [body, field] of cases) {
      const before = await counts();
      const res = await call('POST', `/api/pos/invoices/${inv.id}/payments`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(field);
      expect(await counts()).toEqual(before);
    }
  });

  it('becomes overdue after its due date (injected clock); the tick stores it; an overdue invoice can still be paid', async () => {
    const inv = await sentInvoice({ ...draftBody(), dueDate: '2026-03-05' });
    now = new Date('2026-03-06T08:00:00.000Z');
    staffToken = await server.issueStaffToken({ now });
    try {
      expect((await call('GET', `/api/pos/invoices/${inv.id}`)).json().status).toBe('overdue');
      const listed = (await call('GET', '/api/pos/invoices?status=overdue&limit=200')).json().data.map((i: { id: string }) => i.id);
      expect(listed).toContain(inv.id);
      expect((await call('GET', '/api/pos/invoices?status=sent&limit=200')).json().data.map((i: { id: string }) => i.id)).not.toContain(inv.id);
      const report = await server.app.recurringInvoices.runOnce();
      expect(report.overdueInvoices).toBeGreaterThanOrEqual(1);
      expect((await server.db.query<{ status: string }>('SELECT status FROM invoices WHERE id = $1', [inv.id])).rows[0]!.status).toBe('overdue');
      const audit = await n(`SELECT count(*)::int AS n FROM audit_log WHERE entity_id = $1 AND action = 'invoice.overdue'`, [inv.id]);
      expect(audit).toBe(1);
      const part = await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 196, method: 'other', reference: 'voucher' });
      expect(part.json()).toMatchObject({ status: 'overdue', balanceDueCents: 6000 });
      const rest = await call('POST', `/api/pos/invoices/${inv.id}/payments`, { amountCents: 6000, method: 'bank_transfer', reference: 'wire 77' });
      expect(rest.json()).toMatchObject({ status: 'paid', balanceDueCents: 0 });
      expect(rest.json().payments[1]).toMatchObject({ accountCode: 'bank', rail: 'bank_transfer' });
    } finally {
      now = START;
      staffToken = '';
    }
  });

  it('voids a sent invoice: the issue is reversed, its pay link canceled; a partially paid one cannot be voided', async () => {
    const receivablesBefore = await receivables();
    const inv = await sentInvoice();
    const voided = await call('POST', `/api/pos/invoices/${inv.id}/void`, { reason: 'duplicate' });
    expect(voided.statusCode, voided.body).toBe(200);
    expect(voided.json()).toMatchObject({ status: 'void', voidReason: 'duplicate', balanceDueCents: 0, payUrl: null });
    const journal = await journalOf(inv.id);
    expect(journal.map((j) => j.kind)).toEqual(['sale', 'adjustment']);
    expect(journal[1]!.postings).toEqual(journal[0]!.postings.map((p) => ({ accountCode: p.accountCode, amountCents: -p.amountCents })));
    expect(await receivables()).toBe(receivablesBefore);
    expect((await call('GET', `/api/pos/pay-requests/${inv.payRequestId}`)).json().status).toBe('canceled');
    const page = await server.app.inject({ method: 'GET', url: `/pay/${inv.payRequestId}` });
    expect(page.body).toContain('data-status="canceled"');

    const again = await call('POST', `/api/pos/invoices/${inv.id}/void`, {});
    expect(again.json()).toMatchObject({ currentState: 'void' });

    const draftOnly = await draft();
    expect((await call('POST', `/api/pos/invoices/${draftOnly.id}/void`, {})).json()).toMatchObject({
      status: 'void',
      issueJournalTransactionId: null,
    });
    expect(await journalOf(draftOnly.id)).toEqual([]);

    const part = await sentInvoice();
    await call('POST', `/api/pos/invoices/${part.id}/payments`, { amountCents: 100, method: 'other' });
    const refused = await call('POST', `/api/pos/invoices/${part.id}/void`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ currentState: 'partially_paid' });
  });

  it('moves stock: an issued invoice takes its catalog goods off stock once, a void puts them back; a paid line-item link sells them', async () => {
    const croissants = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 3 };
    const onHand = async () => (await call('GET', '/api/pos/catalog/inventory?variationId=var_croissant_regular')).json().data[0].onHand as number;
    const movementsOf = async (sourceId: string) =>
      (await call('GET', `/api/pos/catalog/inventory/movements?sourceId=${sourceId}`))
        .json()
        .data.map((m: { kind: string; quantity: number }) => [m.kind, m.quantity]);
    const start = await onHand();

    const d = await draft({
      customerId,
      lineItems: [croissants],
      customLines: [{ description: 'Delivery', amountCents: 500 }],
      dueDate: '2099-03-16',
    });
    expect(await onHand()).toBe(start); // a draft sells nothing
    expect((await call('POST', `/api/pos/invoices/${d.id}/send`, {})).statusCode).toBe(200);
    expect(await onHand()).toBe(start - 3);
    expect(await movementsOf(d.id)).toEqual([['sale', -3]]);
    // A reminder is not a second sale.
    expect((await call('POST', `/api/pos/invoices/${d.id}/send`, {})).statusCode).toBe(200);
    expect(await onHand()).toBe(start - 3);
    const registerPull = (await call('GET', '/api/pos/catalog/items/itm_croissant')).json();
    expect(registerPull.variations[0].stockOnHand).toBe(start - 3);

    expect((await call('POST', `/api/pos/invoices/${d.id}/void`, {})).statusCode).toBe(200);
    expect(await onHand()).toBe(start);
    expect((await movementsOf(d.id)).sort()).toEqual([
      ['return', 3],
      ['sale', -3],
    ]);

    // A pay link carrying the goods sells them when it is paid, not before.
    const link = await call('POST', '/api/pos/pay-requests', { lineItems: [croissants], phone: '+14155550123' });
    expect(link.statusCode, link.body).toBe(201);
    expect(await onHand()).toBe(start);
    const paid = await server.app.inject({
      method: 'POST',
      url: `/pay/${link.json().id}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ method: 'google_pay', token: 'tok_sbx_visa_4242' }),
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(await onHand()).toBe(start - 3);
    expect(await movementsOf(link.json().id)).toEqual([['sale', -3]]);
  });

  it('prints a PDF containing the invoice number and total', async () => {
    const inv = await sentInvoice();
    const res = await call('GET', `/api/pos/invoices/${inv.id}/pdf`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const pdf = await getDocumentProxy(new Uint8Array(res.rawPayload));
    const { text } = await extractText(pdf, { mergePages: true });
    expect(text).toContain(inv.number);
    expect(text).toContain('$61.96');
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('Catering setup');
    expect((await call('GET', '/api/pos/invoices/inv_01J00000000000000000000000/pdf')).statusCode).toBe(404);
  });

  it('lists with cursor pagination and filters; apps are refused (staff only)', async () => {
    const first = await call('GET', '/api/pos/invoices?limit=2');
    expect(first.statusCode, first.body).toBe(200);
    const page1 = first.json();
    expect(page1.data).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = (await call('GET', `/api/pos/invoices?limit=2&cursor=${page1.nextCursor}`)).json();
    expect(page2.data[0].id).not.toBe(page1.data[1].id);
    expect(new Date(page2.data[0].createdAt) <= new Date(page1.data[1].createdAt)).toBe(true);
    const drafts = (await call('GET', '/api/pos/invoices?status=draft&limit=200')).json().data;
    expect(drafts.every((i: { status: string }) => i.status === 'draft')).toBe(true);
    expect((await call('GET', '/api/pos/invoices?bogus=1')).statusCode).toBe(400);
    expect((await call('GET', '/api/pos/invoices?cursor=nope')).statusCode).toBe(400);
    const app = await call('GET', '/api/pos/invoices', undefined, {}, server.credentials.appToken);
    expect(app.statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/invoices' })).statusCode).toBe(401);
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
  });
});
