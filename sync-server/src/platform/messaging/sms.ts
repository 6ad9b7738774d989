import { newId } from '../../../../core/index.ts';
import type { SmsProvider } from '../context.ts';

/** The default SMS provider: queues the message in `sms_outbox` in the caller's transaction (no carrier here). */
export class OutboxSmsProvider implements SmsProvider {
  async send(message: { merchantId: string; to: string; body: string }, context: { tx: import('../db/db.ts').Queryable; now: Date }) {
    const id = newId('sms');
    await context.tx.query(`INSERT INTO sms_outbox (id, merchant_id, to_phone, body, created_at, status) VALUES ($1, $2, $3, $4, $5, 'queued')`, [
      id,
      message.merchantId,
      message.to,
      message.body,
      context.now.toISOString(),
    ]);
    return { id };
  }
}
