/**
 * Staff roles and THE permission table: which staff role a route needs. The route guard
 * (`guard.ts`, {@link requiredRole}) applies it to every staff token; app tokens and register credentials are governed
 * by their scopes and by `Access` instead. Roles are ordered owner ⊇ manager ⊇ cashier.
 *
 * - **cashier** — selling: catalog and stock reads, orders (create, pay, receipts, refunds — above the store's
 *   `cashierRefundLimitCents` only with a manager's approval), customers (not delete), pay requests, the register's
 *   sign-in and approvals, staff list and sync routes.
 * - **manager** — cashier's, plus cancels, refunds without approval, catalog / tax / stock edits, images, invoices, reports, the
 *   ledger, quarantine and outboxes, registers list and pairing codes, reading the settings, adding cashiers.
 * - **owner** — everything: settings changes, webhooks, revoking registers, audit trail and checkpoints, staff roles.
 *
 * A route missing from the table needs the owner (fail closed): a new route is only open to cashiers or managers once
 * it is listed here.
 */

/** A staff member's role (the `role` claim of a staff token, `staff.role` in the database). */
export type StaffRole = 'owner' | 'manager' | 'cashier';

const RANK: Record<StaffRole, number> = { cashier: 0, manager: 1, owner: 2 };

/**
 * The permission table: `"METHOD /fastify/url/:param"` → the least role that may call it. Routes not listed need
 * `owner`. HEAD follows GET.
 */
export const ROUTE_ROLES: Readonly<Record<string, StaffRole>> = {
  // Selling: catalog and stock reads
  'GET /api/pos/catalog': 'cashier',
  'GET /api/pos/catalog/categories': 'cashier',
  'GET /api/pos/catalog/items/:id': 'cashier',
  'GET /api/pos/catalog/locations': 'cashier',
  'GET /api/pos/catalog/inventory': 'cashier',
  'GET /api/pos/catalog/inventory/low-stock': 'cashier',
  // Orders and receipts
  'GET /api/pos/orders': 'cashier',
  'POST /api/pos/orders': 'cashier',
  'GET /api/pos/orders/:id': 'cashier',
  'POST /api/pos/orders/:id/payments': 'cashier',
  'GET /api/pos/orders/:id/receipt': 'cashier',
  'POST /api/pos/orders/:id/receipts': 'cashier',
  'GET /api/pos/sms-outbox': 'cashier',
  'GET /api/pos/messages/latest': 'cashier',
  // Customers (deleting one is a manager's)
  'GET /api/pos/customers': 'cashier',
  'POST /api/pos/customers': 'cashier',
  'GET /api/pos/customers/:id': 'cashier',
  'PATCH /api/pos/customers/:id': 'cashier',
  'GET /api/pos/customers/:id/orders': 'cashier',
  // Pay requests (a pay link is a sale taken remotely)
  'GET /api/pos/floor-plan': 'cashier',
  'PUT /api/pos/floor-plan': 'manager',
  'GET /api/pos/kitchen/setup': 'cashier',
  'PUT /api/pos/kitchen/setup': 'manager',
  'GET /api/pos/kitchen/stations/:stationId/tickets': 'cashier',
  'POST /api/pos/kitchen/stations/:stationId/tickets/:sendId/bump': 'cashier',
  'POST /api/pos/kitchen/stations/:stationId/tickets/:sendId/recall': 'cashier',
  'GET /api/pos/kitchen/ticket-times': 'manager',
  'GET /api/pos/check-overpayments': 'manager',
  'GET /api/pos/service-charges': 'cashier',
  'PUT /api/pos/service-charges': 'manager',
  // The appointment book: the front desk books, moves, marks and cancels; managers set services, resources and hours
  'GET /api/pos/appointment-services': 'cashier',
  'GET /api/pos/appointment-resources': 'cashier',
  'GET /api/pos/staff-schedules': 'cashier',
  'GET /api/pos/appointment-availability': 'cashier',
  'GET /api/pos/appointments': 'cashier',
  'POST /api/pos/appointments': 'cashier',
  'PATCH /api/pos/appointments/:id': 'cashier',
  'POST /api/pos/appointment-services': 'manager',
  'PATCH /api/pos/appointment-services/:id': 'manager',
  'POST /api/pos/appointment-resources': 'manager',
  'PATCH /api/pos/appointment-resources/:id': 'manager',
  'PUT /api/pos/staff-schedules/:staffId': 'manager',
  'GET /api/pos/pay-requests': 'cashier',
  'POST /api/pos/pay-requests': 'cashier',
  'POST /api/pos/pay-request-previews': 'cashier',
  'GET /api/pos/pay-requests/:id': 'cashier',
  // The app directory: every staff member may browse it; installing is the owner's
  'GET /api/pos/app-directory': 'cashier',
  'GET /api/pos/app-directory/:id': 'cashier',
  'GET /api/pos/app-installations': 'cashier',
  'POST /api/pos/app-installations/:id/launch': 'cashier',
  // App subscriptions and their charges: managers read them; the billing method is the owner's
  'GET /api/pos/app-subscriptions': 'manager',
  'POST /api/pos/pay-requests/:id/cancel': 'cashier',
  // The register: sign-in, staff list, replication
  'GET /api/register/staff': 'cashier',
  'GET /api/register/device-bridge': 'cashier',
  'GET /api/register/kitchen': 'cashier',
  'GET /api/register/return-rules': 'cashier',
  'POST /api/register/sign-in': 'cashier',
  'POST /api/register/approvals': 'cashier',
  'GET /api/sync/:collection/pull': 'cashier',
  'POST /api/sync/:collection/push': 'cashier',
  'GET /api/sync/:collection/stream': 'cashier',
  'POST /api/sync/stream-tickets': 'cashier',
  'GET /api/sync/registers/:registerId': 'cashier',
  'POST /api/sync/registers/:registerId/missing-receipts': 'cashier',
  'POST /api/sync/audit/head-reports': 'cashier',

  // Refunds: a cashier's above the store's cashierRefundLimitCents needs a manager's approval (workflows/refund-order.ts)
  'POST /api/pos/orders/:id/refunds': 'cashier',
  // Managers: cancels
  'POST /api/pos/orders/:id/cancel': 'manager',
  'DELETE /api/pos/customers/:id': 'manager',
  // Catalog, tax and stock edits, images
  'POST /api/pos/catalog/items': 'manager',
  'PATCH /api/pos/catalog/items/:id': 'manager',
  'DELETE /api/pos/catalog/items/:id': 'manager',
  'PATCH /api/pos/catalog/categories/:name': 'manager',
  'POST /api/pos/catalog/tax-rates': 'manager',
  'PATCH /api/pos/catalog/tax-rates/:id': 'manager',
  'DELETE /api/pos/catalog/tax-rates/:id': 'manager',
  'POST /api/pos/catalog/locations': 'manager',
  'GET /api/pos/catalog/export': 'manager',
  'POST /api/pos/catalog/import': 'manager',
  'POST /api/pos/catalog/import-jobs': 'manager',
  'GET /api/pos/catalog/import-jobs/:id': 'manager',
  'POST /api/pos/catalog/import-jobs/:id/cancel': 'manager',
  'POST /api/pos/catalog/inventory/adjust': 'manager',
  'POST /api/pos/catalog/inventory/count': 'manager',
  'POST /api/pos/catalog/inventory/receive': 'manager',
  'POST /api/pos/catalog/inventory/thresholds': 'manager',
  'GET /api/pos/catalog/inventory/movements': 'manager',
  'GET /api/v1/credits': 'manager',
  'POST /api/v1/images/generate': 'manager',
  'POST /api/v1/images/:id/keep': 'manager',
  // Invoices
  'GET /api/pos/invoices': 'manager',
  'POST /api/pos/invoices': 'manager',
  'GET /api/pos/invoices/:id': 'manager',
  'PATCH /api/pos/invoices/:id': 'manager',
  'POST /api/pos/invoices/:id/payments': 'manager',
  'GET /api/pos/invoices/:id/pdf': 'manager',
  'POST /api/pos/invoices/:id/send': 'manager',
  'POST /api/pos/invoices/:id/refunds': 'manager',
  'POST /api/pos/invoices/:id/void': 'manager',
  'GET /api/pos/invoice-series': 'manager',
  'POST /api/pos/invoice-series': 'manager',
  'GET /api/pos/invoice-series/:id': 'manager',
  'POST /api/pos/invoice-series/:id/end': 'manager',
  'POST /api/pos/invoice-series/:id/pause': 'manager',
  'POST /api/pos/invoice-series/:id/resume': 'manager',
  // Reports, ledger, quarantine, outboxes
  'GET /api/pos/reports/sales': 'manager',
  'GET /api/pos/reports/refunds': 'manager',
  'GET /api/pos/reports/tax': 'manager',
  'GET /api/pos/reports/trial-balance': 'manager',
  'GET /api/pos/ledger/journal-transactions': 'manager',
  'GET /api/pos/ledger/trial-balance': 'manager',
  'GET /api/pos/quarantine': 'manager',
  'GET /api/pos/email-outbox': 'manager',
  'GET /api/pos/email-suppressions': 'manager',
  'DELETE /api/pos/email-suppressions/:address': 'manager',
  'GET /api/pos/sms-opt-outs': 'manager',
  'GET /api/pos/demo-outbox': 'manager',
  'GET /api/pos/demo-outbox/mail/:id': 'manager',
  'GET /api/pos/demo-outbox/sms/:id': 'manager',
  'GET /api/sync/missing-receipts': 'manager',
  // Registers and settings (read)
  'GET /api/pos/registers': 'manager',
  'POST /api/pos/registers/pairing-codes': 'manager',
  'GET /api/pos/settings': 'manager',
  // Message templates: managers read and preview them; saving one is the owner's, as every settings change
  'GET /api/pos/message-templates': 'manager',
  'POST /api/pos/message-template-previews': 'manager',
  // Shifts and the daily closeout: managers read shifts and close the store's day
  'GET /api/pos/shifts/:id': 'manager',
  'GET /api/pos/shifts/:id/report': 'manager',
  'GET /api/pos/closeouts': 'manager',
  'GET /api/pos/closeouts/:day': 'manager',
  'GET /api/pos/closeouts/:day/report': 'manager',
  'POST /api/pos/closeouts': 'manager',
  // Payment rails, settlements, offline card payments (read); changing rails and paying out is the owner's
  'GET /api/pos/rails': 'manager',
  'GET /api/pos/rails/route': 'manager',
  'GET /api/pos/settlements': 'manager',
  'GET /api/pos/payouts': 'manager',
  'GET /api/pos/reports/settlements': 'manager',
  'GET /api/pos/offline-cards/limits': 'manager',
  'GET /api/pos/offline-cards/payments': 'manager',
  // Staff: managers see the staff and add cashiers (the handler refuses them other roles)
  'GET /api/pos/staff': 'manager',
  'POST /api/pos/staff': 'manager',
  // Financial services: a cashier runs a service; a manager clears or refuses a hold and reads the lists
  'GET /api/pos/financial-services': 'cashier',
  'GET /api/pos/billers': 'cashier',
  'POST /api/pos/bill-payments/validate': 'cashier',
  'POST /api/pos/bill-payments': 'cashier',
  'GET /api/pos/bill-payments/:id': 'cashier',
  'POST /api/pos/bill-payments/:id/refresh': 'cashier',
  'POST /api/pos/bill-payments/:id/complete': 'cashier',
  'POST /api/pos/bill-payments/:id/refuse': 'manager',
  'GET /api/pos/bill-payments': 'manager',
  'POST /api/pos/check-cashings': 'cashier',
  'GET /api/pos/check-cashings/:id': 'cashier',
  'GET /api/pos/check-cashings/:id/image': 'cashier',
  'POST /api/pos/check-cashings/:id/complete': 'cashier',
  'POST /api/pos/check-cashings/:id/refuse': 'manager',
  'GET /api/pos/check-cashings': 'manager',
  'POST /api/pos/transfers/quote': 'cashier',
  'POST /api/pos/transfers': 'cashier',
  'GET /api/pos/transfers/:id': 'cashier',
  'POST /api/pos/transfers/:id/complete': 'cashier',
  'POST /api/pos/transfers/:id/refuse': 'manager',
  'POST /api/pos/transfers/:id/cancel': 'cashier',
  'POST /api/pos/transfers/:id/refresh': 'cashier',
  'GET /api/pos/transfers': 'manager',
  // Financial services: cashiers screen names and verify IDs; managers clear or refuse held screenings,
  // read the lists and settings; owners upload a list version and change the settings
  'POST /api/pos/screenings': 'cashier',
  'GET /api/pos/screenings/:id': 'cashier',
  'POST /api/pos/id-verifications': 'cashier',
  'GET /api/pos/screenings': 'manager',
  'POST /api/pos/screenings/:id/clear': 'manager',
  'POST /api/pos/screenings/:id/refuse': 'manager',
  'GET /api/pos/sanctions-lists': 'manager',
  'GET /api/pos/screening-settings': 'manager',
  'GET /api/pos/id-verifications': 'manager',
  'GET /api/pos/id-verifications/:id': 'manager',
  'GET /api/pos/id-verification-settings': 'manager',

  // Owners (listed for the reader; unlisted routes need the owner anyway)
  'PATCH /api/pos/settings': 'owner',
  'PUT /api/pos/message-templates/:kind': 'owner',
  'DELETE /api/pos/message-templates/:kind': 'owner',
  'POST /api/pos/registers/:id/revoke': 'owner',
  'POST /api/pos/registers/retire-unused': 'owner',
  'PATCH /api/pos/rails/:rail': 'owner',
  'POST /api/pos/payouts': 'owner',
  'PATCH /api/pos/offline-cards/limits': 'owner',
  'PATCH /api/pos/staff/:id': 'owner',
  'POST /api/pos/staff/:id/pin': 'owner',
  'POST /api/pos/sanctions-lists': 'owner',
  'PATCH /api/pos/screening-settings': 'owner',
  'PATCH /api/pos/financial-services/settings': 'owner',
  'PATCH /api/pos/id-verification-settings': 'owner',
  'GET /api/pos/audit/verify': 'owner',
  'POST /api/pos/audit/verify': 'owner',
  'GET /api/pos/audit/checkpoints': 'owner',
  'POST /api/pos/audit/checkpoints': 'owner',
  'GET /api/pos/webhooks': 'owner',
  'POST /api/pos/webhooks': 'owner',
  'GET /api/pos/webhooks/:id': 'owner',
  'PATCH /api/pos/webhooks/:id': 'owner',
  'DELETE /api/pos/webhooks/:id': 'owner',
  'GET /api/pos/webhooks/:id/deliveries': 'owner',
  'POST /api/pos/webhooks/:id/deliveries/:deliveryId/redeliver': 'owner',
  'POST /api/pos/webhooks/:id/rotate-secret': 'owner',
};

/** The least role that may call `method url` (`url` the route's Fastify pattern, e.g. `/api/pos/orders/:id`); `owner` when unlisted. */
export function requiredRole(method: string, url: string): StaffRole {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return ROUTE_ROLES[`${m} ${url}`] ?? 'owner';
}

/** Whether `role` (any string: an unknown role is allowed nothing) is at least `needed`. */
export function roleAtLeast(role: string, needed: StaffRole): boolean {
  return role in RANK && RANK[role as StaffRole] >= RANK[needed];
}
