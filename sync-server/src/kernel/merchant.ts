import type { StoreLanguage, TipLimit } from '../../../core/index.ts';
import type { Queryable } from '../platform/db/db.ts';
import { ProblemError } from '../platform/http/problem.ts';

/**
 * The merchant as every module reads it: id, display name, currency (ISO 4217), IANA time zone, default country
 * (ISO 3166-1 alpha-2, for national phone numbers), demo flag, tip bound, language of its messages. Read-only here: the `merchants` table is written by
 * the merchants module alone (modules/merchants/settings.ts, seed.ts).
 */
export interface MerchantRow {
  id: string;
  name: string;
  currency: string;
  is_demo: boolean;
  time_zone: string;
  default_country: string;
  /** The tip bound (core `TipLimit`): basis points of the order's total … */
  tip_limit_basis_points: number;
  /** … or this fixed amount in minor units, whichever is larger. */
  tip_limit_cents: number;
  /** The language of its e-mails and texts (kernel/message-templates.ts). */
  language: StoreLanguage;
}

/** The merchant's tip bound as core's `TipLimit`. */
export function tipLimitOf(merchant: Pick<MerchantRow, 'tip_limit_basis_points' | 'tip_limit_cents'>): TipLimit {
  return { basisPoints: Number(merchant.tip_limit_basis_points), fixedCents: Number(merchant.tip_limit_cents) };
}

/**
 * Reads one merchant (any module, any transaction).
 * @throws ProblemError 404 `merchant_not_found` when there is no such merchant.
 */
export async function getMerchant(db: Queryable, merchantId: string): Promise<MerchantRow> {
  const { rows } = await db.query<MerchantRow>(
    'SELECT id, name, currency, is_demo, time_zone, default_country, tip_limit_basis_points, tip_limit_cents, language FROM merchants WHERE id = $1',
    [merchantId],
  );
  if (!rows[0]) throw new ProblemError(404, 'merchant_not_found', `Merchant ${merchantId} does not exist.`);
  return rows[0];
}
