/**
 * The answer of a catalog CSV import (`POST /api/pos/catalog/import`, Shopify product CSV — see
 * sync-server/src/services/catalog-csv.ts): every data row is accounted for, as imported (a variant or an image row)
 * or rejected with its 1-based CSV line number and reason; details the format could not carry are warnings.
 */
import { z } from 'zod';

const csvLine = z.int().min(1);

/** The import report, the same for a dry run (`dryRun: true`: nothing written) and a real import. */
export const importReportSchema = z.strictObject({
  importId: z.string(),
  dryRun: z.boolean(),
  /** Data rows (the header excluded) = importedRows + rejected.length. */
  rows: z.int().min(0),
  importedRows: z.int().min(0),
  variantRows: z.int().min(0),
  imageRows: z.int().min(0),
  items: z.strictObject({ created: z.int().min(0), updated: z.int().min(0), unchanged: z.int().min(0) }),
  /** Stock `count` movements written from `Variant Inventory Qty`. */
  stockMovements: z.int().min(0),
  rejected: z.array(z.strictObject({ line: csvLine, handle: z.string().nullable(), reason: z.string() })),
  warnings: z.array(z.strictObject({ line: csvLine, handle: z.string().nullable(), message: z.string() })),
  /** One entry per product handle: the item it became and what happened to it. */
  results: z.array(z.strictObject({ handle: z.string(), itemId: z.string(), status: z.enum(['created', 'updated', 'unchanged']) })),
});
export type ImportReport = z.infer<typeof importReportSchema>;

/**
 * A catalog import run as a job (`POST /api/pos/catalog/import-jobs`): whole products in chunks, each chunk committed
 * with the job's progress. `running` → `done`, or `cancelling` → `cancelled` (the chunks committed before stay: a
 * re-run of the same file is safe, products are matched by handle and SKU), or `failed` (`error` says why).
 */
export const importJobSchema = z.strictObject({
  id: z.string(),
  status: z.enum(['running', 'cancelling', 'cancelled', 'done', 'failed']),
  /** Data rows of the file (the header excluded). */
  rowsTotal: z.int().min(0),
  /** Data rows handled so far (imported or rejected), counted per committed chunk. */
  rowsDone: z.int().min(0),
  items: z.strictObject({ created: z.int().min(0), updated: z.int().min(0), unchanged: z.int().min(0) }),
  rejectedRows: z.int().min(0),
  error: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** The report of the rows handled so far; only once the job has ended (done, cancelled or failed), else null. */
  report: importReportSchema.nullable(),
});
export type ImportJob = z.infer<typeof importJobSchema>;

/**
 * The largest Shopify product CSV an import job takes, in bytes (64 MiB): a whole export of a 50,000-product store
 * with descriptions (~20–60 MiB) in one file. Jobs read the file in chunks of whole products, each its own
 * transaction; the one-transaction import (`POST /api/pos/catalog/import`, dry runs) keeps CATALOG_CSV_MAX_BYTES.
 */
export const CATALOG_IMPORT_JOB_MAX_BYTES = 64 * 1024 * 1024;

/** `POST /api/pos/catalog/import-jobs` JSON body (or the file itself as `text/csv`, `taxRateId` then in the query). */
export const importJobRequestSchema = z.strictObject({
  csv: z.string().min(1).max(CATALOG_IMPORT_JOB_MAX_BYTES),
  /** The tax rate taxable products get; default: the store's default rate (the one most items carry). */
  taxRateId: z
    .string()
    .regex(/^tax_[A-Za-z0-9_-]{1,40}$/, 'must be an id starting with tax_')
    .optional(),
});
