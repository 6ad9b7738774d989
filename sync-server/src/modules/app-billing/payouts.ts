/**
 * Developer payouts and statements (issue 15, DESIGN §13): a developer's earnings are the 85 % shares of paid app
 * charges less the shares of their refunds; they are paid out through the payment-connect adapter, by hand
 * (`POST /api/developer/payouts`) or weekly by the housekeeping tick, once they reach the minimum (default 25.00).
 * Each payout posts Dr `developer_payable:<developerId>`, Cr `app_billing_clearing` on the platform ledger.
 *
 * Earnings from the demo store never pay out: money movement is disabled there (kernel `assertMoneyMovementAllowed`,
 * 403 `money_movement_disabled`); they stay on the statement as `demoEarningsCents`. Earnings from every other store
 * (sandbox rails included) pay out to the end.
 */
import { z } from 'zod';
import { DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS, newAppBillingId, PLATFORM_LEDGER_MERCHANT_ID, weeklyPayoutCutoff } from '../../../../core/index.ts';
import { assertMoneyMovementAllowed } from '../../kernel/money-movement.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { sandboxPaymentConnect, type PaymentConnectAdapter } from './adapters.ts';
import { developerPayableAccount, postOnPlatformLedger } from './ledger.ts';

const DAY_MS = 24 * 3600 * 1000;
const currencyCode = z
  .string()
  .transform((v) => v.toUpperCase())
  .refine((v) => /^[A-Z]{3}$/.test(v), 'must be an ISO 4217 currency code, e.g. USD');

/** `POST /api/developer/payouts`. */
export const developerPayoutCreateSchema = z.strictObject({
  currency: currencyCode.optional().describe('Which currency\'s earnings to pay out; required only when the developer earns in more than one.'),
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
  earningsThrough: z.iso.datetime().describe('Earnings of charges made before this time were counted.'),
  createdAt: z.iso.datetime(),
});
export type DeveloperPayout = z.infer<typeof developerPayoutSchema>;

/** A developer's statement (`GET /api/developer/statement`). */
export const developerStatementSchema = z.object({
  developerId: z.string(),
  payoutMinimumCents: z.int().describe('Least payout, minor units.'),
  payoutSchedule: z.string().describe('When scheduled payouts run.'),
  nextScheduledPayoutAt: z.iso.datetime(),
  balances: z.array(
    z.object({
      currency: z.string(),
      grossChargesCents: z.int().describe('Paid charges of the developer\'s apps.'),
      developerShareCents: z.int().describe('85 % of them (floored per charge).'),
      refundedCents: z.int().describe('Developer share given back by refunds of unused days.'),
      paidOutCents: z.int(),
      balanceCents: z.int().describe('What the platform ledger owes (`developer_payable:<developerId>`): shares − refunds − payouts.'),
      availableCents: z.int().describe('Payable now: the balance without demo-store earnings.'),
      demoEarningsCents: z.int().describe('Earnings from the demo store: never paid out (money movement disabled there).'),
    }),
  ),
  charges: z.array(
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
      journalTransactionId: z.string(),
      createdAt: z.iso.datetime(),
    }),
  ).describe('Paid charges, newest first (at most 200).'),
  refunds: z.array(z.object({ id: z.string(), chargeId: z.string(), amountCents: z.int(), developerShareCents: z.int(), currency: z.string(), createdAt: z.iso.datetime() })),
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

/**
 * A developer's earnings in `currency` from charges and refunds made before `before`: what may pay out
 * (`availableCents`: shares less refunds from stores other than the demo, less every payout) and what the demo store
 * earned (`demoEarningsCents`), with the demo store's row for the guard.
 */
export async function developerEarnings(db: Queryable, developerId: string, currency: string, before: Date): Promise<{ availableCents: number; demoEarningsCents: number; demoStore: { id: string; name: string; is_demo: boolean } | null }> {
  const { rows: [r] } = await db.query<{ shares: string; shares_demo: string; refunds: string; refunds_demo: string; paid_out: string; demo_id: string | null; demo_name: string | null }>(
    `SELECT
       (SELECT COALESCE(SUM(c.developer_share_cents), 0) FROM app_charges c JOIN merchants m ON m.id = c.merchant_id WHERE c.developer_id = $1 AND c.currency = $2 AND c.status = 'paid' AND c.created_at < $3 AND NOT m.is_demo) AS shares,
       (SELECT COALESCE(SUM(c.developer_share_cents), 0) FROM app_charges c JOIN merchants m ON m.id = c.merchant_id WHERE c.developer_id = $1 AND c.currency = $2 AND c.status = 'paid' AND c.created_at < $3 AND m.is_demo) AS shares_demo,
       (SELECT COALESCE(SUM(r.developer_share_cents), 0) FROM app_charge_refunds r JOIN merchants m ON m.id = r.merchant_id WHERE r.developer_id = $1 AND r.currency = $2 AND r.created_at < $3 AND NOT m.is_demo) AS refunds,
       (SELECT COALESCE(SUM(r.developer_share_cents), 0) FROM app_charge_refunds r JOIN merchants m ON m.id = r.merchant_id WHERE r.developer_id = $1 AND r.currency = $2 AND r.created_at < $3 AND m.is_demo) AS refunds_demo,
       (SELECT COALESCE(SUM(p.amount_cents), 0) FROM developer_payouts p WHERE p.developer_id = $1 AND p.currency = $2) AS paid_out,
       (SELECT m.id FROM app_charges c JOIN merchants m ON m.id = c.merchant_id WHERE c.developer_id = $1 AND c.currency = $2 AND m.is_demo LIMIT 1) AS demo_id,
       (SELECT m.name FROM app_charges c JOIN merchants m ON m.id = c.merchant_id WHERE c.developer_id = $1 AND c.currency = $2 AND m.is_demo LIMIT 1) AS demo_name`,
    [developerId, currency, before.toISOString()],
  );
  return {
    availableCents: Number(r!.shares) - Number(r!.refunds) - Number(r!.paid_out),
    demoEarningsCents: Number(r!.shares_demo) - Number(r!.refunds_demo),
    demoStore: r!.demo_id ? { id: r!.demo_id, name: r!.demo_name ?? r!.demo_id, is_demo: true } : null,
  };
}

async function earningCurrencies(db: Queryable, developerId: string): Promise<string[]> {
  const { rows } = await db.query<{ currency: string }>(`SELECT DISTINCT currency FROM app_charges WHERE developer_id = $1 AND status = 'paid' ORDER BY currency`, [developerId]);
  return rows.map((r) => r.currency);
}

/** Options of a payout: adapter, minimum, trigger and the earnings cut-off. */
export interface DeveloperPayoutOptions {
  paymentConnect?: PaymentConnectAdapter;
  /** Least payout, minor units (default 2 500). */
  minimumCents?: number;
}

/**
 * Pays a developer's available earnings in one currency out through the payment-connect adapter, in one transaction
 * (the developer row locked, so two payouts never count the same earnings): the adapter's transfer (idempotency key:
 * the payout id), the journal transaction on the platform ledger, the payout row and the platform audit entry
 * `developer_payout.paid`.
 *
 * @param input.before earnings of charges made before this time count (manual: now; scheduled: the weekly cut-off)
 * @throws ProblemError 403 `money_movement_disabled` when the only earnings are the demo store's (the guard runs before
 *   the adapter is reached or anything is written); 409 `nothing_to_pay_out`; 409 `below_payout_minimum` naming the
 *   minimum; 400 naming `currency` when it is needed (several currencies) or unknown.
 */
export async function payOutDeveloper(db: Db, developerId: string, input: { currency?: string; trigger: 'manual' | 'scheduled'; now: Date; before: Date }, options: DeveloperPayoutOptions = {}): Promise<DeveloperPayout> {
  const connect = options.paymentConnect ?? sandboxPaymentConnect;
  const minimum = options.minimumCents ?? DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS;
  return db.transaction(async (tx) => {
    const dev = (await tx.query<{ id: string }>('SELECT id FROM developers WHERE id = $1 FOR UPDATE', [developerId])).rows[0];
    if (!dev) throw new ProblemError(404, 'not_found', `No developer ${developerId}.`);
    const currencies = await earningCurrencies(tx, developerId);
    let currency = input.currency;
    if (!currency) {
      if (currencies.length === 0) throw new ProblemError(409, 'nothing_to_pay_out', 'There are no earnings to pay out yet.');
      if (currencies.length > 1) throw new ProblemError(400, 'validation_error', `Invalid currency: you earn in ${currencies.join(', ')}; name one.`, [{ path: 'currency', message: `is required: one of ${currencies.join(', ')}` }]);
      currency = currencies[0]!;
    } else if (!currencies.includes(currency)) {
      throw new ProblemError(409, 'nothing_to_pay_out', `There are no earnings in ${currency} to pay out.`);
    }
    const earnings = await developerEarnings(tx, developerId, currency, input.before);
    if (earnings.availableCents <= 0) {
      if (earnings.demoEarningsCents > 0 && earnings.demoStore) assertMoneyMovementAllowed(earnings.demoStore, 'A developer payout of earnings from the demo store');
      throw new ProblemError(409, 'nothing_to_pay_out', `There are no earnings in ${currency} to pay out.`);
    }
    if (earnings.availableCents < minimum) {
      throw new ProblemError(409, 'below_payout_minimum', `Invalid amount: ${earnings.availableCents} is below the payout minimum of ${minimum} (${currency} minor units); it is paid out once earnings reach it.`, [
        { path: 'amountCents', message: `must be at least ${minimum}` },
      ]);
    }
    const id = newAppBillingId('payout');
    const connectAccount = connect.accountOf(developerId);
    const answer = await connect.transfer({ developerId, connectAccount, amountCents: earnings.availableCents, currency, reference: id });
    const jt = await postOnPlatformLedger(
      tx,
      input.now,
      { kind: 'payout', sourceType: 'developer_payout', sourceId: id, currency, memo: `Developer payout ${id} to ${connectAccount}` },
      [
        { accountCode: developerPayableAccount(developerId), amountCents: earnings.availableCents },
        { accountCode: 'app_billing_clearing', amountCents: -earnings.availableCents },
      ],
      { action: 'developer_payout.paid', entityType: 'developer_payout', entityId: id, data: { developerId, amountCents: earnings.availableCents, currency, trigger: input.trigger } },
    );
    const { rows } = await tx.query<PayoutRow>(
      `INSERT INTO developer_payouts (id, developer_id, amount_cents, currency, status, trigger, earnings_through, processor, connect_account, processor_reference, journal_transaction_id, created_at)
       VALUES ($1, $2, $3, $4, 'paid', $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [id, developerId, earnings.availableCents, currency, input.trigger, input.before.toISOString(), connect.name, connectAccount, answer.processorReference, jt.id, input.now.toISOString()],
    );
    return toPayout(rows[0]!);
  });
}

/**
 * The housekeeping tick's weekly payouts at `now`: every developer and currency whose earnings from charges made
 * before the latest Monday 00:00 UTC (core `weeklyPayoutCutoff`) are available and reach the minimum is paid out.
 * Below the minimum the earnings stay queued for a later week; demo-store earnings are left alone. At most one payout
 * per developer, currency and week, since a payout consumes every earning before the cut-off.
 */
export async function runScheduledDeveloperPayouts(db: Db, now: Date, options: DeveloperPayoutOptions = {}): Promise<{ paid: number; errors: { developerId: string; message: string }[] }> {
  const cutoff = weeklyPayoutCutoff(now);
  const { rows } = await db.query<{ developer_id: string; currency: string }>(
    `SELECT DISTINCT developer_id, currency FROM app_charges WHERE status = 'paid' AND created_at < $1 ORDER BY developer_id, currency`,
    [cutoff.toISOString()],
  );
  const out = { paid: 0, errors: [] as { developerId: string; message: string }[] };
  for (const r of rows) {
    const earnings = await developerEarnings(db, r.developer_id, r.currency, cutoff);
    if (earnings.availableCents < (options.minimumCents ?? DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS) || earnings.availableCents <= 0) continue;
    try {
      await payOutDeveloper(db, r.developer_id, { currency: r.currency, trigger: 'scheduled', now, before: cutoff }, options);
      out.paid++;
    } catch (err) {
      if (err instanceof ProblemError && err.status < 500) continue; // raced with a manual payout, or below the minimum now
      out.errors.push({ developerId: r.developer_id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/**
 * A developer's statement at `now`: per currency the gross of paid charges, the 85 % shares, refunds, payouts, the
 * ledger balance of `developer_payable:<developerId>`, what is available and what the demo store earned; the paid
 * charges (newest 200), refunds and payouts.
 */
export async function developerStatement(db: Queryable, developerId: string, now: Date, options: { minimumCents?: number } = {}): Promise<DeveloperStatement> {
  const totals = await db.query<{ currency: string; gross: string; share: string }>(
    `SELECT currency, SUM(amount_cents) AS gross, SUM(developer_share_cents) AS share FROM app_charges WHERE developer_id = $1 AND status = 'paid' GROUP BY currency ORDER BY currency`,
    [developerId],
  );
  const refunded = await db.query<{ currency: string; share: string }>('SELECT currency, SUM(developer_share_cents) AS share FROM app_charge_refunds WHERE developer_id = $1 GROUP BY currency', [developerId]);
  const paidOut = await db.query<{ currency: string; total: string }>('SELECT currency, SUM(amount_cents) AS total FROM developer_payouts WHERE developer_id = $1 GROUP BY currency', [developerId]);
  const ledger = await db.query<{ currency: string; balance: string }>(
    `SELECT j.currency, -SUM(p.amount_cents) AS balance FROM postings p JOIN accounts a ON a.id = p.account_id JOIN journal_transactions j ON j.id = p.journal_transaction_id
      WHERE a.merchant_id = $1 AND a.code = $2 GROUP BY j.currency`,
    [PLATFORM_LEDGER_MERCHANT_ID, developerPayableAccount(developerId)],
  );
  const by = <T extends { currency: string }>(rows: T[], key: keyof T) => new Map(rows.map((r) => [r.currency, Number(r[key])]));
  const refundedBy = by(refunded.rows, 'share');
  const paidBy = by(paidOut.rows, 'total');
  const ledgerBy = by(ledger.rows, 'balance');
  const balances = [];
  for (const t of totals.rows) {
    const earnings = await developerEarnings(db, developerId, t.currency, new Date(now.getTime() + 1));
    balances.push({
      currency: t.currency,
      grossChargesCents: Number(t.gross),
      developerShareCents: Number(t.share),
      refundedCents: refundedBy.get(t.currency) ?? 0,
      paidOutCents: paidBy.get(t.currency) ?? 0,
      balanceCents: ledgerBy.get(t.currency) ?? 0,
      availableCents: Math.max(0, earnings.availableCents),
      demoEarningsCents: earnings.demoEarningsCents,
    });
  }
  const charges = await db.query<Record<string, any>>(
    `SELECT c.*, a.name AS app_name, m.name AS store_name, m.is_demo FROM app_charges c JOIN apps a ON a.id = c.app_id JOIN merchants m ON m.id = c.merchant_id
      WHERE c.developer_id = $1 AND c.status = 'paid' ORDER BY c.created_at DESC, c.id DESC LIMIT 200`,
    [developerId],
  );
  const refunds = await db.query<Record<string, any>>('SELECT * FROM app_charge_refunds WHERE developer_id = $1 ORDER BY created_at DESC, id DESC LIMIT 200', [developerId]);
  const payouts = await db.query<PayoutRow>('SELECT * FROM developer_payouts WHERE developer_id = $1 ORDER BY created_at DESC, id DESC LIMIT 200', [developerId]);
  return {
    developerId,
    payoutMinimumCents: options.minimumCents ?? DEFAULT_DEVELOPER_PAYOUT_MINIMUM_CENTS,
    payoutSchedule: 'weekly, Mondays 00:00 UTC: earnings of charges made before then, once they reach the minimum',
    nextScheduledPayoutAt: new Date(weeklyPayoutCutoff(now).getTime() + 7 * DAY_MS).toISOString(),
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
      journalTransactionId: c.journal_transaction_id,
      createdAt: new Date(c.created_at).toISOString(),
    })),
    refunds: refunds.rows.map((r) => ({ id: r.id, chargeId: r.charge_id, amountCents: Number(r.amount_cents), developerShareCents: Number(r.developer_share_cents), currency: r.currency, createdAt: new Date(r.created_at).toISOString() })),
    payouts: payouts.rows.map(toPayout),
  };
}
