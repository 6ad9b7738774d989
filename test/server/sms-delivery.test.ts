/**
 * SMS through a carrier's HTTP API (docs/decisions/0091-sms-through-a-provider-api.md): a pay request's text goes
 * from `sms_outbox` over real HTTP to the local Twilio-compatible provider (sync-server/src/dev/local-sms-provider.ts),
 * whose signed status callbacks move it to `delivered`; a 500 is retried, a 400 with code 21211 fails with that code,
 * forged callbacks are refused and change nothing, STOP / START / HELP answer in TwiML and opt the phone out and in.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSmsProvider, type LocalSmsProvider } from '../../sync-server/src/dev/local-sms-provider.ts';
import { SmsTemporaryError } from '../../sync-server/src/modules/sms/carrier.ts';
import {
  isValidTwilioSignature,
  SmsDeliveryWorker,
  TwilioCarrier,
  twilioConfigFromEnv,
  twilioSignature,
} from '../../sync-server/src/modules/sms/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { createPayRequestText } from '../support/pay-requests.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitUntil } from '../support/wait-for.ts';

const FROM = '+14155550100';

describe('Twilio request signature', () => {
  it("reproduces Twilio's published example", () => {
    const params: [string, string][] = [
      ['CallSid', 'CA1234567890ABCDE'],
      ['Caller', '+12349013030'],
      ['Digits', '1234'],
      ['From', '+12349013030'],
      ['To', '+18005551212'],
    ];
    expect(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
  });

  it('matches one computed from the definition, and refuses a changed param, URL or a missing signature', () => {
    const url = 'https://pos.example/api/sms/status/twilio?message=sms_1';
    const params: [string, string][] = [
      ['MessageStatus', 'delivered'],
      ['MessageSid', 'SM1'],
      ['AccountSid', 'AC1'],
    ];
    const data = `${url}AccountSidAC1MessageSidSM1MessageStatusdelivered`;
    const independent = createHmac('sha1', 'token').update(data).digest('base64');
    expect(isValidTwilioSignature('token', url, params, independent)).toBe(true);
    expect(isValidTwilioSignature('token', url, [...params.slice(1), ['MessageStatus', 'failed']], independent)).toBe(false);
    expect(isValidTwilioSignature('token', `${url}2`, params, independent)).toBe(false);
    expect(isValidTwilioSignature('token', url, params, undefined)).toBe(false);
    expect(isValidTwilioSignature('other', url, params, independent)).toBe(false);
  });

  it('reads the carrier from the environment, or none', () => {
    expect(twilioConfigFromEnv({})).toBeNull();
    expect(twilioConfigFromEnv({ SMS_PROVIDER: 'twilio', SMS_ACCOUNT_SID: 'AC1', SMS_AUTH_TOKEN: 't', SMS_FROM: FROM })).toEqual({
      apiBase: 'https://api.twilio.com',
      accountSid: 'AC1',
      authToken: 't',
      from: FROM,
    });
    expect(() => twilioConfigFromEnv({ SMS_PROVIDER: 'twilio', SMS_ACCOUNT_SID: 'AC1', SMS_FROM: FROM })).toThrow(/SMS_AUTH_TOKEN/);
    expect(twilioConfigFromEnv({ SMS_PROVIDER: 'vonage' })).toBeNull();
    expect(() => twilioConfigFromEnv({ SMS_PROVIDER: 'plivo' })).toThrow(/not supported/);
    expect(() => twilioConfigFromEnv({ SMS_PROVIDER: 'twilio', SMS_ACCOUNT_SID: 'AC1', SMS_AUTH_TOKEN: 't', SMS_FROM: '415' })).toThrow(/SMS_FROM/);
  });
});

describe.each(databaseTargets())('SMS delivery through the local provider on $name', (target) => {
  let provider: LocalSmsProvider;
  let server: TestServer;
  beforeAll(async () => {
    provider = await startLocalSmsProvider();
    server = await startTestServer({
      target,
      listen: true,
      staticDir: null,
      smsDelivery: {
        twilio: { apiBase: provider.url, accountSid: provider.accountSid, authToken: provider.authToken, from: FROM },
        pollIntervalMs: 20,
        retryBaseMs: 20,
        maxAttempts: 3,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  /** Creates a pay request texted to `phone`; resolves to its SMS's outbox id. */
  const payRequest = (phone: string): Promise<string> => createPayRequestText(server, phone);
  const row = async (id: string) =>
    (
      await server.db.query<{ status: string; provider_code: string | null; provider_message_id: string | null; attempts: number }>(
        'SELECT status, provider_code, provider_message_id, attempts FROM sms_outbox WHERE id = $1',
        [id],
      )
    ).rows[0]!;
  const waitForStatus = (id: string, status: string) =>
    waitUntil(
      `${id} ${status}`,
      () => row(id),
      (r) => r.status === status,
    );
  const outboxEntry = async (id: string) => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/pos/sms-outbox?limit=100',
      headers: { authorization: `Bearer ${server.credentials.staffToken}` },
    });
    expect(res.statusCode).toBe(200);
    return (res.json() as { data: { id: string }[] }).data.find((m) => m.id === id);
  };
  const received = (phone: string) => provider.messages().filter((m) => m.direction === 'outbound' && m.to === phone);
  const inboundUrl = () => `${server.baseUrl}/api/sms/inbound/twilio`;

  it('sends a pay request over HTTP; the signed callbacks move it to delivered', async () => {
    const id = await payRequest('+14155550111');
    const delivered = await waitForStatus(id, 'delivered');
    // The provider records each callback's answer once it has it (after the server stored the state).
    const [message] = await waitUntil(
      'both callbacks answered',
      () => received('+14155550111'),
      (ms) => ms[0]?.callbackAnswers.length === 2,
    );
    expect(message).toMatchObject({
      from: FROM,
      statusCallback: `${server.baseUrl}/api/sms/status/twilio?message=${id}`,
      callbackAnswers: [204, 204],
    });
    expect(message!.body).toContain('$12.50');
    expect(delivered).toMatchObject({ provider_message_id: message!.sid, provider_code: null, attempts: 1 });
    expect(await outboxEntry(id)).toMatchObject({ status: 'delivered', providerCode: null, encoding: 'GSM-7', segments: 1 });
  });

  it('retries a provider 500 and then sends', async () => {
    provider.failNext({ status: 500, code: 20500 });
    const id = await payRequest('+14155550112');
    const done = await waitForStatus(id, 'delivered');
    expect(done.attempts).toBe(2);
    expect(received('+14155550112')).toHaveLength(1);
  });

  it('fails for good on a provider 400 with code 21211, keeping the code', async () => {
    provider.failNext({ status: 400, code: 21211, message: "The 'To' number is not a valid phone number." });
    const id = await payRequest('+14155550113');
    const failed = await waitForStatus(id, 'failed');
    expect(failed).toMatchObject({ provider_code: '21211', attempts: 1, provider_message_id: null });
    expect(received('+14155550113')).toEqual([]);
    expect(await outboxEntry(id)).toMatchObject({ status: 'failed', providerCode: '21211' });
  });

  it('retries 429 and 503 up to the last allowed attempt, then fails with the last code', async () => {
    provider.failNext({ status: 429, code: 20429 });
    provider.failNext({ status: 503, code: 20503, times: 2 });
    const id = await payRequest('+14155550117');
    expect(await waitForStatus(id, 'failed')).toMatchObject({ provider_code: '20503', attempts: 3 });
    expect(received('+14155550117')).toEqual([]);
  });

  it('refuses forged status callbacks with 403 and changes nothing; signed ones only move forward', async () => {
    const id = 'sms_forgedcallbacktest0000001';
    await server.db.query(
      `INSERT INTO sms_outbox (id, merchant_id, to_phone, body, created_at, updated_at, status, attempts, locked_until, provider_message_id)
       VALUES ($1, $2, '+14155550114', 'x', now(), now(), 'sending', 1, now() + interval '1 hour', 'SMforged1')`,
      [id, server.credentials.merchantId],
    );
    const url = `${server.baseUrl}/api/sms/status/twilio?message=${id}`;
    const post = (params: Record<string, string>, signature: string | undefined, to = url) =>
      fetch(to, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature === undefined ? {} : { 'x-twilio-signature': signature }) },
        body: new URLSearchParams(params).toString(),
      });
    const delivered = { MessageSid: 'SMforged1', MessageStatus: 'delivered' };
    const sign = (params: Record<string, string>, at = url) => twilioSignature(provider.authToken, at, Object.entries(params));
    expect((await post(delivered, undefined)).status).toBe(403);
    expect((await post(delivered, sign(delivered, url), `${url}x`)).status).toBe(403);
    expect((await post({ ...delivered, MessageStatus: 'failed' }, sign(delivered))).status).toBe(403);
    expect((await post(delivered, twilioSignature('not-the-token', url, Object.entries(delivered)))).status).toBe(403);
    expect(await row(id)).toMatchObject({ status: 'sending' });

    expect((await post(delivered, sign(delivered))).status).toBe(204);
    expect(await row(id)).toMatchObject({ status: 'delivered' });
    const lateSent = { MessageSid: 'SMforged1', MessageStatus: 'sent' };
    expect((await post(lateSent, sign(lateSent))).status).toBe(204);
    const lateFailed = { MessageSid: 'SMforged1', MessageStatus: 'undelivered', ErrorCode: '30003' };
    expect((await post(lateFailed, sign(lateFailed))).status).toBe(204);
    expect(await row(id)).toMatchObject({ status: 'delivered', provider_code: null });
  });

  it('STOP opts the phone out: the next text is opted_out and never reaches the provider; START restores it; HELP answers', async () => {
    const phone = '+14155550115';
    await waitForStatus(await payRequest(phone), 'delivered');

    const forged = await fetch(inboundUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'AAAA' },
      body: new URLSearchParams({ From: phone, To: FROM, Body: 'STOP' }).toString(),
    });
    expect(forged.status).toBe(403);

    const stop = await provider.reply({ inboundUrl: inboundUrl(), from: phone, to: FROM, body: ' stop ' });
    expect(stop.status).toBe(200);
    expect(stop.twiml).toMatch(
      /^<\?xml[^>]*\?><Response><Message>Register Demo Café &amp; Market: you are unsubscribed[^<]*Reply START[^<]*<\/Message><\/Response>$/,
    );
    const blocked = await payRequest(phone);
    expect(await row(blocked)).toMatchObject({ status: 'opted_out', attempts: 0 });
    // Another phone's text goes through after it: the worker ran, and still nothing more reached the opted-out phone.
    await waitForStatus(await payRequest('+14155550116'), 'delivered');
    expect(received(phone)).toHaveLength(1);
    expect(await row(blocked)).toMatchObject({ status: 'opted_out', attempts: 0 });
    expect(provider.messages().filter((m) => m.direction === 'reply' && m.to === phone)).toHaveLength(1);

    const help = await provider.reply({ inboundUrl: inboundUrl(), from: phone, to: FROM, body: 'HELP' });
    expect(help.twiml).toContain('Reply STOP to unsubscribe');
    const start = await provider.reply({ inboundUrl: inboundUrl(), from: phone, to: FROM, body: 'Start' });
    expect(start.twiml).toContain('you are subscribed again');
    await waitForStatus(await payRequest(phone), 'delivered');
    expect(received(phone)).toHaveLength(2);
    const other = await provider.reply({ inboundUrl: inboundUrl(), from: phone, to: FROM, body: 'thanks!' });
    expect(other.twiml).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    // The store's audit trail holds the consent: out with STOP, back in with START; HELP and chatter change nothing.
    const audit = await server.db.query<{ action: string; actor: string; data: { keyword: string } }>(
      `SELECT action, actor, data FROM audit_log WHERE merchant_id = $1 AND entity_type = 'phone' AND entity_id = $2 ORDER BY seq`,
      [server.credentials.merchantId, phone],
    );
    expect(audit.rows.map((r) => [r.action, r.actor, r.data.keyword])).toEqual([
      ['sms.opted_out', 'system', 'STOP'],
      ['sms.opted_in', 'system', 'START'],
    ]);
  });
});

describe('Twilio adapter', () => {
  it('a carrier that does not answer is a temporary failure', async () => {
    const closed = await startLocalSmsProvider();
    await closed.close();
    const carrier = new TwilioCarrier({ apiBase: closed.url, accountSid: closed.accountSid, authToken: closed.authToken, from: FROM });
    await expect(
      carrier.send({ from: FROM, to: '+14155550118', body: 'x', statusCallbackUrl: 'http://cb/', reference: 'sms_1' }),
    ).rejects.toBeInstanceOf(SmsTemporaryError);
  });
});

describe.each(databaseTargets())('SMS without a carrier on $name', (target) => {
  it('keeps texts queued and has no callback routes', async () => {
    const server = await startTestServer({ target, staticDir: null });
    try {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/sms/status/twilio',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'MessageSid=SM1&MessageStatus=delivered',
      });
      expect(res.statusCode).toBe(404);
      const created = await server.app.inject({
        method: 'POST',
        url: '/api/pos/pay-requests',
        headers: { authorization: `Bearer ${server.credentials.appToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ amountCents: 100, phone: '+14155550119' }),
      });
      expect(created.statusCode).toBe(201);
      const { rows } = await server.db.query<{ status: string }>(`SELECT status FROM sms_outbox WHERE to_phone = '+14155550119'`);
      expect(rows).toEqual([{ status: 'queued' }]);
    } finally {
      await server.close();
    }
  });
});

describe.each(databaseTargets())('SMS delivery workers sharing one database on $name', (target) => {
  it('two workers draining one outbox send each text exactly once', async () => {
    const db = await target.openMigrated();
    try {
      await db.query(`INSERT INTO merchants (id, name, currency) VALUES ('mer_two_workers', 'Two workers', 'USD')`);
      for (let i = 0; i < 30; i++) {
        await db.query(
          `INSERT INTO sms_outbox (id, merchant_id, to_phone, body, created_at, status) VALUES ($1, 'mer_two_workers', '+14155550120', $2, now(), 'queued')`,
          [`sms_two_${String(i).padStart(2, '0')}`, `text ${i}`],
        );
      }
      const sent: string[] = [];
      const carrier = {
        async send(message: { body: string }) {
          sent.push(message.body);
          await new Promise((resolve) => setImmediate(resolve));
          return { providerMessageId: `SM${sent.length}` };
        },
      };
      const workers = [0, 1].map(
        (n) =>
          new SmsDeliveryWorker(
            db,
            () => new Date(),
            carrier,
            FROM,
            (id) => `http://cb/${id}`,
            { batchSize: 4 + n },
          ),
      );
      // Both workers' rounds run at once until neither finds work.
      for (;;) {
        const handled = await Promise.all(workers.map((w) => w.runOnce()));
        if (handled.every((n) => n === 0)) break;
      }
      expect(sent.toSorted()).toEqual(Array.from({ length: 30 }, (_, i) => `text ${i}`).toSorted());
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM sms_outbox WHERE merchant_id = 'mer_two_workers' AND status = 'sent'`,
      );
      expect(rows[0]!.n).toBe(30);
    } finally {
      await db.close();
    }
  });
});
