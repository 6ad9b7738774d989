/**
 * The one place every server log line passes (platform/http/log.ts `serverLoggerOptions`) keeps out the deployment's
 * credentials and message bodies, however code logs them: an SMTP URL's password in a message, an error or a logged
 * object; a registered credential (`redactValuesInLog`, as main.ts registers the sealed ones) anywhere; fields named
 * like a body or a credential whole. Whatever else a line says stays readable.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { redactValuesInLog, serverLoggerOptions } from '../../sync-server/src/platform/http/log.ts';

describe('the server log redacts credentials and message bodies', () => {
  it('removes URL passwords, registered credentials and body fields from messages, errors and logged objects', async () => {
    const lines: string[] = [];
    const app = Fastify({ logger: serverLoggerOptions({ write: (line) => lines.push(line) }) });
    const password = 'Sm7p-pass-word';
    const token = 'sms-token-4f1c9a27e0';
    const pemLine = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';
    redactValuesInLog([token, `-----BEGIN PRIVATE KEY-----\n${pemLine}\n-----END PRIVATE KEY-----\n`]);
    const url = `smtp://mailer:${password}@mail.example:587`;
    app.log.info(`connecting to ${url}`);
    app.log.info({ smtp: { url, from: 'receipts@store.example' }, carrier: [{ authorization: `Basic ${token}` }] }, 'configured');
    app.log.error({ err: new Error(`login to ${url} failed with token ${token}`) }, 'e-mail delivery worker');
    app.log.warn({ message: { to: '+14155552671', body: 'Pay $12.50 at https://pay.example/p/abc' }, text: 'Your receipt' }, 'sms');
    app.log.info({ key: pemLine }, `key ${pemLine}`);
    await app.close();

    const log = lines.join('');
    for (const secret of [password, token, pemLine, 'Pay $12.50', 'Your receipt']) expect(log).not.toContain(secret);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries[0]!.msg).toBe('connecting to smtp://mailer:[redacted]@mail.example:587');
    expect(entries[1]).toMatchObject({
      smtp: { url: 'smtp://mailer:[redacted]@mail.example:587', from: 'receipts@store.example' },
      carrier: [{ authorization: 'Basic [redacted]' }],
    });
    expect((entries[2]!.err as { message: string }).message).toBe('login to smtp://mailer:[redacted]@mail.example:587 failed with token [redacted]');
    expect(entries[3]).toMatchObject({ message: { to: '+14155552671', body: '[redacted]' }, text: '[redacted]', msg: 'sms' });
    expect(entries[4]).toMatchObject({ key: '[redacted]', msg: 'key [redacted]' });
  });
});
