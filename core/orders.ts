/**
 * Order checks shared by the register and the server: a pushed order is accepted only when its
 * totals are exactly what {@link computeOrderTotals} gives for its own lines and discounts, and it is paid in full.
 */
import { buildSaleJournalTransaction, isZeroValueSale, LedgerError } from './ledger.ts';
import { computeOrderTotals, PricingError } from './pricing.ts';
import type { JournalTransaction, Order } from './schemas.ts';
import { canonicalJson } from './canonical-json.ts';

/** One reason an order is not consistent, naming the field (`totalCents`, `lines.2.taxCents`, …). */
export interface OrderProblem {
  path: string;
  message: string;
}

/**
 * Recomputes the order's figures from its lines' recorded prices and tax snapshots and its discounts, and compares
 * them with what the order states. Returns the differences (empty when consistent). Never throws.
 */
export function verifyOrderTotals(order: Order): OrderProblem[] {
  let totals;
  try {
    totals = computeOrderTotals(order.lines, order.discounts);
  } catch (err) {
    if (err instanceof PricingError) return [{ path: err.path, message: err.message }];
    throw err;
  }
  const problems: OrderProblem[] = [];
  const compare = (path: string, stated: unknown, computed: unknown) => {
    // Two equal numbers (almost every comparison) have the same canonical JSON: no need to write it.
    if (typeof stated === 'number' && stated === computed) return;
    if (canonicalJson(stated) !== canonicalJson(computed)) {
      problems.push({ path, message: `states ${canonicalJson(stated)} but recomputes to ${canonicalJson(computed)}` });
    }
  };
  for (const key of ['subtotalCents', 'discountCents', 'taxCents', 'totalCents'] as const) compare(key, order[key], totals[key]);
  compare('taxLines', order.taxLines, totals.taxLines);
  totals.lines.forEach((line, i) => {
    const stated = order.lines[i];
    if (!stated) return;
    for (const key of ['grossCents', 'discountCents', 'netCents', 'taxCents'] as const) compare(`lines.${i}.${key}`, stated[key], line[key]);
    const modifierSum = stated.modifiers.reduce((a, m) => a + m.priceCents, 0);
    if (modifierSum > stated.unitPriceCents) {
      problems.push({ path: `lines.${i}.unitPriceCents`, message: 'is less than the sum of its modifiers' });
    }
  });
  const tips = order.tenders.reduce((a, t) => a + t.tipCents, 0);
  compare('tipCents', order.tipCents, tips);
  const paid = order.tenders.reduce((a, t) => a + t.amountCents, 0);
  compare('paidCents', order.paidCents, paid);
  for (const [i, t] of order.tenders.entries()) {
    if (t.method === 'cash' && t.tenderedCents !== undefined && t.tenderedCents - t.amountCents !== (t.changeCents ?? 0)) {
      problems.push({ path: `tenders.${i}.changeCents`, message: 'must equal tenderedCents − amountCents' });
    }
  }
  if (order.state === 'paid' && paid !== order.totalCents + order.tipCents) {
    problems.push({ path: 'tenders', message: `pay ${paid} but a paid order needs ${order.totalCents + order.tipCents}` });
  }
  return problems;
}

/**
 * The price-override rule: every line carrying a `priceOverride` must name an approver who is a manager or
 * owner of the store. `roles` maps the store's staff ids to their role (those not in it are no staff of the store).
 * Returns the reason to refuse the sale (`lines.<i>.priceOverride.approvedBy …`), or undefined when it passes.
 */
export function priceOverrideProblem(order: Order, roles: ReadonlyMap<string, string>): string | undefined {
  for (const [i, line] of order.lines.entries()) {
    if (!line.priceOverride) continue;
    const role = roles.get(line.priceOverride.approvedBy);
    if (role !== 'manager' && role !== 'owner') {
      return `lines.${i}.priceOverride.approvedBy ${line.priceOverride.approvedBy} is not a manager or owner of this store${role ? ` (a ${role})` : ''}: a price override needs a manager's approval`;
    }
  }
  return undefined;
}

/**
 * Everything the server checks on a register-authored paid sale before storing it: consistent totals, and a journal
 * transaction that is exactly the one {@link buildSaleJournalTransaction} derives (so it balances) — or none at all for
 * a sale that moves no money. Returns `{ journalTransaction }` (null for such a sale) or `{ problems }`.
 */
export function checkRegisterSale(
  order: Order,
): { journalTransaction: JournalTransaction | null; problems?: undefined } | { problems: OrderProblem[] } {
  const problems = verifyOrderTotals(order);
  if (order.state !== 'paid') problems.push({ path: 'state', message: 'a register sale is pushed paid' });
  if (problems.length > 0) return { problems };
  // A sale that moves no money has no journal transaction and no tender (core/ledger.ts isZeroValueSale).
  if (isZeroValueSale(order)) {
    if (order.tenders.length > 0) return { problems: [{ path: 'tenders', message: 'a sale with nothing to pay takes no tender' }] };
    if (order.journalTransactionId !== null)
      return { problems: [{ path: 'journalTransactionId', message: 'must be null: a sale that moves no money posts nothing' }] };
    return { journalTransaction: null };
  }
  try {
    const journalTransaction = buildSaleJournalTransaction(order);
    if (order.journalTransactionId !== journalTransaction.id) {
      return { problems: [{ path: 'journalTransactionId', message: `must be ${journalTransaction.id}` }] };
    }
    return { journalTransaction };
  } catch (err) {
    if (err instanceof LedgerError) return { problems: [{ path: 'tenders', message: err.message }] };
    throw err;
  }
}
