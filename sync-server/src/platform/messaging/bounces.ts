/**
 * Bounces and complaints that arrive later, by mail (docs/decisions/0096-bounces-and-complaints-by-mail.md):
 * - every e-mail goes out with a VERP envelope sender, `bounces+<email id>.<mac>@<bounce domain>`, the MAC an
 *   HMAC-SHA256 of the id under a key derived from the deployment's KEK ({@link verpAddress}): a report names the
 *   message it is about and cannot be forged without the key;
 * - an inbound SMTP listener (`smtp-server`) on `BOUNCE_SMTP_PORT` takes the reports the Internet's mail servers send to
 *   that address ({@link BounceListener}): delivery status notifications (RFC 3464, `multipart/report;
 *   report-type=delivery-status`) and feedback-loop complaints (ARF, RFC 5965, `report-type=feedback-report`), parsed
 *   with `mailparser` ({@link parseEmailReport});
 * - what a report changes is written by {@link applyEmailReport} (this folder writes `email_outbox` and
 *   `email_suppressions`), inside the kernel's mutation that app.ts wraps around it with its audit entry.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { simpleParser, type HeaderValue } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Queryable } from '../db/db.ts';

/** Where reports come back to and how they are recognised ({@link bounceConfigFromEnv}). */
export interface BounceConfig {
  /** The domain of the VERP envelope sender; its MX points at the listener. */
  domain: string;
  /** The listener's TCP port; null: this instance sends with VERP but does not listen. */
  port: number | null;
  /** The address the listener binds [0.0.0.0]. */
  host: string;
}

/**
 * The bounce settings of a deployment from its environment: null unless `BOUNCE_DOMAIN` or `BOUNCE_SMTP_PORT` is set
 * (e-mail then keeps `SMTP_FROM` as its envelope sender, as before). `BOUNCE_DOMAIN` defaults to the domain of
 * `smtpFrom`; `BOUNCE_SMTP_HOST` to `0.0.0.0`.
 * @throws Error naming the variable when one is malformed (main.ts stops at start-up).
 */
export function bounceConfigFromEnv(env: Record<string, string | undefined>, smtpFrom: string | null): BounceConfig | null {
  const domainVar = env.BOUNCE_DOMAIN?.trim();
  const portVar = env.BOUNCE_SMTP_PORT?.trim();
  if (!domainVar && !portVar) return null;
  const domain = (domainVar || (smtpFrom ? smtpFrom.slice(smtpFrom.lastIndexOf('@') + 1) : '')).toLowerCase();
  if (!domain) throw new Error('BOUNCE_DOMAIN is required when SMTP_FROM is not set: the domain bounces come back to (its MX is this server).');
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain))
    throw new Error(`Invalid BOUNCE_DOMAIN: "${domain}" is not a domain name.`);
  let port: number | null = null;
  if (portVar) {
    port = Number(portVar);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid BOUNCE_SMTP_PORT: "${portVar}" is not a TCP port (0–65535).`);
  }
  return { domain, port, host: env.BOUNCE_SMTP_HOST?.trim() || '0.0.0.0' };
}

/** The MAC of a VERP address: the first 16 bytes of HMAC-SHA256(key, lower-case id), lower-case hex (local parts may be lower-cased on the way). */
function verpMac(key: string, emailId: string): string {
  return createHmac('sha256', key).update(`verp:${emailId.toLowerCase()}`).digest('hex').slice(0, 32);
}

/**
 * The envelope sender (RFC 5321 MAIL FROM) of e-mail `emailId` (`eml_<ULID>`): `bounces+<id>.<mac>@<domain>`, lower
 * case. `key` is the deployment's bounce key (app.ts derives it from the KEK). Pure.
 */
export function verpAddress(key: string, domain: string, emailId: string): string {
  return `bounces+${emailId.toLowerCase()}.${verpMac(key, emailId)}@${domain.toLowerCase()}`;
}

/**
 * The e-mail id a VERP address names (`eml_<ULID>`, the ULID upper case again), or null when `address` is not one of
 * `domain` or its MAC does not verify under `key` (compared in constant time). Any case. Pure.
 */
export function emailIdOfVerp(key: string, domain: string, address: string): string | null {
  const match = /^bounces\+(eml_[0-9a-z]{26})\.([0-9a-f]{32})@(.+)$/.exec(address.trim().toLowerCase());
  if (!match || match[3] !== domain.toLowerCase()) return null;
  const emailId = `eml_${match[1]!.slice(4).toUpperCase()}`;
  const expected = Buffer.from(verpMac(key, emailId), 'hex');
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex')) ? emailId : null;
}

/** One recipient's block of a delivery status notification (RFC 3464 §2.3). */
export interface DsnRecipient {
  /** `failed`, `delayed`, `delivered`, `relayed` or `expanded`, lower case. */
  action: string;
  /** The enhanced status code (RFC 3463), e.g. `5.1.1`. */
  status: string;
  /** The address, type removed (`rfc822;` dropped). */
  finalRecipient: string | null;
  /** The remote server's answer, e.g. `smtp; 550 5.1.1 User unknown`. */
  diagnosticCode: string | null;
}

/** A report as read from the mail: what kind, what it says, and every address that may name our message. */
export type EmailReport = (
  | { type: 'delivery-status'; recipients: DsnRecipient[] }
  | { type: 'feedback-report'; feedbackType: string; originalRcptTo: string | null; userAgent: string | null }
) & {
  /** Where the report may carry our VERP sender: the report's envelope recipients, Original-Mail-From, the original's Return-Path. */
  candidates: string[];
};

/** A header's value as text (mailparser structures some: addresses, content types). */
function fieldText(value: HeaderValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value.trim();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return fieldText(value[0]);
  if (typeof value === 'object' && 'text' in value && typeof value.text === 'string') return value.text.trim();
  if (typeof value === 'object' && 'value' in value && typeof value.value === 'string') return value.value.trim();
  return null;
}

/** An address field value (`rfc822; a@b`, `<a@b>`) as the bare address, lower case. */
function bareAddress(value: string | null): string | null {
  if (!value) return null;
  const address = value
    .replace(/^[a-z0-9-]+\s*;\s*/i, '')
    .replace(/^<|>$/g, '')
    .trim()
    .toLowerCase();
  return address.includes('@') ? address : null;
}

/**
 * The field groups of a `message/delivery-status` or `message/feedback-report` body (header fields, groups separated
 * by a blank line — RFC 3464 §2.1, RFC 5965 §3.1), each read by mailparser as a header block (folding, case).
 */
async function fieldGroups(body: Buffer): Promise<Map<string, HeaderValue>[]> {
  const groups = body
    .toString('utf8')
    .replace(/\r\n/g, '\n')
    .split(/\n[ \t]*\n/)
    .filter((g) => g.trim() !== '');
  return Promise.all(groups.map(async (group) => (await simpleParser(`${group.replace(/\n/g, '\r\n')}\r\n\r\n`)).headers));
}

/**
 * Reads a report received by mail (`raw`: the RFC 5322 message; `envelopeTo`: the SMTP recipients it came to) with
 * mailparser: a `multipart/report` of `report-type` `delivery-status` (its per-recipient Action, Status,
 * Final-Recipient, Diagnostic-Code) or `feedback-report` (Feedback-Type, Original-Rcpt-To, Original-Mail-From, the
 * original message's headers). Embedded messages are kept whole (`ignoreEmbedded`) and their headers read again.
 * Returns null for any other message (a reply, spam): it changes nothing.
 */
export async function parseEmailReport(raw: Buffer | string, envelopeTo: readonly string[]): Promise<EmailReport | null> {
  const mail = await simpleParser(raw, { keepDeliveryStatus: true, ignoreEmbedded: true, skipHtmlToText: true, skipTextToHtml: true });
  const contentType = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (contentType?.value?.toLowerCase() !== 'multipart/report') return null;
  const reportType = contentType.params?.['report-type']?.toLowerCase();
  const candidates = envelopeTo.map((a) => a.toLowerCase());
  // The original message (or its headers): its Return-Path is the envelope sender we used.
  for (const part of mail.attachments) {
    if (!['message/rfc822', 'text/rfc822-headers', 'message/global', 'message/global-headers'].includes(part.contentType)) continue;
    const original = await simpleParser(part.content.toString('utf8').replace(/\r?\n/g, '\r\n') + '\r\n');
    const returnPath = bareAddress(fieldText(original.headers.get('return-path')));
    if (returnPath) candidates.push(returnPath);
  }
  const body = (type: string) => mail.attachments.find((a) => a.contentType === type)?.content;
  if (reportType === 'delivery-status') {
    const status = body('message/delivery-status') ?? body('message/global-delivery-status');
    if (!status) return null;
    const [, ...perRecipient] = await fieldGroups(status);
    const recipients = perRecipient
      .map((g) => ({
        action: (fieldText(g.get('action')) ?? '').toLowerCase(),
        status: /^\d\.\d{1,3}\.\d{1,3}/.exec(fieldText(g.get('status')) ?? '')?.[0] ?? '',
        finalRecipient: bareAddress(fieldText(g.get('final-recipient'))),
        diagnosticCode: fieldText(g.get('diagnostic-code'))?.replace(/\s+/g, ' ') ?? null,
      }))
      .filter((r) => r.action !== '' && r.status !== '');
    return recipients.length > 0 ? { type: 'delivery-status', recipients, candidates } : null;
  }
  if (reportType === 'feedback-report') {
    const report = body('message/feedback-report');
    if (!report) return null;
    const [fields] = await fieldGroups(report);
    const feedbackType = fieldText(fields?.get('feedback-type'))?.toLowerCase();
    if (!fields || !feedbackType) return null;
    const mailFrom = bareAddress(fieldText(fields.get('original-mail-from')));
    if (mailFrom) candidates.splice(envelopeTo.length, 0, mailFrom);
    return {
      type: 'feedback-report',
      feedbackType,
      originalRcptTo: bareAddress(fieldText(fields.get('original-rcpt-to'))),
      userAgent: fieldText(fields.get('user-agent')),
      candidates,
    };
  }
  return null;
}

/** What a report did to its message ({@link applyEmailReport}). */
export interface EmailReportOutcome {
  /** `bounced` (a permanent failure), `complained` (a complaint), `recorded` (transient or informational: no change of state). */
  effect: 'bounced' | 'complained' | 'recorded';
  /** The address suppressed (lower case), or null. */
  suppressed: string | null;
  /** What was recorded as the reason, e.g. `bounce: 5.1.1 smtp; 550 5.1.1 User unknown`. */
  reason: string;
}

/** The permanent failure of a delivery status notification, if any: Action failed with a 5.x.x status. */
function permanentFailure(recipients: DsnRecipient[]): DsnRecipient | null {
  return recipients.find((r) => r.action === 'failed' && r.status.startsWith('5.')) ?? null;
}

/**
 * Applies `report` about e-mail `message` (already identified by its verified VERP address) inside the caller's
 * transaction — the caller's mutation audits it:
 * - a permanent failure (Action `failed`, Status 5.x.x) makes the message `bounced` and suppresses its address for the
 *   store (`bounce: <status> <diagnostic>`);
 * - a complaint (Feedback-Type `abuse`) makes it `complained` and suppresses the address (`complaint: abuse …`);
 * - anything else (Action `delayed`, a 4.x.x status, `delivered`, another feedback type) is recorded in the message's
 *   `last_error` only: it is not suppressed nor retried for it.
 * A message already `bounced`, `complained` or `suppressed` keeps its state; a suppression already recorded is kept.
 */
export async function applyEmailReport(
  tx: Queryable,
  message: { id: string; merchantId: string; toAddress: string },
  report: EmailReport,
  now: Date,
): Promise<EmailReportOutcome> {
  let effect: EmailReportOutcome['effect'];
  let reason: string;
  if (report.type === 'delivery-status') {
    const failure = permanentFailure(report.recipients);
    const shown = failure ?? report.recipients[0]!;
    effect = failure ? 'bounced' : 'recorded';
    reason = `${failure ? 'bounce' : `${shown.action} (not suppressed)`}: ${shown.status}${shown.diagnosticCode ? ` ${shown.diagnosticCode}` : ''}`;
  } else {
    effect = report.feedbackType === 'abuse' ? 'complained' : 'recorded';
    reason = `complaint: ${report.feedbackType}${report.userAgent ? ` (feedback report from ${report.userAgent})` : ' (feedback report)'}`;
    if (effect === 'recorded') reason = `${reason}, not suppressed`;
  }
  reason = reason.slice(0, 500);
  if (effect === 'recorded') {
    await tx.query(`UPDATE email_outbox SET last_error = $2 WHERE id = $1 AND status = 'sent'`, [message.id, reason]);
    return { effect, suppressed: null, reason };
  }
  await tx.query(
    `UPDATE email_outbox SET status = $2, last_error = $3, next_attempt_at = NULL, locked_until = NULL
      WHERE id = $1 AND status NOT IN ('bounced', 'complained', 'suppressed')`,
    [message.id, effect, reason],
  );
  const inserted = await tx.query(
    `INSERT INTO email_suppressions (merchant_id, address, reason, email_id, created_at) VALUES ($1, lower($2), $3, $4, $5)
     ON CONFLICT (merchant_id, address) DO NOTHING RETURNING address`,
    [message.merchantId, message.toAddress, reason, message.id, now.toISOString()],
  );
  return { effect, suppressed: inserted.rows.length > 0 ? message.toAddress.toLowerCase() : null, reason };
}

/** The message a verified VERP address names: its store and recipient, or null when no such message exists. */
export async function reportedEmail(db: Queryable, emailId: string): Promise<{ id: string; merchantId: string; toAddress: string } | null> {
  const { rows } = await db.query<{ id: string; merchant_id: string; to_address: string }>(
    'SELECT id, merchant_id, to_address FROM email_outbox WHERE id = $1',
    [emailId],
  );
  const row = rows[0];
  return row ? { id: row.id, merchantId: row.merchant_id, toAddress: row.to_address } : null;
}

/** Largest report accepted, bytes: a DSN or ARF report with the original message (an invoice's PDF included). */
const MAX_REPORT_BYTES = 10 * 1024 * 1024;

/**
 * The inbound SMTP listener of reports: accepts mail for any address of the bounce domain (VERP senders, and the
 * address a feedback loop is registered with), refuses every other recipient (550: not a relay), reads each message
 * up to 10 MiB and hands it to `onMessage` (app.ts: parse, verify, apply in a mutation). A message `onMessage`
 * throws on is answered 451 (the sending server tries again later). No authentication: reports come from the
 * Internet's mail servers, and what they say is believed only for a verified VERP address.
 */
export class BounceListener {
  private readonly server: SMTPServer;

  constructor(
    private readonly config: BounceConfig,
    onMessage: (raw: Buffer, envelopeTo: string[]) => Promise<void>,
    options: { onError?: (err: unknown) => void } = {},
  ) {
    const domain = config.domain.toLowerCase();
    this.server = new SMTPServer({
      name: domain,
      banner: 'Register bounce and complaint intake',
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      size: MAX_REPORT_BYTES,
      logger: false,
      closeTimeout: 1000,
      onRcptTo(address, _session, callback) {
        if (address.address.toLowerCase().endsWith(`@${domain}`)) return callback();
        const err = new Error(`5.7.1 <${address.address}>: relay access denied`) as Error & { responseCode: number };
        err.responseCode = 550;
        callback(err);
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if ((stream as { sizeExceeded?: boolean }).sizeExceeded) {
            const err = new Error('5.3.4 message too big') as Error & { responseCode: number };
            err.responseCode = 552;
            return callback(err);
          }
          onMessage(
            Buffer.concat(chunks),
            session.envelope.rcptTo.map((r) => r.address),
          ).then(
            () => callback(),
            (e: unknown) => {
              options.onError?.(e);
              const err = new Error('4.3.0 the report could not be recorded, try again later') as Error & { responseCode: number };
              err.responseCode = 451;
              callback(err);
            },
          );
        });
      },
    });
    this.server.on('error', (err) => options.onError?.(err));
  }

  /** Starts listening on the configured port and host; resolves with the port bound (port 0: one chosen by the system). */
  async start(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.server.once('error', reject);
      this.server.listen(this.config.port ?? 0, this.config.host, () => {
        this.server.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.server.address() as { port: number }).port;
  }

  /** Stops listening and closes open sessions. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
