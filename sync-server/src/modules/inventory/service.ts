/**
 * Inventory: the units on hand of a variation at a location are the SUM of its stock movements. Movements
 * are append-only, so two registers selling the last item offline both sync: the oversell is reported, never refused.
 * This module writes `stock_movements` (and through its trigger `stock_levels`), `stock_thresholds` and `locations`,
 * and nothing else; it reads `catalog_items` (which variations exist and track stock) without writing it.
 *
 * Inside a change someone opened (`m`, kernel/mutation.ts), so the stock moves exactly when that change commits:
 *
 *     recordStockMovements(m, {
 *       locationId?: string,            // loc_…; default: the merchant's default location (created on first use)
 *       movements: [
 *         { variationId, kind: 'sale' | 'return' | 'receive' | 'adjust', quantity: number (signed: sale < 0, return > 0), sourceId, note? }
 *       | { variationId, kind: 'count', counted: number (units counted, ≥ 0), sourceId, note? }
 *       ],
 *     }) → Promise<{ recorded, duplicates, skipped, oversold, changedItemIds, locationIsDefault }>
 *
 * The merchant, the actor (`staff:<id>` | `app:<id>` | `register:<id>` | `system`, for the audit) and the time are the
 * mutation's.
 * - Idempotent per (sourceId, variationId, kind): recording the same movement again is counted in `duplicates` and
 *   changes nothing (e.g. an order pushed twice, a refund retried). Movements of one call with the same key are summed.
 * - Variations that do not exist (`unknown_variation`) or do not track stock (`not_tracked`) are returned in `skipped`,
 *   never thrown: a sale must always sync. Callers that must refuse them (the staff API) use {@link recordStockRequest}.
 * - `oversold`: variations whose units on hand fell below zero with this call (also written to the audit log).
 * - Audit: one `inventory.recorded` row per call, except for calls of sale movements only without an oversell (their
 *   order's own audit row records them).
 * - The catalog items' `stockOnHand` is NOT touched here (the catalog module owns `catalog_items`): the items whose
 *   stock moved are returned in `changedItemIds` with `locationIsDefault`, and the caller — a workflow, e.g.
 *   workflows/stock-change.ts `recordStockChange` — has the catalog re-stamp them (`refreshStockOnHand`).
 *
 * Helpers: {@link saleMovementsOfOrder} (an order's lines → sale movements), {@link stockLevels},
 * {@link ensureDefaultLocation}.
 */
import { newId, type Order, type StockLevel, type StockMovementKind } from '../../../../core/index.ts';
import { jsonValue, prepared, readTogether, transactionMemo, type Queryable, type ReadPart } from '../../platform/db/db.ts';
import { ProblemError, type FieldError } from '../../platform/http/problem.ts';
import { actorFromString, openMutation, type Mutation } from '../../kernel/mutation.ts';
import { SqlFilter } from '../../platform/db/sql-filter.ts';

export type StockMovementInput =
  | { variationId: string; kind: Exclude<StockMovementKind, 'count'>; quantity: number; sourceId: string; note?: string }
  | { variationId: string; kind: 'count'; counted: number; sourceId: string; note?: string };

export interface RecordStockMovementsInput {
  /** loc_…; default: the merchant's default location (created on first use). */
  locationId?: string;
  movements: readonly StockMovementInput[];
}

/** A stock movement as stored and listed. */
export interface StockMovement {
  id: string;
  locationId: string;
  itemId: string;
  variationId: string;
  kind: StockMovementKind;
  quantity: number;
  counted: number | null;
  sourceId: string;
  note: string | null;
  actor: string;
  createdAt: string;
}

export interface RecordStockMovementsResult {
  recorded: StockMovement[];
  duplicates: number;
  skipped: { variationId: string; reason: 'unknown_variation' | 'not_tracked' }[];
  oversold: { variationId: string; locationId: string; onHand: number }[];
  changedItemIds: string[];
  /** Whether the movements were at the merchant's default location (whose stock the catalog items carry). */
  locationIsDefault: boolean;
}

/** Thrown for a location that is not the merchant's. */
export class InventoryError extends Error {
  override name = 'InventoryError';
  constructor(
    readonly code: 'unknown_location',
    message: string,
  ) {
    super(message);
  }
}

export interface Location {
  id: string;
  name: string;
  isDefault: boolean;
  createdAt: string;
}

interface LocationRow {
  id: string;
  name: string;
  is_default: boolean;
  created_at: Date;
}
const toLocation = (r: LocationRow): Location => ({
  id: r.id,
  name: r.name,
  isDefault: r.is_default,
  createdAt: new Date(r.created_at).toISOString(),
});

/** The merchant's default location ("Main location"), created on first use. */
export async function ensureDefaultLocation(tx: Queryable, merchantId: string): Promise<Location> {
  // Locations are never edited or removed: once known in a transaction, the default stays the default.
  const memo = transactionMemo(tx);
  const key = `default-location:${merchantId}`;
  const known = memo?.get(key) as Location | undefined;
  if (known) return known;
  const location = await findOrCreateDefaultLocation(tx, merchantId);
  memo?.set(key, location);
  return location;
}

async function findOrCreateDefaultLocation(tx: Queryable, merchantId: string): Promise<Location> {
  const found = await tx.query<LocationRow>('SELECT id, name, is_default, created_at FROM locations WHERE merchant_id = $1 AND is_default', [
    merchantId,
  ]);
  if (found.rows[0]) return toLocation(found.rows[0]);
  await tx.query(`INSERT INTO locations (id, merchant_id, name, is_default) VALUES ($1, $2, 'Main location', true) ON CONFLICT DO NOTHING`, [
    newId('location'),
    merchantId,
  ]);
  const again = await tx.query<LocationRow>('SELECT id, name, is_default, created_at FROM locations WHERE merchant_id = $1 AND is_default', [
    merchantId,
  ]);
  return toLocation(again.rows[0]!);
}

/** The merchant's locations, default first. */
export async function listLocations(db: Queryable, merchantId: string): Promise<Location[]> {
  await ensureDefaultLocation(db, merchantId);
  const { rows } = await db.query<LocationRow>(
    'SELECT id, name, is_default, created_at FROM locations WHERE merchant_id = $1 ORDER BY is_default DESC, created_at, id',
    [merchantId],
  );
  return rows.map(toLocation);
}

/** Resolves `locationId` (or the default) for `merchantId`. @throws InventoryError unknown_location. */
export async function resolveLocation(tx: Queryable, merchantId: string, locationId: string | undefined): Promise<Location> {
  const fallback = await ensureDefaultLocation(tx, merchantId);
  if (!locationId || locationId === fallback.id) return fallback;
  const { rows } = await tx.query<LocationRow>('SELECT id, name, is_default, created_at FROM locations WHERE id = $1 AND merchant_id = $2', [
    locationId,
    merchantId,
  ]);
  if (!rows[0]) throw new InventoryError('unknown_location', `location ${locationId} is not a location of this store`);
  return toLocation(rows[0]);
}

/** Where each variation lives: its item and whether it tracks stock (soft-deleted items included: sales must count). */
export async function findVariations(
  tx: Queryable,
  merchantId: string,
  variationIds: readonly string[],
): Promise<Map<string, { itemId: string; trackStock: boolean; deleted: boolean }>> {
  const out = new Map<string, { itemId: string; trackStock: boolean; deleted: boolean }>();
  if (variationIds.length === 0) return out;
  // One probe of the GIN index on the variation ids per id (a `?|` of many ids is priced above a pass over every item,
  // which the planner then takes: 1 s for 500 ids at 50,000 items). OFFSET 0 keeps the probe inside the loop over the
  // ids: flattened, the planner may turn it inside out (every item, then the ids).
  const { rows } = await tx.query<{ item_id: string; variation_id: string; track_stock: boolean | null; deleted: boolean }>(
    prepared(
      'find_variations',
      `SELECT f.item_id, k.id AS variation_id, f.track_stock, f.deleted
       FROM unnest($2::text[]) AS k(id)
            CROSS JOIN LATERAL (SELECT ci.id AS item_id, (v->>'trackStock')::boolean AS track_stock, ci.deleted
                                  FROM catalog_items ci CROSS JOIN LATERAL jsonb_array_elements(ci.data->'variations') v
                                 WHERE jsonb_path_query_array(ci.data, '$.variations[*].id') ? k.id AND ci.merchant_id = $1 AND v->>'id' = k.id
                                OFFSET 0) f`,
    ),
    [merchantId, [...new Set(variationIds)]],
  );
  for (const r of rows) {
    const known = out.get(r.variation_id);
    // A live item wins over a deleted one should an id ever appear twice.
    if (!known || (known.deleted && !r.deleted))
      out.set(r.variation_id, { itemId: r.item_id, trackStock: r.track_stock === true, deleted: r.deleted });
  }
  return out;
}

/** Variations found for sales' stock, their units on hand at the default location, and that location. */
export interface VariationsOnHand {
  variations: Map<string, { itemId: string; trackStock: boolean; deleted: boolean }>;
  /** Null when the merchant has no default location yet (`onHand` is then empty) or no variation was found. */
  location: Location | null;
  onHand: Map<string, number>;
}

/**
 * {@link findVariationsOnHand}'s read as a part of a combined read (platform/db `readTogether`), for a caller that
 * reads other things before the same write; hand the result to {@link rememberDefaultLocation}.
 */
export function variationsOnHandPart(merchantId: string, variationIds: readonly string[]): ReadPart<VariationsOnHand> {
  return {
    sql: `SELECT coalesce(json_agg(json_build_object('itemId', x.item_id, 'variationId', x.variation_id, 'trackStock', x.track_stock, 'deleted', x.deleted,
                     'locationId', x.location_id, 'locationName', x.location_name, 'locationCreatedAt', x.location_created_at, 'onHand', x.on_hand)), '[]'::json)
       FROM (WITH loc AS (SELECT id, name, created_at FROM locations WHERE merchant_id = $1 AND is_default LIMIT 1)
             SELECT ci.id AS item_id, v->>'id' AS variation_id, (v->>'trackStock')::boolean AS track_stock, ci.deleted,
                    loc.id AS location_id, loc.name AS location_name, loc.created_at AS location_created_at, sl.on_hand
               FROM catalog_items ci
                    CROSS JOIN LATERAL jsonb_array_elements(ci.data->'variations') v
                    LEFT JOIN loc ON true
                    LEFT JOIN stock_levels sl ON sl.merchant_id = $1 AND sl.location_id = loc.id AND sl.variation_id = v->>'id'
              WHERE jsonb_path_query_array(ci.data, '$.variations[*].id') ?| $2::text[] AND ci.merchant_id = $1 AND v->>'id' = ANY($2::text[])) x`,
    params: [merchantId, [...new Set(variationIds)]],
    parse: (value) => {
      const rows = jsonValue<
        {
          itemId: string;
          variationId: string;
          trackStock: boolean | null;
          deleted: boolean;
          locationId: string | null;
          locationName: string | null;
          locationCreatedAt: string | null;
          onHand: number | string | null;
        }[]
      >(value);
      const variations = new Map<string, { itemId: string; trackStock: boolean; deleted: boolean }>();
      const onHand = new Map<string, number>();
      let location: Location | null = null;
      for (const r of rows) {
        const known = variations.get(r.variationId);
        // A live item wins over a deleted one should an id ever appear twice.
        if (!known || (known.deleted && !r.deleted))
          variations.set(r.variationId, { itemId: r.itemId, trackStock: r.trackStock === true, deleted: r.deleted });
        if (r.locationId !== null) {
          location ??= toLocation({ id: r.locationId, name: r.locationName!, is_default: true, created_at: new Date(r.locationCreatedAt!) });
          onHand.set(r.variationId, Number(r.onHand ?? 0));
        }
      }
      return { variations, location, onHand };
    },
  };
}

/** Remembers for the transaction the default location a {@link variationsOnHandPart} found, as {@link ensureDefaultLocation} does. */
export function rememberDefaultLocation(tx: Queryable, merchantId: string, found: VariationsOnHand): void {
  if (found.location) transactionMemo(tx)?.set(`default-location:${merchantId}`, found.location);
}

/**
 * For sales' stock, in one statement: the variations among `variationIds` (as {@link findVariations}) with their units
 * on hand at the merchant's default location, and that location — remembered for the transaction as
 * {@link ensureDefaultLocation} does. `location` is null when the merchant has no default location yet (the caller
 * creates it with ensureDefaultLocation; `onHand` is then empty) or when no variation was found.
 */
export async function findVariationsOnHand(tx: Queryable, merchantId: string, variationIds: readonly string[]): Promise<VariationsOnHand> {
  if (variationIds.length === 0) return { variations: new Map(), location: null, onHand: new Map() };
  const [found] = await readTogether(tx, 'variations_on_hand', [variationsOnHandPart(merchantId, variationIds)]);
  rememberDefaultLocation(tx, merchantId, found);
  return found;
}

/**
 * Units on hand per variation at `locationId` (missing variations have 0), read from `stock_levels`: the running sum of
 * the stock movements, kept by a trigger in the same transaction as each movement (migration 0012).
 */
export async function onHandAt(tx: Queryable, merchantId: string, locationId: string, variationIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>(variationIds.map((id) => [id, 0]));
  if (variationIds.length === 0) return out;
  const { rows } = await tx.query<{ variation_id: string; on_hand: number | string }>(
    `SELECT variation_id, on_hand FROM stock_levels
      WHERE merchant_id = $1 AND location_id = $2 AND variation_id = ANY($3::text[])`,
    [merchantId, locationId, [...new Set(variationIds)]],
  );
  for (const r of rows) out.set(r.variation_id, Number(r.on_hand));
  return out;
}

interface MovementRow {
  id: string;
  location_id: string;
  item_id: string;
  variation_id: string;
  kind: StockMovementKind;
  quantity: number;
  counted: number | null;
  source_id: string;
  note: string | null;
  actor: string;
  created_at: Date;
}
export const toMovement = (r: MovementRow): StockMovement => ({
  id: r.id,
  locationId: r.location_id,
  itemId: r.item_id,
  variationId: r.variation_id,
  kind: r.kind,
  quantity: Number(r.quantity),
  counted: r.counted === null ? null : Number(r.counted),
  sourceId: r.source_id,
  note: r.note,
  actor: r.actor,
  createdAt: new Date(r.created_at).toISOString(),
});

/**
 * Inserts `movements` (known, tracked variations at `locationId`) in one statement; a count's quantity is what it
 * counted less `onHand` (variation id → units before it). Movements already recorded (same source, variation and kind)
 * are left as they are. Returns, per movement in the order given, its stored row (undefined for a duplicate).
 */
async function insertMovements(
  m: Mutation,
  locationId: string,
  movements: readonly { m: StockMovementInput; itemId: string }[],
  onHand: ReadonlyMap<string, number>,
): Promise<(MovementRow | undefined)[]> {
  if (movements.length === 0) return [];
  const ids = movements.map(() => newId('stockMovement'));
  const column = <T>(f: (k: { m: StockMovementInput; itemId: string }) => T) => movements.map(f);
  const { rows } = await m.tx.query<MovementRow>(
    prepared(
      'stock_movements_insert_many',
      `INSERT INTO stock_movements (id, merchant_id, location_id, item_id, variation_id, kind, quantity, counted, source_id, note, actor, created_at)
     SELECT id, $1, $2, item_id, variation_id, kind, quantity, counted, source_id, note, $3, $4
       FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::int[], $11::text[], $12::text[]) AS t(id, item_id, variation_id, kind, quantity, counted, source_id, note)
     ON CONFLICT (merchant_id, source_id, variation_id, kind) DO NOTHING
     RETURNING id, location_id, item_id, variation_id, kind, quantity, counted, source_id, note, actor, created_at`,
    ),
    [
      m.merchantId,
      locationId,
      m.actor,
      m.now.toISOString(),
      ids,
      column((k) => k.itemId),
      column((k) => k.m.variationId),
      column((k) => k.m.kind),
      column((k) => (k.m.kind === 'count' ? k.m.counted - (onHand.get(k.m.variationId) ?? 0) : k.m.quantity)),
      column((k) => (k.m.kind === 'count' ? k.m.counted : null)),
      column((k) => k.m.sourceId),
      column((k) => k.m.note ?? null),
    ],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id));
}

/** Records stock movements inside the mutation `m`; see the top of this file for the contract. */
export async function recordStockMovements(m: Mutation, input: RecordStockMovementsInput): Promise<RecordStockMovementsResult> {
  const { tx, merchantId } = m;
  const location = await resolveLocation(tx, merchantId, input.locationId);

  // Same (sourceId, variation, kind) within one call: quantities add up, the last count wins.
  const merged = new Map<string, StockMovementInput>();
  for (const m of input.movements) {
    const key = `${m.sourceId}\u0000${m.variationId}\u0000${m.kind}`;
    const prev = merged.get(key);
    if (prev && prev.kind !== 'count' && m.kind !== 'count') merged.set(key, { ...m, quantity: prev.quantity + m.quantity });
    else merged.set(key, m);
  }
  const variations = await findVariations(
    tx,
    merchantId,
    [...merged.values()].map((m) => m.variationId),
  );
  const result: RecordStockMovementsResult = {
    recorded: [],
    duplicates: 0,
    skipped: [],
    oversold: [],
    changedItemIds: [],
    locationIsDefault: location.isDefault,
  };
  const touched = new Map<string, string>(); // variationId → itemId
  const before = new Map<string, number>();

  const known: { m: StockMovementInput; itemId: string }[] = [];
  for (const m of merged.values()) {
    const variation = variations.get(m.variationId);
    if (!variation) {
      result.skipped.push({ variationId: m.variationId, reason: 'unknown_variation' });
      continue;
    }
    if (!variation.trackStock) {
      result.skipped.push({ variationId: m.variationId, reason: 'not_tracked' });
      continue;
    }
    known.push({ m, itemId: variation.itemId });
  }
  // A variation moved once in this call (the usual case: a count, a receipt): every movement in one INSERT, each
  // reading the units on hand before the call. Moved twice (say a receipt and a count), each movement reads what the
  // ones before it left, so they are written one by one.
  const once = new Set(known.map((k) => k.m.variationId)).size === known.length;
  let rows: (MovementRow | undefined)[] = [];
  if (once) {
    const onHand = await onHandAt(
      tx,
      merchantId,
      location.id,
      known.map((k) => k.m.variationId),
    );
    for (const [variationId, units] of onHand) before.set(variationId, units);
    rows = await insertMovements(m, location.id, known, onHand);
  } else {
    for (const k of known) {
      const onHand = await onHandAt(tx, merchantId, location.id, [k.m.variationId]);
      if (!before.has(k.m.variationId)) before.set(k.m.variationId, onHand.get(k.m.variationId) ?? 0);
      rows.push(...(await insertMovements(m, location.id, [k], onHand)));
    }
  }
  for (const [i, k] of known.entries()) {
    const row = rows[i];
    if (!row) {
      result.duplicates += 1;
      continue;
    }
    result.recorded.push(toMovement(row));
    touched.set(k.m.variationId, k.itemId);
  }
  if (result.recorded.length === 0) return result;

  const after = await onHandAt(tx, merchantId, location.id, [...touched.keys()]);
  for (const [variationId, onHand] of after) {
    if (onHand < 0 && (before.get(variationId) ?? 0) > onHand) result.oversold.push({ variationId, locationId: location.id, onHand });
  }
  const sources = [...new Set(result.recorded.map((r) => r.sourceId))];
  // Sales are audited by their order's own row ('order.stored'); everything else, and any oversell, gets one here.
  const onlySales = result.recorded.every((r) => r.kind === 'sale');
  if (!onlySales || result.oversold.length > 0)
    await m.audit({
      action: onlySales ? 'inventory.oversold' : 'inventory.recorded',
      entityType: 'stock_movement',
      entityId: sources.join(',').slice(0, 200),
      data: {
        locationId: location.id,
        movements: result.recorded.map((r) => ({ id: r.id, variationId: r.variationId, kind: r.kind, quantity: r.quantity })),
        ...(result.oversold.length > 0 ? { oversold: result.oversold } : {}),
      },
    });
  result.changedItemIds = [...new Set(touched.values())];
  return result;
}

/** An order's lines as sale movements (negative quantities), keyed by the order id. Returns none for a canceled order. */
export function saleMovementsOfOrder(order: Pick<Order, 'id' | 'state' | 'lines'>): StockMovementInput[] {
  if (order.state === 'canceled' || order.state === 'open') return [];
  return order.lines.map((line) => ({ variationId: line.variationId, kind: 'sale' as const, quantity: -line.quantity, sourceId: order.id }));
}

/** One row of the stock list: a tracked variation at a location (core `stockLevelSchema`). */
export type { StockLevel };

/**
 * Units on hand of the merchant's tracked variations (of live items) at one location, ordered by variation id, with
 * their low-stock thresholds. `lowOnly` keeps those at or below their threshold. Keyset pagination by variation id.
 */
export async function stockLevels(
  db: Queryable,
  merchantId: string,
  options: { locationId: string; variationId?: string; itemId?: string; lowOnly?: boolean; after?: string; limit: number },
): Promise<StockLevel[]> {
  const filter = new SqlFilter([]);
  const merchant = filter.param(merchantId);
  const location = filter.param(options.locationId);
  filter.add(`ci.merchant_id = ${merchant}`).add('NOT ci.deleted').add(`(v->>'trackStock')::boolean`);
  if (options.variationId) filter.add(`v->>'id' = ?`, options.variationId);
  if (options.itemId) filter.add('ci.id = ?', options.itemId);
  if (options.after) filter.add(`v->>'id' > ?`, options.after);
  if (options.lowOnly) filter.add('t.threshold IS NOT NULL AND COALESCE(s.on_hand, 0) <= t.threshold');
  const limit = filter.param(options.limit);
  const { rows } = await db.query<{
    item_id: string;
    item_name: string;
    variation_id: string;
    variation_name: string;
    sku: string | null;
    on_hand: number | string | null;
    threshold: number | null;
  }>(
    `SELECT ci.id AS item_id, ci.data->>'name' AS item_name, v->>'id' AS variation_id, v->>'name' AS variation_name, v->>'sku' AS sku,
            s.on_hand, t.threshold
       FROM catalog_items ci
       CROSS JOIN LATERAL jsonb_array_elements(ci.data->'variations') v
       LEFT JOIN stock_levels s ON s.merchant_id = ${merchant} AND s.location_id = ${location} AND s.variation_id = v->>'id'
       LEFT JOIN stock_thresholds t ON t.merchant_id = ${merchant} AND t.location_id = ${location} AND t.variation_id = v->>'id'
      WHERE ${filter.where}
      ORDER BY v->>'id' LIMIT ${limit}`,
    filter.params,
  );
  return rows.map((r) => {
    const onHand = Number(r.on_hand ?? 0);
    const threshold = r.threshold === null ? null : Number(r.threshold);
    return {
      itemId: r.item_id,
      itemName: r.item_name,
      variationId: r.variation_id,
      variationName: r.variation_name,
      sku: r.sku,
      locationId: options.locationId,
      onHand,
      lowStockThreshold: threshold,
      isLow: threshold !== null && onHand <= threshold,
    };
  });
}

/**
 * Refuses lines naming variations that do not exist (or whose item is deleted) or do not track stock: 400 naming
 * `<list>.<i>.variationId` (`list` is the body's field, e.g. `lines`, `thresholds`).
 * @throws ProblemError 400 `validation_error`.
 */
async function checkTrackedVariations(
  tx: Queryable,
  merchantId: string,
  list: string,
  variationIds: readonly string[],
  untracked: (variationId: string) => string,
): Promise<void> {
  const known = await findVariations(tx, merchantId, variationIds);
  const errors: FieldError[] = variationIds.flatMap((variationId, i) => {
    const v = known.get(variationId);
    if (!v || v.deleted) return [{ path: `${list}.${i}.variationId`, message: `variation ${variationId} does not exist` }];
    if (!v.trackStock) return [{ path: `${list}.${i}.variationId`, message: untracked(variationId) }];
    return [];
  });
  if (errors.length > 0)
    throw new ProblemError(
      400,
      'validation_error',
      `Invalid ${errors.map((e) => e.path).join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
      errors,
    );
}

/** `locationId` (or the default) as a 400 naming `locationId` when it is not the merchant's. */
async function requestLocation(tx: Queryable, merchantId: string, locationId: string | undefined): Promise<Location> {
  try {
    return await resolveLocation(tx, merchantId, locationId);
  } catch (err) {
    if (err instanceof InventoryError)
      throw new ProblemError(400, 'validation_error', `Invalid locationId: ${err.message}.`, [{ path: 'locationId', message: err.message }]);
    throw err;
  }
}

/** The stock level of each variation at a location (one row per tracked variation of a live item), in the given order. */
async function levelsOf(tx: Queryable, merchantId: string, locationId: string, variationIds: readonly string[]): Promise<StockLevel[]> {
  const levels: StockLevel[] = [];
  for (const variationId of variationIds) levels.push(...(await stockLevels(tx, merchantId, { locationId, variationId, limit: 1 })));
  return levels;
}

/** What the staff API's receive, adjust and count answer: the movements, any oversell and the new levels. */
export interface StockRequestResult extends RecordStockMovementsResult {
  levels: StockLevel[];
}

/**
 * A staff request to receive, adjust or count stock (POST /api/pos/catalog/inventory/{kind}): one movement per line at
 * the location (default: the default location), all under one source id `<kind>:<ULID>`; note on every movement.
 * Quantities: receive and adjust are signed unit deltas, count is the units counted (`counted`).
 * @throws ProblemError 400 naming `locationId` or `lines.<i>.variationId` (unknown, deleted or not tracking stock).
 */
export async function recordStockRequest(
  m: Mutation,
  kind: 'receive' | 'adjust' | 'count',
  body: {
    locationId?: string | undefined;
    note?: string | undefined;
    lines: readonly ({ variationId: string; quantity: number } | { variationId: string; counted: number })[];
  },
): Promise<StockRequestResult> {
  const location = await requestLocation(m.tx, m.merchantId, body.locationId);
  const variationIds = body.lines.map((l) => l.variationId);
  await checkTrackedVariations(
    m.tx,
    m.merchantId,
    'lines',
    variationIds,
    (id) => `variation ${id} does not track stock (set trackStock on the item first)`,
  );
  const sourceId = `${kind}:${newId('stockMovement').slice(4)}`;
  const note = body.note ? { note: body.note } : {};
  const movements: StockMovementInput[] = body.lines.map((l) =>
    kind === 'count'
      ? { variationId: l.variationId, kind, counted: (l as { counted: number }).counted, sourceId, ...note }
      : { variationId: l.variationId, kind, quantity: (l as { quantity: number }).quantity, sourceId, ...note },
  );
  const recorded = await recordStockMovements(m, { locationId: location.id, movements });
  return { ...recorded, levels: await levelsOf(m.tx, m.merchantId, location.id, variationIds) };
}

/**
 * Sets (or, with `null`, removes) low-stock thresholds at a location (default: the default location), audited
 * `inventory.thresholds_set`. Returns the levels of the variations, in the given order.
 * @throws ProblemError 400 naming `locationId` or `thresholds.<i>.variationId`.
 */
export async function setStockThresholds(
  m: Mutation,
  body: { locationId?: string | undefined; thresholds: readonly { variationId: string; lowStockThreshold: number | null }[] },
): Promise<StockLevel[]> {
  const { tx, merchantId, now } = m;
  const location = await requestLocation(tx, merchantId, body.locationId);
  const variationIds = body.thresholds.map((t) => t.variationId);
  await checkTrackedVariations(tx, merchantId, 'thresholds', variationIds, (id) => `variation ${id} does not track stock`);
  for (const t of body.thresholds) {
    if (t.lowStockThreshold === null) {
      await tx.query('DELETE FROM stock_thresholds WHERE merchant_id = $1 AND location_id = $2 AND variation_id = $3', [
        merchantId,
        location.id,
        t.variationId,
      ]);
    } else {
      await tx.query(
        `INSERT INTO stock_thresholds (merchant_id, location_id, variation_id, threshold, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (merchant_id, location_id, variation_id) DO UPDATE SET threshold = EXCLUDED.threshold, updated_at = EXCLUDED.updated_at`,
        [merchantId, location.id, t.variationId, t.lowStockThreshold, now.toISOString()],
      );
    }
  }
  await m.audit({ action: 'inventory.thresholds_set', entityType: 'location', entityId: location.id, data: { thresholds: body.thresholds } });
  return levelsOf(tx, merchantId, location.id, variationIds);
}

/**
 * Adds a stock location (never the default: that one is created on first use), audited `location.created`.
 * @throws ProblemError 409 `location_exists` when a location of the store has this name (case-insensitive).
 */
export async function createLocation(m: Mutation, name: string): Promise<Location> {
  await ensureDefaultLocation(m.tx, m.merchantId);
  const clash = await m.tx.query('SELECT 1 FROM locations WHERE merchant_id = $1 AND lower(name) = lower($2)', [m.merchantId, name]);
  if (clash.rows.length > 0) throw new ProblemError(409, 'location_exists', `A location named "${name}" exists already.`);
  const id = newId('location');
  const { rows } = await m.tx.query<LocationRow>(
    'INSERT INTO locations (id, merchant_id, name, is_default, created_at) VALUES ($1, $2, $3, false, $4) RETURNING id, name, is_default, created_at',
    [id, m.merchantId, name, m.now.toISOString()],
  );
  await m.audit({ action: 'location.created', entityType: 'location', entityId: id, data: { name } });
  return toLocation(rows[0]!);
}

/**
 * Units on hand at a location for the staff API's stock lists (GET /api/pos/catalog/inventory and …/low-stock): one
 * page of {@link stockLevels} after the variation id `after`, `limit` rows.
 * @throws ProblemError 400 naming `locationId` when it is not the merchant's.
 */
export async function stockLevelsPage(
  db: Queryable,
  merchantId: string,
  options: {
    locationId?: string | undefined;
    variationId?: string | undefined;
    itemId?: string | undefined;
    lowOnly?: boolean;
    after?: string | undefined;
    limit: number;
  },
): Promise<StockLevel[]> {
  const location = await requestLocation(db, merchantId, options.locationId);
  return stockLevels(db, merchantId, {
    locationId: location.id,
    ...(options.variationId ? { variationId: options.variationId } : {}),
    ...(options.itemId ? { itemId: options.itemId } : {}),
    ...(options.lowOnly ? { lowOnly: true } : {}),
    ...(options.after ? { after: options.after } : {}),
    limit: options.limit,
  });
}

/** Stock movements of the merchant, newest first; filters by variation, location, kind or source. */
export async function listStockMovements(
  db: Queryable,
  merchantId: string,
  options: { variationId?: string; locationId?: string; kind?: StockMovementKind; sourceId?: string; before?: [string, string]; limit: number },
): Promise<StockMovement[]> {
  const filter = new SqlFilter(['merchant_id = ?'], [merchantId]);
  if (options.variationId) filter.add('variation_id = ?', options.variationId);
  if (options.locationId) filter.add('location_id = ?', options.locationId);
  if (options.kind) filter.add('kind = ?', options.kind);
  if (options.sourceId) filter.add('source_id = ?', options.sourceId);
  if (options.before) filter.add('(created_at, id) < (?::timestamptz, ?::text)', options.before[0], options.before[1]);
  const limit = filter.param(options.limit);
  const { rows } = await db.query<MovementRow>(
    `SELECT id, location_id, item_id, variation_id, kind, quantity, counted, source_id, note, actor, created_at FROM stock_movements
      WHERE ${filter.where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    filter.params,
  );
  return rows.map(toMovement);
}

/**
 * How a change of stock reaches the catalog items' `stockOnHand`: the catalog re-stamps the items (new replication
 * sequence, `catalog.updated`). Inventory cannot call the catalog module itself (modules never import each other), so
 * the wiring connects it once (app.ts → workflows/stock-change.ts `connectSaleStockToCatalog`).
 */
export type StockRestamp = (m: Mutation, itemIds: readonly string[], atDefaultLocation: boolean) => Promise<void>;

let saleStockRestamp: StockRestamp | undefined;

/**
 * Connects {@link recordSaleStock} to the catalog re-stamp (idempotent; the last call wins). Transitional: the sale
 * paths of orders, invoices and pay links call {@link recordSaleStock} from inside their modules; once they are
 * workflows they call workflows/stock-change.ts `recordStockChange`, and this port goes.
 */
export function connectSaleStockRestamp(restamp: StockRestamp): void {
  saleStockRestamp = restamp;
}

/**
 * The stock side of a sale or a return of sold goods (inventory is the sum of stock movements): one
 * movement per line, kind `sale` (quantity taken off) or `return` (put back), keyed by `sourceId` (the order, refund,
 * invoice or pay request), at the default location, in the caller's transaction `tx`. Lines of untracked or custom
 * variations are skipped; recording the same source twice records nothing more. The items whose stock moved are
 * re-stamped through {@link connectSaleStockRestamp}. Returns true when an item's stock on hand changed (registers
 * should pull the catalog).
 */
export async function recordSaleStock(
  tx: Queryable,
  input: {
    merchantId: string;
    kind: 'sale' | 'return';
    sourceId: string;
    lines: readonly { variationId: string | null; quantity: number }[];
    actor: string;
    now: Date;
  },
): Promise<boolean> {
  const lines = input.lines.filter((l): l is { variationId: string; quantity: number } => l.variationId !== null && l.quantity > 0);
  if (lines.length === 0) return false;
  const m = await openMutation(tx, actorFromString(input.merchantId, input.actor), input.now);
  const result = await recordStockMovements(m, {
    movements: lines.map((l) => ({
      variationId: l.variationId,
      kind: input.kind,
      quantity: input.kind === 'sale' ? -l.quantity : l.quantity,
      sourceId: input.sourceId,
    })),
  });
  if (result.changedItemIds.length > 0) await saleStockRestamp?.(m, result.changedItemIds, result.locationIsDefault);
  return result.changedItemIds.length > 0;
}

/** Whether any stock movement of the merchant has this source id (e.g. the demo seed's `seed:opening-stock`). */
export async function hasStockMovementsOf(db: Queryable, merchantId: string, sourceId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM stock_movements WHERE merchant_id = $1 AND source_id = $2 LIMIT 1', [merchantId, sourceId]);
  return rows.length > 0;
}
