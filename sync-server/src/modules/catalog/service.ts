/**
 * Catalog writes: items with variations, modifier lists, tax rates and an image url. The catalog is
 * server-authoritative: every write takes a new replication sequence (`sync_seq`) and stamps `updated_at`, so the
 * registers pull it; deletion is soft (`deleted` → the register sees `_deleted: true`). Every write
 * appends an audit row and emits `catalog.updated` in the same transaction.
 *
 * `stockOnHand` of a tracked variation is always recomputed from the stock at the default location, never taken
 * from input: read from the inventory module's `stock_levels` (read only — inventory writes it, this module writes
 * `catalog_items`, `tax_rates` and `catalog_handles`). When stock moves, a workflow (workflows/stock-change.ts) has
 * {@link refreshStockOnHand} re-stamp the items.
 *
 * Writes take a {@link Mutation} (kernel/mutation.ts): its transaction holds the merchant's lock, its audit and outbox
 * helpers record the change, and `m.changed('catalog-items' | 'tax-rates')` tells the registers after the commit.
 */
import {
  catalogItemSchema,
  newId,
  taxRateSchema,
  apiCatalogItemSchema,
  apiTaxRateSchema,
  type ApiCatalogItem,
  type ApiTaxRate,
  type CatalogItem,
  type CatalogItemCreate,
  type CatalogItemUpdate,
  type CategorySummary,
  type ModifierList,
  type TaxRate,
  type Variation,
} from '../../../../core/index.ts';
import { prepared, type Queryable } from '../../platform/db/db.ts';
import { SqlFilter } from '../../platform/db/sql-filter.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError, type FieldError } from '../../platform/http/problem.ts';
import { appendAuditBatch } from '../../kernel/audit.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { emitEvents } from '../../kernel/outbox.ts';
import { likeContains } from '../../platform/db/sql-filter.ts';

/** A catalog item and a tax rate as the API returns them (core `apiCatalogItemSchema`, `apiTaxRateSchema`). */
export type { ApiCatalogItem, ApiTaxRate };

interface ItemRow {
  id: string;
  data: CatalogItem;
  updated_at: Date;
  deleted: boolean;
}

export const toApiItem = (r: { data: CatalogItem; updated_at: Date }): ApiCatalogItem => ({
  ...r.data,
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** The item (also when soft-deleted, with `deleted`), or undefined. */
export async function findItem(db: Queryable, merchantId: string, id: string): Promise<{ item: ApiCatalogItem; deleted: boolean } | undefined> {
  const { rows } = await db.query<ItemRow>('SELECT id, data, updated_at, deleted FROM catalog_items WHERE merchant_id = $1 AND id = $2', [
    merchantId,
    id,
  ]);
  const row = rows[0];
  return row ? { item: toApiItem(row), deleted: row.deleted } : undefined;
}

/** A live (not deleted) item. @throws ProblemError 404. */
export async function getItem(db: Queryable, merchantId: string, id: string): Promise<ApiCatalogItem> {
  const found = await findItem(db, merchantId, id);
  if (!found || found.deleted) throw new ProblemError(404, 'not_found', `Catalog item ${id} does not exist.`);
  return found.item;
}

/**
 * Units on hand per variation at the merchant's default location (0 when none is recorded, or no location exists
 * yet): a read of the inventory module's running sums (`stock_levels`, migration 0012), never a write.
 */
export async function onHandAtDefaultLocation(tx: Queryable, merchantId: string, variationIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>(variationIds.map((id) => [id, 0]));
  if (variationIds.length === 0) return out;
  const { rows } = await tx.query<{ variation_id: string; on_hand: number | string }>(
    `SELECT s.variation_id, s.on_hand FROM stock_levels s JOIN locations l ON l.id = s.location_id AND l.merchant_id = s.merchant_id AND l.is_default
      WHERE s.merchant_id = $1 AND s.variation_id = ANY($2::text[])`,
    [merchantId, [...new Set(variationIds)]],
  );
  for (const r of rows) out.set(r.variation_id, Number(r.on_hand));
  return out;
}

/** `stockOnHand` of tracked variations from the stock at the default location; removed from untracked ones. */
async function withStock(tx: Queryable, merchantId: string, item: CatalogItem): Promise<CatalogItem> {
  const tracked = item.variations.filter((v) => v.trackStock).map((v) => v.id);
  return withStockOf(item, await onHandAtDefaultLocation(tx, merchantId, tracked));
}

/**
 * Stores `item` (insert or update) with a new replication sequence, recomputing stock, and marks `catalog-items`
 * changed; appends no audit and emits no event (callers do). Returns the stored API shape.
 */
async function storeItem(m: Mutation, item: CatalogItem, deleted = false): Promise<ApiCatalogItem> {
  const stocked = await withStock(m.tx, m.merchantId, item);
  const { rows } = await m.tx.query<{ data: CatalogItem; updated_at: Date }>(
    `INSERT INTO catalog_items (merchant_id, id, data, sync_seq, updated_at, deleted) VALUES ($1, $2, $3::jsonb, nextval('sync_seq'), $4, $5)
     ON CONFLICT (merchant_id, id) DO UPDATE SET data = EXCLUDED.data, sync_seq = EXCLUDED.sync_seq, updated_at = EXCLUDED.updated_at, deleted = EXCLUDED.deleted
     RETURNING data, updated_at`,
    [m.merchantId, item.id, JSON.stringify(stocked), m.now.toISOString(), deleted],
  );
  m.changed('catalog-items');
  return toApiItem(rows[0]!);
}

async function announce(m: Mutation, action: string, item: ApiCatalogItem, deleted: boolean, data: Record<string, unknown> = {}): Promise<void> {
  await m.audit({ action, entityType: 'catalog_item', entityId: item.id, data: { name: item.name, ...data } });
  await m.emit('catalog.updated', { object: 'catalog_item', ...item, deleted });
}

/**
 * Re-stamps the items whose stock moved (after the inventory module recorded movements, in the same mutation): at the
 * default location their `stockOnHand` changes, so they get a new sequence; at any location a `catalog.updated` event
 * is emitted and the registers are told (`catalog-items`). Unknown ids are skipped.
 */
export async function refreshStockOnHand(m: Mutation, itemIds: readonly string[], atDefaultLocation: boolean): Promise<void> {
  for (const id of itemIds) {
    const found = await findItem(m.tx, m.merchantId, id);
    if (!found) continue;
    const item = atDefaultLocation ? await storeItem(m, stripStamps(found.item), found.deleted) : found.item;
    await m.emit('catalog.updated', { object: 'catalog_item', ...item, deleted: found.deleted });
    m.changed('catalog-items');
  }
}

function stripStamps(item: CatalogItem & { updatedAt?: string; syncSeq?: number }): CatalogItem {
  const { updatedAt: _u, syncSeq: _s, ...rest } = item;
  return rest;
}

/** The store's live tax rates by id (one read). */
export async function liveTaxRates(tx: Queryable, merchantId: string): Promise<Map<string, TaxRate>> {
  const { rows } = await tx.query<{ id: string; data: TaxRate }>('SELECT id, data FROM tax_rates WHERE merchant_id = $1 AND NOT deleted', [
    merchantId,
  ]);
  return new Map(rows.map((r) => [r.id, r.data]));
}

/**
 * The live items carrying each of `skus` (SKU → item ids; SKUs nobody carries are absent), in one statement: one probe
 * of the GIN index `catalog_items_skus` (migration 0150, without pending list since 0225) per SKU, so the cost is
 * O(SKUs · log catalog), never a pass over the catalog. The per-SKU form matters: with many SKUs in one `?|` the
 * planner prices the index above a scan of every item and evaluates the JSON path on each (1 s a chunk at 50,000);
 * OFFSET 0 keeps each probe inside the loop over the SKUs (flattened, the planner may turn the join inside out).
 * Relies on planner statistics: a large catalog never analyzed is planned with guesses (platform/db/statistics.ts).
 */
export async function itemsBySku(tx: Queryable, merchantId: string, skus: readonly string[]): Promise<Map<string, string[]>> {
  const owners = new Map<string, string[]>();
  if (skus.length === 0) return owners;
  const { rows } = await tx.query<{ sku: string; id: string }>(
    prepared(
      'catalog_items_by_sku',
      `SELECT k.sku, ci.id FROM unnest($2::text[]) AS k(sku)
       CROSS JOIN LATERAL (SELECT ci.id FROM catalog_items ci
                            WHERE jsonb_path_query_array(ci.data, '$.variations[*].sku') ? k.sku AND ci.merchant_id = $1 AND NOT ci.deleted
                           OFFSET 0) ci`,
    ),
    [merchantId, [...new Set(skus)]],
  );
  for (const r of rows) owners.set(r.sku, [...(owners.get(r.sku) ?? []), r.id]);
  return owners;
}

/**
 * What is wrong with the references of `item` (pure): tax rates that are not among the store's live `rates` or that
 * mix an inclusive rate with others, SKUs that another live item carries (`skuOwners`, from {@link itemsBySku}).
 * Empty when none.
 */
export function referenceErrors(
  item: CatalogItem,
  rates: ReadonlyMap<string, TaxRate>,
  skuOwners: ReadonlyMap<string, readonly string[]>,
): FieldError[] {
  const errors: FieldError[] = [];
  item.taxRateIds.forEach((id, i) => {
    if (!rates.has(id)) errors.push({ path: `taxRateIds.${i}`, message: `tax rate ${id} does not exist` });
  });
  const chosen = item.taxRateIds.map((id) => rates.get(id)).filter((r): r is TaxRate => r !== undefined);
  const inclusive = chosen.filter((r) => r.inclusive).length;
  if (inclusive > 1 || (inclusive === 1 && chosen.length > 1)) {
    errors.push({ path: 'taxRateIds', message: 'an item carries either exclusive tax rates or a single inclusive one' });
  }
  item.variations.forEach((v, i) => {
    if (v.sku === undefined) return;
    for (const owner of skuOwners.get(v.sku) ?? []) {
      if (owner !== item.id) errors.push({ path: `variations.${i}.sku`, message: `SKU ${v.sku} is already used by item ${owner}` });
    }
  });
  return errors;
}

/** The 400 `validation_error` of an item's {@link referenceErrors} (non-empty). */
export function invalidReferences(errors: readonly FieldError[]): ProblemError {
  return new ProblemError(
    400,
    'validation_error',
    `Invalid ${[...new Set(errors.map((e) => e.path))].join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
    [...errors],
  );
}

/** Validates references of an item against the store: tax rates exist and mix correctly; SKUs unique in the store. */
async function checkReferences(tx: Queryable, merchantId: string, item: CatalogItem): Promise<void> {
  const rates = await liveTaxRates(tx, merchantId);
  const skus = item.variations.map((v) => v.sku).filter((s): s is string => s !== undefined);
  const errors = referenceErrors(item, rates, await itemsBySku(tx, merchantId, skus));
  if (errors.length > 0) throw invalidReferences(errors);
}

/** Final check against the stored shape (bounds of ids and names). */
function asCatalogItem(candidate: unknown): CatalogItem {
  const parsed = catalogItemSchema.safeParse(candidate);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message }));
    throw new ProblemError(
      400,
      'validation_error',
      `Invalid ${errors.map((e) => e.path).join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
      errors,
    );
  }
  return parsed.data;
}

function assignedByServer(path: string): never {
  throw new ProblemError(
    400,
    'validation_error',
    `Invalid ${path}: ids are assigned by the server; send one only to keep an existing entry in an update.`,
    [{ path, message: 'is assigned by the server' }],
  );
}

type VariationIn = CatalogItemCreate['variations'][number];
type ListIn = CatalogItemCreate['modifierLists'][number];

function buildVariations(input: readonly VariationIn[], existing: readonly Variation[] | null): Variation[] {
  return input.map((v, i) => {
    let id: string;
    if (v.id !== undefined) {
      if (!existing) assignedByServer(`variations.${i}.id`);
      if (!existing.some((e) => e.id === v.id)) {
        throw new ProblemError(400, 'validation_error', `Invalid variations.${i}.id: ${v.id} is not a variation of this item.`, [
          { path: `variations.${i}.id`, message: 'is not a variation of this item' },
        ]);
      }
      id = v.id;
    } else {
      // On update, a variation sent without id keeps the id of the existing one with the same name.
      id = existing?.find((e) => e.name.toLowerCase() === v.name.toLowerCase() && !input.some((o) => o.id === e.id))?.id ?? newId('variation');
    }
    return {
      id,
      name: v.name,
      priceCents: v.priceCents,
      ...(v.sku !== undefined ? { sku: v.sku } : {}),
      ...(v.gtin !== undefined ? { gtin: v.gtin } : {}),
      trackStock: v.trackStock,
    };
  });
}

function buildModifierLists(input: readonly ListIn[], existing: readonly ModifierList[] | null): ModifierList[] {
  return input.map((l, i) => {
    const known = l.id !== undefined ? existing?.find((e) => e.id === l.id) : undefined;
    if (l.id !== undefined && !known) {
      if (!existing) assignedByServer(`modifierLists.${i}.id`);
      throw new ProblemError(400, 'validation_error', `Invalid modifierLists.${i}.id: ${l.id} is not a modifier list of this item.`, [
        { path: `modifierLists.${i}.id`, message: 'is not a modifier list of this item' },
      ]);
    }
    const modifiers = l.modifiers.map((m, j) => {
      if (m.id !== undefined && !existing) assignedByServer(`modifierLists.${i}.modifiers.${j}.id`);
      if (m.id !== undefined && !existing!.some((e) => e.modifiers.some((x) => x.id === m.id))) {
        throw new ProblemError(400, 'validation_error', `Invalid modifierLists.${i}.modifiers.${j}.id: ${m.id} is not a modifier of this item.`, [
          { path: `modifierLists.${i}.modifiers.${j}.id`, message: 'is not a modifier of this item' },
        ]);
      }
      return { id: m.id ?? newId('modifier'), name: m.name, priceCents: m.priceCents };
    });
    return { id: known?.id ?? newId('modifierList'), name: l.name, minSelected: l.minSelected, maxSelected: l.maxSelected, modifiers };
  });
}

/**
 * A new item as it would be stored (pure: ids assigned here, the stored shape checked; references and stock are not).
 * @throws ProblemError 400 for ids sent or a shape out of bounds.
 */
export function newItemOf(input: CatalogItemCreate, id: string = newId('catalogItem')): CatalogItem {
  return asCatalogItem({
    id,
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    category: input.category,
    kind: input.kind,
    variations: buildVariations(input.variations, null),
    modifierLists: buildModifierLists(input.modifierLists, null),
    taxRateIds: input.taxRateIds,
    ...(input.imageUrl !== undefined ? { imageUrl: input.imageUrl } : {}),
  });
}

/**
 * `current` with `patch` applied (pure; see {@link updateItem} for the rules): the stored shape checked, references and
 * stock not. @throws ProblemError 400 as {@link newItemOf}, or for ids that are not this item's.
 */
export function patchedItem(current: CatalogItem, patch: CatalogItemUpdate): CatalogItem {
  const next: Record<string, unknown> = { ...current };
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.description === null) delete next.description;
  else if (patch.description !== undefined) next.description = patch.description;
  if (patch.category !== undefined) next.category = patch.category;
  if (patch.kind !== undefined) next.kind = patch.kind;
  if (patch.variations !== undefined) next.variations = buildVariations(patch.variations, current.variations);
  if (patch.modifierLists !== undefined) next.modifierLists = buildModifierLists(patch.modifierLists, current.modifierLists);
  if (patch.taxRateIds !== undefined) next.taxRateIds = patch.taxRateIds;
  if (patch.imageUrl === null) delete next.imageUrl;
  else if (patch.imageUrl !== undefined) next.imageUrl = patch.imageUrl;
  return asCatalogItem(next);
}

/**
 * `item` with the stock of its tracked variations as given (`onHand`: variation id → units; 0 when absent) and no
 * `stockOnHand` on untracked ones (pure; what {@link storeItem} reads from the default location).
 */
export function withStockOf(item: CatalogItem, onHand: ReadonlyMap<string, number>): CatalogItem {
  return {
    ...item,
    variations: item.variations.map((v) => {
      const { stockOnHand: _, ...rest } = v;
      return v.trackStock ? { ...rest, stockOnHand: onHand.get(v.id) ?? 0 } : rest;
    }),
  };
}

function canonicalItem(item: CatalogItem): unknown {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, x]) => [k, sort(x)]),
          )
        : v;
  return sort(item);
}

/** Whether two items are the same document (key order aside). */
export function sameItem(a: CatalogItem, b: CatalogItem): boolean {
  return JSON.stringify(canonicalItem(a)) === JSON.stringify(canonicalItem(b));
}

/** Creates an item (ids assigned here). @throws ProblemError 400 for unknown tax rates, a SKU in use, ids sent. */
export async function createItem(m: Mutation, input: CatalogItemCreate, options: { id?: string; action?: string } = {}): Promise<ApiCatalogItem> {
  const item = newItemOf(input, options.id);
  await checkReferences(m.tx, m.merchantId, item);
  const stored = await storeItem(m, item);
  await announce(m, options.action ?? 'catalog_item.created', stored, false);
  return stored;
}

/**
 * Applies a partial update. Lists replace the stored ones; entries keep their ids when sent with them (or, for
 * variations, when their name matches). Returns `unchanged: true` (and writes nothing) when nothing differs.
 * @throws ProblemError 404 unknown or deleted item; 400 as {@link createItem}.
 */
export async function updateItem(
  m: Mutation,
  id: string,
  patch: CatalogItemUpdate,
  options: { action?: string } = {},
): Promise<{ item: ApiCatalogItem; unchanged: boolean }> {
  const { tx, merchantId } = m;
  const current = stripStamps(await getItem(tx, merchantId, id));
  const item = patchedItem(current, patch);
  await checkReferences(tx, merchantId, item);
  const restocked = await withStock(tx, merchantId, item);
  if (sameItem(restocked, current)) {
    return { item: await getItem(tx, merchantId, id), unchanged: true };
  }
  const stored = await storeItem(m, item);
  await announce(m, options.action ?? 'catalog_item.updated', stored, false, { fields: Object.keys(patch) });
  return { item: stored, unchanged: false };
}

/** One item of {@link storeItems}: the document as it is to be stored, and its audit entry (none: no entry). */
export interface ItemWrite {
  item: CatalogItem;
  audit?: { action: string; data?: Record<string, unknown> };
}

/**
 * Stores many live items inside `m` in a fixed number of statements, whatever their number: one multi-row upsert (each
 * item a new replication sequence, `updated_at` = `m.now`), the audit entries given in one chain segment (`data` gets
 * the item's `name`, as every catalog entry has), one `catalog.updated` event per item in one outbox insert, and
 * `catalog-items` marked changed. The documents are stored as given — `stockOnHand` included: the caller computed it
 * from the stock at the default location (withStockOf), or from the counts it records in the same mutation (the
 * import). Returns the stored API shapes, in the order given. An empty list writes nothing.
 */
export async function storeItems(m: Mutation, writes: readonly ItemWrite[]): Promise<ApiCatalogItem[]> {
  if (writes.length === 0) return [];
  const updatedAt = m.now.toISOString();
  await m.tx.query(
    prepared(
      'catalog_items_store_many',
      `INSERT INTO catalog_items (merchant_id, id, data, sync_seq, updated_at, deleted)
     SELECT $1, d->>'id', d, nextval('sync_seq'), $3, false FROM jsonb_array_elements($2::jsonb) AS t(d)
     ON CONFLICT (merchant_id, id) DO UPDATE SET data = EXCLUDED.data, sync_seq = EXCLUDED.sync_seq, updated_at = EXCLUDED.updated_at, deleted = EXCLUDED.deleted`,
    ),
    [m.merchantId, JSON.stringify(writes.map((w) => w.item)), updatedAt],
  );
  const stored = writes.map((w): ApiCatalogItem => ({ ...w.item, updatedAt }));
  await appendAuditBatch(
    m.tx,
    writes.flatMap((w) =>
      w.audit
        ? [
            {
              merchantId: m.merchantId,
              actor: m.actor,
              registerId: m.registerId ?? null,
              appId: m.appId ?? null,
              occurredAt: m.now,
              action: w.audit.action,
              entityType: 'catalog_item',
              entityId: w.item.id,
              data: { name: w.item.name, ...w.audit.data },
            },
          ]
        : [],
    ),
  );
  await emitEvents(
    m.tx,
    stored.map((item) => ({
      merchantId: m.merchantId,
      type: 'catalog.updated' as const,
      object: { object: 'catalog_item', ...item, deleted: false },
      occurredAt: m.now,
    })),
  );
  m.changed('catalog-items');
  return stored;
}

/** Soft-deletes an item (`_deleted: true` for registers). @throws ProblemError 404 unknown or already deleted. */
export async function deleteItem(m: Mutation, id: string): Promise<ApiCatalogItem> {
  const current = await getItem(m.tx, m.merchantId, id);
  const stored = await storeItem(m, stripStamps(current), true);
  await m.tx.query('DELETE FROM catalog_handles WHERE merchant_id = $1 AND item_id = $2', [m.merchantId, id]);
  await announce(m, 'catalog_item.deleted', stored, true);
  return stored;
}

/* ───────────────────────────── tax rates ───────────────────────────── */

const toApiRate = (r: { data: TaxRate; updated_at: Date }): ApiTaxRate => ({ ...r.data, updatedAt: new Date(r.updated_at).toISOString() });

async function storeRate(m: Mutation, rate: TaxRate, deleted: boolean, action: string): Promise<ApiTaxRate> {
  const parsed = taxRateSchema.parse(rate);
  const { rows } = await m.tx.query<{ data: TaxRate; updated_at: Date }>(
    `INSERT INTO tax_rates (merchant_id, id, data, sync_seq, updated_at, deleted) VALUES ($1, $2, $3::jsonb, nextval('sync_seq'), $4, $5)
     ON CONFLICT (merchant_id, id) DO UPDATE SET data = EXCLUDED.data, sync_seq = EXCLUDED.sync_seq, updated_at = EXCLUDED.updated_at, deleted = EXCLUDED.deleted
     RETURNING data, updated_at`,
    [m.merchantId, parsed.id, JSON.stringify(parsed), m.now.toISOString(), deleted],
  );
  const stored = toApiRate(rows[0]!);
  await m.audit({ action, entityType: 'tax_rate', entityId: rate.id, appId: null, data: { ...parsed } });
  await m.emit('catalog.updated', { object: 'tax_rate', ...stored, deleted });
  m.changed('tax-rates');
  return stored;
}

async function getRate(tx: Queryable, merchantId: string, id: string): Promise<TaxRate> {
  const { rows } = await tx.query<{ data: TaxRate }>('SELECT data FROM tax_rates WHERE merchant_id = $1 AND id = $2 AND NOT deleted', [
    merchantId,
    id,
  ]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `Tax rate ${id} does not exist.`);
  return rows[0].data;
}

/** Items (live) that carry tax rate `id`. */
async function itemsWithRate(tx: Queryable, merchantId: string, id: string): Promise<CatalogItem[]> {
  const { rows } = await tx.query<{ data: CatalogItem }>(
    `SELECT data FROM catalog_items WHERE merchant_id = $1 AND NOT deleted AND data->'taxRateIds' @> $2::jsonb ORDER BY id`,
    [merchantId, JSON.stringify([id])],
  );
  return rows.map((r) => r.data);
}

export async function createTaxRate(m: Mutation, input: { name: string; basisPoints: number; inclusive: boolean }): Promise<ApiTaxRate> {
  return storeRate(m, { id: newId('taxRate'), ...input }, false, 'tax_rate.created');
}

/**
 * Changes a tax rate. Making it inclusive while an item carries it with other rates is refused (409
 * `tax_configuration`), since such an item could no longer be priced.
 */
export async function updateTaxRate(m: Mutation, id: string, patch: Partial<Omit<TaxRate, 'id'>>): Promise<ApiTaxRate> {
  const current = await getRate(m.tx, m.merchantId, id);
  const next = { ...current, ...patch };
  if (next.inclusive && !current.inclusive) {
    const mixed = (await itemsWithRate(m.tx, m.merchantId, id)).filter((i) => i.taxRateIds.length > 1);
    if (mixed.length > 0) {
      throw new ProblemError(
        409,
        'tax_configuration',
        `Tax rate ${id} cannot become inclusive: ${mixed.map((i) => i.id).join(', ')} carry it with other rates.`,
      );
    }
  }
  return storeRate(m, next, false, 'tax_rate.updated');
}

/** Soft-deletes a tax rate. @throws ProblemError 409 `tax_rate_in_use` while live items carry it. */
export async function deleteTaxRate(m: Mutation, id: string): Promise<ApiTaxRate> {
  const current = await getRate(m.tx, m.merchantId, id);
  const users = await itemsWithRate(m.tx, m.merchantId, id);
  if (users.length > 0) {
    throw new ProblemError(
      409,
      'tax_rate_in_use',
      `Tax rate ${id} is used by ${users.length} item(s): ${users
        .slice(0, 10)
        .map((i) => i.id)
        .join(', ')}. Remove it from them first.`,
    );
  }
  return storeRate(m, current, true, 'tax_rate.deleted');
}

/** A category of live items with how many live items carry it (core `categorySummarySchema`). */
export type { CategorySummary };

/**
 * Up to `limit` categories of live items with their item counts, by name case-insensitively, strictly after the sort
 * key `after` (`[lower(name), name]`, from a previous page). Each row carries its `sortKey` for the next cursor.
 */
export async function listCategories(
  db: Queryable,
  merchantId: string,
  page: { limit: number; after?: readonly [string, string] },
): Promise<(CategorySummary & { sortKey: [string, string] })[]> {
  const params: unknown[] = [merchantId];
  let having = '';
  if (page.after) {
    params.push(page.after[0], page.after[1]);
    having = `HAVING (lower(data->>'category'), data->>'category') > ($2::text, $3::text)`;
  }
  params.push(page.limit);
  const { rows } = await db.query<{ name: string; sort_key: string; n: number | string }>(
    `SELECT data->>'category' AS name, lower(data->>'category') AS sort_key, COUNT(*) AS n FROM catalog_items WHERE merchant_id = $1 AND NOT deleted
     GROUP BY data->>'category' ${having} ORDER BY lower(data->>'category'), data->>'category' LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => ({ name: r.name, itemCount: Number(r.n), sortKey: [r.sort_key, r.name] }));
}

/**
 * Renames category `from` (exact spelling) to `to` on every live item that carries it — merging into `to` when items
 * carry that already — each item through {@link updateItem} (re-stamped for registers, audited, `catalog.updated`).
 * Returns the category as it is now, with the ids of the items that moved.
 * @throws ProblemError 404 `not_found` when no live item carries `from`.
 */
export async function renameCategory(m: Mutation, from: string, to: string): Promise<CategorySummary & { itemIds: string[] }> {
  const { tx, merchantId } = m;
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM catalog_items WHERE merchant_id = $1 AND NOT deleted AND data->>'category' = $2 ORDER BY id`,
    [merchantId, from],
  );
  if (rows.length === 0) throw new ProblemError(404, 'not_found', `No item is in the category "${from}".`);
  const moved: string[] = [];
  for (const { id } of rows) {
    const result = await updateItem(m, id, { category: to }, { action: 'catalog_item.category_renamed' });
    if (!result.unchanged) moved.push(id);
  }
  const { rows: count } = await tx.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM catalog_items WHERE merchant_id = $1 AND NOT deleted AND data->>'category' = $2`,
    [merchantId, to],
  );
  return { name: to, itemCount: Number(count[0]?.n ?? 0), itemIds: moved };
}

/** One page of the catalog as GET /api/pos/catalog answers it. */
export interface CatalogPage {
  /** Items ordered by id; with `includeDeleted`, each carries `deleted`. */
  data: (ApiCatalogItem & { deleted?: boolean })[];
  /** Every live tax rate of the store, on every page. */
  taxRates: ApiTaxRate[];
  nextCursor: string | null;
}

/**
 * Live items (with `includeDeleted`, deleted ones too, each marked) ordered by id, `limit` per page after the cursor's
 * id, filtered by category (exact, case-insensitive), `q` (substring of the name, a SKU or a GTIN, case-insensitive)
 * and `updatedSince` (ISO 8601), with the store's live tax rates.
 * @throws ProblemError 400 naming `cursor` when it is not one this list made.
 */
export async function listCatalog(
  db: Queryable,
  merchantId: string,
  q: {
    limit: number;
    cursor?: string | undefined;
    category?: string | undefined;
    q?: string | undefined;
    updatedSince?: string | undefined;
    includeDeleted?: boolean | undefined;
  },
): Promise<CatalogPage> {
  const filter = new SqlFilter(q.includeDeleted ? ['merchant_id = ?'] : ['merchant_id = ?', 'NOT deleted'], [merchantId]);
  if (q.cursor) filter.add('id > ?', decodeCursor(q.cursor, ['string'])[0]);
  if (q.category) filter.add(`lower(data->>'category') = lower(?)`, q.category);
  if (q.q) {
    const like = filter.param(likeContains(q.q));
    filter.add(
      `(data->>'name' ILIKE ${like} OR EXISTS (SELECT 1 FROM jsonb_array_elements(data->'variations') v WHERE v->>'sku' ILIKE ${like} OR v->>'gtin' ILIKE ${like}))`,
    );
  }
  if (q.updatedSince) filter.add('updated_at >= ?', q.updatedSince);
  const limit = filter.param(q.limit + 1);
  const { rows } = await db.query<{ id: string; data: CatalogItem; updated_at: Date; deleted: boolean }>(
    `SELECT id, data, updated_at, deleted FROM catalog_items WHERE ${filter.where} ORDER BY id LIMIT ${limit}`,
    filter.params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.id]);
  const rates = await db.query<{ data: TaxRate; updated_at: Date }>(
    'SELECT data, updated_at FROM tax_rates WHERE merchant_id = $1 AND NOT deleted ORDER BY id',
    [merchantId],
  );
  return {
    data: page.map((r) => ({ ...toApiItem(r), ...(q.includeDeleted ? { deleted: r.deleted } : {}) })),
    taxRates: rates.rows.map(toApiRate),
    nextCursor,
  };
}

/**
 * Seeds tax rates and items as given (ids kept, `stockOnHand` as given — the seed's opening counts then re-stamp it),
 * each only when the store has no row of that id yet: existing rows are never overwritten, so a store's edits survive
 * restarts. Not audited and announced per row (the seed is one `merchant.seeded` entry).
 */
export async function seedCatalog(m: Mutation, taxRates: readonly TaxRate[], items: readonly CatalogItem[]): Promise<void> {
  for (const rate of taxRates) {
    await m.tx.query(
      `INSERT INTO tax_rates (merchant_id, id, data, sync_seq) VALUES ($1, $2, $3::jsonb, nextval('sync_seq')) ON CONFLICT (merchant_id, id) DO NOTHING`,
      [m.merchantId, rate.id, JSON.stringify(rate)],
    );
  }
  for (const item of items) {
    await m.tx.query(
      `INSERT INTO catalog_items (merchant_id, id, data, sync_seq) VALUES ($1, $2, $3::jsonb, nextval('sync_seq')) ON CONFLICT (merchant_id, id) DO NOTHING`,
      [m.merchantId, item.id, JSON.stringify(item)],
    );
  }
}

/** Response shapes for the OpenAPI document (core/catalog.ts). */
export { apiCatalogItemSchema, apiTaxRateSchema };
