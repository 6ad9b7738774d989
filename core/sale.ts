/**
 * Ringing up a sale on the register: cart → priced order → tenders → journal transaction. The register, the tests and
 * the benchmark all build sales through here, so every paid order is born consistent with what the server checks.
 */
import { newId, saleJournalTransactionId } from './ids.ts';
import { buildSaleJournalTransaction, isZeroValueSale } from './ledger.ts';
import { applyCashTender, computeOrderTotals, priceLine, type CatalogSnapshot } from './pricing.ts';
import { formatReceiptNumber } from './receipt.ts';
import type { Discount, JournalTransaction, LineItemInput, Order, OrderLine, Tender } from './schemas.ts';

/**
 * How the sale is paid: cash handed over (change computed), another single method for the exact amount, or `none`
 * for a sale with nothing due (discounted to 0): no tender at all.
 */
export type SalePayment =
  | { method: 'none'; tipCents?: undefined }
  | { method: 'cash'; tenderedCents: number; tipCents?: number }
  | {
      method: 'card' | 'check' | 'other';
      tipCents?: number;
      cardBrand?: string;
      last4?: string;
      authCode?: string;
      routingNumber?: string;
      checkNumber?: string;
      /** A card the terminal approved offline (store and forward): its token and approval time (ISO 8601). */
      offline?: { token: string; approvedAt: string };
    };

/** Everything needed to ring up a paid sale. `createdAt` is the register's business time (ISO 8601). */
export interface RegisterSaleInput {
  registerId: string;
  registerNumber: number;
  /** The register's next receipt sequence number (1, 2, …). */
  sequence: number;
  currency: string;
  createdAt: string;
  /** Either catalog references (priced now) or lines already priced (e.g. kept in the cart). */
  lines: readonly (LineItemInput | OrderLine)[];
  discounts?: readonly Discount[];
  payment: SalePayment;
  catalog: CatalogSnapshot;
  staffId?: string;
  /** The customer attached to the sale (`cus_…`), if any. */
  customerId?: string;
  orderId?: string;
}

/**
 * Builds a paid order and its balanced journal transaction — none (null) for a sale that moves no money
 * ({@link isZeroValueSale}: its order has no tender and `journalTransactionId: null`).
 * @throws PricingError for a bad catalog reference or modifier choice; RangeError when cash does not cover the
 *   total or a `none` payment leaves something due; LedgerError if the postings would not balance (a bug).
 */
export function buildRegisterSale(input: RegisterSaleInput): { order: Order; journalTransaction: JournalTransaction | null } {
  const priced = input.lines.map((l, i) => ('unitPriceCents' in l ? l : priceLine(l, input.catalog, `lines.${i}`)));
  const totals = computeOrderTotals(priced, input.discounts ?? []);
  const tipCents = input.payment.tipCents ?? 0;
  const due = totals.totalCents + tipCents;
  let tender: Tender | undefined;
  if (input.payment.method === 'none' || (due === 0 && totals.discountCents === 0 && totals.subtotalCents === 0)) {
    if (due !== 0) throw new RangeError(`nothing to pay with no tender, but ${due} is due`);
    tender = undefined;
  } else if (input.payment.method === 'cash') {
    const cash = applyCashTender(due, input.payment.tenderedCents);
    tender = {
      id: newId('tender'),
      method: 'cash',
      amountCents: cash.amountCents,
      tipCents,
      tenderedCents: input.payment.tenderedCents,
      changeCents: cash.changeCents,
    };
  } else {
    const { method, cardBrand, last4, authCode, routingNumber, checkNumber, offline } = input.payment;
    tender = {
      id: newId('tender'),
      method,
      amountCents: due,
      tipCents,
      ...(cardBrand ? { cardBrand } : {}),
      ...(last4 ? { last4 } : {}),
      ...(authCode ? { authCode } : {}),
      ...(routingNumber ? { routingNumber } : {}),
      ...(checkNumber ? { checkNumber } : {}),
      ...(offline ? { offline: { state: 'pending_forward' as const, token: offline.token, approvedAt: offline.approvedAt } } : {}),
    };
  }
  const id = input.orderId ?? newId('order');
  const order: Order = {
    id,
    registerId: input.registerId,
    registerNumber: input.registerNumber,
    receiptNumber: formatReceiptNumber(input.registerNumber, input.sequence),
    state: 'paid',
    currency: input.currency,
    createdAt: input.createdAt,
    ...(input.staffId ? { staffId: input.staffId } : {}),
    ...(input.customerId ? { customerId: input.customerId } : {}),
    lines: totals.lines,
    discounts: [...(input.discounts ?? [])],
    taxLines: totals.taxLines,
    subtotalCents: totals.subtotalCents,
    discountCents: totals.discountCents,
    taxCents: totals.taxCents,
    totalCents: totals.totalCents,
    tipCents,
    paidCents: tender?.amountCents ?? 0,
    tenders: tender ? [tender] : [],
    journalTransactionId: saleJournalTransactionId(id),
  };
  if (isZeroValueSale(order)) return { order: { ...order, journalTransactionId: null }, journalTransaction: null };
  return { order, journalTransaction: buildSaleJournalTransaction(order) };
}
