/** Store settings as the settings API answers them (`GET` / `PATCH /api/pos/settings`, staff only). */
import { z } from 'zod';
import { MESSAGE_KINDS, STORE_LANGUAGES } from './message-templates.ts';
import { MAX_AMOUNT_CENTS, mulDivHalfEven } from './money.ts';
import { isPhoneCountry } from './phone.ts';
import { localTimeOfDay } from './quiet-hours.ts';
import { idnEmail, nonBlankText, patchBody } from './schemas.ts';

/**
 * The store's bound on tips (docs/decisions/0006-money-rules-at-the-edges.md): a tip may be at most the larger of `basisPoints` of the
 * order's total (goods, tax included; 10 000 = 100 %) and `fixedCents` (minor units). 0 and 0 allow no tip at all.
 */
export interface TipLimit {
  /** Percentage of the order's total, in basis points (0 … 100 000). */
  basisPoints: number;
  /** A fixed amount, in minor units (0 … MAX_AMOUNT_CENTS): lets a small order take a normal tip. */
  fixedCents: number;
}

/** The default tip bound of every store: the larger of 50 % of the order's total and 100.00 (10 000 minor units). */
export const DEFAULT_TIP_LIMIT: TipLimit = { basisPoints: 5_000, fixedCents: 10_000 };
/** Largest `basisPoints` of a tip bound (1 000 %). */
export const MAX_TIP_LIMIT_BASIS_POINTS = 100_000;

/**
 * The largest tip an order whose total is `totalCents` (minor units, ≥ 0) may take under `limit`: max(total ×
 * basisPoints / 10 000 rounded half-even, fixedCents), in minor units.
 */
export function maxTipCents(totalCents: number, limit: TipLimit): number {
  return Math.max(mulDivHalfEven(totalCents, limit.basisPoints, 10_000), limit.fixedCents);
}

/**
 * Checks the tips of one order (`tipCents`, all its tenders' tips together) against the store's bound. Pure; used
 * by every path that takes a tip (API payments, register sales pushed by sync).
 * @returns undefined when allowed, else a sentence saying the bound (for a 400 or a quarantine reason)
 */
export function tipLimitProblem(totalCents: number, tipCents: number, limit: TipLimit): string | undefined {
  const max = maxTipCents(totalCents, limit);
  if (tipCents <= max) return undefined;
  return `tip ${tipCents} exceeds the store's bound of ${max} for a total of ${totalCents} (the larger of ${limit.basisPoints / 100} % of the total and ${limit.fixedCents})`;
}

/**
 * How the store serves (docs/decisions/0102-register-open-checks.md): `retail` — the register opens on the counter
 * (ring up, pay at once; the default, so stores are unchanged); `restaurant` — it opens on the floor plan, where tables
 * and named tabs hold open checks; `both` — a switch between counter and floor.
 */
export const SERVICE_STYLES = ['retail', 'restaurant', 'both'] as const;
export type ServiceStyle = (typeof SERVICE_STYLES)[number];

/** `GET /api/pos/settings` and the answer of PATCH. Name and currency are shown, not changed there. */
export const storeSettingsSchema = z.strictObject({
  merchantId: z.string(),
  name: z.string(),
  currency: z.string().describe('ISO 4217 code of every amount (minor units).'),
  timeZone: z.string().describe('IANA time zone; reports count days in it.'),
  defaultCountry: z.string().describe('ISO 3166-1 alpha-2: the country of phone numbers typed without + and a country code.'),
  tipLimitBasisPoints: z
    .int()
    .min(0)
    .max(MAX_TIP_LIMIT_BASIS_POINTS)
    .describe(
      'Tip bound, percentage part: a tip may be at most the larger of this share of the order total (basis points, 10000 = 100 %) and tipLimitCents. Default 5000.',
    ),
  tipLimitCents: z.int().min(0).max(MAX_AMOUNT_CENTS).describe('Tip bound, fixed part (minor units). Default 10000.'),
  dayCutoffHour: z
    .int()
    .min(0)
    .max(23)
    .describe('Local hour (0–23) at which the business day ends: shifts and the daily closeout count days from it. Default 4.'),
  cashierRefundLimitCents: z
    .int()
    .min(0)
    .max(MAX_AMOUNT_CENTS)
    .describe("A cashier's refund above this amount (minor units) needs a manager's approval (POST /api/register/approvals). Default 5000."),
  confirmSellPastZero: z
    .boolean()
    .describe(
      'When true the register asks once per item and sale before selling more units than are in stock; false (default) sells past zero without asking.',
    ),
  serviceStyle: z
    .enum(SERVICE_STYLES)
    .describe('retail (default): the register opens on the counter; restaurant: on the floor plan; both: a switch.'),
  offlineSignInDays: z
    .int()
    .min(0)
    .max(30)
    .describe(
      'A staff member who signed in on a register online within this many days may sign in on it while it is offline (PIN checked on the register; lockout after 5 wrong tries). 0 = offline sign-in off. Default 7.',
    ),
  language: z
    .enum(STORE_LANGUAGES)
    .describe("ISO 639-1: the language of the store's e-mails and texts to customers (receipts, invoices, pay requests). Default en."),
  emailReplyTo: z
    .string()
    .nullable()
    .describe("The store's own e-mail address: the Reply-To of the e-mails it sends (receipts, invoices), so answers reach it. null: none."),
  smsQuietHoursStart: z
    .string()
    .nullable()
    .describe(
      "Start of the store's quiet hours for texts (HH:MM, local in timeZone): invoice texts and reminders are held from then until smsQuietHoursEnd; receipts and pay requests still go at once. null: no quiet hours.",
    ),
  smsQuietHoursEnd: z
    .string()
    .nullable()
    .describe('End of the quiet hours (HH:MM, local; before the start when they cross midnight, e.g. 21:00 to 08:00). null: no quiet hours.'),
  // Money movement: read-only, fixed by the store being the demo or not.
  moneyMovement: z
    .enum(['enabled', 'disabled'])
    .describe(
      '`disabled` in the demo store: payouts, settlements to a bank, transfers, bill payments and disbursements answer 403 `money_movement_disabled`. Read-only.',
    ),
});
export type StoreSettings = z.infer<typeof storeSettingsSchema>;

/** The fields `PATCH /api/pos/settings` may change, each with its own rule (the back office's form checks each field with it). */
export const storeSettingsUpdateFields = {
  timeZone: nonBlankText(64).optional().describe('IANA time zone name, e.g. America/New_York.'),
  defaultCountry: z
    .string()
    .trim()
    .transform((v) => v.toUpperCase())
    .refine(isPhoneCountry, 'must be an ISO 3166-1 alpha-2 country code with a known numbering plan, e.g. US, GB, FR')
    .optional(),
  tipLimitBasisPoints: z
    .int()
    .min(0)
    .max(MAX_TIP_LIMIT_BASIS_POINTS)
    .optional()
    .describe('Tip bound, percentage part (basis points of the order total).'),
  tipLimitCents: z.int().min(0).max(MAX_AMOUNT_CENTS).optional().describe('Tip bound, fixed part (minor units).'),
  dayCutoffHour: z.int().min(0).max(23).optional().describe('Local hour (0–23) at which the business day ends (shifts and the daily closeout).'),
  cashierRefundLimitCents: z
    .int()
    .min(0)
    .max(MAX_AMOUNT_CENTS)
    .optional()
    .describe("A cashier's refund above this (minor units) needs a manager's approval."),
  confirmSellPastZero: z.boolean().optional().describe('Whether the register asks once before selling past zero stock.'),
  serviceStyle: z.enum(SERVICE_STYLES).optional().describe('retail, restaurant or both: what the register opens on (counter, floor plan, a switch).'),
  offlineSignInDays: z
    .int()
    .min(0)
    .max(30)
    .optional()
    .describe('Days after an online sign-in on a register during which that staff member may sign in there offline (0 = never).'),
  language: z.enum(STORE_LANGUAGES).optional().describe("The language of the store's e-mails and texts: en, es or fr."),
  emailReplyTo: idnEmail.nullable().optional().describe("The store's e-mail address for answers to its e-mails (Reply-To); null removes it."),
  smsQuietHoursStart: localTimeOfDay
    .nullable()
    .optional()
    .describe('Start of the quiet hours for texts that can wait (HH:MM, local); set with smsQuietHoursEnd, null with it removes them.'),
  smsQuietHoursEnd: localTimeOfDay.nullable().optional().describe('End of the quiet hours (HH:MM, local; may be before the start: over midnight).'),
};

/** `PATCH /api/pos/settings`: the fields to change (at least one). */
export const storeSettingsUpdateSchema = patchBody(storeSettingsUpdateFields);
export type StoreSettingsUpdate = z.infer<typeof storeSettingsUpdateSchema>;

/** One kind of message's template as `GET /api/pos/message-templates` answers it (core/message-templates.ts). */
export const messageTemplateViewSchema = z.strictObject({
  kind: z.enum(MESSAGE_KINDS),
  channel: z.enum(['email', 'sms']),
  title: z.string(),
  language: z.enum(STORE_LANGUAGES),
  subject: z.string().nullable().describe('E-mail subject template; null for SMS.'),
  body: z.string().describe('Body template: {{name}} placeholders and {{#name}}…{{/name}} sections.'),
  overridden: z.boolean().describe('True when the store saved its own template; false: the built-in default of the language.'),
  defaultSubject: z.string().nullable(),
  defaultBody: z.string(),
  placeholders: z.array(z.strictObject({ name: z.string(), description: z.string(), required: z.boolean() })),
});
export type MessageTemplateView = z.infer<typeof messageTemplateViewSchema>;

/** `PUT /api/pos/message-templates/{kind}`: the store's own template for one kind and language. */
export const messageTemplateSaveSchema = z.strictObject({
  language: z.enum(STORE_LANGUAGES).optional().describe("The language the template is for; default the store's."),
  subject: z.string().nullable().optional().describe('E-mail subject; null or absent for SMS.'),
  body: z.string(),
});
export type MessageTemplateSave = z.infer<typeof messageTemplateSaveSchema>;

/** `POST /api/pos/message-template-previews`: a template to render with sample data (saved or not). */
export const messageTemplatePreviewRequestSchema = messageTemplateSaveSchema.extend({ kind: z.enum(MESSAGE_KINDS) });
export type MessageTemplatePreviewRequest = z.infer<typeof messageTemplatePreviewRequestSchema>;

/** The preview: the rendered subject and body, the e-mail's HTML part, an SMS's alphabet and parts. */
export const messageTemplatePreviewSchema = z.strictObject({
  kind: z.enum(MESSAGE_KINDS),
  language: z.enum(STORE_LANGUAGES),
  subject: z.string().nullable(),
  body: z.string(),
  html: z.string().nullable().describe('The HTML part the e-mail would carry (escaped text); null for SMS.'),
  sms: z
    .strictObject({ encoding: z.enum(['GSM-7', 'UCS-2']), units: z.int(), segments: z.int(), remaining: z.int() })
    .nullable()
    .describe('SMS kinds: alphabet, length and billed parts (core/sms-segments.ts); null for e-mail.'),
});
export type MessageTemplatePreview = z.infer<typeof messageTemplatePreviewSchema>;
