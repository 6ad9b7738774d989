/**
 * One tick of the recurring-invoice scheduler (modules/invoices/recurring.ts runs it): due occurrences of
 * every active series become drafts (invoices module, priced against the catalog module), auto-send drafts are sent
 * (invoice-issue workflow), and the housekeeping of every tick runs: expired pay requests (pay-links module), overdue
 * invoices (invoices module), idempotency keys past their 24 h (platform), a signed audit checkpoint for every
 * merchant whose audit head moved (kernel/checkpoints.ts), settlements of delayed rails (a returned bank payment gives
 * the order it paid its balance due back: settlement-return workflow), and the offline card forwards:
 * released ones retried with backoff, those past the store's forward window expired (offline-card-forward workflow);
 * the financial services' status tracking: money transfers and bill payments the partners still move;
 * and app billing: monthly renewals and retries of app subscriptions, weekly developer payouts (modules/app-billing).
 */
import { runSettlements } from '../modules/payments/index.ts';
import { utcDate } from '../../../core/index.ts';
import { writeDueCheckpoints } from '../kernel/checkpoints.ts';
import type { AppContext } from '../platform/context.ts';
import { purgeIdempotencyKeys } from '../platform/http/idempotency.ts';
import { loadCatalog } from '../modules/catalog/index.ts';
import { dueSeriesIds, generateDueInvoices, unsentAutoSendDrafts, markOverdueInvoices, type TickReport } from '../modules/invoices/index.ts';
import { expirePayRequests } from '../modules/pay-links/index.ts';
import { sendInvoiceAs } from './invoice-issue.ts';
import { runOfflineForwardRetries } from './offline-card-forward.ts';
import { trackFinancialServices } from './financial-services.ts';
import type { TransferPartner } from '../modules/transfers/index.ts';
import type { BillPartner } from '../modules/bill-payments/index.ts';
import { runDeveloperEarningsReleases, runScheduledDeveloperPayouts, runAppBilling, type AppBillingOptions } from '../modules/app-billing/index.ts';
import { reopenReturnedPayment } from './settlement-return.ts';
import { refreshEmbeddedStatistics } from '../platform/db/statistics.ts';

/**
 * One pass at the context's clock: due occurrences of every active series, auto-sending their drafts, then the expiry
 * of pay requests and overdue invoices. Errors of one series or draft do not stop the others (they are in the report).
 */
export async function runRecurringInvoices(ctx: AppContext, partners?: { transfer: TransferPartner; bill: BillPartner }, appBilling: AppBillingOptions = {}): Promise<TickReport> {
  const now = ctx.clock();
  const today = utcDate(now);
  const report: TickReport = { generated: [], sent: [], ended: [], expiredPayRequests: 0, overdueInvoices: 0, purgedIdempotencyKeys: 0, auditCheckpoints: 0, settlements: { settled: 0, returned: 0 }, offlineForwards: { forwarded: 0, expired: 0 }, financialServices: { transfersMoved: 0, billPaymentsMoved: 0 }, errors: [] };
  for (const id of await dueSeriesIds(ctx.db, today)) {
    try {
      await generateDueInvoices(ctx, id, today, report, loadCatalog);
    } catch (err) {
      report.errors.push({ seriesId: id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  for (const d of await unsentAutoSendDrafts(ctx.db)) {
    try {
      await sendInvoiceAs(ctx, { merchantId: d.merchantId, actor: 'system' }, d.id, d.channels ? { channels: d.channels } : {});
      report.sent.push(d.id);
    } catch (err) {
      report.errors.push({ invoiceId: d.id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  report.expiredPayRequests = await expirePayRequests(ctx.db, now);
  report.overdueInvoices = await markOverdueInvoices(ctx.db, now);
  report.purgedIdempotencyKeys = await purgeIdempotencyKeys(ctx.db, now);
  report.auditCheckpoints = await writeDueCheckpoints(ctx.db, ctx.auditSigner, now, ctx.auditWitness);
  report.settlements = await runSettlements(ctx.db, now, reopenReturnedPayment);
  report.offlineForwards = await runOfflineForwardRetries(ctx.db, now);
  if (partners) {
    const tracked = await trackFinancialServices(ctx, partners);
    report.financialServices = { transfersMoved: tracked.transfers.moved, billPaymentsMoved: tracked.billPayments.moved };
    report.errors.push(...tracked.errors.map((e) => ({ recordId: e.id, message: e.message })));
  }
  const billed = await runAppBilling(ctx.db, now, { ...(appBilling.billing ? { billing: appBilling.billing } : {}), email: ctx.email });
  // Held developer earnings whose hold has ended become available before the weekly payouts look at them.
  const releases = await runDeveloperEarningsReleases(ctx.db, now);
  const payouts = await runScheduledDeveloperPayouts(ctx.db, now, {
    ...(appBilling.paymentConnect ? { paymentConnect: appBilling.paymentConnect } : {}),
    ...(appBilling.payoutMinimumCents !== undefined ? { minimumCents: appBilling.payoutMinimumCents } : {}),
  });
  report.appBilling = { charged: billed.charged, failed: billed.failed, suspended: billed.suspended, developerEarningsReleased: releases.released, developerPayouts: payouts.paid };
  // Last, outside every transaction: planner statistics of the embedded database's tables that grew (PGlite never
  // analyzes on its own).
  report.analyzedTables = await refreshEmbeddedStatistics(ctx.db);
  for (const e of billed.errors) report.errors.push({ message: `app subscription ${e.subscriptionId}: ${e.message}` });
  for (const e of releases.errors) report.errors.push({ message: `developer earnings release ${e.developerId}: ${e.message}` });
  for (const e of payouts.errors) report.errors.push({ message: `developer payout ${e.developerId}: ${e.message}` });
  return report;
}
