/**
 * Store settings (docs/api.md "Settings"; staff only): the merchant's IANA time zone, which reports count days in
 * (services/reports.ts), and the default country of phone numbers typed without `+` (customers). Name and currency
 * are shown, not changed here: the currency is fixed once money has moved.
 */
import { z } from 'zod';
import { isPhoneCountry, nonBlankText, patchBody, storeSettingsSchema, type StoreSettings } from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';

/** `GET /api/pos/settings` and the answer of PATCH: core/settings.ts. */
export { storeSettingsSchema, type StoreSettings };

/** `PATCH /api/pos/settings`: the fields to change (at least one). */
export const storeSettingsUpdateSchema = patchBody({
  timeZone: nonBlankText(64).optional().describe('IANA time zone name, e.g. America/New_York.'),
  defaultCountry: z
    .string()
    .trim()
    .transform((v) => v.toUpperCase())
    .refine(isPhoneCountry, 'must be an ISO 3166-1 alpha-2 country code with a known numbering plan, e.g. US, GB, FR')
    .optional(),
});
export type StoreSettingsUpdate = z.infer<typeof storeSettingsUpdateSchema>;

interface MerchantRow {
  id: string;
  name: string;
  currency: string;
  time_zone: string;
  default_country: string;
}

const toSettings = (r: MerchantRow): StoreSettings => ({ merchantId: r.id, name: r.name, currency: r.currency, timeZone: r.time_zone, defaultCountry: r.default_country });

async function merchantRow(db: Queryable, merchantId: string): Promise<MerchantRow> {
  const { rows } = await db.query<MerchantRow>('SELECT id, name, currency, time_zone, default_country FROM merchants WHERE id = $1', [merchantId]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', 'No such merchant.');
  return rows[0];
}

/** The caller's store settings. @throws ProblemError 404 when the merchant is gone. */
export async function getSettings(db: Queryable, merchantId: string): Promise<StoreSettings> {
  return toSettings(await merchantRow(db, merchantId));
}

/**
 * Changes the given settings in one transaction, with a `settings.updated` audit row holding each field's from/to.
 * The time zone is checked against the database's own zone list (`pg_timezone_names`, as reports do).
 * @throws ProblemError 400 naming `timeZone` for an unknown zone.
 */
export async function updateSettings(ctx: AppContext, principal: Principal, input: StoreSettingsUpdate): Promise<StoreSettings> {
  return mutation(ctx, actorOf(principal), async ({ tx, audit }) => {
    const before = await merchantRow(tx, principal.merchantId);
    if (input.timeZone !== undefined) {
      const known = await tx.query('SELECT 1 FROM pg_timezone_names WHERE name = $1', [input.timeZone]);
      if (known.rows.length === 0) {
        throw new ProblemError(400, 'validation_error', `Invalid timeZone: "${input.timeZone}" is not an IANA time zone name.`, [{ path: 'timeZone', message: 'must be an IANA time zone, e.g. America/New_York' }]);
      }
    }
    const after = { time_zone: input.timeZone ?? before.time_zone, default_country: input.defaultCountry ?? before.default_country };
    await tx.query('UPDATE merchants SET time_zone = $2, default_country = $3 WHERE id = $1', [principal.merchantId, after.time_zone, after.default_country]);
    const changes: Record<string, { from: string; to: string }> = {};
    if (after.time_zone !== before.time_zone) changes.timeZone = { from: before.time_zone, to: after.time_zone };
    if (after.default_country !== before.default_country) changes.defaultCountry = { from: before.default_country, to: after.default_country };
    if (Object.keys(changes).length > 0) {
      await audit({ action: 'settings.updated', entityType: 'merchant', entityId: principal.merchantId, appId: null, data: changes });
    }
    return toSettings({ ...before, ...after });
  });
}
