/**
 * Forwarding offline card payments (issue 12, store and forward): when register sales arrive whose card tenders the
 * terminal approved offline, each is recorded (modules/offline-cards), claimed for its one forward, and its token sent
 * to the payment processor (the adapter interface of modules/payments/processors.ts, `reference` = the payment id, so
 * a processor that saw the payment answers the same again). The outcome — captured, or declined leaving the customer a
 * balance due — is recorded with its journal transaction, audit entry and event in the same transaction as the sale.
 *
 * The forward runs inside the push's transaction: the sandbox adapter is pure; a live adapter is called with the
 * payment id as its idempotency key, so a rolled-back push that is pushed again gets the processor's first answer.
 */
import type { Order } from '../../../core/index.ts';
import { flushJournalHashes } from '../kernel/audit.ts';
import { openMutation, type Mutation } from '../kernel/mutation.ts';
import type { Db } from '../platform/db/db.ts';
import {
  claimForwards,
  dueForwardRetries,
  expireStaleForwards,
  merchantsWithExpiredForwards,
  recordForwardOutcome,
  recordOfflineCardPayments,
  releaseForward,
} from '../modules/offline-cards/service.ts';
import { defaultPaymentProcessor, type PaymentProcessor } from '../modules/payments/processors.ts';

/**
 * Records and forwards the offline card tenders of `orders` (register sales stored in `m`) exactly once each. A
 * processor that throws (unreachable) leaves its payment `pending_forward`, unclaimed, and the sale stored: the sale is
 * never refused for it. (`retryIds`: payments recorded earlier to try again.)
 * @returns how many were forwarded now with an outcome (0 for a re-push of sales already forwarded)
 */
export async function forwardOfflineCardPayments(
  m: Mutation,
  orders: readonly Order[],
  processor: PaymentProcessor = defaultPaymentProcessor,
  retryIds: readonly string[] = [],
): Promise<number> {
  if (retryIds.length === 0 && !orders.some((order) => order.tenders.some((t) => t.offline))) return 0;
  const recorded = await recordOfflineCardPayments(m, orders);
  // The store's forward window: a payment held past it is never sent; it expires (balance due) instead.
  const expired = new Set(await expireStaleForwards(m, [...recorded, ...retryIds]));
  const claimed = await claimForwards(m, [...recorded, ...retryIds].filter((id) => !expired.has(id)));
  let forwarded = 0;
  for (const payment of claimed) {
    let result: Awaited<ReturnType<PaymentProcessor['charge']>>;
    try {
      result = await processor.charge({ method: 'card', token: payment.token, amountCents: payment.amountCents, currency: payment.currency, reference: payment.id });
    } catch (err) {
      await releaseForward(m, payment.id, err instanceof Error ? err.message : 'processor unreachable');
      continue;
    }
    forwarded += 1;
    await recordForwardOutcome(
      m,
      payment,
      result.outcome === 'captured'
        ? { outcome: 'captured', accountCode: result.accountCode, processorReference: result.processorReference }
        : { outcome: 'declined', code: result.code, message: result.message },
    );
  }
  return forwarded;
}

/**
 * The housekeeping tick's offline-forward run at `now` (issue 12): for every merchant, in one transaction each (merchant
 * lock), payments past the store's forward window expire ({@link expireStaleForwards}), then released forwards whose
 * backoff has passed are claimed and forwarded once more ({@link forwardOfflineCardPayments} with their ids): a success
 * is recorded exactly once (the claim), a processor still unreachable releases it again with a longer delay.
 * @returns how many were forwarded with an outcome, and how many expired
 */
export async function runOfflineForwardRetries(db: Db, now: Date, processor: PaymentProcessor = defaultPaymentProcessor): Promise<{ forwarded: number; expired: number }> {
  const due = await dueForwardRetries(db, now);
  for (const merchantId of await merchantsWithExpiredForwards(db, now)) if (!due.has(merchantId)) due.set(merchantId, []);
  const counts = { forwarded: 0, expired: 0 };
  for (const [merchantId, ids] of due) {
    await db.transaction(async (tx) => {
      const m = await openMutation(tx, { merchantId, actor: 'system' }, now);
      counts.expired += (await expireStaleForwards(m)).length;
      counts.forwarded += await forwardOfflineCardPayments(m, [], processor, ids);
      await flushJournalHashes(tx, merchantId);
    });
  }
  return counts;
}
