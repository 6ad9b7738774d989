/**
 * Text-to-Pay links across modules. Creating one prices catalog lines against the catalog module or
 * takes an open order's balance from the orders module, and replaces the order's older link. Paying one on the hosted
 * pay page charges through the payments module, then records the money where it belongs — on the order (orders
 * module), on the invoice (invoice-payment workflow), or as a sale of its own (ledger, and stock for catalog lines) —
 * and marks the link paid. Each is one mutation.
 */
import type { PayPageCharge, PayRequest, PayRequestCreate, PayRequestRecord } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { ProblemError } from '../platform/http/problem.ts';
import { getMerchant } from '../kernel/merchant.ts';
import { actorOf, mutation } from '../kernel/mutation.ts';
import { loadCatalog } from '../modules/catalog/index.ts';
import { recordSaleStock } from '../modules/inventory/index.ts';
import { payLinkBalance } from '../modules/orders/index.ts';
import { cancelPendingPayLinks } from '../modules/pay-links/index.ts';
import * as payLinks from '../modules/pay-links/index.ts';
import {
  defaultPaymentProcessor,
  processorFor,
  postProcessingFee,
  routeCharge,
  recordPendingSettlement,
  type PaymentProcessor,
} from '../modules/payments/index.ts';
import { applyInvoicePayment } from './invoice-payment.ts';
import { recordExternalOrderPayment } from './order-payment.ts';

/**
 * Creates a Text-to-Pay link: a free `amountCents`, `lineItems` priced against the merchant's catalog (apps never
 * send prices), or an open order's balance due (`orderId`; the order's older pending link is canceled as
 * `superseded`). The record, its SMS and the audit rows are written in one mutation.
 * @throws ProblemError 400 when a line item cannot be priced, the priced total is out of bounds, or `orderId` is
 *   unknown or has nothing due; 409 naming `currentState` when the order is not open.
 */
export async function createPayRequest(ctx: AppContext, principal: Principal, input: PayRequestCreate): Promise<PayRequest> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const merchant = await getMerchant(m.tx, m.merchantId);
    const amount: payLinks.PayRequestAmount = input.lineItems
      ? payLinks.pricePayRequestLines(await loadCatalog(m.tx, merchant.id), input.lineItems)
      : input.orderId
        ? { amountCents: await payLinkBalance(m.tx, merchant.id, input.orderId), orderId: input.orderId }
        : { amountCents: input.amountCents! };
    const record = await payLinks.createPayRequest(ctx, m, merchant, input, amount);
    // One pending link per order: the new one replaces any older one (an old link then leads to this one).
    if (input.orderId) await cancelPendingPayLinks(m, { orderId: input.orderId, reason: 'superseded', supersededBy: record.id, except: [record.id] });
    return record;
  });
}

/**
 * Pays a pay request from the hosted pay page: in one mutation, under the merchant's lock and the
 * request's row lock, checks it is still pending and unexpired, charges the token on the processor, and records the
 * outcome — an order's link: the payment on the order; an invoice's link: the invoice payment (Dr the rail's clearing
 * account, Cr receivables); otherwise a sale (Dr clearing, Cr revenue and tax, and `sale` stock movements for its
 * catalog lines) — then the request `paid` with its payment and an audit row, and, when the customer gave
 * `receiptEmail`, the receipt e-mail queued in the same transaction (`pay_request.receipt_sent`). A decline is a 402
 * that charges and changes nothing, its attempt kept in the audit trail (`pay_request.payment_declined`).
 * @throws ProblemError 404; 409 naming `currentState` when not pending; 402 `card_declined` / `insufficient_funds` /
 *   `expired_card` / `account_closed` / `invalid_token` naming `token`.
 */
export async function payPayRequest(
  ctx: AppContext,
  id: string,
  charge: PayPageCharge,
  processor: PaymentProcessor = defaultPaymentProcessor,
): Promise<PayRequestRecord> {
  const found = await payLinks.getPayRequest(ctx.db, id, undefined, ctx.clock());
  if (!found) throw new ProblemError(404, 'not_found', `Pay request ${id} does not exist.`);
  const outcome = await mutation(
    ctx,
    { merchantId: found.merchantId, actor: `pay_page:${id}` },
    async (m): Promise<PayRequestRecord | ProblemError> => {
      const request = await payLinks.lockPayableRequest(m, id);
      // The cheapest available rail; 409 before any processor is reached when none is.
      const routing = await routeCharge(m, charge.method, request.amountCents);
      const merchant = await getMerchant(m.tx, m.merchantId);
      // The demo store never reaches a live processor, whatever is configured.
      const result = await processorFor(merchant, processor).charge({
        method: charge.method,
        token: charge.token,
        amountCents: request.amountCents,
        currency: request.currency,
        reference: id,
        rail: routing.chosen,
      });
      if (result.outcome === 'declined')
        return payLinks.recordDeclinedPayPageAttempt(m, request, { method: charge.method, code: result.code, message: result.message });
      let journalTransactionId: string;
      if (request.orderId) {
        const order = await recordExternalOrderPayment(m, {
          orderId: request.orderId,
          amountCents: request.amountCents,
          rail: result.rail,
          reference: id,
          payRequestId: id,
          method: charge.method === 'bank_transfer' ? 'other' : charge.method,
          ...(result.brand ? { cardBrand: result.brand } : {}),
          ...(result.last4 ? { last4: result.last4 } : {}),
        });
        const recorded = order.payments?.find((p) => p.reference === id);
        if (!recorded?.journalTransactionId) throw new Error(`payment of ${id} on order ${request.orderId} has no journal transaction`);
        journalTransactionId = recorded.journalTransactionId;
        // An order paid through its link changed state and may have moved stock; registers pull both.
        m.changed('orders', 'catalog-items');
      } else if (request.invoiceId) {
        const applied = await applyInvoicePayment(ctx, m, {
          invoiceId: request.invoiceId,
          amountCents: request.amountCents,
          method: charge.method,
          rail: result.rail,
          accountCode: result.accountCode,
          channel: 'pay_page',
          cardBrand: result.brand,
          last4: result.last4,
          reference: result.processorReference,
          payRequestId: id,
          registerId: null,
        });
        journalTransactionId = applied.journalTransactionId;
      } else {
        journalTransactionId = await payLinks.postPayRequestSale(m, request, result.accountCode);
        // A link carrying catalog lines is a sale of those goods: they leave stock when it is paid.
        if (
          request.lineItems &&
          (await recordSaleStock(m.tx, {
            merchantId: m.merchantId,
            kind: 'sale',
            sourceId: id,
            lines: request.lineItems,
            actor: m.actor,
            now: m.now,
          }))
        )
          m.changed('catalog-items');
      }
      // Every delayed rail is pending until it settles on the adapter's schedule (cards 2 days, ACH 3); the housekeeping
      // tick settles it, or — a bank payment — the bank returns it.
      const settlementHours = routing.candidates.find((c) => c.rail === routing.chosen)!.settlementHours;
      await recordPendingSettlement(m, {
        sourceType: 'pay_request',
        sourceId: id,
        rail: result.rail,
        accountCode: result.accountCode,
        amountCents: request.amountCents,
        last4: result.last4,
        journalTransactionId,
        settlementHours,
      });
      // The fee the processor reported, else the merchant's fee schedule for the routed rail (known at routing).
      const feeCents = result.feeCents ?? routing.feeCents;
      await postProcessingFee(m, {
        feeCents,
        accountCode: result.accountCode,
        currency: request.currency,
        sourceType: 'pay_request',
        sourceId: id,
        memo: `Processing fee of ${id} on ${result.rail}`,
      });
      m.changed('journal-transactions');
      const payment = {
        method: charge.method,
        rail: result.rail,
        brand: result.brand,
        last4: result.last4,
        processorReference: result.processorReference,
        journalTransactionId,
        routing,
      };
      const paid = await payLinks.markPayRequestPaid(m, request, payment);
      // The receipt, when the customer asked for one on the pay page: queued with the payment, in its transaction.
      if (charge.receiptEmail) await payLinks.emailPayRequestReceipt(ctx, m, merchant, request, payment, charge.receiptEmail);
      return paid;
    },
  );
  if (outcome instanceof ProblemError) throw outcome;
  return outcome;
}
