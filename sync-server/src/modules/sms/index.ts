/**
 * SMS delivery: the carrier adapter, the worker that drains `sms_outbox` and the carrier's signed callbacks
 * (docs/decisions/0091-sms-through-a-provider-api.md).
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// Carrier adapter, signature and configuration.
export { isValidTwilioSignature, twilioConfigFromEnv, twilioSignature, TwilioCarrier, type TwilioConfig } from './carrier.ts';
export { isValidVonageSignature, vonageConfigFromEnv, vonageSignature, VonageCarrier, type VonageConfig } from './vonage.ts';

// The outbox every text is written to, in the caller's transaction (app.ts gives it to the context).
export { OutboxSmsProvider } from './outbox.ts';

// Delivery worker, started by app.ts.
export { SmsDeliveryWorker, type SmsDeliveryWorkerOptions } from './worker.ts';

// HTTP routes, mounted by app.ts.
export { registerSmsRoutes } from './routes.ts';
