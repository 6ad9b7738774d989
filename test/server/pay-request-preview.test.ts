/**
 * The text of a pay request shown before it is sent (`POST /api/pos/pay-request-previews`): the store's template in
 * its language with the amount and memo, a link as long as the real one, and its alphabet and parts — an emoji in the
 * memo makes it UCS-2 and longer. Bad input is a 400 naming the field; nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsSegments } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe.each(databaseTargets())('pay request text preview on $name', (target) => {
  let server: TestServer;
  const call = (method: string, url: string, payload?: unknown) =>
    server.app.inject({
      method: method as 'POST',
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  interface Preview {
    body: string;
    encoding: string;
    segments: number;
    characters: number;
  }

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('previews the text the request will send, with its parts, and the text sent is the same but for the link', async () => {
    const res = await call('POST', '/api/pos/pay-request-previews', { amountCents: 1250, memo: 'Cake deposit' });
    expect(res.statusCode, res.body).toBe(200);
    const preview = res.json<Preview>();
    expect(preview.body).toContain('$12.50');
    expect(preview.body).toContain('Cake deposit');
    const counted = smsSegments(preview.body);
    expect(preview).toMatchObject({ encoding: 'GSM-7', segments: counted.segments });
    expect(counted.encoding).toBe('GSM-7');

    const created = await call('POST', '/api/pos/pay-requests', { amountCents: 1250, memo: 'Cake deposit', phone: '+14155550142' });
    expect(created.statusCode, created.body).toBe(201);
    const { url } = created.json<{ url: string }>();
    const sms = await server.db.query<{ body: string }>(`SELECT body FROM sms_outbox WHERE merchant_id = $1 ORDER BY created_at DESC LIMIT 1`, [
      server.credentials.merchantId,
    ]);
    const linkOf = (text: string) => /https?:\/\/\S+\/pay\/pr_[0-9A-Z]{26}/.exec(text)![0];
    expect(sms.rows[0]!.body).toBe(preview.body.replace(linkOf(preview.body), url));
    expect(linkOf(preview.body)).toHaveLength(url.length);

    const emoji = (await call('POST', '/api/pos/pay-request-previews', { amountCents: 1250, memo: 'Cake 🎂 deposit' })).json<Preview>();
    expect(emoji.encoding).toBe('UCS-2');
    expect(emoji.segments).toBeGreaterThan(preview.segments);
  });

  it('writes it in the store’s language', async () => {
    expect((await call('PATCH', '/api/pos/settings', { language: 'es' })).statusCode).toBe(200);
    const preview = (await call('POST', '/api/pos/pay-request-previews', { amountCents: 1250 })).json<Preview>();
    expect(preview.body).toMatch(/12,50/);
    expect((await call('PATCH', '/api/pos/settings', { language: 'en' })).statusCode).toBe(200);
  });

  it('names the field of bad input in a 400 and writes nothing', async () => {
    const before = await server.db.query(`SELECT COUNT(*)::int AS n FROM sms_outbox`);
    for (const [body, path] of [
      [{ amountCents: 0 }, 'amountCents'],
      [{ amountCents: 100, memo: 'x'.repeat(501) }, 'memo'],
      [{ amountCents: 100, phone: '+14155550142' }, 'phone'],
    ] as const) {
      const res = await call('POST', '/api/pos/pay-request-previews', body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toContain(path);
    }
    expect((await server.db.query(`SELECT COUNT(*)::int AS n FROM sms_outbox`)).rows).toEqual(before.rows);
  });
});
