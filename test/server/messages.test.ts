/**
 * The back office's Messages routes (docs/decisions/0095-messages-view-and-demo-outbox.md) through the API, with real
 * messages sent through demo mode's local mail server and local SMS provider: outbox lists filtered by state and by
 * what a message is about, the latest message of a receipt / pay request / invoice, suppressed addresses (lifting one
 * is audited) and opted-out phones, and the Demo outbox — each store sees only its own messages, and the Demo outbox is
 * absent (404) when real providers send.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSmtpServer, type LocalSmtpServer } from '../../sync-server/src/dev/local-smtp-server.ts';
import { startDemoSmsProvider, type LocalSmsProvider } from '../../sync-server/src/dev/local-sms-provider.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';

const CART = [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 1 }];
const FROM_PHONE = '+15555550100';
type Json = Record<string, any>;

describe.each(databaseTargets())('messages and the demo outbox on $name', (target) => {
  let dir: string;
  let mail: LocalSmtpServer;
  let sms: LocalSmsProvider;
  let server: TestServer;
  let b: { token: string; merchantId: string };

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
  const ok = async (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown): Promise<Json> => {
    const res = await call(method, url, token, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.body ? (res.json() as Json) : {};
  };
  const a = () => server.credentials.staffToken;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'register-demo-outbox-'));
    mail = await startLocalSmtpServer({ dir: join(dir, 'mail') });
    sms = await startDemoSmsProvider(join(dir, 'sms.jsonl'));
    server = await startTestServer({
      target,
      listen: true,
      staticDir: null,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
      emailDelivery: { smtp: { url: mail.url, from: 'receipts@demo.register.localhost' }, pollIntervalMs: 20, retryBaseMs: 50, retryMaxMs: 200 },
      smsDelivery: {
        twilio: { apiBase: sms.url, accountSid: sms.accountSid, authToken: sms.authToken, from: FROM_PHONE },
        pollIntervalMs: 20,
        retryBaseMs: 20,
      },
      demoOutbox: { mailDir: join(dir, 'mail'), smsFile: join(dir, 'sms.jsonl') },
    });
    const signUp = await server.app.inject({
      method: 'POST',
      url: '/api/signup',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        storeName: 'Bravo Messages',
        country: 'GB',
        currency: 'GBP',
        timeZone: 'Europe/London',
        ownerName: 'Brenda Bravo',
        ownerEmail: 'brenda@bravo.example',
        ownerPin: '482915',
      }),
    });
    expect(signUp.statusCode, signUp.body).toBe(201);
    const owner = signUp.json<{ merchantId: string; staffToken: string }>();
    b = { token: owner.staffToken, merchantId: owner.merchantId };
  });
  afterAll(async () => {
    await server?.close();
    await mail?.close();
    await sms?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A's order with its receipt e-mailed to `to`: the order id. */
  const emailReceipt = async (to: string) => {
    const order = await ok('POST', '/api/pos/orders', a(), { lineItems: CART });
    await ok('POST', `/api/pos/orders/${order.id}/receipts`, a(), { channel: 'email', to });
    return order.id as string;
  };

  it('lists each outbox filtered by state and subject, and answers the latest message of a receipt and a pay request', async () => {
    const orderId = await emailReceipt('ada@alpha.example');
    const payRequest = await ok('POST', '/api/pos/pay-requests', a(), { amountCents: 1250, phone: '+14155550142' });
    const email = await waitFor('the receipt sent', async () => {
      const page = await ok('GET', `/api/pos/email-outbox?subjectRef=order:${orderId}`, a());
      return page.data[0]?.status === 'sent' ? page.data[0] : undefined;
    });
    expect(email).toMatchObject({ to: 'ada@alpha.example', kind: 'receipt', subjectRef: `order:${orderId}`, attempts: 1, lastError: null });
    const text = await waitFor('the pay request delivered', async () => {
      const latest = await ok('GET', `/api/pos/messages/latest?subjectRef=pay_request:${payRequest.id}`, a());
      return latest.sms?.status === 'delivered' ? latest : undefined;
    });
    expect(text.email).toBeNull();
    expect(text.sms).toMatchObject({ to: '+14155550142', subjectRef: `pay_request:${payRequest.id}`, attempts: 1, providerCode: null });

    const latestReceipt = await ok('GET', `/api/pos/messages/latest?subjectRef=order:${orderId}`, a());
    expect(latestReceipt.email).toMatchObject({ id: email.id, status: 'sent' });
    expect(latestReceipt.sms).toBeNull();

    const sent = await ok('GET', '/api/pos/email-outbox?status=sent&limit=100', a());
    expect(sent.data.map((e: Json) => e.id)).toContain(email.id);
    expect(sent.data.every((e: Json) => e.status === 'sent')).toBe(true);
    expect((await ok('GET', '/api/pos/email-outbox?status=bounced', a())).data).toEqual([]);
    expect((await ok('GET', '/api/pos/sms-outbox?status=delivered', a())).data.map((e: Json) => e.subjectRef)).toContain(
      `pay_request:${payRequest.id}`,
    );

    const bad = await call('GET', '/api/pos/messages/latest?subjectRef=order', a());
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('subjectRef');
    expect((await call('GET', '/api/pos/email-outbox?status=lost', a())).statusCode).toBe(400);
  });

  it("shows a store only its own messages in the Demo outbox, and opens its e-mails and texts, never another store's", async () => {
    const orderId = await emailReceipt('grace@alpha.example');
    const bPay = await ok('POST', '/api/pos/pay-requests', b.token, { amountCents: 900, phone: '+442079460456' });
    const { rows } = await server.db.query<{ id: string }>('SELECT id FROM email_outbox WHERE subject_ref = $1', [`order:${orderId}`]);
    const aEmailId = rows[0]!.id;

    const aList = await waitFor('A sees its receipt in the demo outbox', async () => {
      const list = await ok('GET', '/api/pos/demo-outbox', a());
      return list.data.some((e: Json) => e.outboxId === aEmailId) ? list : undefined;
    });
    expect(aList).toMatchObject({ email: true, sms: true });
    const bList = await waitFor('B sees its text in the demo outbox', async () => {
      const list = await ok('GET', '/api/pos/demo-outbox', b.token);
      return list.data.some((e: Json) => e.channel === 'sms' && e.to === '+442079460456') ? list : undefined;
    });
    // Each store sees its own, and nothing of the other's (the files hold both).
    expect(bList.data.map((e: Json) => e.to)).toEqual(['+442079460456']);
    expect(bList.data[0].outboxId).toMatch(/^sms_/);
    expect(aList.data.some((e: Json) => e.to === '+442079460456')).toBe(false);
    const { rows: bRows } = await server.db.query('SELECT id FROM sms_outbox WHERE merchant_id = $1 AND subject_ref = $2', [
      b.merchantId,
      `pay_request:${bPay.id}`,
    ]);
    expect(bList.data[0].outboxId).toBe(bRows[0]!.id);

    const entry = aList.data.find((e: Json) => e.outboxId === aEmailId);
    expect(entry).toMatchObject({ channel: 'email', to: 'grace@alpha.example', status: 'sent' });
    expect(entry.subject).toMatch(/^Your receipt /);
    const opened = await ok('GET', `/api/pos/demo-outbox/mail/${entry.id}`, a());
    expect(opened.headers.find((h: Json) => h.name.toLowerCase() === 'message-id')?.value).toMatch(new RegExp(`^<${aEmailId}@`));
    expect(opened.text).toContain('Thank you');
    expect(opened.html).toMatch(/<html/i);
    expect(opened.attachments).toEqual([]);
    // B opens neither A's e-mail nor A's text; A opens not B's text.
    expect((await call('GET', `/api/pos/demo-outbox/mail/${entry.id}`, b.token)).statusCode).toBe(404);
    const aText = aList.data.find((e: Json) => e.channel === 'sms');
    if (aText) expect((await call('GET', `/api/pos/demo-outbox/sms/${aText.id}`, b.token)).statusCode).toBe(404);
    expect((await call('GET', `/api/pos/demo-outbox/sms/${bList.data[0].id}`, a())).statusCode).toBe(404);
    expect(await ok('GET', `/api/pos/demo-outbox/sms/${bList.data[0].id}`, b.token)).toMatchObject({ to: '+442079460456', from: FROM_PHONE });
    expect((await call('GET', '/api/pos/demo-outbox/mail/99999', a())).statusCode).toBe(404);
    expect((await call('GET', '/api/pos/demo-outbox/mail/..%2F1', a())).statusCode).toBe(400);
  });

  it('lists suppressed addresses and opted-out phones per store; a manager lifts a suppression, audited', async () => {
    const now = new Date().toISOString();
    await server.db.query(
      `INSERT INTO email_suppressions (merchant_id, address, reason, email_id, created_at) VALUES ($1, 'gone@alpha.example', '550 5.1.1 No such user', 'eml_x', $3),
              ($2, 'gone@bravo.example', '550 No such user', 'eml_y', $3)`,
      [server.credentials.merchantId, b.merchantId, now],
    );
    const listA = await ok('GET', '/api/pos/email-suppressions', a());
    expect(listA.data).toEqual([{ address: 'gone@alpha.example', reason: '550 5.1.1 No such user', emailId: 'eml_x', createdAt: now }]);
    expect((await call('DELETE', '/api/pos/email-suppressions/gone@bravo.example', a())).statusCode).toBe(404);
    expect((await ok('GET', '/api/pos/email-suppressions', b.token)).data.map((s: Json) => s.address)).toEqual(['gone@bravo.example']);
    const lifted = await call('DELETE', '/api/pos/email-suppressions/Gone@Alpha.example', a());
    expect(lifted.statusCode, lifted.body).toBe(204);
    expect((await ok('GET', '/api/pos/email-suppressions', a())).data).toEqual([]);
    expect((await call('DELETE', '/api/pos/email-suppressions/gone@alpha.example', a())).statusCode).toBe(404);
    const audit = await server.db.query<{ action: string; data: Json }>(
      `SELECT action, data FROM audit_log WHERE merchant_id = $1 AND entity_id = 'gone@alpha.example'`,
      [server.credentials.merchantId],
    );
    expect(audit.rows.map((r) => [r.action, r.data.reason])).toEqual([['email.suppression_lifted', '550 5.1.1 No such user']]);

    const phone = '+14155550199';
    await ok('POST', '/api/pos/pay-requests', a(), { amountCents: 500, phone });
    await waitFor('the text sent', async () =>
      (await ok('GET', '/api/pos/sms-outbox?status=delivered&limit=100', a())).data.some((e: Json) => e.to === phone) ? true : undefined,
    );
    const stop = await sms.reply({ inboundUrl: `${server.baseUrl}/api/sms/inbound/twilio`, from: phone, to: FROM_PHONE, body: 'STOP' });
    expect(stop.status).toBe(200);
    expect((await ok('GET', '/api/pos/sms-opt-outs', a())).data).toEqual([{ phone, keyword: 'STOP', optedOutAt: expect.any(String) }]);
    expect((await ok('GET', '/api/pos/sms-opt-outs', b.token)).data).toEqual([]);
  });
});

describe('the Demo outbox with real providers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ staticDir: null, webhooks: { enabled: false }, recurringInvoices: { enabled: false } });
  });
  afterAll(async () => server?.close());

  it('is absent: 404 on the list and on any message', async () => {
    for (const url of ['/api/pos/demo-outbox', '/api/pos/demo-outbox/mail/1', '/api/pos/demo-outbox/sms/SM0123']) {
      const res = await server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${server.credentials.staffToken}` } });
      expect(res.statusCode, url).toBe(404);
    }
  });
});
