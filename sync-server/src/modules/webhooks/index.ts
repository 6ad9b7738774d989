/**
 * Webhooks: subscriptions, and the delivery worker that drains the transactional outbox.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Subscriptions and the delivery worker.
export { deleteAppSubscriptions, sealLegacyWebhookSecrets, WebhookWorker, type WebhookWorkerOptions } from './service.ts';

// HTTP routes, mounted by app.ts.
export { registerWebhookRoutes } from './routes.ts';
