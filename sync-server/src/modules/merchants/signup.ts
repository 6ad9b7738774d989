/**
 * Merchant sign-up: the merchants module's part — the input's shape and
 * the `merchants` row. The rest of a new store (chart of accounts, default location, owner) is put together by
 * `workflows/merchant-signup.ts`.
 */
import { z } from 'zod';
import { isPhoneCountry, newId, PIN_PATTERN } from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';

/** ISO 4217 codes the runtime's ICU knows (`Intl.supportedValuesOf('currency')`). */
const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

const text = (max: number) => z.string().trim().min(1, 'must not be blank').max(max);

/** `POST /api/signup`: a new store and its owner. */
export const signUpSchema = z.strictObject({
  storeName: text(120).describe("The store's name, shown on receipts."),
  country: z
    .string()
    .trim()
    .transform((v) => v.toUpperCase())
    .refine(isPhoneCountry, 'must be an ISO 3166-1 alpha-2 country code, e.g. US, GB, FR')
    .describe('ISO 3166-1 alpha-2 country of the store (also the default phone country).'),
  currency: z
    .string()
    .trim()
    .transform((v) => v.toUpperCase())
    .refine((v) => /^[A-Z]{3}$/.test(v) && KNOWN_CURRENCIES.has(v), 'must be an ISO 4217 currency code, e.g. USD, EUR, GBP')
    .describe('ISO 4217 currency of every amount of the store (minor units).'),
  timeZone: text(64).describe('IANA time zone, e.g. America/New_York (business days and reports count in it).'),
  ownerName: text(120),
  ownerEmail: z.email().max(254),
  ownerPin: z.string().regex(PIN_PATTERN, 'must be 4 to 8 digits').describe("The owner's PIN for the register and the back office."),
});
export type SignUpInput = z.infer<typeof signUpSchema>;

/**
 * Stores a new (non-demo) merchant under a fresh id, inside `m` (whose `merchantId` must be that id: plan it with
 * {@link newMerchantId}). Audited `merchant.created` (no personal data beyond the store's name).
 * @throws ProblemError 400 naming `timeZone` when the zone is not an IANA name PostgreSQL knows.
 */
export async function createMerchant(m: Mutation, input: Pick<SignUpInput, 'storeName' | 'country' | 'currency' | 'timeZone'>): Promise<void> {
  await assertTimeZone(m.tx, input.timeZone);
  await m.tx.query('INSERT INTO merchants (id, name, currency, is_demo, time_zone, default_country) VALUES ($1, $2, $3, false, $4, $5)', [
    m.merchantId,
    input.storeName,
    input.currency,
    input.timeZone,
    input.country,
  ]);
  await m.audit({
    action: 'merchant.created',
    entityType: 'merchant',
    entityId: m.merchantId,
    data: { name: input.storeName, currency: input.currency, country: input.country, timeZone: input.timeZone },
  });
}

/** A new merchant id (`mer_<ULID>`). */
export const newMerchantId = (): string => newId('merchant');

async function assertTimeZone(tx: Queryable, timeZone: string): Promise<void> {
  const known = await tx.query('SELECT 1 FROM pg_timezone_names WHERE name = $1', [timeZone]);
  if (known.rows.length === 0) {
    throw new ProblemError(400, 'validation_error', `Invalid timeZone: "${timeZone}" is not an IANA time zone name.`, [
      { path: 'timeZone', message: 'must be an IANA time zone, e.g. America/New_York' },
    ]);
  }
}
