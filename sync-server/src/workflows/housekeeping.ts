/**
 * The housekeeping tick: the server's periodic jobs, run in this order by {@link runHousekeeping} (once when the app
 * starts, then every {@link HOUSEKEEPING_INTERVAL_MS}, by the {@link HousekeepingScheduler} that buildApp starts and
 * stops):
 *
 *   1. recurring invoices: due occurrences of every active series become drafts, auto-send drafts are sent
 *      (workflows/recurring-invoices.ts);
 *   2. expired pay requests (pay-links module) and 3. overdue invoices (invoices module);
 *   4. idempotency keys past their 24 h (platform);
 *   5. a signed audit checkpoint for every merchant whose audit head moved (kernel/checkpoints.ts);
 *   6. settlements of delayed rails (a returned bank payment gives the order it paid its balance due back:
 *      settlement-return workflow);
 *   7. offline card forwards: released ones retried with backoff, those past the store's forward window expired
 *      (offline-card-forward workflow);
 *   8. the financial services' status tracking: money transfers and bill payments the partners still move;
 *   9. app billing: monthly renewals and retries of app subscriptions, held developer earnings released, weekly
 *      developer payouts (modules/app-billing);
 *  10. last, outside every transaction: planner statistics of the embedded database's tables that grew.
 */
import { utcDate } from '../../../core/index.ts';
import { writeDueCheckpoints } from '../kernel/checkpoints.ts';
import { runAppBilling, runDeveloperEarningsReleases, runScheduledDeveloperPayouts, type AppBillingOptions } from '../modules/app-billing/index.ts';
import type { BillPartner } from '../modules/bill-payments/index.ts';
import { markOverdueInvoices, type RecurringInvoicesReport } from '../modules/invoices/index.ts';
import { expirePayRequests } from '../modules/pay-links/index.ts';
import { runSettlements } from '../modules/payments/index.ts';
import type { TransferPartner } from '../modules/transfers/index.ts';
import type { AppContext } from '../platform/context.ts';
import { refreshEmbeddedStatistics } from '../platform/db/statistics.ts';
import { purgeIdempotencyKeys } from '../platform/http/idempotency.ts';
import { trackFinancialServices } from './financial-services.ts';
import { runOfflineForwardRetries } from './offline-card-forward.ts';
import { runRecurringInvoices } from './recurring-invoices.ts';
import { reopenReturnedPayment } from './settlement-return.ts';

/** Default interval of the housekeeping tick, in ms (every 60 s). */
export const HOUSEKEEPING_INTERVAL_MS = 60_000;

/** What one housekeeping tick did: the recurring invoices' report (`generated`, `sent`, `ended` ids), then each job's counts. */
export interface HousekeepingReport extends RecurringInvoicesReport {
  expiredPayRequests: number;
  overdueInvoices: number;
  /** Idempotency keys past their 24 h, deleted. */
  purgedIdempotencyKeys: number;
  /** Signed audit checkpoints written (merchants whose audit head moved since their last one). */
  auditCheckpoints: number;
  /** Delayed-rail payments settled and returned by the bank (modules/payments/settlements.ts). */
  settlements: { settled: number; returned: number };
  /** Offline card forwards retried now with an outcome, and those expired past the store's forward window. */
  offlineForwards: { forwarded: number; expired: number };
  /** Money transfers and bill payments whose status the partner moved (workflows/financial-services.ts). */
  financialServices: { transfersMoved: number; billPaymentsMoved: number };
  /** App billing (modules/app-billing): renewals and retries charged, declined, suspended; held developer earnings released; payouts made. */
  appBilling?: { charged: number; failed: number; suspended: number; developerEarningsReleased: number; developerPayouts: number };
  /** Tables whose planner statistics were refreshed (the embedded database only; platform/db/statistics.ts). */
  analyzedTables?: string[];
  /** Errors of one series, draft, record, subscription or developer: they never stop the other jobs or items. */
  errors: { seriesId?: string; invoiceId?: string; recordId?: string; message: string }[];
}

/**
 * One housekeeping tick at the context's clock (read once), its jobs in the order above. Errors of one series, draft,
 * tracked record, subscription or developer do not stop the others: they are in the report's `errors`.
 * @param partners the financial services' partners; without them, nothing is tracked
 * @param appBilling the app billing's adapters and the developer payouts' minimum (cents)
 * @throws what a job's own statements throw (the scheduler hands it to `onError`)
 */
export async function runHousekeeping(
  ctx: AppContext,
  partners?: { transfer: TransferPartner; bill: BillPartner },
  appBilling: AppBillingOptions = {},
): Promise<HousekeepingReport> {
  const now = ctx.clock();
  const report: HousekeepingReport = {
    generated: [],
    sent: [],
    ended: [],
    expiredPayRequests: 0,
    overdueInvoices: 0,
    purgedIdempotencyKeys: 0,
    auditCheckpoints: 0,
    settlements: { settled: 0, returned: 0 },
    offlineForwards: { forwarded: 0, expired: 0 },
    financialServices: { transfersMoved: 0, billPaymentsMoved: 0 },
    errors: [],
  };
  await runRecurringInvoices(ctx, utcDate(now), report);
  report.expiredPayRequests = await expirePayRequests(ctx, now);
  report.overdueInvoices = await markOverdueInvoices(ctx, now);
  report.purgedIdempotencyKeys = await purgeIdempotencyKeys(ctx.db, now);
  report.auditCheckpoints = await writeDueCheckpoints(ctx.db, ctx.auditSigner, now, ctx.auditWitness);
  report.settlements = await runSettlements(ctx, now, reopenReturnedPayment);
  report.offlineForwards = await runOfflineForwardRetries(ctx, now);
  if (partners) await trackServices(ctx, partners, report);
  const appErrors = await runAppBillingJobs(ctx, now, appBilling, report);
  // Last, outside every transaction: planner statistics of the embedded database's tables that grew (PGlite never
  // analyzes on its own).
  report.analyzedTables = await refreshEmbeddedStatistics(ctx.db);
  report.errors.push(...appErrors);
  return report;
}

/** The financial services' status tracking, into `report` (moved counts, and each record's error). */
async function trackServices(ctx: AppContext, partners: { transfer: TransferPartner; bill: BillPartner }, report: HousekeepingReport): Promise<void> {
  const tracked = await trackFinancialServices(ctx, partners);
  report.financialServices = { transfersMoved: tracked.transfers.moved, billPaymentsMoved: tracked.billPayments.moved };
  report.errors.push(...tracked.errors.map((e) => ({ recordId: e.id, message: e.message })));
}

/**
 * App billing at `now`: renewals and retries, then held developer earnings whose hold has ended (they become available
 * before the weekly payouts look at them), then the payouts. Counts go into `report`; the errors are returned (the
 * tick reports them after the planner statistics).
 */
async function runAppBillingJobs(
  ctx: AppContext,
  now: Date,
  appBilling: AppBillingOptions,
  report: HousekeepingReport,
): Promise<HousekeepingReport['errors']> {
  const billed = await runAppBilling(ctx, now, { ...(appBilling.billing ? { billing: appBilling.billing } : {}), email: ctx.email });
  const releases = await runDeveloperEarningsReleases(ctx.db, now);
  const payouts = await runScheduledDeveloperPayouts(ctx.db, now, {
    ...(appBilling.paymentConnect ? { paymentConnect: appBilling.paymentConnect } : {}),
    ...(appBilling.payoutMinimumCents !== undefined ? { minimumCents: appBilling.payoutMinimumCents } : {}),
  });
  report.appBilling = {
    charged: billed.charged,
    failed: billed.failed,
    suspended: billed.suspended,
    developerEarningsReleased: releases.released,
    developerPayouts: payouts.paid,
  };
  return [
    ...billed.errors.map((e) => ({ message: `app subscription ${e.subscriptionId}: ${e.message}` })),
    ...releases.errors.map((e) => ({ message: `developer earnings release ${e.developerId}: ${e.message}` })),
    ...payouts.errors.map((e) => ({ message: `developer payout ${e.developerId}: ${e.message}` })),
  ];
}

/** Options of the scheduler: how often it ticks (ms, default {@link HOUSEKEEPING_INTERVAL_MS}), whether buildApp starts it, and where its errors go. */
export interface HousekeepingSchedulerOptions {
  intervalMs?: number;
  enabled?: boolean;
  onError?: (err: unknown) => void;
}

/**
 * Runs its tick ({@link runHousekeeping}, handed in by app.ts) once when started and then every `intervalMs`, never two
 * ticks at once. `stop()` waits for a running tick, so closing the app leaves no work behind.
 */
export class HousekeepingScheduler {
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private stopped = true;

  constructor(
    private readonly tick: () => Promise<HousekeepingReport>,
    private readonly options: HousekeepingSchedulerOptions = {},
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      if (this.stopped) return;
      try {
        await this.runOnce();
      } catch (err) {
        this.options.onError?.(err);
      }
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.options.intervalMs ?? HOUSEKEEPING_INTERVAL_MS);
    };
    this.timer = setTimeout(() => void loop(), 0);
  }

  /**
   * One tick now (after any running one: ticks are chained, never concurrent within one scheduler); each error in its
   * report also goes to `onError`. Throws what the tick throws.
   */
  async runOnce(): Promise<HousekeepingReport> {
    const tick = this.chain.then(() => this.tick());
    this.chain = tick.then(
      () => undefined,
      () => undefined,
    );
    const report = await tick;
    for (const e of report.errors) this.options.onError?.(new Error(`recurring invoices: ${e.seriesId ?? e.invoiceId}: ${e.message}`));
    return report;
  }

  /** Stops ticking; resolves once a running tick is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.chain;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The housekeeping scheduler of this app (`runOnce()` for a tick now; named for its first job). */
    recurringInvoices: HousekeepingScheduler;
  }
}
