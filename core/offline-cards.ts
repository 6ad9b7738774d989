/**
 * Offline card payments — store and forward. When the register cannot reach the server, the card terminal
 * may approve a card offline: the register stores the tender as `pending_forward` with the terminal's token (never a
 * card number), and the server forwards the token to the processor exactly once when the sale arrives. The merchant
 * bounds the risk with two limits (docs/decisions/0021-offline-card-payments-store-and-forward.md): per payment and total outstanding.
 */
import { z } from 'zod';
import { MAX_AMOUNT_CENTS } from './money.ts';
import { patchBody } from './schemas.ts';

/** A store's offline card limits, in minor units, and the forward window in hours. */
export interface OfflineCardLimits {
  /** Largest single card payment approved offline (minor units). 0 turns offline card payments off. */
  maxPaymentCents: number;
  /** Largest total of offline card payments not yet forwarded, per register (minor units). */
  maxOutstandingCents: number;
  /** Hours a register may hold an offline payment before it must be forwarded (shown to the cashier; 1 … 168). */
  forwardWithinHours: number;
}

/** Defaults of every store: 100.00 per payment, 1,000.00 outstanding, 24 hours (docs/decisions/0021-offline-card-payments-store-and-forward.md). */
export const DEFAULT_OFFLINE_CARD_LIMITS: OfflineCardLimits = { maxPaymentCents: 10_000, maxOutstandingCents: 100_000, forwardWithinHours: 24 };

/** `GET /api/pos/offline-cards/limits` and the answer of PATCH. */
export const offlineCardLimitsSchema = z.strictObject({
  maxPaymentCents: z
    .int()
    .min(0)
    .max(MAX_AMOUNT_CENTS)
    .describe('Largest card payment approved offline (minor units); 0 = offline card payments off. Default 10000.'),
  maxOutstandingCents: z
    .int()
    .min(0)
    .max(MAX_AMOUNT_CENTS)
    .describe('Largest total of offline card payments not yet forwarded, per register (minor units). Default 100000.'),
  forwardWithinHours: z
    .int()
    .min(1)
    .max(168)
    .describe('Hours an offline payment may wait to be forwarded (Square: 24, Clover: up to 168). Default 24.'),
});

/** `PATCH /api/pos/offline-cards/limits`: any of the limits, at least one (a PATCH body). */
export const offlineCardLimitsPatchSchema = patchBody(offlineCardLimitsSchema.partial().shape);

/**
 * How much a register may still approve offline for one payment (minor units, ≥ 0): the per-payment limit, or what
 * is left of the outstanding limit after `outstandingCents` (offline payments the register holds, not yet forwarded).
 */
export function offlineLimitLeftCents(limits: OfflineCardLimits, outstandingCents: number): number {
  return Math.max(0, Math.min(limits.maxPaymentCents, limits.maxOutstandingCents - outstandingCents));
}

/**
 * Where a forwarded offline payment stands on the server: `pending_forward` (not yet sent, or sent and released for a
 * transient reason, to be retried), `captured`, `declined` (the processor refused it on forward: balance due), or
 * `expired` (its forward window passed before it could be sent: never sent, balance due, code `forward_window_expired`).
 */
export const OFFLINE_CARD_STATES = ['pending_forward', 'captured', 'declined', 'expired'] as const;

/** The decline code of a payment whose forward window passed (state `expired`). */
export const FORWARD_WINDOW_EXPIRED = 'forward_window_expired';

/** First delay before a released forward is retried, and the most it grows to (doubling per failure). */
export const FORWARD_RETRY_BASE_MS = 60_000;
export const FORWARD_RETRY_MAX_MS = 3_600_000;

/**
 * How long to wait before retrying a forward that failed `failures` times (≥ 1) for a transient reason: 1 min, 2, 4, …
 * doubling, at most 1 h (exponential backoff, no jitter: one server tick decides). In milliseconds.
 */
export function forwardRetryDelayMs(failures: number): number {
  return Math.min(FORWARD_RETRY_MAX_MS, FORWARD_RETRY_BASE_MS * 2 ** Math.max(0, Math.min(failures, 32) - 1));
}

/** One offline card payment as the back office lists it (`GET /api/pos/offline-cards/payments`). */
export const offlineCardPaymentSchema = z.strictObject({
  id: z.string().describe('The payment id: the tender id of the register sale.'),
  orderId: z.string(),
  receiptNumber: z.string(),
  registerId: z.string(),
  state: z.enum(OFFLINE_CARD_STATES),
  amountCents: z.int(),
  /**
   * What the customer still owes of it: the amount once the forward was declined or expired, while its order is in
   * state `balance_due` (at most the order's balance due); 0 once collected on the order (and for every other state).
   */
  balanceDueCents: z.int(),
  currency: z.string(),
  cardBrand: z.string().nullable(),
  last4: z.string().nullable(),
  approvedAt: z.string().describe('When the terminal approved offline (ISO 8601).'),
  forwardedAt: z.string().nullable(),
  forwardAttempts: z.int().describe('Times the token was sent to the processor: 1 once forwarded, never more.'),
  forwardFailures: z.int().describe('Forwards released because the processor could not be reached (each retried later with backoff).'),
  nextForwardAt: z.string().nullable().describe('When the housekeeping tick retries a released forward (ISO 8601); null otherwise.'),
  forwardDeadline: z
    .string()
    .describe("The end of the forward window (approvedAt + the store's forwardWithinHours): not forwarded by then → `expired`."),
  declineCode: z.string().nullable(),
  processorReference: z.string().nullable(),
  customer: z
    .strictObject({ id: z.string(), name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() })
    .nullable()
    .describe("The receipt's customer, when the sale named one: whom to contact about the balance due."),
});
export type OfflineCardPayment = z.infer<typeof offlineCardPaymentSchema>;
