/**
 * Returns and exchanges at the register: a return is a register-authored, append-only document (`ret_…`
 * id born on the register, online or offline) naming the sale it returns (`orderId`, `receiptNumber`), the lines and
 * quantities given back, whether they go back on stock, and how the money went back (the original tender: cash from
 * the drawer, or the card through the terminal). The server turns it into a refund of the order (core/refunds.ts
 * planOrderRefund, the same rule as the back office's refunds), de-duplicated by the return's id; what cannot be
 * refunded any more (returned elsewhere in the meantime, across registers) is quarantined and shown on the register.
 *
 * An exchange is a return and a new sale made together: the return names the new sale (`exchangeOrderId`) and the
 * cashier settles only the difference (see {@link exchangeBalance}).
 */
import { z } from 'zod';
import { utcDateTime } from './datetime.ts';
import { planRefund, type PriorRefund, type RefundPlan } from './refunds.ts';
import { MAX_AMOUNT_CENTS } from './money.ts';
import { freeText, withoutCardNumber, type Order } from './schemas.ts';

const ulidId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be an id starting with ${prefix}_`);

/** How the money of a return went back: the original tender's method; a card refund keeps the terminal's auth code. */
export const returnTenderSchema = z.strictObject({
  method: z.enum(['cash', 'card', 'other']),
  cardBrand: withoutCardNumber(z.string().max(20)).optional(),
  last4: z
    .string()
    .regex(/^\d{4}$/)
    .optional(),
  authCode: withoutCardNumber(z.string().max(20)).optional(),
});
export type ReturnTender = z.infer<typeof returnTenderSchema>;

/**
 * A return made at the register. Amounts in minor units; `amountCents` is what the register gave back
 * (core {@link planReturn}); the server recomputes it and records its own refund (`refundId`, server stamp).
 * `approval` is a manager's token (`POST /api/register/approvals`) when the store's rule asks for one.
 */
export const registerReturnSchema = z.strictObject({
  id: ulidId('ret'),
  registerId: withoutCardNumber(z.string().regex(/^reg_[A-Za-z0-9_-]{1,40}$/)),
  orderId: ulidId('ord'),
  receiptNumber: withoutCardNumber(z.string().regex(/^R\d{1,4}-\d{6,}$/)),
  createdAt: utcDateTime,
  staffId: withoutCardNumber(z.string().max(64)).optional(),
  shiftId: ulidId('shf').optional(),
  lines: z
    .array(z.strictObject({ lineId: ulidId('lin'), quantity: z.int().min(1).max(9999) }))
    .min(1)
    .max(200)
    .refine((lines) => new Set(lines.map((l) => l.lineId)).size === lines.length, 'name each line once'),
  restock: z.boolean(),
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  tender: returnTenderSchema,
  approval: z
    .string()
    .regex(/^apv_[A-Za-z0-9_-]{20,64}$/, 'must be an approval token from POST /api/register/approvals')
    .optional(),
  exchangeOrderId: ulidId('ord').optional(),
  reason: freeText(500).optional(),
  /** Server stamps: the refund the server recorded for this return. */
  refundId: z.string().max(64).optional(),
  updatedAt: utcDateTime.optional(),
  syncSeq: z.int().min(0).optional(),
});
export type RegisterReturn = z.infer<typeof registerReturnSchema>;

/** Why a return cannot be made; `path` names the field (`lines.0.quantity`, …). */
export class ReturnError extends Error {
  override name = 'ReturnError';
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * Earlier returns of `order` (any register) as refunds already given back, for {@link planReturn}: planned one after
 * the other in the order given (oldest first), so each carries the cumulative rounding the server's refunds did.
 */
export function priorOfReturns(order: Order, returns: readonly Pick<RegisterReturn, 'orderId' | 'lines'>[]): PriorRefund[] {
  const prior: PriorRefund[] = [];
  for (const r of returns.filter((x) => x.orderId === order.id)) {
    try {
      const plan = planRefund(order, prior, tendersAsPayments(order), { lines: r.lines });
      prior.push({ goodsCents: plan.goodsCents, taxCents: plan.taxCents, tipCents: 0, lines: r.lines });
    } catch {
      // A return the server will refuse (more than was sold): it gives nothing back.
    }
  }
  return prior;
}

function tendersAsPayments(order: Order): { id: string; accountCode: string; amountCents: number; refundedCents: number }[] {
  return order.tenders.map((t) => ({ id: t.id, accountCode: t.method, amountCents: t.amountCents, refundedCents: 0 }));
}

/**
 * Plans a return of `lines` of `order` as the register sees it: what earlier returns (`prior`, any register) and the
 * order's own refunded state leave. The same cumulative rounding as the server's refund (core planRefund), so the
 * register gives back exactly what the server will record.
 * @throws ReturnError naming the field: a line unknown or returned beyond what was sold, an order not paid.
 */
export function planReturn(order: Order, prior: readonly PriorRefund[], lines: readonly { lineId: string; quantity: number }[]): RefundPlan {
  if (order.state !== 'paid' && order.state !== 'partially_refunded')
    throw new ReturnError(`sale ${order.receiptNumber} is ${order.state.replace('_', ' ')}: nothing to return`, 'orderId');
  if (order.tenders.length === 0) throw new ReturnError(`sale ${order.receiptNumber} took no payment: nothing to give back`, 'orderId');
  const payments = tendersAsPayments(order);
  let already = 0;
  for (const p of prior) already += p.goodsCents + p.tipCents;
  // Spread what was already given back over the payments, latest first (as core planRefund allocates).
  for (const p of [...payments].reverse()) {
    const take = Math.min(already, p.amountCents);
    p.refundedCents = take;
    already -= take;
  }
  try {
    return planRefund(order, prior, payments, { lines });
  } catch (err) {
    if (err instanceof Error && 'path' in err) throw new ReturnError(err.message, String((err as { path: unknown }).path));
    throw err;
  }
}

/**
 * What the customer pays (> 0) or gets back (< 0) in an exchange: the new sale's total less the return's amount.
 * Minor units.
 */
export function exchangeBalance(newSaleTotalCents: number, returnAmountCents: number): number {
  return newSaleTotalCents - returnAmountCents;
}

/** The tender a return goes back to: the sale's first tender that moved money (cash, card, …). */
export function originalTender(order: Order): Order['tenders'][number] | undefined {
  return order.tenders.find((t) => t.amountCents > 0) ?? order.tenders[0];
}
