/**
 * Ledger read models: the SMS and e-mail outboxes, the replication quarantine and the journal (reads only).
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// HTTP routes, mounted by app.ts.
export { registerPosRoutes } from './routes.ts';
