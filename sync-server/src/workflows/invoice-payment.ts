/**
 * Paying an invoice: charge through the payments module (card) or settle the account (cash, check, bank
 * transfer, other) → record the payment on the invoice (invoices module: payment, journal transaction, state) →
 * replace its pay link by one for the new balance, or cancel its links when paid (pay-links module). One mutation.
 */
import type { Invoice, InvoicePaymentCreate, InvoiceRefundCreate } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import type { ProblemError } from '../platform/http/problem.ts';
import { actorOf, mutation, type Mutation } from '../kernel/mutation.ts';
import * as invoices from '../modules/invoices/index.ts';
import { cancelPendingPayLinks, pendingInvoiceLinkIds, insertInvoicePayLink } from '../modules/pay-links/index.ts';
import {
  defaultPaymentProcessor,
  processorFor,
  postProcessingFee,
  routeCharge,
  recordPendingSettlement,
  type PaymentProcessor,
} from '../modules/payments/index.ts';
import { getMerchant } from '../kernel/merchant.ts';

/**
 * Applies a payment to an issued invoice in the mutation (invoices module), then its pay links: the one being paid
 * (`payRequestId`) is marked paid by its caller; any other pending link no longer fits the balance, so it is replaced
 * by one for the new balance (or just canceled when the invoice is paid).
 * @throws ProblemError as invoices' `applyInvoicePayment` (404, 409 `currentState`, 400 `overpayment`).
 */
export async function applyInvoicePayment(
  ctx: Pick<AppContext, 'config'>,
  m: Mutation,
  p: invoices.InvoicePaymentInput,
): Promise<invoices.AppliedInvoicePayment> {
  const applied = await invoices.applyInvoicePayment(m, p);
  const others = await pendingInvoiceLinkIds(m.tx, p.invoiceId, p.payRequestId ?? null);
  if (others.length > 0 || !applied.paidInFull) {
    const replacement = applied.paidInFull
      ? undefined
      : (
          await insertInvoicePayLink(m, ctx.config, {
            invoiceId: p.invoiceId,
            invoiceNumber: applied.invoiceNumber,
            amountCents: applied.balanceDueCents,
            currency: applied.currency,
            phone: applied.phone,
            dueDate: applied.dueDate,
          })
        ).id;
    await cancelPendingPayLinks(m, {
      invoiceId: p.invoiceId,
      reason: applied.paidInFull ? 'invoice_paid' : 'balance_changed',
      except: [p.payRequestId, replacement].filter((x): x is string => !!x),
      ...(replacement ? { supersededBy: replacement } : {}),
    });
  }
  return applied;
}

/**
 * Records a payment taken at the register or received another way (staff API). `card` is routed to the cheapest
 * available rail (core routePayment; the decision and the fee posted are kept on the payment) and charged there
 * (declined → 402 naming `paymentId`: the attempt is kept as a payment in state `declined`, no money moved); `cash`
 * goes to the drawer of `registerId`;
 * `check` to checks to deposit; `bank_transfer` to the bank; `other` to other tenders. Returns the invoice.
 * @throws ProblemError 404; 409 naming `currentState`, or `no_rail_available`; 400 `overpayment` naming `amountCents`;
 *   400 naming `registerId` for a register not of the store; 402.
 */
export async function recordInvoicePayment(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: InvoicePaymentCreate,
  processor: PaymentProcessor = defaultPaymentProcessor,
): Promise<Invoice> {
  const declined = await mutation(ctx, actorOf(principal), async (m): Promise<ProblemError | undefined> => {
    // State and amount first, so a card is never charged for an invoice that cannot take the payment.
    const { currency } = await invoices.checkInvoicePayable(m, id, input.amountCents);
    if (input.method === 'card') {
      // The cheapest available rail, as on the pay page; 409 before any processor is reached when none is.
      const routing = await routeCharge(m, 'card', input.amountCents);
      // The demo store never reaches a live processor, whatever is configured.
      const result = await processorFor(await getMerchant(m.tx, m.merchantId), processor).charge({
        method: 'card',
        token: input.cardToken!,
        amountCents: input.amountCents,
        currency,
        reference: `${id}:${m.now.toISOString()}`,
        rail: routing.chosen,
      });
      if (result.outcome === 'declined') {
        return invoices.recordDeclinedInvoicePayment(m, id, {
          amountCents: input.amountCents,
          cardToken: input.cardToken!,
          code: result.code,
          message: result.message,
          rail: routing.chosen,
          accountCode: `card_clearing:${routing.chosen}`,
          routing,
        });
      }
      // The fee the processor reported, else the merchant's fee schedule for the chosen rail (known at routing).
      const feeCents = result.feeCents ?? routing.feeCents;
      const applied = await applyInvoicePayment(ctx, m, {
        invoiceId: id,
        amountCents: input.amountCents,
        method: 'card',
        channel: 'api',
        accountCode: result.accountCode,
        rail: result.rail,
        registerId: null,
        cardBrand: result.brand,
        last4: result.last4,
        reference: result.processorReference,
        routing,
        feeCents,
      });
      await postProcessingFee(m, {
        feeCents,
        accountCode: result.accountCode,
        currency,
        sourceType: 'invoice',
        sourceId: id,
        memo: `Processing fee of ${applied.payment.id} on ${result.rail}`,
      });
      // Pending until the card rail settles on the adapter's schedule (cards: 2 days); the housekeeping tick settles it.
      const settlementHours = routing.candidates.find((c) => c.rail === routing.chosen)?.settlementHours ?? 0;
      await recordPendingSettlement(m, {
        sourceType: 'invoice_payment',
        sourceId: applied.payment.id,
        rail: result.rail,
        accountCode: result.accountCode,
        amountCents: input.amountCents,
        last4: result.last4,
        journalTransactionId: applied.journalTransactionId,
        settlementHours,
      });
      return undefined;
    }
    const account = await invoices.offlinePaymentAccount(m, { ...input, method: input.method });
    await applyInvoicePayment(ctx, m, { invoiceId: id, amountCents: input.amountCents, method: input.method, channel: 'api', ...account });
    return undefined;
  });
  if (declined) throw declined;
  return invoices.getInvoice(ctx, principal.merchantId, id);
}

/**
 * Refunds a paid invoice: the invoices module writes the refund (record, journal transaction reversing the
 * sale's revenue and tax against the payments' accounts, audit `invoice.refunded`), then `payment.refunded` is emitted
 * with the refund and the invoice (webhooks). Refunds run on the rails the payments came from (sandbox in the demo
 * store); they move the customer's own money back, so they are not refused as money movement. One mutation.
 * @throws ProblemError as invoices' `refundInvoice` (404, 409 `currentState`, 400 naming `amountCents` / `paymentId`).
 */
export async function refundInvoice(ctx: AppContext, principal: Principal, id: string, input: InvoiceRefundCreate): Promise<Invoice> {
  await mutation(ctx, actorOf(principal), async (m) => {
    const { refund, invoiceNumber, currency } = await invoices.refundInvoice(m, id, input);
    await m.emit('payment.refunded', { ...refund, object: 'invoice_refund', invoiceNumber, currency } as unknown as Record<string, unknown>);
  });
  return invoices.getInvoice(ctx, principal.merchantId, id);
}
