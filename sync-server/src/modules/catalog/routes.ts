import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  catalogImportRequestSchema,
  catalogItemCreateSchema,
  catalogItemUpdateSchema,
  catalogPageSchema,
  importReportSchema,
  importJobSchema,
  importJobRequestSchema,
  taxRateCreateSchema,
  taxRateUpdateSchema,
  CATALOG_CSV_MAX_BYTES,
  CATALOG_IMPORT_JOB_MAX_BYTES,
  categoryRenameSchema,
  categorySummarySchema,
  pageQueryFields,
  pageSchema,
  queryBoolean,
  utcDateTime,
} from '../../../../core/index.ts';
import { guard, principalOf } from '../../platform/auth/guard.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import { decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { idempotent } from '../../platform/http/idempotency.ts';
import { parseOrThrow, ProblemError } from '../../platform/http/problem.ts';
import { actorOf, mutation, type Mutation } from '../../kernel/mutation.ts';
import { exportCatalogCsv, type ImportReport } from './csv.ts';
import { getImportJob, type ImportJob } from './import-jobs.ts';
import {
  apiCatalogItemSchema,
  apiTaxRateSchema,
  createItem,
  createTaxRate,
  deleteItem,
  deleteTaxRate,
  getItem,
  listCatalog,
  listCategories,
  renameCategory,
  updateItem,
  updateTaxRate,
} from './service.ts';

/**
 * What the catalog routes do that spans modules: workflows (sync-server/src/workflows/), handed in by app.ts — a
 * module never imports a workflow.
 */
export interface CatalogWorkflows {
  /** POST /api/pos/catalog/import: workflows/catalog-import.ts `importCatalog` (products, then their stock counts). */
  importCatalog(ctx: AppContext, principal: Principal, csv: string, dryRun: boolean): Promise<ImportReport>;
  /** POST /api/pos/catalog/import-jobs: workflows/catalog-import.ts `startImportJob` (chunks in the background). */
  startImportJob(ctx: AppContext, principal: Principal, csv: string, options: { taxRateId?: string | undefined }): Promise<ImportJob>;
  /** POST /api/pos/catalog/import-jobs/{id}/cancel: workflows/catalog-import.ts `cancelImportJob`. */
  cancelImportJob(ctx: AppContext, principal: Principal, jobId: string): Promise<ImportJob>;
}

const catalogQuery = z.strictObject({
  ...pageQueryFields,
  category: z.string().min(1).max(100).optional(),
  q: z.string().min(1).max(200).optional(),
  updatedSince: utcDateTime.optional(),
  /** `true`: deleted items too, each with `deleted: true` — what an app syncing with `updatedSince` needs to drop them. */
  includeDeleted: queryBoolean.optional(),
});
const jobQuery = z.strictObject({
  taxRateId: importJobRequestSchema.shape.taxRateId.describe(
    "With a `text/csv` body: the tax rate taxable products get (default: the store's default rate). With a JSON body, send it in the body.",
  ),
});
const jobParams = z.strictObject({ id: z.string().regex(/^imp_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with imp_') });
const itemParams = z.strictObject({ id: z.string().regex(/^itm_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with itm_') });
const taxParams = z.strictObject({ id: z.string().regex(/^tax_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with tax_') });
const noQuery = z.strictObject({});
const pageQuery = z.strictObject(pageQueryFields);
const importQuery = z.strictObject({
  dryRun: queryBoolean
    .optional()
    .describe(
      'With a `text/csv` body: `true` checks and reports without writing. With a JSON body, send `dryRun` in the body instead (here it is a 400).',
    ),
});
const categoryParams = z.strictObject({ name: z.string().min(1).max(100) });
const categorySchema = categorySummarySchema;

/**
 * The catalog API: `GET /api/pos/catalog` for apps (`catalog:read`) and registers; item, tax rate,
 * category and CSV endpoints under `/api/pos/catalog/…` for staff (the stock endpoints are modules/inventory/routes.ts).
 * Every write is a mutation (kernel/mutation.ts): it bumps the replication sequence (registers pull it), is audited
 * and emits `catalog.updated` in the same transaction, and the registers are told after the commit.
 */
export function registerCatalogRoutes(app: FastifyInstance, ctx: AppContext, workflows: CatalogWorkflows): void {
  /** Runs `fn` as a mutation of the request's caller. */
  const write = <T>(request: Parameters<typeof principalOf>[0], fn: (m: Mutation) => Promise<T>): Promise<T> =>
    mutation(ctx, actorOf(principalOf(request)), fn);

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
      return listCatalog(ctx.db, merchantId, q);
    },
  );

  /* ───────────── items ───────────── */

  app.get(
    '/api/pos/catalog/items/:id',
    {
      onRequest: guard(ctx, { scope: 'catalog:read' }),
      config: {
        openapi: {
          summary: 'Get a catalog item',
          tags: ['catalog'],
          access: { scope: 'catalog:read' },
          params: itemParams,
          query: noQuery,
          response: apiCatalogItemSchema,
        },
      },
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
          description:
            'Ids of the item, its variations, modifier lists and modifiers are assigned by the server. Stock is set through the inventory endpoints.',
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
      const item = await write(request, (m) => createItem(m, body));
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
          description:
            'Send the fields to change. variations, modifierLists and taxRateIds replace the stored lists; entries sent with their id keep it (and their stock). description or imageUrl null removes them.',
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
      const result = await write(request, (m) => updateItem(m, id, body));
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
      await write(request, (m) => deleteItem(m, id));
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
      return write(request, (m) => renameCategory(m, name, body.name));
    },
  );

  /* ───────────── tax rates ───────────── */

  app.post(
    '/api/pos/catalog/tax-rates',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Create a tax rate',
          tags: ['catalog'],
          access: 'staff',
          body: taxRateCreateSchema,
          response: apiTaxRateSchema,
          status: 201,
          idempotent: true,
        },
      },
    },
    idempotent(ctx.db, ctx.clock, async (request) => {
      const body = parseOrThrow(taxRateCreateSchema, request.body ?? undefined);
      const rate = await write(request, (m) => createTaxRate(m, body));
      return { status: 201, body: rate };
    }),
  );

  app.patch(
    '/api/pos/catalog/tax-rates/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Change a tax rate',
          errors: { 409: 'It would become inclusive on an item carrying other rates (`tax_configuration`)' },
          tags: ['catalog'],
          access: 'staff',
          params: taxParams,
          body: taxRateUpdateSchema,
          response: apiTaxRateSchema,
        },
      },
    },
    async (request) => {
      const { id } = parseOrThrow(taxParams, request.params, '(path)');
      const body = parseOrThrow(taxRateUpdateSchema, request.body ?? undefined);
      return write(request, (m) => updateTaxRate(m, id, body));
    },
  );

  app.delete(
    '/api/pos/catalog/tax-rates/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Delete a tax rate',
          errors: { 409: 'Items still carry it (`tax_rate_in_use`)' },
          description: '409 tax_rate_in_use while items carry it.',
          tags: ['catalog'],
          access: 'staff',
          params: taxParams,
          status: 204,
        },
      },
    },
    async (request, reply) => {
      const { id } = parseOrThrow(taxParams, request.params, '(path)');
      await write(request, (m) => deleteTaxRate(m, id));
      return reply.code(204).send();
    },
  );

  /* ───────────── CSV ───────────── */

  // The import takes the CSV file itself (text/csv) as well as JSON: a content-type parser of its own scope, so every
  // other route still answers 415 to anything but JSON. Each route sets its own limit (16 MiB for the one-transaction
  // import, 64 MiB for a job); the parser's is the larger.
  void app.register(async (scope) => {
    scope.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: CATALOG_IMPORT_JOB_MAX_BYTES }, (_request, body, done) =>
      done(null, body),
    );
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
            consumes: ['text/csv'],
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
          if (request.body.trim() === '')
            throw new ProblemError(400, 'validation_error', 'Invalid (body): the CSV file is empty.', [{ path: '(body)', message: 'is empty' }]);
          csv = request.body;
          dryRun = query.dryRun ?? false;
        } else {
          if (query.dryRun !== undefined)
            throw new ProblemError(400, 'validation_error', 'Invalid dryRun: with a JSON body, send dryRun in the body.', [
              { path: 'dryRun', message: 'goes in the JSON body' },
            ]);
          const body = parseOrThrow(catalogImportRequestSchema, request.body ?? undefined);
          csv = body.csv;
          dryRun = body.dryRun;
        }
        const report = await workflows.importCatalog(ctx, principalOf(request), csv, dryRun);
        return { status: 200, body: report };
      }),
    );

    scope.post(
      '/api/pos/catalog/import-jobs',
      {
        onRequest: guard(ctx, 'staff'),
        bodyLimit: CATALOG_IMPORT_JOB_MAX_BYTES,
        config: {
          openapi: {
            summary: 'Start a catalog import job (Shopify product CSV)',
            description:
              'Body: the file itself as `Content-Type: text/csv` (UTF-8, up to 64 MiB; `?taxRateId=` optional), or JSON `{ csv, taxRateId? }`. Answers 202 with the job at once; whole products are imported in chunks, each committed with the progress (`rowsDone` / `rowsTotal`), which `GET /api/pos/catalog/import-jobs/{id}` reports. Re-running the same file is safe (products matched by handle, variants by option values).',
            tags: ['catalog'],
            access: 'staff',
            query: jobQuery,
            body: importJobRequestSchema,
            consumes: ['text/csv'],
            response: importJobSchema,
            status: 202,
            idempotent: true,
          },
        },
      },
      idempotent(ctx.db, ctx.clock, async (request) => {
        const query = parseOrThrow(jobQuery, request.query, '(query)');
        let csv: string;
        let taxRateId: string | undefined;
        if (typeof request.body === 'string') {
          if (request.body.trim() === '')
            throw new ProblemError(400, 'validation_error', 'Invalid (body): the CSV file is empty.', [{ path: '(body)', message: 'is empty' }]);
          csv = request.body;
          taxRateId = query.taxRateId;
        } else {
          if (query.taxRateId !== undefined)
            throw new ProblemError(400, 'validation_error', 'Invalid taxRateId: with a JSON body, send taxRateId in the body.', [
              { path: 'taxRateId', message: 'goes in the JSON body' },
            ]);
          const body = parseOrThrow(importJobRequestSchema, request.body ?? undefined);
          csv = body.csv;
          taxRateId = body.taxRateId;
        }
        const job = await workflows.startImportJob(ctx, principalOf(request), csv, { taxRateId });
        return { status: 202, body: job };
      }),
    );
  });

  app.get(
    '/api/pos/catalog/import-jobs/:id',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'A catalog import job: progress, and its report once ended',
          description: 'Poll while `status` is `running` or `cancelling`; `report` is set once the job is `done`, `cancelled` or `failed`.',
          tags: ['catalog'],
          access: 'staff',
          params: jobParams,
          query: noQuery,
          response: importJobSchema,
        },
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      const { id } = parseOrThrow(jobParams, request.params, '(path)');
      return getImportJob(ctx.db, principalOf(request).merchantId, id);
    },
  );

  app.post(
    '/api/pos/catalog/import-jobs/:id/cancel',
    {
      onRequest: guard(ctx, 'staff'),
      config: {
        openapi: {
          summary: 'Cancel a catalog import job',
          description:
            'The job stops after the chunk it is importing (`cancelling`, then `cancelled`); the chunks committed stay, and re-running the same file completes the import safely. A job that has ended is answered as it is.',
          tags: ['catalog'],
          access: 'staff',
          params: jobParams,
          query: noQuery,
          response: importJobSchema,
        },
      },
    },
    async (request) => {
      parseOrThrow(noQuery, request.query, '(query)');
      const { id } = parseOrThrow(jobParams, request.params, '(path)');
      return workflows.cancelImportJob(ctx, principalOf(request), id);
    },
  );

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
