import { newId } from '../../../../core/index.ts';
import type { SmsMessage, SmsProvider } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';

/**
 * The SMS provider: queues the message in `sms_outbox` in the caller's transaction (this module owns the table); the
 * delivery worker (worker.ts) sends it through the configured carrier. A message to a phone that opted out of this store's
 * texts (`sms_opt_outs`) is written `opted_out` and never sent. Its `kind` says whether it can wait through the store's
 * quiet hours (worker.ts).
 */
export class OutboxSmsProvider implements SmsProvider {
  async send(message: SmsMessage, context: { tx: Queryable; now: Date }) {
    const id = newId('sms');
    await context.tx.query(
      `INSERT INTO sms_outbox (id, merchant_id, to_phone, body, kind, created_at, updated_at, subject_ref, status)
       VALUES ($1, $2, $3, $4, $6, $5, $5, $7,
               CASE WHEN EXISTS (SELECT 1 FROM sms_opt_outs WHERE merchant_id = $2 AND phone = $3) THEN 'opted_out' ELSE 'queued' END)`,
      [id, message.merchantId, message.to, message.body, context.now.toISOString(), message.kind, message.subjectRef ?? null],
    );
    return { id };
  }
}
