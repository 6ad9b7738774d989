/**
 * The catalog: items with variations, modifier lists, tax rates; the live catalog as a pricing snapshot; catalog
 * CSV import and its jobs; stock stamps on items.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Catalog CSV import.
export {
  groupProducts,
  importCatalogRows,
  importProducts,
  newImportReport,
  prepareImport,
  readCatalogCsv,
  type ImportContext,
  type ImportReport,
  type ImportStockCounts,
  type ProductRows,
} from './csv.ts';

// Catalog import jobs.
export { cancelImportJob, createImportJob, endImportJob, getImportJob, importJobStatus, recordImportChunk, type ImportJob } from './import-jobs.ts';

// The live catalog as a pricing snapshot.
export { loadCatalog } from './pricing.ts';

// Catalog writes: stock on hand, the demo catalog.
export { refreshStockOnHand, seedCatalog } from './service.ts';

// Items re-stamped after a replication push moved their stock.
export { restampStockOnHand } from './stock-stamps.ts';

// HTTP routes, mounted by app.ts.
export { registerCatalogRoutes } from './routes.ts';

// Item categories, for routing kitchen tickets.
export { categoriesOfItems } from './categories-of.ts';
