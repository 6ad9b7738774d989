import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payRequestRecordSchema } from '../../core/index.ts';
import { PAY_PAGE_CSP } from '../../sync-server/src/modules/pay-links/pay-page.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const START = new Date('2026-04-01T12:00:00.000Z');

/** Text-to-Pay after creation: list, cancel, expiry, and paying on the hosted page's sandbox rails. */
describe.each(databaseTargets())('pay request life cycle on $name', (target) => {
  let server: TestServer;
  let now = START;

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now, webhooks: { enabled: false } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const auth = (token = server.credentials.appToken) => ({ authorization: `Bearer ${token}` });
  async function create(body: unknown = { amountCents: 1250, phone: '+14155550123', memo: 'Table 4' }) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/pos/pay-requests',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }
  const get = async (id: string) => (await server.app.inject({ method: 'GET', url: `/api/pos/pay-requests/${id}`, headers: auth() })).json();
  const cancel = (id: string, body: unknown = {}) =>
    server.app.inject({
      method: 'POST',
      url: `/api/pos/pay-requests/${id}/cancel`,
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const pay = (id: string, body: unknown, key?: string) =>
    server.app.inject({
      method: 'POST',
      url: `/pay/${id}`,
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      payload: JSON.stringify(body),
    });
  const journalOf = async (sourceId: string) =>
    (
      await server.app.inject({
        method: 'GET',
        url: `/api/pos/ledger/journal-transactions?sourceId=${sourceId}`,
        headers: auth(server.credentials.staffToken),
      })
    ).json().data as { id: string; kind: string; postings: { accountCode: string; amountCents: number }[] }[];
  const n = async (sql: string, params: unknown[] = []) => Number((await server.db.query<{ n: number }>(sql, params)).rows[0]!.n);
  const counts = async () => ({
    journal: await n('SELECT count(*)::int AS n FROM journal_transactions'),
    audit: await n('SELECT count(*)::int AS n FROM audit_log'),
    paid: await n(`SELECT count(*)::int AS n FROM pay_requests WHERE status = 'paid'`),
  });

  it('pays a free-amount request by card: paid, a balanced sale in the ledger, only brand and last four kept', async () => {
    const pr = await create();
    const res = await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242' }, 'attempt-1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: pr.id,
      status: 'paid',
      amountCents: 1250,
      currency: 'USD',
      paidAt: START.toISOString(),
      payment: { method: 'card', brand: 'visa', last4: '4242' },
    });
    const record = payRequestRecordSchema.parse(await get(pr.id));
    expect(record).toMatchObject({
      status: 'paid',
      paidAt: START.toISOString(),
      payment: { method: 'card', rail: 'card_not_present', brand: 'visa', last4: '4242', processorReference: expect.stringMatching(/^sbx_/) },
    });
    const [jt] = await journalOf(pr.id);
    expect(jt).toMatchObject({ id: record.payment!.journalTransactionId, kind: 'sale' });
    expect(jt!.postings).toEqual([
      { accountCode: 'card_clearing:card_not_present', amountCents: 1250 },
      { accountCode: 'sales_revenue', amountCents: -1250 },
    ]);
    // Replaying the attempt answers the same; a new attempt finds it paid (409) and charges nothing.
    const before = await counts();
    const replay = await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242' }, 'attempt-1');
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const second = await pay(pr.id, { method: 'card', token: 'tok_sbx_mastercard_4444' }, 'attempt-2');
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'illegal_state_transition', currentState: 'paid', entity: 'pay_request' });
    expect(await counts()).toEqual(before);
    const page = await server.app.inject({ method: 'GET', url: `/pay/${pr.id}` });
    expect(page.body).toContain('data-status="paid"');
    expect(page.body).toContain('visa •••• 4242');
    expect(page.body).not.toContain('id="pay"');
  });

  it('a request carrying lineItems is a sale of those lines (revenue and tax) when paid with Google Pay', async () => {
    const pr = await create({
      phone: '+14155550123',
      lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }],
    });
    // 2 × 375 = 750, tax 8.75 % = 65.625 → 66.
    expect(pr.amountCents).toBe(816);
    const res = await pay(pr.id, { method: 'google_pay', token: 'tok_sbx_visa_4242' });
    expect(res.statusCode, res.body).toBe(200);
    const [jt] = await journalOf(pr.id);
    expect(jt!.postings).toEqual([
      { accountCode: 'card_clearing:google_pay', amountCents: 816 },
      { accountCode: 'sales_revenue', amountCents: -750 },
      { accountCode: 'sales_tax_payable', amountCents: -66 },
    ]);
  });

  it('bank transfer on the sandbox ACH rail; a closed account is declined: nothing charged, the attempt audited', async () => {
    const pr = await create();
    const before = await counts();
    const declined = await pay(pr.id, { method: 'bank_transfer', token: 'btok_sbx_110000000_1116' });
    expect(declined.statusCode).toBe(402);
    expect(declined.json()).toMatchObject({ code: 'account_closed', errors: [{ path: 'token' }] });
    expect(await counts()).toEqual({ ...before, audit: before.audit + 1 });
    const audited = await server.db.query<{ actor: string; data: Record<string, unknown> }>(
      `SELECT actor, data FROM audit_log WHERE action = 'pay_request.payment_declined' AND entity_id = $1`,
      [pr.id],
    );
    expect(audited.rows).toEqual([
      {
        actor: `pay_page:${pr.id}`,
        data: expect.objectContaining({ method: 'bank_transfer', declineCode: 'account_closed', amountCents: pr.amountCents }),
      },
    ]);
    const ok = await pay(pr.id, { method: 'bank_transfer', token: 'btok_sbx_110000000_6789' });
    expect(ok.json()).toMatchObject({ status: 'paid', payment: { method: 'bank_transfer', brand: null, last4: '6789' } });
    expect((await journalOf(pr.id))[0]!.postings[0]).toEqual({ accountCode: 'card_clearing:ach', amountCents: 1250 });
  });

  it('a link for an open order charges its balance due and, paid, pays the order in the ledger; refused when not open', async () => {
    const staff = { ...auth(server.credentials.staffToken), 'content-type': 'application/json' };
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/pos/orders',
      headers: staff,
      payload: JSON.stringify({
        lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 2 }],
      }),
    });
    expect(created.statusCode, created.body).toBe(201);
    const order = created.json() as { id: string; totalCents: number; balanceDueCents: number; state: string };
    expect(order.state).toBe('open');

    // The amount comes from the order, never from the caller.
    const both = await server.app.inject({
      method: 'POST',
      url: '/api/pos/pay-requests',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: JSON.stringify({ orderId: order.id, amountCents: 1, phone: '+14155550123' }),
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'orderId' })]));
    const unknown = await server.app.inject({
      method: 'POST',
      url: '/api/pos/pay-requests',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: JSON.stringify({ orderId: 'ord_01J00000000000000000000000', phone: '+14155550123' }),
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].path).toBe('orderId');

    const pr = await create({ orderId: order.id, phone: '+14155550123' });
    expect(pr).toMatchObject({ orderId: order.id, amountCents: order.balanceDueCents, status: 'pending' });
    const res = await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await get(pr.id)).toMatchObject({ status: 'paid', orderId: order.id });

    const paidOrder = (
      await server.app.inject({ method: 'GET', url: `/api/pos/orders/${order.id}`, headers: auth(server.credentials.staffToken) })
    ).json();
    expect(paidOrder).toMatchObject({ state: 'paid', balanceDueCents: 0 });
    expect(paidOrder.payments).toEqual([expect.objectContaining({ amountCents: order.totalCents, reference: pr.id, last4: '4242' })]);
    for (const jt of await journalOf(order.id)) expect(jt.postings.reduce((a, p) => a + p.amountCents, 0)).toBe(0);
    const trial = (
      await server.app.inject({ method: 'GET', url: '/api/pos/ledger/trial-balance', headers: auth(server.credentials.staffToken) })
    ).json();
    expect(trial.totalCents).toBe(0);

    // Paid now: a second link for it is a 409 naming the order's state.
    const again = await server.app.inject({
      method: 'POST',
      url: '/api/pos/pay-requests',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: JSON.stringify({ orderId: order.id, phone: '+14155550123' }),
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ currentState: 'paid', entity: 'order' });
  });

  it("takes an order's stale pay links out of the customer's hands: one pending link per order, canceled when the balance changes or the order is canceled", async () => {
    const staff = { ...auth(server.credentials.staffToken), 'content-type': 'application/json' };
    const newOrder = async () => {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/pos/orders',
        headers: staff,
        payload: JSON.stringify({ lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 3 }] }),
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; totalCents: number };
    };
    const order = await newOrder();
    const first = await create({ orderId: order.id, phone: '+14155550123' });
    const second = await create({ orderId: order.id, phone: '+14155550123' });
    // The newer link replaces the older one, which now leads to it.
    expect(await get(first.id)).toMatchObject({ status: 'canceled', supersededBy: second.id });
    expect(await get(second.id)).toMatchObject({ status: 'pending', amountCents: order.totalCents });

    // Part of the order is paid in cash at the counter: the link for the old balance is canceled, and a customer who
    // opens it now gets a 409 before any card is charged.
    const cash = await server.app.inject({
      method: 'POST',
      url: `/api/pos/orders/${order.id}/payments`,
      headers: staff,
      payload: JSON.stringify({ tenders: [{ method: 'cash', amountCents: 100 }] }),
    });
    expect(cash.statusCode, cash.body).toBe(201);
    expect(await get(second.id)).toMatchObject({ status: 'canceled' });
    const before = await counts();
    const stale = await pay(second.id, { method: 'card', token: 'tok_sbx_visa_4242' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ entity: 'pay_request', currentState: 'canceled' });
    expect(await counts()).toEqual(before);

    // A fresh link is for the balance left, and paying it pays the order.
    const rest = await create({ orderId: order.id, phone: '+14155550123' });
    expect(rest.amountCents).toBe(order.totalCents - 100);
    expect((await pay(rest.id, { method: 'card', token: 'tok_sbx_visa_4242' })).statusCode).toBe(200);
    expect(await get(rest.id)).toMatchObject({ status: 'paid' });
    const paid = (await server.app.inject({ method: 'GET', url: `/api/pos/orders/${order.id}`, headers: staff })).json();
    expect(paid).toMatchObject({ state: 'paid', balanceDueCents: 0 });

    // Canceling an order cancels its pending link, audited.
    const other = await newOrder();
    const link = await create({ orderId: other.id, phone: '+14155550123' });
    const canceled = await server.app.inject({
      method: 'POST',
      url: `/api/pos/orders/${other.id}/cancel`,
      headers: staff,
      payload: JSON.stringify({}),
    });
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(await get(link.id)).toMatchObject({ status: 'canceled' });
    const audit = await server.db.query<{ data: { reason: string } }>(
      `SELECT data FROM audit_log WHERE action = 'pay_request.canceled' AND entity_id = $1`,
      [link.id],
    );
    expect(audit.rows.map((r) => r.data.reason)).toEqual(['order_canceled']);
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
  });

  it('stops card testing: after 10 attempts on a link within the hour, 429 with Retry-After before any card is tried', async () => {
    const pr = await create({ amountCents: 999, phone: '+14155550123' });
    // A malformed request is refused without counting.
    expect((await pay(pr.id, { method: 'card' })).statusCode).toBe(400);
    for (let i = 0; i < 10; i++) expect((await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_0002' })).statusCode, `attempt ${i + 1}`).toBe(402);
    const before = await counts();
    const blocked = await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242' });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(blocked.json()).toMatchObject({ status: 429, code: 'quota_exceeded' });
    expect(blocked.json().detail).toMatch(/Too many payment attempts on this link; try again in \d+ minutes?/);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.headers['ratelimit-policy']).toBe('"pay_link";q=10;w=3600');
    expect(await counts()).toEqual(before);
    expect((await get(pr.id)).status).toBe('pending');
    // Other links are not affected.
    const other = await create({ amountCents: 998, phone: '+14155550123' });
    expect((await pay(other.id, { method: 'card', token: 'tok_sbx_visa_4242' })).statusCode).toBe(200);
  });

  it('declined test cards answer 402 with the reason and charge nothing; each attempt is audited', async () => {
    const pr = await create();
    for (const [token, code] of [
      ['tok_sbx_visa_0002', 'card_declined'],
      ['tok_sbx_visa_9995', 'insufficient_funds'],
      ['tok_sbx_visa_0069', 'expired_card'],
    ]) {
      const before = await counts();
      const res = await pay(pr.id, { method: 'card', token });
      expect(res.statusCode).toBe(402);
      expect(res.json()).toMatchObject({ code, errors: [{ path: 'token', message: `declined: ${code}` }] });
      expect(await counts()).toEqual({ ...before, audit: before.audit + 1 });
    }
    expect((await get(pr.id)).status).toBe('pending');
    const codes = await server.db.query<{ code: string }>(
      `SELECT data->>'declineCode' AS code FROM audit_log WHERE action = 'pay_request.payment_declined' AND entity_id = $1 ORDER BY seq`,
      [pr.id],
    );
    expect(codes.rows.map((r) => r.code)).toEqual(['card_declined', 'insufficient_funds', 'expired_card']);
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
  });

  it('the pay endpoint validates input and never accepts a card number', async () => {
    const pr = await create();
    const before = await counts();
    for (const [body, field] of [
      [{ method: 'card', token: '4242424242424242' }, 'token'],
      [{ method: 'card', token: 'tok_sbx_visa_4242', number: '4242424242424242' }, 'number'],
      [{ method: 'cash', token: 'tok_sbx_visa_4242' }, 'method'],
      [{ method: 'bank_transfer', token: 'tok_sbx_visa_4242' }, 'token'],
      [{ method: 'card', token: 'btok_sbx_110000000_6789' }, 'token'],
      [{ token: 'tok_sbx_visa_4242' }, 'method'],
    ] as const) {
      const res = await pay(pr.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(field);
    }
    expect((await pay('pr_01J00000000000000000000000', { method: 'card', token: 'tok_sbx_visa_4242' })).statusCode).toBe(404);
    expect((await pay('nope', { method: 'card', token: 'tok_sbx_visa_4242' })).statusCode).toBe(400);
    expect(await counts()).toEqual(before);
    const stored = await server.db.query<{ t: string }>(`SELECT string_agg(coalesce(payment::text, ''), ' ') AS t FROM pay_requests`);
    expect(stored.rows[0]!.t ?? '').not.toContain('4242424242424242');
  });

  it('cancel: pending → canceled; then 409 naming canceled for cancel and pay; the page says canceled', async () => {
    const pr = await create();
    const res = await cancel(pr.id, { reason: 'customer paid cash' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'canceled', canceledAt: START.toISOString() });
    const again = await cancel(pr.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ currentState: 'canceled' });
    expect((await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242' })).json()).toMatchObject({ currentState: 'canceled' });
    const page = await server.app.inject({ method: 'GET', url: `/pay/${pr.id}` });
    expect(page.body).toContain('data-status="canceled"');
    expect((await cancel(pr.id, { reason: '' })).statusCode).toBe(400);
    expect((await cancel(pr.id, { foo: 1 })).statusCode).toBe(400);
  });

  it('expires after 7 days on the injected clock: read as expired, stored by the job, refused for pay and cancel', async () => {
    const pr = await create();
    now = new Date(START.getTime() + 7 * 24 * 3600 * 1000 - 1000);
    expect((await get(pr.id)).status).toBe('pending');
    now = new Date(START.getTime() + 7 * 24 * 3600 * 1000);
    try {
      expect((await get(pr.id)).status).toBe('expired');
      const listed = await server.app.inject({ method: 'GET', url: '/api/pos/pay-requests?status=expired&limit=200', headers: auth() });
      expect(listed.json().data.map((r: { id: string }) => r.id)).toContain(pr.id);
      expect((await cancel(pr.id)).json()).toMatchObject({ currentState: 'expired' });
      expect((await pay(pr.id, { method: 'card', token: 'tok_sbx_visa_4242' })).json()).toMatchObject({ currentState: 'expired' });
      const page = await server.app.inject({ method: 'GET', url: `/pay/${pr.id}` });
      expect(page.body).toContain('data-status="expired"');
      const report = await server.app.recurringInvoices.runOnce();
      expect(report.expiredPayRequests).toBeGreaterThanOrEqual(1);
      expect((await server.db.query<{ status: string }>('SELECT status FROM pay_requests WHERE id = $1', [pr.id])).rows[0]!.status).toBe('expired');
      expect(await n(`SELECT count(*)::int AS n FROM audit_log WHERE entity_id = $1 AND action = 'pay_request.expired'`, [pr.id])).toBe(1);
    } finally {
      now = START;
    }
  });

  it('lists newest first with a cursor and filters by status', async () => {
    for (let i = 0; i < 3; i++) await create({ amountCents: 100 + i, phone: '+14155550123' });
    const first = await server.app.inject({ method: 'GET', url: '/api/pos/pay-requests?limit=2', headers: auth() });
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1.data.map((r: { amountCents: number }) => r.amountCents)).toEqual([102, 101]);
    const page2 = (
      await server.app.inject({ method: 'GET', url: `/api/pos/pay-requests?limit=2&cursor=${page1.nextCursor}`, headers: auth() })
    ).json();
    expect(page2.data[0].amountCents).toBe(100);
    const paid = (await server.app.inject({ method: 'GET', url: '/api/pos/pay-requests?status=paid&limit=200', headers: auth() })).json().data;
    expect(paid.length).toBeGreaterThanOrEqual(3);
    expect(paid.every((r: { status: string }) => r.status === 'paid')).toBe(true);
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/pay-requests?status=lost', headers: auth() })).statusCode).toBe(400);
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
  });

  it('serves the page under a strict CSP, with no inline script, offering card, Apple Pay, Google Pay and bank transfer', async () => {
    const pr = await create();
    const page = await server.app.inject({ method: 'GET', url: `/pay/${pr.id}` });
    expect(page.headers['content-security-policy']).toBe(PAY_PAGE_CSP);
    expect(PAY_PAGE_CSP).toContain("script-src 'self'");
    expect(PAY_PAGE_CSP).not.toContain('unsafe-inline');
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.body).not.toMatch(/\sstyle=|<style/);
    expect(page.body).not.toMatch(/https?:\/\/(?!localhost)/);
    for (const label of ['Card', 'Apple Pay', 'Google Pay', 'Bank transfer', '$12.50', 'Table 4']) expect(page.body).toContain(label);
    // Card inputs have no name: a form submission can never carry the number.
    expect(page.body).toMatch(/<input id="card-number"(?![^>]*\bname=)/);
    const script = await server.app.inject({ method: 'GET', url: '/pay-assets/pay.js' });
    expect(script.headers['content-type']).toContain('javascript');
    expect(script.body).toContain('tok_sbx_');
  });
});
