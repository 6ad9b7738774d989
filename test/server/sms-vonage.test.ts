/**
 * SMS through the Vonage SMS API (docs/decisions/0092-vonage-and-quiet-hours.md): texts go from `sms_outbox` over real
 * HTTP to the local provider's Vonage API (sync-server/src/dev/local-sms-provider.ts), whose signed delivery receipts
 * (`sig`) move them to `delivered` or `failed` with Vonage's `err-code`; a refusal `status` "1" is retried, "3" fails
 * with that code; forged, tampered and replayed receipts are refused and change nothing; STOP / START / HELP are
 * answered with a new text — the only one an opted-out phone gets — and opt the phone out and in.
 */
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSmsProvider, type LocalSmsProvider } from '../../sync-server/src/dev/local-sms-provider.ts';
import { isValidVonageSignature, vonageConfigFromEnv, vonageSignature } from '../../sync-server/src/modules/sms/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { createPayRequestText } from '../support/pay-requests.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitUntil } from '../support/wait-for.ts';

const FROM = '+447700900100';

describe('Vonage request signature', () => {
  const params: [string, string][] = [
    ['status', 'delivered'],
    ['messageId', '0A0000001234567B'],
    ['client-ref', 'sms_1'],
    ['text', 'a=b&c'],
    ['timestamp', '1764316800'],
  ];
  // The definition written out by hand: sorted by name, `&name=value`, `&` and `=` in values as `_`.
  const data = '&client-ref=sms_1&messageId=0A0000001234567B&status=delivered&text=a_b_c&timestamp=1764316800';

  it('is the upper-case hex HMAC of the sorted &name=value string, or the MD5 of it followed by the secret', () => {
    expect(vonageSignature('secret', 'sha256', params)).toBe(createHmac('sha256', 'secret').update(data).digest('hex').toUpperCase());
    expect(vonageSignature('secret', 'sha512', params)).toBe(createHmac('sha512', 'secret').update(data).digest('hex').toUpperCase());
    expect(vonageSignature('secret', 'md5hash', params)).toBe(createHash('md5').update(`${data}secret`).digest('hex'));
    // `sig` itself is not signed.
    expect(vonageSignature('secret', 'sha256', [...params, ['sig', 'X']])).toBe(vonageSignature('secret', 'sha256', params));
  });

  it('accepts a current, matching sig in either case; refuses a changed param, another secret, no sig or an old timestamp', () => {
    const config = { signatureSecret: 'secret', signatureMethod: 'sha256' as const };
    const now = new Date(1764316800_000 + 60_000);
    const sig = vonageSignature('secret', 'sha256', params);
    const signed = (changes: Record<string, string | undefined> = {}) => {
      const map = new Map([...params, ['sig', sig]]);
      for (const [name, value] of Object.entries(changes))
        if (value === undefined) map.delete(name);
        else map.set(name, value);
      return map;
    };
    expect(isValidVonageSignature(config, signed(), now)).toBe(true);
    expect(isValidVonageSignature(config, signed({ sig: sig.toLowerCase() }), now)).toBe(true);
    expect(isValidVonageSignature(config, signed({ status: 'failed' }), now)).toBe(false);
    expect(isValidVonageSignature({ ...config, signatureSecret: 'other' }, signed(), now)).toBe(false);
    expect(isValidVonageSignature(config, signed({ sig: undefined }), now)).toBe(false);
    expect(isValidVonageSignature(config, signed({ timestamp: undefined }), now)).toBe(false);
    expect(isValidVonageSignature(config, signed(), new Date(1764316800_000 + 301_000))).toBe(false);
  });

  it('reads the account from the environment, or none', () => {
    const env = { SMS_PROVIDER: 'vonage', SMS_API_KEY: 'k', SMS_API_SECRET: 's', SMS_SIGNATURE_SECRET: 'sig', SMS_FROM: FROM };
    expect(vonageConfigFromEnv({})).toBeNull();
    expect(vonageConfigFromEnv({ SMS_PROVIDER: 'twilio' })).toBeNull();
    expect(vonageConfigFromEnv(env)).toEqual({
      apiBase: 'https://rest.nexmo.com',
      apiKey: 'k',
      apiSecret: 's',
      signatureSecret: 'sig',
      signatureMethod: 'sha256',
      from: FROM,
    });
    expect(vonageConfigFromEnv({ ...env, SMS_SIGNATURE_METHOD: 'md5hash' })?.signatureMethod).toBe('md5hash');
    expect(() => vonageConfigFromEnv({ ...env, SMS_SIGNATURE_SECRET: '' })).toThrow(/SMS_SIGNATURE_SECRET/);
    expect(() => vonageConfigFromEnv({ ...env, SMS_SIGNATURE_METHOD: 'sha3' })).toThrow(/SMS_SIGNATURE_METHOD/);
    expect(() => vonageConfigFromEnv({ ...env, SMS_FROM: '07700900100' })).toThrow(/SMS_FROM/);
    expect(() => vonageConfigFromEnv({ SMS_PROVIDER: 'plivo' })).toThrow(/not supported/);
  });
});

describe.each(databaseTargets())('SMS delivery through the local provider’s Vonage API on $name', (target) => {
  let provider: LocalSmsProvider;
  let server: TestServer;
  beforeAll(async () => {
    // md5hash: the method a Vonage account signs with unless its dashboard says otherwise.
    provider = await startLocalSmsProvider({ vonage: { signatureMethod: 'md5hash' } });
    server = await startTestServer({
      target,
      listen: true,
      staticDir: null,
      smsDelivery: {
        vonage: { apiBase: provider.url, ...provider.vonage, from: FROM },
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
  const received = (phone: string) => provider.messages().filter((m) => m.to === phone);
  const statusUrl = () => `${server.baseUrl}/api/sms/status/vonage`;
  const inboundUrl = () => `${server.baseUrl}/api/sms/inbound/vonage`;

  it('sends a pay request over HTTP; the signed receipts (accepted, delivered) move it to delivered', async () => {
    const id = await payRequest('+14155550211');
    const delivered = await waitForStatus(id, 'delivered');
    const [message] = await waitUntil(
      'both receipts answered',
      () => received('+14155550211'),
      (ms) => ms[0]?.callbackAnswers.length === 2,
    );
    expect(message).toMatchObject({ api: 'vonage', from: FROM, statusCallback: statusUrl(), clientRef: id, callbackAnswers: [204, 204] });
    expect(message!.body).toContain('$12.50');
    expect(delivered).toMatchObject({ provider_message_id: message!.sid, provider_code: null, attempts: 1 });
  });

  it('a long text in two parts: every part’s receipts are taken, the message is delivered once', async () => {
    const id = 'sms_vonagetwopartstest00000001';
    await server.db.query(
      `INSERT INTO sms_outbox (id, merchant_id, to_phone, body, kind, created_at, updated_at, status) VALUES ($1, $2, '+14155550212', $3, 'receipt', now(), now(), 'queued')`,
      [id, server.credentials.merchantId, `Receipt ${'x'.repeat(200)}`],
    );
    const delivered = await waitForStatus(id, 'delivered');
    const [message] = await waitUntil(
      'four receipts answered',
      () => received('+14155550212'),
      (ms) => ms[0]?.callbackAnswers.length === 4,
    );
    expect(message!.partIds).toHaveLength(2);
    expect(message!.callbackAnswers).toEqual([204, 204, 204, 204]);
    expect(delivered).toMatchObject({ provider_message_id: message!.partIds[0], attempts: 1 });
  });

  it('a receipt saying rejected fails the message with Vonage’s err-code', async () => {
    provider.undeliverableNext({ code: '6', vonageStatus: 'rejected' });
    const id = await payRequest('+14155550213');
    expect(await waitForStatus(id, 'failed')).toMatchObject({ provider_code: '6', attempts: 1 });
  });

  it('retries a refusal with status 1 (throttled); fails for good on status 3 (invalid parameters), keeping the code', async () => {
    provider.failNext({ status: 200, code: 1, message: 'Throttled' });
    const retried = await payRequest('+14155550214');
    expect(await waitForStatus(retried, 'delivered')).toMatchObject({ attempts: 2 });

    provider.failNext({ status: 200, code: 3, message: 'Invalid to address' });
    const refused = await payRequest('+14155550215');
    expect(await waitForStatus(refused, 'failed')).toMatchObject({ provider_code: '3', attempts: 1, provider_message_id: null });
    expect(received('+14155550215')).toEqual([]);
  });

  it('refuses forged, tampered and replayed receipts with 403 and changes nothing; signed ones only move forward', async () => {
    const id = 'sms_vonageforgedreceipttest001';
    await server.db.query(
      `INSERT INTO sms_outbox (id, merchant_id, to_phone, body, kind, created_at, updated_at, status, attempts, locked_until, provider_message_id)
       VALUES ($1, $2, '+14155550216', 'x', 'receipt', now(), now(), 'sending', 1, now() + interval '1 hour', 'VONAGEFORGED1')`,
      [id, server.credentials.merchantId],
    );
    const now = Math.floor(Date.now() / 1000);
    const sign = (params: Record<string, string>, secret = provider.vonage.signatureSecret) => ({
      ...params,
      sig: vonageSignature(secret, 'md5hash', Object.entries(params)),
    });
    const post = (params: Record<string, string>) =>
      fetch(statusUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params).toString(),
      });
    const delivered = { messageId: 'VONAGEFORGED1', status: 'delivered', 'err-code': '0', 'client-ref': id, timestamp: String(now), nonce: 'n1' };
    expect((await post(delivered)).status).toBe(403);
    expect((await post(sign(delivered, 'not-the-secret'))).status).toBe(403);
    expect((await post({ ...sign(delivered), status: 'failed' })).status).toBe(403);
    // Another message's id under a receipt signed for this one.
    expect((await post({ ...sign(delivered), 'client-ref': 'sms_other' })).status).toBe(403);
    // A receipt signed long ago, replayed.
    expect((await post(sign({ ...delivered, timestamp: String(now - 3600) }))).status).toBe(403);
    expect(await row(id)).toMatchObject({ status: 'sending' });

    expect((await post(sign(delivered))).status).toBe(204);
    expect(await row(id)).toMatchObject({ status: 'delivered' });
    // As JSON too (Vonage's POST-JSON webhooks); late states change nothing.
    const lateFailed = sign({ ...delivered, status: 'expired', 'err-code': '1', nonce: 'n2' });
    const json = await fetch(statusUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(lateFailed) });
    expect(json.status).toBe(204);
    expect(await row(id)).toMatchObject({ status: 'delivered', provider_code: null });
  });

  it('STOP opts the phone out and is confirmed by a text; nothing else reaches it; HELP and START answer by text', async () => {
    const phone = '+14155550217';
    await waitForStatus(await payRequest(phone), 'delivered');
    const texts = () => received(phone).map((m) => m.body);

    const forged = await fetch(inboundUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        msisdn: phone.slice(1),
        to: FROM.slice(1),
        text: 'STOP',
        timestamp: String(Math.floor(Date.now() / 1000)),
        sig: 'AAAA',
      }),
    });
    expect(forged.status).toBe(403);

    expect((await provider.replyVonage({ inboundUrl: inboundUrl(), from: phone, to: FROM, text: ' stop ' })).status).toBe(204);
    const confirmation = await waitUntil('the STOP confirmation', texts, (bodies) => bodies.length === 2);
    expect(confirmation[1]).toMatch(/^Register Demo Café & Market: you are unsubscribed.*Reply START/);
    const blocked = await payRequest(phone);
    expect(await row(blocked)).toMatchObject({ status: 'opted_out', attempts: 0 });
    await waitForStatus(await payRequest('+14155550218'), 'delivered');
    expect(texts()).toHaveLength(2);

    await provider.replyVonage({ inboundUrl: inboundUrl(), from: phone, to: FROM, text: 'HELP' });
    const help = await waitUntil('the HELP answer', texts, (bodies) => bodies.length === 3);
    expect(help[2]).toContain('Reply STOP to unsubscribe');
    await provider.replyVonage({ inboundUrl: inboundUrl(), from: phone, to: FROM, text: 'Start' });
    const start = await waitUntil('the START answer', texts, (bodies) => bodies.length === 4);
    expect(start[3]).toContain('you are subscribed again');
    await waitForStatus(await payRequest(phone), 'delivered');
    expect(texts()).toHaveLength(5);
    expect((await provider.replyVonage({ inboundUrl: inboundUrl(), from: phone, to: FROM, text: 'thanks!' })).status).toBe(204);

    const audit = await server.db.query<{ action: string; data: { keyword: string } }>(
      `SELECT action, data FROM audit_log WHERE merchant_id = $1 AND entity_type = 'phone' AND entity_id = $2 ORDER BY seq`,
      [server.credentials.merchantId, phone],
    );
    expect(audit.rows.map((r) => [r.action, r.data.keyword])).toEqual([
      ['sms.opted_out', 'STOP'],
      ['sms.opted_in', 'START'],
    ]);
    const replies = await server.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sms_outbox WHERE to_phone = $1 AND kind = 'keyword_reply' AND status = 'delivered'`,
      [phone],
    );
    expect(replies.rows[0]!.n).toBe(3);
  });
});
