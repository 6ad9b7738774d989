/**
 * A bank payment returned at settlement: the payments module has posted the reversal of its journal
 * transaction (modules/payments/settlements.ts); this workflow gives what the payment paid its balance due back, in
 * the same transaction — an order paid through a pay link moves to `balance_due` (orders module `openBalanceDue`:
 * state, amount owed in `customer_receivables`, the payment `returned`, audit `order.balance_due`), collected like any
 * order payment (`POST /api/pos/orders/{id}/payments`); an invoice is open again for the amount (invoices module).
 */
import type { Mutation } from '../kernel/mutation.ts';
import { reopenInvoiceBalance } from '../modules/invoices/index.ts';
import { openBalanceDue } from '../modules/orders/index.ts';
import { getPayRequest } from '../modules/pay-links/index.ts';
import type { ReturnedSettlement } from '../modules/payments/index.ts';

/** The receivable a returned order payment's reversal debits (core order-ledger: the payment credited it). */
export const RETURNED_PAYMENT_RECEIVABLE = 'customer_receivables';

/**
 * `runSettlements`' `onReturned`: reopens the balance of what a returned pay-page payment paid — the order (state
 * `balance_due`) or the invoice (open again: `partially_paid` / `sent`, invoices' `reopenInvoiceBalance`). A pay
 * request that was a sale of its own has nothing to reopen: the reversal undid its sale (revenue and tax), and the
 * `returned` settlement shows it (docs/decisions/0052-balance-due-and-card-settlement.md).
 */
export async function reopenReturnedPayment(m: Mutation, returned: ReturnedSettlement): Promise<void> {
  if (returned.sourceType !== 'pay_request') return;
  const request = await getPayRequest(m.tx, returned.sourceId, m.merchantId, m.now);
  if (request?.invoiceId) {
    await reopenInvoiceBalance(m, request.invoiceId, {
      amountCents: returned.amountCents,
      payRequestId: request.id,
      code: returned.returnCode,
      journalTransactionId: returned.reversal.id,
    });
    return;
  }
  if (!request?.orderId) return;
  await openBalanceDue(m, {
    orderId: request.orderId,
    amountCents: returned.amountCents,
    reason: 'bank_payment_returned',
    receivableAccount: RETURNED_PAYMENT_RECEIVABLE,
    paymentReference: returned.sourceId,
    code: returned.returnCode,
    journalTransactionId: returned.reversal.id,
  });
}
