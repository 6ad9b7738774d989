/**
 * E-mail delivery over SMTP (docs/decisions/0090-email-over-smtp.md): the worker that drains `email_outbox`, which
 * callers write in their own transaction (platform/messaging/email.ts), through a pooled Nodemailer transport to the
 * deployment's mail server (`SMTP_URL`).
 *
 * States of a message: `queued` → `sending` → `sent` (with the Message-ID sent and the time). A temporary failure — no
 * connection, a timeout, an SMTP 4xx answer, any error without an SMTP 5xx code — puts it back to `queued` with
 * `next_attempt_at` after an exponential backoff (1, 2, 4 … minutes, at most 1 hour; configurable) and the error in
 * `last_error`; after the last allowed attempt (8 by default) it is `failed`. A permanent (5xx) refusal of the recipient
 * makes it `bounced` and records the address in `email_suppressions` for the store: later messages to that address
 * are `suppressed`, never sent nor retried. A permanent refusal of the message itself (5xx to DATA) makes it `failed`.
 *
 * Several server processes share the outbox: messages are claimed with `FOR UPDATE SKIP LOCKED` and a lease
 * (`locked_until`), and no SMTP call runs inside a database transaction. A message whose worker stopped while sending
 * (state `sending`, lease over) is claimed again and counts as a further attempt. (On PGlite there is one connection
 * and the same SQL simply runs.)
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createTransport, type Transporter } from 'nodemailer';
import type { Db } from '../db/db.ts';
import { verpAddress } from './bounces.ts';
import { emailHtml } from './email-templates.ts';
import type { EmailKind } from './email.ts';
import { PollingLoop, retryDelayMs } from '../polling-loop.ts';

/** The deployment's mail server and sender, from `SMTP_URL` and `SMTP_FROM` ({@link smtpConfigFromEnv}). */
export interface SmtpConfig {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465` (TLS from the start). */
  url: string;
  /** The sender address of every message (bare address); the store's name is its display name. */
  from: string;
  /**
   * DKIM signing of every message (RFC 6376, rsa-sha256 or ed25519-sha256 by the key's type): the signing domain, the
   * selector (the public key is published at `<selector>._domainkey.<domain>`) and the private key, PEM.
   */
  dkim?: { domainName: string; keySelector: string; privateKey: string };
}

/** A file attached at send time: `filename`, MIME `contentType`, the bytes. */
export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: Uint8Array;
}

/**
 * Renders the attachment an outbox row names (`attachment_kind` → renderer, `attachment_ref` → its argument), at
 * send time. Throwing fails that attempt like a temporary SMTP error (retried with backoff).
 */
export type EmailAttachmentRenderer = (merchantId: string, ref: string) => Promise<EmailAttachment>;

/** The delivery worker's knobs; defaults in brackets. */
export interface EmailDeliveryOptions {
  /** Run the worker in this instance when SMTP is configured [true]. */
  enabled?: boolean;
  /** How often to look for due messages when idle, ms [1000]. */
  pollIntervalMs?: number;
  /** Backoff before the retry after attempt n: min(retryBaseMs × 2^(n−1), retryMaxMs), ms [60 000 and 3 600 000]. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Attempts before a message is `failed` [8]. */
  maxAttempts?: number;
  /** Messages claimed per round [10]. */
  batchSize?: number;
  /** How long a claimed message stays leased to this worker, ms [300 000]; longer than any SMTP timeout below. */
  leaseMs?: number;
  /** Renderers of attachments by `attachment_kind` (app.ts gives `invoice_pdf`). */
  attachments?: Record<string, EmailAttachmentRenderer>;
  /**
   * Bounces by mail (platform/messaging/bounces.ts): with it each message's envelope sender is its VERP address
   * `bounces+<id>.<mac>@<domain>`, and a DSN-capable server is asked to report failures and delays with the
   * headers only (RET=HDRS, ENVID the message id); without it the envelope sender is `SMTP_FROM`.
   */
  bounces?: { domain: string; key: string };
  /** Where unexpected worker errors go (default: ignored; the next round retries). */
  onError?: (err: unknown) => void;
}

/** A valid bare e-mail address: local part, `@`, a domain; no spaces, angle brackets, quotes or commas. */
const ADDRESS = /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+$/;

/**
 * The SMTP configuration of a deployment from its environment: null without `SMTP_URL` (messages then stay queued).
 * `SMTP_URL` must be an `smtp:` or `smtps:` URL with a host; `SMTP_FROM` (required with it) a bare address. DKIM
 * signing when `DKIM_PRIVATE_KEY` (the PEM private key itself — the sealed deployment secret, main.ts) or else
 * `DKIM_PRIVATE_KEY_FILE` (a PEM file, read now) is set: `DKIM_SELECTOR` is then required and `DKIM_DOMAIN` defaults
 * to the domain of `SMTP_FROM`.
 * @throws Error naming the variable when one is missing or malformed, or the key file unreadable (main.ts stops at start-up).
 */
export function smtpConfigFromEnv(env: Record<string, string | undefined>): SmtpConfig | null {
  const url = env.SMTP_URL?.trim();
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('Invalid SMTP_URL: not a URL; use smtp://user:pass@host:587 or smtps://user:pass@host:465.');
  }
  if (!['smtp:', 'smtps:'].includes(parsed.protocol) || !parsed.hostname)
    throw new Error(`Invalid SMTP_URL: the scheme must be smtp: or smtps: with a host (got ${parsed.protocol}//${parsed.hostname}).`);
  const from = env.SMTP_FROM?.trim();
  if (!from) throw new Error('SMTP_FROM is required with SMTP_URL: the sender address of every e-mail, e.g. receipts@store.example.');
  if (!ADDRESS.test(from)) throw new Error(`Invalid SMTP_FROM: "${from}" is not a bare e-mail address (e.g. receipts@store.example).`);
  const keyPem = env.DKIM_PRIVATE_KEY?.trim();
  const keyFile = env.DKIM_PRIVATE_KEY_FILE?.trim();
  if (!keyPem && !keyFile) return { url, from };
  const keyVariable = keyPem ? 'DKIM_PRIVATE_KEY' : 'DKIM_PRIVATE_KEY_FILE';
  const keySelector = env.DKIM_SELECTOR?.trim();
  if (!keySelector || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(keySelector))
    throw new Error(`DKIM_SELECTOR is required with ${keyVariable}: the selector the public key is published under (letters, digits, . _ -).`);
  const domainName = env.DKIM_DOMAIN?.trim() || from.slice(from.lastIndexOf('@') + 1);
  if (!/^[^\s@]+\.[^\s@]+$/.test(domainName)) throw new Error(`Invalid DKIM_DOMAIN: "${domainName}" is not a domain name.`);
  let privateKey: string;
  try {
    privateKey = keyPem ? `${keyPem}\n` : readFileSync(keyFile!, 'utf8');
    createPrivateKey(privateKey);
  } catch (err) {
    // The key's own bytes never go into the message (a parse error may quote them): only what was wrong.
    const why = keyPem ? 'is not a PEM private key' : `${keyFile} is not a readable PEM private key (${(err as Error).message})`;
    throw new Error(`Invalid ${keyVariable}: ${why}.`);
  }
  return { url, from, dkim: { domainName, keySelector, privateKey } };
}

/** How an attempt ended: the three outcomes the states follow from. */
type Outcome = { kind: 'sent'; messageId: string } | { kind: 'temporary' | 'bounced' | 'rejected'; error: string };

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  command?: string;
  response?: string;
}

/** Reads a Nodemailer error: a 5xx to RCPT TO → the recipient bounced; a 5xx to the message → rejected; else temporary. */
function classify(err: unknown): Outcome {
  const e = err as SmtpError;
  const status = typeof e.responseCode === 'number' ? e.responseCode : null;
  const error = `${e.code ?? e.name ?? 'Error'}${status ? ` ${status}` : ''}: ${e.response ?? e.message}`.slice(0, 500);
  if (status !== null && status >= 500 && status < 600) {
    // Nodemailer names the command answered: `RCPT TO`, `DATA`, `MAIL FROM` (all with code EENVELOPE), or the
    // message itself (EMESSAGE). A refused sender (MAIL FROM) or login is the deployment's to fix: temporary.
    if (/^RCPT/i.test(e.command ?? '')) return { kind: 'bounced', error };
    if (e.code === 'EMESSAGE' || /^DATA/i.test(e.command ?? '')) return { kind: 'rejected', error };
  }
  return { kind: 'temporary', error };
}

interface ClaimedEmail {
  id: string;
  merchant_id: string;
  to_address: string;
  subject: string;
  body: string;
  kind: EmailKind;
  attempts: number;
  message_id: string;
  attachment_kind: string | null;
  attachment_ref: string | null;
  store_name: string;
  reply_to: string | null;
}

/**
 * The delivery worker: started by buildApp when `SMTP_URL` is set, stopped when the app closes. Each round claims the
 * due messages and sends them; tests and tools can drive it with {@link EmailDeliveryWorker.runOnce}.
 */
export class EmailDeliveryWorker {
  private readonly transport: Transporter;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly maxAttempts: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly domain: string;
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
    private readonly smtp: SmtpConfig,
    private readonly options: EmailDeliveryOptions = {},
  ) {
    this.retryBaseMs = options.retryBaseMs ?? 60_000;
    this.retryMaxMs = options.retryMaxMs ?? 3_600_000;
    this.maxAttempts = options.maxAttempts ?? 8;
    this.batchSize = options.batchSize ?? 10;
    this.leaseMs = options.leaseMs ?? 300_000;
    this.domain = smtp.from.slice(smtp.from.lastIndexOf('@') + 1);
    // Pooled: connections are reused across messages (at most 5). TLS and credentials come from the URL.
    this.transport = createTransport({
      url: smtp.url,
      pool: true,
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 60_000,
      ...(smtp.dkim ? { dkim: smtp.dkim } : {}),
    });
    this.loop = new PollingLoop(async () => (await this.runOnce()) > 0, options.pollIntervalMs ?? 1000, options.onError);
  }

  /** Starts polling (idempotent). */
  start(): void {
    this.loop.start();
  }

  /** Stops polling, waits for the round in progress, then closes the pooled connections. */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.transport.close();
  }

  /** One round: claims up to `batchSize` due messages and attempts each. Returns how many it claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    await Promise.all(claimed.map((m) => this.attempt(m)));
    return claimed.length;
  }

  /**
   * Claims due messages in one transaction: `queued` ones whose time has come and `sending` ones whose lease ran out.
   * Those to a suppressed address become `suppressed`; those whose attempts are spent (the last one's outcome unknown)
   * `failed`; the rest `sending`, one more attempt counted, leased to this worker.
   */
  private async claim(): Promise<ClaimedEmail[]> {
    // Not a mutation: the outbox relay's own bookkeeping (delivery state of committed messages), no business row.
    return this.db.transaction(async (tx) => {
      const now = this.clock().toISOString();
      const due = await tx.query<{ id: string }>(
        `SELECT id FROM email_outbox
          WHERE (status = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= $1))
             OR (status = 'sending' AND locked_until <= $1)
          ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now, this.batchSize],
      );
      if (due.rows.length === 0) return [];
      const { rows } = await tx.query<ClaimedEmail & { suppressed_by: string | null }>(
        `SELECT o.id, o.merchant_id, o.to_address, o.subject, o.body, o.kind, o.attempts, o.message_id, o.attachment_kind, o.attachment_ref,
                m.name AS store_name, m.email_reply_to AS reply_to, s.reason AS suppressed_by
           FROM email_outbox o JOIN merchants m ON m.id = o.merchant_id
           LEFT JOIN email_suppressions s ON s.merchant_id = o.merchant_id AND s.address = lower(o.to_address)
          WHERE o.id = ANY($1::text[]) ORDER BY o.created_at, o.id`,
        [due.rows.map((r) => r.id)],
      );
      const lease = new Date(Date.parse(now) + this.leaseMs).toISOString();
      const claimed: ClaimedEmail[] = [];
      for (const { suppressed_by, ...row } of rows) {
        const attempts = Number(row.attempts);
        if (suppressed_by !== null) {
          await tx.query(
            `UPDATE email_outbox SET status = 'suppressed', next_attempt_at = NULL, locked_until = NULL, last_error = $2 WHERE id = $1`,
            [row.id, `not sent: ${row.to_address} is suppressed (${suppressed_by})`.slice(0, 500)],
          );
        } else if (attempts >= this.maxAttempts) {
          await tx.query(
            `UPDATE email_outbox SET status = 'failed', next_attempt_at = NULL, locked_until = NULL,
                    last_error = 'the outcome of the last attempt is unknown (the worker stopped while sending)' WHERE id = $1`,
            [row.id],
          );
        } else {
          const messageId = row.message_id ?? `<${row.id}@${this.domain}>`;
          await tx.query(`UPDATE email_outbox SET status = 'sending', attempts = $2, locked_until = $3, message_id = $4 WHERE id = $1`, [
            row.id,
            attempts + 1,
            lease,
            messageId,
          ]);
          claimed.push({ ...row, attempts: attempts + 1, message_id: messageId });
        }
      }
      return claimed;
    });
  }

  /** Sends one claimed message (outside any transaction) and records its outcome. */
  private async attempt(m: ClaimedEmail): Promise<void> {
    let outcome: Outcome;
    try {
      const attachment = m.attachment_kind ? await this.render(m) : null;
      const bounces = this.options.bounces;
      const info = (await this.transport.sendMail({
        messageId: m.message_id,
        ...(bounces
          ? {
              envelope: { from: verpAddress(bounces.key, bounces.domain, m.id), to: [m.to_address] },
              dsn: { id: m.id, return: 'headers', notify: ['failure', 'delay'], recipient: m.to_address },
            }
          : {}),
        from: { name: m.store_name, address: this.smtp.from },
        to: m.to_address,
        ...(m.reply_to ? { replyTo: m.reply_to } : {}),
        subject: m.subject,
        text: m.body,
        html: emailHtml(m.kind, m.body),
        ...(attachment
          ? { attachments: [{ filename: attachment.filename, contentType: attachment.contentType, content: Buffer.from(attachment.content) }] }
          : {}),
      })) as { messageId?: string };
      outcome = { kind: 'sent', messageId: info.messageId ?? m.message_id };
    } catch (err) {
      outcome = classify(err);
    }
    await this.record(m, outcome);
  }

  private async render(m: ClaimedEmail): Promise<EmailAttachment> {
    const renderer = this.options.attachments?.[m.attachment_kind!];
    if (!renderer) throw new Error(`no renderer for attachments of kind ${m.attachment_kind}`);
    return renderer(m.merchant_id, m.attachment_ref ?? '');
  }

  /** Writes an attempt's outcome, unless another worker took the message over after this one's lease ran out. */
  private async record(m: ClaimedEmail, outcome: Outcome): Promise<void> {
    const now = this.clock();
    // Not a mutation: the outbox relay's own bookkeeping (an attempt's outcome), no business row, no audit entry.
    await this.db.transaction(async (tx) => {
      const mine = `WHERE id = $1 AND status = 'sending' AND attempts = $2 RETURNING id`;
      if (outcome.kind === 'sent') {
        await tx.query(
          `UPDATE email_outbox SET status = 'sent', sent_at = $3, message_id = $4, last_error = NULL, locked_until = NULL, next_attempt_at = NULL ${mine}`,
          [m.id, m.attempts, now.toISOString(), outcome.messageId],
        );
        return;
      }
      const spent = m.attempts >= this.maxAttempts;
      const status = outcome.kind === 'bounced' ? 'bounced' : outcome.kind === 'rejected' || spent ? 'failed' : 'queued';
      const next = status === 'queued' ? new Date(now.getTime() + retryDelayMs(m.attempts, this.retryBaseMs, this.retryMaxMs)).toISOString() : null;
      const updated = await tx.query(`UPDATE email_outbox SET status = $3, next_attempt_at = $4, last_error = $5, locked_until = NULL ${mine}`, [
        m.id,
        m.attempts,
        status,
        next,
        outcome.error,
      ]);
      if (status === 'bounced' && updated.rows.length > 0) {
        await tx.query(
          `INSERT INTO email_suppressions (merchant_id, address, reason, email_id, created_at) VALUES ($1, lower($2), $3, $4, $5)
           ON CONFLICT (merchant_id, address) DO NOTHING`,
          [m.merchant_id, m.to_address, outcome.error, m.id, now.toISOString()],
        );
      }
    });
  }
}
