/**
 * Request and response shapes of the staff order API: create an order from catalog references,
 * pay it with one or several tenders, cancel it, refund it (by line and quantity, or by amount), send its receipt.
 * These shapes are documented in docs/api.md ("Orders and customers").
 *
 * Every object is strict: unknown fields — a price on a catalog line included — are a 400 (prices come from the merchant's catalog, never from the caller).
 */
import { z } from 'zod';
import { routingDecisionSchema } from './rails.ts';
import { ORDER_STATES, PAYMENT_STATES, type OrderStateName } from './order-states.ts';
import { phoneInput } from './customers.ts';
import { utcDateTime } from './datetime.ts';
import {
  amountCentsSchema,
  freeText,
  idnEmail,
  withoutCardNumber,
  lineItemInputSchema,
  tenderMethod,
  MAX_AMOUNT_CENTS,
  MAX_MEMO_LENGTH,
  nonBlankText,
  orderSchema,
  pageSchema,
} from './schemas.ts';

const ulidId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be an id starting with ${prefix}_`);
/** Timestamps: ISO 8601 with an offset within ±14:00, normalised to UTC (core/datetime.ts). */
const isoDate = utcDateTime;
const amount = z.int().min(1).max(MAX_AMOUNT_CENTS);
const tip = amountCentsSchema;
/** A bounded amount of a record the server answers (0 … MAX_AMOUNT_CENTS). */
const recorded = amountCentsSchema;

/** An order discount as staff ask for it: the server gives it its id. */
export const discountInputSchema = z.discriminatedUnion('kind', [
  z.strictObject({ name: nonBlankText(100), kind: z.literal('percentage'), basisPoints: z.int().min(1).max(10_000) }),
  z.strictObject({ name: nonBlankText(100), kind: z.literal('fixed'), amountCents: amount }),
]);

/**
 * `POST /api/pos/orders`: catalog references only — the server prices every line from the merchant catalog; a
 * `priceCents` (or any other unknown field) on a line is a 400.
 */
export const orderCreateSchema = z.strictObject({
  lineItems: z.array(lineItemInputSchema).min(1).max(500),
  customerId: ulidId('cus').optional(),
  discounts: z.array(discountInputSchema).max(10).optional(),
  note: freeText(MAX_MEMO_LENGTH).optional(),
});
export type OrderCreate = z.infer<typeof orderCreateSchema>;

/**
 * Documented sandbox card tokens: what a terminal or the pay page hands back instead of a card number.
 * `tok_visa`, `tok_mastercard`, `tok_amex` are approved; `tok_declined` and `tok_insufficient_funds` are declined.
 */
export const SANDBOX_CARD_TOKENS = ['tok_visa', 'tok_mastercard', 'tok_amex', 'tok_declined', 'tok_insufficient_funds'] as const;

/**
 * One tender of a payment. `amountCents` is what the tender pays, tips included (as core's Tender);
 * `amountCents − tipCents` goes to the order's balance. Cash may say what was handed over (`tenderedCents`; change
 * is computed); a card names a sandbox token; a check its number; other tenders a free reference.
 */
export const tenderInputSchema = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('cash'), amountCents: amount, tipCents: tip.optional(), tenderedCents: amount.optional() }),
  z.strictObject({ method: z.literal('card'), amountCents: amount, tipCents: tip.optional(), cardToken: z.enum(SANDBOX_CARD_TOKENS) }),
  z.strictObject({
    method: z.literal('check'),
    amountCents: amount,
    tipCents: tip.optional(),
    checkNumber: withoutCardNumber(z.string().regex(/^\d{1,15}$/)).optional(),
  }),
  z.strictObject({ method: z.literal('other'), amountCents: amount, tipCents: tip.optional(), reference: nonBlankText(100).optional() }),
]);
export type TenderInput = z.infer<typeof tenderInputSchema>;

/**
 * `POST /api/pos/orders/{id}/payments`: one or several tenders, applied together (all or nothing). No tender
 * (`tenders: []`) completes an order with nothing due (its discounts brought it to 0), as Square's PayOrder does.
 */
export const paymentCreateSchema = z.strictObject({ tenders: z.array(tenderInputSchema).max(10) });
export type PaymentCreate = z.infer<typeof paymentCreateSchema>;

/** `POST /api/pos/orders/{id}/cancel`. */
export const orderCancelSchema = z.strictObject({ reason: nonBlankText(MAX_MEMO_LENGTH).optional() });

/**
 * `POST /api/pos/orders/{id}/refunds`: by line and quantity (`lines`), or by amount (`amountCents`), not both.
 * `restock` (default true) puts refunded line quantities back into stock.
 */
export const refundCreateSchema = z
  .strictObject({
    lines: z
      .array(z.strictObject({ lineId: ulidId('lin'), quantity: z.int().min(1).max(9999) }))
      .min(1)
      .max(500)
      .optional(),
    amountCents: amount.optional(),
    restock: z.boolean().optional(),
    reason: nonBlankText(MAX_MEMO_LENGTH).optional(),
    /** A manager's approval token (POST /api/register/approvals): needed when a cashier refunds above the store's cashierRefundLimitCents. */
    approval: z
      .string()
      .regex(/^apv_[A-Za-z0-9_-]{20,64}$/, 'must be an approval token from POST /api/register/approvals')
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (body.lines === undefined && body.amountCents === undefined)
      ctx.addIssue({ code: 'custom', path: ['lines'], message: 'either lines or amountCents is required' });
    if (body.lines !== undefined && body.amountCents !== undefined)
      ctx.addIssue({ code: 'custom', path: ['amountCents'], message: 'send either lines or amountCents, not both' });
    if (body.lines && new Set(body.lines.map((l) => l.lineId)).size !== body.lines.length)
      ctx.addIssue({ code: 'custom', path: ['lines'], message: 'name each line once' });
    if (body.restock !== undefined && body.lines === undefined)
      ctx.addIssue({ code: 'custom', path: ['restock'], message: 'restock applies to refunds by line' });
  });
export type RefundCreate = z.infer<typeof refundCreateSchema>;

/** `POST /api/pos/orders/{id}/receipts`: send the receipt by SMS or e-mail; without `to`, the order's customer's. */
export const receiptSendSchema = z.discriminatedUnion('channel', [
  z.strictObject({ channel: z.literal('sms'), to: phoneInput.optional() }),
  z.strictObject({ channel: z.literal('email'), to: idnEmail.optional() }),
]);
export type ReceiptSend = z.infer<typeof receiptSendSchema>;

/** A payment of an order (register tenders appear here too, with `pmt_` + the tender's ULID). */
export const paymentRecordSchema = z.strictObject({
  id: ulidId('pmt'),
  orderId: ulidId('ord'),
  state: z.enum(PAYMENT_STATES),
  method: tenderMethod,
  /** The rail the money moved on: `cash`, `check`, `other`, `card_present`, `card_not_present` (a card keyed through the API), or an external rail. */
  rail: z.string().max(40),
  amountCents: recorded,
  tipCents: recorded,
  tenderedCents: recorded.nullable(),
  changeCents: recorded.nullable(),
  refundedCents: recorded,
  cardBrand: z.string().nullable(),
  last4: z.string().nullable(),
  authCode: z.string().nullable(),
  reference: z.string().nullable(),
  accountCode: z.string(),
  journalTransactionId: z.string().nullable(),
  createdAt: isoDate,
  capturedAt: isoDate.nullable(),
  /** For a `declined` attempt: the rail's reason (`card_declined`, `insufficient_funds`, …); else null. */
  declineCode: z.string().nullable(),
  /** Why this rail, for a card taken through the staff API (core routePayment: candidates, fees, reason); else null. */
  routing: routingDecisionSchema.nullable(),
  /** The processing fee posted to the ledger for this payment (minor units; Dr processing_fees), 0 when none. */
  feeCents: recorded,
  /**
   * Its settlement on the rail's schedule (cards 48 h, ACH 72 h; `GET /api/pos/settlements`): `pending` until
   * `settlesAt`, then `settled` — or `returned` by the bank (`returnCode`). Absent for a payment that settles at once
   * (cash, check) or was never captured.
   */
  settlement: z
    .strictObject({
      id: z.string(),
      status: z.enum(['pending', 'settled', 'returned']),
      settlesAt: isoDate,
      settledAt: isoDate.nullable(),
      returnCode: z.string().nullable(),
    })
    .optional(),
});
export type PaymentRecord = z.infer<typeof paymentRecordSchema>;

/** A refund: a new record linked to the order, never an edit of it. */
export const refundRecordSchema = z.strictObject({
  id: ulidId('rfd'),
  orderId: ulidId('ord'),
  /** `refund` of a paid order; `cancellation` gives back what an open order had collected when it was canceled. */
  kind: z.enum(['refund', 'cancellation']),
  amountCents: amount,
  /** Of `amountCents`: goods (net of discount, tax included), of which tax; and tips. */
  goodsCents: recorded,
  taxCents: recorded,
  tipCents: recorded,
  lines: z.array(z.strictObject({ lineId: ulidId('lin'), quantity: z.int().min(1), amountCents: recorded, taxCents: recorded })),
  allocations: z.array(z.strictObject({ paymentId: ulidId('pmt'), amountCents: amount, accountCode: z.string() })),
  restock: z.boolean(),
  reason: z.string().nullable(),
  /** The manager or owner (staff id) who approved a cashier's refund above the store's limit; null when none was needed. */
  approvedBy: z.string().nullable(),
  journalTransactionId: z.string(),
  createdAt: isoDate,
});
export type RefundRecord = z.infer<typeof refundRecordSchema>;

/**
 * An order as the API answers it: core's order plus server facts. Lists carry the summary fields; `GET
 * /api/pos/orders/{id}` adds `payments` and `refunds`.
 */
export const orderViewSchema = orderSchema.extend({
  state: z.enum(ORDER_STATES),
  source: z.enum(['register', 'api']),
  refundedCents: recorded,
  /**
   * What is still to pay: total + tips − paid while `open` (never negative); in state `balance_due`, what the customer
   * owes again after a payment failed after the sale (offline card declined or expired on forward, bank payment
   * returned) less what was collected since; else 0.
   */
  balanceDueCents: recorded,
  /** Why a `balance_due` order owes: `offline_card_declined`, `offline_card_expired` or `bank_payment_returned`; else absent. */
  balanceDueReason: z.enum(['offline_card_declined', 'offline_card_expired', 'bank_payment_returned']).optional(),
  payments: z.array(paymentRecordSchema).optional(),
  refunds: z.array(refundRecordSchema).optional(),
});
export type OrderView = z.infer<typeof orderViewSchema>;

/** A page of orders (cursor pagination). */
export const orderPageSchema = pageSchema(orderViewSchema);

/** What `POST /api/pos/orders/{id}/refunds` answers: the new refund record and the order after it. */
export const refundResultSchema = z.strictObject({ refund: refundRecordSchema, order: orderViewSchema });
export type RefundResult = z.infer<typeof refundResultSchema>;

/** What `POST /api/pos/orders/{id}/receipts` answers (202): the queued message. */
export const receiptSentSchema = z.strictObject({ id: z.string(), channel: z.enum(['sms', 'email']), to: z.string(), orderId: z.string() });
export type ReceiptSent = z.infer<typeof receiptSentSchema>;

/**
 * `GET /api/pos/orders/{id}/receipt`: a receipt as the register prints it again or a message carries it (amounts in
 * ISO 4217 minor units; `text` is the 42-column plain-text receipt, ready to print). Built by services/orders.ts.
 */
export interface OrderReceipt {
  orderId: string;
  receiptNumber: string;
  merchantName: string;
  currency: string;
  createdAt: string;
  state: OrderStateName;
  lines: { name: string; quantity: number; modifiers: string[]; unitPriceCents: number; amountCents: number }[];
  subtotalCents: number;
  discountCents: number;
  taxLines: { name: string; taxCents: number; inclusive: boolean }[];
  totalCents: number;
  tipCents: number;
  paidCents: number;
  tenders: { method: string; amountCents: number; tipCents: number; changeCents: number | null; cardBrand: string | null; last4: string | null }[];
  refunds: { id: string; amountCents: number; createdAt: string }[];
  refundedCents: number;
  balanceDueCents: number;
  text: string;
}
