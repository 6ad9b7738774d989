/**
 * Quiet hours per store (docs/decisions/0092-vonage-and-quiet-hours.md), through the settings API, the delivery
 * worker and the local provider over HTTP, on an injected clock: with quiet hours 21:00–08:00 in America/New_York, an
 * invoice text written at 23:30 on the night the clocks go forward is held — queued, nothing lost — until 08:00 EDT
 * (12:00Z, not the 13:00Z a fixed offset would give), while a pay request asked for at the counter goes at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSmsProvider, type LocalSmsProvider } from '../../sync-server/src/dev/local-sms-provider.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitUntil } from '../support/wait-for.ts';

const FROM = '+14155550100';

describe.each(databaseTargets())('SMS quiet hours on $name', (target) => {
  let provider: LocalSmsProvider;
  let server: TestServer;
  // 23:30 EST on Saturday 7 March 2026, in New York; the clocks go forward at 02:00 that night.
  let now = new Date('2026-03-08T04:30:00.000Z');
  beforeAll(async () => {
    provider = await startLocalSmsProvider();
    server = await startTestServer({
      target,
      listen: true,
      staticDir: null,
      clock: () => now,
      webhooks: { enabled: false },
      smsDelivery: {
        twilio: { apiBase: provider.url, accountSid: provider.accountSid, authToken: provider.authToken, from: FROM },
        pollIntervalMs: 20,
        retryBaseMs: 20,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  let staffToken = '';
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, bearer = staffToken || server.credentials.staffToken) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${bearer}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const row = async (id: string) =>
    (
      await server.db.query<{ status: string; kind: string; attempts: number; next_attempt_at: Date | string | null }>(
        'SELECT status, kind, attempts, next_attempt_at FROM sms_outbox WHERE id = $1',
        [id],
      )
    ).rows[0]!;
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  const received = (phone: string) => provider.messages().filter((m) => m.direction === 'outbound' && m.to === phone);
  /** A pay request texted to `phone` (asked for at the counter), delivered; the worker ran a round after it. */
  const deliveredPayRequest = async (phone: string) => {
    const res = await call('POST', '/api/pos/pay-requests', { amountCents: 500, phone }, server.credentials.appToken);
    expect(res.statusCode).toBe(201);
    const { rows } = await server.db.query<{ id: string }>(
      `SELECT id FROM sms_outbox WHERE to_phone = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [phone],
    );
    await waitUntil(
      'the pay request delivered',
      () => row(rows[0]!.id),
      (r) => r.status === 'delivered',
    );
  };

  it('holds an invoice text through the quiet hours, over midnight and a daylight-saving change; the counter’s texts go at once', async () => {
    const settings = await call('PATCH', '/api/pos/settings', {
      timeZone: 'America/New_York',
      smsQuietHoursStart: '21:00',
      smsQuietHoursEnd: '08:00',
    });
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json()).toMatchObject({ smsQuietHoursStart: '21:00', smsQuietHoursEnd: '08:00' });

    const customer = await call('POST', '/api/pos/customers', { givenName: 'Grace', phone: '+14155550301' });
    expect(customer.statusCode).toBe(201);
    const draft = await call('POST', '/api/pos/invoices', {
      customerId: customer.json().id,
      customLines: [{ description: 'Catering', amountCents: 5000 }],
      dueDate: '2026-03-20',
    });
    expect(draft.statusCode, draft.body).toBe(201);
    const sent = await call('POST', `/api/pos/invoices/${draft.json().id}/send`, { channels: ['sms'] });
    expect(sent.statusCode, sent.body).toBe(200);
    const { rows } = await server.db.query<{ id: string }>(`SELECT id FROM sms_outbox WHERE to_phone = '+14155550301'`);
    const invoiceText = rows[0]!.id;

    const held = await waitUntil(
      'the invoice text held',
      () => row(invoiceText),
      (r) => r.next_attempt_at !== null,
    );
    expect({ ...held, next_attempt_at: iso(held.next_attempt_at) }).toEqual({
      status: 'queued',
      kind: 'invoice',
      attempts: 0,
      next_attempt_at: '2026-03-08T12:00:00.000Z',
    });
    // A pay request at the same moment goes at once; the invoice text still waits.
    await deliveredPayRequest('+14155550302');
    expect(received('+14155550301')).toEqual([]);

    // 07:59 EDT: still quiet.
    now = new Date('2026-03-08T11:59:00.000Z');
    await deliveredPayRequest('+14155550303');
    expect(await row(invoiceText)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(received('+14155550301')).toEqual([]);

    // 08:00 EDT: sent.
    now = new Date('2026-03-08T12:00:00.000Z');
    await waitUntil(
      'the invoice text delivered',
      () => row(invoiceText),
      (r) => r.status === 'delivered',
    );
    expect(received('+14155550301')).toHaveLength(1);
    expect(received('+14155550301')[0]!.body).toContain('invoice');
  });

  it('an invoice text written by day goes at once; without quiet hours a reminder at night is not held', async () => {
    now = new Date('2026-03-09T16:00:00.000Z'); // 12:00 EDT
    staffToken = await server.issueStaffToken({ now, ttlSeconds: 7 * 86_400 });
    const customer = await call('POST', '/api/pos/customers', { givenName: 'Alan', phone: '+14155550304' });
    const draft = await call('POST', '/api/pos/invoices', {
      customerId: customer.json().id,
      customLines: [{ description: 'Repair', amountCents: 2000 }],
      dueDate: '2026-03-20',
    });
    expect((await call('POST', `/api/pos/invoices/${draft.json().id}/send`, { channels: ['sms'] })).statusCode).toBe(200);
    await waitUntil(
      'the invoice delivered',
      () => received('+14155550304'),
      (ms) => ms.length === 1,
    );

    now = new Date('2026-03-10T03:00:00.000Z'); // 23:00 EDT
    expect((await call('PATCH', '/api/pos/settings', { smsQuietHoursStart: null, smsQuietHoursEnd: null })).statusCode).toBe(200);
    expect((await call('POST', `/api/pos/invoices/${draft.json().id}/send`, { channels: ['sms'] })).statusCode).toBe(200);
    await waitUntil(
      'the reminder delivered',
      () => received('+14155550304'),
      (ms) => ms.length === 2,
    );
    const kinds = await server.db.query<{ kind: string }>(`SELECT kind FROM sms_outbox WHERE to_phone = '+14155550304' ORDER BY created_at`);
    expect(kinds.rows.map((r) => r.kind)).toEqual(['invoice', 'invoice_reminder']);
  });
});
