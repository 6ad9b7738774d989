/**
 * The X- and Z-report of a shift computed on the register from what is stored here (every sale of the shift, synced
 * or not), the drawer's denominations per currency, and the cash figures of a close.
 */
import { sumCents, type Cents } from '../../../../core/index.ts';
import type { ShiftActivity } from './shift-store.ts';
import type { Closeout, DenominationCount, ShiftReport } from './shift-types.ts';

/**
 * Notes and coins of a currency in minor units, largest first (USD: $100 … 1¢; EUR: €500 … 1c; GBP: £50 … 1p;
 * CAD: $100 … 5¢; JPY: ¥10,000 … ¥1). Unknown currencies fall back to a generic 1-2-5 series of its minor unit.
 */
export function denominationsOf(currency: string): Cents[] {
  switch (currency) {
    case 'USD':
      return [10000, 5000, 2000, 1000, 500, 200, 100, 25, 10, 5, 1];
    case 'EUR':
      return [50000, 20000, 10000, 5000, 2000, 1000, 500, 200, 100, 50, 20, 10, 5, 2, 1];
    case 'GBP':
      return [5000, 2000, 1000, 500, 200, 100, 50, 20, 10, 5, 2, 1];
    case 'CAD':
      return [10000, 5000, 2000, 1000, 500, 200, 100, 25, 10, 5];
    case 'JPY':
      return [10000, 5000, 2000, 1000, 500, 100, 50, 10, 5, 1];
    default:
      return [10000, 5000, 2000, 1000, 500, 200, 100, 50, 20, 10, 5, 2, 1];
  }
}

/** The cash a count by denomination adds up to (cents). @throws RangeError on a negative or fractional count. */
export function countedCash(counts: readonly DenominationCount[]): Cents {
  for (const c of counts) if (!Number.isSafeInteger(c.count) || c.count < 0) throw new RangeError(`count of ${c.valueCents} must be a non-negative integer`);
  return sumCents(counts.map((c) => c.valueCents * c.count));
}

/** Adds `amount` to the row of `key` in `rows` (kept in first-seen order). */
function addTo<K extends string>(rows: ({ count: number; amountCents: Cents } & Record<K, string>)[], keyName: K, key: string, amount: Cents): void {
  const row = rows.find((r) => r[keyName] === key);
  if (row) {
    row.count += 1;
    row.amountCents += amount;
  } else rows.push({ [keyName]: key, count: 1, amountCents: amount } as { count: number; amountCents: Cents } & Record<K, string>);
}

/**
 * The report of a shift's activity: sales (paid, refunded or partly refunded orders) and their discounts, tips, tax
 * by rate, totals by tender and card brand, cash movements, first and last receipt, and the cash the drawer should
 * hold: opening float + cash taken by sales (tendered − change) + paid in − paid out.
 */
export function computeShiftReport({ shift, movements, orders, until }: ShiftActivity): ShiftReport {
  const sales = orders.filter((o) => o.state === 'paid' || o.state === 'refunded' || o.state === 'partially_refunded');
  const taxByRate: ShiftReport['taxByRate'] = [];
  const byTender: { method: string; count: number; amountCents: Cents }[] = [];
  const cardByBrand: { brand: string; count: number; amountCents: Cents }[] = [];
  for (const order of sales) {
    for (const tax of order.taxLines) {
      const row = taxByRate.find((r) => r.name === tax.name && r.basisPoints === tax.basisPoints);
      if (row) row.taxCents += tax.taxCents;
      else taxByRate.push({ name: tax.name, basisPoints: tax.basisPoints, taxCents: tax.taxCents });
    }
    for (const tender of order.tenders) {
      addTo(byTender, 'method', tender.method, tender.amountCents);
      if (tender.method === 'card') addTo(cardByBrand, 'brand', tender.cardBrand ?? 'Card', tender.amountCents);
    }
  }
  const sum = (values: number[]) => sumCents(values);
  const cashSalesCents = byTender.find((t) => t.method === 'cash')?.amountCents ?? 0;
  const paidInCents = sum(movements.filter((m) => m.kind === 'paid_in').map((m) => m.amountCents));
  const paidOutCents = sum(movements.filter((m) => m.kind === 'paid_out').map((m) => m.amountCents));
  const receipts = sales.map((o) => o.receiptNumber).sort();
  return {
    currency: shift.currency,
    openedAt: shift.openedAt,
    until,
    salesCount: sales.length,
    salesCents: sum(sales.map((o) => o.subtotalCents)),
    refundsCents: 0,
    voidsCount: orders.filter((o) => o.state === 'canceled').length,
    discountsCents: sum(sales.map((o) => o.discountCents)),
    tipsCents: sum(sales.map((o) => o.tipCents)),
    taxCents: sum(sales.map((o) => o.taxCents)),
    totalCents: sum(sales.map((o) => o.totalCents)),
    taxByRate,
    byTender,
    cardByBrand,
    paidInCents,
    paidOutCents,
    noSaleCount: movements.filter((m) => m.kind === 'no_sale').length,
    openingFloatCents: shift.openingFloatCents,
    cashSalesCents,
    expectedCashCents: shift.openingFloatCents + cashSalesCents + paidInCents - paidOutCents,
    ...(receipts.length > 0 ? { firstReceipt: receipts[0]!, lastReceipt: receipts[receipts.length - 1]! } : {}),
    unsyncedCount: sales.filter((o) => o.syncSeq === undefined).length,
  };
}

/** The figures of a close: the Z-report, the counted cash and the over/short against the expected cash. */
export function closeFigures(activity: ShiftActivity, counts: DenominationCount[]): Pick<Closeout, 'countedCashCents' | 'expectedCashCents' | 'overShortCents' | 'report'> {
  const report = computeShiftReport(activity);
  const countedCashCents = countedCash(counts);
  return { report, countedCashCents, expectedCashCents: report.expectedCashCents, overShortCents: countedCashCents - report.expectedCashCents };
}
