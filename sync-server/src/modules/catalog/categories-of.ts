/** The categories of catalog items, for routing kitchen tickets by category (workflows/kitchen-tickets.ts). Read-only. */
import type { Queryable } from '../../platform/db/db.ts';

/** Item id → its category (`data.category`, exact spelling), for the items of `itemIds` that exist (deleted ones too). */
export async function categoriesOfItems(db: Queryable, merchantId: string, itemIds: readonly string[]): Promise<Map<string, string>> {
  if (itemIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; category: string | null }>(
    `SELECT id, data->>'category' AS category FROM catalog_items WHERE merchant_id = $1 AND id = ANY($2)`,
    [merchantId, [...new Set(itemIds)]],
  );
  return new Map(rows.flatMap((r) => (r.category === null ? [] : [[r.id, r.category] as [string, string]])));
}
