/**
 * Journal transactions of orders paid through the API (docs/decisions/0002-ledger-and-register-sales.md). A register sale is paid
 * at once and posts core's {@link buildSaleJournalTransaction}; an API order is open first and may be paid in several
 * tenders, so its money moves post in steps that each balance:
 *
 * - each payment: debit the tender's account (cash drawer, card clearing of the rail, …) with what it paid, tips
 *   included; credit `customer_receivables` with the part applied to the order and `tips_payable` with the tip.
 *   While the order is open, receivables carry a credit balance: money received ahead of the sale;
 * - when the order becomes fully paid, the sale (id {@link saleJournalTransactionId}, as for register sales): debit
 *   `customer_receivables` with the total and `discounts` with the discount; credit revenue with each line's gross
 *   less inclusive tax, and `sales_tax_payable` with the tax. Receivables of the order come back to zero;
 * - a cancellation of an open order with payments: each payment given back — debit `customer_receivables` and
 *   `tips_payable`, credit the tender's account.
 */
import { saleJournalTransactionId } from './ids.ts';
import { buildJournalTransaction, consolidatePostings, LedgerError, orderJournalHeader, saleCreditPostings } from './ledger.ts';
import type { JournalTransaction, Order, Posting } from './schemas.ts';

/** The money side of one payment: account debited, amount (tips included) and tip, in minor units. */
export interface PaymentMoney {
  id: string;
  accountCode: string;
  amountCents: number;
  tipCents: number;
}

/**
 * The journal transaction of one payment on an open order: Dr tender account `amountCents`; Cr
 * `customer_receivables` `amountCents − tipCents`; Cr `tips_payable` `tipCents`.
 * @throws LedgerError when the amount is not positive or the tip exceeds it.
 */
export function buildOrderPaymentJournalTransaction(order: Order, payment: PaymentMoney, occurredAt: string): JournalTransaction {
  if (payment.amountCents <= 0 || payment.tipCents < 0 || payment.tipCents > payment.amountCents) {
    throw new LedgerError(`payment ${payment.id} must pay a positive amount that covers its tip`);
  }
  return buildJournalTransaction(orderJournalHeader(order, 'payment', occurredAt, `Payment ${payment.id} on ${order.receiptNumber}`), [
    { accountCode: payment.accountCode, amountCents: payment.amountCents },
    { accountCode: 'customer_receivables', amountCents: -(payment.amountCents - payment.tipCents) },
    { accountCode: 'tips_payable', amountCents: -payment.tipCents },
  ]);
}

/**
 * The sale of an API order once fully paid: Dr `customer_receivables` total, Dr `discounts`; Cr `sales_revenue` /
 * `service_revenue` per line (gross less inclusive tax), Cr `sales_tax_payable`. Returns undefined for an order whose
 * every figure is zero (nothing to post). The id is derived from the order id like a register sale's.
 */
export function buildOrderSettlementJournalTransaction(order: Order, occurredAt: string): JournalTransaction | undefined {
  const postings: Posting[] = [
    { accountCode: 'customer_receivables', amountCents: order.totalCents },
    { accountCode: 'discounts', amountCents: order.discountCents },
    ...saleCreditPostings(order.lines, order.taxCents),
  ];
  if (consolidatePostings(postings).length === 0) return undefined;
  return buildJournalTransaction(
    orderJournalHeader(order, 'sale', occurredAt, `Sale ${order.receiptNumber}`, saleJournalTransactionId(order.id)),
    postings,
  );
}

/**
 * Giving back the payments of an open order being canceled (no sale was posted yet): per payment, Dr
 * `customer_receivables` `amount − tip`, Dr `tips_payable` tip, Cr the payment's account `amount`.
 * @throws LedgerError when there is nothing to give back.
 */
export function buildCancellationJournalTransaction(order: Order, payments: readonly PaymentMoney[], occurredAt: string): JournalTransaction {
  if (payments.length === 0) throw new LedgerError(`order ${order.id} has no payment to give back`);
  const postings: Posting[] = [];
  for (const p of payments) {
    postings.push({ accountCode: 'customer_receivables', amountCents: p.amountCents - p.tipCents });
    postings.push({ accountCode: 'tips_payable', amountCents: p.tipCents });
    postings.push({ accountCode: p.accountCode, amountCents: -p.amountCents });
  }
  return buildJournalTransaction(orderJournalHeader(order, 'refund', occurredAt, `Cancellation of ${order.receiptNumber}`), postings);
}
