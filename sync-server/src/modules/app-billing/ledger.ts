/**
 * App billing's postings on the platform ledger (core PLATFORM_LEDGER_MERCHANT_ID; docs/decisions.md "App billing
 * and developer payouts"): one balanced, immutable journal transaction per paid charge, per refund and per developer
 * payout, each recorded in the platform's own hash-chained audit trail by an entry that names it.
 */
import { buildJournalTransaction, PLATFORM_CHART_OF_ACCOUNTS, PLATFORM_LEDGER_MERCHANT_ID, type JournalTransaction, type Posting } from '../../../../core/index.ts';
import { ensureChartOfAccounts, postJournalTransaction } from '../../kernel/ledger.ts';
import { openMutation } from '../../kernel/mutation.ts';
import { transactionMemo, type Queryable } from '../../platform/db/db.ts';

/** The developer's payable account on the platform ledger: `developer_payable:<developerId>`. */
export const developerPayableAccount = (developerId: string): string => `developer_payable:${developerId}`;

/**
 * Posts one journal transaction on the platform ledger inside `tx` and appends the platform audit entry `action`
 * that names it (its hash goes into that entry). Takes the platform ledger's lock: callers that also write a store's
 * rows take the store's lock first (lock order store → platform).
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
  const jt = buildJournalTransaction({ ...header, registerId: null, occurredAt: now.toISOString() }, postings);
  await postJournalTransaction(tx, PLATFORM_LEDGER_MERCHANT_ID, jt);
  await m.audit({ ...audit, data: { ...audit.data, journalTransactionId: jt.id } });
  return jt;
}
