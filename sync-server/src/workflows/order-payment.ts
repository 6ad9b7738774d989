/**
 * Paying an order (Medusa's capture-payment shape): charge each tender through the payments module →
 * record the payments on the order (orders module: payment rows, journal transactions, `order.paid` when settled) →
 * cancel the order's pending pay links, which were for the old balance (pay-links module) → take the goods off stock
 * once paid (inventory module). One mutation.
 */
import { newId, type OrderView, type PaymentCreate } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/db.ts';
import { actorOf, mutation, openMutation, type Mutation } from '../kernel/mutation.ts';
import { recordSaleStock } from '../modules/inventory/index.ts';
import * as orders from '../modules/orders/index.ts';
import { cancelPendingPayLinks } from '../modules/pay-links/index.ts';
import { postProcessingFee, routeCharge, recordPendingSettlement, captureStaffTender } from '../modules/payments/index.ts';

/**
 * What follows a payment recorded on an order: its other pending pay links are canceled (`order_paid`, or
 * `balance_changed` while a balance is left; `payRequestId`, the link being paid, is kept for its caller), and a
 * now-paid order's goods leave stock (`sale` movements keyed by the order id).
 */
async function afterOrderPayment(m: Mutation, recorded: orders.RecordedPayments, payRequestId?: string): Promise<void> {
  await cancelPendingPayLinks(m, {
    orderId: recorded.row.id,
    reason: recorded.isPaid ? 'order_paid' : 'balance_changed',
    except: payRequestId ? [payRequestId] : [],
  });
  if (!recorded.isPaid) return;
  const lines = recorded.row.data.lines.map((l) => ({ variationId: l.variationId, quantity: l.quantity }));
  if (await recordSaleStock(m.tx, { merchantId: m.merchantId, kind: 'sale', sourceId: recorded.row.id, lines, actor: m.actor, now: m.now }))
    m.changed('catalog-items');
}

/**
 * Pays an open order with one or several tenders (all or nothing). The tenders are checked first (400, nothing
 * written, no card charged); then cash, check and other tenders are captured at once and cards are routed to the
 * cheapest available rail (core routePayment; decision and fee kept on the payment, the fee posted to the ledger) and
 * go through the deterministic sandbox rail, pending settlement on the rail's schedule. A `balance_due` order takes
 * tenders the same way to collect its balance (orders' recordBalanceCollection; no pay links or stock touched). A decline takes none of the tenders: the declined attempt alone is committed (payment in
 * state `declined`, no journal transaction, audit `payment.declined`) and the 402 names it in `paymentId`; the order
 * stays open.
 * @throws ProblemError 404 unknown order; 409 (`currentState`) when not open, 409 `no_rail_available`; 400 overpayment / bad tender;
 *   402 `card_declined` / `insufficient_funds` (with `paymentId`, after the declined attempt is committed).
 */
export async function payOrder(ctx: AppContext, principal: Principal, orderId: string, input: PaymentCreate): Promise<OrderView> {
  const outcome = await mutation(ctx, actorOf(principal), async (m): Promise<{ view: OrderView } | { declined: orders.PaymentDeclinedError }> => {
    const row = await orders.openOrderForTenders(m, orderId, input.tenders);
    const tenders: { ulid: string; captured: orders.CapturedTender }[] = [];
    for (const [i, t] of input.tenders.entries()) {
      const ulid = newId('payment').slice(4);
      // A card goes to the cheapest available rail, as on the pay page: 409 `no_rail_available` before
      // any card is charged when none can take it. The decision and its fee are kept on the payment.
      const routing = t.method === 'card' ? await routeCharge(m, 'card', t.amountCents) : undefined;
      const result = captureStaffTender(t, i, row.data.registerNumber, ulid, routing?.chosen);
      // Nothing is written before every tender is captured: a declined attempt is all this mutation keeps.
      if ('declined' in result)
        return { declined: await orders.recordDeclinedPayment(m, row, { ...result.declined, ...(routing ? { routing } : {}) }) };
      tenders.push({ ulid, captured: routing ? { ...result.captured, routing, feeCents: routing.feeCents } : result.captured });
    }
    // A `balance_due` order (a payment failed after the sale) is collected: Cr its receivable, back to paid at zero.
    const collecting = row.state === 'balance_due';
    const recorded = collecting
      ? await orders.recordBalanceCollection(m, row, tenders)
      : await orders.recordPayments(m, row, tenders, { amountPath: 'tenders' });
    for (const { ulid, captured } of tenders) {
      // The processing fee of each routed card, known from the merchant's fee schedule: Dr processing_fees, Cr clearing.
      await postProcessingFee(m, {
        feeCents: captured.feeCents,
        accountCode: captured.accountCode,
        currency: row.data.currency,
        sourceType: 'order',
        sourceId: orderId,
        memo: `Processing fee of pmt_${ulid} on ${captured.rail}`,
      });
      // A card is pending until its rail settles on the adapter's schedule (cards: 2 days); the housekeeping tick settles it.
      const settlementHours = captured.routing?.candidates.find((c) => c.rail === captured.rail)?.settlementHours ?? 0;
      if (captured.method === 'card') {
        const payment = await orders.paymentJournal(m.tx, `pmt_${ulid}`);
        await recordPendingSettlement(m, {
          sourceType: 'order_payment',
          sourceId: `pmt_${ulid}`,
          rail: captured.rail,
          accountCode: captured.accountCode,
          amountCents: captured.amountCents,
          last4: captured.lastFour ?? null,
          journalTransactionId: payment,
          settlementHours,
        });
      }
    }
    if (!collecting) await afterOrderPayment(m, recorded);
    return { view: await orders.getOrderView(m.tx, m.merchantId, orderId) };
  });
  if ('declined' in outcome) throw outcome.declined;
  return outcome.view;
}

/**
 * Records a payment that arrived through another channel (a pay link, an invoice payment) on an OPEN order, in the
 * mutation: the orders module records it, then {@link afterOrderPayment}. Returns the order as the API shows it.
 * @throws ProblemError as orders' `recordExternalPayment` (404, 409 `currentState`, 400 `overpayment`).
 */
export async function recordExternalOrderPayment(m: Mutation, payment: Omit<orders.ExternalPayment, 'merchantId' | 'actor'>): Promise<OrderView> {
  const recorded = await orders.recordExternalPayment(m, payment);
  await afterOrderPayment(m, recorded, payment.payRequestId);
  return orders.getOrderView(m.tx, m.merchantId, payment.orderId);
}

/**
 * {@link recordExternalOrderPayment} inside a transaction the caller opened and commits (actor `payment.actor`,
 * default `system`, at the context's clock). The caller notifies nothing: the change feed is told by the next sync pull.
 */
export async function applyExternalPayment(tx: Queryable, ctx: Pick<AppContext, 'clock'>, payment: orders.ExternalPayment): Promise<OrderView> {
  const m = await openMutation(tx, { merchantId: payment.merchantId, actor: payment.actor ?? 'system' }, ctx.clock());
  const view = await recordExternalOrderPayment(m, payment);
  await m.flushJournalHashes();
  return view;
}
