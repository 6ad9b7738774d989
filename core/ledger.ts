/**
 * Double-entry ledger. A journal transaction is a set of postings whose signed amounts sum to zero
 * (debit > 0, credit < 0). Ledger rows are immutable; corrections are reversing transactions.
 */
import { newId, saleJournalTransactionId } from './ids.ts';
import { sumCents, type Cents } from './money.ts';
import type { JournalTransaction, Order, Posting } from './schemas.ts';

/** Account types, with the sign of their normal balance. */
export type AccountType = 'asset' | 'liability' | 'revenue' | 'contra_revenue' | 'expense';

/** One account of the chart. `code` is stable; per-register/per-rail accounts are `<base>:<suffix>`. */
export interface AccountDefinition {
  code: string;
  name: string;
  type: AccountType;
}

/** The chart of accounts every merchant starts with. Cash drawers are per register: `cash_drawer:R2`. */
export const CHART_OF_ACCOUNTS: readonly AccountDefinition[] = [
  { code: 'cash_drawer', name: 'Cash drawer', type: 'asset' },
  { code: 'card_clearing', name: 'Card clearing', type: 'asset' },
  { code: 'check_clearing', name: 'Checks to deposit', type: 'asset' },
  { code: 'other_tender_clearing', name: 'Other tenders clearing', type: 'asset' },
  { code: 'bank', name: 'Bank', type: 'asset' },
  { code: 'customer_receivables', name: 'Customer receivables', type: 'asset' },
  { code: 'check_cashing_float', name: 'Check-cashing float', type: 'asset' },
  { code: 'sales_revenue', name: 'Sales revenue', type: 'revenue' },
  { code: 'service_revenue', name: 'Service revenue', type: 'revenue' },
  { code: 'fee_income', name: 'Fee income', type: 'revenue' },
  { code: 'discounts', name: 'Discounts', type: 'contra_revenue' },
  { code: 'refunds', name: 'Refunds', type: 'contra_revenue' },
  { code: 'sales_tax_payable', name: 'Sales tax payable', type: 'liability' },
  { code: 'tips_payable', name: 'Tips payable', type: 'liability' },
  { code: 'transfers_payable', name: 'Transfers payable', type: 'liability' },
  { code: 'refunds_payable', name: 'Refunds owed to customers', type: 'liability' },
  { code: 'processing_fees', name: 'Processing fees', type: 'expense' },
  { code: 'cash_over_short', name: 'Cash over/short', type: 'expense' },
  { code: 'cash_paid_in_out', name: 'Cash paid in/out', type: 'expense' },
];

/**
 * The platform's own chart (the ledger of `PLATFORM_LEDGER_MERCHANT_ID`, core/app-billing.ts): what app charges
 * collect at the billing processor (`app_billing_clearing`), the platform's 15 % (`app_revenue`) and each developer's
 * balance: their 85 % on hold (`developer_pending:<developerId>`), released and payable (`developer_payable:<id>`),
 * what they owe when refunds exceed their balance (`developer_receivable:<id>`), and what the demo store's charges
 * earned them, never paid out (`developer_demo_earnings:<id>`).
 */
export const PLATFORM_CHART_OF_ACCOUNTS: readonly AccountDefinition[] = [
  { code: 'app_billing_clearing', name: 'App billing balance at the billing processor', type: 'asset' },
  { code: 'app_revenue', name: 'Platform app revenue (15 %)', type: 'revenue' },
  { code: 'developer_payable', name: 'Payable to developer (available)', type: 'liability' },
  { code: 'developer_pending', name: 'Developer earnings on hold', type: 'liability' },
  { code: 'developer_receivable', name: 'Owed by developer (refunds beyond their balance)', type: 'asset' },
  { code: 'developer_demo_earnings', name: 'Developer earnings from the demo store (never paid out)', type: 'liability' },
];

/** The chart entry of an account's base (`developer_payable:dev_1` → `developer_payable`) in either chart, or undefined. */
export function chartAccountOf(code: string): AccountDefinition | undefined {
  const base = accountBase(code);
  return CHART_OF_ACCOUNTS.find((a) => a.code === base) ?? PLATFORM_CHART_OF_ACCOUNTS.find((a) => a.code === base);
}

/** The base of an account code: `cash_drawer:R2` → `cash_drawer`. */
export function accountBase(code: string): string {
  return code.split(':')[0] ?? code;
}

/** The cash drawer account of a register, e.g. `cash_drawer:R2`. */
export function cashDrawerAccount(registerNumber: number): string {
  return `cash_drawer:R${registerNumber}`;
}

/** Sum of signed posting amounts; zero for a balanced journal transaction. */
export function postingsTotal(postings: readonly Posting[]): Cents {
  return sumCents(postings.map((p) => p.amountCents));
}

/** True when the postings sum to zero, none is zero, and there are at least two. */
export function isBalanced(postings: readonly Posting[]): boolean {
  return postings.length >= 2 && postings.every((p) => Number.isSafeInteger(p.amountCents) && p.amountCents !== 0) && postingsTotal(postings) === 0;
}

/** Merges postings to the same account and drops zero ones, keeping first-seen order. */
export function consolidatePostings(postings: readonly Posting[]): Posting[] {
  const byAccount = new Map<string, number>();
  for (const p of postings) byAccount.set(p.accountCode, (byAccount.get(p.accountCode) ?? 0) + p.amountCents);
  return [...byAccount.entries()].filter(([, v]) => v !== 0).map(([accountCode, amountCents]) => ({ accountCode, amountCents }));
}

/** The account a register tender is debited to: cash → the register's drawer, card → card-present clearing, … */
export function tenderAccount(method: string, registerNumber: number): string {
  switch (method) {
    case 'cash':
      return cashDrawerAccount(registerNumber);
    case 'card':
    case 'apple_pay':
    case 'google_pay':
      // A wallet on the register is tapped on the card terminal: the same card-present clearing account.
      return 'card_clearing:card_present';
    case 'check':
      return 'check_clearing';
    default:
      return 'other_tender_clearing';
  }
}

/**
 * Where a card approved offline waits until its token is forwarded: debited by the sale, credited when the
 * forward is captured (to `card_clearing:card_present`) or declined (to {@link OFFLINE_CARD_RECEIVABLE}).
 */
export const OFFLINE_CARD_ACCOUNT = 'card_clearing:store_and_forward';
/** The customer's balance due after an offline card was declined on forward. */
export const OFFLINE_CARD_RECEIVABLE = 'customer_receivables:offline_card_declined';

/** The account one register tender is debited to: {@link tenderAccount}, or the store-and-forward account for an offline card. */
export function tenderAccountOf(tender: { method: string; offline?: unknown }, registerNumber: number): string {
  return tender.offline ? OFFLINE_CARD_ACCOUNT : tenderAccount(tender.method, registerNumber);
}

/**
 * A sale that moves no money: nothing sold for a price, no discount, no tax, no tip (e.g. one free sample rung up).
 * It has no journal transaction — a posting is never zero, so there is nothing to post — and no tender;
 * its `journalTransactionId` is null, as for an API order paid with nothing due. The order itself and its audit entry
 * are the record.
 */
export function isZeroValueSale(order: Pick<Order, 'subtotalCents' | 'discountCents' | 'taxCents' | 'tipCents' | 'totalCents'>): boolean {
  return order.subtotalCents === 0 && order.discountCents === 0 && order.taxCents === 0 && order.tipCents === 0 && order.totalCents === 0;
}

/** Thrown when an order cannot be turned into a balanced journal transaction. */
export class LedgerError extends Error {
  override name = 'LedgerError';
}

/**
 * The header of a journal transaction: everything but its postings. `id` defaults to a new `jtx_<ULID>`; a sale's is
 * derived from its source ({@link saleJournalTransactionId}) so it can be posted only once.
 */
export type JournalHeader = Omit<JournalTransaction, 'postings' | 'id' | 'updatedAt' | 'syncSeq'> & { id?: string };

/**
 * THE builder of every journal transaction of the domain (sales, payments, refunds, cancellations, invoices, pay
 * links): the header as given, postings to the same account merged and zero ones dropped (first-seen order), and the
 * balance checked (postings sum to zero, at least two, none zero).
 * @throws LedgerError when the consolidated postings do not balance (a bug in the caller's postings).
 */
export function buildJournalTransaction(header: JournalHeader, postings: readonly Posting[]): JournalTransaction {
  const id = header.id ?? newId('journalTransaction');
  const consolidated = consolidatePostings(postings);
  if (!isBalanced(consolidated)) throw new LedgerError(`postings of ${id} do not balance`);
  return {
    id,
    kind: header.kind,
    sourceType: header.sourceType,
    sourceId: header.sourceId,
    registerId: header.registerId,
    currency: header.currency,
    occurredAt: header.occurredAt,
    memo: header.memo,
    postings: consolidated,
  };
}

/**
 * The header of a journal transaction of an order (sale, payment, refund, cancellation): source `order`, the order's
 * id, register and currency. `id` defaults to a new `jtx_<ULID>`.
 */
export function orderJournalHeader(
  order: Pick<Order, 'id' | 'registerId' | 'currency'>,
  kind: JournalTransaction['kind'],
  occurredAt: string,
  memo: string,
  id?: string,
): JournalHeader {
  return {
    ...(id !== undefined ? { id } : {}),
    kind,
    sourceType: 'order',
    sourceId: order.id,
    registerId: order.registerId,
    currency: order.currency,
    occurredAt,
    memo,
  };
}

/** The revenue account of a line: services → `service_revenue`, products → `sales_revenue`. */
export function revenueAccount(kind: 'product' | 'service'): string {
  return kind === 'service' ? 'service_revenue' : 'sales_revenue';
}

/**
 * Credits of a sale of these lines (orders, invoices, pay links alike): revenue per line (gross less its inclusive
 * tax, signed negative) and all tax (`taxCents`) to `sales_tax_payable`.
 */
export function saleCreditPostings(
  lines: readonly { kind: 'product' | 'service'; grossCents: number; taxCents: number; taxes: readonly { inclusive: boolean }[] }[],
  taxCents: number,
): Posting[] {
  const postings: Posting[] = [];
  for (const line of lines) {
    const inclusiveTax = line.taxes.some((t) => t.inclusive) ? line.taxCents : 0;
    postings.push({ accountCode: revenueAccount(line.kind), amountCents: -(line.grossCents - inclusiveTax) });
  }
  postings.push({ accountCode: 'sales_tax_payable', amountCents: -taxCents });
  return postings;
}

/**
 * The journal transaction of a paid sale:
 * - debit each tender's account (cash drawer of the register, card clearing, …) with what it paid, tips included;
 * - debit `discounts` with the order discounts;
 * - credit `sales_revenue` / `service_revenue` with each line's gross less its inclusive tax share;
 * - credit `sales_tax_payable` with all tax, and `tips_payable` with tips.
 * Debits = total + tips + discounts = credits, so the postings always sum to zero. The id is derived from the order
 * id ({@link saleJournalTransactionId}), so the register and the server build the same transaction.
 * @throws LedgerError when the order is not paid in full by its tenders or the result does not balance.
 */
export function buildSaleJournalTransaction(order: Order): JournalTransaction {
  const tendered = sumCents(order.tenders.map((t) => t.amountCents));
  const due = order.totalCents + order.tipCents;
  if (tendered !== due) throw new LedgerError(`tenders pay ${tendered} but the order needs ${due} (total plus tips)`);
  const tips = sumCents(order.tenders.map((t) => t.tipCents));
  if (tips !== order.tipCents) throw new LedgerError(`tender tips ${tips} differ from the order tip ${order.tipCents}`);

  const postings: Posting[] = [];
  for (const t of order.tenders) {
    if (t.offline && t.method !== 'card') throw new LedgerError(`only a card tender can be approved offline, not ${t.method}`);
    postings.push({ accountCode: tenderAccountOf(t, order.registerNumber), amountCents: t.amountCents });
  }
  postings.push({ accountCode: 'discounts', amountCents: order.discountCents });
  postings.push(...saleCreditPostings(order.lines, order.taxCents));
  postings.push({ accountCode: 'tips_payable', amountCents: -order.tipCents });
  return buildJournalTransaction(
    orderJournalHeader(order, 'sale', order.createdAt, `Sale ${order.receiptNumber}`, saleJournalTransactionId(order.id)),
    postings,
  );
}
