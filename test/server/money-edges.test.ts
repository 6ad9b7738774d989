/**
 * Sound money rules at the edges, through HTTP on both databases: tips bounded by the store's setting on
 * every path that takes one (API payments, register sales pushed by sync), a zero-total order completed without a
 * payment (API and register push), Apple Pay and Google Pay reported as their own tenders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegisterSale, catalogSnapshot, type Order, type SalePayment } from '../../core/index.ts';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import type { PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Json = Record<string, any>;

const NOW = new Date('2026-04-02T15:00:00.000Z');
const DAY = '2026-04-02';
/** A large latte with oat milk: a small order, like the $4.08 one of the issue. */
const LATTE = { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_small'], quantity: 1 };
const CROISSANT = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 };

describe.each(databaseTargets())('money rules at the edges on $name', (target) => {
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
  const createOrder = async (body: unknown): Promise<Json> => {
    const res = await call('POST', '/api/pos/orders', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const pay = (order: Json, tenders: unknown[]) => call('POST', `/api/pos/orders/${order.id}/payments`, { tenders });
  const count = async (sql: string, params: unknown[] = []) => Number((await server.db.query<{ n: number }>(sql, params)).rows[0]!.n);
  const fieldsOf = (res: { json(): Json }) => (res.json().errors as { path: string }[]).map((e) => e.path);
  const push = (docs: Order[]) =>
    server.app.inject({
      method: 'POST',
      url: '/api/sync/orders/push',
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify(docs.map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
    });
  const registerSale = (payment: SalePayment, extra: { discounts?: Order['discounts']; lines?: unknown[] } = {}) =>
    buildRegisterSale({
      registerId: register.registerId,
      registerNumber: register.registerNumber,
      sequence: ++sequence,
      currency: 'USD',
      createdAt: NOW.toISOString(),
      lines: (extra.lines ?? [LATTE]) as never,
      ...(extra.discounts ? { discounts: extra.discounts } : {}),
      payment,
      catalog: catalogSnapshot(server.catalog.items, server.catalog.taxRates),
    }).order;
  const events = (type: string, orderId: string) =>
    count(`SELECT count(*)::int AS n FROM event_outbox WHERE type = $1 AND payload->'data'->'object'->>'id' = $2`, [type, orderId]);
  const ledgerSound = async () => {
    const tb = (await call('GET', '/api/pos/ledger/trial-balance')).json();
    expect(tb.totalCents).toBe(0);
    expect(await verifyAuditChain(server.db, server.credentials.merchantId)).toMatchObject({ ok: true });
  };

  describe('tips are bounded by the store setting', () => {
    it('settings show the documented default (50 % of the total or 100.00) and refuse bad bounds naming the field', async () => {
      const res = await call('GET', '/api/pos/settings');
      expect(res.json()).toMatchObject({ tipLimitBasisPoints: 5000, tipLimitCents: 10000 });
      for (const [body, field] of [
        [{ tipLimitBasisPoints: -1 }, 'tipLimitBasisPoints'],
        [{ tipLimitBasisPoints: 100_001 }, 'tipLimitBasisPoints'],
        [{ tipLimitBasisPoints: 12.5 }, 'tipLimitBasisPoints'],
        [{ tipLimitBasisPoints: null }, 'tipLimitBasisPoints'],
        [{ tipLimitCents: -5 }, 'tipLimitCents'],
        [{ tipLimitCents: 100_000_000 }, 'tipLimitCents'],
        [{ tipLimitCents: '100' }, 'tipLimitCents'],
      ] as [unknown, string][]) {
        const bad = await call('PATCH', '/api/pos/settings', body);
        expect(bad.statusCode, JSON.stringify(body)).toBe(400);
        expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(fieldsOf(bad)).toContain(field);
      }
      expect((await call('GET', '/api/pos/settings')).json()).toMatchObject({ tipLimitBasisPoints: 5000, tipLimitCents: 10000 });
    });

    it('an API payment with a $999,995.91 tip on a small order is a 400 naming the tip; nothing is recorded', async () => {
      const order = await createOrder({ lineItems: [LATTE] });
      expect(order.totalCents).toBeLessThan(1000);
      const before = await count('SELECT count(*)::int AS n FROM order_payments WHERE order_id = $1', [order.id]);
      // As in the issue: the largest amount one tender may carry (99 999 999), nearly all of it tip.
      const huge = await pay(order, [{ method: 'cash', amountCents: 99_999_999, tipCents: 99_999_999 - order.totalCents }]);
      expect(huge.statusCode, huge.body).toBe(400);
      expect(huge.json()).toMatchObject({ code: 'tip_out_of_range' });
      expect(fieldsOf(huge)).toEqual(['tenders.0.tipCents']);
      // Just above the bound (max(50 % of the total, 100.00) = 100.00 here), split over two tenders: still refused.
      const split = await pay(order, [
        { method: 'cash', amountCents: 1 + 5000, tipCents: 5000 },
        { method: 'cash', amountCents: order.totalCents - 1 + 5001, tipCents: 5001 },
      ]);
      expect(split.statusCode, split.body).toBe(400);
      expect(fieldsOf(split)).toEqual(['tenders.1.tipCents']);
      expect(await count('SELECT count(*)::int AS n FROM order_payments WHERE order_id = $1', [order.id])).toBe(before);
      expect((await call('GET', `/api/pos/orders/${order.id}`)).json()).toMatchObject({ state: 'open', tipCents: 0 });
      // At the bound: taken.
      const ok = await pay(order, [{ method: 'cash', amountCents: order.totalCents + 10_000, tipCents: 10_000 }]);
      expect(ok.statusCode, ok.body).toBe(201);
      expect(ok.json()).toMatchObject({ state: 'paid', tipCents: 10_000 });
      await ledgerSound();
    });

    it('a store that changes its bound gets it on the next payment (percentage of a larger order)', async () => {
      const patched = await call('PATCH', '/api/pos/settings', { tipLimitBasisPoints: 2000, tipLimitCents: 0 });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json()).toMatchObject({ tipLimitBasisPoints: 2000, tipLimitCents: 0 });
      const order = await createOrder({ lineItems: [LATTE, CROISSANT] });
      const max = Math.round((order.totalCents * 2000) / 10_000);
      const over = await pay(order, [{ method: 'card', cardToken: 'tok_visa', amountCents: order.totalCents + max + 1, tipCents: max + 1 }]);
      expect(over.statusCode, over.body).toBe(400);
      expect(fieldsOf(over)).toEqual(['tenders.0.tipCents']);
      // Refused before the card rail: no declined or captured payment left behind.
      expect(await count('SELECT count(*)::int AS n FROM order_payments WHERE order_id = $1', [order.id])).toBe(0);
      const ok = await pay(order, [{ method: 'card', cardToken: 'tok_visa', amountCents: order.totalCents + max, tipCents: max }]);
      expect(ok.statusCode, ok.body).toBe(201);
      const audit = await count(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'settings.updated' AND data ? 'tipLimitBasisPoints' AND data ? 'tipLimitCents'`,
      );
      expect(audit).toBe(1);
      expect((await call('PATCH', '/api/pos/settings', { tipLimitBasisPoints: 5000, tipLimitCents: 10000 })).statusCode).toBe(200);
    });

    it('a register sale with an out-of-bound tip is quarantined with its reason; one within the bound is stored', async () => {
      const huge = registerSale({ method: 'card', tipCents: 50_000_000, cardBrand: 'visa', last4: '4242' });
      const fine = registerSale({ method: 'card', tipCents: 10_000, cardBrand: 'visa', last4: '4242' });
      const res = await push([huge, fine]);
      expect(res.statusCode, res.body).toBe(200);
      const conflicts = res.json<(Json & { id: string })[]>();
      expect(conflicts.map((d) => d.id)).toEqual([huge.id]);
      expect(conflicts[0]!.rejection.reason).toMatch(/^tip out of bounds: tip 50000000 exceeds the store's bound of 10000/);
      expect(await count('SELECT count(*)::int AS n FROM quarantine WHERE doc_id = $1', [huge.id])).toBe(1);
      expect(await count('SELECT count(*)::int AS n FROM orders WHERE id = ANY($1::text[])', [[huge.id, fine.id]])).toBe(1);
      expect(await count('SELECT count(*)::int AS n FROM journal_transactions WHERE source_id = $1', [huge.id])).toBe(0);
      expect(await events('order.paid', huge.id)).toBe(0);
      await ledgerSound();
    });
  });

  describe('a zero-total order completes without a payment', () => {
    it('an API order discounted to 0 is paid with no tender: paid, order.paid emitted, the discount posted, the ledger balanced', async () => {
      const order = await createOrder({
        lineItems: [LATTE, CROISSANT],
        discounts: [{ name: 'On the house', kind: 'percentage', basisPoints: 10_000 }],
      });
      expect(order).toMatchObject({ state: 'open', totalCents: 0, balanceDueCents: 0 });
      // A 0 tender stays a 400 (amounts are 1 …); no tender is how nothing due is paid.
      const zero = await pay(order, [{ method: 'cash', amountCents: 0 }]);
      expect(zero.statusCode).toBe(400);
      const res = await pay(order, []);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ state: 'paid', totalCents: 0, paidCents: 0, tenders: [] });
      expect(await events('order.paid', order.id)).toBe(1);
      const postings = (
        await server.db.query<{ account_code: string; amount_cents: string }>(
          `SELECT a.code AS account_code, p.amount_cents FROM postings p JOIN accounts a ON a.id = p.account_id JOIN journal_transactions j ON j.id = p.journal_transaction_id
            WHERE j.source_id = $1 AND j.kind = 'sale'`,
          [order.id],
        )
      ).rows;
      expect(postings.find((p) => p.account_code === 'discounts')).toBeDefined();
      expect(Number(postings.find((p) => p.account_code === 'discounts')!.amount_cents)).toBe(order.discountCents);
      expect(postings.reduce((a, p) => a + Number(p.amount_cents), 0)).toBe(0);
      // Paid: a second completion is the 409 of any paid order.
      const again = await pay(order, []);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ currentState: 'paid' });
      await ledgerSound();
    });

    it('no tender while something is due is a 400 naming tenders', async () => {
      const order = await createOrder({ lineItems: [LATTE] });
      const res = await pay(order, []);
      expect(res.statusCode, res.body).toBe(400);
      expect(fieldsOf(res)).toEqual(['tenders']);
      expect((await call('GET', `/api/pos/orders/${order.id}`)).json()).toMatchObject({ state: 'open' });
    });

    it('a register sale discounted to 0 with no tender is stored paid, its discount posted, order.paid emitted', async () => {
      const sale = registerSale(
        { method: 'none' },
        { lines: [LATTE, CROISSANT], discounts: [{ id: 'dsc_01J00000000000000000000000', name: 'Comp', kind: 'percentage', basisPoints: 10_000 }] },
      );
      expect(sale).toMatchObject({ totalCents: 0, paidCents: 0, tenders: [], state: 'paid' });
      const res = await push([sale]);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual([]);
      expect(await count('SELECT count(*)::int AS n FROM orders WHERE id = $1', [sale.id])).toBe(1);
      expect(await events('order.paid', sale.id)).toBe(1);
      expect(
        await count(
          `SELECT count(*)::int AS n FROM postings p JOIN accounts a ON a.id = p.account_id JOIN journal_transactions j ON j.id = p.journal_transaction_id WHERE j.source_id = $1 AND a.code = 'discounts'`,
          [sale.id],
        ),
      ).toBe(1);
      await ledgerSound();
    });
  });

  describe('wallet tenders are reported as themselves', () => {
    it('orders paid by Apple Pay and Google Pay through their pay links show as Apple Pay and Google Pay, never card', async () => {
      const before = (await call('GET', `/api/pos/reports/sales?from=${DAY}&groupBy=tender`)).json();
      const cardBefore = before.rows.find((r: Json) => r.key === 'card')?.count ?? 0;
      for (const method of ['apple_pay', 'google_pay']) {
        const order = await createOrder({ lineItems: [LATTE] });
        const link = await call('POST', '/api/pos/pay-requests', { orderId: order.id, phone: '+14155550188' });
        expect(link.statusCode, link.body).toBe(201);
        const paid = await server.app.inject({
          method: 'POST',
          url: `/pay/${link.json().id}`,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ method, token: 'tok_sbx_visa_4242' }),
        });
        expect(paid.statusCode, paid.body).toBe(200);
        const view = (await call('GET', `/api/pos/orders/${order.id}`)).json();
        expect(view).toMatchObject({ state: 'paid', tenders: [{ method }] });
        expect(view.payments.map((p: Json) => p.method)).toEqual([method]);
      }
      const report = await call('GET', `/api/pos/reports/sales?from=${DAY}&groupBy=tender`);
      expect(report.statusCode, report.body).toBe(200);
      const rows = report.json().rows as Json[];
      expect(rows.find((r) => r.key === 'apple_pay')).toMatchObject({ label: 'Apple Pay', count: 1 });
      expect(rows.find((r) => r.key === 'google_pay')).toMatchObject({ label: 'Google Pay', count: 1 });
      expect(rows.find((r) => r.key === 'card')?.count ?? 0).toBe(cardBefore);
      const csv = await call('GET', `/api/pos/reports/sales?from=${DAY}&groupBy=tender&format=csv`);
      expect(csv.body).toContain('Apple Pay');
      expect(csv.body).toContain('Google Pay');
    });
  });
});

describe.each(databaseTargets())('internationalised e-mail and safe names on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => NOW });
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
  const fieldsOf = (res: { json(): Json }) => (res.json().errors as { path: string }[]).map((e) => e.path);

  it('accepts RFC 6531 addresses on customers and receipts, sends to them through the e-mail outbox, and still refuses malformed ones', async () => {
    const created = await call('POST', '/api/pos/customers', { givenName: 'José', email: 'josé@exämple.de' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ email: 'josé@exämple.de' });
    const patched = await call('PATCH', `/api/pos/customers/${created.json().id}`, { email: '用户@例子.广告' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ email: '用户@例子.广告' });

    const order = (await call('POST', '/api/pos/orders', { lineItems: [CROISSANT], customerId: created.json().id })).json();
    expect(
      (await call('POST', `/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: order.totalCents }] })).statusCode,
    ).toBe(201);
    const toCustomer = await call('POST', `/api/pos/orders/${order.id}/receipts`, { channel: 'email' });
    expect(toCustomer.statusCode, toCustomer.body).toBe(202);
    const toOther = await call('POST', `/api/pos/orders/${order.id}/receipts`, { channel: 'email', to: 'Δοκιμή@παράδειγμα.δοκιμή' });
    expect(toOther.statusCode, toOther.body).toBe(202);
    const outbox = (await call('GET', '/api/pos/email-outbox?limit=2')).json();
    expect(outbox.data.map((m: Json) => m.to)).toEqual(['Δοκιμή@παράδειγμα.δοκιμή', '用户@例子.广告']);
    // An invoice to the customer goes out by e-mail to the same address.
    const invoice = await call('POST', '/api/pos/invoices', { customerId: created.json().id, lineItems: [CROISSANT], dueDate: '2026-04-30' });
    expect(invoice.statusCode, invoice.body).toBe(201);
    const sent = await call('POST', `/api/pos/invoices/${invoice.json().id}/send`, { channels: ['email'] });
    expect(sent.statusCode, sent.body).toBe(200);
    expect((await call('GET', '/api/pos/email-outbox?limit=1')).json().data.map((m: Json) => m.to)).toEqual(['用户@例子.广告']);

    for (const email of [
      'a@b',
      'a..b@example.com',
      'josé@exämple',
      'ana@exam ple.com',
      'ana@@example.com',
      '"ana"@example.com',
      'ana@[192.0.2.1]',
      'an\u202ea@example.com',
      'an\ud800a@example.com',
      `${'é'.repeat(33)}@example.com`,
    ]) {
      const res = await call('POST', '/api/pos/customers', { givenName: 'Bad', email });
      expect(res.statusCode, email).toBe(400);
      expect(fieldsOf(res), email).toEqual(['email']);
      const receipt = await call('POST', `/api/pos/orders/${order.id}/receipts`, { channel: 'email', to: email });
      expect(receipt.statusCode, email).toBe(400);
      expect(fieldsOf(receipt), email).toEqual(['to']);
    }
  });

  it('names refuse bidirectional controls and lone surrogates everywhere they are typed: customers, items, CSV imports', async () => {
    const rlo = 'Ev\u202Eil';
    const lone = 'Lone \ud83d';
    for (const [url, body, field] of [
      ['/api/pos/customers', { givenName: rlo }, 'givenName'],
      ['/api/pos/customers', { familyName: lone }, 'familyName'],
      [
        '/api/pos/catalog/items',
        { name: rlo, category: 'Bakery', kind: 'product', variations: [{ name: 'Regular', priceCents: 100, trackStock: false }] },
        'name',
      ],
      [
        '/api/pos/catalog/items',
        { name: 'Fine', category: lone, kind: 'product', variations: [{ name: 'Regular', priceCents: 100, trackStock: false }] },
        'category',
      ],
      [
        '/api/pos/catalog/items',
        { name: 'Fine', category: 'Bakery', kind: 'product', variations: [{ name: rlo, priceCents: 100, trackStock: false }] },
        'variations.0.name',
      ],
    ] as [string, unknown, string][]) {
      const res = await call('POST', url, body);
      expect(res.statusCode, `${url} ${field}`).toBe(400);
      expect(fieldsOf(res)).toContain(field);
    }
    const csv = [
      'Handle,Title,Type,Option1 Name,Option1 Value,Variant Price',
      `evil,${rlo},Bakery,Title,Default Title,1.00`,
      `fine,Fine bun,Bakery,Size,S\u2067mall,1.00`,
      'good,Good bun,Bakery,Title,Default Title,1.00',
    ].join('\n');
    const res = await call('POST', '/api/pos/catalog/import', { csv });
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json();
    expect(report.rejected.map((r: Json) => [r.handle, r.reason])).toEqual([
      ['evil', expect.stringContaining('Title must not contain bidirectional control characters')],
      ['fine', expect.stringContaining('option values must not contain bidirectional control characters')],
    ]);
    const names = (await call('GET', '/api/pos/catalog?limit=200')).json();
    expect(JSON.stringify(names)).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
  });
});
