/**
 * Paid app subscriptions (docs/decisions/0064-app-billing-and-developer-payouts.md):
 * - {@link startAppSubscription} / {@link endAppSubscription}, called by the app-installation workflow inside the
 *   install / uninstall transaction;
 * - {@link runAppBilling}, the housekeeping tick's monthly renewals and retries;
 * - {@link setBillingMethod}, a store changing its billing method (which retries what it owes at once);
 * - {@link acceptPriceChange}, a store accepting a price rise of an app it subscribes to;
 * - {@link listAppSubscriptions}, what `GET /api/pos/app-subscriptions` answers.
 *
 * Billing periods are calendar months in UTC. Every paid charge posts one journal transaction on the platform ledger:
 * Dr `app_billing_clearing` (the charge), Cr `developer_pending:<developerId>` (85 %, floored; held for core
 * `DEVELOPER_EARNINGS_HOLD_DAYS`, released by payouts.ts) — `developer_demo_earnings:<developerId>` for the demo
 * store's, never paid out — Cr `app_revenue` (the rest). A declined charge is retried 1, 3 and 5 days after the first
 * failure; when the last retry fails the subscription is `suspended`, with an audit entry in the store's trail and an
 * e-mail to its owners.
 *
 * A subscription is billed at the price its store agreed to (`price_cents`): the app's approved price when it was
 * installed, or a later rise the store accepted. A lower approved price applies by itself at the next renewal; an app
 * that became free ends the subscription at its next renewal; a rise is only an offer until the store accepts it
 * (core `subscriptionPriceChange`).
 */
import { z } from 'zod';
import {
  APP_CHARGE_KINDS,
  APP_SUBSCRIPTION_STATUSES,
  billingPeriodOf,
  earningsAvailableAt,
  initialCharge,
  newAppBillingId,
  nextChargeRetryAt,
  refundDebits,
  splitAppCharge,
  subscriptionPriceChange,
  uninstallRefund,
  type AppChargeKind,
  type AppSubscriptionStatus,
} from '../../../../core/index.ts';
import { appendAudit } from '../../kernel/audit.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { composeMessage } from '../../kernel/message-templates.ts';
import { mutation, type Mutation } from '../../kernel/mutation.ts';
import type { AppContext } from '../../platform/context.ts';
import { lockMerchant, type Queryable } from '../../platform/db/db.ts';
import { ProblemError, StateConflictError } from '../../platform/http/problem.ts';
import type { EmailProvider } from '../../platform/messaging/email.ts';
import { billingFor, DEFAULT_BILLING_REFERENCE, sandboxBilling, type AppBillingAdapter } from './adapters.ts';
import {
  developerDemoEarningsAccount,
  developerPayableAccount,
  developerPendingAccount,
  developerPosition,
  developerReceivableAccount,
  lockDeveloper,
  postOnPlatformLedger,
} from './ledger.ts';

/** Most periods one subscription is renewed in one tick (a server down for months catches up over several ticks). */
const MAX_RENEWALS_PER_TICK = 12;

/** One charge attempt as the API answers it. */
export const appChargeSchema = z.object({
  id: z.string().describe('`ach_…`'),
  kind: z
    .enum(APP_CHARGE_KINDS)
    .describe('`initial` (prorated first period), `renewal` (monthly), `retry` (of a declined one), `reactivation` (after a suspension, prorated).'),
  periodStart: z.iso.datetime(),
  periodEnd: z.iso.datetime().describe('Exclusive.'),
  amountCents: z.int().describe('Minor units of `currency`.'),
  currency: z.string(),
  status: z.enum(['paid', 'failed']),
  declineCode: z.string().nullable(),
  journalTransactionId: z.string().nullable().describe('The 85/15 split on the platform ledger (paid charges).'),
  createdAt: z.iso.datetime(),
});

/** A refund of unused days on uninstall. */
export const appChargeRefundSchema = z.object({
  id: z.string().describe('`acr_…`'),
  chargeId: z.string(),
  amountCents: z.int(),
  currency: z.string(),
  unusedDays: z.int(),
  coveredDays: z.int(),
  createdAt: z.iso.datetime(),
});

/** What the app's approved price means for this subscription (core `subscriptionPriceChange`); null when unchanged. */
export const appPriceChangeSchema = z
  .object({
    kind: z
      .enum(['rise', 'lower', 'free'])
      .describe(
        '`rise`: a higher price or another currency — applies only once the store accepts it; `lower`: applies by itself from the next renewal; `free`: the subscription ends at the next renewal with nothing more to pay.',
      ),
    fromCents: z.int().describe('The monthly price the store pays now (agreed at install or accepted since).'),
    fromCurrency: z.string(),
    toCents: z.int().describe("The app's listed monthly price now; 0 when free."),
    toCurrency: z.string().nullable().describe('Null when free.'),
    needsAcceptance: z
      .boolean()
      .describe(
        'True for a rise: until the store accepts (`POST /api/pos/app-subscriptions/{id}/accept-price`) it keeps paying `fromCents`, at every renewal.',
      ),
    appliesFrom: z.iso.datetime().describe('The renewal the new price would apply from (the end of the period already billed).'),
  })
  .nullable();
export type AppPriceChange = z.infer<typeof appPriceChangeSchema>;

/** A paid app subscription of a store. */
export const appSubscriptionSchema = z.object({
  id: z.string().describe('`asub_…`'),
  installationId: z.string(),
  appId: z.string(),
  appName: z.string(),
  priceCents: z.int().describe('Monthly price the store agreed to (at install, or a rise it accepted), minor units of `currency`.'),
  currency: z.string(),
  status: z
    .enum(APP_SUBSCRIPTION_STATUSES)
    .describe(
      '`active`; `past_due` (a charge declined, retries scheduled; the app keeps working); `suspended` (every retry declined; pay to reactivate); `canceled` (uninstalled).',
    ),
  currentPeriodStart: z.iso.datetime(),
  currentPeriodEnd: z.iso.datetime(),
  nextChargeAt: z.iso
    .datetime()
    .nullable()
    .describe('When the next charge is tried: the renewal (active), the next retry (past_due); null when suspended or canceled.'),
  nextChargeCents: z.int().nullable(),
  failedAttempts: z.int(),
  suspendedAt: z.iso.datetime().nullable(),
  canceledAt: z.iso.datetime().nullable(),
  notice: z.string().nullable().describe('What the store should know (why it is past due or suspended).'),
  priceChange: appPriceChangeSchema,
  charges: z.array(appChargeSchema).describe('Newest first, at most 24.'),
  refunds: z.array(appChargeRefundSchema),
  createdAt: z.iso.datetime(),
});
export type AppSubscription = z.infer<typeof appSubscriptionSchema>;

interface SubRow {
  id: string;
  installation_id: string;
  merchant_id: string;
  app_id: string;
  developer_id: string;
  price_cents: number | string;
  currency: string;
  status: AppSubscriptionStatus;
  current_period_start: Date | string;
  current_period_end: Date | string;
  failed_attempts: number;
  first_failed_at: Date | string | null;
  next_retry_at: Date | string | null;
  suspended_at: Date | string | null;
  canceled_at: Date | string | null;
  created_at: Date | string;
}

interface ChargeRow {
  id: string;
  subscription_id: string;
  kind: AppChargeKind;
  earnings: 'available' | 'held' | 'demo';
  period_start: Date | string;
  period_end: Date | string;
  amount_cents: number | string;
  developer_share_cents: number | string;
  currency: string;
  status: 'paid' | 'failed';
  decline_code: string | null;
  processor_reference: string | null;
  journal_transaction_id: string | null;
  created_at: Date | string;
}

const iso = (v: Date | string) => new Date(v).toISOString();
const isoOrNull = (v: Date | string | null) => (v == null ? null : iso(v));

/** The store's billing method at the billing processor (the sandbox default when it never set one). */
export async function billingReferenceOf(db: Queryable, merchantId: string): Promise<string> {
  const { rows } = await db.query<{ billing_reference: string }>('SELECT billing_reference FROM app_billing_methods WHERE merchant_id = $1', [
    merchantId,
  ]);
  return rows[0]?.billing_reference ?? DEFAULT_BILLING_REFERENCE;
}

/** One charge to try. `currency` defaults to the subscription's (a retry names the currency of what it owes). */
type Attempt = { kind: AppChargeKind; periodStart: Date; periodEnd: Date; amountCents: number; currency?: string };
type AttemptResult =
  { status: 'paid'; chargeId: string } | { status: 'failed'; chargeId: string; code: string; message: string } | { status: 'free' };

/**
 * One charge attempt of `sub` inside `tx` (the store's lock held by the caller): the billing adapter, the charge row,
 * and — paid — the 85/15 journal transaction on the platform ledger, the developer's share held on
 * `developer_pending:<developerId>` until core `earningsAvailableAt` (the demo store's on
 * `developer_demo_earnings:<developerId>`, never released); an audit entry in the store's trail either way.
 */
async function attemptCharge(
  tx: Queryable,
  sub: SubRow,
  attempt: Attempt,
  adapter: AppBillingAdapter,
  now: Date,
  actor: string,
): Promise<AttemptResult> {
  if (attempt.amountCents <= 0) return { status: 'free' };
  const chargeId = newAppBillingId('charge');
  const currency = attempt.currency ?? sub.currency;
  const merchant = await getMerchant(tx, sub.merchant_id);
  const billing = billingFor(merchant, adapter);
  const result = await billing.charge({
    merchantId: sub.merchant_id,
    billingReference: await billingReferenceOf(tx, sub.merchant_id),
    amountCents: attempt.amountCents,
    currency,
    reference: chargeId,
  });
  const split = splitAppCharge(attempt.amountCents);
  const earnings: 'held' | 'demo' = merchant.is_demo ? 'demo' : 'held';
  const availableAt = result.outcome === 'paid' && earnings === 'held' ? earningsAvailableAt({ createdAt: now, periodEnd: attempt.periodEnd }) : null;
  let journalTransactionId: string | null = null;
  if (result.outcome === 'paid') {
    const jt = await postOnPlatformLedger(
      tx,
      now,
      {
        kind: 'payment',
        sourceType: 'app_charge',
        sourceId: chargeId,
        currency,
        memo: `App charge ${chargeId} (${attempt.kind}) of ${sub.app_id} to store ${sub.merchant_id}`,
      },
      [
        { accountCode: 'app_billing_clearing', amountCents: attempt.amountCents },
        {
          accountCode: earnings === 'demo' ? developerDemoEarningsAccount(sub.developer_id) : developerPendingAccount(sub.developer_id),
          amountCents: -split.developerCents,
        },
        { accountCode: 'app_revenue', amountCents: -split.platformCents },
      ],
      {
        action: 'app_charge.paid',
        entityType: 'app_charge',
        entityId: chargeId,
        data: {
          merchantId: sub.merchant_id,
          appId: sub.app_id,
          developerId: sub.developer_id,
          amountCents: attempt.amountCents,
          developerShareCents: split.developerCents,
          platformShareCents: split.platformCents,
          currency,
          earnings,
          earningsAvailableAt: availableAt?.toISOString() ?? null,
        },
      },
    );
    journalTransactionId = jt.id;
  }
  await tx.query(
    `INSERT INTO app_charges (id, subscription_id, installation_id, merchant_id, app_id, developer_id, kind, period_start, period_end, amount_cents, developer_share_cents, platform_share_cents,
                              currency, status, decline_code, processor, processor_reference, journal_transaction_id, created_at, earnings, earnings_available_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
    [
      chargeId,
      sub.id,
      sub.installation_id,
      sub.merchant_id,
      sub.app_id,
      sub.developer_id,
      attempt.kind,
      attempt.periodStart.toISOString(),
      attempt.periodEnd.toISOString(),
      attempt.amountCents,
      split.developerCents,
      split.platformCents,
      currency,
      result.outcome === 'paid' ? 'paid' : 'failed',
      result.outcome === 'declined' ? result.code : null,
      billing.name,
      result.outcome === 'paid' ? result.processorReference : null,
      journalTransactionId,
      now.toISOString(),
      earnings,
      availableAt?.toISOString() ?? null,
    ],
  );
  await appendAudit(tx, {
    merchantId: sub.merchant_id,
    actor,
    action: result.outcome === 'paid' ? 'app_charge.paid' : 'app_charge.failed',
    entityType: 'app_subscription',
    entityId: sub.id,
    data: {
      chargeId,
      kind: attempt.kind,
      appId: sub.app_id,
      installationId: sub.installation_id,
      amountCents: attempt.amountCents,
      currency,
      ...(result.outcome === 'declined' ? { declineCode: result.code } : {}),
    },
    occurredAt: now,
  });
  return result.outcome === 'paid' ? { status: 'paid', chargeId } : { status: 'failed', chargeId, code: result.code, message: result.message };
}

async function lockSubscription(tx: Queryable, where: 'id' | 'installation_id', value: string): Promise<SubRow | undefined> {
  return (await tx.query<SubRow>(`SELECT * FROM app_subscriptions WHERE ${where} = $1 FOR UPDATE`, [value])).rows[0];
}

/** What the integrator's install step hands over (see {@link startAppSubscription}). */
export interface StartAppSubscriptionInput {
  merchantId: string;
  appId: string;
  /** The installation (`ins_<ULID>`): one subscription per installation. */
  installationId: string;
  /** The install's time (the mutation's `now`). */
  now: Date;
  /** The audit actor of the store's entries (`staff:<id>` of the installing owner); default `system`. */
  actor?: string;
}

/**
 * Starts the subscription of a new installation, inside the install's transaction `tx` (the store's lock held or taken
 * here), at the app's approved price — what the directory shows. A free app (price 0) has none: answers null and
 * writes nothing. A paid app is charged at once for the rest of
 * the calendar month (UTC), prorated by whole days, the install day included (core `initialCharge`:
 * `round_half_up(price × daysLeft / daysInMonth)`); the subscription is then `active` until the 1st of next month,
 * when the tick renews it at the full price. Calling it again for the same installation answers the existing
 * subscription (idempotent).
 *
 * @param options.billing the billing adapter (default the sandbox; the demo store always uses the sandbox)
 * @returns the subscription as `GET /api/pos/app-subscriptions` shows it, or null for a free app
 * @throws ProblemError 404 `not_found` when the app does not exist; 402 `app_charge_declined` when the store's billing
 *   method declines the first charge — the caller's transaction must then roll back (no install without payment).
 */
export async function startAppSubscription(
  tx: Queryable,
  input: StartAppSubscriptionInput,
  options: { billing?: AppBillingAdapter } = {},
): Promise<AppSubscription | null> {
  // The approved (listed) price: a revision of the price waiting for review is nobody's price yet.
  const app = (
    await tx.query<{ id: string; developer_id: string; price_cents: number | string | null; currency: string | null }>(
      'SELECT id, developer_id, approved_price_cents AS price_cents, approved_currency AS currency FROM apps WHERE id = $1',
      [input.appId],
    )
  ).rows[0];
  if (!app) throw new ProblemError(404, 'not_found', `No app ${input.appId}.`);
  const price = Number(app.price_cents ?? 0);
  if (price <= 0 || !app.currency) return null;
  await lockMerchant(tx, input.merchantId);
  const existing = await lockSubscription(tx, 'installation_id', input.installationId);
  if (existing) return subscriptionView(tx, existing);
  const first = initialCharge(price, input.now);
  const id = newAppBillingId('subscription');
  const sub = (
    await tx.query<SubRow>(
      `INSERT INTO app_subscriptions (id, installation_id, merchant_id, app_id, developer_id, price_cents, currency, status, current_period_start, current_period_end, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'active', $8, $9, $10, $10) RETURNING *`,
      [
        id,
        input.installationId,
        input.merchantId,
        app.id,
        app.developer_id,
        price,
        app.currency,
        first.periodStart.toISOString(),
        first.periodEnd.toISOString(),
        input.now.toISOString(),
      ],
    )
  ).rows[0]!;
  const actor = input.actor ?? 'system';
  await appendAudit(tx, {
    merchantId: input.merchantId,
    actor,
    action: 'app_subscription.started',
    entityType: 'app_subscription',
    entityId: id,
    data: {
      appId: app.id,
      installationId: input.installationId,
      priceCents: price,
      currency: app.currency,
      firstChargeCents: first.amountCents,
      coveredDays: first.coveredDays,
      monthDays: first.monthDays,
    },
    occurredAt: input.now,
  });
  const result = await attemptCharge(
    tx,
    sub,
    { kind: 'initial', periodStart: first.periodStart, periodEnd: first.periodEnd, amountCents: first.amountCents },
    options.billing ?? sandboxBilling,
    input.now,
    actor,
  );
  if (result.status === 'failed') {
    throw new ProblemError(
      402,
      'app_charge_declined',
      `The store's billing method was declined (${result.code}) for the first charge of this app; nothing was installed. Change the billing method (PUT /api/pos/app-billing/payment-method) and install again.`,
    );
  }
  return subscriptionView(tx, sub);
}

/** What the integrator's uninstall step hands over (see {@link endAppSubscription}). */
export interface EndAppSubscriptionInput {
  installationId: string;
  now: Date;
  /** The audit actor of the store's entries; default `system`. */
  actor?: string;
}

/**
 * Ends the subscription of an installation being uninstalled, inside the uninstall's transaction `tx`. An active
 * subscription's unused whole days of the current paid period — the days after the uninstall day — are refunded to
 * the store's billing method (core `uninstallRefund`), reversing the 85/15 split in the same proportions on the
 * platform ledger; a past-due or suspended one refunds nothing (its period is unpaid). No further charge is made.
 * The developer's part is taken from their pending (held) balance first, then their available balance, and the rest
 * becomes what they owe (core `refundDebits`; under the developer's lock). The demo store's comes back from the
 * account it went to. Idempotent: a canceled subscription is answered as it is.
 *
 * @returns the canceled subscription, or null when the installation had none (a free app)
 */
export async function endAppSubscription(
  tx: Queryable,
  input: EndAppSubscriptionInput,
  options: { billing?: AppBillingAdapter } = {},
): Promise<AppSubscription | null> {
  const found = (await tx.query<SubRow>('SELECT * FROM app_subscriptions WHERE installation_id = $1', [input.installationId])).rows[0];
  if (!found) return null;
  await lockMerchant(tx, found.merchant_id);
  const sub = (await lockSubscription(tx, 'id', found.id))!;
  if (sub.status === 'canceled') return subscriptionView(tx, sub);
  const actor = input.actor ?? 'system';
  let refundId: string | null = null;
  if (sub.status === 'active') {
    const charge = (
      await tx.query<ChargeRow>(
        `SELECT * FROM app_charges WHERE subscription_id = $1 AND status = 'paid' AND period_end = $2 AND NOT EXISTS (SELECT 1 FROM app_charge_refunds r WHERE r.charge_id = app_charges.id)
         ORDER BY created_at DESC, id DESC LIMIT 1`,
        [sub.id, iso(sub.current_period_end)],
      )
    ).rows[0];
    if (charge) {
      const refund = uninstallRefund(
        {
          amountCents: Number(charge.amount_cents),
          developerCents: Number(charge.developer_share_cents),
          periodStart: new Date(charge.period_start),
          periodEnd: new Date(charge.period_end),
        },
        input.now,
      );
      if (refund.amountCents > 0) {
        refundId = newAppBillingId('refund');
        const currency = charge.currency;
        const merchant = await getMerchant(tx, sub.merchant_id);
        let developerDebits: { accountCode: string; amountCents: number }[];
        let taken = { fromPendingCents: 0, fromAvailableCents: 0, toReceivableCents: 0 };
        if (merchant.is_demo) {
          // The demo store's share went to its own account (or, before holds existed, to the payable one).
          developerDebits = [
            {
              accountCode: charge.earnings === 'demo' ? developerDemoEarningsAccount(sub.developer_id) : developerPayableAccount(sub.developer_id),
              amountCents: refund.developerCents,
            },
          ];
        } else {
          await lockDeveloper(tx, sub.developer_id);
          taken = refundDebits(refund.developerCents, await developerPosition(tx, sub.developer_id, currency));
          developerDebits = [
            { accountCode: developerPendingAccount(sub.developer_id), amountCents: taken.fromPendingCents },
            { accountCode: developerPayableAccount(sub.developer_id), amountCents: taken.fromAvailableCents },
            { accountCode: developerReceivableAccount(sub.developer_id), amountCents: taken.toReceivableCents },
          ];
        }
        const answer = await billingFor(merchant, options.billing ?? sandboxBilling).refund({
          chargeReference: charge.processor_reference ?? charge.id,
          amountCents: refund.amountCents,
          currency,
          reference: refundId,
        });
        const jt = await postOnPlatformLedger(
          tx,
          input.now,
          {
            kind: 'refund',
            sourceType: 'app_charge_refund',
            sourceId: refundId,
            currency,
            memo: `Refund ${refundId} of ${refund.unusedDays} unused days of app charge ${charge.id}`,
          },
          [
            ...developerDebits,
            { accountCode: 'app_revenue', amountCents: refund.platformCents },
            { accountCode: 'app_billing_clearing', amountCents: -refund.amountCents },
          ],
          {
            action: 'app_charge.refunded',
            entityType: 'app_charge_refund',
            entityId: refundId,
            data: {
              chargeId: charge.id,
              merchantId: sub.merchant_id,
              developerId: sub.developer_id,
              amountCents: refund.amountCents,
              developerShareCents: refund.developerCents,
              platformShareCents: refund.platformCents,
              currency,
              ...taken,
            },
          },
        );
        await tx.query(
          `INSERT INTO app_charge_refunds (id, charge_id, subscription_id, merchant_id, developer_id, amount_cents, developer_share_cents, platform_share_cents, currency, unused_days, covered_days, processor_reference, journal_transaction_id, created_at,
                                           from_pending_cents, from_available_cents, to_receivable_cents)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
          [
            refundId,
            charge.id,
            sub.id,
            sub.merchant_id,
            sub.developer_id,
            refund.amountCents,
            refund.developerCents,
            refund.platformCents,
            currency,
            refund.unusedDays,
            refund.coveredDays,
            answer.processorReference,
            jt.id,
            input.now.toISOString(),
            taken.fromPendingCents,
            taken.fromAvailableCents,
            taken.toReceivableCents,
          ],
        );
        await appendAudit(tx, {
          merchantId: sub.merchant_id,
          actor,
          action: 'app_charge.refunded',
          entityType: 'app_subscription',
          entityId: sub.id,
          data: { refundId, chargeId: charge.id, amountCents: refund.amountCents, currency, unusedDays: refund.unusedDays },
          occurredAt: input.now,
        });
      }
    }
  }
  const { rows } = await tx.query<SubRow>(
    `UPDATE app_subscriptions SET status = 'canceled', canceled_at = $2, next_retry_at = NULL, updated_at = $2 WHERE id = $1 RETURNING *`,
    [sub.id, input.now.toISOString()],
  );
  await appendAudit(tx, {
    merchantId: sub.merchant_id,
    actor,
    action: 'app_subscription.canceled',
    entityType: 'app_subscription',
    entityId: sub.id,
    data: { from: sub.status, installationId: sub.installation_id, refundId },
    occurredAt: input.now,
  });
  return subscriptionView(tx, rows[0]!);
}

/**
 * The status of an installation's subscription (`active`, `past_due`, `suspended`, `canceled`), or null for a free
 * app. The app-installation side refuses the app's token while `suspended`.
 */
export async function appSubscriptionStatus(db: Queryable, installationId: string): Promise<AppSubscriptionStatus | null> {
  const { rows } = await db.query<{ status: AppSubscriptionStatus }>('SELECT status FROM app_subscriptions WHERE installation_id = $1', [
    installationId,
  ]);
  return rows[0]?.status ?? null;
}

/** The app's approved (listed) monthly price: what the directory shows; 0 and null when free. */
async function listedPriceOf(db: Queryable, appId: string): Promise<{ priceCents: number; currency: string | null }> {
  const { rows } = await db.query<{ price: string | number | null; currency: string | null }>(
    'SELECT approved_price_cents AS price, approved_currency AS currency FROM apps WHERE id = $1',
    [appId],
  );
  return { priceCents: Number(rows[0]?.price ?? 0), currency: rows[0]?.currency ?? null };
}

/**
 * The monthly price of the next period of `sub` (a renewal, or a reactivation): the price the store agreed to —
 * lowered first when the app's approved price is now lower in the same currency (the subscription keeps the lower
 * price; audited `app_subscription.price_lowered`). A rise the store has not accepted changes nothing. When the app is
 * free now the subscription ends instead, with nothing charged (audited `app_subscription.canceled`, reason
 * `app_free`), and this answers `ended`.
 */
async function priceForNextPeriod(
  tx: Queryable,
  sub: SubRow,
  now: Date,
  actor: string,
): Promise<{ sub: SubRow; priceCents: number } | { sub: SubRow; ended: true }> {
  const change = subscriptionPriceChange({ priceCents: Number(sub.price_cents), currency: sub.currency }, await listedPriceOf(tx, sub.app_id));
  if (change.kind === 'free') {
    const { rows } = await tx.query<SubRow>(
      `UPDATE app_subscriptions SET status = 'canceled', canceled_at = $2, next_retry_at = NULL, updated_at = $2 WHERE id = $1 RETURNING *`,
      [sub.id, now.toISOString()],
    );
    await appendAudit(tx, {
      merchantId: sub.merchant_id,
      actor,
      action: 'app_subscription.canceled',
      entityType: 'app_subscription',
      entityId: sub.id,
      data: { from: sub.status, installationId: sub.installation_id, reason: 'app_free' },
      occurredAt: now,
    });
    return { sub: rows[0]!, ended: true };
  }
  if (change.kind === 'lower') {
    const { rows } = await tx.query<SubRow>('UPDATE app_subscriptions SET price_cents = $2, updated_at = $3 WHERE id = $1 RETURNING *', [
      sub.id,
      change.priceCents,
      now.toISOString(),
    ]);
    await appendAudit(tx, {
      merchantId: sub.merchant_id,
      actor,
      action: 'app_subscription.price_lowered',
      entityType: 'app_subscription',
      entityId: sub.id,
      data: { appId: sub.app_id, fromCents: Number(sub.price_cents), toCents: change.priceCents, currency: sub.currency },
      occurredAt: now,
    });
    return { sub: rows[0]!, priceCents: change.priceCents };
  }
  return { sub, priceCents: Number(sub.price_cents) };
}

/** `POST /api/pos/app-subscriptions/{id}/accept-price`: the price rise the store saw and accepts. */
export const acceptPriceSchema = z.strictObject({
  priceCents: z.int().positive().max(100_000_00).describe('The new monthly price shown to the store (`priceChange.toCents`), minor units.'),
  currency: z
    .string()
    .transform((v) => v.toUpperCase())
    .refine((v) => /^[A-Z]{3}$/.test(v), 'must be an ISO 4217 currency code, e.g. USD')
    .describe('`priceChange.toCurrency`.'),
});
export type AcceptPriceInput = z.infer<typeof acceptPriceSchema>;

/**
 * The store accepts the app's price rise for its subscription `id` (inside the store's mutation `m`): from the next
 * renewal on it is billed `input.priceCents` of `input.currency`; the period already billed is not charged again.
 * The body must name the app's listed price now, so a store never accepts a price it was not shown. Accepting the
 * price it already pays answers the subscription unchanged. Audited `app_subscription.price_accepted`.
 * @throws ProblemError 404 (not this store's); 409 `illegal_state_transition` when canceled; 409 `no_price_change`
 *   when the app's price has not risen; 409 `price_changed` naming `priceCents` when the listed price is not the one
 *   sent.
 */
export async function acceptPriceChange(m: Mutation, id: string, input: AcceptPriceInput): Promise<AppSubscription> {
  const sub = (await m.tx.query<SubRow>('SELECT * FROM app_subscriptions WHERE id = $1 AND merchant_id = $2 FOR UPDATE', [id, m.merchantId])).rows[0];
  if (!sub) throw new ProblemError(404, 'not_found', `No app subscription ${id}.`);
  if (sub.status === 'canceled')
    throw new StateConflictError('app_subscription', id, 'canceled', `App subscription ${id} is canceled: there is no price to accept.`);
  if (Number(sub.price_cents) === input.priceCents && sub.currency === input.currency) return subscriptionView(m.tx, sub);
  const change = subscriptionPriceChange({ priceCents: Number(sub.price_cents), currency: sub.currency }, await listedPriceOf(m.tx, sub.app_id));
  if (change.kind !== 'rise') throw new ProblemError(409, 'no_price_change', `The app's price has not risen: there is nothing to accept for ${id}.`);
  if (change.priceCents !== input.priceCents || change.currency !== input.currency) {
    throw new ProblemError(
      409,
      'price_changed',
      `Invalid priceCents: the app's price is now ${change.priceCents} ${change.currency} (minor units), not ${input.priceCents} ${input.currency}; look at it again before accepting.`,
      [{ path: 'priceCents', message: `must be the app's listed price, ${change.priceCents} ${change.currency}` }],
    );
  }
  const { rows } = await m.tx.query<SubRow>(
    'UPDATE app_subscriptions SET price_cents = $2, currency = $3, updated_at = $4 WHERE id = $1 RETURNING *',
    [id, input.priceCents, input.currency, m.now.toISOString()],
  );
  await m.audit({
    action: 'app_subscription.price_accepted',
    entityType: 'app_subscription',
    entityId: id,
    data: {
      appId: sub.app_id,
      installationId: sub.installation_id,
      fromCents: Number(sub.price_cents),
      fromCurrency: sub.currency,
      toCents: input.priceCents,
      toCurrency: input.currency,
      appliesFrom: iso(sub.current_period_end),
    },
  });
  return subscriptionView(m.tx, rows[0]!);
}

/** After a paid attempt: the subscription is active again, retries cleared. */
async function markPaid(tx: Queryable, sub: SubRow, period: { start: Date; end: Date }, now: Date): Promise<SubRow> {
  const { rows } = await tx.query<SubRow>(
    `UPDATE app_subscriptions SET status = 'active', current_period_start = $2, current_period_end = $3, failed_attempts = 0, first_failed_at = NULL, next_retry_at = NULL, suspended_at = NULL, updated_at = $4
      WHERE id = $1 RETURNING *`,
    [sub.id, period.start.toISOString(), period.end.toISOString(), now.toISOString()],
  );
  if (sub.status !== 'active') {
    await appendAudit(tx, {
      merchantId: sub.merchant_id,
      actor: 'system',
      action: 'app_subscription.reactivated',
      entityType: 'app_subscription',
      entityId: sub.id,
      data: { from: sub.status, appId: sub.app_id, installationId: sub.installation_id },
      occurredAt: now,
    });
  }
  return rows[0]!;
}

/** After a declined attempt: past due with the next retry, or suspended (with notice) when the retries are spent. */
async function markFailed(
  tx: Queryable,
  sub: SubRow,
  period: { start: Date; end: Date },
  code: string,
  now: Date,
  email: EmailProvider | undefined,
): Promise<SubRow> {
  const attempts = sub.failed_attempts + 1;
  const firstFailedAt = sub.first_failed_at ? new Date(sub.first_failed_at) : now;
  const retryAt = nextChargeRetryAt(firstFailedAt, attempts);
  const status: AppSubscriptionStatus = retryAt ? 'past_due' : 'suspended';
  const { rows } = await tx.query<SubRow>(
    `UPDATE app_subscriptions SET status = $2, current_period_start = $3, current_period_end = $4, failed_attempts = $5, first_failed_at = $6, next_retry_at = $7, suspended_at = $8, updated_at = $9
      WHERE id = $1 RETURNING *`,
    [
      sub.id,
      status,
      period.start.toISOString(),
      period.end.toISOString(),
      attempts,
      firstFailedAt.toISOString(),
      retryAt?.toISOString() ?? null,
      status === 'suspended' ? now.toISOString() : null,
      now.toISOString(),
    ],
  );
  if (status === 'suspended') await noticeSuspension(tx, sub, code, attempts, now, email);
  return rows[0]!;
}

/** The notice of a suspension: an audit entry in the store's trail and an e-mail to each owner with an address. */
async function noticeSuspension(
  tx: Queryable,
  sub: SubRow,
  code: string,
  attempts: number,
  now: Date,
  email: EmailProvider | undefined,
): Promise<void> {
  const app = (await tx.query<{ name: string }>('SELECT name FROM apps WHERE id = $1', [sub.app_id])).rows[0];
  await appendAudit(tx, {
    merchantId: sub.merchant_id,
    actor: 'system',
    action: 'app_subscription.suspended',
    entityType: 'app_subscription',
    entityId: sub.id,
    data: { appId: sub.app_id, installationId: sub.installation_id, declineCode: code, failedAttempts: attempts },
    occurredAt: now,
  });
  if (!email) return;
  const owners = await tx.query<{ email: string }>(
    `SELECT email FROM staff WHERE merchant_id = $1 AND role = 'owner' AND email IS NOT NULL ORDER BY id`,
    [sub.merchant_id],
  );
  if (owners.rows.length === 0) return;
  // In the store's language, with its own template if it saved one (kernel/message-templates.ts).
  const merchant = await getMerchant(tx, sub.merchant_id);
  const notice = await composeMessage(tx, merchant, 'app_suspended_email', {
    store: merchant.name,
    app: app?.name ?? sub.app_id,
    attempts: String(attempts),
    declineCode: code,
  });
  for (const o of owners.rows) {
    await email.send({ merchantId: sub.merchant_id, to: o.email, subject: notice.subject ?? '', body: notice.body }, { tx, now });
  }
}

/** What one tick of app billing did. */
export interface AppBillingReport {
  /** Renewal and retry charges paid. */
  charged: number;
  /** Charges declined (renewals and retries). */
  failed: number;
  /** Subscriptions suspended in this tick. */
  suspended: number;
  errors: { subscriptionId: string; message: string }[];
}

/**
 * The housekeeping tick's app billing at `now` (workflows/housekeeping.ts calls it): every active subscription
 * whose period has ended is renewed for the next calendar month at its full price — the price its store agreed to,
 * or the app's lower listed price, never a rise the store has not accepted; a subscription of an app that is free now
 * ends instead (several months caught up after a downtime); every past-due one whose retry is due is tried again for
 * the amount it owes. Each subscription in its own mutation by `system` on its store (store lock, then the
 * subscription row, then the platform ledger), so one failure stops no other (it is in `errors`). Safe to run on several instances at once: the row lock and the re-check of its state make a
 * second runner find nothing due.
 *
 * @param options.billing billing adapter of stores that are not the demo (default the sandbox)
 * @param options.email where suspension notices go (default: none sent)
 */
export async function runAppBilling(
  app: Pick<AppContext, 'db' | 'feed'>,
  now: Date,
  options: { billing?: AppBillingAdapter; email?: EmailProvider } = {},
): Promise<AppBillingReport> {
  const report: AppBillingReport = { charged: 0, failed: 0, suspended: 0, errors: [] };
  const adapter = options.billing ?? sandboxBilling;
  const { rows: due } = await app.db.query<{ id: string; merchant_id: string }>(
    `SELECT id, merchant_id FROM app_subscriptions WHERE (status = 'active' AND current_period_end <= $1) OR (status = 'past_due' AND next_retry_at <= $1) ORDER BY id`,
    [now.toISOString()],
  );
  const at = { db: app.db, feed: app.feed, clock: () => now };
  for (const d of due) {
    try {
      await mutation(at, { merchantId: d.merchant_id, actor: 'system' }, async (m) => {
        const tx = m.tx;
        let sub = await lockSubscription(tx, 'id', d.id);
        if (!sub) return;
        /** Charges one period: paid → the subscription moves on; declined → past due or suspended. Returns whether paid. */
        const charge = async (
          kind: 'retry' | 'renewal',
          period: { start: Date; end: Date },
          amountCents: number,
          currency?: string,
        ): Promise<boolean> => {
          const result = await attemptCharge(
            tx,
            sub!,
            { kind, periodStart: period.start, periodEnd: period.end, amountCents, ...(currency ? { currency } : {}) },
            adapter,
            now,
            'system',
          );
          if (result.status === 'failed') {
            report.failed++;
            sub = await markFailed(tx, sub!, period, result.code, now, options.email);
            if (sub.status === 'suspended') report.suspended++;
            return false;
          }
          report.charged++;
          sub = await markPaid(tx, sub!, period, now);
          return true;
        };
        if (sub.status === 'past_due' && sub.next_retry_at && new Date(sub.next_retry_at) <= now) {
          const owed = (
            await tx.query<ChargeRow>(`SELECT * FROM app_charges WHERE subscription_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, [sub.id])
          ).rows[0];
          const period = { start: new Date(sub.current_period_start), end: new Date(sub.current_period_end) };
          if (!(await charge('retry', period, owed ? Number(owed.amount_cents) : Number(sub.price_cents), owed?.currency))) return;
        }
        for (let n = 0; n < MAX_RENEWALS_PER_TICK && sub.status === 'active' && new Date(sub.current_period_end) <= now; n++) {
          const next = await priceForNextPeriod(tx, sub, now, 'system');
          sub = next.sub;
          if ('ended' in next) return;
          if (!(await charge('renewal', billingPeriodOf(new Date(sub.current_period_end)), next.priceCents))) return;
        }
      });
    } catch (err) {
      report.errors.push({ subscriptionId: d.id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return report;
}

/** `PUT /api/pos/app-billing/payment-method`. */
export const billingMethodSchema = z.strictObject({
  billingReference: z
    .string()
    .regex(/^bref_[A-Za-z0-9_-]{4,120}$/, 'must be a billing reference from the billing processor (`bref_…`), never a card number')
    .describe("The store's billing method at the billing processor. Sandbox: `bref_sbx_<brand>_<last4>`; last four 0002, 9995, 0069 decline."),
});

/**
 * A store sets its billing method (inside the store's mutation `m`), then owes nothing more for long: every past-due
 * subscription is retried at once for what it owes, and every suspended one is reactivated with a new charge prorated
 * from today to the end of the month (like an install). A decline here changes no retry schedule.
 * @returns the store's subscriptions after the retries
 */
export async function setBillingMethod(
  m: Mutation,
  billingReference: string,
  options: { billing?: AppBillingAdapter } = {},
): Promise<{ billingReference: string; subscriptions: AppSubscription[] }> {
  await m.tx.query(
    `INSERT INTO app_billing_methods (merchant_id, billing_reference, updated_by, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id) DO UPDATE SET billing_reference = EXCLUDED.billing_reference, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
    [m.merchantId, billingReference, m.actor, m.now.toISOString()],
  );
  await m.audit({ action: 'app_billing_method.updated', entityType: 'merchant', entityId: m.merchantId, data: { billingReference } });
  const adapter = options.billing ?? sandboxBilling;
  const { rows } = await m.tx.query<{ id: string }>(
    `SELECT id FROM app_subscriptions WHERE merchant_id = $1 AND status IN ('past_due', 'suspended') ORDER BY id`,
    [m.merchantId],
  );
  for (const { id } of rows) {
    const sub = (await lockSubscription(m.tx, 'id', id))!;
    if (sub.status === 'past_due') {
      const owed = (
        await m.tx.query<ChargeRow>(`SELECT * FROM app_charges WHERE subscription_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, [sub.id])
      ).rows[0];
      const period = { start: new Date(sub.current_period_start), end: new Date(sub.current_period_end) };
      const result = await attemptCharge(
        m.tx,
        sub,
        {
          kind: 'retry',
          periodStart: period.start,
          periodEnd: period.end,
          amountCents: owed ? Number(owed.amount_cents) : Number(sub.price_cents),
          ...(owed ? { currency: owed.currency } : {}),
        },
        adapter,
        m.now,
        m.actor,
      );
      if (result.status !== 'failed') await markPaid(m.tx, sub, period, m.now);
    } else {
      const next = await priceForNextPeriod(m.tx, sub, m.now, m.actor);
      if ('ended' in next) continue;
      const fresh = initialCharge(next.priceCents, m.now);
      const period = { start: fresh.periodStart, end: fresh.periodEnd };
      const result = await attemptCharge(
        m.tx,
        next.sub,
        { kind: 'reactivation', periodStart: period.start, periodEnd: period.end, amountCents: fresh.amountCents },
        adapter,
        m.now,
        m.actor,
      );
      if (result.status !== 'failed') await markPaid(m.tx, next.sub, period, m.now);
    }
  }
  return { billingReference, subscriptions: (await listAppSubscriptions(m.tx, m.merchantId)).data };
}

async function subscriptionView(db: Queryable, sub: SubRow): Promise<AppSubscription> {
  return (await viewsOf(db, [sub]))[0]!;
}

async function viewsOf(db: Queryable, subs: SubRow[]): Promise<AppSubscription[]> {
  if (subs.length === 0) return [];
  const ids = subs.map((s) => s.id);
  const charges = await db.query<ChargeRow>(
    `SELECT * FROM (SELECT c.*, row_number() OVER (PARTITION BY subscription_id ORDER BY created_at DESC, id DESC) AS n FROM app_charges c WHERE subscription_id = ANY($1::text[])) t WHERE n <= 24 ORDER BY created_at DESC, id DESC`,
    [ids],
  );
  const refunds = await db.query<{
    id: string;
    charge_id: string;
    subscription_id: string;
    amount_cents: string | number;
    currency: string;
    unused_days: number;
    covered_days: number;
    created_at: Date | string;
  }>('SELECT * FROM app_charge_refunds WHERE subscription_id = ANY($1::text[]) ORDER BY created_at DESC, id DESC', [ids]);
  const apps = await db.query<{ id: string; name: string; price: string | number | null; currency: string | null }>(
    'SELECT id, name, approved_price_cents AS price, approved_currency AS currency FROM apps WHERE id = ANY($1::text[])',
    [[...new Set(subs.map((s) => s.app_id))]],
  );
  const appName = new Map(apps.rows.map((a) => [a.id, a.name]));
  const listedPrice = new Map(apps.rows.map((a) => [a.id, { priceCents: Number(a.price ?? 0), currency: a.currency }]));
  return subs.map((s) => {
    const mine = charges.rows.filter((c) => c.subscription_id === s.id);
    const lastFailed = mine.find((c) => c.status === 'failed');
    const change =
      s.status === 'canceled'
        ? { kind: 'none' as const }
        : subscriptionPriceChange(
            { priceCents: Number(s.price_cents), currency: s.currency },
            listedPrice.get(s.app_id) ?? { priceCents: 0, currency: null },
          );
    const priceChange: AppPriceChange =
      change.kind === 'none'
        ? null
        : {
            kind: change.kind,
            fromCents: Number(s.price_cents),
            fromCurrency: s.currency,
            toCents: change.kind === 'free' ? 0 : change.priceCents,
            toCurrency: change.kind === 'free' ? null : change.kind === 'rise' ? change.currency : s.currency,
            needsAcceptance: change.kind === 'rise',
            appliesFrom: iso(s.current_period_end),
          };
    const renewalCents = change.kind === 'lower' ? change.priceCents : Number(s.price_cents);
    const endsUnpaid = s.status === 'active' && change.kind === 'free';
    const nextChargeAt = endsUnpaid
      ? null
      : s.status === 'active'
        ? iso(s.current_period_end)
        : s.status === 'past_due'
          ? isoOrNull(s.next_retry_at)
          : null;
    const nextChargeCents = endsUnpaid
      ? null
      : s.status === 'active'
        ? renewalCents
        : s.status === 'past_due'
          ? Number(lastFailed?.amount_cents ?? s.price_cents)
          : null;
    const notice =
      s.status === 'past_due'
        ? `The last charge was declined (${lastFailed?.decline_code ?? 'declined'}); it is retried on ${isoOrNull(s.next_retry_at)}. Update the billing method to pay now.`
        : s.status === 'suspended'
          ? `Suspended after ${s.failed_attempts} declined charges (${lastFailed?.decline_code ?? 'declined'}). Update the billing method to reactivate the app.`
          : null;
    return {
      id: s.id,
      installationId: s.installation_id,
      appId: s.app_id,
      appName: appName.get(s.app_id) ?? s.app_id,
      priceCents: Number(s.price_cents),
      currency: s.currency,
      status: s.status,
      currentPeriodStart: iso(s.current_period_start),
      currentPeriodEnd: iso(s.current_period_end),
      nextChargeAt,
      nextChargeCents,
      failedAttempts: s.failed_attempts,
      suspendedAt: isoOrNull(s.suspended_at),
      canceledAt: isoOrNull(s.canceled_at),
      notice,
      priceChange,
      charges: mine.map((c) => ({
        id: c.id,
        kind: c.kind,
        periodStart: iso(c.period_start),
        periodEnd: iso(c.period_end),
        amountCents: Number(c.amount_cents),
        currency: c.currency,
        status: c.status,
        declineCode: c.decline_code,
        journalTransactionId: c.journal_transaction_id,
        createdAt: iso(c.created_at),
      })),
      refunds: refunds.rows
        .filter((r) => r.subscription_id === s.id)
        .map((r) => ({
          id: r.id,
          chargeId: r.charge_id,
          amountCents: Number(r.amount_cents),
          currency: r.currency,
          unusedDays: r.unused_days,
          coveredDays: r.covered_days,
          createdAt: iso(r.created_at),
        })),
      createdAt: iso(s.created_at),
    };
  });
}

/** `GET /api/pos/app-subscriptions`: the store's app subscriptions (newest first, at most 200) and its billing method. */
export async function listAppSubscriptions(db: Queryable, merchantId: string): Promise<{ data: AppSubscription[]; billingReference: string }> {
  const { rows } = await db.query<SubRow>('SELECT * FROM app_subscriptions WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC LIMIT 200', [
    merchantId,
  ]);
  return { data: await viewsOf(db, rows), billingReference: await billingReferenceOf(db, merchantId) };
}
