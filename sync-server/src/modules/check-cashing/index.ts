/**
 * Check cashing: the store pays cash for a customer's check, less a fee.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Check cashing: plan, record, finish held, cash of a shift.
export {
  assertCustomerDailyLimit,
  CHECK_REFUSED_ACTION,
  checkCashOfShift,
  finishHeldCheck,
  getCheckCashing,
  planCheckCashing,
  recordCheckCashing,
  type CheckCashCreate,
  type CheckCashing,
} from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerCheckCashingRoutes } from './routes.ts';
