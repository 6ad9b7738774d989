/**
 * Open checks of a restaurant (core/checks.ts, core/check-documents.ts), replicated by registers.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Pushed check documents joined with the stored ones, and payments past a check's total flagged (sync/routes.ts).
export { storeCheckDocuments, type OverpaymentFlag } from './service.ts';
// The open checks on tables a floor plan save would remove (workflows/floor-plan-save.ts).
export { openChecksOnTables } from './service.ts';
// HTTP routes, mounted by app.ts.
export { registerCheckRoutes } from './routes.ts';

// The sent lines and their checks, for the kitchen's tickets (workflows/kitchen-tickets.ts).
export { readSentCheckBook } from './kitchen-reads.ts';
