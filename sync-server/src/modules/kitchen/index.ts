/**
 * The kitchen: stations, routing and ticket age thresholds (core/kitchen-display.ts), and the bumps and recalls of
 * tickets on the stations' displays.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// The set-up and the trail of bumps (workflows/kitchen-tickets.ts, sync/register-config.ts).
export { readKitchenSetup, readTicketEvents, recordTicketEvent } from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerKitchenRoutes } from './routes.ts';
