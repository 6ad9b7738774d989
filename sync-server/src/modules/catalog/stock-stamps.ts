/**
 * Catalog items re-stamped in one go after many sales moved their stock (a replication push): the same result as
 * `refreshStockOnHand(tx, merchantId, itemIds, now, true)` (catalog/service.ts) — each item's tracked variations carry
 * their units on hand at the default location, the item takes a new replication sequence (registers pull it) and one
 * `catalog.updated` event per item — in ONE statement whatever the number of items: an UPDATE that rebuilds each
 * item's variations with the units on hand read from `stock_levels` (inventory's running sum, kept by its trigger in
 * the same transaction as each movement, so it already counts this push's sales) and returns the new documents. The
 * events are handed back for the caller to emit with its own (one outbox INSERT per push).
 */
import type { CatalogItem, EventType } from '../../../../core/index.ts';
import { prepared, type Queryable } from '../../platform/db/db.ts';

/** A `catalog.updated` event as `kernel/outbox.ts` `emitEvents` takes it. */
export interface CatalogUpdatedEvent {
  merchantId: string;
  type: EventType;
  object: Record<string, unknown>;
  occurredAt: Date;
}

/**
 * Re-stamps `itemIds` (missing ids are skipped; soft-deleted items keep `deleted`) with fresh `stockOnHand`: tracked
 * variations get their units on hand at `locationId` (0 when no stock row), untracked ones lose `stockOnHand`.
 * @param locationId the merchant's default location (whose stock the catalog items carry)
 * @param now the stamp (`updated_at`) and the events' time
 * @returns the `catalog.updated` events of the items re-stamped (the caller emits them, in the same transaction)
 */
export async function restampStockOnHand(
  tx: Queryable,
  merchantId: string,
  itemIds: readonly string[],
  locationId: string,
  now: Date,
): Promise<CatalogUpdatedEvent[]> {
  if (itemIds.length === 0) return [];
  const { rows } = await tx.query<{ id: string; data: CatalogItem | string; deleted: boolean }>(
    prepared(
      'restamp_stock_on_hand',
      `UPDATE catalog_items ci
        SET data = jsonb_set(ci.data, '{variations}', coalesce((
              SELECT jsonb_agg(CASE WHEN (x.v->>'trackStock')::boolean
                                    THEN (x.v - 'stockOnHand') || jsonb_build_object('stockOnHand', coalesce(sl.on_hand, 0))
                                    ELSE x.v - 'stockOnHand' END ORDER BY x.n)
                FROM jsonb_array_elements(ci.data->'variations') WITH ORDINALITY AS x(v, n)
                LEFT JOIN stock_levels sl ON sl.merchant_id = ci.merchant_id AND sl.location_id = $3 AND sl.variation_id = x.v->>'id'
            ), '[]'::jsonb)),
            sync_seq = nextval('sync_seq'), updated_at = $2
      WHERE ci.merchant_id = $1 AND ci.id = ANY($4::text[])
      RETURNING ci.id, ci.data, ci.deleted`,
    ),
    [merchantId, now.toISOString(), locationId, [...new Set(itemIds)]],
  );
  const updatedAt = now.toISOString();
  return rows
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((r) => {
      const data = typeof r.data === 'string' ? (JSON.parse(r.data) as CatalogItem) : r.data;
      return {
        merchantId,
        type: 'catalog.updated' as const,
        object: { object: 'catalog_item', ...data, updatedAt, deleted: r.deleted },
        occurredAt: now,
      };
    });
}
