import type { FastifyInstance } from 'fastify';
import { SqlFilter } from '../db/sql-filter.ts';
import { z } from 'zod';
import {
  catalogImportRequestSchema,
  catalogItemCreateSchema,
  catalogItemUpdateSchema,
  catalogPageSchema,
  importReportSchema,
  locationCreateSchema,
  newId,
  STOCK_MOVEMENT_KINDS,
  stockAdjustSchema,
  stockCountSchema,
  stockLevelSchema,
  stockMovementResultSchema,
  stockMovementSchema,
  stockReceiveSchema,
  stockThresholdsSchema,
  taxRateCreateSchema,
  taxRateUpdateSchema,
  type CatalogItem,
  type TaxRate,
  CATALOG_CSV_MAX_BYTES,
  categoryRenameSchema,
  categorySummarySchema,
  pageQueryFields,
  pageSchema,
  queryBoolean,
} from '../../../core/index.ts';
import { guard, principalOf } from '../auth/guard.ts';
import { callerOf } from '../auth/identity.ts';
import type { AppContext } from '../context.ts';
import { lockMerchant } from '../db/db.ts';
import { decodeCursor, pageOf } from '../http/cursor.ts';
import { idempotent } from '../http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../http/problem.ts';
import { appendAudit } from '../services/audit.ts';
import { exportCatalogCsv, importCatalogCsv } from '../services/catalog-csv.ts';
import {
  apiCatalogItemSchema,
  apiTaxRateSchema,
  createItem,
  createTaxRate,
  deleteItem,
  deleteTaxRate,
  getItem,
  listCategories,
  renameCategory,
  updateItem,
  updateTaxRate,
  type Writer,
} from '../services/catalog.ts';
import {
  InventoryError,
  listLocations,
  listStockMovements,
  recordStockMovements,
  resolveLocation,
  setStockThresholds,
  stockLevels,
  findVariations,
  type StockMovementInput,
} from '../services/inventory.ts';

const catalogQuery = z.strictObject({
  ...pageQueryFields,
  category: z.string().min(1).max(100).optional(),
  q: z.string().min(1).max(200).optional(),
  updatedSince: z.iso.datetime({ offset: true }).refine((v) => !v.startsWith('0000'), 'must be a time after year 0').optional(),
  /** `true`: deleted items too, each with `deleted: true` — what an app syncing with `updatedSince` needs to drop them. */
  includeDeleted: queryBoolean.optional(),
});
const itemParams = z.strictObject({ id: z.string().regex(/^itm_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with itm_') });
const taxParams = z.strictObject({ id: z.string().regex(/^tax_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with tax_') });
const noQuery = z.strictObject({});
const pageQuery = z.strictObject(pageQueryFields);
const importQuery = z.strictObject({ dryRun: queryBoolean.optional() });
const categoryParams = z.strictObject({ name: z.string().min(1).max(100) });
const categorySchema = categorySummarySchema;
const locationId = z.string().regex(/^loc_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with loc_');
const variationId = z.string().regex(/^var_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with var_');
const stockQuery = z.strictObject({
  ...pageQueryFields,
  locationId: locationId.optional(),
  variationId: variationId.optional(),
  itemId: itemParams.shape.id.optional(),
});
const lowStockQuery = z.strictObject({ ...pageQueryFields, locationId: locationId.optional() });
const movementsQuery = z.strictObject({
  ...pageQueryFields,
  locationId: locationId.optional(),
  variationId: variationId.optional(),
  kind: z.enum(STOCK_MOVEMENT_KINDS).optional(),
  sourceId: z.string().min(1).max(200).optional(),
});

const movementSchema = stockMovementSchema;
const movementResultSchema = stockMovementResultSchema;
const locationSchema = z.object({ id: z.string(), name: z.string(), isDefault: z.boolean(), createdAt: z.string() });

function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function inventoryProblem(err: unknown): never {
  if (err instanceof InventoryError) throw new ProblemError(400, 'validation_error', `Invalid locationId: ${err.message}.`, [{ path: 'locationId', message: err.message }]);
  throw err;
}

/**
 * The catalog API (DESIGN §5–§8): `GET /api/pos/catalog` for apps (`catalog:read`) and registers; item, tax rate,
 * inventory, location and CSV endpoints under `/api/pos/catalog/…` for staff. Every write bumps the replication
 * sequence (registers pull it), is audited and emits `catalog.updated` in the same transaction.
 */
export function registerCatalogRoutes(app: FastifyInstance, ctx: AppContext): void {
  const writerOf = (request: Parameters<typeof principalOf>[0]): Writer => {
    const principal = principalOf(request);
    return { merchantId: principal.merchantId, actor: callerOf(principal), now: ctx.clock() };
  };
  const catalogChanged = (merchantId: string, collections: string[] = ['catalog-items']) => {
    for (const c of collections) ctx.feed.notify(merchantId, c);
  };

  app.get(
    '/api/pos/catalog',
    {
      onRequest: guard(ctx, { scope: 'catalog:read' }),
      config: {
        openapi: {
          summary: 'List catalog items',
          description:
            'Live items ordered by id, with the full list of tax rates on every page. Filters: category (exact, case-insensitive), q (name, SKU or GTIN substring), updatedSince. With includeDeleted=true, deleted items are listed too, each marked `deleted: true` (live ones `deleted: false`): an app syncing with updatedSince learns of deletions that way.',
          tags: ['catalog'],
          access: { scope: 'catalog:read' },
          query: catalogQuery,
          response: catalogPageSchema,
        },
      },
    },
    async (request) => {
      const { merchantId } = principalOf(request);
      const q = parseOrThrow(catalogQuery, request.query, '(query)');
      const filter = new SqlFilter(q.includeDeleted ? ['merchant_id = ?'] : ['merchant_id = ?', 'NOT deleted'], [merchantId]);
      if (q.cursor) filter.add('id > ?', decodeCursor(q.cursor, ['string'])[0]);
      if (q.category) filter.add(`lower(data->>'category') = lower(?)`, q.category);
      if (q.q) {
        const like = filter.param(likePattern(q.q));
        filter.add(`(data->>'name' ILIKE ${like} OR EXISTS (SELECT 1 FROM jsonb_array_elements(data->'variations') v WHERE v->>'sku' ILIKE ${like} OR v->>'gtin' ILIKE ${like}))`);
      }
      if (q.updatedSince) filter.add('updated_at >= ?', q.updatedSince);
      const limit = filter.param(q.limit + 1);
      const { rows } = await ctx.db.query<{ id: string; data: CatalogItem; updated_at: Date; deleted: boolean }>(
        `SELECT id, data, updated_at, deleted FROM catalog_items WHERE ${filter.where} ORDER BY id LIMIT ${limit}`,
        filter.params,
      );
      const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.id]);
      const rates = await ctx.db.query<{ data: TaxRate; updated_at: Date }>('SELECT data, updated_at FROM tax_rates WHERE merchant_id = $1 AND NOT deleted ORDER BY id', [merchantId]);
      return {
        data: page.map((r) => ({ ...r.data, updatedAt: new Date(r.updated_at).toISOString(), ...(q.includeDeleted ? { deleted: r.deleted } : {}) })),
        taxRates: rates.rows.map((r) => ({ ...r.data, updatedAt: new Date(r.updated_at).toISOString() })),
        nextCursor,
      };
    },
  );

  /* ───────────── items ───────────── */

  app.get(
    '/api/pos/catalog/items/:id',
    {
      onRequest: guard(ctx, { scope: 'catalog:read' }),
      config: { openapi: { summary: 'Get a catalog item', tags: ['catalog'], access: { scope: 'catalog:read' }, params: itemParams, query: noQuery, response: apiCatalogItemSchema } },
    },
    async (request) => {
      const { id } = parseOrThrow(itemParams, request.params, '(path)');
      parseOrThrow(noQuery, request.query, '(query)');
      return getItem(ctx.db, principalOf(request).merchantId, id);
    },
  );

  app.post(
    '/api/pos/catalog/items',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Create a catalog item',
          description: 'Ids of the item, its variations, modifier lists and modifiers are assigned by the server. Stock is set through the inventory endpoints.',
          tags: ['catalog'],
          access: 'staff',
          body: catalogItemCreateSchema,
          response: apiCatalogItemSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(catalogItemCreateSchema, request.body ?? undefined);
      const writer = writerOf(request);
      const item = await ctx.db.transaction((tx) => createItem(tx, writer, body));
      catalogChanged(writer.merchantId);
      return { status: 201, body: item };
    }),
  );

  app.patch(
    '/api/pos/catalog/items/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Change a catalog item',
          description: 'Send the fields to change. variations, modifierLists and taxRateIds replace the stored lists; entries sent with their id keep it (and their stock). description or imageUrl null removes them.',
          tags: ['catalog'],
          access: 'staff',
          params: itemParams,
          body: catalogItemUpdateSchema,
          response: apiCatalogItemSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(itemParams, request.params, '(path)');
      const body = parseOrThrow(catalogItemUpdateSchema, request.body ?? undefined);
      const writer = writerOf(request);
      const result = await ctx.db.transaction((tx) => updateItem(tx, writer, id, body));
      if (!result.unchanged) catalogChanged(writer.merchantId);
      return result.item;
    },
  );

  app.delete(
    '/api/pos/catalog/items/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Delete a catalog item',
          description: 'Soft delete: registers receive it with _deleted: true; stock history stays.',
          tags: ['catalog'],
          access: 'staff',
          params: itemParams,
          status: 204,
        },
      },
    },
    async (request, reply) => {
      const { id } = parseOrThrow(itemParams, request.params, '(path)');
      const writer = writerOf(request);
      await ctx.db.transaction((tx) => deleteItem(tx, writer, id));
      catalogChanged(writer.merchantId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/pos/catalog/categories',
    {
      onRequest: guard(ctx, { scope: 'catalog:read' }),
      config: {
        openapi: {
          summary: 'List categories',
          description: 'The categories of live items with their item counts, by name (case-insensitive).',
          tags: ['catalog'],
          access: { scope: 'catalog:read' },
          query: pageQuery,
          response: pageSchema(categorySchema),
        },
      },
    },
    async (request) => {
      const q = parseOrThrow(pageQuery, request.query, '(query)');
      const after = q.cursor ? (decodeCursor(q.cursor, ['string', 'string']) as [string, string]) : undefined;
      const rows = await listCategories(ctx.db, principalOf(request).merchantId, { limit: q.limit + 1, ...(after ? { after } : {}) });
      const { page, nextCursor } = pageOf(rows, q.limit, (last) => last.sortKey);
      return { data: page.map(({ name, itemCount }) => ({ name, itemCount })), nextCursor };
    },
  );

  app.patch(
    '/api/pos/catalog/categories/:name',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Rename a category',
          description:
            'Moves every live item of the category `name` (exact spelling, URL-encoded) to the new name — into an existing category when one has that name already. Each item is re-stamped for registers, audited and announced (`catalog.updated`). 404 when no item carries `name`.',
          tags: ['catalog'],
          access: 'staff',
          params: categoryParams,
          body: categoryRenameSchema,
          response: categorySchema.extend({ itemIds: z.array(z.string()) }),
        },
      },
    },
    async (request) => {
      const { name } = parseOrThrow(categoryParams, request.params, '(path)');
      const body = parseOrThrow(categoryRenameSchema, request.body ?? undefined);
      const writer = writerOf(request);
      const renamed = await ctx.db.transaction((tx) => renameCategory(tx, writer, name, body.name));
      if (renamed.itemIds.length > 0) catalogChanged(writer.merchantId);
      return renamed;
    },
  );

  /* ───────────── tax rates ───────────── */

  app.post(
    '/api/pos/catalog/tax-rates',
    {
      onRequest: guard(ctx, 'staff'),
      config: { openapi: { summary: 'Create a tax rate', tags: ['catalog'], access: 'staff', body: taxRateCreateSchema, response: apiTaxRateSchema, status: 201, idempotent: true } },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(taxRateCreateSchema, request.body ?? undefined);
      const writer = writerOf(request);
      const rate = await ctx.db.transaction((tx) => createTaxRate(tx, writer, body));
      catalogChanged(writer.merchantId, ['tax-rates']);
      return { status: 201, body: rate };
    }),
  );

  app.patch(
    '/api/pos/catalog/tax-rates/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: { openapi: { summary: 'Change a tax rate', errors: { 409: 'It would become inclusive on an item carrying other rates (`tax_configuration`)' }, tags: ['catalog'], access: 'staff', params: taxParams, body: taxRateUpdateSchema, response: apiTaxRateSchema } },
    },
    async (request) => {
      const { id } = parseOrThrow(taxParams, request.params, '(path)');
      const body = parseOrThrow(taxRateUpdateSchema, request.body ?? undefined);
      const writer = writerOf(request);
      const rate = await ctx.db.transaction((tx) => updateTaxRate(tx, writer, id, body));
      catalogChanged(writer.merchantId, ['tax-rates']);
      return rate;
    },
  );

  app.delete(
    '/api/pos/catalog/tax-rates/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: { openapi: { summary: 'Delete a tax rate', errors: { 409: 'Items still carry it (`tax_rate_in_use`)' }, description: '409 tax_rate_in_use while items carry it.', tags: ['catalog'], access: 'staff', params: taxParams, status: 204 } },
    },
    async (request, reply) => {
      const { id } = parseOrThrow(taxParams, request.params, '(path)');
      const writer = writerOf(request);
      await ctx.db.transaction((tx) => deleteTaxRate(tx, writer, id));
      catalogChanged(writer.merchantId, ['tax-rates']);
      return reply.code(204).send();
    },
  );

  /* ───────────── locations and inventory ───────────── */

  app.get(
    '/api/pos/catalog/locations',
    {
      onRequest: guard(ctx, 'staff'),
      config: { openapi: { summary: 'List stock locations', description: 'The default location first, then the others oldest first.', tags: ['catalog'], access: 'staff', query: pageQuery, response: pageSchema(locationSchema) } },
    },
    async (request) => {
      const q = parseOrThrow(pageQuery, request.query, '(query)');
      const merchantId = principalOf(request).merchantId;
      const locations = await ctx.db.transaction((tx) => listLocations(tx, merchantId));
      // A store has a handful of locations: the page is cut from the full list, after the cursor's location id.
      const start = q.cursor ? locations.findIndex((l) => l.id === decodeCursor(q.cursor!, ['string'])[0]) + 1 : 0;
      if (start === 0 && q.cursor) throw new ProblemError(400, 'validation_error', 'Invalid cursor: that location no longer exists; list again from the start.', [{ path: 'cursor', message: 'names no location of this store' }]);
      const { page, nextCursor } = pageOf(locations.slice(start, start + q.limit + 1), q.limit, (last) => [last.id]);
      return { data: page, nextCursor };
    },
  );

  app.post(
    '/api/pos/catalog/locations',
    {
      onRequest: guard(ctx, 'staff'),
      config: { openapi: { summary: 'Add a stock location', errors: { 409: 'A location has this name (`location_exists`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)' }, tags: ['catalog'], access: 'staff', body: locationCreateSchema, response: locationSchema, status: 201, idempotent: true } },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(locationCreateSchema, request.body ?? undefined);
      const writer = writerOf(request);
      const location = await ctx.db.transaction(async (tx) => {
        await lockMerchant(tx, writer.merchantId);
        await listLocations(tx, writer.merchantId);
        const clash = await tx.query('SELECT 1 FROM locations WHERE merchant_id = $1 AND lower(name) = lower($2)', [writer.merchantId, body.name]);
        if (clash.rows.length > 0) throw new ProblemError(409, 'location_exists', `A location named "${body.name}" exists already.`);
        const id = newId('location');
        const { rows } = await tx.query<{ id: string; name: string; is_default: boolean; created_at: Date }>(
          'INSERT INTO locations (id, merchant_id, name, is_default, created_at) VALUES ($1, $2, $3, false, $4) RETURNING id, name, is_default, created_at',
          [id, writer.merchantId, body.name, writer.now.toISOString()],
        );
        await appendAudit(tx, { merchantId: writer.merchantId, actor: writer.actor, action: 'location.created', entityType: 'location', entityId: id, occurredAt: writer.now, data: { name: body.name } });
        const r = rows[0]!;
        return { id: r.id, name: r.name, isDefault: r.is_default, createdAt: new Date(r.created_at).toISOString() };
      });
      return { status: 201, body: location };
    }),
  );

  app.get(
    '/api/pos/catalog/inventory',
    {
      onRequest: guard(ctx, { scope: 'catalog:read' }),
      config: {
        openapi: {
          summary: 'Units on hand per variation',
          description: 'Tracked variations of live items at one location (default: the default location), ordered by variation id. onHand is the sum of the stock movements; it may be negative after an oversell.',
          tags: ['catalog'],
          access: { scope: 'catalog:read' },
          query: stockQuery,
          response: pageSchema(stockLevelSchema),
        },
      },
    },
    async (request) => {
      const { merchantId } = principalOf(request);
      const q = parseOrThrow(stockQuery, request.query, '(query)');
      return ctx.db.transaction(async (tx) => {
        const location = await resolveLocation(tx, merchantId, q.locationId).catch(inventoryProblem);
        const after = q.cursor ? String(decodeCursor(q.cursor, ['string'])[0]) : undefined;
        const rows = await stockLevels(tx, merchantId, { locationId: location.id, ...(q.variationId ? { variationId: q.variationId } : {}), ...(q.itemId ? { itemId: q.itemId } : {}), ...(after ? { after } : {}), limit: q.limit + 1 });
        const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.variationId]);
        return { data: page, nextCursor };
      });
    },
  );

  app.get(
    '/api/pos/catalog/inventory/low-stock',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Low-stock alerts',
          description: 'Tracked variations whose units on hand are at or below their low-stock threshold at the location.',
          tags: ['catalog'],
          access: 'staff',
          query: lowStockQuery,
          response: pageSchema(stockLevelSchema),
        },
      },
    },
    async (request) => {
      const { merchantId } = principalOf(request);
      const q = parseOrThrow(lowStockQuery, request.query, '(query)');
      return ctx.db.transaction(async (tx) => {
        const location = await resolveLocation(tx, merchantId, q.locationId).catch(inventoryProblem);
        const after = q.cursor ? String(decodeCursor(q.cursor, ['string'])[0]) : undefined;
        const rows = await stockLevels(tx, merchantId, { locationId: location.id, lowOnly: true, ...(after ? { after } : {}), limit: q.limit + 1 });
        const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.variationId]);
        return { data: page, nextCursor };
      });
    },
  );

  app.get(
    '/api/pos/catalog/inventory/movements',
    {
      onRequest: guard(ctx, 'staff'),
      config: { openapi: { summary: 'List stock movements', description: 'Newest first.', tags: ['catalog'], access: 'staff', query: movementsQuery, response: pageSchema(movementSchema) } },
    },
    async (request) => {
      const { merchantId } = principalOf(request);
      const q = parseOrThrow(movementsQuery, request.query, '(query)');
      const before = q.cursor ? (decodeCursor(q.cursor, ['date', 'string']) as [string, string]) : undefined;
      const rows = await listStockMovements(ctx.db, merchantId, { ...q, ...(before ? { before } : {}), limit: q.limit + 1 });
      const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.createdAt, last.id]);
      return { data: page, nextCursor };
    },
  );

  const movementRoute = <S extends typeof stockReceiveSchema | typeof stockAdjustSchema | typeof stockCountSchema>(
    kind: 'receive' | 'adjust' | 'count',
    schema: S,
    summary: string,
    toMovements: (body: z.output<S>, sourceId: string) => StockMovementInput[],
  ) =>
    app.post(
      `/api/pos/catalog/inventory/${kind}`,
      {
        onRequest: guard(ctx, 'staff'),
        config: {
          openapi: {
            summary,
            description: 'Records one stock movement per line at the location (default: the default location). Only variations that track stock are accepted. Answers the movements, any oversell, and the new levels.',
            tags: ['catalog'],
            access: 'staff',
            body: schema,
            response: movementResultSchema,
            status: 201,
            idempotent: true,
          },
        },
      },
      idempotent(ctx.db, ctx.clock, async (request) => {
        const body = parseOrThrow(schema, request.body ?? undefined) as z.output<S>;
        const writer = writerOf(request);
        const sourceId = `${kind}:${newId('stockMovement').slice(4)}`;
        const result = await ctx.db.transaction(async (tx) => {
          const location = await resolveLocation(tx, writer.merchantId, body.locationId).catch(inventoryProblem);
          const known = await findVariations(tx, writer.merchantId, body.lines.map((l) => l.variationId));
          const errors = body.lines.flatMap((l, i) => {
            const v = known.get(l.variationId);
            if (!v || v.deleted) return [{ path: `lines.${i}.variationId`, message: `variation ${l.variationId} does not exist` }];
            if (!v.trackStock) return [{ path: `lines.${i}.variationId`, message: `variation ${l.variationId} does not track stock (set trackStock on the item first)` }];
            return [];
          });
          if (errors.length > 0) throw new ProblemError(400, 'validation_error', `Invalid ${errors.map((e) => e.path).join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
          const recorded = await recordStockMovements(tx, { merchantId: writer.merchantId, locationId: location.id, actor: writer.actor, occurredAt: writer.now, movements: toMovements(body, sourceId) });
          const levels = [];
          for (const l of body.lines) levels.push(...(await stockLevels(tx, writer.merchantId, { locationId: location.id, variationId: l.variationId, limit: 1 })));
          return { movements: recorded.recorded, oversold: recorded.oversold, levels, changed: recorded.changedItemIds.length > 0 };
        });
        if (result.changed) catalogChanged(writer.merchantId);
        const { changed: _, ...body2 } = result;
        return { status: 201, body: body2 };
      }),
    );

  movementRoute('receive', stockReceiveSchema, 'Receive stock', (body, sourceId) =>
    body.lines.map((l) => ({ variationId: l.variationId, kind: 'receive' as const, quantity: l.quantity, sourceId, ...(body.note ? { note: body.note } : {}) })),
  );
  movementRoute('adjust', stockAdjustSchema, 'Adjust stock', (body, sourceId) =>
    body.lines.map((l) => ({ variationId: l.variationId, kind: 'adjust' as const, quantity: l.quantity, sourceId, ...(body.note ? { note: body.note } : {}) })),
  );
  movementRoute('count', stockCountSchema, 'Record a stock count', (body, sourceId) =>
    body.lines.map((l) => ({ variationId: l.variationId, kind: 'count' as const, counted: l.counted, sourceId, ...(body.note ? { note: body.note } : {}) })),
  );

  app.post(
    '/api/pos/catalog/inventory/thresholds',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Set low-stock thresholds',
          description: 'Per variation and location; null removes a threshold. Answers the levels of the variations.',
          tags: ['catalog'],
          access: 'staff',
          body: stockThresholdsSchema,
          response: z.object({ data: z.array(stockLevelSchema) }),
          status: 200,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(stockThresholdsSchema, request.body ?? undefined);
      const writer = writerOf(request);
      const data = await ctx.db.transaction(async (tx) => {
        await lockMerchant(tx, writer.merchantId);
        const location = await resolveLocation(tx, writer.merchantId, body.locationId).catch(inventoryProblem);
        const known = await findVariations(tx, writer.merchantId, body.thresholds.map((t) => t.variationId));
        const errors = body.thresholds.flatMap((t, i) => {
          const v = known.get(t.variationId);
          if (!v || v.deleted) return [{ path: `thresholds.${i}.variationId`, message: `variation ${t.variationId} does not exist` }];
          if (!v.trackStock) return [{ path: `thresholds.${i}.variationId`, message: `variation ${t.variationId} does not track stock` }];
          return [];
        });
        if (errors.length > 0) throw new ProblemError(400, 'validation_error', `Invalid ${errors.map((e) => e.path).join(', ')}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors);
        await setStockThresholds(tx, writer.merchantId, location.id, body.thresholds, writer.now);
        await appendAudit(tx, { merchantId: writer.merchantId, actor: writer.actor, action: 'inventory.thresholds_set', entityType: 'location', entityId: location.id, occurredAt: writer.now, data: { thresholds: body.thresholds } });
        const levels = [];
        for (const t of body.thresholds) levels.push(...(await stockLevels(tx, writer.merchantId, { locationId: location.id, variationId: t.variationId, limit: 1 })));
        return levels;
      });
      return { status: 200, body: { data } };
    }),
  );

  /* ───────────── CSV ───────────── */

  // The import takes the CSV file itself (text/csv, up to 16 MiB) as well as JSON: a content-type parser of its own
  // scope, so every other route still answers 415 to anything but JSON.
  void app.register(async (scope) => {
    scope.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: CATALOG_CSV_MAX_BYTES }, (_request, body, done) => done(null, body));
    scope.post(
      '/api/pos/catalog/import',
      {
        onRequest: guard(ctx, 'staff'),
        bodyLimit: CATALOG_CSV_MAX_BYTES,
        config: {
          openapi: {
            summary: 'Import a Shopify product CSV',
            description:
              'Body: the file itself as `Content-Type: text/csv` (UTF-8, up to 16 MiB; `?dryRun=true` to check only), or JSON `{ csv: "<the CSV text>", dryRun?: boolean }`. Every data row is imported (a variant or an image row) or rejected with its line number and reason; lost details are warnings. dryRun checks and reports without writing.',
            tags: ['catalog'],
            access: 'staff',
            query: importQuery,
            body: catalogImportRequestSchema,
            response: importReportSchema,
            status: 200,
            idempotent: true,
          },
        },
      },
      idempotent(ctx.db, ctx.clock, async (request) => {
        const query = parseOrThrow(importQuery, request.query, '(query)');
        let csv: string;
        let dryRun: boolean;
        if (typeof request.body === 'string') {
          if (request.body.trim() === '') throw new ProblemError(400, 'validation_error', 'Invalid (body): the CSV file is empty.', [{ path: '(body)', message: 'is empty' }]);
          csv = request.body;
          dryRun = query.dryRun ?? false;
        } else {
          if (query.dryRun !== undefined) throw new ProblemError(400, 'validation_error', 'Invalid dryRun: with a JSON body, send dryRun in the body.', [{ path: 'dryRun', message: 'goes in the JSON body' }]);
          const body = parseOrThrow(catalogImportRequestSchema, request.body ?? undefined);
          csv = body.csv;
          dryRun = body.dryRun;
        }
        const writer = writerOf(request);
        const report = await importCatalogCsv(ctx.db, writer, csv, dryRun);
        if (!dryRun) catalogChanged(writer.merchantId);
        return { status: 200, body: report };
      }),
    );
  });

  app.get(
    '/api/pos/catalog/export',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Export the catalog as a Shopify product CSV',
          description: 'Re-imports to the same catalog (modifier lists are not part of the format).',
          tags: ['catalog'],
          access: 'staff',
          query: noQuery,
          produces: ['text/csv'],
        },
      },
    },
    async (request, reply) => {
      parseOrThrow(noQuery, request.query, '(query)');
      const csv = await exportCatalogCsv(ctx.db, principalOf(request).merchantId);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="catalog.csv"').send(csv);
    },
  );
}
