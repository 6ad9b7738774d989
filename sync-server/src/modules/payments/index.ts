/**
 * Payments: processors behind one interface, rails and routing fees, staff tenders, settlements and payouts.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Rail routing and processing fees.
export { postProcessingFee, routeCharge } from './fees.ts';

// Payouts.
export type { PayoutAdapter } from './payouts.ts';

// Payment processors.
export { defaultPaymentProcessor, processorFor, type PaymentProcessor } from './processors.ts';

// A merchant's payment rails.
export { merchantRails, merchantRailsPart } from './rails.ts';

// Settlement of delayed rails.
export { recordPendingSettlement, recordPendingSettlements, runSettlements, type ReturnedSettlement } from './settlements.ts';

// Tenders staff take through the orders API.
export { captureStaffTender } from './staff-tenders.ts';

// HTTP routes, mounted by app.ts.
export { registerPaymentRoutes } from './routes.ts';
