/**
 * Invoices, recurring invoice series and the Text-to-Pay record. Pure domain: schemas, the state
 * machines, pricing of invoice lines and the journal transactions of an invoice's life. No I/O.
 *
 * Invoice:        draft → sent → paid; sent → partially_paid → paid; sent → overdue → paid;
 *                 draft | sent | overdue → void (only while nothing is paid).
 *                 `overdue` is reached by the clock: a `sent` (or `partially_paid`) invoice whose due date has passed.
 *                 Partial payments keep an overdue invoice overdue until it is paid in full.
 * Series (RRULE): active ⇄ paused → ended (also active → ended, and ended on its own when the rule has no more dates).
 * Pay request:    pending → paid | expired | canceled (`expired` is reached by the clock, default 7 days).
 *
 * Illegal moves throw {@link IllegalTransitionError}; the server answers 409 naming `currentState`.
 */
import { IllegalTransitionError } from './transitions.ts';
import { z } from 'zod';
import { routingDecisionSchema } from './rails.ts';
import { utcDateTime } from './datetime.ts';
import { computeOrderTotals, priceLine, type CatalogSnapshot } from './pricing.ts';
import { buildJournalTransaction, saleCreditPostings } from './ledger.ts';
import { sumCents } from './money.ts';
import {
  currencyCode,
  freeText,
  withoutCardNumber,
  e164Phone,
  lineItemInputSchema,
  lineTaxSchema,
  amountCentsSchema,
  MAX_AMOUNT_CENTS,
  MAX_MEMO_LENGTH,
  nonBlankText,
  patchBody,
  uniqueList,
  payRequestSchema,
  taxLineSchema,
  type JournalTransaction,
  type OrderLine,
  type TaxLine,
  idnEmail,
  pageQueryFields,
  pageSchema,
} from './schemas.ts';

const ulidId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be an id starting with ${prefix}_`);
/** Timestamps: ISO 8601 with an offset within ±14:00, normalised to UTC (core/datetime.ts). */
const isoDate = utcDateTime;
/** A calendar date `YYYY-MM-DD` (due dates, occurrence dates). */
export const calendarDate = z.iso.date();
const taxRateRef = z.string().regex(/^tax_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with tax_');

/* ───────────────────────────── state machines ───────────────────────────── */

/** Every invoice state, in lifecycle order. */
export const INVOICE_STATES = [
  /** Being written: lines, customer, due date and memo may change; nothing is in the ledger yet. */
  'draft',
  /** Issued to the customer (SMS and/or e-mail with the pay link); receivable posted; nothing paid yet. */
  'sent',
  /** Issued, part of the total paid, the rest still due, due date not passed. */
  'partially_paid',
  /** Issued and past its due date with a balance left. */
  'overdue',
  /** Paid in full. Final. */
  'paid',
  /** Withdrawn before anything was paid; an issued invoice's receivable is reversed. Final. */
  'void',
] as const;
/** An invoice's state (see {@link INVOICE_STATES}). */
export type InvoiceStatus = (typeof INVOICE_STATES)[number];
export const invoiceStatus = z.enum(INVOICE_STATES);

/** Legal moves of an invoice, from → allowed targets. */
export const INVOICE_TRANSITIONS: Readonly<Record<InvoiceStatus, readonly InvoiceStatus[]>> = {
  draft: ['sent', 'void'],
  sent: ['partially_paid', 'overdue', 'paid', 'void'],
  partially_paid: ['partially_paid', 'overdue', 'paid'],
  overdue: ['overdue', 'paid', 'void'],
  paid: [],
  void: [],
};

/** Every state of a recurring invoice series. */
export const SERIES_STATES = [
  /** Generating invoices on its schedule. */
  'active',
  /** Skipping its occurrences until resumed (occurrences that fall while paused are not generated later). */
  'paused',
  /** No more invoices: ended by staff or because the rule has no more dates. Final. */
  'ended',
] as const;
export type SeriesStatus = (typeof SERIES_STATES)[number];
export const seriesStatus = z.enum(SERIES_STATES);

/** Legal moves of a series: active ⇄ paused → ended (active → ended too). */
export const SERIES_TRANSITIONS: Readonly<Record<SeriesStatus, readonly SeriesStatus[]>> = {
  active: ['paused', 'ended'],
  paused: ['active', 'ended'],
  ended: [],
};

/** Legal moves of a pay request. */
export const PAY_REQUEST_TRANSITIONS: Readonly<Record<'pending' | 'paid' | 'expired' | 'canceled', readonly ('paid' | 'expired' | 'canceled')[]>> = {
  pending: ['paid', 'expired', 'canceled'],
  paid: [],
  expired: [],
  canceled: [],
};

/** @throws IllegalTransitionError when an invoice may not move `from` → `to`. */
export function assertInvoiceTransition(from: InvoiceStatus, to: InvoiceStatus, action: string): void {
  if (!INVOICE_TRANSITIONS[from].includes(to)) throw new IllegalTransitionError('invoice', from, to, action);
}

/** @throws IllegalTransitionError when a series may not move `from` → `to`. */
export function assertSeriesTransition(from: SeriesStatus, to: SeriesStatus, action: string): void {
  if (!SERIES_TRANSITIONS[from].includes(to)) throw new IllegalTransitionError('invoice_series', from, to, action);
}

/** @throws IllegalTransitionError when a pay request may not move `from` → `to`. */
export function assertPayRequestTransition(from: keyof typeof PAY_REQUEST_TRANSITIONS, to: 'paid' | 'expired' | 'canceled', action: string): void {
  if (!PAY_REQUEST_TRANSITIONS[from].includes(to)) throw new IllegalTransitionError('pay_request', from, to, action);
}

/**
 * The state an invoice is in at `today` (a `YYYY-MM-DD` date in UTC): a `sent` or `partially_paid` invoice whose due
 * date is before today is `overdue`; every other state is what is stored.
 */
export function effectiveInvoiceStatus(stored: InvoiceStatus, dueDate: string, today: string): InvoiceStatus {
  return (stored === 'sent' || stored === 'partially_paid') && dueDate < today ? 'overdue' : stored;
}

/** The state of a pay request at `now`: `pending` past `expiresAt` is `expired`. */
export function effectivePayRequestStatus<S extends string>(stored: S, expiresAt: string | Date, now: Date): S | 'expired' {
  return stored === 'pending' && new Date(expiresAt).getTime() <= now.getTime() ? 'expired' : stored;
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Invoice numbers are per merchant and sequential: `INV-000042`. */
export function formatInvoiceNumber(sequence: number): string {
  return `INV-${String(sequence).padStart(6, '0')}`;
}

/* ───────────────────────────── invoice lines ───────────────────────────── */

/**
 * A custom invoice line (staff only): a description and a unit amount in minor units, with optional quantity, kind
 * (revenue account: `product` → sales revenue, `service` → service revenue; default `service`) and tax rates of the
 * merchant (exclusive ones, or a single inclusive one).
 */
export const invoiceCustomLineInputSchema = z.strictObject({
  description: nonBlankText(300),
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  quantity: z.int().min(1).max(9999).default(1),
  kind: z.enum(['product', 'service']).default('service'),
  taxRateIds: uniqueList(taxRateRef, { max: 10, message: 'a tax rate may be listed once' }).default([]),
});
export type InvoiceCustomLineInput = z.input<typeof invoiceCustomLineInputSchema>;

/** A priced invoice line: a catalog line (priced from the catalog) or a custom one (`catalogItemId` null). */
export const invoiceLineSchema = z.strictObject({
  id: ulidId('lin'),
  type: z.enum(['catalog', 'custom']),
  catalogItemId: z.string().nullable(),
  variationId: z.string().nullable(),
  modifierIds: z.array(z.string()),
  kind: z.enum(['product', 'service']),
  description: freeText(300).min(1),
  quantity: z.int().min(1).max(9999),
  unitPriceCents: z.int().min(0).max(MAX_AMOUNT_CENTS),
  grossCents: amountCentsSchema,
  taxCents: amountCentsSchema,
  taxes: z.array(lineTaxSchema),
});
export type InvoiceLine = z.infer<typeof invoiceLineSchema>;

/** What a set of invoice lines adds up to. `totalCents` = subtotal + exclusive tax. */
export interface InvoiceTotals {
  lines: InvoiceLine[];
  taxLines: TaxLine[];
  subtotalCents: number;
  taxCents: number;
  inclusiveTaxCents: number;
  totalCents: number;
}

/** Why an invoice line could not be priced; `path` names the input field (`lineItems.0.variationId`). */
export class InvoicePricingError extends Error {
  override name = 'InvoicePricingError';
  constructor(
    readonly code: string,
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * Prices invoice lines: catalog references through core pricing (the catalog decides the price, never the caller)
 * and custom lines at their amount, then tax per rate over all lines (half-even). `newLineId` makes line
 * ids (`lin_…`).
 * @throws PricingError (from core pricing) for a catalog line, path `lineItems.<i>.<field>`;
 *   InvoicePricingError for a custom line's unknown tax rate or tax mix, path `customLines.<i>.taxRateIds`.
 */
export function priceInvoiceLines(
  catalogLines: readonly z.input<typeof lineItemInputSchema>[],
  customLines: readonly InvoiceCustomLineInput[],
  catalog: CatalogSnapshot,
  newLineId: () => string,
): InvoiceTotals {
  const priced: { line: OrderLine; type: 'catalog' | 'custom'; description: string }[] = [];
  for (const [i, input] of catalogLines.entries()) {
    const line = priceLine(input, catalog, `lineItems.${i}`, newLineId());
    priced.push({ line, type: 'catalog', description: line.name });
  }
  for (const [i, raw] of customLines.entries()) {
    const input = invoiceCustomLineInputSchema.parse(raw);
    const taxes = input.taxRateIds.map((taxRateId, t) => {
      const rate = catalog.taxRates.get(taxRateId);
      if (!rate) throw new InvoicePricingError('unknown_tax_rate', `tax rate ${taxRateId} does not exist`, `customLines.${i}.taxRateIds.${t}`);
      return { taxRateId: rate.id, name: rate.name, basisPoints: rate.basisPoints, inclusive: rate.inclusive };
    });
    const inclusive = taxes.filter((t) => t.inclusive).length;
    if (inclusive > 1 || (inclusive === 1 && taxes.length > 1)) {
      throw new InvoicePricingError(
        'tax_configuration',
        'a line carries either exclusive tax rates or a single inclusive one',
        `customLines.${i}.taxRateIds`,
      );
    }
    const grossCents = input.amountCents * input.quantity;
    priced.push({
      type: 'custom',
      description: input.description,
      line: {
        id: newLineId(),
        catalogItemId: 'itm_custom',
        variationId: 'var_custom',
        kind: input.kind,
        name: input.description,
        variationName: 'Custom',
        modifiers: [],
        quantity: input.quantity,
        unitPriceCents: input.amountCents,
        grossCents,
        discountCents: 0,
        netCents: grossCents,
        taxCents: 0,
        taxes,
      },
    });
  }
  const totals = computeOrderTotals(
    priced.map((p) => p.line),
    [],
  );
  const lines: InvoiceLine[] = totals.lines.map((l, i) => {
    const p = priced[i]!;
    return {
      id: l.id,
      type: p.type,
      catalogItemId: p.type === 'catalog' ? l.catalogItemId : null,
      variationId: p.type === 'catalog' ? l.variationId : null,
      modifierIds: l.modifiers.map((m) => m.id),
      kind: l.kind,
      description: p.description,
      quantity: l.quantity,
      unitPriceCents: l.unitPriceCents,
      grossCents: l.grossCents,
      taxCents: l.taxCents,
      taxes: l.taxes,
    };
  });
  return {
    lines,
    taxLines: totals.taxLines,
    subtotalCents: totals.subtotalCents,
    taxCents: totals.taxCents,
    inclusiveTaxCents: totals.inclusiveTaxCents,
    totalCents: totals.totalCents,
  };
}

/* ───────────────────────────── API shapes ───────────────────────────── */

const invoiceLinesInput = {
  /** Catalog references, priced on the server (a price field is a 400). */
  lineItems: z.array(lineItemInputSchema).max(100).default([]),
  /** Custom lines: description + amount (staff only). */
  customLines: z.array(invoiceCustomLineInputSchema).max(100).default([]),
};

/** `POST /api/pos/invoices` body: a draft. At least one line (catalog or custom). */
export const invoiceCreateSchema = z
  .strictObject({
    customerId: ulidId('cus'),
    ...invoiceLinesInput,
    dueDate: calendarDate,
    memo: freeText(MAX_MEMO_LENGTH).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.lineItems.length + body.customLines.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['lineItems'], message: 'an invoice needs at least one line in lineItems or customLines' });
    }
  });
export type InvoiceCreate = z.infer<typeof invoiceCreateSchema>;

/** `PATCH /api/pos/invoices/{id}` body (drafts only): the fields to change; `lineItems`/`customLines` replace the lists. */
export const invoiceUpdateSchema = patchBody({
  customerId: ulidId('cus').optional(),
  lineItems: z.array(lineItemInputSchema).max(100).optional(),
  customLines: z.array(invoiceCustomLineInputSchema).max(100).optional(),
  dueDate: calendarDate.optional(),
  memo: freeText(MAX_MEMO_LENGTH).nullable().optional(),
});
export type InvoiceUpdate = z.infer<typeof invoiceUpdateSchema>;

/** Delivery channels of an invoice. */
export const invoiceChannel = z.enum(['sms', 'email']);

/** `POST /api/pos/invoices/{id}/send` body: channels (default: every channel the customer has). */
export const invoiceSendSchema = z.strictObject({
  channels: uniqueList(invoiceChannel, { min: 1, max: 2, message: 'name each channel once' }).optional(),
});

/** Methods of a payment recorded at the register or through the API. */
export const invoicePaymentMethod = z.enum(['cash', 'check', 'card', 'bank_transfer', 'other']);

/**
 * `POST /api/pos/invoices/{id}/payments` body: a payment taken at the register or received another way. `cash`
 * needs the `registerId` whose drawer took it; `card` charges a sandbox card token (`tok_visa`, …);
 * `check` may carry its number; `bank_transfer` / `other` a reference.
 */
export const invoicePaymentCreateSchema = z
  .strictObject({
    amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
    method: invoicePaymentMethod,
    registerId: withoutCardNumber(z.string().regex(/^reg_[A-Za-z0-9_-]{1,40}$/, 'must be a register id')).optional(),
    cardToken: withoutCardNumber(z.string().regex(/^tok_[a-z0-9_]{1,60}$/, 'must be a sandbox card token such as tok_visa')).optional(),
    checkNumber: withoutCardNumber(z.string().regex(/^\d{1,15}$/, 'must be digits')).optional(),
    reference: nonBlankText(200).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.method === 'cash' && !b.registerId)
      ctx.addIssue({ code: 'custom', path: ['registerId'], message: 'cash needs the registerId whose drawer took it' });
    if (b.method === 'card' && !b.cardToken) ctx.addIssue({ code: 'custom', path: ['cardToken'], message: 'a card payment needs a cardToken' });
    if (b.method !== 'card' && b.cardToken) ctx.addIssue({ code: 'custom', path: ['cardToken'], message: 'only card payments carry a cardToken' });
    if (b.method !== 'cash' && b.registerId) ctx.addIssue({ code: 'custom', path: ['registerId'], message: 'only cash payments name a register' });
    if (b.method !== 'check' && b.checkNumber)
      ctx.addIssue({ code: 'custom', path: ['checkNumber'], message: 'only check payments carry a checkNumber' });
  });
export type InvoicePaymentCreate = z.infer<typeof invoicePaymentCreateSchema>;

/** `POST /api/pos/invoices/{id}/void` body. */
export const invoiceVoidSchema = z.strictObject({ reason: nonBlankText(MAX_MEMO_LENGTH).optional() });

/** A payment applied to an invoice. `channel`: `api` (register/back office) or `pay_page` (the hosted pay page). */
export const invoicePaymentSchema = z.strictObject({
  id: ulidId('ipm'),
  invoiceId: ulidId('inv'),
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  method: z.enum(['cash', 'check', 'card', 'bank_transfer', 'other', 'apple_pay', 'google_pay']),
  rail: z.string(),
  channel: z.enum(['api', 'pay_page']),
  accountCode: z.string(),
  cardBrand: z.string().nullable(),
  last4: z.string().nullable(),
  reference: z.string().nullable(),
  payRequestId: z.string().nullable(),
  /** `captured` (money received), or `declined` (a card attempt the rail refused: no money, no journal transaction). */
  state: z.enum(['captured', 'declined']),
  /** The rail's reason code of a declined attempt (`card_declined`, `insufficient_funds`, …); null when captured. */
  declineCode: z.string().nullable(),
  /** How much of this payment was given back by refunds (minor units). */
  refundedCents: amountCentsSchema,
  /** Why this rail (card payments taken through the API; core routePayment): candidates, fees, reason. Null otherwise. */
  routing: routingDecisionSchema.nullable(),
  /** The processing fee posted to the ledger for this payment (minor units; Dr processing_fees), 0 when none. */
  feeCents: amountCentsSchema,
  /** The payment's journal transaction; null for a declined attempt. */
  journalTransactionId: z.string().nullable(),
  createdAt: isoDate,
});
export type InvoicePayment = z.infer<typeof invoicePaymentSchema>;

/**
 * `POST /api/pos/invoices/{id}/refunds` body: give back `amountCents` (minor units; default: everything still
 * refundable) of a paid invoice's captured payments — of `paymentId` only when named, else newest payment first.
 */
export const invoiceRefundCreateSchema = z.strictObject({
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS).optional(),
  paymentId: ulidId('ipm').optional(),
  reason: nonBlankText(MAX_MEMO_LENGTH).optional(),
});
export type InvoiceRefundCreate = z.infer<typeof invoiceRefundCreateSchema>;

/** A refund of an invoice: what was given back, from which payments (`allocations`), and its journal transaction. */
export const invoiceRefundSchema = z.strictObject({
  id: ulidId('irf'),
  invoiceId: ulidId('inv'),
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  /** The tax part of the refund (the invoice's tax share of the amount, minor units). */
  taxCents: amountCentsSchema,
  allocations: z.array(z.strictObject({ paymentId: ulidId('ipm'), amountCents: z.int().min(1), accountCode: z.string() })),
  reason: z.string().nullable(),
  journalTransactionId: z.string(),
  createdBy: z.string(),
  createdAt: isoDate,
});
export type InvoiceRefund = z.infer<typeof invoiceRefundSchema>;

/** Who the invoice is for, as it was when the invoice was last written. */
export const billToSchema = z.strictObject({
  customerId: ulidId('cus'),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
});

/** An invoice as the API answers it. `status` is the state now (overdue computed from the due date). */
export const invoiceSchema = z.strictObject({
  id: ulidId('inv'),
  number: z.string().regex(/^INV-\d{6,}$/),
  status: invoiceStatus,
  customerId: ulidId('cus'),
  billTo: billToSchema,
  currency: currencyCode,
  lines: z.array(invoiceLineSchema),
  taxLines: z.array(taxLineSchema),
  subtotalCents: amountCentsSchema,
  taxCents: amountCentsSchema,
  totalCents: amountCentsSchema,
  paidCents: amountCentsSchema,
  balanceDueCents: amountCentsSchema,
  dueDate: calendarDate,
  memo: z.string().nullable(),
  seriesId: z.string().nullable(),
  occurrenceDate: calendarDate.nullable(),
  /** The pending pay link (hosted pay page) for the balance due, while there is one. */
  payRequestId: z.string().nullable(),
  payUrl: z.string().nullable(),
  issueJournalTransactionId: z.string().nullable(),
  sentAt: isoDate.nullable(),
  paidAt: isoDate.nullable(),
  voidedAt: isoDate.nullable(),
  voidReason: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  /** Given back by refunds so far (minor units); a paid invoice stays `paid` (final) with its refunds listed. */
  refundedCents: amountCentsSchema,
  payments: z.array(invoicePaymentSchema).optional(),
  refunds: z.array(invoiceRefundSchema).optional(),
});
export type Invoice = z.infer<typeof invoiceSchema>;

export const invoicePageSchema = pageSchema(invoiceSchema);

/** `GET /api/pos/invoices` query. */
export const invoiceListQuerySchema = z.strictObject({
  ...pageQueryFields,
  status: invoiceStatus.optional(),
  customerId: ulidId('cus').optional(),
  seriesId: ulidId('isr').optional(),
});

/* ───────────────────────────── recurring series ───────────────────────────── */

/** RFC 5545 RRULE parts we accept (`FREQ=MONTHLY;BYMONTHDAY=1;COUNT=12`); no DTSTART inside (use `startDate`). */
export const rruleString = z
  .string()
  .trim()
  .min(6)
  .max(500)
  .regex(/^(RRULE:)?FREQ=(DAILY|WEEKLY|MONTHLY|YEARLY)(;[A-Z]+=[A-Za-z0-9,+\-:]+)*$/, 'must be an RFC 5545 RRULE such as FREQ=MONTHLY;BYMONTHDAY=1')
  .refine(
    (s) => !/(^|;)(DTSTART|BYHOUR|BYMINUTE|BYSECOND)=/.test(s.replace(/^RRULE:/, '')),
    'DTSTART, BYHOUR, BYMINUTE and BYSECOND are not allowed: occurrences are whole days from startDate',
  );

/** `POST /api/pos/invoice-series` body: the template of each invoice and its schedule. */
export const invoiceSeriesCreateSchema = z
  .strictObject({
    customerId: ulidId('cus'),
    ...invoiceLinesInput,
    memo: freeText(MAX_MEMO_LENGTH).optional(),
    rrule: rruleString,
    /** First possible occurrence (UTC calendar date). */
    startDate: calendarDate,
    /** Each invoice's due date = occurrence date + this many days. */
    daysUntilDue: z.int().min(0).max(365).default(30),
    /** Send each generated invoice at once (default), or leave it a draft. */
    autoSend: z.boolean().default(true),
    channels: uniqueList(invoiceChannel, { min: 1, max: 2, message: 'name each channel once' }).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.lineItems.length + body.customLines.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['lineItems'], message: 'a series needs at least one line in lineItems or customLines' });
    }
  });
export type InvoiceSeriesCreate = z.infer<typeof invoiceSeriesCreateSchema>;

export const invoiceSeriesSchema = z.strictObject({
  id: ulidId('isr'),
  status: seriesStatus,
  customerId: ulidId('cus'),
  rrule: z.string(),
  startDate: calendarDate,
  daysUntilDue: z.int(),
  autoSend: z.boolean(),
  channels: z.array(invoiceChannel).nullable(),
  memo: z.string().nullable(),
  lineItems: z.array(lineItemInputSchema),
  customLines: z.array(invoiceCustomLineInputSchema),
  /** The next occurrence date still to generate; null when the rule has no more. */
  nextOccurrenceDate: calendarDate.nullable(),
  lastOccurrenceDate: calendarDate.nullable(),
  invoiceCount: z.int().min(0),
  createdAt: isoDate,
  updatedAt: isoDate,
  endedAt: isoDate.nullable(),
});
export type InvoiceSeries = z.infer<typeof invoiceSeriesSchema>;

export const invoiceSeriesPageSchema = pageSchema(invoiceSeriesSchema);

/* ───────────────────────────── pay requests ───────────────────────────── */

/** Methods the hosted pay page offers. */
export const payPageMethod = z.enum(['card', 'apple_pay', 'google_pay', 'bank_transfer']);

/**
 * What the payment was, on a paid pay request: method and rail, the card brand and last four (never a card
 * number) or the bank account's last four, the processor's reference and the journal transaction.
 */
export const payRequestPaymentSchema = z.strictObject({
  method: payPageMethod,
  rail: z.string(),
  brand: z.string().nullable(),
  last4: z.string().nullable(),
  processorReference: z.string(),
  journalTransactionId: z.string(),
  routing: routingDecisionSchema
    .optional()
    .describe(
      'Why this rail: every candidate rail with its fee (minor units) and reason (core routePayment). Absent on payments made before routing.',
    ),
});

/**
 * The pay-request record with its links and outcome: the API fields of core `payRequestSchema`, plus, only
 * when they apply, `invoiceId` (the link pays that invoice), `canceledAt`, `supersededBy` (an invoice link replaced by
 * a newer one for the new balance) and `payment`. An invoice's link may have no phone (e-mail only): `phone` null.
 */
export const payRequestRecordSchema = payRequestSchema.extend({
  phone: e164Phone.nullable(),
  invoiceId: ulidId('inv').optional(),
  canceledAt: isoDate.optional(),
  supersededBy: ulidId('pr').optional(),
  payment: payRequestPaymentSchema.optional(),
});
export type PayRequestRecord = z.infer<typeof payRequestRecordSchema>;

export const payRequestPageSchema = pageSchema(payRequestRecordSchema);

/** `GET /api/pos/pay-requests` query. `status` filters by the state now (expired computed). */
export const payRequestListQuerySchema = z.strictObject({
  ...pageQueryFields,
  status: z.enum(['pending', 'paid', 'expired', 'canceled']).optional(),
  invoiceId: ulidId('inv').optional(),
});

/** `POST /api/pos/pay-requests/{id}/cancel` body. */
export const payRequestCancelSchema = z.strictObject({ reason: nonBlankText(MAX_MEMO_LENGTH).optional() });

/**
 * `POST /pay/{id}` body (the hosted pay page): the method and the token the page's sandbox tokeniser made —
 * `tok_sbx_<brand>_<last4>` for cards and wallets, `btok_sbx_<routing>_<last4>` for bank accounts. Never a card or
 * account number: anything else is a 400. `receiptEmail`, when the customer gives one, is where the receipt of the
 * payment is e-mailed.
 */
export const payPageChargeSchema = z
  .strictObject({
    method: payPageMethod,
    token: z.string().regex(/^(tok_sbx_(visa|mastercard|amex|discover)_\d{4}|btok_sbx_\d{9}_\d{4})$/, 'must be a token from the pay page tokeniser'),
    receiptEmail: idnEmail.optional().describe('Where to e-mail the receipt of this payment (the customer types it on the pay page).'),
  })
  .superRefine((b, ctx) => {
    const isBank = b.token.startsWith('btok_');
    if (isBank !== (b.method === 'bank_transfer')) {
      ctx.addIssue({
        code: 'custom',
        path: ['token'],
        message:
          b.method === 'bank_transfer' ? 'bank transfers need a bank token (btok_sbx_…)' : 'card and wallet payments need a card token (tok_sbx_…)',
      });
    }
  });
export type PayPageCharge = z.infer<typeof payPageChargeSchema>;

/* ───────────────────────────── ledger ───────────────────────────── */

/**
 * Issuing an invoice (draft → sent) recognises the sale on account: Dr `customer_receivables` total, Cr revenue
 * (per line, inclusive tax taken out) and Cr `sales_tax_payable`. Id `jtx_<invoice ULID>`, so it can be posted once.
 */
export function buildInvoiceIssueJournal(
  invoice: Pick<Invoice, 'id' | 'number' | 'currency' | 'lines' | 'taxCents' | 'totalCents'>,
  occurredAt: string,
): JournalTransaction {
  return buildJournalTransaction(
    {
      id: `jtx_${invoice.id.slice(4)}`,
      kind: 'sale',
      sourceType: 'invoice',
      sourceId: invoice.id,
      registerId: null,
      currency: invoice.currency,
      occurredAt,
      memo: `Invoice ${invoice.number} issued`,
    },
    [{ accountCode: 'customer_receivables', amountCents: invoice.totalCents }, ...saleCreditPostings(invoice.lines, invoice.taxCents)],
  );
}

/** Voiding an issued invoice reverses its issue transaction (Dr revenue and tax, Cr receivables). */
export function buildInvoiceVoidJournal(issue: JournalTransaction, id: string, invoiceNumber: string, occurredAt: string): JournalTransaction {
  return buildJournalTransaction(
    {
      id,
      kind: 'adjustment',
      sourceType: 'invoice',
      sourceId: issue.sourceId,
      registerId: null,
      currency: issue.currency,
      occurredAt,
      memo: `Invoice ${invoiceNumber} voided`,
    },
    issue.postings.map((p) => ({ accountCode: p.accountCode, amountCents: -p.amountCents })),
  );
}

/** A payment on an invoice: Dr the rail's account (`accountCode`), Cr `customer_receivables`. */
export function buildInvoicePaymentJournal(p: {
  id: string;
  invoiceId: string;
  invoiceNumber: string;
  currency: string;
  amountCents: number;
  accountCode: string;
  registerId: string | null;
  occurredAt: string;
  via: string;
}): JournalTransaction {
  return buildJournalTransaction(
    {
      id: p.id,
      kind: 'payment',
      sourceType: 'invoice',
      sourceId: p.invoiceId,
      registerId: p.registerId,
      currency: p.currency,
      occurredAt: p.occurredAt,
      memo: `Invoice ${p.invoiceNumber} payment (${p.via})`,
    },
    [
      { accountCode: p.accountCode, amountCents: p.amountCents },
      { accountCode: 'customer_receivables', amountCents: -p.amountCents },
    ],
  );
}

/**
 * A paid pay request that is not linked to an invoice is a sale paid at once: Dr the rail's clearing account with the
 * amount; with `lineItems`, Cr revenue per line and Cr `sales_tax_payable`; for a free amount (nothing known of what
 * was sold, so no tax can be derived), Cr `sales_revenue` with the whole amount.
 */
export function buildPayRequestSaleJournal(p: {
  id: string;
  payRequestId: string;
  currency: string;
  amountCents: number;
  accountCode: string;
  occurredAt: string;
  memo: string | null;
  lineItems?: readonly OrderLine[];
}): JournalTransaction {
  const credits = p.lineItems
    ? saleCreditPostings(p.lineItems, sumCents(p.lineItems.map((l) => l.taxCents)))
    : [{ accountCode: 'sales_revenue', amountCents: -p.amountCents }];
  return buildJournalTransaction(
    {
      id: p.id,
      kind: 'sale',
      sourceType: 'pay_request',
      sourceId: p.payRequestId,
      registerId: null,
      currency: p.currency,
      occurredAt: p.occurredAt,
      memo: `Pay link ${p.payRequestId}${p.memo ? ` (${p.memo})` : ''}`.slice(0, MAX_MEMO_LENGTH),
    },
    [{ accountCode: p.accountCode, amountCents: p.amountCents }, ...credits],
  );
}

/**
 * A refund of an invoice: Dr `refunds` with the goods part and Dr `sales_tax_payable` with the tax part, Cr
 * each paid-from account (`allocations`: the payments' clearing, drawer or bank accounts) — the order refunds' accounts
 * (core/refunds.ts), so reports count both alike. Kind `refund`, source the invoice.
 */
export function buildInvoiceRefundJournal(p: {
  id: string;
  invoiceId: string;
  invoiceNumber: string;
  currency: string;
  taxCents: number;
  allocations: readonly { accountCode: string; amountCents: number }[];
  occurredAt: string;
}): JournalTransaction {
  const amount = sumCents(p.allocations.map((a) => a.amountCents));
  return buildJournalTransaction(
    {
      id: p.id,
      kind: 'refund',
      sourceType: 'invoice',
      sourceId: p.invoiceId,
      registerId: null,
      currency: p.currency,
      occurredAt: p.occurredAt,
      memo: `Invoice ${p.invoiceNumber} refund`,
    },
    [
      { accountCode: 'refunds', amountCents: amount - p.taxCents },
      { accountCode: 'sales_tax_payable', amountCents: p.taxCents },
      ...p.allocations.map((a) => ({ accountCode: a.accountCode, amountCents: -a.amountCents })),
    ],
  );
}

/**
 * The tax part of refunding `amountCents` of an invoice: its tax share, `round(amount × tax / total)` (half away from
 * zero, minor units); the last refund takes what is left of the tax so refunds never give back more tax than charged.
 */
export function invoiceRefundTaxCents(
  inv: { totalCents: number; taxCents: number },
  refundedBeforeCents: number,
  taxRefundedBeforeCents: number,
  amountCents: number,
): number {
  if (inv.totalCents <= 0) return 0;
  if (refundedBeforeCents + amountCents >= inv.totalCents) return inv.taxCents - taxRefundedBeforeCents;
  return Math.min(inv.taxCents - taxRefundedBeforeCents, Math.round((amountCents * inv.taxCents) / inv.totalCents));
}
