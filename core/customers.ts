/**
 * Customers (staff only). These shapes are documented in docs/api.md
 * ("Customers"). A merchant's customers are unique by E.164 phone and by normalised e-mail: creating or updating
 * one to a phone or e-mail another customer already has is a 409 naming that customer.
 */
import { z } from 'zod';
import { utcDateTime } from './datetime.ts';
import { freeText, idnEmail, MAX_MEMO_LENGTH, nonBlankText, pageSchema, patchBody } from './schemas.ts';

/** Timestamps: ISO 8601 with an offset within ±14:00, normalised to UTC (core/datetime.ts). */
const isoDate = utcDateTime;

/**
 * An e-mail address for comparison: trimmed and lower-cased (the local part is case-insensitive in practice at every
 * large provider, though RFC 5321 allows otherwise). Dots and `+tags` are kept: they may be different mailboxes.
 */
export function normalizeEmail(input: string): string {
  return input.trim().toLowerCase();
}

/**
 * A phone as staff type it: international (`+…`) or national digits with spaces, dots, dashes and parentheses. The
 * server normalises it to E.164 with the store's default country (`storePhoneToE164`, services/customers.ts),
 * answering 400 naming the field when it is not a valid number there. Customers and receipts take it.
 */
export const phoneInput = z
  .string()
  .trim()
  .max(32)
  .regex(/^\+?[0-9 ().-]{4,31}$/, 'must be a phone number, e.g. +14155550123 or (415) 555-0123')
  .refine((v) => (v.match(/[0-9]/g)?.length ?? 0) >= 4, 'must be a phone number, e.g. +14155550123 or (415) 555-0123')
  .describe("E.164 (+14155550123), or a national number of the store's default country ((415) 555-0123): stored as E.164.");
/** An e-mail address as staff type it, internationalised ones included (core `idnEmail`, `format: idn-email`). */
const emailInput = idnEmail;
const name = nonBlankText(100);

/** `POST /api/pos/customers`: at least one of name, phone or e-mail. */
export const customerCreateSchema = z
  .strictObject({
    givenName: name.optional(),
    familyName: name.optional(),
    email: emailInput.optional(),
    phone: phoneInput.optional(),
    marketingConsent: z.boolean().optional(),
    note: freeText(MAX_MEMO_LENGTH).optional(),
  })
  .superRefine((c, ctx) => {
    if (!c.givenName && !c.familyName && !c.email && !c.phone) {
      ctx.addIssue({ code: 'custom', path: ['givenName'], message: 'a customer needs a name, a phone or an e-mail' });
    }
  });
export type CustomerCreate = z.infer<typeof customerCreateSchema>;

/** `PATCH /api/pos/customers/{id}`: the fields to change; `null` clears an optional field. */
export const customerUpdateSchema = patchBody({
  givenName: name.nullable().optional(),
  familyName: name.nullable().optional(),
  email: emailInput.nullable().optional(),
  phone: phoneInput.nullable().optional(),
  marketingConsent: z.boolean().optional(),
  note: freeText(MAX_MEMO_LENGTH).nullable().optional(),
});
export type CustomerUpdate = z.infer<typeof customerUpdateSchema>;

/** A customer as the API answers it. `marketingConsentAt` is when consent was last given (null without consent). */
export const customerRecordSchema = z.strictObject({
  id: z.string().regex(/^cus_[0-9A-HJKMNP-TV-Z]{26}$/),
  givenName: z.string().nullable(),
  familyName: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  marketingConsent: z.boolean(),
  marketingConsentAt: isoDate.nullable(),
  note: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type CustomerRecord = z.infer<typeof customerRecordSchema>;

/** A page of customers (cursor pagination). */
export const customerPageSchema = pageSchema(customerRecordSchema);

const customerId = z.string().regex(/^cus_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with cus_');

/**
 * A customer created at a register, as the register pushes it through sync (`POST
 * /api/sync/customers/push`), online or after an outage: its own `cus_…` id (core `newId('customer')`), the register,
 * when, and at least one of name, phone or e-mail. The phone is E.164 when the register could read it with the store's
 * country; the server normalises it again (`storePhoneToE164`). A push whose phone or e-mail matches an existing
 * customer is merged into that customer (docs/decisions/0016-customers-created-at-the-register.md).
 */
export const registerCustomerSchema = z
  .strictObject({
    id: customerId,
    registerId: z.string().min(1).max(64),
    givenName: name.optional(),
    familyName: name.optional(),
    email: emailInput.optional(),
    phone: phoneInput.optional(),
    createdAt: isoDate,
  })
  .superRefine((c, ctx) => {
    if (!c.givenName && !c.familyName && !c.email && !c.phone) {
      ctx.addIssue({ code: 'custom', path: ['givenName'], message: 'a customer needs a name, a phone or an e-mail' });
    }
  });
export type RegisterCustomer = z.infer<typeof registerCustomerSchema>;

/**
 * A customer as registers pull it (`GET /api/sync/customers/pull`): the customer record with the register that created
 * it (null: the back office or the API) — or, for a register's customer merged into an existing one, an alias
 * `{ id, mergedInto, createdAt, updatedAt }` naming the surviving customer, so the register re-points what it holds.
 */
export type CustomerSyncDocument =
  | (CustomerRecord & { registerId: string | null; mergedInto?: undefined })
  | { id: string; mergedInto: string; matchedOn: 'phone' | 'email'; createdAt: string; updatedAt: string };
