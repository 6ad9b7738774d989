/**
 * Catalog writes (DESIGN §5–§7): items with variations, modifier lists, tax rates and an image url. The catalog is
 * server-authoritative: every write takes a new replication sequence (`sync_seq`) and stamps `updated_at`, so the
 * registers pull it (DESIGN §15); deletion is soft (`deleted` → the register sees `_deleted: true`). Every write
 * appends an audit row and emits `catalog.updated` (DESIGN §6) in the same transaction.
 *
 * `stockOnHand` of a tracked variation is always recomputed from stock movements at the default location
 * (services/inventory.ts), never taken from input.
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
} from '../../../core/index.ts';
import { lockMerchant, type Queryable } from '../db/db.ts';
import { ProblemError, type FieldError } from '../http/problem.ts';
import { appendAudit } from './audit.ts';
import { emitEvent } from './events.ts';
import { ensureDefaultLocation, onHandAt } from './inventory.ts';

/** A catalog item and a tax rate as the API returns them (core `apiCatalogItemSchema`, `apiTaxRateSchema`). */
export type { ApiCatalogItem, ApiTaxRate };

/** Who writes, for audit rows: `staff:<id>`, `app:<id>` or `system`. */
export interface Writer {
  merchantId: string;
  actor: string;
  now: Date;
}

interface ItemRow {
  id: string;
  data: CatalogItem;
  updated_at: Date;
  deleted: boolean;
}

export const toApiItem = (r: { data: CatalogItem; updated_at: Date }): ApiCatalogItem => ({ ...r.data, updatedAt: new Date(r.updated_at).toISOString() });

/** The item (also when soft-deleted, with `deleted`), or undefined. */
export async function findItem(db: Queryable, merchantId: string, id: string): Promise<{ item: ApiCatalogItem; deleted: boolean } | undefined> {
  const { rows } = await db.query<ItemRow>('SELECT id, data, updated_at, deleted FROM catalog_items WHERE merchant_id = $1 AND id = $2', [merchantId, id]);
  const row = rows[0];
  return row ? { item: toApiItem(row), deleted: row.deleted } : undefined;
}

/** A live (not deleted) item. @throws ProblemError 404. */
export async function getItem(db: Queryable, merchantId: string, id: string): Promise<ApiCatalogItem> {
  const found = await findItem(db, merchantId, id);
  if (!found || found.deleted) throw new ProblemError(404, 'not_found', `Catalog item ${id} does not exist.`);
  return found.item;
}

/** `stockOnHand` of tracked variations from the movements at the default location; removed from untracked ones. */
async function withStock(tx: Queryable, merchantId: string, item: CatalogItem): Promise<CatalogItem> {
  const location = await ensureDefaultLocation(tx, merchantId);
  const tracked = item.variations.filter((v) => v.trackStock).map((v) => v.id);
  const onHand = await onHandAt(tx, merchantId, location.id, tracked);
  return {
    ...item,
    variations: item.variations.map((v) => {
      const { stockOnHand: _, ...rest } = v;
      return v.trackStock ? { ...rest, stockOnHand: onHand.get(v.id) ?? 0 } : rest;
    }),
  };
}

/**
 * Stores `item` (insert or update) with a new replication sequence, recomputing stock; appends no audit and emits no
 * event (callers do). Returns the stored API shape.
 */
async function storeItem(tx: Queryable, writer: Writer, item: CatalogItem, deleted = false): Promise<ApiCatalogItem> {
  const stocked = await withStock(tx, writer.merchantId, item);
  const { rows } = await tx.query<{ data: CatalogItem; updated_at: Date }>(
    `INSERT INTO catalog_items (merchant_id, id, data, sync_seq, updated_at, deleted) VALUES ($1, $2, $3::jsonb, nextval('sync_seq'), $4, $5)
     ON CONFLICT (merchant_id, id) DO UPDATE SET data = EXCLUDED.data, sync_seq = EXCLUDED.sync_seq, updated_at = EXCLUDED.updated_at, deleted = EXCLUDED.deleted
     RETURNING data, updated_at`,
    [writer.merchantId, item.id, JSON.stringify(stocked), writer.now.toISOString(), deleted],
  );
  return toApiItem(rows[0]!);
}

async function announce(tx: Queryable, writer: Writer, action: string, item: ApiCatalogItem, deleted: boolean, data: Record<string, unknown> = {}): Promise<void> {
  await appendAudit(tx, {
    merchantId: writer.merchantId,
    actor: writer.actor,
    appId: writer.actor.startsWith('app:') ? writer.actor.slice(4) : null,
    action,
    entityType: 'catalog_item',
    entityId: item.id,
    occurredAt: writer.now,
    data: { name: item.name, ...data },
  });
  await emitEvent(tx, { merchantId: writer.merchantId, type: 'catalog.updated', object: { object: 'catalog_item', ...item, deleted }, occurredAt: writer.now });
}

/**
 * Re-stamps the items whose stock moved (called by recordStockMovements): at the default location their
 * `stockOnHand` changes, so they get a new sequence; at any location a `catalog.updated` event is emitted.
 */
export async function refreshStockOnHand(tx: Queryable, merchantId: string, itemIds: readonly string[], now: Date, atDefaultLocation: boolean): Promise<void> {
  for (const id of itemIds) {
    const found = await findItem(tx, merchantId, id);
    if (!found) continue;
    const item = atDefaultLocation ? await storeItem(tx, { merchantId, actor: 'system', now }, stripStamps(found.item), found.deleted) : found.item;
    await emitEvent(tx, { merchantId, type: 'catalog.updated', object: { object: 'catalog_item', ...item, deleted: found.deleted }, occurredAt: now });
  }
}

function stripStamps(item: CatalogItem & { updatedAt?: string; syncSeq?: number }): CatalogItem {
  const { updatedAt: _u, syncSeq: _s, ...rest } = item;
  return rest;
}

/** Validates references of an item against the store: tax rates exist and mix correctly; SKUs unique in the store. */
async function checkReferences(tx: Queryable, merchantId: string, item: CatalogItem): Promise<void> {
  const errors: FieldError[] = [];
  const rates = await tx.query<{ id: string; data: TaxRate }>('SELECT id, data FROM tax_rates WHERE merchant_id = $1 AND NOT deleted', [merchantId]);
  const byId = new Map(rates.rows.map((r) => [r.id, r.data]));
  item.taxRateIds.forEach((id, i) => {
    if (!byId.has(id)) errors.push({ path: `taxRateIds.${i}`, message: `tax rate ${id} does not exist` });
  });
  const chosen = item.taxRateIds.map((id) => byId.get(id)).filter((r): r is TaxRate => r !== undefined);
  const inclusive = chosen.filter((r) => r.inclusive).length;
  if (inclusive > 1 || (inclusive === 1 && chosen.length > 1)) {
    errors.push({ path: 'taxRateIds', message: 'an item carries either exclusive tax rates or a single inclusive one' });
  }
  const skus = item.variations.map((v) => v.sku).filter((s): s is string => s !== undefined);
  if (skus.length > 0) {
    const { rows } = await tx.query<{ id: string; sku: string }>(
      `SELECT ci.id, v->>'sku' AS sku FROM catalog_items ci, jsonb_array_elements(ci.data->'variations') v
        WHERE ci.merchant_id = $1 AND NOT ci.deleted AND ci.id <> $2 AND v->>'sku' = ANY($3::text[])`,
      [merchantId, item.id, skus],
    );
    for (const r of rows) {
      const i = item.variations.findIndex((v) => v.sku === r.sku);
      errors.push({ path: `variations.${i}.sku`, message: `SKU ${r.sku} is already used by item ${r.id}` });
    }
  }
  if (errors.length > 0) {
    throw new ProblemError(400, 'validation_error', `Invalid ${[...new Set(errors.map((e) => e.path))].join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  }
}

/** Final check against the stored shape (bounds of ids and names). */
function asCatalogItem(candidate: unknown): CatalogItem {
  const parsed = catalogItemSchema.safeParse(candidate);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message }));
    throw new ProblemError(400, 'validation_error', `Invalid ${errors.map((e) => e.path).join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
  }
  return parsed.data;
}

function assignedByServer(path: string): never {
  throw new ProblemError(400, 'validation_error', `Invalid ${path}: ids are assigned by the server; send one only to keep an existing entry in an update.`, [
    { path, message: 'is assigned by the server' },
  ]);
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
    return { id, name: v.name, priceCents: v.priceCents, ...(v.sku !== undefined ? { sku: v.sku } : {}), ...(v.gtin !== undefined ? { gtin: v.gtin } : {}), trackStock: v.trackStock };
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

/** Creates an item (ids assigned here). @throws ProblemError 400 for unknown tax rates, a SKU in use, ids sent. */
export async function createItem(tx: Queryable, writer: Writer, input: CatalogItemCreate, options: { id?: string; action?: string } = {}): Promise<ApiCatalogItem> {
  await lockMerchant(tx, writer.merchantId);
  const item = asCatalogItem({
    id: options.id ?? newId('catalogItem'),
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    category: input.category,
    kind: input.kind,
    variations: buildVariations(input.variations, null),
    modifierLists: buildModifierLists(input.modifierLists, null),
    taxRateIds: input.taxRateIds,
    ...(input.imageUrl !== undefined ? { imageUrl: input.imageUrl } : {}),
  });
  await checkReferences(tx, writer.merchantId, item);
  const stored = await storeItem(tx, writer, item);
  await announce(tx, writer, options.action ?? 'catalog_item.created', stored, false);
  return stored;
}

/**
 * Applies a partial update. Lists replace the stored ones; entries keep their ids when sent with them (or, for
 * variations, when their name matches). Returns `unchanged: true` (and writes nothing) when nothing differs.
 * @throws ProblemError 404 unknown or deleted item; 400 as {@link createItem}.
 */
export async function updateItem(
  tx: Queryable,
  writer: Writer,
  id: string,
  patch: CatalogItemUpdate,
  options: { action?: string } = {},
): Promise<{ item: ApiCatalogItem; unchanged: boolean }> {
  await lockMerchant(tx, writer.merchantId);
  const current = stripStamps(await getItem(tx, writer.merchantId, id));
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
  const item = asCatalogItem(next);
  await checkReferences(tx, writer.merchantId, item);
  const restocked = await withStock(tx, writer.merchantId, item);
  if (JSON.stringify(canonicalItem(restocked)) === JSON.stringify(canonicalItem(current))) {
    return { item: await getItem(tx, writer.merchantId, id), unchanged: true };
  }
  const stored = await storeItem(tx, writer, item);
  await announce(tx, writer, options.action ?? 'catalog_item.updated', stored, false, { fields: Object.keys(patch) });
  return { item: stored, unchanged: false };
}

function canonicalItem(item: CatalogItem): unknown {
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sort(x)])) : v;
  return sort(item);
}

/** Soft-deletes an item (`_deleted: true` for registers). @throws ProblemError 404 unknown or already deleted. */
export async function deleteItem(tx: Queryable, writer: Writer, id: string): Promise<ApiCatalogItem> {
  await lockMerchant(tx, writer.merchantId);
  const current = await getItem(tx, writer.merchantId, id);
  const stored = await storeItem(tx, writer, stripStamps(current), true);
  await tx.query('DELETE FROM catalog_handles WHERE merchant_id = $1 AND item_id = $2', [writer.merchantId, id]);
  await announce(tx, writer, 'catalog_item.deleted', stored, true);
  return stored;
}

/* ───────────────────────────── tax rates ───────────────────────────── */

const toApiRate = (r: { data: TaxRate; updated_at: Date }): ApiTaxRate => ({ ...r.data, updatedAt: new Date(r.updated_at).toISOString() });

async function storeRate(tx: Queryable, writer: Writer, rate: TaxRate, deleted: boolean, action: string): Promise<ApiTaxRate> {
  const parsed = taxRateSchema.parse(rate);
  const { rows } = await tx.query<{ data: TaxRate; updated_at: Date }>(
    `INSERT INTO tax_rates (merchant_id, id, data, sync_seq, updated_at, deleted) VALUES ($1, $2, $3::jsonb, nextval('sync_seq'), $4, $5)
     ON CONFLICT (merchant_id, id) DO UPDATE SET data = EXCLUDED.data, sync_seq = EXCLUDED.sync_seq, updated_at = EXCLUDED.updated_at, deleted = EXCLUDED.deleted
     RETURNING data, updated_at`,
    [writer.merchantId, parsed.id, JSON.stringify(parsed), writer.now.toISOString(), deleted],
  );
  const stored = toApiRate(rows[0]!);
  await appendAudit(tx, { merchantId: writer.merchantId, actor: writer.actor, action, entityType: 'tax_rate', entityId: rate.id, occurredAt: writer.now, data: { ...parsed } });
  await emitEvent(tx, { merchantId: writer.merchantId, type: 'catalog.updated', object: { object: 'tax_rate', ...stored, deleted }, occurredAt: writer.now });
  return stored;
}

async function getRate(tx: Queryable, merchantId: string, id: string): Promise<TaxRate> {
  const { rows } = await tx.query<{ data: TaxRate }>('SELECT data FROM tax_rates WHERE merchant_id = $1 AND id = $2 AND NOT deleted', [merchantId, id]);
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

export async function createTaxRate(tx: Queryable, writer: Writer, input: { name: string; basisPoints: number; inclusive: boolean }): Promise<ApiTaxRate> {
  await lockMerchant(tx, writer.merchantId);
  return storeRate(tx, writer, { id: newId('taxRate'), ...input }, false, 'tax_rate.created');
}

/**
 * Changes a tax rate. Making it inclusive while an item carries it with other rates is refused (409
 * `tax_configuration`), since such an item could no longer be priced.
 */
export async function updateTaxRate(tx: Queryable, writer: Writer, id: string, patch: Partial<Omit<TaxRate, 'id'>>): Promise<ApiTaxRate> {
  await lockMerchant(tx, writer.merchantId);
  const current = await getRate(tx, writer.merchantId, id);
  const next = { ...current, ...patch };
  if (next.inclusive && !current.inclusive) {
    const mixed = (await itemsWithRate(tx, writer.merchantId, id)).filter((i) => i.taxRateIds.length > 1);
    if (mixed.length > 0) {
      throw new ProblemError(409, 'tax_configuration', `Tax rate ${id} cannot become inclusive: ${mixed.map((i) => i.id).join(', ')} carry it with other rates.`);
    }
  }
  return storeRate(tx, writer, next, false, 'tax_rate.updated');
}

/** Soft-deletes a tax rate. @throws ProblemError 409 `tax_rate_in_use` while live items carry it. */
export async function deleteTaxRate(tx: Queryable, writer: Writer, id: string): Promise<ApiTaxRate> {
  await lockMerchant(tx, writer.merchantId);
  const current = await getRate(tx, writer.merchantId, id);
  const users = await itemsWithRate(tx, writer.merchantId, id);
  if (users.length > 0) {
    throw new ProblemError(409, 'tax_rate_in_use', `Tax rate ${id} is used by ${users.length} item(s): ${users.slice(0, 10).map((i) => i.id).join(', ')}. Remove it from them first.`);
  }
  return storeRate(tx, writer, current, true, 'tax_rate.deleted');
}

/** A category of live items with how many live items carry it (core `categorySummarySchema`). */
export type { CategorySummary };

/**
 * Up to `limit` categories of live items with their item counts, by name case-insensitively, strictly after the sort
 * key `after` (`[lower(name), name]`, from a previous page). Each row carries its `sortKey` for the next cursor.
 */
export async function listCategories(db: Queryable, merchantId: string, page: { limit: number; after?: readonly [string, string] }): Promise<(CategorySummary & { sortKey: [string, string] })[]> {
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
export async function renameCategory(tx: Queryable, writer: Writer, from: string, to: string): Promise<CategorySummary & { itemIds: string[] }> {
  await lockMerchant(tx, writer.merchantId);
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM catalog_items WHERE merchant_id = $1 AND NOT deleted AND data->>'category' = $2 ORDER BY id`,
    [writer.merchantId, from],
  );
  if (rows.length === 0) throw new ProblemError(404, 'not_found', `No item is in the category "${from}".`);
  const moved: string[] = [];
  for (const { id } of rows) {
    const result = await updateItem(tx, writer, id, { category: to }, { action: 'catalog_item.category_renamed' });
    if (!result.unchanged) moved.push(id);
  }
  const { rows: count } = await tx.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM catalog_items WHERE merchant_id = $1 AND NOT deleted AND data->>'category' = $2`,
    [writer.merchantId, to],
  );
  return { name: to, itemCount: Number(count[0]?.n ?? 0), itemIds: moved };
}

/** Response shapes for the OpenAPI document (core/catalog.ts). */
export { apiCatalogItemSchema, apiTaxRateSchema };
