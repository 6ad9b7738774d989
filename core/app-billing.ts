/**
 * App billing: the pure arithmetic of paid app subscriptions and developer payouts — billing periods, proration on
 * install and uninstall, the 85/15 revenue split, the retry schedule of failed charges, the weekly payout cut-off, the
 * hold on developer earnings (how a refund is taken from a developer's balance and how a release pays back what they
 * owe) and what a price change of an app does to a subscription. Amounts are integer minor units (`…Cents`) of the
 * app's price currency; times are UTC. The server side is sync-server/src/modules/app-billing; the decisions are in
 * docs/decisions/0064-app-billing-and-developer-payouts.md and docs/decisions/0065-developer-earnings-hold.md.
 */
import { ulid } from './ids.ts';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The merchant row that holds the platform's own ledger (migration 0220): app charges (Dr `app_billing_clearing`,
 * Cr `developer_pending:<developerId>` 85 %, Cr `app_revenue` 15 %), their refunds, the release of held earnings and
 * developer payouts. It has no staff, no registers and no tokens; it exists so the platform's books use the same
 * immutable, balanced, hash-audited ledger as every store's.
 */
export const PLATFORM_LEDGER_MERCHANT_ID = 'mer_platform';

/** The developer's share of every app charge, in basis points (85 %). The platform keeps the rest (15 %). */
export const DEVELOPER_SHARE_BASIS_POINTS = 8_500;

/**
 * Days after the first failed charge of a period on which it is retried (1, 3 and 5 days later). When the retry of
 * the last day fails too, the subscription is suspended.
 */
export const APP_CHARGE_RETRY_DAYS: readonly number[] = [1, 3, 5];

/** Default minimum developer payout, in minor units of the payout's currency (25.00). */
export const DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS = 2_500;

/** States of a paid app subscription: `active → past_due → active | suspended → active`; any → `canceled`. */
export const APP_SUBSCRIPTION_STATUSES = ['active', 'past_due', 'suspended', 'canceled'] as const;
export type AppSubscriptionStatus = (typeof APP_SUBSCRIPTION_STATUSES)[number];

/** Why a charge was made: first (prorated) period, a monthly renewal, a retry of a failed one, or a reactivation. */
export const APP_CHARGE_KINDS = ['initial', 'renewal', 'retry', 'reactivation'] as const;
export type AppChargeKind = (typeof APP_CHARGE_KINDS)[number];

/**
 * New ids of app billing records: `asub_` subscription, `ach_` charge, `acr_` charge refund, `dpo_` developer payout,
 * `der_` release of a developer's held earnings.
 */
export function newAppBillingId(kind: 'subscription' | 'charge' | 'refund' | 'payout' | 'release'): string {
  const prefix = { subscription: 'asub', charge: 'ach', refund: 'acr', payout: 'dpo', release: 'der' }[kind];
  return `${prefix}_${ulid()}`;
}

/** 00:00 UTC of the day of `t`. */
export function startOfUtcDay(t: Date): Date {
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()));
}

/**
 * The calendar-month billing period (UTC) that contains `t`: from the 1st 00:00 UTC to the 1st of the next month
 * (exclusive).
 */
export function billingPeriodOf(t: Date): { start: Date; end: Date } {
  return { start: new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1)), end: new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1)) };
}

/** Whole days from `start` to `end` (both at 00:00 UTC). */
export function wholeDays(start: Date, end: Date): number {
  return Math.round((end.getTime() - start.getTime()) / DAY_MS);
}

/**
 * `amountCents × part / whole`, rounded half up to a whole minor unit (integers only: no float error).
 * @throws RangeError when `whole` ≤ 0 or `part` is outside 0 … whole.
 */
export function prorateCents(amountCents: number, part: number, whole: number): number {
  if (!(whole > 0) || part < 0 || part > whole) throw new RangeError(`cannot prorate ${part}/${whole}`);
  return Math.floor((2 * amountCents * part + whole) / (2 * whole));
}

/**
 * The first charge of a subscription started at `now`: the days left in the calendar month, the install day
 * included, at the monthly price — `round_half_up(price × daysLeft / daysInMonth)`. A monthly price of 30.00 started
 * on 17 November (14 of 30 days left) is 14.00. The period covered starts at 00:00 UTC of the install day.
 */
export function initialCharge(
  monthlyPriceCents: number,
  now: Date,
): { periodStart: Date; periodEnd: Date; coveredDays: number; monthDays: number; amountCents: number } {
  const { start, end } = billingPeriodOf(now);
  const periodStart = startOfUtcDay(now);
  const monthDays = wholeDays(start, end);
  const coveredDays = wholeDays(periodStart, end);
  return { periodStart, periodEnd: end, coveredDays, monthDays, amountCents: prorateCents(monthlyPriceCents, coveredDays, monthDays) };
}

/**
 * The 85/15 split of one charge: the developer's share is `floor(amount × 85 / 100)` and the platform's the rest, so
 * the two always add up to the charge exactly and a rounding remainder (at most one minor unit) stays with the
 * platform — the developer is never paid more than 85 %.
 */
export function splitAppCharge(amountCents: number): { developerCents: number; platformCents: number } {
  const developerCents = Math.floor((amountCents * DEVELOPER_SHARE_BASIS_POINTS) / 10_000);
  return { developerCents, platformCents: amountCents - developerCents };
}

/**
 * The refund of a paid charge when the app is uninstalled at `now`: the whole days of its period after the uninstall
 * day (the uninstall day counts as used), `round_half_up(charge × unusedDays / coveredDays)`; the developer gives back
 * `round_half_up(developerShare × unusedDays / coveredDays)` and the platform the rest. Zero when no whole day is left.
 */
export function uninstallRefund(
  charge: { amountCents: number; developerCents: number; periodStart: Date; periodEnd: Date },
  now: Date,
): { unusedDays: number; coveredDays: number; amountCents: number; developerCents: number; platformCents: number } {
  const coveredDays = wholeDays(charge.periodStart, charge.periodEnd);
  const unusedDays = Math.max(0, Math.min(coveredDays, wholeDays(startOfUtcDay(now), charge.periodEnd) - 1));
  const amountCents = prorateCents(charge.amountCents, unusedDays, coveredDays);
  const developerCents = Math.min(amountCents, prorateCents(charge.developerCents, unusedDays, coveredDays));
  return { unusedDays, coveredDays, amountCents, developerCents, platformCents: amountCents - developerCents };
}

/**
 * When a subscription whose charge first failed at `firstFailedAt` is tried next, after `failedAttempts` failures in
 * all (1 = the first charge only): 1, 3 and 5 days after the first failure ({@link APP_CHARGE_RETRY_DAYS}); null once
 * every retry has failed — the subscription is then suspended.
 */
export function nextChargeRetryAt(firstFailedAt: Date, failedAttempts: number): Date | null {
  const days = APP_CHARGE_RETRY_DAYS[failedAttempts - 1];
  return days === undefined ? null : new Date(firstFailedAt.getTime() + days * DAY_MS);
}

/**
 * The weekly payout cut-off at `now`: the latest Monday 00:00 UTC at or before `now`. A scheduled payout pays a
 * developer's earnings from charges made before it (last week's and older), once a week.
 */
export function weeklyPayoutCutoff(now: Date): Date {
  const day = startOfUtcDay(now);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS);
}

/**
 * How long a developer's share of a charge is held before it can be paid out: 31 days — the longest calendar month,
 * so at least the refund window of any charge. A charge is refundable (unused days on uninstall) only while the period
 * it paid for lasts, and no charge pays for a period ending more than one calendar month after it is made (the
 * install's prorated rest of the month, a renewal or retry of the current month, a reactivation to the month's end).
 */
export const DEVELOPER_EARNINGS_HOLD_DAYS = 31;

/**
 * When the developer's share of a paid charge made at `createdAt` for a period ending `periodEnd` (exclusive) becomes
 * available: {@link DEVELOPER_EARNINGS_HOLD_DAYS} after the charge, and never before its period (its refund window)
 * has ended.
 */
export function earningsAvailableAt(charge: { createdAt: Date; periodEnd: Date }): Date {
  const held = charge.createdAt.getTime() + DEVELOPER_EARNINGS_HOLD_DAYS * DAY_MS;
  return new Date(Math.max(held, charge.periodEnd.getTime()));
}

/** A developer's balance in one currency on the platform ledger, in minor units, each ≥ 0. */
export interface DeveloperBalance {
  /** Earnings on hold (`developer_pending:<developerId>`): not payable yet. */
  pendingCents: number;
  /** Earnings released and not paid out (`developer_payable:<developerId>`): what a payout may take. */
  availableCents: number;
  /** What the developer owes the platform (`developer_receivable:<developerId>`): refunds beyond their balance. */
  owedCents: number;
}

/**
 * Where the developer's part `developerCents` of a refund is taken from: the pending (held) balance first, then the
 * available balance, and what neither covers becomes a receivable — a negative balance, carried and recovered from
 * later releases ({@link releaseCredits}), never paid out. The three parts add up to `developerCents`.
 * @throws RangeError when an amount is negative or not an integer.
 */
export function refundDebits(
  developerCents: number,
  balance: Pick<DeveloperBalance, 'pendingCents' | 'availableCents'>,
): { fromPendingCents: number; fromAvailableCents: number; toReceivableCents: number } {
  for (const v of [developerCents, balance.pendingCents, balance.availableCents])
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`not a non-negative amount: ${v}`);
  const fromPendingCents = Math.min(developerCents, balance.pendingCents);
  const fromAvailableCents = Math.min(developerCents - fromPendingCents, balance.availableCents);
  return { fromPendingCents, fromAvailableCents, toReceivableCents: developerCents - fromPendingCents - fromAvailableCents };
}

/**
 * The release of matured held earnings, oldest first: each charge's held amount (its share less its refund) moves out
 * of the pending balance — never more than the pending balance holds, so a refund that took held money of other
 * charges is absorbed by the releases that follow — and pays back what the developer owes before anything becomes
 * available.
 * @param heldCents each matured charge's held amount, oldest first
 * @returns per charge what was released and what of it repaid the debt; the totals, and what became available
 */
export function releaseCredits(
  heldCents: readonly number[],
  balance: Pick<DeveloperBalance, 'pendingCents' | 'owedCents'>,
): { perCharge: { releasedCents: number; recoveredCents: number }[]; releasedCents: number; recoveredCents: number; toAvailableCents: number } {
  let pending = Math.max(0, balance.pendingCents);
  let owed = Math.max(0, balance.owedCents);
  const perCharge = heldCents.map((held) => {
    const releasedCents = Math.min(Math.max(0, held), pending);
    pending -= releasedCents;
    const recoveredCents = Math.min(releasedCents, owed);
    owed -= recoveredCents;
    return { releasedCents, recoveredCents };
  });
  const releasedCents = perCharge.reduce((s, c) => s + c.releasedCents, 0);
  const recoveredCents = perCharge.reduce((s, c) => s + c.recoveredCents, 0);
  return { perCharge, releasedCents, recoveredCents, toAvailableCents: releasedCents - recoveredCents };
}

/**
 * What the app's listed (approved) price means for a subscription billed at `subscribed`:
 * - `none`: the same price;
 * - `lower`: a lower price in the same currency — it applies by itself from the next renewal;
 * - `free`: the app is free now — the subscription ends at the end of the period already paid, with no further charge;
 * - `rise`: a higher price or another currency — it applies only once the store accepts it; until then (and for as
 *   long as the store does not accept) the store keeps paying the price it subscribed at.
 */
export function subscriptionPriceChange(
  subscribed: { priceCents: number; currency: string },
  listed: { priceCents: number; currency: string | null },
): { kind: 'none' } | { kind: 'lower'; priceCents: number } | { kind: 'free' } | { kind: 'rise'; priceCents: number; currency: string } {
  if (listed.priceCents <= 0 || !listed.currency) return { kind: 'free' };
  if (listed.currency === subscribed.currency) {
    if (listed.priceCents === subscribed.priceCents) return { kind: 'none' };
    if (listed.priceCents < subscribed.priceCents) return { kind: 'lower', priceCents: listed.priceCents };
  }
  return { kind: 'rise', priceCents: listed.priceCents, currency: listed.currency };
}
