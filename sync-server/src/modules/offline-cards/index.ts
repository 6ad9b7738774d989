/**
 * Offline card payments, store and forward: the records of card tenders approved offline and their forwards.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Offline card records and their forwards.
export {
  claimForwards,
  dueForwardRetries,
  expireStaleForwards,
  merchantsWithExpiredForwards,
  recordForwardOutcome,
  recordOfflineCardPayments,
  releaseForward,
  type OfflineCardRecord,
} from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerOfflineCardRoutes } from './routes.ts';
