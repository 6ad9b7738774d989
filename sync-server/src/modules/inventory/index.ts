/**
 * Inventory: stock movements (units on hand are their sum), locations, thresholds and stock requests.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Stock taken off by many register sales at once (replication push).
export { recordSalesStock, salesStockReadPart } from './sale-stock.ts';

// Stock movements, locations, stock requests.
export {
  connectSaleStockRestamp,
  ensureDefaultLocation,
  hasStockMovementsOf,
  recordSaleStock,
  recordStockMovements,
  recordStockRequest,
  type RecordStockMovementsInput,
  type RecordStockMovementsResult,
  type StockRequestResult,
  type VariationsOnHand,
} from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerInventoryRoutes } from './routes.ts';
