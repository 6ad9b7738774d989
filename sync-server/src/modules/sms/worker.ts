/**
 * The SMS delivery worker: drains `sms_outbox` (written by outbox.ts in the caller's transaction)
 * through a {@link SmsCarrier}. `queued` → `sending` (claimed with `FOR UPDATE SKIP LOCKED` and a lease, so several
 * server processes on one PostgreSQL share the work; on PGlite the same SQL runs on its one connection) → `sent` with
 * the carrier's message id. A temporary failure puts the message back to `queued` after an exponential backoff (base,
 * 2×, 4×, … ms); after the last allowed attempt, or on a permanent failure, it is `failed` with the carrier's code. A
 * message to a phone that opted out of the store's texts becomes `opted_out` and is never sent, except the answer to
 * that phone's own STOP / START / HELP (`keyword_reply`). A text that can wait (`invoice`, `invoice_reminder`) due
 * during its store's quiet hours (core/quiet-hours.ts, in the store's time zone) is held: it stays `queued` with
 * `next_attempt_at` at the end of the quiet hours. No HTTP call runs inside a database transaction.
 *
 * A worker stopped between the carrier's answer and recording it leaves the message `sending`; once its lease ends the
 * next worker sends it again (the carrier API takes no idempotency key), unless a status callback recorded it first.
 */
import { quietHoursEnd } from '../../../../core/index.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { SmsPermanentError, SmsTemporaryError, type SmsCarrier } from './carrier.ts';
import { PollingLoop, retryDelayMs } from '../../platform/polling-loop.ts';

/** Options of {@link SmsDeliveryWorker}; every delay is injectable so tests run in seconds. */
export interface SmsDeliveryWorkerOptions {
  /** How often to look for work when idle, ms (default 1000). */
  pollIntervalMs?: number;
  /** Delay before the first retry, ms; each further retry waits twice as long (default 30 000). */
  retryBaseMs?: number;
  /** Attempts in all, the first included (default 6: retries after 30 s, 1, 2, 4 and 8 min). */
  maxAttempts?: number;
  /** How long a claimed message is reserved for its worker, ms (default 60 000; longer than a carrier call). */
  leaseMs?: number;
  /** Messages claimed per round (default 20). */
  batchSize?: number;
  /** Where unexpected worker errors go (default: ignored; the next round retries). */
  onError?: (err: unknown) => void;
}

/** The kinds of text held through the store's quiet hours; the others go at once. */
const CAN_WAIT = ['invoice', 'invoice_reminder'];

interface Claimed {
  id: string;
  to_phone: string;
  body: string;
  attempts: number;
}

/** Sends queued SMS through a carrier; `start()`/`stop()` by app.ts, or {@link SmsDeliveryWorker.runOnce} by hand. */
export class SmsDeliveryWorker {
  private readonly retryBaseMs: number;
  private readonly maxAttempts: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly loop: PollingLoop;

  /**
   * @param from the sending number given to the carrier.
   * @param statusCallbackUrl the URL the carrier reports message `id`'s states to.
   */
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
    private readonly carrier: SmsCarrier,
    private readonly from: string,
    private readonly statusCallbackUrl: (id: string) => string,
    options: SmsDeliveryWorkerOptions = {},
  ) {
    this.retryBaseMs = options.retryBaseMs ?? 30_000;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 6);
    this.leaseMs = options.leaseMs ?? 60_000;
    this.batchSize = options.batchSize ?? 20;
    this.loop = new PollingLoop(async () => (await this.runOnce()) > 0, options.pollIntervalMs ?? 1000, options.onError);
  }

  /** Starts polling (idempotent). */
  start(): void {
    this.loop.start();
  }

  /** Stops polling and waits for the round in progress (its carrier calls end within the adapter's timeout). */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One round: claims due messages, sends them and records each outcome. Returns how many it handled. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    for (const message of claimed) await this.deliver(message);
    return claimed.length;
  }

  /**
   * Claims up to `batchSize` due messages (`queued` whose retry time came, or `sending` whose lease ended): those to an
   * opted-out phone become `opted_out`, those whose last allowed attempt ended unknown `failed`, the rest `sending`
   * with one more attempt counted and a lease.
   */
  private async claim(): Promise<Claimed[]> {
    // Not a mutation: the outbox relay's own bookkeeping, no business row, no audit entry.
    return this.db.transaction(async (tx) => {
      const now = this.clock().toISOString();
      const due = await tx.query<{ id: string }>(
        `SELECT id FROM sms_outbox
          WHERE status IN ('queued', 'sending') AND (next_attempt_at IS NULL OR next_attempt_at <= $1) AND (locked_until IS NULL OR locked_until <= $1)
          ORDER BY next_attempt_at NULLS FIRST, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now, this.batchSize],
      );
      const ids = due.rows.map((r) => r.id);
      if (ids.length === 0) return [];
      const optedOut = await tx.query<{ id: string }>(
        `UPDATE sms_outbox o SET status = 'opted_out', locked_until = NULL, next_attempt_at = NULL, updated_at = $2
          WHERE o.id = ANY($1::text[]) AND o.kind <> 'keyword_reply'
            AND EXISTS (SELECT 1 FROM sms_opt_outs x WHERE x.merchant_id = o.merchant_id AND x.phone = o.to_phone)
          RETURNING o.id`,
        [ids, now],
      );
      const held = await this.holdForQuietHours(
        tx,
        ids.filter((id) => !optedOut.rows.some((r) => r.id === id)),
        now,
      );
      const left = ids.filter((id) => !optedOut.rows.some((r) => r.id === id) && !held.includes(id));
      await tx.query(
        `UPDATE sms_outbox SET status = 'failed', locked_until = NULL, next_attempt_at = NULL, updated_at = $3,
                last_error = 'the outcome of the last attempt is unknown (the worker stopped before recording it)'
          WHERE id = ANY($1::text[]) AND attempts >= $2`,
        [left, this.maxAttempts, now],
      );
      const lease = new Date(Date.parse(now) + this.leaseMs).toISOString();
      const { rows } = await tx.query<Claimed>(
        `UPDATE sms_outbox SET status = 'sending', attempts = attempts + 1, locked_until = $3, updated_at = $4
          WHERE id = ANY($1::text[]) AND attempts < $2 RETURNING id, to_phone, body, attempts`,
        [left, this.maxAttempts, lease, now],
      );
      return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
    });
  }

  /**
   * Holds the texts among `ids` that can wait and whose store is inside its quiet hours at `now`: back to `queued`
   * (a lease that ended is released) with `next_attempt_at` at the end of the quiet hours. Returns their ids.
   */
  private async holdForQuietHours(tx: Queryable, ids: string[], now: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await tx.query<{ id: string; time_zone: string; sms_quiet_start: string; sms_quiet_end: string }>(
      `SELECT o.id, m.time_zone, m.sms_quiet_start, m.sms_quiet_end FROM sms_outbox o JOIN merchants m ON m.id = o.merchant_id
        WHERE o.id = ANY($1::text[]) AND o.kind = ANY($2::text[]) AND m.sms_quiet_start IS NOT NULL AND m.sms_quiet_end IS NOT NULL`,
      [ids, CAN_WAIT],
    );
    const held: string[] = [];
    for (const row of rows) {
      const until = quietHoursEnd(new Date(now), row.time_zone, row.sms_quiet_start, row.sms_quiet_end);
      if (!until) continue;
      await tx.query(`UPDATE sms_outbox SET status = 'queued', next_attempt_at = $2, locked_until = NULL, updated_at = $3 WHERE id = $1`, [
        row.id,
        until.toISOString(),
        now,
      ]);
      held.push(row.id);
    }
    return held;
  }

  /** Sends one claimed message and records the outcome (only over `sending`: a status callback may have come first). */
  private async deliver(message: Claimed): Promise<void> {
    let outcome: { providerMessageId: string } | SmsTemporaryError | SmsPermanentError;
    try {
      outcome = await this.carrier.send({
        from: this.from,
        to: message.to_phone,
        body: message.body,
        statusCallbackUrl: this.statusCallbackUrl(message.id),
        reference: message.id,
      });
    } catch (err) {
      outcome =
        err instanceof SmsPermanentError || err instanceof SmsTemporaryError
          ? err
          : new SmsTemporaryError(err instanceof Error ? err.message : String(err));
    }
    const now = this.clock();
    if (!(outcome instanceof Error)) {
      await this.db.query(
        `UPDATE sms_outbox SET provider_message_id = COALESCE(provider_message_id, $2), status = CASE WHEN status = 'sending' THEN 'sent' ELSE status END,
                locked_until = NULL, next_attempt_at = NULL, last_error = NULL, updated_at = $3
          WHERE id = $1`,
        [message.id, outcome.providerMessageId, now.toISOString()],
      );
      return;
    }
    const isFinal = outcome instanceof SmsPermanentError || message.attempts >= this.maxAttempts;
    const retryAt = new Date(now.getTime() + retryDelayMs(message.attempts, this.retryBaseMs, Number.POSITIVE_INFINITY));
    await this.db.query(
      `UPDATE sms_outbox SET status = $2, next_attempt_at = $3, locked_until = NULL, provider_code = $4, last_error = $5, updated_at = $6
        WHERE id = $1 AND status = 'sending'`,
      [
        message.id,
        isFinal ? 'failed' : 'queued',
        isFinal ? null : retryAt.toISOString(),
        outcome.code,
        outcome.message.slice(0, 500),
        now.toISOString(),
      ],
    );
  }
}
