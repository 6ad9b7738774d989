/**
 * Developer earnings, payouts and statements (docs/decisions/0065-developer-earnings-hold.md).
 *
 * A developer's 85 % share of each paid charge is HELD on `developer_pending:<developerId>` until core
 * `earningsAvailableAt` (core `DEVELOPER_EARNINGS_HOLD_DAYS`, 31 days, and never before the charge's period — its
 * refund window — has ended). {@link releaseMaturedEarnings} then moves it to `developer_payable:<developerId>`
 * (available), paying back first what the developer owes on `developer_receivable:<developerId>` (refunds beyond
 * their balance). Payouts take only the available balance, through the payment-connect adapter, by hand
 * (`POST /api/developer/payouts`) or weekly by the housekeeping tick, once it reaches the minimum (default 25.00);
 * each posts Dr `developer_payable:<developerId>`, Cr `app_billing_clearing` on the platform ledger.
 *
 * Earnings from the demo store never pay out: money movement is disabled there (kernel `assertMoneyMovementAllowed`,
 * 403 `money_movement_disabled`); they stay on `developer_demo_earnings:<developerId>` and on the statement as
 * `demoEarningsCents`. Earnings from every other store (sandbox rails included) pay out after the hold.
 */
import { z } from 'zod';
import {
  DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS,
  DEVELOPER_EARNINGS_HOLD_DAYS,
  newAppBillingId,
  releaseCredits,
  weeklyPayoutCutoff,
} from '../../../../core/index.ts';
import { assertMoneyMovementAllowed } from '../../kernel/money-movement.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { sandboxPaymentConnect, type PaymentConnectAdapter } from './adapters.ts';
import {
  developerPayableAccount,
  developerPendingAccount,
  developerPosition,
  developerReceivableAccount,
  lockDeveloper,
  postOnPlatformLedger,
} from './ledger.ts';

const DAY_MS = 24 * 3600 * 1000;
const currencyCode = z
  .string()
  .transform((v) => v.toUpperCase())
  .refine((v) => /^[A-Z]{3}$/.test(v), 'must be an ISO 4217 currency code, e.g. USD');

/** `POST /api/developer/payouts`. */
export const developerPayoutCreateSchema = z.strictObject({
  currency: currencyCode.optional().describe("Which currency's earnings to pay out; required only when the developer earns in more than one."),
});

/** A payout to a developer as the API answers it. */
export const developerPayoutSchema = z.object({
  id: z.string().describe('`dpo_…`'),
  amountCents: z.int().describe('Minor units of `currency`.'),
  currency: z.string(),
  status: z.enum(['paid']),
  trigger: z.enum(['manual', 'scheduled']),
  processor: z.string().describe('The payment-connect adapter, `sandbox`.'),
  connectAccount: z.string(),
  journalTransactionId: z.string(),
  earningsThrough: z.iso.datetime().describe('The available balance at this time was paid: earnings released before it.'),
  createdAt: z.iso.datetime(),
});
export type DeveloperPayout = z.infer<typeof developerPayoutSchema>;

/** A developer's statement (`GET /api/developer/statement`). */
export const developerStatementSchema = z.object({
  developerId: z.string(),
  payoutMinimumCents: z.int().describe('Least payout, minor units.'),
  payoutSchedule: z.string().describe('When scheduled payouts run.'),
  nextScheduledPayoutAt: z.iso.datetime(),
  holdDays: z
    .int()
    .describe(
      "How long each charge's share is held before it can be paid out (and never before the period it paid for — its refund window — has ended).",
    ),
  balances: z.array(
    z.object({
      currency: z.string(),
      grossChargesCents: z.int().describe("Paid charges of the developer's apps."),
      developerShareCents: z.int().describe('85 % of them (floored per charge).'),
      refundedCents: z.int().describe('Developer share given back by refunds of unused days.'),
      paidOutCents: z.int(),
      pendingCents: z.int().describe('On hold (`developer_pending:<developerId>`): not payable until released.'),
      availableCents: z.int().describe('Released and not paid out (`developer_payable:<developerId>`): what a payout takes.'),
      owedCents: z
        .int()
        .describe(
          'What the developer owes (`developer_receivable:<developerId>`): refunds beyond their balance, recovered from the next releases before anything becomes available.',
        ),
      demoEarningsCents: z.int().describe('Earnings from the demo store: never paid out (money movement disabled there).'),
      balanceCents: z.int().describe('All the platform owes the developer: pending + available + demo − owed.'),
      nextAvailableAt: z.iso.datetime().nullable().describe('When the next held earning is released; null when none is held.'),
    }),
  ),
  charges: z
    .array(
      z.object({
        id: z.string(),
        appId: z.string(),
        appName: z.string(),
        storeName: z.string(),
        demoStore: z.boolean(),
        kind: z.string(),
        amountCents: z.int(),
        developerShareCents: z.int(),
        platformShareCents: z.int(),
        currency: z.string(),
        earnings: z
          .enum(['on_hold', 'released', 'demo'])
          .describe("Where its share is: held, released (available or paid out), or the demo store's."),
        earningsAvailableAt: z.iso
          .datetime()
          .nullable()
          .describe("When its share is (or was) released; null for the demo store's and for charges made before holds existed."),
        journalTransactionId: z.string(),
        createdAt: z.iso.datetime(),
      }),
    )
    .describe('Paid charges, newest first (at most 200).'),
  refunds: z.array(
    z.object({
      id: z.string(),
      chargeId: z.string(),
      amountCents: z.int(),
      developerShareCents: z.int(),
      fromPendingCents: z.int().describe('Taken from earnings on hold.'),
      fromAvailableCents: z.int().describe('Taken from the available balance (only when the pending balance did not cover it).'),
      toOwedCents: z.int().describe('What neither covered: owed, recovered from later earnings.'),
      currency: z.string(),
      createdAt: z.iso.datetime(),
    }),
  ),
  payouts: z.array(developerPayoutSchema),
});
export type DeveloperStatement = z.infer<typeof developerStatementSchema>;

interface PayoutRow {
  id: string;
  amount_cents: string | number;
  currency: string;
  status: 'paid';
  trigger: 'manual' | 'scheduled';
  processor: string;
  connect_account: string;
  journal_transaction_id: string;
  earnings_through: Date | string;
  created_at: Date | string;
}

const toPayout = (r: PayoutRow): DeveloperPayout => ({
  id: r.id,
  amountCents: Number(r.amount_cents),
  currency: r.currency,
  status: r.status,
  trigger: r.trigger,
  processor: r.processor,
  connectAccount: r.connect_account,
  journalTransactionId: r.journal_transaction_id,
  earningsThrough: new Date(r.earnings_through).toISOString(),
  createdAt: new Date(r.created_at).toISOString(),
});

async function earningCurrencies(db: Queryable, developerId: string): Promise<string[]> {
  const { rows } = await db.query<{ currency: string }>(
    `SELECT DISTINCT currency FROM app_charges WHERE developer_id = $1 AND status = 'paid' ORDER BY currency`,
    [developerId],
  );
  return rows.map((r) => r.currency);
}

/** When the developer's next held earning in `currency` is released, or null when none is held. */
async function nextReleaseAt(db: Queryable, developerId: string, currency: string): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | string | null }>(
    `SELECT MIN(c.earnings_available_at) AS at FROM app_charges c
      WHERE c.developer_id = $1 AND c.currency = $2 AND c.earnings = 'held' AND NOT EXISTS (SELECT 1 FROM developer_earnings_releases x WHERE x.charge_id = c.id)`,
    [developerId, currency],
  );
  return rows[0]?.at ? new Date(rows[0].at) : null;
}

/**
 * Releases the developer's held earnings whose hold has ended by `now`, inside `tx` with the developer's lock held
 * ({@link lockDeveloper}): per currency one journal transaction — Dr `developer_pending`, Cr `developer_receivable`
 * what repays the developer's debt, Cr `developer_payable` the rest (core `releaseCredits`: each charge's share less
 * its refund, oldest first, never more than the pending balance) — a `developer_earnings_releases` row per charge
 * (so no charge is released twice) and the platform audit entry `developer_earnings.released`.
 * @returns how many charges were released
 */
export async function releaseMaturedEarnings(tx: Queryable, developerId: string, now: Date): Promise<number> {
  const { rows } = await tx.query<{ id: string; currency: string; share: string; refunded: string }>(
    `SELECT c.id, c.currency, c.developer_share_cents AS share, COALESCE(r.developer_share_cents, 0) AS refunded
       FROM app_charges c LEFT JOIN app_charge_refunds r ON r.charge_id = c.id
      WHERE c.developer_id = $1 AND c.earnings = 'held' AND c.earnings_available_at <= $2
        AND NOT EXISTS (SELECT 1 FROM developer_earnings_releases x WHERE x.charge_id = c.id)
      ORDER BY c.earnings_available_at, c.created_at, c.id`,
    [developerId, now.toISOString()],
  );
  for (const currency of [...new Set(rows.map((r) => r.currency))]) {
    const matured = rows.filter((r) => r.currency === currency);
    const held = matured.map((r) => Math.max(0, Number(r.share) - Number(r.refunded)));
    const position = await developerPosition(tx, developerId, currency);
    const credits = releaseCredits(held, position);
    const releaseId = newAppBillingId('release');
    let journalTransactionId: string | null = null;
    if (credits.releasedCents > 0) {
      const toReceivable = Math.min(credits.recoveredCents, position.receivableCents);
      const jt = await postOnPlatformLedger(
        tx,
        now,
        {
          kind: 'adjustment',
          sourceType: 'developer_earnings_release',
          sourceId: releaseId,
          currency,
          memo: `Release ${releaseId} of ${matured.length} held earnings of ${developerId}`,
        },
        [
          { accountCode: developerPendingAccount(developerId), amountCents: credits.releasedCents },
          { accountCode: developerReceivableAccount(developerId), amountCents: -toReceivable },
          { accountCode: developerPayableAccount(developerId), amountCents: -(credits.releasedCents - toReceivable) },
        ],
        {
          action: 'developer_earnings.released',
          entityType: 'developer',
          entityId: developerId,
          data: {
            releaseId,
            currency,
            charges: matured.map((r) => r.id),
            heldCents: held.reduce((a, b) => a + b, 0),
            releasedCents: credits.releasedCents,
            recoveredCents: credits.recoveredCents,
            availableCents: credits.toAvailableCents,
          },
        },
      );
      journalTransactionId = jt.id;
    }
    for (const [i, r] of matured.entries()) {
      await tx.query(
        `INSERT INTO developer_earnings_releases (charge_id, developer_id, currency, held_cents, released_cents, recovered_cents, journal_transaction_id, released_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          r.id,
          developerId,
          currency,
          held[i]!,
          credits.perCharge[i]!.releasedCents,
          credits.perCharge[i]!.recoveredCents,
          journalTransactionId,
          now.toISOString(),
        ],
      );
    }
  }
  return rows.length;
}

/**
 * The housekeeping tick's release of held earnings at `now`: every developer with a charge whose hold has ended, each
 * in its own transaction under the developer's lock (a second runner finds nothing left). One failure stops no other.
 */
export async function runDeveloperEarningsReleases(
  db: Db,
  now: Date,
): Promise<{ released: number; errors: { developerId: string; message: string }[] }> {
  const { rows } = await db.query<{ developer_id: string }>(
    `SELECT DISTINCT c.developer_id FROM app_charges c
      WHERE c.earnings = 'held' AND c.earnings_available_at <= $1 AND NOT EXISTS (SELECT 1 FROM developer_earnings_releases x WHERE x.charge_id = c.id)
      ORDER BY c.developer_id`,
    [now.toISOString()],
  );
  const out = { released: 0, errors: [] as { developerId: string; message: string }[] };
  for (const r of rows) {
    try {
      // Not mutation(): the developer's lock comes before the platform ledger's, which postOnPlatformLedger's openMutation takes.
      out.released += await db.transaction(async (tx) => {
        await lockDeveloper(tx, r.developer_id);
        return releaseMaturedEarnings(tx, r.developer_id, now);
      });
    } catch (err) {
      out.errors.push({ developerId: r.developer_id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/** Options of a payout: adapter and minimum. */
export interface DeveloperPayoutOptions {
  paymentConnect?: PaymentConnectAdapter;
  /** Least payout, minor units (default 2 500). */
  minimumCents?: number;
}

/**
 * Pays a developer's AVAILABLE balance in one currency out through the payment-connect adapter, in one transaction
 * under the developer's lock (two payouts never take the same money): held earnings whose hold has ended are released
 * first ({@link releaseMaturedEarnings}), then the adapter's transfer (idempotency key: the payout id), the journal
 * transaction on the platform ledger, the payout row and the platform audit entry `developer_payout.paid`. Earnings on
 * hold and the demo store's are never paid; what the developer owes is recovered from releases before anything is
 * available.
 *
 * @throws ProblemError 409 `earnings_on_hold` (nothing available yet; the detail says when the next earning is
 *   released); 403 `money_movement_disabled` when the only earnings are the demo store's (before the adapter is
 *   reached or anything is written); 409 `nothing_to_pay_out`; 409 `below_payout_minimum` naming the minimum; 400
 *   naming `currency` when it is needed (several currencies); 409 `paid_this_week` for a second scheduled payout of
 *   one currency in a week (weeks from Monday 00:00 UTC).
 */
export async function payOutDeveloper(
  db: Db,
  developerId: string,
  input: { currency?: string; trigger: 'manual' | 'scheduled'; now: Date },
  options: DeveloperPayoutOptions = {},
): Promise<DeveloperPayout> {
  const connect = options.paymentConnect ?? sandboxPaymentConnect;
  const minimum = options.minimumCents ?? DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS;
  // Not mutation(): the developer's lock comes before the platform ledger's, which postOnPlatformLedger's openMutation takes.
  return db.transaction(async (tx) => {
    await lockDeveloper(tx, developerId);
    const currencies = await earningCurrencies(tx, developerId);
    let currency = input.currency;
    if (!currency) {
      if (currencies.length === 0) throw new ProblemError(409, 'nothing_to_pay_out', 'There are no earnings to pay out yet.');
      if (currencies.length > 1)
        throw new ProblemError(400, 'validation_error', `Invalid currency: you earn in ${currencies.join(', ')}; name one.`, [
          { path: 'currency', message: `is required: one of ${currencies.join(', ')}` },
        ]);
      currency = currencies[0]!;
    } else if (!currencies.includes(currency)) {
      throw new ProblemError(409, 'nothing_to_pay_out', `There are no earnings in ${currency} to pay out.`);
    }
    if (input.trigger === 'scheduled') {
      // Once a week, even when two instances tick at once: the second finds the first's payout under the lock.
      const { rows } = await tx.query(
        `SELECT 1 FROM developer_payouts WHERE developer_id = $1 AND currency = $2 AND trigger = 'scheduled' AND created_at >= $3`,
        [developerId, currency, weeklyPayoutCutoff(input.now).toISOString()],
      );
      if (rows.length > 0) throw new ProblemError(409, 'paid_this_week', `The scheduled payout of ${currency} for this week has been made.`);
    }
    await releaseMaturedEarnings(tx, developerId, input.now);
    const position = await developerPosition(tx, developerId, currency);
    const amount = position.availableCents;
    if (amount <= 0) {
      const next = await nextReleaseAt(tx, developerId, currency);
      if (position.pendingCents > 0 && next) {
        throw new ProblemError(
          409,
          'earnings_on_hold',
          `There is nothing available to pay out in ${currency} yet: ${position.pendingCents} (minor units) is on hold; the next earning is released on ${next.toISOString()}.`,
        );
      }
      if (position.demoCents > 0) {
        const demo = (
          await tx.query<{ id: string; name: string }>(
            `SELECT m.id, m.name FROM app_charges c JOIN merchants m ON m.id = c.merchant_id WHERE c.developer_id = $1 AND c.currency = $2 AND m.is_demo LIMIT 1`,
            [developerId, currency],
          )
        ).rows[0];
        if (demo) assertMoneyMovementAllowed({ ...demo, is_demo: true }, 'A developer payout of earnings from the demo store');
      }
      throw new ProblemError(409, 'nothing_to_pay_out', `There are no earnings in ${currency} to pay out.`);
    }
    if (amount < minimum) {
      throw new ProblemError(
        409,
        'below_payout_minimum',
        `Invalid amount: ${amount} is below the payout minimum of ${minimum} (${currency} minor units); it is paid out once earnings reach it.`,
        [{ path: 'amountCents', message: `must be at least ${minimum}` }],
      );
    }
    const id = newAppBillingId('payout');
    const connectAccount = connect.accountOf(developerId);
    const answer = await connect.transfer({ developerId, connectAccount, amountCents: amount, currency, reference: id });
    const jt = await postOnPlatformLedger(
      tx,
      input.now,
      { kind: 'payout', sourceType: 'developer_payout', sourceId: id, currency, memo: `Developer payout ${id} to ${connectAccount}` },
      [
        { accountCode: developerPayableAccount(developerId), amountCents: amount },
        { accountCode: 'app_billing_clearing', amountCents: -amount },
      ],
      {
        action: 'developer_payout.paid',
        entityType: 'developer_payout',
        entityId: id,
        data: { developerId, amountCents: amount, currency, trigger: input.trigger },
      },
    );
    const { rows } = await tx.query<PayoutRow>(
      `INSERT INTO developer_payouts (id, developer_id, amount_cents, currency, status, trigger, earnings_through, processor, connect_account, processor_reference, journal_transaction_id, created_at)
       VALUES ($1, $2, $3, $4, 'paid', $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [
        id,
        developerId,
        amount,
        currency,
        input.trigger,
        input.now.toISOString(),
        connect.name,
        connectAccount,
        answer.processorReference,
        jt.id,
        input.now.toISOString(),
      ],
    );
    return toPayout(rows[0]!);
  });
}

/**
 * The housekeeping tick's weekly payouts at `now`: once a week, from Monday 00:00 UTC (core `weeklyPayoutCutoff`),
 * every developer and currency without a scheduled payout since that Monday whose available balance (after the tick's
 * releases) reaches the minimum is paid out. Below the minimum it stays for a later week; held and demo-store earnings
 * are left alone.
 */
export async function runScheduledDeveloperPayouts(
  db: Db,
  now: Date,
  options: DeveloperPayoutOptions = {},
): Promise<{ paid: number; errors: { developerId: string; message: string }[] }> {
  const cutoff = weeklyPayoutCutoff(now);
  const { rows } = await db.query<{ developer_id: string; currency: string }>(
    `SELECT DISTINCT c.developer_id, c.currency FROM app_charges c
      WHERE c.status = 'paid'
        AND NOT EXISTS (SELECT 1 FROM developer_payouts p WHERE p.developer_id = c.developer_id AND p.currency = c.currency AND p.trigger = 'scheduled' AND p.created_at >= $1)
      ORDER BY c.developer_id, c.currency`,
    [cutoff.toISOString()],
  );
  const out = { paid: 0, errors: [] as { developerId: string; message: string }[] };
  for (const r of rows) {
    const position = await developerPosition(db, r.developer_id, r.currency);
    if (position.availableCents <= 0 || position.availableCents < (options.minimumCents ?? DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS)) continue;
    try {
      await payOutDeveloper(db, r.developer_id, { currency: r.currency, trigger: 'scheduled', now }, options);
      out.paid++;
    } catch (err) {
      if (err instanceof ProblemError && err.status < 500) continue; // raced with a manual payout, or below the minimum now
      out.errors.push({ developerId: r.developer_id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/**
 * A developer's statement at `now`: per currency the gross of paid charges, the 85 % shares, refunds, payouts and the
 * balance read from the platform ledger — on hold, available, owed, the demo store's — with when the next held
 * earning is released; the paid charges (newest 200) with where each share is, refunds with where each was taken
 * from, and payouts. A read: releases happen in the tick and at a payout.
 */
export async function developerStatement(
  db: Queryable,
  developerId: string,
  now: Date,
  options: { minimumCents?: number } = {},
): Promise<DeveloperStatement> {
  const totals = await db.query<{ currency: string; gross: string; share: string }>(
    `SELECT currency, SUM(amount_cents) AS gross, SUM(developer_share_cents) AS share FROM app_charges WHERE developer_id = $1 AND status = 'paid' GROUP BY currency ORDER BY currency`,
    [developerId],
  );
  const refunded = await db.query<{ currency: string; share: string }>(
    'SELECT currency, SUM(developer_share_cents) AS share FROM app_charge_refunds WHERE developer_id = $1 GROUP BY currency',
    [developerId],
  );
  const paidOut = await db.query<{ currency: string; total: string }>(
    'SELECT currency, SUM(amount_cents) AS total FROM developer_payouts WHERE developer_id = $1 GROUP BY currency',
    [developerId],
  );
  const by = <T extends { currency: string }>(rows: T[], key: keyof T) => new Map(rows.map((r) => [r.currency, Number(r[key])]));
  const refundedBy = by(refunded.rows, 'share');
  const paidBy = by(paidOut.rows, 'total');
  const balances = [];
  for (const t of totals.rows) {
    const position = await developerPosition(db, developerId, t.currency);
    balances.push({
      currency: t.currency,
      grossChargesCents: Number(t.gross),
      developerShareCents: Number(t.share),
      refundedCents: refundedBy.get(t.currency) ?? 0,
      paidOutCents: paidBy.get(t.currency) ?? 0,
      pendingCents: position.pendingCents,
      availableCents: position.availableCents,
      owedCents: position.owedCents,
      demoEarningsCents: position.demoCents,
      balanceCents: position.pendingCents + position.availableCents + position.demoCents - position.owedCents,
      nextAvailableAt: (await nextReleaseAt(db, developerId, t.currency))?.toISOString() ?? null,
    });
  }
  const charges = await db.query<Record<string, any>>(
    `SELECT c.*, a.name AS app_name, m.name AS store_name, m.is_demo, EXISTS (SELECT 1 FROM developer_earnings_releases x WHERE x.charge_id = c.id) AS released
       FROM app_charges c JOIN apps a ON a.id = c.app_id JOIN merchants m ON m.id = c.merchant_id
      WHERE c.developer_id = $1 AND c.status = 'paid' ORDER BY c.created_at DESC, c.id DESC LIMIT 200`,
    [developerId],
  );
  const refunds = await db.query<Record<string, any>>(
    'SELECT * FROM app_charge_refunds WHERE developer_id = $1 ORDER BY created_at DESC, id DESC LIMIT 200',
    [developerId],
  );
  const payouts = await db.query<PayoutRow>('SELECT * FROM developer_payouts WHERE developer_id = $1 ORDER BY created_at DESC, id DESC LIMIT 200', [
    developerId,
  ]);
  return {
    developerId,
    payoutMinimumCents: options.minimumCents ?? DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS,
    payoutSchedule: 'weekly from Mondays 00:00 UTC: the available balance (earnings whose hold has ended), once it reaches the minimum',
    nextScheduledPayoutAt: new Date(weeklyPayoutCutoff(now).getTime() + 7 * DAY_MS).toISOString(),
    holdDays: DEVELOPER_EARNINGS_HOLD_DAYS,
    balances,
    charges: charges.rows.map((c) => ({
      id: c.id,
      appId: c.app_id,
      appName: c.app_name,
      storeName: c.store_name,
      demoStore: Boolean(c.is_demo),
      kind: c.kind,
      amountCents: Number(c.amount_cents),
      developerShareCents: Number(c.developer_share_cents),
      platformShareCents: Number(c.platform_share_cents),
      currency: c.currency,
      earnings: c.is_demo ? ('demo' as const) : c.earnings === 'held' && !c.released ? ('on_hold' as const) : ('released' as const),
      earningsAvailableAt: c.earnings_available_at ? new Date(c.earnings_available_at).toISOString() : null,
      journalTransactionId: c.journal_transaction_id,
      createdAt: new Date(c.created_at).toISOString(),
    })),
    refunds: refunds.rows.map((r) => ({
      id: r.id,
      chargeId: r.charge_id,
      amountCents: Number(r.amount_cents),
      developerShareCents: Number(r.developer_share_cents),
      fromPendingCents: Number(r.from_pending_cents),
      fromAvailableCents: Number(r.from_available_cents),
      toOwedCents: Number(r.to_receivable_cents),
      currency: r.currency,
      createdAt: new Date(r.created_at).toISOString(),
    })),
    payouts: payouts.rows.map(toPayout),
  };
}
