/**
 * zod schemas of the POS resources (one schema per resource in core/, reused for API validation, OpenAPI
 * and RxDB JSON schema). The shapes of catalog item, order, customer and the pay-request record below are documented
 * in docs/api.md.
 *
 * Every object is strict: unknown fields are rejected, not ignored.
 */
import { z } from 'zod';
import { isValidE164 } from './phone.ts';
import { utcDateTime } from './datetime.ts';
import { containsCardNumber, maskCardNumbers } from './card-numbers.ts';

import { MAX_AMOUNT_CENTS } from './money.ts';

/** Upper bound of a single amount in minor units (amountCents 1 … 99 999 999); defined in money.ts. */
export { MAX_AMOUNT_CENTS };
/** Longest memo, in characters. */
export const MAX_MEMO_LENGTH = 500;

const id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`), `must be an id starting with ${prefix}_`);
/** Ids of demo/imported catalog objects may be any short slug-like id with the right prefix (and no card number). */
const catalogId = (prefix: string) =>
  withoutCardNumber(z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,40}$`), `must be an id starting with ${prefix}_`));

/** What a token, id or code holding a card number is told (400 naming the field; a synced document is quarantined). */
export const CARD_NUMBER_IN_TOKEN_MESSAGE =
  'must not contain a card number (a Luhn-valid run of 13–19 digits): send a processor token, never the card';

/**
 * `schema` (a string: token, id, code, brand) refusing any value that holds a card number (core/card-numbers.ts) with
 * {@link CARD_NUMBER_IN_TOKEN_MESSAGE}: such a value is refused, never stored, because a token cannot be masked and
 * still mean what it meant.
 */
export function withoutCardNumber<T extends z.ZodString>(schema: T): T {
  return schema.refine((text) => !containsCardNumber(text), CARD_NUMBER_IN_TOKEN_MESSAGE) as T;
}

/**
 * Text people type: at most `max` characters, with every card
 * number masked to its first six and last four digits and the CVC phrase beside it masked (core/card-numbers.ts
 * `maskCardNumbers`, which keeps the length) before anything stores it. The OpenAPI document shows a plain string.
 * The input boundary (core/card-number-guard.ts) runs first: in a field not named as free text there, a card number
 * is refused before this schema sees it, so this masking is the second line for free-text fields.
 */
export function freeText(max: number) {
  return z.string().max(max).overwrite(maskCardNumbers);
}

const cents = z.int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
/**
 * An amount of an order, its lines, tax lines, tenders, payments, tips and refunds, of invoices and pay requests:
 * integer minor units, 0 … {@link MAX_AMOUNT_CENTS}. The one bound every amount schema uses, so a
 * schema-valid order's arithmetic (unit × quantity over 500 lines, × basis points) stays exact.
 */
export const amountCentsSchema = z.int().min(0).max(MAX_AMOUNT_CENTS);
const nonNegativeCents = amountCentsSchema;
/** Timestamps: ISO 8601 with an offset within ±14:00, normalised to UTC (core/datetime.ts). */
const isoDate = utcDateTime;
/**
 * The query fields of every list (cursor pagination), to spread into its `z.strictObject`: `limit` rows a page
 * (1 … 200, default 50) and `cursor`, the `nextCursor` of the previous page, passed back unchanged.
 */
export const pageQueryFields = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional(),
};

/** A yes/no query parameter: exactly `true` or `false` (anything else is a 400 naming it), read as a boolean. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The response of every list: `{ data: [item, …], nextCursor }`, `nextCursor` null on the last page. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.strictObject({ data: z.array(item), nextCursor: z.string().nullable() });
}
/** A page of `T` as `pageSchema` parses it. */
export type Page<T> = z.infer<ReturnType<typeof pageSchema<z.ZodType<T>>>>;

/** Server-stamped replication fields: the server's time of the last write and its sequence. */
const serverStamp = {
  updatedAt: isoDate.optional(),
  syncSeq: z.int().min(0).optional(),
};

/** E.164: `+`, a country code not starting with 0, at most 15 digits in all (ITU-T E.164 §6). */
export const E164_PATTERN = /^\+[1-9]\d{1,14}$/;

/**
 * A phone number in E.164 (`+14155550123`): the pattern (which the OpenAPI document states) and the numbering plan of
 * the country (libphonenumber, core/phone.ts).
 */
export const e164Phone = z
  .string()
  .max(16)
  .regex(E164_PATTERN, { message: 'must be a phone number in E.164 format, e.g. +14155550123', abort: true })
  .refine(isValidE164, 'must be a phone number in E.164 format, e.g. +14155550123');

/**
 * Characters of a local part (RFC 5322 `atext`, and with RFC 6531 any non-ASCII character — but no control, format
 * (bidirectional controls included), private-use, unassigned or lone-surrogate code point, and no white space).
 */
const LOCAL_CHAR = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\x00-\\x7F\\p{C}\\p{Z}]";
const LOCAL_PART = new RegExp(`^(?:${LOCAL_CHAR})+(?:\\.(?:${LOCAL_CHAR})+)*$`, 'u');
/** A domain label: letters (any script), marks, digits and inner hyphens (an LDH label or an IDNA U-label). */
const DOMAIN_LABEL = /^(?!-)[\p{L}\p{M}\p{N}-]{1,63}(?<!-)$/u;
const utf8 = new TextEncoder();

/**
 * Whether `value` is an internationalised e-mail address (RFC 6531 SMTPUTF8, RFC 6532 UTF-8 headers): a dot-atom
 * local part of at most 64 octets in UTF-8 (ASCII `atext` or non-ASCII letters, e.g. `josé`, `用户`), `@`, and a
 * domain of at least two labels (ASCII or Unicode, e.g. `exämple.de`, `例子.广告`) that IDNA (UTS 46, the URL
 * parser's) turns into an ASCII host of at most 253 characters whose top-level label is not numeric. At most 254
 * characters in all. Quoted local parts, comments and address literals (`[192.0.2.1]`) are refused.
 */
export function isIdnEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at < 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!LOCAL_PART.test(local) || utf8.encode(local).length > 64) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => DOMAIN_LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) return false;
  let ascii: string;
  try {
    ascii = new URL(`http://${domain}/`).hostname;
  } catch {
    return false;
  }
  return ascii.length <= 253 && ascii.split('.').every((l) => l.length >= 1 && l.length <= 63) && !/^\d+$/.test(ascii.split('.').at(-1)!);
}

/**
 * An e-mail address, internationalised ones included ({@link isIdnEmail}; zod's own `email` is ASCII-only): trimmed,
 * at most 254 characters; the OpenAPI document says `format: idn-email` (JSON Schema 2020-12 §7.3.2). Malformed
 * addresses are a 400 naming the field.
 */
export const idnEmail = z
  .string()
  .trim()
  .max(254, { abort: true })
  .refine(isIdnEmail, 'must be an e-mail address, e.g. ana@example.com or josé@exämple.de')
  .meta({ format: 'idn-email' });

/**
 * A name or label people type (items, categories, variations, tax rates, customers, discounts, …): trimmed, then
 * 1 … `max` characters with at least one that is not white space. A blank name is refused by the schema itself, so
 * the OpenAPI document says so (`minLength: 1`, `pattern: \S`); bidirectional controls and lone surrogates are
 * refused too (400 naming the field). Output: the trimmed string, card numbers masked (see {@link freeText}).
 */
export function nonBlankText(max: number) {
  return z
    .string()
    .trim()
    .regex(/\S/, { message: 'must not be blank', abort: true })
    .min(1)
    .max(max)
    .superRefine((text, ctx) => {
      const problem = unsafeTextProblem(text);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .overwrite(maskCardNumbers);
}

/**
 * Why `text` cannot be a name people read (what {@link nonBlankText} refuses beyond blankness and length): a
 * bidirectional control or a lone surrogate. For names that arrive other than through a schema (CSV imports).
 * @returns the reason ("must not contain …"), or undefined when the text is fine
 */
export function unsafeTextProblem(text: string): string | undefined {
  if (BIDI_CONTROL.test(text)) return 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone UTF-16 surrogate';
  return undefined;
}

/**
 * Unicode's bidirectional embedding, override and isolate controls (UAX #9): inside a name they reorder what a receipt,
 * a report or a log shows after them ("Trojan Source", CVE-2021-42574), so names refuse them.
 */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
/** Half of a surrogate pair without its other half: not text (PostgreSQL's jsonb refuses it too). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A list whose items must all differ (ids, event types, channels), `min` … `max` long: a repeated item is a 400
 * naming the list, and the OpenAPI document states `uniqueItems: true`. Options are given here because the JSON
 * Schema keyword is metadata of this exact schema: chain `.optional()` / `.default()` after it, not `.max()`.
 */
export function uniqueList<T extends z.ZodType>(item: T, bounds: { min?: number; max: number; message?: string }) {
  let list = z.array(item).max(bounds.max);
  if (bounds.min !== undefined) list = list.min(bounds.min);
  return list
    .refine(
      (xs) => new Set(xs.map((x) => (typeof x === 'object' ? JSON.stringify(x) : x))).size === xs.length,
      bounds.message ?? 'must not list the same item twice',
    )
    .meta({ uniqueItems: true });
}

/**
 * A PATCH body: a strict object of optional fields, at least one of which is sent; `{}` is a 400 "send
 * at least one field to change". The OpenAPI document states `minProperties: 1`. Fields must not carry defaults (a
 * default would change what the caller did not send).
 */
export function patchBody<T extends z.ZodRawShape>(shape: T) {
  return z
    .strictObject(shape)
    .refine((body) => Object.keys(body).length > 0, { message: 'send at least one field to change', path: [] })
    .meta({ minProperties: 1 });
}

export const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code');

/* ───────────────────────────── catalog ───────────────────────────── */

/** A tax rate in basis points (875 = 8.75 %); `inclusive` when catalog prices already contain the tax. */
export const taxRateSchema = z.strictObject({
  id: catalogId('tax'),
  name: freeText(100).min(1),
  basisPoints: z.int().min(0).max(100_000),
  inclusive: z.boolean(),
  ...serverStamp,
});
export type TaxRate = z.infer<typeof taxRateSchema>;

export const variationSchema = z.strictObject({
  id: catalogId('var'),
  name: freeText(100).min(1),
  priceCents: z.int().min(0).max(MAX_AMOUNT_CENTS),
  sku: freeText(64).min(1).optional(),
  /** GTIN-8/12/13/14 (UPC-A is GTIN-12, EAN-13 is GTIN-13), digits only. */
  gtin: z
    .string()
    .regex(/^(\d{8}|\d{12}|\d{13}|\d{14})$/, 'must be a GTIN of 8, 12, 13 or 14 digits')
    .optional(),
  trackStock: z.boolean(),
  /** Units on hand at the default location (sum of stock movements, server-computed). */
  stockOnHand: z.int().optional(),
});
export type Variation = z.infer<typeof variationSchema>;

export const modifierSchema = z.strictObject({
  id: catalogId('mod'),
  name: freeText(100).min(1),
  priceCents: z.int().min(0).max(MAX_AMOUNT_CENTS),
});

/** A modifier list is required when `minSelected` ≥ 1; at most `maxSelected` modifiers may be chosen. */
export const modifierListSchema = z
  .strictObject({
    id: catalogId('mdl'),
    name: freeText(100).min(1),
    minSelected: z.int().min(0).max(50),
    maxSelected: z.int().min(1).max(50),
    modifiers: z.array(modifierSchema).min(1).max(50),
  })
  .refine((l) => l.minSelected <= l.maxSelected, { message: 'minSelected must not exceed maxSelected', path: ['minSelected'] });
export type ModifierList = z.infer<typeof modifierListSchema>;

export const itemKind = z.enum(['product', 'service']);

export const catalogItemSchema = z.strictObject({
  id: catalogId('itm'),
  name: freeText(200).min(1),
  description: freeText(2000).optional(),
  category: freeText(100).min(1),
  kind: itemKind,
  variations: z.array(variationSchema).min(1).max(100),
  modifierLists: z.array(modifierListSchema).max(20),
  taxRateIds: z.array(catalogId('tax')).max(10),
  imageUrl: z.string().max(2000).optional(),
  ...serverStamp,
});
export type CatalogItem = z.infer<typeof catalogItemSchema>;

/* ───────────────────────────── orders ───────────────────────────── */

/**
 * A line as an app or the register asks for it: catalog references only, never a price (the catalog decides it).
 */
export const lineItemInputSchema = z.strictObject({
  catalogItemId: catalogId('itm'),
  variationId: catalogId('var'),
  modifierIds: uniqueList(catalogId('mod'), { max: 50, message: 'a modifier may be chosen once per line' }).default([]),
  quantity: z.int().min(1).max(9999),
});
export type LineItemInput = z.input<typeof lineItemInputSchema>;

/** The tax rate as it was when the line was priced (a snapshot, so offline sales keep their prices). */
export const lineTaxSchema = z.strictObject({
  taxRateId: catalogId('tax'),
  name: freeText(100).min(1),
  basisPoints: z.int().min(0).max(100_000),
  inclusive: z.boolean(),
});
export type LineTax = z.infer<typeof lineTaxSchema>;

/**
 * A priced order line. `unitPriceCents` = variation price + chosen modifiers; `grossCents` = unit × quantity;
 * `discountCents` is this line's share of the order discounts; `netCents` = gross − discount; `taxCents` is this
 * line's share of the order's tax lines (included in net when the tax is inclusive).
 */
export const orderLineSchema = z.strictObject({
  id: id('lin'),
  catalogItemId: catalogId('itm'),
  variationId: catalogId('var'),
  kind: itemKind,
  name: freeText(300).min(1),
  variationName: freeText(100).min(1),
  modifiers: z.array(modifierSchema).max(50),
  quantity: z.int().min(1).max(9999),
  unitPriceCents: nonNegativeCents,
  grossCents: nonNegativeCents,
  discountCents: nonNegativeCents,
  netCents: nonNegativeCents,
  taxCents: nonNegativeCents,
  taxes: z.array(lineTaxSchema).max(10),
  /**
   * A price override: `unitPriceCents` differs from the catalog's because staff changed it, with the
   * reason and the manager or owner (staff id) who approved it. The server quarantines a pushed sale whose override
   * names no manager or owner of the store (core `priceOverrideProblem`).
   */
  priceOverride: z.strictObject({ reason: freeText(200).min(1), approvedBy: withoutCardNumber(z.string().min(1).max(64)) }).optional(),
});
export type OrderLine = z.infer<typeof orderLineSchema>;

/**
 * A discount: a percentage in basis points, or a fixed amount, taken before tax. Without `lineId` it is a sale
 * (order-level) discount, allocated to the lines pro rata; with `lineId` (a register's line discount) it
 * applies to that one line of the order only (core/pricing.ts computeOrderTotals: line discounts first, then the sale's).
 */
export const discountSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    id: id('dsc'),
    name: freeText(100).min(1),
    kind: z.literal('percentage'),
    basisPoints: z.int().min(1).max(10_000),
    lineId: id('lin').optional(),
  }),
  z.strictObject({
    id: id('dsc'),
    name: freeText(100).min(1),
    kind: z.literal('fixed'),
    amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
    lineId: id('lin').optional(),
  }),
]);
export type Discount = z.infer<typeof discountSchema>;

/** One tax line of the order: per tax rate, rounded half-even once. */
export const taxLineSchema = z.strictObject({
  taxRateId: catalogId('tax'),
  name: freeText(100).min(1),
  basisPoints: z.int().min(0).max(100_000),
  inclusive: z.boolean(),
  taxableCents: nonNegativeCents,
  taxCents: nonNegativeCents,
});
export type TaxLine = z.infer<typeof taxLineSchema>;

/**
 * How a tender paid: cash, card, check, other, or a wallet — Apple Pay, Google Pay — which is reported as itself, not
 * as a card (a wallet payment through a pay link on an order; a wallet tapped on the register's terminal).
 */
export const tenderMethod = z.enum(['cash', 'card', 'check', 'other', 'apple_pay', 'google_pay']);

/**
 * What people read for a tender, whatever shows it (receipts, the back office, the tender report): the order tenders,
 * and the report's own keys — `bank_transfer` (pay links) and `invoice` (sales on account). Unknown keys show as given.
 */
export const TENDER_LABELS: Readonly<Record<string, string>> = {
  cash: 'Cash',
  card: 'Card',
  check: 'Check',
  other: 'Other',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  bank_transfer: 'Bank transfer',
  invoice: 'On account (invoices)',
};

/** The label of a tender method (see {@link TENDER_LABELS}); an unknown method shows as itself. */
export const tenderLabel = (method: string): string => TENDER_LABELS[method] ?? method;

/**
 * A tender applied to the order. `amountCents` is what it pays of the order including `tipCents`. For cash,
 * `tenderedCents` is what the customer handed over and `changeCents` = tendered − amount. Cards carry brand and last
 * four only — never a card number (docs/api.md "Card numbers in input").
 */
export const tenderSchema = z.strictObject({
  id: id('tnd'),
  method: tenderMethod,
  amountCents: z.int().min(0).max(MAX_AMOUNT_CENTS),
  tipCents: z.int().min(0).max(MAX_AMOUNT_CENTS),
  tenderedCents: z.int().min(0).max(MAX_AMOUNT_CENTS).optional(),
  changeCents: z.int().min(0).max(MAX_AMOUNT_CENTS).optional(),
  cardBrand: withoutCardNumber(z.string().max(20)).optional(),
  last4: z
    .string()
    .regex(/^\d{4}$/)
    .optional(),
  authCode: withoutCardNumber(z.string().max(20)).optional(),
  /** Check tenders: the ABA routing number and check number read from the MICR line (`last4` = the account's last four). */
  routingNumber: z
    .string()
    .regex(/^\d{9}$/)
    .optional(),
  checkNumber: withoutCardNumber(z.string().regex(/^\d{1,15}$/)).optional(),
  /**
   * A card approved by the terminal offline (store and forward): the terminal's store-and-forward token (never
   * a card number) and when it approved. The server forwards the token to the processor once it receives the sale.
   */
  offline: z
    .strictObject({
      state: z.literal('pending_forward'),
      token: withoutCardNumber(z.string().regex(/^saf_[A-Za-z0-9_-]{1,124}$/, 'must be a store-and-forward token (saf_…)')),
      approvedAt: isoDate,
    })
    .optional(),
});
export type Tender = z.infer<typeof tenderSchema>;

/** Order states. */
export const orderState = z.enum(['open', 'paid', 'partially_refunded', 'refunded', 'canceled', 'balance_due']);

/** Receipt number: register number and a per-register sequence, e.g. `R2-000123`. */
export const receiptNumberSchema = withoutCardNumber(z.string().regex(/^R\d{1,4}-\d{6,}$/, 'must look like R2-000123'));

/**
 * An order as the register writes it and the server stores it. Register-authored and append-only.
 * `rejection` is set by the server on a document it quarantined.
 */
export const orderSchema = z.strictObject({
  id: id('ord'),
  registerId: withoutCardNumber(z.string().regex(/^reg_[A-Za-z0-9_-]{1,40}$/)),
  registerNumber: z.int().min(1).max(9999),
  receiptNumber: receiptNumberSchema,
  state: orderState,
  currency: currencyCode,
  createdAt: isoDate,
  staffId: withoutCardNumber(z.string().max(64)).optional(),
  customerId: withoutCardNumber(z.string().max(64)).optional(),
  lines: z.array(orderLineSchema).min(1).max(500),
  discounts: z.array(discountSchema).max(10),
  taxLines: z.array(taxLineSchema).max(20),
  subtotalCents: nonNegativeCents,
  discountCents: nonNegativeCents,
  taxCents: nonNegativeCents,
  totalCents: nonNegativeCents,
  tipCents: nonNegativeCents,
  paidCents: nonNegativeCents,
  tenders: z.array(tenderSchema).max(20),
  journalTransactionId: withoutCardNumber(z.string().max(64)).nullable(),
  note: freeText(MAX_MEMO_LENGTH).optional(),
  rejection: z.strictObject({ reason: z.string(), at: isoDate }).optional(),
  ...serverStamp,
});
export type Order = z.infer<typeof orderSchema>;

/* ───────────────────────────── ledger ───────────────────────────── */

/** A posting: `amountCents` > 0 is a debit, < 0 a credit. A journal transaction's postings sum to zero. */
export const postingSchema = z.strictObject({
  accountCode: z.string().regex(/^[a-z_]+(:[A-Za-z0-9_-]+)?$/),
  amountCents: cents.refine((v) => v !== 0, 'a posting must not be zero'),
});
export type Posting = z.infer<typeof postingSchema>;

export const journalKind = z.enum(['sale', 'refund', 'payment', 'fee', 'payout', 'closeout', 'adjustment', 'financial_service']);

export const journalTransactionSchema = z.strictObject({
  id: z.string().regex(/^jtx_[0-9A-HJKMNP-TV-Z]{26}$/),
  kind: journalKind,
  sourceType: z.enum([
    'order',
    'pay_request',
    'invoice',
    'closeout',
    'manual',
    'payout',
    'check_cashing',
    'money_transfer',
    'bill_payment',
    'app_charge',
    'app_charge_refund',
    'developer_payout',
    'developer_earnings_release',
  ]),
  sourceId: z.string().max(64),
  registerId: z.string().max(64).nullable(),
  currency: currencyCode,
  occurredAt: isoDate,
  memo: freeText(MAX_MEMO_LENGTH),
  postings: z.array(postingSchema).min(2).max(100),
  ...serverStamp,
});
export type JournalTransaction = z.infer<typeof journalTransactionSchema>;

/* ───────────────────────────── pay requests (Text-to-Pay) ───────────────────────────── */

/**
 * `POST /api/pos/pay-requests` body (its table in docs/api.md): either a free amount `amountCents`, or a full
 * invoice as `lineItems` (catalog references, priced on the server) — not both.
 */
export const payRequestCreateSchema = z
  .strictObject({
    amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS).optional(),
    lineItems: z.array(lineItemInputSchema).min(1).max(100).optional(),
    phone: e164Phone,
    memo: freeText(MAX_MEMO_LENGTH).optional(),
    /** An open order this link pays (its balance due, computed on the server); instead of amountCents or lineItems. */
    orderId: id('ord').optional(),
  })
  .superRefine((body, ctx) => {
    if (body.amountCents === undefined && body.lineItems === undefined && body.orderId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['amountCents'], message: 'one of amountCents, lineItems or orderId is required' });
    }
    if (body.amountCents !== undefined && body.lineItems !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['lineItems'], message: 'send either amountCents or lineItems, not both' });
    }
    if (body.orderId !== undefined && (body.amountCents !== undefined || body.lineItems !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['orderId'],
        message: "an order link is for the order's balance due: send no amountCents or lineItems with it",
      });
    }
  });
export type PayRequestCreate = z.infer<typeof payRequestCreateSchema>;

/** Pay request states. */
export const payRequestStatus = z.enum(['pending', 'paid', 'expired', 'canceled']);

/** The pay-request response record (the 201 body of `POST /api/pos/pay-requests` in docs/api.md). */
export const payRequestSchema = z.strictObject({
  id: z.string().regex(/^pr_[0-9A-HJKMNP-TV-Z]{26}$/),
  status: payRequestStatus,
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS),
  currency: currencyCode,
  phone: e164Phone,
  memo: freeText(MAX_MEMO_LENGTH).nullable(),
  lineItems: z.array(orderLineSchema).optional(),
  /** The open order this link pays (created with `orderId`); paying the link records the payment on the order. */
  orderId: id('ord').optional(),
  url: z.url(),
  expiresAt: isoDate,
  createdAt: isoDate,
  paidAt: isoDate.nullable(),
});
export type PayRequest = z.infer<typeof payRequestSchema>;
