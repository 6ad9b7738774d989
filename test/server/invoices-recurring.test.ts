import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceSeriesSchema } from '../../core/index.ts';
import { buildApp } from '../../sync-server/src/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Recurring invoices (RRULE) on an injected clock: the scheduler generates one invoice per occurrence, catches up
 * after downtime, and never duplicates one — across restarts and two instances ticking at once — because the
 * database holds a unique key per (series, occurrence date).
 */
describe.each(databaseTargets())('recurring invoices on $name', (target) => {
  let server: TestServer;
  let app: FastifyInstance;
  const apps: FastifyInstance[] = [];
  let now = new Date('2026-02-20T09:00:00.000Z');
  let customerId: string;

  async function restart(): Promise<FastifyInstance> {
    await app.close();
    app = await buildApp({
      db: server.db,
      config: { baseUrl: 'http://localhost', staticDir: null },
      clock: () => now,
      webhooks: { enabled: false },
      recurringInvoices: { intervalMs: 3_600_000 },
    });
    apps.push(app);
    await app.ready();
    const report = await app.recurringInvoices.runOnce(); // waits for the tick started by onReady, then ticks once more
    expect(report.errors).toEqual([]);
    return app;
  }

  async function call(method: 'GET' | 'POST', url: string, payload?: unknown) {
    const token = await server.issueStaffToken({ now });
    return app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
  }

  const invoicesOf = async (seriesId: string) =>
    (
      await server.db.query<{ occurrence_date: string; status: string; due_date: string }>(
        'SELECT occurrence_date, status, due_date FROM invoices WHERE series_id = $1 ORDER BY occurrence_date',
        [seriesId],
      )
    ).rows;

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now, webhooks: { enabled: false } });
    app = server.app;
    const c = await call('POST', '/api/pos/customers', {
      givenName: 'Grace',
      familyName: 'Hopper',
      phone: '+14155550199',
      email: 'grace@example.com',
    });
    customerId = c.json().id;
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await server?.close();
  });

  const seriesBody = (over: Record<string, unknown> = {}) => ({
    customerId,
    customLines: [{ description: 'Monthly retainer', amountCents: 12000 }],
    lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 }],
    rrule: 'FREQ=MONTHLY;BYMONTHDAY=1;COUNT=3',
    startDate: '2026-03-01',
    daysUntilDue: 14,
    ...over,
  });

  it('generates on schedule, catches up after downtime, never duplicates across restarts, then ends', async () => {
    const created = await call('POST', '/api/pos/invoice-series', seriesBody());
    expect(created.statusCode, created.body).toBe(201);
    const series = invoiceSeriesSchema.parse(created.json());
    expect(series).toMatchObject({ status: 'active', nextOccurrenceDate: '2026-03-01', invoiceCount: 0, autoSend: true });

    await app.recurringInvoices.runOnce();
    expect(await invoicesOf(series.id)).toEqual([]);

    now = new Date('2026-03-01T06:00:00.000Z');
    await restart();
    expect(await invoicesOf(series.id)).toEqual([{ occurrence_date: '2026-03-01', status: 'sent', due_date: '2026-03-15' }]);
    await restart();
    await app.recurringInvoices.runOnce();
    expect(await invoicesOf(series.id)).toHaveLength(1);

    // Down for two months: both missed occurrences are generated once, and the rule (COUNT=3) is then exhausted.
    now = new Date('2026-05-20T06:00:00.000Z');
    await restart();
    await restart();
    const rows = await invoicesOf(series.id);
    expect(rows.map((r) => r.occurrence_date)).toEqual(['2026-03-01', '2026-04-01', '2026-05-01']);
    expect(rows.every((r) => r.status !== 'draft')).toBe(true);
    const after = (await call('GET', `/api/pos/invoice-series/${series.id}`)).json();
    expect(after).toMatchObject({ status: 'ended', invoiceCount: 3, lastOccurrenceDate: '2026-05-01', nextOccurrenceDate: null });
    const listed = (await call('GET', `/api/pos/invoices?seriesId=${series.id}`)).json().data;
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatchObject({ seriesId: series.id, totalCents: 12000 + 375 + 33, payUrl: expect.stringContaining('/pay/pr_') });
    // Each one was texted and e-mailed once.
    const sms = await server.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sms_outbox WHERE body LIKE '%Grace%' OR to_phone = '+14155550199'`,
    );
    expect(Number(sms.rows[0]!.n)).toBe(3);
  });

  it('the database refuses a second invoice for the same (series, occurrence date)', async () => {
    const series = (await call('POST', '/api/pos/invoice-series', seriesBody({ startDate: '2026-06-01', rrule: 'FREQ=WEEKLY;COUNT=2' }))).json();
    now = new Date('2026-06-01T12:00:00.000Z');
    // Two instances ticking at the same moment.
    const other = await buildApp({
      db: server.db,
      config: { baseUrl: 'http://localhost', staticDir: null },
      clock: () => now,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
    });
    apps.push(other);
    await other.ready();
    await Promise.all([app.recurringInvoices.runOnce(), other.recurringInvoices.runOnce()]);
    expect((await invoicesOf(series.id)).map((r) => r.occurrence_date)).toEqual(['2026-06-01']);
    await expect(
      server.db.query(
        `INSERT INTO invoices (id, merchant_id, number_seq, status, customer_id, bill_to, currency, lines, tax_lines, subtotal_cents, tax_cents, total_cents, due_date, series_id, occurrence_date, created_by, created_at, updated_at)
         SELECT 'inv_01J00000000000000000000000', merchant_id, 99999, 'draft', customer_id, bill_to, currency, lines, tax_lines, subtotal_cents, tax_cents, total_cents, due_date, series_id, occurrence_date, 'test', created_at, updated_at
         FROM invoices WHERE series_id = $1`,
        [series.id],
      ),
    ).rejects.toThrow();
  });

  it('active ⇄ paused → ended: paused occurrences are skipped; illegal moves are 409 naming the state', async () => {
    now = new Date('2026-07-01T00:30:00.000Z');
    const series = (
      await call('POST', '/api/pos/invoice-series', seriesBody({ startDate: '2026-07-01', rrule: 'FREQ=DAILY', autoSend: false }))
    ).json();
    await app.recurringInvoices.runOnce();
    expect((await invoicesOf(series.id)).map((r) => [r.occurrence_date, r.status])).toEqual([['2026-07-01', 'draft']]);

    expect((await call('POST', `/api/pos/invoice-series/${series.id}/pause`, {})).json()).toMatchObject({ status: 'paused' });
    const again = await call('POST', `/api/pos/invoice-series/${series.id}/pause`, {});
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'illegal_state_transition', currentState: 'paused', entity: 'invoice_series' });

    now = new Date('2026-07-04T10:00:00.000Z');
    await app.recurringInvoices.runOnce();
    expect(await invoicesOf(series.id)).toHaveLength(1);
    expect((await call('POST', `/api/pos/invoice-series/${series.id}/resume`, {})).json()).toMatchObject({
      status: 'active',
      nextOccurrenceDate: '2026-07-04',
    });
    await app.recurringInvoices.runOnce();
    expect((await invoicesOf(series.id)).map((r) => r.occurrence_date)).toEqual(['2026-07-01', '2026-07-04']);

    expect((await call('POST', `/api/pos/invoice-series/${series.id}/end`, {})).json()).toMatchObject({
      status: 'ended',
      endedAt: now.toISOString(),
    });
    expect((await call('POST', `/api/pos/invoice-series/${series.id}/resume`, {})).json()).toMatchObject({ currentState: 'ended' });
    now = new Date('2026-07-09T10:00:00.000Z');
    await app.recurringInvoices.runOnce();
    expect(await invoicesOf(series.id)).toHaveLength(2);
  });

  it('400 naming the field for a bad rule, customer or line; lists with a cursor', async () => {
    const before = Number((await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoice_series')).rows[0]!.n);
    for (const [body, field] of [
      [seriesBody({ rrule: 'FREQ=SOMETIMES' }), 'rrule'],
      [seriesBody({ rrule: 'FREQ=DAILY;DTSTART=20260101T000000Z' }), 'rrule'],
      [seriesBody({ rrule: 'FREQ=MONTHLY;BYMONTHDAY=40' }), 'rrule'],
      [seriesBody({ rrule: 'FREQ=DAILY;UNTIL=20200101T000000Z' }), 'rrule'],
      [seriesBody({ customerId: 'cus_01J00000000000000000000000' }), 'customerId'],
      [seriesBody({ startDate: '2026-13-01' }), 'startDate'],
      [seriesBody({ lineItems: [{ catalogItemId: 'itm_latte', variationId: 'var_latte_regular', quantity: 1 }] }), 'lineItems.0.modifierIds'],
      [seriesBody({ daysUntilDue: -1 }), 'daysUntilDue'],
    ] as const) {
      const res = await call('POST', '/api/pos/invoice-series', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(
        res.json().errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(Number((await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoice_series')).rows[0]!.n)).toBe(before);
    const page1 = (await call('GET', '/api/pos/invoice-series?limit=2')).json();
    expect(page1.data).toHaveLength(2);
    const page2 = (await call('GET', `/api/pos/invoice-series?limit=2&cursor=${page1.nextCursor}`)).json();
    expect(page2.data.length).toBeGreaterThanOrEqual(1);
    expect(page2.data.map((s: { id: string }) => s.id)).not.toContain(page1.data[0].id);
  });
});
