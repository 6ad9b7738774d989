/** Staff members' names by id, for screens that show who (the kitchen display's server). Read-only. */
import type { Queryable } from '../../platform/db/db.ts';

/** Staff id → name, for the ids of `staffIds` that are staff of `merchantId`. */
export async function staffNamesOf(db: Queryable, merchantId: string, staffIds: readonly string[]): Promise<Map<string, string>> {
  if (staffIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; name: string }>('SELECT id, name FROM staff WHERE merchant_id = $1 AND id = ANY($2)', [
    merchantId,
    [...new Set(staffIds)],
  ]);
  return new Map(rows.map((r) => [r.id, r.name]));
}
