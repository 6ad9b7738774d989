/**
 * Forwarding offline card payments (store and forward): when register sales arrive whose card tenders the
 * terminal approved offline, each is recorded (modules/offline-cards), claimed for its one forward, and its token sent
 * to the payment processor (the adapter interface of modules/payments/processors.ts, `reference` = the payment id, so
 * a processor that saw the payment answers the same again). The outcome — captured (pending settlement on the
 * card-present rail's schedule), or declined / expired leaving the ORDER in state `balance_due` — is recorded with its journal transaction, audit entry and event in the same transaction as the sale.
 *
 * The forward runs inside the push's transaction: the sandbox adapter is pure; a live adapter is called with the
 * payment id as its idempotency key, so a rolled-back push that is pushed again gets the processor's first answer.
 */
import { FORWARD_WINDOW_EXPIRED, OFFLINE_CARD_RECEIVABLE, type Order } from '../../../core/index.ts';
import { mutation, type Mutation } from '../kernel/mutation.ts';
import type { AppContext } from '../platform/context.ts';
import {
  claimForwards,
  dueForwardRetries,
  expireStaleForwards,
  merchantsWithExpiredForwards,
  recordForwardOutcome,
  recordOfflineCardPayments,
  releaseForward,
  type OfflineCardRecord,
} from '../modules/offline-cards/index.ts';
import { openBalanceDue } from '../modules/orders/index.ts';
import { defaultPaymentProcessor, merchantRails, recordPendingSettlement, type PaymentProcessor } from '../modules/payments/index.ts';

/** The merchant's settlement time of `rail` in hours (its RailConfig; 0 when the rail is unknown: settles at once). */
async function railSettlementHours(m: Mutation, rail: string): Promise<number> {
  return (await merchantRails(m.tx, m.merchantId)).find((r) => r.rail === rail)?.settlementHours ?? 0;
}

/**
 * A declined or expired forward leaves the ORDER with a balance due (orders module `openBalanceDue`): state
 * `balance_due`, the amount owed in `customer_receivables:offline_card_declined`, the tender kept as a declined payment.
 */
async function openOrderBalances(
  m: Mutation,
  failed: readonly { record: OfflineCardRecord; journalTransactionId: string; code?: string }[],
  reason: 'offline_card_declined' | 'offline_card_expired',
): Promise<void> {
  for (const { record, journalTransactionId, code } of failed) {
    await openBalanceDue(m, {
      orderId: record.orderId,
      amountCents: record.amountCents,
      reason,
      receivableAccount: OFFLINE_CARD_RECEIVABLE,
      tenderId: record.id,
      code: code ?? FORWARD_WINDOW_EXPIRED,
      journalTransactionId,
    });
  }
}

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
  const expiredNow = await expireStaleForwards(m, [...recorded, ...retryIds]);
  await openOrderBalances(m, expiredNow, 'offline_card_expired');
  const expired = new Set(expiredNow.map((e) => e.record.id));
  const claimed = await claimForwards(
    m,
    [...recorded, ...retryIds].filter((id) => !expired.has(id)),
  );
  let forwarded = 0;
  for (const payment of claimed) {
    let result: Awaited<ReturnType<PaymentProcessor['charge']>>;
    try {
      result = await processor.charge({
        method: 'card',
        token: payment.token,
        amountCents: payment.amountCents,
        currency: payment.currency,
        reference: payment.id,
      });
    } catch (err) {
      await releaseForward(m, payment.id, err instanceof Error ? err.message : 'processor unreachable');
      continue;
    }
    forwarded += 1;
    if (result.outcome === 'captured') {
      const journalTransactionId = await recordForwardOutcome(m, payment, {
        outcome: 'captured',
        accountCode: result.accountCode,
        processorReference: result.processorReference,
      });
      // Captured on the card-present rail: pending until that rail settles (cards: 2 days), like any card payment.
      await recordPendingSettlement(m, {
        sourceType: 'offline_card',
        sourceId: payment.id,
        rail: result.rail,
        accountCode: result.accountCode,
        amountCents: payment.amountCents,
        last4: payment.last4,
        journalTransactionId,
        settlementHours: await railSettlementHours(m, result.rail),
      });
    } else {
      const journalTransactionId = await recordForwardOutcome(m, payment, { outcome: 'declined', code: result.code, message: result.message });
      await openOrderBalances(m, [{ record: payment, journalTransactionId, code: result.code }], 'offline_card_declined');
    }
  }
  return forwarded;
}

/**
 * The housekeeping tick's offline-forward run at `now`: for every merchant, in one mutation each by `system` (merchant
 * lock), payments past the store's forward window expire ({@link expireStaleForwards}), then released forwards whose
 * backoff has passed are claimed and forwarded once more ({@link forwardOfflineCardPayments} with their ids): a success
 * is recorded exactly once (the claim), a processor still unreachable releases it again with a longer delay.
 * @returns how many were forwarded with an outcome, and how many expired
 */
export async function runOfflineForwardRetries(
  app: Pick<AppContext, 'db' | 'feed'>,
  now: Date,
  processor: PaymentProcessor = defaultPaymentProcessor,
): Promise<{ forwarded: number; expired: number }> {
  const due = await dueForwardRetries(app.db, now);
  for (const merchantId of await merchantsWithExpiredForwards(app.db, now)) if (!due.has(merchantId)) due.set(merchantId, []);
  const counts = { forwarded: 0, expired: 0 };
  const at = { db: app.db, feed: app.feed, clock: () => now };
  for (const [merchantId, ids] of due) {
    await mutation(at, { merchantId, actor: 'system' }, async (m) => {
      const expired = await expireStaleForwards(m);
      await openOrderBalances(m, expired, 'offline_card_expired');
      counts.expired += expired.length;
      counts.forwarded += await forwardOfflineCardPayments(m, [], processor, ids);
    });
  }
  return counts;
}
