/**
 * App billing: paid app subscriptions, their charges and refunds, developer earnings and payouts, on the platform ledger.
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// The billing and payout adapters (options of the app).
export type { AppBillingOptions } from './adapters.ts';

// Developer earnings releases and payouts (housekeeping).
export { runDeveloperEarningsReleases, runScheduledDeveloperPayouts } from './payouts.ts';

// Paid app subscriptions: started and ended with an installation, billed by housekeeping.
export { appSubscriptionStatus, endAppSubscription, runAppBilling, startAppSubscription } from './subscriptions.ts';

// HTTP routes, mounted by app.ts.
export { registerAppBillingRoutes } from './routes.ts';
