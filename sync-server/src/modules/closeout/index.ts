/**
 * Closeout: shifts, cash movements, shift closeouts and store closeouts (one per closed business day), and their reports.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// The closeout tables (reads and writes; the checks are the shift-closeout workflow's).
export {
  activeRegisters,
  closedDays,
  findShiftDocuments,
  firstOpenDay,
  getStoreCloseout,
  insertCashMovement,
  insertShift,
  insertShiftCloseout,
  insertStoreCloseout,
  shiftsOfDay,
  type ShiftCollection,
  type ShiftRecord,
  type StoredShiftDocument,
} from './store.ts';

// HTTP routes, mounted by app.ts.
export { registerCloseoutRoutes } from './routes.ts';
