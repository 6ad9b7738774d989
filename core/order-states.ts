/**
 * The state machines of orders and payments (listed in docs/api.md "Orders and customers"). States are string unions with a
 * documented meaning per value; every move goes through {@link assertOrderTransition} /
 * {@link assertPaymentTransition}, which throw {@link IllegalTransitionError} — the server turns it into a 409
 * problem naming the current state.
 *
 * Order:   open → paid → partially_refunded → refunded; open → canceled; paid → refunded (a full refund at once);
 *          partially_refunded → partially_refunded (another partial refund);
 *          paid | partially_refunded → balance_due (a payment failed after the sale: an offline card declined or
 *          expired on forward, a bank payment returned) → balance_due (another one, or part collected)
 *          → paid | partially_refunded (the balance collected; back to the state it had).
 * Payment: pending → authorized → captured; pending → declined; authorized → voided;
 *          captured → partially_refunded → refunded; captured → refunded; captured → returned (the bank gave it back).
 */
import { IllegalTransitionError } from './transitions.ts';

/** Every order state, in lifecycle order. */
export const ORDER_STATES = [
  /** Created, not yet paid in full: lines can be paid (by one or several tenders) or the order canceled. */
  'open',
  /** Paid in full (total plus tips). Never edited again: refunds are new records linked to it. */
  'paid',
  /** Paid, and part of what was paid has been refunded; more may still be refunded. */
  'partially_refunded',
  /** Everything that was paid (tips included) has been refunded. Final. */
  'refunded',
  /** Abandoned while open; any payment taken before is refunded by the cancellation. Final. */
  'canceled',
  /**
   * Was paid, but a payment of it failed after the goods were gone (an offline card declined or expired on forward, a
   * bank payment returned): the customer owes `balanceDueCents`, posted to a customer receivable. Amounts stay frozen;
   * collecting the balance (a new payment) brings it back to `paid` (or `partially_refunded`). Not refundable meanwhile.
   */
  'balance_due',
] as const;

/**
 * An order's state:
 * - `open` — created, not paid in full;
 * - `paid` — paid in full, never edited again;
 * - `partially_refunded` — part of the paid amount refunded;
 * - `refunded` — everything paid was refunded (final);
 * - `canceled` — abandoned while open (final);
 * - `balance_due` — was paid, a payment failed afterwards; the customer owes the balance (see {@link ORDER_STATES}).
 */
export type OrderStateName = (typeof ORDER_STATES)[number];

/** Every payment state, in lifecycle order. */
export const PAYMENT_STATES = [
  /** Created, not yet sent to the rail (or waiting for the terminal). */
  'pending',
  /** The rail approved and holds the amount; not yet captured. */
  'authorized',
  /** The money is taken (cash, check and other tenders are captured at once). */
  'captured',
  /** The rail refused the authorization. Final. */
  'declined',
  /** An authorization released before capture. Final. */
  'voided',
  /** Captured, part of it refunded. */
  'partially_refunded',
  /** Captured and refunded in full. Final. */
  'refunded',
  /** Captured, then given back by the bank (an ACH return): the reversal is posted, the order owes it again. Final. */
  'returned',
] as const;

/**
 * A payment's state:
 * - `pending` — not yet authorized;
 * - `authorized` — approved by the rail, held;
 * - `captured` — money taken;
 * - `declined` — refused by the rail (final);
 * - `voided` — authorization released before capture (final);
 * - `partially_refunded` — captured, part refunded;
 * - `refunded` — captured and refunded in full (final);
 * - `returned` — captured, then returned by the bank, reversal posted (final).
 */
export type PaymentStateName = (typeof PAYMENT_STATES)[number];

/** Legal moves of an order, from → allowed targets. */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStateName, readonly OrderStateName[]>> = {
  open: ['paid', 'canceled'],
  paid: ['partially_refunded', 'refunded', 'balance_due'],
  partially_refunded: ['partially_refunded', 'refunded', 'balance_due'],
  refunded: [],
  canceled: [],
  balance_due: ['balance_due', 'paid', 'partially_refunded'],
};

/** Legal moves of a payment, from → allowed targets. */
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStateName, readonly PaymentStateName[]>> = {
  pending: ['authorized', 'declined'],
  authorized: ['captured', 'voided'],
  captured: ['partially_refunded', 'refunded', 'returned'],
  declined: [],
  voided: [],
  partially_refunded: ['partially_refunded', 'refunded'],
  refunded: [],
  returned: [],
};

/** True when an order may move from `from` to `to`. */
export function canOrderTransition(from: OrderStateName, to: OrderStateName): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

/** True when a payment may move from `from` to `to`. */
export function canPaymentTransition(from: PaymentStateName, to: PaymentStateName): boolean {
  return PAYMENT_TRANSITIONS[from].includes(to);
}

/** @throws IllegalTransitionError when the order may not move `from` → `to`. */
export function assertOrderTransition(from: OrderStateName, to: OrderStateName, action: string): void {
  if (!canOrderTransition(from, to)) throw new IllegalTransitionError('order', from, to, action);
}

/** @throws IllegalTransitionError when the payment may not move `from` → `to`. */
export function assertPaymentTransition(from: PaymentStateName, to: PaymentStateName, action: string): void {
  if (!canPaymentTransition(from, to)) throw new IllegalTransitionError('payment', from, to, action);
}

/** The state of something paid `paidCents` of which `refundedCents` were refunded (captured when nothing was). */
export function refundState(paidCents: number, refundedCents: number): 'partially_refunded' | 'refunded' | 'captured' {
  if (refundedCents <= 0) return 'captured';
  return refundedCents >= paidCents ? 'refunded' : 'partially_refunded';
}
