/**
 * Store settings (GET/PATCH /api/pos/settings), national phone numbers read in the store's default country, and the
 * e-mail outbox listing — through HTTP, on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../sync-server/src/kernel/audit.ts';
import { databaseTargets } from '../support/databases.ts';
import { buildSale, type PairedRegister } from '../support/sales.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { enrollRegister } from '../support/enroll.ts';

type Json = Record<string, any>;

describe.each(databaseTargets())('store settings on $name', (target) => {
  let server: TestServer;
  const now = new Date('2026-03-06T12:00:00.000Z');
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, bearer = server.credentials.staffToken) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${bearer}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const fieldsOf = (res: { json(): Json }) => (res.json().errors as { path: string }[]).map((e) => e.path);

  it('shows the store settings, UTC and US until changed', async () => {
    const res = await call('GET', '/api/pos/settings');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      merchantId: server.credentials.merchantId,
      name: server.credentials.merchantName,
      currency: 'USD',
      timeZone: 'UTC',
      defaultCountry: 'US',
      tipLimitBasisPoints: 5000,
      tipLimitCents: 10000,
      dayCutoffHour: 4,
      cashierRefundLimitCents: 5000,
      confirmSellPastZero: false,
      serviceStyle: 'retail',
      offlineSignInDays: 7,
      language: 'en',
      emailReplyTo: null,
      smsQuietHoursStart: null,
      smsQuietHoursEnd: null,
      moneyMovement: 'disabled',
    });
    expect((await call('GET', '/api/pos/settings', undefined, server.credentials.appToken)).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: '/api/pos/settings' })).statusCode).toBe(401);
  });

  it('refuses bad settings with a problem naming the field, and changes nothing', async () => {
    const cases: [unknown, string][] = [
      [{ timeZone: 'Mars/Olympus' }, 'timeZone'],
      [{ timeZone: '' }, 'timeZone'],
      [{ defaultCountry: 'ZZ' }, 'defaultCountry'],
      [{ defaultCountry: 'USA' }, 'defaultCountry'],
      [{ currency: 'EUR' }, 'currency'],
      [{ offlineSignInDays: 31 }, 'offlineSignInDays'],
      [{ offlineSignInDays: -1 }, 'offlineSignInDays'],
      [{ offlineSignInDays: 1.5 }, 'offlineSignInDays'],
      [{ smsQuietHoursStart: '25:00', smsQuietHoursEnd: '08:00' }, 'smsQuietHoursStart'],
      [{ smsQuietHoursStart: '9pm', smsQuietHoursEnd: '08:00' }, 'smsQuietHoursStart'],
      [{ smsQuietHoursStart: '21:00' }, 'smsQuietHoursEnd'],
      [{ smsQuietHoursEnd: '08:00' }, 'smsQuietHoursStart'],
      [{ smsQuietHoursStart: '21:00', smsQuietHoursEnd: '21:00' }, 'smsQuietHoursEnd'],
    ];
    for (const [body, field] of cases) {
      const res = await call('PATCH', '/api/pos/settings', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect((await call('PATCH', '/api/pos/settings', {})).statusCode).toBe(400);
    // Wrong types and bodies that are not an object: 400 problems, never a 500.
    for (const [body, field] of [
      [{ timeZone: 5 }, 'timeZone'],
      [{ defaultCountry: null }, 'defaultCountry'],
      [{ timeZone: 'x'.repeat(65) }, 'timeZone'],
      [{ timeZone: ['UTC'] }, 'timeZone'],
    ] as [unknown, string][]) {
      const res = await call('PATCH', '/api/pos/settings', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    for (const body of [[], 'UTC', null, 42]) {
      const res = await call('PATCH', '/api/pos/settings', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type'], JSON.stringify(body)).toMatch(/^application\/problem\+json/);
    }
    const notJson = await server.app.inject({
      method: 'PATCH',
      url: '/api/pos/settings',
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
      payload: '{"timeZone":',
    });
    expect(notJson.statusCode).toBe(400);
    const text = await server.app.inject({
      method: 'PATCH',
      url: '/api/pos/settings',
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'text/plain' },
      payload: 'UTC',
    });
    expect(text.statusCode).toBe(415);
    expect((await call('PATCH', '/api/pos/settings', { timeZone: 'UTC' }, server.credentials.appToken)).statusCode).toBe(403);
    expect((await call('GET', '/api/pos/settings')).json()).toMatchObject({ timeZone: 'UTC', defaultCountry: 'US' });
  });

  it('counts report days in the time zone set, and audits the change', async () => {
    const register: PairedRegister = await enrollRegister(server, server.credentials.staffToken);
    // 02:00 UTC on 6 March is still 5 March in New York.
    const sale = buildSale({ register, sequence: 1, catalog: server.catalog, method: 'cash', createdAt: '2026-03-06T02:00:00.000Z' });
    const pushed = await call('POST', '/api/sync/orders/push', [{ newDocumentState: sale.order }]);
    expect(pushed.json()).toEqual([]);
    const utcDay = (await call('GET', '/api/pos/reports/sales?from=2026-03-05&to=2026-03-06&groupBy=day')).json();
    expect(utcDay.rows.map((r: Json) => r.key)).toEqual(['2026-03-06']);

    const changed = await call('PATCH', '/api/pos/settings', { timeZone: 'America/New_York', defaultCountry: 'gb' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ timeZone: 'America/New_York', defaultCountry: 'GB' });
    expect((await call('GET', '/api/pos/settings')).json()).toMatchObject({ timeZone: 'America/New_York', defaultCountry: 'GB' });
    const nyDay = (await call('GET', '/api/pos/reports/sales?from=2026-03-05&to=2026-03-06&groupBy=day')).json();
    expect(nyDay.period.timeZone).toBe('America/New_York');
    expect(nyDay.rows.map((r: Json) => r.key)).toEqual(['2026-03-05']);

    const audit = await server.db.query<{ data: Json }>(`SELECT data FROM audit_log WHERE action = 'settings.updated' ORDER BY seq`);
    expect(audit.rows.map((r) => r.data)).toEqual([{ timeZone: { from: 'UTC', to: 'America/New_York' }, defaultCountry: { from: 'US', to: 'GB' } }]);
    expect((await verifyAuditChain(server.db, server.credentials.merchantId)).ok).toBe(true);
    // Back to the US for the phone test below.
    expect((await call('PATCH', '/api/pos/settings', { defaultCountry: 'US' })).json().defaultCountry).toBe('US');
  });

  it('reads national phone numbers in the default country, and de-duplicates across spellings', async () => {
    const national = await call('POST', '/api/pos/customers', { givenName: 'Nat', phone: '(415) 555-0134' });
    expect(national.statusCode, national.body).toBe(201);
    expect(national.json().phone).toBe('+14155550134');
    const same = await call('POST', '/api/pos/customers', { givenName: 'Other', phone: '+1 415 555 0134' });
    expect(same.statusCode).toBe(409);
    expect(same.json().errors[0]).toMatchObject({ path: 'phone' });
    expect(same.json().detail).toContain(national.json().id);

    await call('PATCH', '/api/pos/settings', { defaultCountry: 'GB' });
    const london = await call('POST', '/api/pos/customers', { givenName: 'Lon', phone: '020 7946 0958' });
    expect(london.json().phone).toBe('+442079460958');
    const edited = await call('PATCH', `/api/pos/customers/${london.json().id}`, { phone: '07911 123456' });
    expect(edited.json().phone).toBe('+447911123456');
    // A US national number is not a GB number; international form always works.
    const wrong = await call('POST', '/api/pos/customers', { givenName: 'X', phone: '(415) 555-0177' });
    expect(wrong.statusCode).toBe(400);
    expect(fieldsOf(wrong)).toEqual(['phone']);
    expect(wrong.json().errors[0].message).toContain('GB');
    for (const phone of ['12', 'call me', '+1 415 555']) {
      const bad = await call('POST', '/api/pos/customers', { givenName: 'X', phone });
      expect(bad.statusCode, phone).toBe(400);
      expect(fieldsOf(bad), phone).toContain('phone');
    }
    const count = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM customers WHERE given_name = 'X'`);
    expect(count.rows[0]!.n).toBe(0);
  });

  it('lists the e-mail outbox newest first, with cursor pagination', async () => {
    const customer = (await call('POST', '/api/pos/customers', { givenName: 'Mae', email: 'mae@example.com' })).json();
    const order = (
      await call('POST', '/api/pos/orders', {
        lineItems: [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 }],
        customerId: customer.id,
      })
    ).json();
    await call('POST', `/api/pos/orders/${order.id}/payments`, { tenders: [{ method: 'cash', amountCents: order.totalCents }] });
    // The receipt reads the store's clock (America/New_York since the test above): 12:00 UTC is 7:00 AM there.
    const printed = (await call('GET', `/api/pos/orders/${order.id}/receipt`)).json();
    expect(printed.text).toMatch(/Mar 6, 2026, 7:00\sAM/);
    expect(printed.text).toMatch(/^Cash\s+\$/m);
    const first = await call('POST', `/api/pos/orders/${order.id}/receipts`, { channel: 'email' });
    const second = await call('POST', `/api/pos/orders/${order.id}/receipts`, { channel: 'email', to: 'copy@example.com' });
    expect(second.statusCode, second.body).toBe(202);

    const page1 = await call('GET', '/api/pos/email-outbox?limit=1');
    expect(page1.statusCode).toBe(200);
    expect(page1.json().data).toEqual([
      {
        id: second.json().id,
        to: 'copy@example.com',
        subject: expect.stringContaining(order.receiptNumber),
        body: expect.stringContaining('Total'),
        // No SMTP_URL in this server: the message stays queued, never attempted.
        status: 'queued',
        attempts: 0,
        nextAttemptAt: null,
        lastError: null,
        sentAt: null,
        messageId: null,
        kind: 'receipt',
        subjectRef: `order:${order.id}`,
        createdAt: now.toISOString(),
      },
    ]);
    const page2 = (await call('GET', `/api/pos/email-outbox?limit=1&cursor=${page1.json().nextCursor}`)).json();
    expect(page2.data.map((m: Json) => [m.id, m.to])).toEqual([[first.json().id, 'mae@example.com']]);
    expect((await call('GET', '/api/pos/email-outbox?limit=0')).statusCode).toBe(400);
    expect((await call('GET', '/api/pos/email-outbox', undefined, server.credentials.appToken)).statusCode).toBe(403);
  });

  it('turns the sell-past-zero question on and off (audited), and the register reads it from its own state', async () => {
    const on = await call('PATCH', '/api/pos/settings', { confirmSellPastZero: true });
    expect(on.statusCode).toBe(200);
    expect(on.json().confirmSellPastZero).toBe(true);
    expect((await call('GET', '/api/pos/settings')).json().confirmSellPastZero).toBe(true);
    expect(fieldsOf(await call('PATCH', '/api/pos/settings', { confirmSellPastZero: 'no' }))).toEqual(['confirmSellPastZero']);
    const audited = await server.db.query<{ data: { confirmSellPastZero?: unknown } }>(
      `SELECT data FROM audit_log WHERE action = 'settings.updated' ORDER BY seq DESC LIMIT 1`,
    );
    expect(audited.rows[0]?.data.confirmSellPastZero).toEqual({ from: 'false', to: 'true' });
    expect((await call('PATCH', '/api/pos/settings', { confirmSellPastZero: false })).json().confirmSellPastZero).toBe(false);
  });

  it('sets the service style (retail by default; audited), refuses an unknown one naming the field, and registers read it', async () => {
    const restaurant = await call('PATCH', '/api/pos/settings', { serviceStyle: 'restaurant' });
    expect(restaurant.statusCode).toBe(200);
    expect(restaurant.json().serviceStyle).toBe('restaurant');
    expect(fieldsOf(await call('PATCH', '/api/pos/settings', { serviceStyle: 'diner' }))).toEqual(['serviceStyle']);
    const audited = await server.db.query<{ data: { serviceStyle?: unknown } }>(
      `SELECT data FROM audit_log WHERE action = 'settings.updated' ORDER BY seq DESC LIMIT 1`,
    );
    expect(audited.rows[0]?.data.serviceStyle).toEqual({ from: 'retail', to: 'restaurant' });
    expect((await call('PATCH', '/api/pos/settings', { serviceStyle: 'retail' })).json().serviceStyle).toBe('retail');
  });
});
