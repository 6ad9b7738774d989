import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegisterSale, type JournalTransaction } from '../../core/index.ts';
import { cartArb } from '../core/arbitraries.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister } from '../support/enroll.ts';

const DAY_MS = 86_400_000;
/** Sales are spread over ten days from here. */
const FIRST_DAY = Date.parse('2024-03-01T00:00:00Z');
const TIME_ZONES = ['UTC', 'America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'Pacific/Auckland'] as const;

type Json = Record<string, any>;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe.each(databaseTargets())('reports on $name', (target) => {
  let server: TestServer;
  let now = new Date(FIRST_DAY + 2 * DAY_MS + 15 * 3600_000);
  let staffToken = '';
  const auth = () => ({ authorization: `Bearer ${staffToken}` });
  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers: { ...auth(), ...headers } });
  const post = async (url: string, payload: unknown, status = 201) => {
    const res = await server.app.inject({ method: 'POST', url, payload: payload as object, headers: auth() });
    expect(res.statusCode, res.body).toBe(status);
    return res.json() as Json;
  };
  let ledger: (JournalTransaction & { syncSeq: number })[] = [];
  /** The invoice voided after it was issued. */
  let voided: Json = {};

  beforeAll(async () => {
    server = await startTestServer({ target, clock: () => now, staticDir: null });
    // The clock walks through March 2024: one token for the whole walk.
    staffToken = await server.issueStaffToken({ ttlSeconds: 366 * 24 * 3600, now: new Date(FIRST_DAY - DAY_MS) });
    const register = await enrollRegister(server, staffToken);

    // Many random register sales over ten days: random catalogs, carts, discounts, tips, cash or card.
    const carts = fc.sample(cartArb, { numRuns: 240, seed: 20240301 });
    const times = fc.sample(fc.integer({ min: 0, max: 10 * DAY_MS - 1 }), { numRuns: carts.length, seed: 7 });
    const rows = carts.map((cart, i) => {
      const base = {
        registerId: register.registerId,
        registerNumber: register.registerNumber,
        sequence: i + 1,
        currency: 'USD',
        createdAt: new Date(FIRST_DAY + times[i]!).toISOString(),
        lines: cart.lines,
        discounts: cart.discounts,
        catalog: cart.catalog.snapshot,
        ...(i % 3 === 0 ? { staffId: server.credentials.staffId } : {}),
      };
      const card = buildRegisterSale({ ...base, payment: { method: 'card', tipCents: cart.tipCents, cardBrand: 'visa', last4: '4242' } });
      const sale =
        cart.method === 'cash'
          ? buildRegisterSale({
              ...base,
              orderId: card.order.id,
              payment: { method: 'cash', tipCents: cart.tipCents, tenderedCents: card.order.totalCents + cart.tipCents + cart.extraCash },
            })
          : card;
      return { newDocumentState: sale.order };
    });
    for (let i = 0; i < rows.length; i += 100) {
      const conflicts = await post('/api/sync/orders/push', rows.slice(i, i + 100), 200);
      expect(conflicts).toEqual([]);
    }

    // API orders over the demo catalog, with the refunds and a cancellation the orders API writes.
    const latte = { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large'], quantity: 2 };
    const croissant = { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 3 };
    const haircut = { catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', quantity: 1 };
    const payCash = async (order: Json, tipCents = 0) =>
      post(`/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: order.totalCents + tipCents, tipCents }] });
    for (let k = 0; k < 6; k++) {
      now = new Date(FIRST_DAY + (k + 1) * DAY_MS + (9 + k) * 3600_000);
      const order = await post('/api/pos/orders', {
        lineItems: [latte, croissant, ...(k % 2 ? [haircut] : [])],
        ...(k === 2 ? { discounts: [{ name: 'Loyalty', kind: 'percentage', basisPoints: 1000 }] } : {}),
      });
      await payCash(order, k * 50);
      now = new Date(now.getTime() + (k % 3) * DAY_MS + 3600_000);
      const paid = (await get(`/api/pos/orders/${order.id}`)).json() as Json;
      if (k % 2 === 0) await post(`/api/pos/orders/${order.id}/refunds`, { lines: [{ lineId: paid.lines[1].id, quantity: 1 }], reason: 'stale' });
      else await post(`/api/pos/orders/${order.id}/refunds`, { amountCents: 250 + k * 100 });
    }
    now = new Date(FIRST_DAY + 4 * DAY_MS + 12 * 3600_000);
    const open = await post('/api/pos/orders', { lineItems: [croissant] });
    await post(`/api/pos/orders/${open.id}/payments`, { tenders: [{ method: 'cash', amountCents: 100 }] });
    await post(`/api/pos/orders/${open.id}/cancel`, { reason: 'customer left' }, 200);

    // Invoices: issued (a sale on account), paid in part at the register and in full on the pay page, one voided days
    // after it was issued, one left a draft (not a sale). Evening times, so time zones move them across days.
    const customer = await post('/api/pos/customers', {
      givenName: 'Grace',
      familyName: 'Hopper',
      phone: '+14155550188',
      email: 'grace@example.com',
    });
    const payPage = async (payRequestId: string, body: Json) => {
      const res = await server.app.inject({ method: 'POST', url: `/pay/${payRequestId}`, payload: body });
      expect(res.statusCode, res.body).toBe(200);
    };
    for (let k = 0; k < 4; k++) {
      now = new Date(FIRST_DAY + (2 * k + 1) * DAY_MS + (20 + k) * 3600_000);
      const draft = await post('/api/pos/invoices', {
        customerId: customer.id,
        lineItems: [latte, ...(k % 2 ? [haircut] : [])],
        customLines: [{ description: 'Delivery', amountCents: 1500 + k }],
        dueDate: isoDay(now.getTime() + 14 * DAY_MS),
      });
      if (k === 3) continue;
      const sent = await post(`/api/pos/invoices/${draft.id}/send`, {}, 200);
      now = new Date(now.getTime() + DAY_MS);
      if (k === 0) await post(`/api/pos/invoices/${draft.id}/payments`, { amountCents: 1000, method: 'cash', registerId: register.registerId });
      if (k === 1) await payPage(sent.payRequestId, { method: 'card', token: 'tok_sbx_visa_4242' });
      if (k === 2) {
        now = new Date(now.getTime() + 2 * DAY_MS);
        voided = await post(`/api/pos/invoices/${draft.id}/void`, { reason: 'duplicate' }, 200);
      }
    }
    // Pay links: a free amount paid with Apple Pay, catalog lineItems paid by bank transfer, one paying an open order
    // (the order's sale, not the link's), and one never paid.
    now = new Date(FIRST_DAY + 2 * DAY_MS + 23 * 3600_000);
    const free = await post('/api/pos/pay-requests', { amountCents: 2500, phone: '+14155550188', memo: 'Gift card top-up' });
    await payPage(free.id, { method: 'apple_pay', token: 'tok_sbx_visa_4242' });
    now = new Date(FIRST_DAY + 5 * DAY_MS + 2 * 3600_000);
    const items = await post('/api/pos/pay-requests', { lineItems: [latte, haircut], phone: '+14155550188' });
    await payPage(items.id, { method: 'bank_transfer', token: 'btok_sbx_110000000_6789' });
    const forOrder = await post('/api/pos/orders', { lineItems: [croissant] });
    const orderLink = await post('/api/pos/pay-requests', { orderId: forOrder.id, phone: '+14155550188' });
    await payPage(orderLink.id, { method: 'google_pay', token: 'tok_sbx_mastercard_4444' });
    await post('/api/pos/pay-requests', { amountCents: 999, phone: '+14155550188' });

    // The ledger as the API shows it, to reconcile against.
    let cursor: string | null = null;
    do {
      const page = (await get(`/api/pos/ledger/journal-transactions?limit=200${cursor ? `&cursor=${cursor}` : ''}`)).json() as {
        data: typeof ledger;
        nextCursor: string | null;
      };
      ledger.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    // 240 register sales, 6 + 1 API orders, 3 invoices issued, 2 pay links.
    expect(ledger.filter((j) => j.kind === 'sale').length).toBe(240 + 7 + 3 + 2);
    expect(new Set(ledger.filter((j) => j.kind === 'sale').map((j) => j.sourceType))).toEqual(new Set(['order', 'invoice', 'pay_request']));
  }, 240_000);

  afterAll(async () => {
    await server?.close();
  });

  /** −Σ postings of the journal transactions (every source) occurring in [start, end) on the given accounts. */
  const ledgerCredit = (start: string, end: string, accounts: (code: string) => boolean) =>
    -ledger
      .filter((j) => j.occurredAt >= start && j.occurredAt < end)
      .flatMap((j) => j.postings)
      .filter((p) => accounts(p.accountCode.split(':')[0]!))
      .reduce((a, p) => a + p.amountCents, 0);
  const SALES_ACCOUNTS = new Set(['sales_revenue', 'service_revenue', 'discounts', 'refunds']);

  it('sales and tax of any period reconcile with the ledger postings of the same period, in any time zone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -1, max: 10 }),
        fc.integer({ min: 0, max: 11 }),
        fc.constantFrom(...TIME_ZONES),
        async (a, span, timeZone) => {
          const from = isoDay(FIRST_DAY + a * DAY_MS);
          const to = isoDay(FIRST_DAY + (a + span) * DAY_MS);
          const sales = (await get(`/api/pos/reports/sales?from=${from}&to=${to}&timeZone=${encodeURIComponent(timeZone)}`)).json() as Json;
          const { start, end } = sales.period;
          expect(sales.period).toMatchObject({ from, to, timeZone });
          expect(sales.totals.netSalesCents).toBe(ledgerCredit(start, end, (c) => SALES_ACCOUNTS.has(c)));
          expect(sales.totals.taxCents).toBe(ledgerCredit(start, end, (c) => c === 'sales_tax_payable'));
          // The report checks itself against the postings the same way, and says it agrees.
          expect(sales.reconciliation).toMatchObject({
            reconciled: true,
            ledgerNetSalesCents: sales.totals.netSalesCents,
            ledgerTaxCents: sales.totals.taxCents,
          });
          expect(sales.totals.orders).toBe(ledger.filter((j) => j.kind === 'sale' && j.occurredAt >= start && j.occurredAt < end).length);
          expect(sales.totals.voids).toBe(
            ledger.filter((j) => j.kind === 'adjustment' && j.sourceType === 'invoice' && j.occurredAt >= start && j.occurredAt < end).length,
          );
          const tax = (await get(`/api/pos/reports/tax?from=${from}&to=${to}&timeZone=${encodeURIComponent(timeZone)}`)).json() as Json;
          expect(tax.totals.netCents).toBe(sales.totals.taxCents);
          expect(tax.totals.collectedCents - tax.totals.refundedCents).toBe(tax.totals.netCents);
        },
      ),
      { numRuns: 25, seed: 42 },
    );
  }, 120_000);

  it('every grouping adds up to the totals; tenders add up to what was kept', async () => {
    const period = 'from=2024-02-28&to=2024-03-12&timeZone=America/New_York';
    let totals: Json | undefined;
    const money = [
      'grossSalesCents',
      'discountCents',
      'refundCents',
      'voidCents',
      'netSalesCents',
      'taxCents',
      'tipCents',
      'totalCents',
      'quantity',
      'refundedQuantity',
    ] as const;
    for (const groupBy of ['day', 'hour', 'item', 'category', 'staff']) {
      const report = (await get(`/api/pos/reports/sales?${period}&groupBy=${groupBy}`)).json() as Json;
      expect(report.groupBy).toBe(groupBy);
      totals ??= report.totals;
      expect(report.totals).toEqual(totals);
      for (const k of money)
        expect(
          report.rows.reduce((s: number, r: Json) => s + r[k], 0),
          `${groupBy} ${k}`,
        ).toBe(report.totals[k]);
      if (!['item', 'category'].includes(groupBy)) {
        expect(report.rows.reduce((s: number, r: Json) => s + r.orders, 0)).toBe(report.totals.orders);
        expect(report.rows.reduce((s: number, r: Json) => s + r.voids, 0)).toBe(report.totals.voids);
      }
      for (const r of report.rows) expect(r.netSalesCents).toBe(r.grossSalesCents - r.discountCents - r.refundCents - r.voidCents);
    }
    expect(totals!.orders).toBe(252);
    expect(totals!.refunds).toBe(6);
    expect(totals!.voids).toBe(1);
    expect(totals!.voidCents).toBe(voided.subtotalCents);
    expect(totals!.refundCents).toBeGreaterThan(0);

    const byHour = (await get(`/api/pos/reports/sales?${period}&groupBy=hour`)).json() as Json;
    expect(byHour.rows.every((r: Json) => /^(0\d|1\d|2[0-3])$/.test(r.key))).toBe(true);
    const byStaff = (await get(`/api/pos/reports/sales?${period}&groupBy=staff`)).json() as Json;
    expect(byStaff.rows.find((r: Json) => r.key === server.credentials.staffId)?.label).toBeTruthy();
    expect(byStaff.rows.find((r: Json) => r.key === 'none')?.label).toBe('No staff member');
    const byCategory = (await get(`/api/pos/reports/sales?${period}&groupBy=category`)).json() as Json;
    expect(byCategory.rows.map((r: Json) => r.key)).toEqual(expect.arrayContaining(['Uncategorized', '(tips)']));
    const byItem = (await get(`/api/pos/reports/sales?${period}&groupBy=item`)).json() as Json;
    expect(byItem.rows.find((r: Json) => r.key === '(custom)')).toMatchObject({ label: 'Custom invoice lines', quantity: 3, voids: 1 });
    expect(byItem.rows.find((r: Json) => r.key === '(pay link)')).toMatchObject({ quantity: 1, grossSalesCents: 2500, taxCents: 0 });

    const byTender = (await get(`/api/pos/reports/sales?${period}&groupBy=tender`)).json() as Json;
    // The Google Pay link paid an order: a Google Pay tender of the order, reported as itself (never as card).
    expect(byTender.rows.map((r: Json) => r.key).sort()).toEqual(['apple_pay', 'bank_transfer', 'card', 'cash', 'google_pay', 'invoice']);
    expect(byTender.rows.find((r: Json) => r.key === 'google_pay')).toMatchObject({ label: 'Google Pay', count: 1 });
    expect(byTender.rows.reduce((s: number, r: Json) => s + r.netCents, 0)).toBe(totals!.totalCents);
    const onAccount = byTender.rows.find((r: Json) => r.key === 'invoice');
    expect(onAccount).toMatchObject({ count: 3, refundCents: voided.totalCents, label: 'On account (invoices)' });
    expect(byTender.rows.find((r: Json) => r.key === 'apple_pay')).toMatchObject({ count: 1, amountCents: 2500 });
    const refunds = (await get(`/api/pos/reports/refunds?${period}`)).json() as Json;
    const givenBack = byTender.rows.filter((r: Json) => r.key !== 'invoice').reduce((s: number, r: Json) => s + r.refundCents, 0);
    expect(givenBack).toBe(refunds.rows.filter((r: Json) => r.kind === 'refund').reduce((s: number, r: Json) => s + r.amountCents, 0));
  });

  it('lists refunds and cancellations, and the refunds match the ledger', async () => {
    const report = (await get('/api/pos/reports/refunds?from=2024-03-01&to=2024-03-31')).json() as Json;
    expect(report.totals).toMatchObject({ refunds: 6, cancellations: 1 });
    expect(report.rows.find((r: Json) => r.kind === 'cancellation')).toMatchObject({ amountCents: 100, reason: 'customer left' });
    expect(report.rows[0].receiptNumber).toMatch(/^R\d+-\d{6}$/);
    const { start, end } = report.period;
    expect(report.totals.refundCents).toBe(-ledgerCredit(start, end, (c) => c === 'refunds'));
    const sales = (await get('/api/pos/reports/sales?from=2024-03-01&to=2024-03-31')).json() as Json;
    expect(sales.totals.refundCents).toBe(report.totals.refundCents);
  });

  it('trial balance over a period: opening + debits − credits = closing, and it balances', async () => {
    const early = (await get('/api/pos/reports/trial-balance?from=2024-03-03&to=2024-03-05&timeZone=Europe/Paris')).json() as Json;
    expect(early.totals.openingCents).toBe(0);
    expect(early.totals.closingCents).toBe(0);
    expect(early.totals.debitCents).toBe(early.totals.creditCents);
    expect(early.totals.debitCents).toBeGreaterThan(0);
    for (const r of early.rows) expect(r.closingCents).toBe(r.openingCents + r.debitCents - r.creditCents);
    // Over everything, the closing balances are the all-time trial balance.
    const all = (await get('/api/pos/reports/trial-balance?from=2024-01-01&to=2024-12-31')).json() as Json;
    const allTime = (await get('/api/pos/ledger/trial-balance')).json() as { accounts: { code: string; balanceCents: number }[] };
    expect(Object.fromEntries(all.rows.map((r: Json) => [r.code, r.closingCents]))).toEqual(
      Object.fromEntries(allTime.accounts.map((a) => [a.code, a.balanceCents])),
    );
    expect(all.rows.every((r: Json) => r.openingCents === 0)).toBe(true);
  });

  it('answers CSV for ?format=csv and Accept: text/csv, with the totals in a last row', async () => {
    const json = (await get('/api/pos/reports/sales?from=2024-03-01&to=2024-03-10&groupBy=day')).json() as Json;
    const res = await get('/api/pos/reports/sales?from=2024-03-01&to=2024-03-10&groupBy=day&format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="sales-by-day-2024-03-01-2024-03-10.csv"');
    expect(res.body).toContain('\r\n');
    const rows = parse(res.body, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(json.rows.length + 1);
    expect(rows[0]!.day).toBe(json.rows[0].key);
    expect(rows.at(-1)).toMatchObject({ day: 'total', netSalesCents: String(json.totals.netSalesCents), taxCents: String(json.totals.taxCents) });

    for (const report of ['tax', 'refunds', 'trial-balance', 'sales?groupBy=tender']) {
      const url = `/api/pos/reports/${report}${report.includes('?') ? '&' : '?'}from=2024-03-01&to=2024-03-31`;
      const csv = await get(url, { accept: 'text/csv' });
      expect(csv.statusCode, report).toBe(200);
      expect(csv.headers['content-type'], report).toBe('text/csv; charset=utf-8');
      expect((parse(csv.body, { columns: true }) as unknown[]).length, report).toBeGreaterThan(0);
      // format=json wins over Accept.
      expect((await get(`${url}&format=json`, { accept: 'text/csv' })).headers['content-type']).toMatch(/^application\/json/);
    }
    const tax = parse((await get('/api/pos/reports/tax?from=2024-03-01&to=2024-03-31&format=csv')).body, { columns: true }) as Record<
      string,
      string
    >[];
    const taxJson = (await get('/api/pos/reports/tax?from=2024-03-01&to=2024-03-31')).json() as Json;
    expect(tax.at(-1)).toMatchObject({ taxRateId: 'total', taxCents: String(taxJson.totals.netCents) });
    expect(tax.at(-2)).toMatchObject({ taxRateId: 'refunded', taxCents: String(-taxJson.totals.refundedCents) });
  });

  it('counts days in the time zone asked for', async () => {
    // The sales of 2024-03-05 in New York are those between 05:00Z on the 5th and 05:00Z on the 6th.
    const ny = (await get('/api/pos/reports/sales?from=2024-03-05&timeZone=America/New_York')).json() as Json;
    expect(ny.period).toEqual({
      from: '2024-03-05',
      to: '2024-03-05',
      timeZone: 'America/New_York',
      start: '2024-03-05T05:00:00.000Z',
      end: '2024-03-06T05:00:00.000Z',
    });
    const inside = ledger.filter((j) => j.kind === 'sale' && j.occurredAt >= '2024-03-05T05:00:00.000Z' && j.occurredAt < '2024-03-06T05:00:00.000Z');
    expect(ny.totals.orders).toBe(inside.length);
    // Daylight saving starts on 2024-03-10 in New York: that day has 23 hours.
    const dst = (await get('/api/pos/reports/sales?from=2024-03-10&timeZone=America/New_York')).json() as Json;
    expect(Date.parse(dst.period.end) - Date.parse(dst.period.start)).toBe(23 * 3600_000);
    // Without timeZone: the merchant's (UTC by default).
    const utc = (await get('/api/pos/reports/sales?from=2024-03-05')).json() as Json;
    expect(utc.period).toMatchObject({ timeZone: 'UTC', start: '2024-03-05T00:00:00.000Z', end: '2024-03-06T00:00:00.000Z' });
    const byDay = (await get('/api/pos/reports/sales?from=2024-03-01&to=2024-03-10&timeZone=America/New_York&groupBy=day')).json() as Json;
    expect(byDay.rows.find((r: Json) => r.key === '2024-03-05')?.orders).toBe(inside.length);
  });

  it('refuses bad periods and callers with problems, naming the field', async () => {
    const cases: [string, string][] = [
      ['/api/pos/reports/sales', 'from'],
      ['/api/pos/reports/sales?from=2024-02-30', 'from'],
      ['/api/pos/reports/sales?from=2024-03-05&to=2024-03-04', 'to'],
      ['/api/pos/reports/sales?from=2024-01-01&to=2025-01-01', 'to'],
      ['/api/pos/reports/sales?from=2024-03-01&timeZone=Mars/Olympus', 'timeZone'],
      ['/api/pos/reports/sales?from=2024-03-01&groupBy=week', 'groupBy'],
      ['/api/pos/reports/tax?from=2024-03-01&format=xml', 'format'],
      ['/api/pos/reports/refunds?from=2024-03-01&sort=desc', 'sort'],
      ['/api/pos/reports/trial-balance?from=03/01/2024', 'from'],
    ];
    for (const [url, field] of cases) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(
        (res.json() as Json).errors.map((e: Json) => e.path),
        url,
      ).toContain(field);
    }
    const app = await server.app.inject({
      method: 'GET',
      url: '/api/pos/reports/sales?from=2024-03-01',
      headers: { authorization: `Bearer ${server.credentials.appToken}` },
    });
    expect(app.statusCode).toBe(403);
    expect((app.json() as Json).code).toBe('staff_only');
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/reports/tax?from=2024-03-01' })).statusCode).toBe(401);
  });

  it('an empty period is all zeros, not an error', async () => {
    const empty = (await get('/api/pos/reports/sales?from=2023-01-01&to=2023-01-31&groupBy=item')).json() as Json;
    expect(empty.rows).toEqual([]);
    expect(Object.values(empty.totals).every((v) => v === 0)).toBe(true);
    const csv = await get('/api/pos/reports/sales?from=2023-01-01&format=csv');
    expect(parse(csv.body, { columns: true })).toEqual([expect.objectContaining({ day: 'total', orders: '0' })]);
  });
});
