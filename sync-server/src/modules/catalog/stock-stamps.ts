/**
 * Catalog items re-stamped in one go after many sales moved their stock (a replication push): the same result as
 * `refreshStockOnHand(tx, merchantId, itemIds, now, true)` (catalog/service.ts) — each item's tracked variations carry
 * their units on hand at the default location, the item takes a new replication sequence (registers pull it) and one
 * `catalog.updated` event is emitted per item — in a fixed number of statements whatever the number of items: the
 * items read once, stock read once (through `onHandOf`), one multi-row UPDATE, one outbox INSERT.
 */
import type { CatalogItem } from '../../../../core/index.ts';
import { emitEvents } from '../../kernel/outbox.ts';
import type { Queryable } from '../../platform/db/db.ts';

/**
 * Re-stamps `itemIds` (missing ids are skipped; soft-deleted items keep `deleted`) with fresh `stockOnHand`.
 * @param onHandOf units on hand at the default location of the given variation ids (inventory's `onHandAt`), read once
 * @param now the stamp (`updated_at`) and the events' time
 */
export async function restampStockOnHand(
  tx: Queryable,
  merchantId: string,
  itemIds: readonly string[],
  onHandOf: (variationIds: string[]) => Promise<Map<string, number>>,
  now: Date,
): Promise<void> {
  if (itemIds.length === 0) return;
  const { rows } = await tx.query<{ id: string; data: CatalogItem; deleted: boolean }>(
    'SELECT id, data, deleted FROM catalog_items WHERE merchant_id = $1 AND id = ANY($2::text[]) ORDER BY id',
    [merchantId, [...new Set(itemIds)]],
  );
  if (rows.length === 0) return;
  const onHand = await onHandOf([...new Set(rows.flatMap((r) => r.data.variations.filter((v) => v.trackStock).map((v) => v.id)))]);
  const items = rows.map((r) => ({
    id: r.id,
    deleted: r.deleted,
    data: {
      ...r.data,
      variations: r.data.variations.map((v) => {
        const { stockOnHand: _, ...rest } = v;
        return v.trackStock ? { ...rest, stockOnHand: onHand.get(v.id) ?? 0 } : rest;
      }),
    } as CatalogItem,
  }));
  await tx.query(
    `UPDATE catalog_items ci SET data = u.data::jsonb, sync_seq = nextval('sync_seq'), updated_at = $2
       FROM unnest($3::text[], $4::text[]) AS u(id, data)
      WHERE ci.merchant_id = $1 AND ci.id = u.id`,
    [merchantId, now.toISOString(), items.map((i) => i.id), items.map((i) => JSON.stringify(i.data))],
  );
  const updatedAt = now.toISOString();
  await emitEvents(
    tx,
    items.map((i) => ({ merchantId, type: 'catalog.updated' as const, object: { object: 'catalog_item', ...i.data, updatedAt, deleted: i.deleted }, occurredAt: now })),
  );
}
