/**
 * Offline card payments — store and forward (issue 12). When the register cannot reach the server, the card terminal
 * may approve a card offline: the register stores the tender as `pending_forward` with the terminal's token (never a
 * card number), and the server forwards the token to the processor exactly once when the sale arrives. The merchant
 * bounds the risk with two limits (docs/decisions.md "Offline card limits"): per payment and total outstanding.
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

/** Defaults of every store: 100.00 per payment, 1,000.00 outstanding, 24 hours (docs/decisions.md). */
export const DEFAULT_OFFLINE_CARD_LIMITS: OfflineCardLimits = { maxPaymentCents: 10_000, maxOutstandingCents: 100_000, forwardWithinHours: 24 };

/** `GET /api/pos/offline-cards/limits` and the answer of PATCH. */
export const offlineCardLimitsSchema = z.strictObject({
  maxPaymentCents: z.int().min(0).max(MAX_AMOUNT_CENTS).describe('Largest card payment approved offline (minor units); 0 = offline card payments off. Default 10000.'),
  maxOutstandingCents: z.int().min(0).max(MAX_AMOUNT_CENTS).describe('Largest total of offline card payments not yet forwarded, per register (minor units). Default 100000.'),
  forwardWithinHours: z.int().min(1).max(168).describe('Hours an offline payment may wait to be forwarded (Square: 24, Clover: up to 168). Default 24.'),
});

/** `PATCH /api/pos/offline-cards/limits`: any of the limits, at least one (DESIGN §7 PATCH body). */
export const offlineCardLimitsPatchSchema = patchBody(offlineCardLimitsSchema.partial().shape);

/**
 * How much a register may still approve offline for one payment (minor units, ≥ 0): the per-payment limit, or what
 * is left of the outstanding limit after `outstandingCents` (offline payments the register holds, not yet forwarded).
 */
export function offlineLimitLeftCents(limits: OfflineCardLimits, outstandingCents: number): number {
  return Math.max(0, Math.min(limits.maxPaymentCents, limits.maxOutstandingCents - outstandingCents));
}

/** Where a forwarded offline payment stands on the server. */
export const OFFLINE_CARD_STATES = ['pending_forward', 'captured', 'declined'] as const;

/** One offline card payment as the back office lists it (`GET /api/pos/offline-cards/payments`). */
export const offlineCardPaymentSchema = z.strictObject({
  id: z.string().describe('The payment id: the tender id of the register sale.'),
  orderId: z.string(),
  receiptNumber: z.string(),
  registerId: z.string(),
  state: z.enum(OFFLINE_CARD_STATES),
  amountCents: z.int(),
  /** What the customer still owes: the amount once the forward was declined, else 0. */
  balanceDueCents: z.int(),
  currency: z.string(),
  cardBrand: z.string().nullable(),
  last4: z.string().nullable(),
  approvedAt: z.string().describe('When the terminal approved offline (ISO 8601).'),
  forwardedAt: z.string().nullable(),
  forwardAttempts: z.int().describe('Times the token was sent to the processor: 1 once forwarded, never more.'),
  declineCode: z.string().nullable(),
  processorReference: z.string().nullable(),
  customer: z
    .strictObject({ id: z.string(), name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() })
    .nullable()
    .describe("The receipt's customer, when the sale named one: whom to contact about the balance due."),
});
export type OfflineCardPayment = z.infer<typeof offlineCardPaymentSchema>;
