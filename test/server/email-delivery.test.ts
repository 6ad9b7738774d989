/**
 * E-mail delivery over SMTP: the worker drains email_outbox to a real SMTP server (smtp-server on 127.0.0.1, port 0)
 * and what arrives is parsed with mailparser. Retries, bounces, suppression and a mail server that is down, with a
 * short poll interval and backoff; states are awaited by polling with a timeout, never by sleeping.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dkimVerify } from 'mailauth';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailDeliveryWorker, smtpConfigFromEnv } from '../../sync-server/src/platform/messaging/smtp.ts';
import { retryDelayMs } from '../../sync-server/src/platform/polling-loop.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CART = [{ catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', quantity: 2 }];
const FROM = 'receipts@register.example';
/** Fast worker: poll every 20 ms, retries after 100, 200, 400 … ms. */
const FAST = { pollIntervalMs: 20, retryBaseMs: 100, retryMaxMs: 1000 };

/** A capturing SMTP server: every RCPT TO is logged; `answers` queues reply codes per recipient before accepting. */
interface Capture {
  port: number;
  received: ParsedMail[];
  /** The bytes of each message as received, by Message-ID. */
  raw: Map<string, Buffer>;
  rcpts: string[];
  users: string[];
  answers: Map<string, number[]>;
  /** Reply codes to the message (after DATA) for messages to a recipient, one per message, before accepting. */
  dataAnswers: Map<string, number[]>;
  close(): Promise<void>;
}

async function startCapture(): Promise<Capture> {
  const received: ParsedMail[] = [];
  const raw = new Map<string, Buffer>();
  const rcpts: string[] = [];
  const users: string[] = [];
  const answers = new Map<string, number[]>();
  const dataAnswers = new Map<string, number[]>();
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    // Pooled connections the worker left open are closed at once when the suite ends.
    closeTimeout: 100,
    logger: false,
    onAuth(auth, _session, callback) {
      users.push(`${auth.username}:${auth.password}`);
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      rcpts.push(to);
      const queue = answers.get(to) ?? [];
      const code = queue.length > 1 ? queue.shift() : queue[0];
      if (code !== undefined && code !== 250) {
        const err = new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later') as Error & { responseCode: number };
        err.responseCode = code;
        callback(err);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const refusal = session.envelope.rcptTo.map((r) => dataAnswers.get(r.address.toLowerCase())?.shift()).find((c) => c !== undefined);
        if (refusal !== undefined) {
          const err = new Error('Message refused') as Error & { responseCode: number };
          err.responseCode = refusal;
          callback(err);
          return;
        }
        const bytes = Buffer.concat(chunks);
        simpleParser(bytes).then(
          (mail) => {
            raw.set(mail.messageId ?? '', bytes);
            received.push(mail);
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
  });
  return { port, received, raw, rcpts, users, answers, dataAnswers, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A TCP port nothing listens on (taken, then released). */
async function deadPort(): Promise<number> {
  const probe = createServer();
  const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Polls `probe` every 20 ms until it returns a value, or fails after `timeoutMs`. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
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
  subject: string;
  status: string;
  attempts: number;
  lastError: string | null;
  sentAt: string | null;
  messageId: string | null;
  nextAttemptAt: string | null;
}

function client(server: TestServer) {
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
  /** E-mails a receipt of a new order to `to`; returns the outbox id. */
  const emailReceipt = async (to: string) => {
    const order = await call('POST', '/api/pos/orders', { lineItems: CART });
    expect(order.statusCode, order.body).toBe(201);
    const sent = await call('POST', `/api/pos/orders/${order.json().id}/receipts`, { channel: 'email', to });
    expect(sent.statusCode, sent.body).toBe(202);
    return { id: sent.json().id as string, receiptNumber: order.json().receiptNumber as string };
  };
  /** The outbox entry `id` as the API lists it. */
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
  return { call, emailReceipt, entry, entryIn };
}

describe('SMTP configuration', () => {
  it('reads SMTP_URL and SMTP_FROM, and refuses malformed ones naming the variable', () => {
    expect(smtpConfigFromEnv({})).toBeNull();
    expect(smtpConfigFromEnv({ SMTP_URL: 'smtps://u:p@mail.example:465', SMTP_FROM: FROM })).toEqual({
      url: 'smtps://u:p@mail.example:465',
      from: FROM,
    });
    expect(() => smtpConfigFromEnv({ SMTP_URL: 'smtp://mail.example:587' })).toThrow(/SMTP_FROM is required/);
    expect(() => smtpConfigFromEnv({ SMTP_URL: 'smtp://mail.example:587', SMTP_FROM: 'Shop <a@b.example>' })).toThrow(/Invalid SMTP_FROM/);
    expect(() => smtpConfigFromEnv({ SMTP_URL: 'http://mail.example', SMTP_FROM: FROM })).toThrow(/Invalid SMTP_URL/);
    expect(() => smtpConfigFromEnv({ SMTP_URL: 'not a url', SMTP_FROM: FROM })).toThrow(/Invalid SMTP_URL/);
  });

  it('backs off exponentially up to a bound', () => {
    expect([1, 2, 3, 4, 7, 8].map((n) => retryDelayMs(n, 60_000, 3_600_000))).toEqual([60_000, 120_000, 240_000, 480_000, 3_600_000, 3_600_000]);
  });
});

describe.each(databaseTargets())('e-mail delivery over SMTP on $name', (target) => {
  let smtp: Capture;
  let server: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    smtp = await startCapture();
    server = await startTestServer({
      target,
      staticDir: null,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
      emailDelivery: { smtp: { url: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, from: FROM }, ...FAST, maxAttempts: 5 },
    });
    api = client(server);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  it('sends a receipt: From the store, To, Subject, Message-ID, text and HTML parts; sent with its Message-ID', async () => {
    const { id, receiptNumber } = await api.emailReceipt('ada@example.com');
    const sent = await api.entryIn(id, 'sent', 'failed', 'bounced');
    expect(sent).toMatchObject({ status: 'sent', attempts: 1, lastError: null, messageId: `<${id}@register.example>` });
    expect(sent.sentAt).toEqual(expect.any(String));
    const mail = await waitFor('the receipt at the SMTP server', async () => smtp.received.find((m) => m.messageId === `<${id}@register.example>`));
    expect(mail.from?.value).toEqual([{ name: server.credentials.merchantName, address: FROM }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value.map((a) => a.address) : []).toEqual(['ada@example.com']);
    expect(mail.subject).toContain(receiptNumber);
    expect(mail.text).toContain(receiptNumber);
    expect(mail.html).toContain(receiptNumber);
    expect(mail.html).toContain('<pre');
    // Credentials of SMTP_URL were used; the store has no reply-to address yet.
    expect(smtp.users).toContain('mailer:s3cret');
    expect(mail.replyTo).toBeUndefined();
  });

  it('sends an invoice with its PDF attached, the HTML part escaped, Reply-To the store address', async () => {
    const bad = await api.call('PATCH', '/api/pos/settings', { emailReplyTo: 'not an address' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { path: string }) => e.path)).toEqual(['emailReplyTo']);
    const set = await api.call('PATCH', '/api/pos/settings', { emailReplyTo: 'hello@cafe.example' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().emailReplyTo).toBe('hello@cafe.example');

    const customer = await api.call('POST', '/api/pos/customers', { givenName: 'Ada', email: 'ada.invoice@example.com' });
    expect(customer.statusCode, customer.body).toBe(201);
    const dueDate = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
    const draft = await api.call('POST', '/api/pos/invoices', {
      customerId: customer.json().id,
      customLines: [{ description: 'Catering setup', amountCents: 5000 }],
      dueDate,
    });
    expect(draft.statusCode, draft.body).toBe(201);
    const sent = await api.call('POST', `/api/pos/invoices/${draft.json().id}/send`, {});
    expect(sent.statusCode, sent.body).toBe(200);
    const invoice = sent.json();
    const outbox = (await api.call('GET', '/api/pos/email-outbox?limit=100')).json().data as OutboxEntry[];
    const id = outbox.find((e) => e.to === 'ada.invoice@example.com')!.id;
    await api.entryIn(id, 'sent');

    const mail = await waitFor('the invoice at the SMTP server', async () => smtp.received.find((m) => m.messageId === `<${id}@register.example>`));
    expect(mail.subject).toContain(invoice.number);
    expect(mail.replyTo?.value.map((a) => a.address)).toEqual(['hello@cafe.example']);
    // One template: the same words in both parts, the HTML escaped ("Café & Market" → "Café &amp; Market"), the link live.
    expect(server.credentials.merchantName).toContain('&');
    expect(mail.text).toContain(server.credentials.merchantName);
    expect(mail.html).toContain(server.credentials.merchantName.replace(/&/g, '&amp;'));
    expect(mail.html).not.toContain(server.credentials.merchantName);
    expect(mail.html).toContain(`<a href="${invoice.payUrl}">`);
    expect(mail.attachments).toHaveLength(1);
    const [pdf] = mail.attachments;
    expect(pdf).toMatchObject({ contentType: 'application/pdf', filename: `${invoice.number}.pdf` });
    expect(pdf!.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('a 5xx to the message itself fails it without suppressing the address', async () => {
    smtp.dataAnswers.set('picky@example.com', [554]);
    const refused = await api.emailReceipt('picky@example.com');
    const failed = await api.entryIn(refused.id, 'failed', 'sent', 'bounced');
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, sentAt: null, nextAttemptAt: null });
    expect(failed.lastError).toContain('554');
    const next = await api.emailReceipt('picky@example.com');
    expect(await api.entryIn(next.id, 'sent', 'failed', 'bounced', 'suppressed')).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('two workers claiming at once send each message exactly once', async () => {
    const config = { url: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, from: FROM };
    const workers = [0, 1].map(() => new EmailDeliveryWorker(server.db, () => new Date(), config, FAST));
    try {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await api.emailReceipt(`crowd${i}@example.com`)).id);
      // The app's own worker runs too: three claimers race for the same rows.
      await Promise.all(workers.flatMap((w) => [w.runOnce(), w.runOnce()]));
      for (const id of ids) expect(await api.entryIn(id, 'sent', 'failed', 'bounced')).toMatchObject({ status: 'sent', attempts: 1 });
      for (const id of ids) expect(smtp.received.filter((m) => m.messageId === `<${id}@register.example>`)).toHaveLength(1);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it('retries a 451 once, then it is sent', async () => {
    smtp.answers.set('busy@example.com', [451, 250]);
    const { id } = await api.emailReceipt('busy@example.com');
    const sent = await api.entryIn(id, 'sent', 'failed', 'bounced');
    expect(sent).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect(smtp.rcpts.filter((r) => r === 'busy@example.com')).toHaveLength(2);
  });

  it('a 550 for the recipient bounces it; the next message to that address is suppressed and never reaches the server', async () => {
    smtp.answers.set('gone@example.com', [550]);
    const first = await api.emailReceipt('gone@example.com');
    const bounced = await api.entryIn(first.id, 'bounced', 'failed', 'sent');
    expect(bounced).toMatchObject({ status: 'bounced', attempts: 1, sentAt: null });
    expect(bounced.lastError).toContain('550');
    // The address is suppressed for the store, whatever its case.
    const second = await api.emailReceipt('Gone@Example.com');
    const suppressed = await api.entryIn(second.id, 'suppressed', 'sent', 'failed', 'bounced');
    expect(suppressed).toMatchObject({ status: 'suppressed', attempts: 0, sentAt: null, nextAttemptAt: null });
    // A later message to another address goes through, so the worker did look at the queue after the suppressed one.
    const later = await api.emailReceipt('other@example.com');
    await api.entryIn(later.id, 'sent');
    expect(smtp.rcpts.filter((r) => r === 'gone@example.com')).toHaveLength(1);
    expect((await api.entry(second.id)).status).toBe('suppressed');
  });
});

describe.each(databaseTargets())('e-mail without SMTP_URL on $name', (target) => {
  it('keeps messages queued, never attempted, and says so once in the log at start-up', async () => {
    const lines: string[] = [];
    const server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, logger: { write: (line) => lines.push(line) } });
    try {
      const api = client(server);
      const { id } = await api.emailReceipt('ada@example.com');
      expect(await api.entry(id)).toMatchObject({ status: 'queued', attempts: 0, lastError: null, sentAt: null, messageId: null });
      const notices = lines.map((l) => JSON.parse(l) as { msg?: string }).filter((l) => l.msg?.includes('SMTP_URL is not set'));
      expect(notices).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe.each(databaseTargets())('e-mail delivery with the mail server down on $name', (target) => {
  let server: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    server = await startTestServer({
      target,
      staticDir: null,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
      emailDelivery: {
        smtp: { url: `smtp://127.0.0.1:${await deadPort()}`, from: FROM },
        pollIntervalMs: 20,
        retryBaseMs: 300,
        retryMaxMs: 5000,
        maxAttempts: 4,
      },
    });
    api = client(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is retried with backoff while the server is unreachable (no 5xx to the caller), then failed after the last attempt', async () => {
    const { id } = await api.emailReceipt('ada@example.com');
    const retrying = await waitFor('a second attempt scheduled', async () => {
      const e = await api.entry(id);
      return e.status === 'queued' && e.attempts >= 2 ? e : undefined;
    });
    expect(retrying.nextAttemptAt).toEqual(expect.any(String));
    expect(retrying.lastError).toMatch(/ECONNECTION|ECONNREFUSED|ESOCKET/);
    const failed = await api.entryIn(id, 'failed', 'sent', 'bounced');
    expect(failed).toMatchObject({ status: 'failed', attempts: 4, sentAt: null, nextAttemptAt: null });
    expect(failed.lastError).toMatch(/ECONNECTION|ECONNREFUSED|ESOCKET/);
  });
});

describe.each(databaseTargets())('DKIM-signed e-mail on $name', (target) => {
  let smtp: Capture;
  let server: TestServer;
  let api: ReturnType<typeof client>;
  let dir: string;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const selector = 'reg2026';
  /** DNS as the receiver would see it: the selector's TXT record publishes the public key; nothing else exists. */
  const resolver = async (name: string, rr: string) => {
    if (rr === 'TXT' && name === `${selector}._domainkey.register.example`)
      return [[`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`]];
    throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };

  beforeAll(async () => {
    smtp = await startCapture();
    dir = await mkdtemp(join(tmpdir(), 'dkim-'));
    const keyFile = join(dir, 'dkim.pem');
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const config = smtpConfigFromEnv({
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      SMTP_FROM: FROM,
      DKIM_PRIVATE_KEY_FILE: keyFile,
      DKIM_SELECTOR: selector,
    });
    expect(config?.dkim).toMatchObject({ domainName: 'register.example', keySelector: selector });
    expect(() => smtpConfigFromEnv({ SMTP_URL: 'smtp://h', SMTP_FROM: FROM, DKIM_PRIVATE_KEY_FILE: keyFile })).toThrow(/DKIM_SELECTOR is required/);
    expect(() =>
      smtpConfigFromEnv({ SMTP_URL: 'smtp://h', SMTP_FROM: FROM, DKIM_PRIVATE_KEY_FILE: join(dir, 'missing.pem'), DKIM_SELECTOR: selector }),
    ).toThrow(/Invalid DKIM_PRIVATE_KEY_FILE/);
    server = await startTestServer({
      target,
      staticDir: null,
      webhooks: { enabled: false },
      recurringInvoices: { enabled: false },
      emailDelivery: { smtp: config, ...FAST },
    });
    api = client(server);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('signs every message for the sender domain; mailauth verifies it, and not once the body is changed', async () => {
    const { id } = await api.emailReceipt('ada@example.com');
    await api.entryIn(id, 'sent');
    const bytes = await waitFor('the signed message', async () => smtp.raw.get(`<${id}@register.example>`));
    const verified = await dkimVerify(bytes, { resolver });
    expect(verified.results.map((r) => [r.signingDomain, r.selector, r.status.result])).toEqual([['register.example', selector, 'pass']]);
    const tampered = Buffer.from(bytes.toString('latin1').replace('Thank you!', 'Thank you?'), 'latin1');
    expect(tampered.equals(bytes)).toBe(false);
    const broken = await dkimVerify(tampered, { resolver });
    // mailauth reports a body hash mismatch as `neutral` (RFC 6376 §6.1.3: the signature does not verify); never `pass`.
    expect(broken.results.map((r) => r.status.result)).not.toContain('pass');
  });
});
