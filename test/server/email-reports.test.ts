/**
 * Bounces and complaints that arrive later by mail (docs/decisions/0096-bounces-and-complaints-by-mail.md), over real
 * SMTP both ways: the delivery worker sends receipts to a capturing mail server with VERP envelope senders; the test
 * then sends the server's report listener an RFC 3464 delivery status notification or an RFC 5965 feedback report,
 * built as real MIME from test/fixtures/email-reports/ with the envelope sender the mail server saw. States are read
 * through the API; waits poll a state with a timeout, never sleep.
 */
import { readFileSync } from 'node:fs';
import { createTransport } from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../core/index.ts';
import { bounceConfigFromEnv, emailIdOfVerp, verpAddress } from '../../sync-server/src/platform/messaging/bounces.ts';
import { secretBox } from '../../sync-server/src/platform/secrets.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CART = [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }];
const FROM = 'receipts@register.example';
const BOUNCE_DOMAIN = 'bounces.register.example';

/** A report fixture with its placeholders filled. */
function fixture(name: string, values: Record<string, string>): string {
  let text = readFileSync(new URL(`../fixtures/email-reports/${name}`, import.meta.url), 'utf8');
  for (const [key, value] of Object.entries(values)) text = text.replaceAll(`{{${key}}}`, value);
  expect(text).not.toContain('{{');
  return text.replace(/\r?\n/g, '\r\n');
}

/** The mail server the worker delivers to: the envelope (MAIL FROM, RCPT TO) and Message-ID of each message. */
interface Capture {
  port: number;
  delivered: { mailFrom: string; to: string[]; messageId: string; envid: string | null; ret: string | null }[];
  close(): Promise<void>;
}

async function startCapture(): Promise<Capture> {
  const delivered: Capture['delivered'] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // Offers DSN (RFC 3461), so the worker's RET and ENVID reach it.
    hideDSN: false,
    closeTimeout: 100,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const head = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom;
        delivered.push({
          mailFrom: from ? from.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          messageId: /^Message-ID: (<[^>]+>)/im.exec(head)?.[1] ?? '',
          envid: session.envelope.dsn?.envid ?? null,
          ret: session.envelope.dsn?.ret ?? null,
        });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
  });
  return { port, delivered, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Polls `probe` every 20 ms until it returns a value, or fails after `timeoutMs`. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface OutboxEntry {
  id: string;
  to: string;
  status: string;
  attempts: number;
  lastError: string | null;
}

describe('bounce settings', () => {
  it('reads BOUNCE_DOMAIN and BOUNCE_SMTP_PORT, and refuses malformed ones naming the variable', () => {
    expect(bounceConfigFromEnv({}, FROM)).toBeNull();
    expect(bounceConfigFromEnv({ BOUNCE_SMTP_PORT: '2526' }, FROM)).toEqual({ domain: 'register.example', port: 2526, host: '0.0.0.0' });
    expect(bounceConfigFromEnv({ BOUNCE_DOMAIN: 'Bounces.Register.Example' }, null)).toEqual({
      domain: 'bounces.register.example',
      port: null,
      host: '0.0.0.0',
    });
    expect(() => bounceConfigFromEnv({ BOUNCE_SMTP_PORT: '70000' }, FROM)).toThrow(/BOUNCE_SMTP_PORT/);
    expect(() => bounceConfigFromEnv({ BOUNCE_DOMAIN: 'not a domain' }, FROM)).toThrow(/BOUNCE_DOMAIN/);
    expect(() => bounceConfigFromEnv({ BOUNCE_SMTP_PORT: '25' }, null)).toThrow(/BOUNCE_DOMAIN is required/);
  });

  it('signs the id in the VERP address: any case verifies, another key or domain or a changed id does not', () => {
    const id = newId('email');
    const address = verpAddress('key-1', BOUNCE_DOMAIN, id);
    expect(address).toMatch(/^bounces\+eml_[0-9a-z]{26}\.[0-9a-f]{32}@bounces\.register\.example$/);
    expect(emailIdOfVerp('key-1', BOUNCE_DOMAIN, address)).toBe(id);
    expect(emailIdOfVerp('key-1', BOUNCE_DOMAIN, address.toUpperCase())).toBe(id);
    expect(emailIdOfVerp('key-2', BOUNCE_DOMAIN, address)).toBeNull();
    expect(emailIdOfVerp('key-1', 'register.example', address)).toBeNull();
    const other = newId('email').toLowerCase();
    expect(emailIdOfVerp('key-1', BOUNCE_DOMAIN, address.replace(/eml_[0-9a-z]{26}/, other))).toBeNull();
  });
});

describe.each(databaseTargets())('bounces and complaints by mail on $name', (target) => {
  let capture: Capture;
  let server: TestServer;
  let bouncePort = 0;

  beforeAll(async () => {
    capture = await startCapture();
    server = await startTestServer({
      target,
      staticDir: null,
      emailDelivery: { smtp: { url: `smtp://127.0.0.1:${capture.port}`, from: FROM }, pollIntervalMs: 20, retryBaseMs: 100, retryMaxMs: 1000 },
      emailBounces: { domain: BOUNCE_DOMAIN, port: 0, host: '127.0.0.1', onListening: (port) => (bouncePort = port) },
    });
  });
  afterAll(async () => {
    await server?.close();
    await capture?.close();
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
  /** E-mails the receipt of a new order to `to`; returns the outbox id. */
  const emailReceipt = async (to: string): Promise<string> => {
    const order = await call('POST', '/api/pos/orders', { lineItems: CART });
    expect(order.statusCode, order.body).toBe(201);
    const sent = await call('POST', `/api/pos/orders/${order.json().id}/receipts`, { channel: 'email', to });
    expect(sent.statusCode, sent.body).toBe(202);
    return sent.json().id as string;
  };
  const entry = async (id: string): Promise<OutboxEntry> => {
    const res = await call('GET', '/api/pos/email-outbox?limit=100');
    expect(res.statusCode, res.body).toBe(200);
    const found = (res.json().data as OutboxEntry[]).find((e) => e.id === id);
    expect(found, `outbox entry ${id}`).toBeDefined();
    return found!;
  };
  const entryIn = (id: string, ...states: string[]) =>
    waitFor(`${id} in ${states.join('/')}`, async () => {
      const e = await entry(id);
      return states.includes(e.status) ? e : undefined;
    });
  const suppressions = async () => {
    const res = await call('GET', '/api/pos/email-suppressions?limit=100');
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { address: string; reason: string; emailId: string }[];
  };
  const audits = async (emailId: string) =>
    (
      await server.db.query<{ action: string; actor: string; data: Record<string, unknown> }>(
        `SELECT action, actor, data FROM audit_log WHERE merchant_id = $1 AND entity_type = 'email' AND entity_id = $2 ORDER BY seq`,
        [server.credentials.merchantId, emailId],
      )
    ).rows;
  /** Sends a receipt to `to` and waits until the mail server has it; returns the id and what the server saw. */
  const delivered = async (to: string) => {
    const id = await emailReceipt(to);
    await entryIn(id, 'sent');
    const seen = capture.delivered.find((d) => d.to.includes(to));
    expect(seen, `the mail server received the message to ${to}`).toBeDefined();
    return { id, ...seen! };
  };
  /** Sends `raw` to the report listener over SMTP from the null sender, as a reporting mail server does. */
  const report = async (raw: string, to: string) => {
    const transport = createTransport({ host: '127.0.0.1', port: bouncePort, secure: false, ignoreTLS: true });
    try {
      return await transport.sendMail({ envelope: { from: '', to: [to] }, raw });
    } finally {
      transport.close();
    }
  };
  const sentTo = (to: string) => capture.delivered.filter((d) => d.to.includes(to)).length;

  it('sends with a VERP envelope sender naming the message, and asks for headers-only DSNs with its id', async () => {
    const { id, mailFrom, envid, ret } = await delivered('verp@example.org');
    expect(mailFrom).toBe(verpAddress(secretBox().derive('email-bounces:v1'), BOUNCE_DOMAIN, id));
    expect({ envid, ret }).toEqual({ envid: id, ret: 'HDRS' });
  });

  it('a permanent failure (DSN, Action failed, 5.1.1) bounces the message, suppresses the address with the reason, and nothing more is sent to it', async () => {
    const to = 'gone@example.org';
    const { id, mailFrom, messageId } = await delivered(to);
    await report(fixture('dsn-failed.eml', { VERP: mailFrom, RECIPIENT: to, MESSAGE_ID: messageId, BOUNCE_DOMAIN }), mailFrom);

    const bounced = await entryIn(id, 'bounced');
    expect(bounced.lastError).toBe(`bounce: 5.1.1 SMTP; 550 5.1.1 <${to}>... User unknown`);
    const suppression = (await suppressions()).find((s) => s.address === to);
    expect(suppression).toEqual(expect.objectContaining({ emailId: id, reason: bounced.lastError }));
    const trail = await audits(id);
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({ action: 'email.bounced', actor: 'system', data: { to, suppressed: to, report: 'delivery-status' } });
    expect(trail[0]!.data.recipients).toEqual([
      { action: 'failed', status: '5.1.1', finalRecipient: to, diagnosticCode: `SMTP; 550 5.1.1 <${to}>... User unknown` },
    ]);

    // The next receipt to the address is never attempted.
    const before = sentTo(to);
    const next = await emailReceipt(to.toUpperCase());
    const suppressed = await entryIn(next, 'suppressed');
    expect(suppressed.attempts).toBe(0);
    expect(sentTo(to)).toBe(before);
  });

  it('a complaint (ARF, Feedback-Type abuse) found by the original Return-Path marks the message complained and suppresses the address', async () => {
    const to = 'annoyed@example.org';
    const { id, mailFrom, messageId } = await delivered(to);
    await report(
      fixture('arf-abuse.eml', { VERP: mailFrom, RECIPIENT: to, MESSAGE_ID: messageId, BOUNCE_DOMAIN, REPORT_TO: `fbl@${BOUNCE_DOMAIN}` }),
      `fbl@${BOUNCE_DOMAIN}`,
    );

    const complained = await entryIn(id, 'complained');
    expect(complained.lastError).toBe('complaint: abuse (feedback report from SomeGenerator/1.0)');
    expect((await suppressions()).find((s) => s.address === to)).toEqual(expect.objectContaining({ emailId: id, reason: complained.lastError }));
    expect(await audits(id)).toEqual([
      expect.objectContaining({
        action: 'email.complained',
        data: expect.objectContaining({ feedbackType: 'abuse', originalRcptTo: to, suppressed: to }),
      }),
    ]);
    const before = sentTo(to);
    const next = await emailReceipt(to);
    expect((await entryIn(next, 'suppressed')).attempts).toBe(0);
    expect(sentTo(to)).toBe(before);
  });

  it('a transient DSN (Action delayed, 4.2.2) is recorded on the message but neither moves it nor suppresses the address', async () => {
    const to = 'full@example.org';
    const { id, mailFrom, messageId } = await delivered(to);
    await report(fixture('dsn-delayed.eml', { VERP: mailFrom, RECIPIENT: to, MESSAGE_ID: messageId, BOUNCE_DOMAIN }), mailFrom);

    const recorded = await waitFor('the delay recorded', async () => {
      const e = await entry(id);
      return e.lastError ? e : undefined;
    });
    expect(recorded).toMatchObject({ status: 'sent', lastError: `delayed (not suppressed): 4.2.2 SMTP; 452 4.2.2 <${to}>... Mailbox full` });
    expect((await suppressions()).map((s) => s.address)).not.toContain(to);
    expect((await audits(id)).map((a) => a.action)).toEqual(['email.report_recorded']);
    // Mail to the address still goes.
    const next = await emailReceipt(to);
    await entryIn(next, 'sent');
  });

  it('a forged report (a MAC that does not verify, an unknown message, no VERP at all) changes nothing', async () => {
    const to = 'target@example.org';
    const { id, mailFrom, messageId } = await delivered(to);
    const forged = mailFrom.replace(/\.[0-9a-f]{32}@/, `.${'0'.repeat(32)}@`);
    const unknown = verpAddress(secretBox().derive('email-bounces:v1'), BOUNCE_DOMAIN, newId('email'));
    const otherKey = verpAddress('not-the-deployment-key', BOUNCE_DOMAIN, id);
    for (const verp of [forged, unknown, otherKey]) {
      const accepted = await report(fixture('dsn-failed.eml', { VERP: verp, RECIPIENT: to, MESSAGE_ID: messageId, BOUNCE_DOMAIN }), verp);
      expect(accepted.accepted).toEqual([verp]);
    }
    await report(
      fixture('arf-abuse.eml', { VERP: forged, RECIPIENT: to, MESSAGE_ID: messageId, BOUNCE_DOMAIN, REPORT_TO: `fbl@${BOUNCE_DOMAIN}` }),
      `fbl@${BOUNCE_DOMAIN}`,
    );

    expect(await entry(id)).toMatchObject({ status: 'sent', lastError: null });
    expect((await suppressions()).map((s) => s.address)).not.toContain(to);
    expect(await audits(id)).toEqual([]);
    // The listener is no relay: a recipient outside the bounce domain is refused.
    await expect(report(fixture('dsn-failed.eml', { VERP: mailFrom, RECIPIENT: to, MESSAGE_ID: messageId, BOUNCE_DOMAIN }), to)).rejects.toThrow(
      /550/,
    );
    expect(await entry(id)).toMatchObject({ status: 'sent' });
  });
});
