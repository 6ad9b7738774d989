/**
 * Merchants: sign-up, store settings, staff and their PINs, registers and their enrollment, manager approvals, the demo store.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Manager approvals.
export { consumeApproval } from './approvals.ts';

// HTTP routes, mounted by app.ts.
export { registerDevRoutes } from './dev-routes.ts';

// HTTP routes, mounted by app.ts.
export { registerEnrollmentRoutes } from './enrollment-routes.ts';

// Register enrollment: pairing codes.
export { issueSystemPairingCode, PAIRING_CODE_TTL_MS } from './enrollment.ts';

// The back-office register.
export { ensureBackOfficeRegister } from './registers.ts';

// The demo store.
export {
  createDemoMerchant,
  DEMO_CATALOG_ITEMS,
  DEMO_TAX_RATES,
  ensureDemoAccess,
  findDemoMerchant,
  OPENING_STOCK_SOURCE,
  openingStockCounts,
  reissueDemoAppToken,
  type DemoSeed,
} from './seed.ts';

// Store settings.
export { getSettings } from './settings.ts';

// HTTP routes, mounted by app.ts.
export { registerSignUpRoutes } from './signup-routes.ts';

// Merchant sign-up: the merchants row.
export { createMerchant, newMerchantId, type SignUpInput } from './signup.ts';

// Staff PINs.
export { resetStaffPin } from './staff-pins.ts';

// HTTP routes, mounted by app.ts.
export { registerStaffRoutes } from './staff-routes.ts';

// Staff management.
export { createStaff } from './staff.ts';

// HTTP routes, mounted by app.ts.
export { registerSettingsRoutes } from './routes.ts';

// Staff names by id (the kitchen display's server).
export { staffNamesOf } from './staff-names.ts';
