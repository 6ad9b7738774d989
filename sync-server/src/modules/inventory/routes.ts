import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  locationCreateSchema,
  STOCK_MOVEMENT_KINDS,
  stockAdjustSchema,
  stockCountSchema,
  stockLevelSchema,
  stockMovementResultSchema,
  stockMovementSchema,
  stockReceiveSchema,
  stockThresholdsSchema,
  pageQueryFields,
  pageSchema,
} from '../../../../core/index.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import { actorOf, mutation } from '../../kernel/mutation.ts';
import {
  createLocation,
  listLocations,
  listStockMovements,
  setStockThresholds,
  stockLevelsPage,
  type StockMovement,
  type StockLevel,
  type recordStockRequest,
} from './service.ts';

/** A receive, adjust or count request body as the routes parse it. */
export type StockRequest = Parameters<typeof recordStockRequest>[2];

/**
 * What the stock routes do that spans modules: workflows (sync-server/src/workflows/), handed in by app.ts — a module
 * never imports a workflow.
 */
export interface InventoryWorkflows {
  /**
   * POST /api/pos/catalog/inventory/{receive,adjust,count}: workflows/stock-change.ts `changeStock` (the movements,
   * then the catalog items' new `stockOnHand`).
   */
  changeStock(
    ctx: AppContext,
    principal: Principal,
    kind: 'receive' | 'adjust' | 'count',
    request: StockRequest,
  ): Promise<{ recorded: StockMovement[]; oversold: { variationId: string; locationId: string; onHand: number }[]; levels: StockLevel[] }>;
}

const pageQuery = z.strictObject(pageQueryFields);
const locationId = z.string().regex(/^loc_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with loc_');
const itemId = z.string().regex(/^itm_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with itm_');
const variationId = z.string().regex(/^var_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with var_');
const stockQuery = z.strictObject({
  ...pageQueryFields,
  locationId: locationId.optional(),
  variationId: variationId.optional(),
  itemId: itemId.optional(),
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

/**
 * The stock API under `/api/pos/catalog/…`: locations, units on hand, low-stock alerts, movements,
 * receive / adjust / count and low-stock thresholds. Writes are mutations (kernel/mutation.ts); those that move stock
 * run a workflow, so the catalog items' `stockOnHand` moves with them.
 */
export function registerInventoryRoutes(app: FastifyInstance, ctx: AppContext, workflows: InventoryWorkflows): void {
  /* ───────────── locations and inventory ───────────── */

  app.get(
    '/api/pos/catalog/locations',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List stock locations',
          description: 'The default location first, then the others oldest first.',
          tags: ['catalog'],
          access: 'staff',
          query: pageQuery,
          response: pageSchema(locationSchema),
        },
      },
    },
    async (request) => {
      const q = parseOrThrow(pageQuery, request.query, '(query)');
      const merchantId = principalOf(request).merchantId;
      const locations = await listLocations(ctx.db, merchantId);
      // A store has a handful of locations: the page is cut from the full list, after the cursor's location id.
      const start = q.cursor ? locations.findIndex((l) => l.id === decodeCursor(q.cursor!, ['string'])[0]) + 1 : 0;
      if (start === 0 && q.cursor)
        throw new ProblemError(400, 'validation_error', 'Invalid cursor: that location no longer exists; list again from the start.', [
          { path: 'cursor', message: 'names no location of this store' },
        ]);
      const { page, nextCursor } = pageOf(locations.slice(start, start + q.limit + 1), q.limit, (last) => [last.id]);
      return { data: page, nextCursor };
    },
  );

  app.post(
    '/api/pos/catalog/locations',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Add a stock location',
          errors: { 409: 'A location has this name (`location_exists`), or the same Idempotency-Key still in flight (`idempotency_in_flight`)' },
          tags: ['catalog'],
          access: 'staff',
          body: locationCreateSchema,
          response: locationSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(locationCreateSchema, request.body ?? undefined);
      const location = await mutation(ctx, actorOf(principalOf(request)), (m) => createLocation(m, body.name));
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
          description:
            'Tracked variations of live items at one location (default: the default location), ordered by variation id. onHand is the sum of the stock movements; it may be negative after an oversell.',
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
      const after = q.cursor ? String(decodeCursor(q.cursor, ['string'])[0]) : undefined;
      const rows = await stockLevelsPage(ctx.db, merchantId, {
        locationId: q.locationId,
        variationId: q.variationId,
        itemId: q.itemId,
        after,
        limit: q.limit + 1,
      });
      const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.variationId]);
      return { data: page, nextCursor };
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
      const after = q.cursor ? String(decodeCursor(q.cursor, ['string'])[0]) : undefined;
      const rows = await stockLevelsPage(ctx.db, merchantId, { locationId: q.locationId, lowOnly: true, after, limit: q.limit + 1 });
      const { page, nextCursor } = pageOf(rows, q.limit, (last) => [last.variationId]);
      return { data: page, nextCursor };
    },
  );

  app.get(
    '/api/pos/catalog/inventory/movements',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'List stock movements',
          description: 'Newest first.',
          tags: ['catalog'],
          access: 'staff',
          query: movementsQuery,
          response: pageSchema(movementSchema),
        },
      },
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

  const movementRoute = (
    kind: 'receive' | 'adjust' | 'count',
    schema: typeof stockReceiveSchema | typeof stockAdjustSchema | typeof stockCountSchema,
    summary: string,
  ) =>
    app.post(
      `/api/pos/catalog/inventory/${kind}`,
      {
        onRequest: guard(ctx, 'staff'),
        config: {
          openapi: {
            summary,
            description:
              'Records one stock movement per line at the location (default: the default location). Only variations that track stock are accepted. Answers the movements, any oversell, and the new levels.',
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
        const body = parseOrThrow(schema, request.body ?? undefined) as StockRequest;
        const result = await workflows.changeStock(ctx, principalOf(request), kind, body);
        return { status: 201, body: { movements: result.recorded, oversold: result.oversold, levels: result.levels } };
      }),
    );

  movementRoute('receive', stockReceiveSchema, 'Receive stock');
  movementRoute('adjust', stockAdjustSchema, 'Adjust stock');
  movementRoute('count', stockCountSchema, 'Record a stock count');

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
      const data = await mutation(ctx, actorOf(principalOf(request)), (m) => setStockThresholds(m, body));
      return { status: 200, body: { data } };
    }),
  );
}
