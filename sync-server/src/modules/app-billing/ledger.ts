/**
 * App billing's postings on the platform ledger (core PLATFORM_LEDGER_MERCHANT_ID; docs/decisions/0064-app-billing-and-developer-payouts.md,
 * docs/decisions/0065-developer-earnings-hold.md): one balanced, immutable journal transaction per
 * paid charge, per refund, per release of held earnings and per developer payout, each recorded in the platform's own
 * hash-chained audit trail by an entry that names it; and a developer's balance read back from those accounts.
 */
import {
  buildJournalTransaction,
  PLATFORM_CHART_OF_ACCOUNTS,
  PLATFORM_LEDGER_MERCHANT_ID,
  type DeveloperBalance,
  type JournalTransaction,
  type Posting,
} from '../../../../core/index.ts';
import { ensureChartOfAccounts } from '../../kernel/ledger.ts';
import { openMutation } from '../../kernel/mutation.ts';
import { transactionMemo, type Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';

/** The developer's available (released, payable) earnings on the platform ledger: `developer_payable:<developerId>`. */
export const developerPayableAccount = (developerId: string): string => `developer_payable:${developerId}`;
/** The developer's earnings on hold: `developer_pending:<developerId>`. */
export const developerPendingAccount = (developerId: string): string => `developer_pending:${developerId}`;
/** What the developer owes the platform (refunds beyond their balance): `developer_receivable:<developerId>`. */
export const developerReceivableAccount = (developerId: string): string => `developer_receivable:${developerId}`;
/** The demo store's charges' developer share, never paid out: `developer_demo_earnings:<developerId>`. */
export const developerDemoEarningsAccount = (developerId: string): string => `developer_demo_earnings:${developerId}`;

/**
 * Posts one journal transaction on the platform ledger inside `tx` and appends the platform audit entry `action`
 * that names it (its hash goes into that entry). Postings of zero are left out. Takes the platform ledger's lock:
 * callers that also write a store's rows take the store's lock first, and callers that read a developer's balance
 * take the developer's lock ({@link lockDeveloper}) before it (lock order store → developer → platform).
 */
export async function postOnPlatformLedger(
  tx: Queryable,
  now: Date,
  header: { kind: JournalTransaction['kind']; sourceType: JournalTransaction['sourceType']; sourceId: string; currency: string; memo: string },
  postings: Posting[],
  audit: { action: string; entityType: string; entityId: string; data: Record<string, unknown> },
): Promise<JournalTransaction> {
  const m = await openMutation(tx, { merchantId: PLATFORM_LEDGER_MERCHANT_ID, actor: 'system' }, now);
  const memo = transactionMemo(tx);
  if (!memo?.has('platform-chart')) {
    await ensureChartOfAccounts(tx, PLATFORM_LEDGER_MERCHANT_ID, PLATFORM_CHART_OF_ACCOUNTS);
    memo?.set('platform-chart', true);
  }
  const jt = buildJournalTransaction(
    { ...header, registerId: null, occurredAt: now.toISOString() },
    postings.filter((p) => p.amountCents !== 0),
  );
  await m.postJournalTransaction(jt);
  await m.audit({ ...audit, data: { ...audit.data, journalTransactionId: jt.id } });
  return jt;
}

/**
 * Locks the developer's row for the rest of `tx`: every change of a developer's pending, available or owed balance
 * that depends on reading it (refunds, releases, payouts) holds this lock, so two of them never read the same balance.
 * @throws ProblemError 404 when there is no such developer.
 */
export async function lockDeveloper(tx: Queryable, developerId: string): Promise<void> {
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM developers WHERE id = $1 FOR UPDATE', [developerId]);
  if (!rows[0]) throw new ProblemError(404, 'not_found', `No developer ${developerId}.`);
}

/** A developer's balance in one currency: {@link DeveloperBalance} and what the demo store earned them. */
export interface DeveloperPosition extends DeveloperBalance {
  /** Earnings from the demo store: never paid out (money movement is disabled there). */
  demoCents: number;
  /** The part of `owedCents` on `developer_receivable:<developerId>` (the rest is an available balance below zero). */
  receivableCents: number;
}

/**
 * The developer's balance in `currency`, read from the platform ledger (liabilities as credits, the receivable as a
 * debit). Charges made before the hold existed credited `developer_payable` directly, the demo store's too; what the
 * demo store earned that way (its shares less their refunds) is counted as demo earnings, not as available, and an
 * available balance left below zero then counts as owed.
 */
export async function developerPosition(db: Queryable, developerId: string, currency: string): Promise<DeveloperPosition> {
  const { rows } = await db.query<{ code: string; total: string }>(
    `SELECT a.code, COALESCE(SUM(p.amount_cents), 0) AS total FROM postings p JOIN accounts a ON a.id = p.account_id JOIN journal_transactions j ON j.id = p.journal_transaction_id
      WHERE a.merchant_id = $1 AND a.code = ANY($2::text[]) AND j.currency = $3 GROUP BY a.code`,
    [
      PLATFORM_LEDGER_MERCHANT_ID,
      [
        developerPayableAccount(developerId),
        developerPendingAccount(developerId),
        developerReceivableAccount(developerId),
        developerDemoEarningsAccount(developerId),
      ],
      currency,
    ],
  );
  const sum = (code: string) => Number(rows.find((r) => r.code === code)?.total ?? 0);
  const legacyDemo = await db.query<{ net: string }>(
    `SELECT COALESCE(SUM(c.developer_share_cents - COALESCE(r.developer_share_cents, 0)), 0) AS net
       FROM app_charges c JOIN merchants m ON m.id = c.merchant_id LEFT JOIN app_charge_refunds r ON r.charge_id = c.id
      WHERE c.developer_id = $1 AND c.currency = $2 AND c.status = 'paid' AND c.earnings = 'available' AND m.is_demo`,
    [developerId, currency],
  );
  const legacyDemoCents = Number(legacyDemo.rows[0]?.net ?? 0);
  const payable = -sum(developerPayableAccount(developerId)) - legacyDemoCents;
  const receivableCents = Math.max(0, sum(developerReceivableAccount(developerId)));
  return {
    pendingCents: Math.max(0, -sum(developerPendingAccount(developerId))),
    availableCents: Math.max(0, payable),
    owedCents: receivableCents + Math.max(0, -payable),
    receivableCents,
    demoCents: -sum(developerDemoEarningsAccount(developerId)) + legacyDemoCents,
  };
}
