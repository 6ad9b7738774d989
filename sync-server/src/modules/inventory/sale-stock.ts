/**
 * Stock taken off by many register sales at once, for a replication push: the same movements as
 * {@link recordStockMovements} records for each order (kind `sale`, keyed by the order id, at the default location,
 * idempotent per order and variation, oversells recorded and never refused), in a fixed number of statements: the
 * variations, the default location and units on hand read in one statement, every movement in one multi-row INSERT.
 */
import type { Order } from '../../../../core/index.ts';
import { newId } from '../../../../core/index.ts';
import type { AuditEntry } from '../../kernel/audit.ts';
import { prepared, type Queryable, type ReadPart } from '../../platform/db/db.ts';
import {
  ensureDefaultLocation,
  findVariationsOnHand,
  onHandAt,
  rememberDefaultLocation,
  saleMovementsOfOrder,
  variationsOnHandPart,
  type VariationsOnHand,
} from './service.ts';

/** What {@link recordSalesStock} did. */
export interface SalesStockResult {
  /** Movements newly recorded (those of orders already counted are skipped). */
  recorded: number;
  /** Catalog items whose stock moved: re-stamp them (catalog `refreshStockOnHand`) once, at the end of the push. */
  changedItemIds: string[];
  /** Whether the movements were at the default location (whose stock the catalog items carry): always true here. */
  locationIsDefault: boolean;
  /** Variations whose units on hand fell below zero with these sales. */
  oversold: { variationId: string; locationId: string; onHand: number }[];
  /**
   * Audit entries the caller must append in the same transaction, first in its own batch (one statement for all):
   * an `inventory.oversold` entry when `oversold` is not empty, else none.
   */
  audit: AuditEntry[];
}

/** The sale movements of `orders`, one per (order, variation): the same variation twice in one order adds up. */
function mergedSaleMovements(
  orders: readonly Pick<Order, 'id' | 'state' | 'lines'>[],
): { sourceId: string; variationId: string; quantity: number }[] {
  // Same (order, variation) twice in one order: the quantities add up, as recordStockMovements merges them.
  const merged = new Map<string, { sourceId: string; variationId: string; quantity: number }>();
  for (const order of orders) {
    for (const m of saleMovementsOfOrder(order)) {
      if (m.kind === 'count') continue;
      const key = `${m.sourceId}\u0000${m.variationId}`;
      const prev = merged.get(key);
      merged.set(key, { sourceId: m.sourceId, variationId: m.variationId, quantity: (prev?.quantity ?? 0) + m.quantity });
    }
  }
  return [...merged.values()];
}

/**
 * What {@link recordSalesStock} reads before it writes the movements of `orders` (their variations, the default
 * location, units on hand), as a part of a combined read (platform/db `readTogether`); hand the result to
 * `recordSalesStock` (`input.read`).
 */
export function salesStockReadPart(merchantId: string, orders: readonly Pick<Order, 'id' | 'state' | 'lines'>[]): ReadPart<VariationsOnHand> {
  return variationsOnHandPart(
    merchantId,
    mergedSaleMovements(orders).map((m) => m.variationId),
  );
}

/**
 * Records the sale movements of `orders` (tracked variations only; canceled and open orders move nothing) at the
 * merchant's default location, inside `tx`.
 * @param input.actor `register:<id>`, `staff:<id>`… (stored on each movement and on the oversell audit row)
 * @param input.occurredAt time of the movements (ms precision)
 * @param input.read the {@link salesStockReadPart} of these `orders` (or of more orders), read by the caller in this
 *   transaction under the merchant's lock with no stock moved since: the read is then not made again
 */
export async function recordSalesStock(
  tx: Queryable,
  input: { merchantId: string; actor: string; occurredAt: Date; orders: readonly Pick<Order, 'id' | 'state' | 'lines'>[]; read?: VariationsOnHand },
): Promise<SalesStockResult> {
  const result: SalesStockResult = { recorded: 0, changedItemIds: [], locationIsDefault: true, oversold: [], audit: [] };
  const merged = mergedSaleMovements(input.orders);
  if (merged.length === 0) return result;
  // Variations, the default location and units on hand: one read (a second and third only before the first location).
  if (input.read) rememberDefaultLocation(tx, input.merchantId, input.read);
  const found = input.read ?? (await findVariationsOnHand(tx, input.merchantId, [...new Set(merged.map((m) => m.variationId))]));
  const variations = found.variations;
  const movements = merged.filter((m) => variations.get(m.variationId)?.trackStock === true);
  if (movements.length === 0) return result;
  const tracked = [...new Set(movements.map((m) => m.variationId))];
  const location = found.location ?? (await ensureDefaultLocation(tx, input.merchantId));
  const before = found.location
    ? new Map(tracked.map((id) => [id, found.onHand.get(id) ?? 0]))
    : await onHandAt(tx, input.merchantId, location.id, tracked);
  const inserted = await tx.query<{ variation_id: string; item_id: string; quantity: number }>(
    prepared(
      'sale_stock_insert',
      `INSERT INTO stock_movements (id, merchant_id, location_id, item_id, variation_id, kind, quantity, counted, source_id, note, actor, created_at)
     SELECT id, $1, $2, item_id, variation_id, 'sale', quantity, NULL, source_id, NULL, $3, $4
       FROM unnest($5::text[], $6::text[], $7::text[], $8::int[], $9::text[]) AS t(id, item_id, variation_id, quantity, source_id)
     ON CONFLICT (merchant_id, source_id, variation_id, kind) DO NOTHING
     RETURNING variation_id, item_id, quantity`,
    ),
    [
      input.merchantId,
      location.id,
      input.actor,
      input.occurredAt.toISOString(),
      movements.map(() => newId('stockMovement')),
      movements.map((m) => variations.get(m.variationId)!.itemId),
      movements.map((m) => m.variationId),
      movements.map((m) => m.quantity),
      movements.map((m) => m.sourceId),
    ],
  );
  result.recorded = inserted.rows.length;
  if (result.recorded === 0) return result;
  const after = new Map(before);
  for (const r of inserted.rows) after.set(r.variation_id, (after.get(r.variation_id) ?? 0) + Number(r.quantity));
  for (const [variationId, onHand] of after) {
    if (onHand < 0 && (before.get(variationId) ?? 0) > onHand) result.oversold.push({ variationId, locationId: location.id, onHand });
  }
  result.changedItemIds = [...new Set(inserted.rows.map((r) => r.item_id))];
  // Sales are audited by their orders' own rows ('order.stored'); an oversell gets one row of its own, appended by the
  // caller with those (one statement for all).
  if (result.oversold.length > 0) {
    result.audit.push({
      merchantId: input.merchantId,
      actor: input.actor,
      registerId: input.actor.startsWith('register:') ? input.actor.slice(9) : null,
      action: 'inventory.oversold',
      entityType: 'stock_movement',
      entityId: [...new Set(movements.map((m) => m.sourceId))].join(',').slice(0, 200),
      occurredAt: input.occurredAt,
      data: { locationId: location.id, oversold: result.oversold },
    });
  }
  return result;
}
