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
