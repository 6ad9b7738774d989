import { newId } from '../../../../core/index.ts';
import type { Queryable } from '../db/db.ts';

/** One e-mail to send: `to` is an address already validated by the caller; `body` is plain text. */
export interface EmailMessage {
  merchantId: string;
  to: string;
  subject: string;
  body: string;
}

/**
 * Sends e-mail. The default ({@link OutboxEmailProvider}) writes to `email_outbox` inside the caller's transaction, so
 * a message exists exactly when the receipt or invoice it carries does; a real provider adapter would drain the outbox.
 */
export interface EmailProvider {
  send(message: EmailMessage, context: { tx: Queryable; now: Date }): Promise<{ id: string }>;
}

/** The default e-mail provider: queues the message in `email_outbox` (no mail server here). */
export class OutboxEmailProvider implements EmailProvider {
  async send(message: EmailMessage, context: { tx: Queryable; now: Date }): Promise<{ id: string }> {
    const id = newId('email');
    await context.tx.query(
      `INSERT INTO email_outbox (id, merchant_id, to_address, subject, body, created_at, status) VALUES ($1, $2, $3, $4, $5, $6, 'queued')`,
      [id, message.merchantId, message.to, message.subject, message.body, context.now.toISOString()],
    );
    return { id };
  }
}
