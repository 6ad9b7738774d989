import { newId } from '../../../../core/index.ts';
import type { Queryable } from '../db/db.ts';

/** The kinds of e-mail the server sends; each has its own HTML template (platform/messaging/email-templates.ts). */
export type EmailKind = 'receipt' | 'invoice' | 'notice';

/**
 * What to attach to a message, rendered by the delivery worker at send time (not stored in the outbox): `kind` names
 * a renderer given to the worker (e.g. `invoice_pdf`), `ref` what it renders (e.g. the invoice id).
 */
export interface EmailAttachmentRef {
  kind: string;
  ref: string;
}

/** One e-mail to send: `to` is an address already validated by the caller; `body` is plain text. */
export interface EmailMessage {
  merchantId: string;
  to: string;
  subject: string;
  body: string;
  /** Which template renders its HTML part; default `notice`. */
  kind?: EmailKind;
  attachment?: EmailAttachmentRef;
  /** What the message is about, `invoice:<id>`, `order:<id>` (a receipt), `pay_request:<id>`; none for notices. */
  subjectRef?: string;
}

/**
 * Sends e-mail. The default ({@link OutboxEmailProvider}) writes to `email_outbox` inside the caller's transaction, so
 * a message exists exactly when the receipt or invoice it carries does; the delivery worker (platform/messaging/smtp.ts)
 * drains the outbox over SMTP when the deployment sets `SMTP_URL`.
 */
export interface EmailProvider {
  send(message: EmailMessage, context: { tx: Queryable; now: Date }): Promise<{ id: string }>;
}

/** The default e-mail provider: queues the message in `email_outbox` (state `queued`, due at once). */
export class OutboxEmailProvider implements EmailProvider {
  async send(message: EmailMessage, context: { tx: Queryable; now: Date }): Promise<{ id: string }> {
    const id = newId('email');
    await context.tx.query(
      `INSERT INTO email_outbox (id, merchant_id, to_address, subject, body, created_at, status, kind, attachment_kind, attachment_ref, subject_ref)
       VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8, $9, $10)`,
      [
        id,
        message.merchantId,
        message.to,
        message.subject,
        message.body,
        context.now.toISOString(),
        message.kind ?? 'notice',
        message.attachment?.kind ?? null,
        message.attachment?.ref ?? null,
        message.subjectRef ?? null,
      ],
    );
    return { id };
  }
}

/**
 * Lifts the store's suppression of `address` (case-insensitive): later messages to it are sent again. The caller audits
 * it inside its mutation. Returns what was recorded (the mail server's answer, the message that bounced), or null when
 * the address was not suppressed.
 */
export async function liftEmailSuppression(
  tx: Queryable,
  merchantId: string,
  address: string,
): Promise<{ address: string; reason: string; emailId: string } | null> {
  const { rows } = await tx.query<{ address: string; reason: string; email_id: string }>(
    'DELETE FROM email_suppressions WHERE merchant_id = $1 AND address = lower($2) RETURNING address, reason, email_id',
    [merchantId, address],
  );
  const row = rows[0];
  return row ? { address: row.address, reason: row.reason, emailId: row.email_id } : null;
}
