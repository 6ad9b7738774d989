/**
 * The Shopify product CSV import (modules/catalog/csv.ts for the format): the catalog module imports the products,
 * the inventory module records the quantities as counts at the default location, and the catalog re-stamps the items
 * whose stock moved.
 *
 * Two ways in:
 * - {@link importCatalog} (`POST /api/pos/catalog/import`): the whole file in one mutation, so a failed import writes
 *   nothing; a dry run does all of it and rolls back.
 * - {@link startImportJob} (`POST /api/pos/catalog/import-jobs`): a job that imports whole products in
 *   chunks of about {@link IMPORT_CHUNK_ROWS} rows, each chunk one mutation committing its rows with the job's
 *   progress, so the back office shows rows done / total, a cancel stops after the current chunk, and the chunks
 *   committed stay. A re-run of the same file is safe: products are matched by handle (then `itm_<handle>`), variants
 *   by their option values, stock counted to the file's quantity only where it differs.
 */
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { refreshPlannerStatistics } from '../platform/db/statistics.ts';
import { actorOf, mutation, type Mutation } from '../kernel/mutation.ts';
import {
  groupProducts,
  importCatalogRows,
  importProducts,
  newImportReport,
  prepareImport,
  readCatalogCsv,
  cancelImportJob as requestCancel,
  createImportJob,
  endImportJob,
  getImportJob,
  importJobStatus,
  recordImportChunk,
  type ImportContext,
  type ImportReport,
  type ImportStockCounts,
  type ProductRows,
  type ImportJob,
} from '../modules/catalog/index.ts';
import { ensureDefaultLocation, recordStockMovements } from '../modules/inventory/index.ts';

/** Thrown inside the mutation to roll a dry run back; carries the report. */
/**
 * The tables an import grows whose key lookups the planner gets wrong without statistics (platform/db/statistics.ts):
 * on `catalog_items` a SKU or variation id probe becomes a read of the merchant's every item, on `catalog_handles` the
 * handles are looked up through the (merchant, item) index (72 ms a chunk at 50,000 handles; 0.1 ms analyzed).
 * `catalog_item_shopify` and `stock_levels` have one index holding every column looked up: planned right on guesses.
 */
const IMPORT_TABLES = ['catalog_items', 'catalog_handles'];

class DryRunRollback extends Error {
  constructor(readonly report: ImportReport) {
    super('dry run');
  }
}

/**
 * Imports `csv` (the file's text) for the caller's store: catalog `readCatalogCsv` (400 before any transaction) →
 * inventory `ensureDefaultLocation` → catalog `importCatalogRows`, whose stock step is inventory
 * `recordStockMovements` (a `count` where the file's quantity differs from what is on hand). With `dryRun`, the
 * report is the same and nothing is written.
 * @throws ProblemError 400 `invalid_csv` when the text is not a Shopify product CSV.
 */
export async function importCatalog(ctx: AppContext, principal: Principal, csv: string, dryRun: boolean): Promise<ImportReport> {
  const { rows } = readCatalogCsv(csv);
  await refreshPlannerStatistics(ctx.db, IMPORT_TABLES);
  try {
    return await mutation(ctx, actorOf(principal), async (m) => {
      // Once, before the first product: every chunk's stock step counts at this location.
      const location = await ensureDefaultLocation(m.tx, m.merchantId);
      const report = await importCatalogRows(m, rows, { dryRun, countStock: countStockAt(m, location.id) });
      if (dryRun) throw new DryRunRollback(report);
      return report;
    });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.report;
    throw err;
  }
}

/**
 * The import's stock step at `locationId` (catalog `ImportStockCounts`): inventory `recordStockMovements` records a
 * count movement per variation in one go. No catalog re-stamp after it (as recordStockChange does): the import stored
 * the items with these counts already, and re-stamps itself any item whose count was not recorded.
 */
function countStockAt(m: Mutation, locationId: string): ImportStockCounts {
  return async (counts, source) => {
    if (counts.length === 0) return [];
    const result = await recordStockMovements(m, {
      locationId,
      movements: counts.map((c) => ({
        variationId: c.variationId,
        kind: 'count' as const,
        counted: c.counted,
        sourceId: source.sourceId,
        note: source.note,
      })),
    });
    return result.recorded.map((r) => r.variationId);
  };
}

/** Rows per chunk of an import job (whole products: a chunk ends at the first product boundary past it). */
export const IMPORT_CHUNK_ROWS = 500;

/** Jobs running in this process, so the server's close waits for (and stops) them. */
const running = new Map<string, { ctx: AppContext; merchantId: string; stop: boolean; cancel: boolean; done: Promise<void> }>();

/** Splits products into chunks of about `rows` rows, never splitting a product. */
export function chunkProducts(products: readonly ProductRows[], rows = IMPORT_CHUNK_ROWS): ProductRows[][] {
  const chunks: ProductRows[][] = [];
  let current: ProductRows[] = [];
  let size = 0;
  for (const p of products) {
    current.push(p);
    size += p.rows.length;
    if (size >= rows) {
      chunks.push(current);
      current = [];
      size = 0;
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Starts an import job for the caller's store and answers at once with the job (`running`, rows done 0); the chunks
 * run in the background ({@link IMPORT_CHUNK_ROWS}). `taxRateId`: the rate taxable products get (default: the store's
 * default rate, catalog `defaultImportTaxRate`).
 * @throws ProblemError 400 `invalid_csv` when the text is not a Shopify product CSV; 400 naming `taxRateId` when it is
 *   not a rate of the store (both before any job exists).
 */
export async function startImportJob(
  ctx: AppContext,
  principal: Principal,
  csv: string,
  options: { taxRateId?: string | undefined; chunkRows?: number } = {},
): Promise<ImportJob> {
  const { rows } = readCatalogCsv(csv);
  const actor = actorOf(principal);
  // The import's context (currency, default tax rate: a read of every live item's rates) is worked out once, here.
  const { jobId, locationId, ictx } = await mutation(ctx, actor, async (m) => {
    const prepared = await prepareImport(m.tx, m.merchantId, { importId: 'pending', countStock: async () => [], taxRateId: options.taxRateId });
    const location = await ensureDefaultLocation(m.tx, m.merchantId);
    const id = await createImportJob(m, rows.length);
    return { jobId: id, locationId: location.id, ictx: { ...prepared, importId: id } };
  });
  // The answer is the job as created (running, nothing done yet), read before its first chunk can start: read after,
  // it would show that chunk or not depending on which statement the database took first.
  const created = await getImportJob(ctx.db, actor.merchantId, jobId);
  const state = { ctx, merchantId: actor.merchantId, stop: false, cancel: false, done: Promise.resolve() };
  state.done = runJob(ctx, actor, jobId, locationId, ictx, rows, options, state).finally(() => running.delete(jobId));
  running.set(jobId, state);
  return created;
}

async function runJob(
  ctx: AppContext,
  actor: ReturnType<typeof actorOf>,
  jobId: string,
  locationId: string,
  ictx: ImportContext,
  rows: ReturnType<typeof readCatalogCsv>['rows'],
  options: { taxRateId?: string | undefined; chunkRows?: number },
  state: { stop: boolean; cancel: boolean },
): Promise<void> {
  try {
    // Rows without a handle are rejected up front: they go with the first chunk.
    const upfront = newImportReport(jobId, false, 0);
    const products = groupProducts(rows, upfront);
    const upfrontRows = upfront.rejected.length;
    const chunks = chunkProducts(products, options.chunkRows);
    if (chunks.length === 0) chunks.push([]);
    for (let i = 0; i < chunks.length; i++) {
      // A breath between chunks: requests queued behind the import (a register's sync, the cancel) get their turn.
      if (i > 0) await new Promise((r) => setTimeout(r, 20));
      if (state.stop) throw new Error('the server stopped during the import: run the same file again (it is safe to re-run)');
      await refreshPlannerStatistics(ctx.db, IMPORT_TABLES);
      const chunk = chunks[i]!;
      const cancelled = await mutation(ctx, actor, async (m) => {
        // The status is read under the merchant's lock, so a cancel committed before this chunk stops it.
        if (state.cancel || (await importJobStatus(m.tx, m.merchantId, jobId)) !== 'running') {
          await endImportJob(m, jobId, 'cancelled');
          return true;
        }
        const part = i === 0 ? upfront : newImportReport(jobId, false, 0);
        await importProducts(m, chunk, { ...ictx, countStock: countStockAt(m, locationId) }, part);
        const rowsInChunk = chunk.reduce((n, p) => n + p.rows.length, 0) + (i === 0 ? upfrontRows : 0);
        await recordImportChunk(m, jobId, i, part, rowsInChunk);
        m.changed('catalog-items');
        return false;
      });
      if (cancelled) return;
    }
    await mutation(ctx, actor, async (m) => {
      const status = await importJobStatus(m.tx, m.merchantId, jobId);
      await endImportJob(m, jobId, state.cancel || status === 'cancelling' ? 'cancelled' : 'done');
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await mutation(ctx, actor, (m) => endImportJob(m, jobId, 'failed', message.slice(0, 500))).catch(() => undefined);
  }
}

/** Stops the import jobs of this app (`ctx`) after their current chunk and waits for them (the server's close). */
export async function stopImportJobs(ctx: AppContext): Promise<void> {
  const mine = [...running.values()].filter((j) => j.ctx === ctx);
  for (const job of mine) job.stop = true;
  await Promise.all(mine.map((j) => j.done));
}

/**
 * Cancels an import job of the caller's store: a job running in this process hears it before its next chunk (at
 * once, without waiting for the database), and the job is marked `cancelling` (another process's runner reads that
 * before each chunk). Returns the job as it is then; an ended job is answered as it is.
 * @throws ProblemError 404 `not_found` for a job of another store or none.
 */
export async function cancelImportJob(ctx: AppContext, principal: Principal, jobId: string): Promise<ImportJob> {
  const local = running.get(jobId);
  if (local && local.ctx === ctx && local.merchantId === principal.merchantId) local.cancel = true;
  await mutation(ctx, actorOf(principal), (m) => requestCancel(m, jobId));
  return getImportJob(ctx.db, principal.merchantId, jobId);
}
