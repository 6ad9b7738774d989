/**
 * Refunds of paid orders (docs/decisions/0003-orders-through-the-api.md). A refund is a new record linked to the order,
 * never an edit of it. It is planned here — how much of goods, tax and tips it gives back, and from which payments —
 * and posted as one balanced journal transaction:
 *
 *   Dr `refunds` (contra revenue)  goods − tax     the net sale given back (revenue itself is never debited, so
 *   Dr `sales_tax_payable`         tax             gross sales and returns both stay visible)
 *   Dr `tips_payable`              tips
 *   Cr each payment's account      its allocation  latest payment first
 *
 * Amounts follow cumulative rounding so that refunding a line in several steps gives back exactly what the line
 * cost, and refunding everything gives back exactly what was paid:
 * - by line: refunding quantities `k+1 … k+q` of a line of quantity `n` whose share of the total is `T` (net plus
 *   exclusive tax) and of tax `X` gives back `round(T·(k+q)/n) − round(T·k/n)`, tax likewise (half-even);
 * - by amount: goods first (up to what is left of the order total), then tips; its tax share is
 *   `round(goods · orderTax / orderTotal)`, and the last refund of the goods takes all the tax left.
 */
import { formatMoney, mulDivHalfEven, sumCents } from './money.ts';
import { buildJournalTransaction, orderJournalHeader } from './ledger.ts';
import type { JournalTransaction, Order } from './schemas.ts';

/** What earlier refunds of the order gave back. */
export interface PriorRefund {
  goodsCents: number;
  taxCents: number;
  tipCents: number;
  lines: readonly { lineId: string; quantity: number }[];
}

/** A payment a refund can draw on: `amountCents` paid (tips included), `refundedCents` already given back. */
export interface RefundablePayment {
  id: string;
  accountCode: string;
  amountCents: number;
  refundedCents: number;
}

/** What is asked: lines and quantities, or an amount (not both). */
export type RefundRequest = { lines: readonly { lineId: string; quantity: number }[] } | { amountCents: number };

/** A planned refund, ready to store and post. */
export interface RefundPlan {
  amountCents: number;
  goodsCents: number;
  taxCents: number;
  tipCents: number;
  lines: { lineId: string; quantity: number; amountCents: number; taxCents: number }[];
  allocations: { paymentId: string; amountCents: number; accountCode: string }[];
}

/** Why a refund cannot be planned; `path` names the request field (`amountCents`, `lines.0.quantity`, …). */
export class RefundError extends Error {
  override name = 'RefundError';
  constructor(
    readonly code: 'unknown_line' | 'refund_exceeds_remaining' | 'nothing_to_refund',
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/** Remaining refundable amounts of an order: goods (net of discounts, tax included), tax, tips. Prefer {@link refundableBalance}. */
export function refundableOf(
  order: Order,
  prior: readonly PriorRefund[],
): { goodsCents: number; taxCents: number; tipCents: number; totalCents: number } {
  const goodsCents = order.totalCents - sumCents(prior.map((r) => r.goodsCents));
  const taxCents = order.taxCents - sumCents(prior.map((r) => r.taxCents));
  const tipCents = order.tipCents - sumCents(prior.map((r) => r.tipCents));
  return { goodsCents, taxCents, tipCents, totalCents: goodsCents + tipCents };
}

function lineShare(line: Order['lines'][number]): { totalCents: number; taxCents: number } {
  const inclusive = line.taxes.some((t) => t.inclusive);
  return { totalCents: line.netCents + (inclusive ? 0 : line.taxCents), taxCents: line.taxCents };
}

/**
 * Plans a refund of `order` given its earlier refunds and its payments.
 * @throws RefundError naming the field when a line is unknown, a quantity or amount exceeds what is left, or the
 *   refund would give back nothing.
 */
export function planRefund(order: Order, prior: readonly PriorRefund[], payments: readonly RefundablePayment[], request: RefundRequest): RefundPlan {
  const left = refundableOf(order, prior);
  // Messages are for the people who read them in a form: money in the order's currency, no ids.
  const money = (cents: number) => formatMoney(cents, order.currency);
  let goodsCents = 0;
  let taxCents = 0;
  let tipCents = 0;
  const lines: RefundPlan['lines'] = [];
  if ('lines' in request) {
    for (const [i, asked] of request.lines.entries()) {
      const line = order.lines.find((l) => l.id === asked.lineId);
      if (!line) throw new RefundError('unknown_line', `line ${asked.lineId} is not a line of order ${order.id}`, `lines.${i}.lineId`);
      const already = sumCents(prior.flatMap((r) => r.lines.filter((l) => l.lineId === line.id).map((l) => l.quantity)));
      if (asked.quantity > line.quantity - already) {
        throw new RefundError(
          'refund_exceeds_remaining',
          `only ${line.quantity - already} of ${line.quantity} can still be refunded on this line`,
          `lines.${i}.quantity`,
        );
      }
      const share = lineShare(line);
      const at = (cents: number, n: number) => mulDivHalfEven(cents, n, line.quantity);
      const amount = at(share.totalCents, already + asked.quantity) - at(share.totalCents, already);
      const tax = at(share.taxCents, already + asked.quantity) - at(share.taxCents, already);
      lines.push({ lineId: line.id, quantity: asked.quantity, amountCents: amount, taxCents: tax });
      goodsCents += amount;
      taxCents += tax;
    }
    if (goodsCents > left.goodsCents) {
      throw new RefundError(
        'refund_exceeds_remaining',
        `these lines come to ${money(goodsCents)} but only ${money(left.goodsCents)} of the goods can still be refunded`,
        'lines',
      );
    }
    taxCents = Math.min(taxCents, left.taxCents, goodsCents);
  } else {
    if (request.amountCents > left.totalCents) {
      throw new RefundError('refund_exceeds_remaining', `at most ${money(left.totalCents)} can still be refunded`, 'amountCents');
    }
    goodsCents = Math.min(request.amountCents, left.goodsCents);
    tipCents = request.amountCents - goodsCents;
    taxCents = order.totalCents > 0 ? Math.min(mulDivHalfEven(goodsCents, order.taxCents, order.totalCents), left.taxCents, goodsCents) : 0;
  }
  if (goodsCents === left.goodsCents) taxCents = left.taxCents;
  const amountCents = goodsCents + tipCents;
  if (amountCents <= 0)
    throw new RefundError('nothing_to_refund', 'this refund would give back nothing', 'lines' in request ? 'lines' : 'amountCents');

  const allocations: RefundPlan['allocations'] = [];
  let rest = amountCents;
  for (const p of [...payments].reverse()) {
    const take = Math.min(rest, p.amountCents - p.refundedCents);
    if (take > 0) {
      allocations.push({ paymentId: p.id, amountCents: take, accountCode: p.accountCode });
      rest -= take;
    }
    if (rest === 0) break;
  }
  if (rest > 0)
    throw new RefundError(
      'refund_exceeds_remaining',
      `the order's payments can give back only ${money(amountCents - rest)}`,
      'lines' in request ? 'lines' : 'amountCents',
    );
  return { amountCents, goodsCents, taxCents, tipCents, lines, allocations };
}

/**
 * Payment states a refund can draw on: money was captured and not all of it given back yet. Declined and
 * voided attempts moved no money; pending and authorized ones have not captured any.
 */
export const REFUNDABLE_PAYMENT_STATES = ['captured', 'partially_refunded'] as const;

/** A payment of an order as the API records it (`PaymentRecord`): what {@link refundableBalance} reads of it. */
export interface OrderPaymentLike extends RefundablePayment {
  state: string;
}

/** A refund record of an order (`RefundRecord`): `cancellation` gives back an open order's payments, `refund` goods. */
export interface OrderRefundLike extends PriorRefund {
  kind: 'refund' | 'cancellation';
}

/** What can still be refunded of an order, and from which payments (see {@link refundableBalance}). Minor units. */
export interface RefundableBalance {
  /** The payments a refund can draw on, in the order they were taken (a refund takes the latest first). */
  payments: RefundablePayment[];
  /** Earlier refunds of goods and tips (cancellations excluded). */
  prior: PriorRefund[];
  /** Goods left (net of discounts, tax included), of which tax; tips left. */
  goodsCents: number;
  taxCents: number;
  tipCents: number;
  /** At most this can still be given back: goods plus tips left, never more than the payments still hold, ≥ 0. */
  totalCents: number;
}

/**
 * The refund rule, one definition for the server and the back office: which payments of an order a refund can draw
 * on ({@link REFUNDABLE_PAYMENT_STATES}), which earlier records count (refunds, not cancellations), and how much is
 * left: what the order charged (total plus tips) less what refunds gave back, capped by what the payments still hold.
 * Pure; never throws.
 */
export function refundableBalance(order: Order, payments: readonly OrderPaymentLike[], refunds: readonly OrderRefundLike[]): RefundableBalance {
  const usable = payments
    .filter((p) => (REFUNDABLE_PAYMENT_STATES as readonly string[]).includes(p.state))
    .map((p) => ({ id: p.id, accountCode: p.accountCode, amountCents: p.amountCents, refundedCents: p.refundedCents }));
  const prior = refunds
    .filter((r) => r.kind === 'refund')
    .map((r) => ({ goodsCents: r.goodsCents, taxCents: r.taxCents, tipCents: r.tipCents, lines: r.lines }));
  const left = refundableOf(order, prior);
  const held = usable.reduce((a, p) => a + Math.max(0, p.amountCents - p.refundedCents), 0);
  return {
    payments: usable,
    prior,
    goodsCents: left.goodsCents,
    taxCents: left.taxCents,
    tipCents: left.tipCents,
    totalCents: Math.max(0, Math.min(left.totalCents, held)),
  };
}

/** A refund planned against an order's records, and the state the order moves to. */
export interface OrderRefundPlan extends RefundPlan {
  /** `refunded` once everything the order charged (tips included) has been given back, else `partially_refunded`. */
  orderState: 'refunded' | 'partially_refunded';
}

/**
 * Plans a refund of `order` from its payment and refund records: {@link refundableBalance}, then {@link planRefund}.
 * What the server posts and what the back office previews.
 * @throws RefundError naming the request field (`lines.<i>.quantity`, `amountCents`, …) as planRefund does.
 */
export function planOrderRefund(
  order: Order,
  payments: readonly OrderPaymentLike[],
  refunds: readonly OrderRefundLike[],
  request: RefundRequest,
): OrderRefundPlan {
  const balance = refundableBalance(order, payments, refunds);
  const plan = planRefund(order, balance.prior, balance.payments, request);
  return { ...plan, orderState: plan.amountCents >= balance.goodsCents + balance.tipCents ? 'refunded' : 'partially_refunded' };
}

/**
 * The refund's journal transaction (see the file comment): Dr `refunds` goods − tax, Dr `sales_tax_payable` tax,
 * Dr `tips_payable` tips, Cr each allocation's account.
 * @throws LedgerError when the plan does not balance (a bug).
 */
export function buildRefundJournalTransaction(order: Order, plan: RefundPlan, refundId: string, occurredAt: string): JournalTransaction {
  return buildJournalTransaction(orderJournalHeader(order, 'refund', occurredAt, `Refund ${refundId} of ${order.receiptNumber}`), [
    { accountCode: 'refunds', amountCents: plan.goodsCents - plan.taxCents },
    { accountCode: 'sales_tax_payable', amountCents: plan.taxCents },
    { accountCode: 'tips_payable', amountCents: plan.tipCents },
    ...plan.allocations.map((a) => ({ accountCode: a.accountCode, amountCents: -a.amountCents })),
  ]);
}
