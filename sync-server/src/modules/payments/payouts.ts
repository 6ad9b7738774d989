/**
 * Payouts: the store's settled card clearing balance paid out to its bank. One journal transaction
 * (kind `payout`, source `payout`): Dr `bank`, Cr each `card_clearing:<rail>` it drains, in the same database
 * transaction as the payout row. Runs on the sandbox payout adapter (no network); refused in the demo store by the
 * kernel's one guard (`assertMoneyMovementAllowed`, 403 `money_movement_disabled`) before anything is written.
 *
 * Card and bank payments still pending settlement (settlements.ts: cards 2 days, ACH 3 on the sandbox's schedule) are
 * not part of the settled balance.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { buildJournalTransaction, MAX_AMOUNT_CENTS, newId, pageQueryFields } from '../../../../core/index.ts';
import { getMerchant } from '../../kernel/merchant.ts';
import { assertMoneyMovementAllowed } from '../../kernel/money-movement.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { pendingByAccount } from './settlements.ts';

/** `POST /api/pos/payouts`. */
export const payoutCreateSchema = z.strictObject({
  amountCents: z.int().min(1).max(MAX_AMOUNT_CENTS).optional().describe('Minor units to pay out; default: the whole settled balance.'),
});
/** See {@link payoutCreateSchema}. */
export type PayoutCreate = z.infer<typeof payoutCreateSchema>;

/** A payout as the API answers it. */
export const payoutSchema = z.strictObject({
  id: z.string(),
  amountCents: z.int().min(1).describe('Minor units moved from card clearing to the bank.'),
  currency: z.string(),
  status: z.enum(['paid']),
  processor: z.string().describe('The payout adapter, `sandbox`.'),
  journalTransactionId: z.string(),
  createdBy: z.string(),
  createdAt: z.iso.datetime(),
});
/** See {@link payoutSchema}. */
export type Payout = z.infer<typeof payoutSchema>;

/** `GET /api/pos/payouts` query. */
export const payoutListQuery = z.strictObject(pageQueryFields);

/** One transfer of money to the store's bank. */
export interface PayoutRequest {
  merchantId: string;
  amountCents: number;
  currency: string;
  /** The payout's id: the adapter's idempotency key. */
  reference: string;
}

/** A payout adapter (a processor's payouts API). A real one is called with `reference` as its idempotency key. */
export interface PayoutAdapter {
  readonly name: string;
  payout(request: PayoutRequest): Promise<{ processorReference: string }>;
}

/** The deterministic sandbox payout adapter: always pays, reference derived from the payout's. No network. */
export const sandboxPayouts: PayoutAdapter = {
  name: 'sandbox',
  async payout(request) {
    return { processorReference: `sbx_po_${createHash('sha256').update(`${request.reference}|${request.amountCents}`).digest('hex').slice(0, 24)}` };
  },
};

interface PayoutRow {
  id: string;
  amount_cents: number | string;
  currency: string;
  status: 'paid';
  processor: string;
  journal_transaction_id: string;
  created_by: string;
  created_at: Date | string;
}

const toPayout = (r: PayoutRow): Payout => ({
  id: r.id,
  amountCents: Number(r.amount_cents),
  currency: r.currency,
  status: r.status,
  processor: r.processor,
  journalTransactionId: r.journal_transaction_id,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at).toISOString(),
});

/**
 * Settled balances (minor units, > 0 only) of the merchant's `card_clearing:<rail>` accounts, largest first: the
 * account's balance less what is still pending settlement there (settlements.ts).
 */
export async function cardClearingBalances(db: Queryable, merchantId: string): Promise<{ accountCode: string; balanceCents: number }[]> {
  const { rows } = await db.query<{ code: string; balance: string | number }>(
    `SELECT a.code, COALESCE(SUM(p.amount_cents), 0) AS balance
       FROM accounts a JOIN postings p ON p.account_id = a.id
      WHERE a.merchant_id = $1 AND a.code LIKE 'card\\_clearing:%'
      GROUP BY a.code`,
    [merchantId],
  );
  const pending = await pendingByAccount(db, merchantId);
  return rows
    .map((r) => ({ accountCode: r.code, balanceCents: Number(r.balance) - (pending.get(r.code) ?? 0) }))
    .filter((r) => r.balanceCents > 0)
    .sort((a, b) => b.balanceCents - a.balanceCents || a.accountCode.localeCompare(b.accountCode));
}

/**
 * Pays out the settled balance (or `amountCents` of it) inside `m`: guard, balance check, adapter, journal
 * transaction, payout row, audit `payout.paid`.
 * @throws ProblemError 403 `money_movement_disabled` in the demo store (nothing written, the adapter never called);
 *   409 `nothing_to_pay_out` with an empty balance; 409 `insufficient_balance` naming `amountCents` above it.
 */
export async function createPayout(m: Mutation, input: PayoutCreate, adapter: PayoutAdapter = sandboxPayouts): Promise<Payout> {
  const merchant = await getMerchant(m.tx, m.merchantId);
  assertMoneyMovementAllowed(merchant, 'A payout');
  const balances = await cardClearingBalances(m.tx, m.merchantId);
  const available = balances.reduce((s, b) => s + b.balanceCents, 0);
  if (available === 0) throw new ProblemError(409, 'nothing_to_pay_out', 'There is no settled balance in card clearing to pay out.');
  const amount = input.amountCents ?? available;
  if (amount > available) {
    throw new ProblemError(409, 'insufficient_balance', `Invalid amountCents: ${amount} is more than the settled balance of ${available}.`, [
      { path: 'amountCents', message: `must not exceed the settled balance (${available})` },
    ]);
  }
  const id = newId('payout');
  await adapter.payout({ merchantId: m.merchantId, amountCents: amount, currency: merchant.currency, reference: id });
  const credits: { accountCode: string; amountCents: number }[] = [];
  let left = amount;
  for (const b of balances) {
    if (left === 0) break;
    const take = Math.min(left, b.balanceCents);
    credits.push({ accountCode: b.accountCode, amountCents: -take });
    left -= take;
  }
  const jt = buildJournalTransaction(
    {
      kind: 'payout',
      sourceType: 'payout',
      sourceId: id,
      registerId: null,
      currency: merchant.currency,
      occurredAt: m.now.toISOString(),
      memo: `Payout ${id} to the bank`,
    },
    [{ accountCode: 'bank', amountCents: amount }, ...credits],
  );
  await m.postJournalTransaction(jt);
  m.changed('journal-transactions');
  const row: PayoutRow = {
    id,
    amount_cents: amount,
    currency: merchant.currency,
    status: 'paid',
    processor: adapter.name,
    journal_transaction_id: jt.id,
    created_by: m.actor,
    created_at: m.now,
  };
  await m.tx.query(
    'INSERT INTO payouts (id, merchant_id, amount_cents, currency, status, processor, journal_transaction_id, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    [id, m.merchantId, amount, merchant.currency, 'paid', adapter.name, jt.id, m.actor, m.now.toISOString()],
  );
  await m.audit({
    action: 'payout.paid',
    entityType: 'payout',
    entityId: id,
    data: { amountCents: amount, from: credits.map((c) => c.accountCode), journalTransactionId: jt.id },
  });
  return toPayout(row);
}

/** The merchant's payouts, newest first (cursor pagination). */
export async function listPayouts(
  db: Queryable,
  merchantId: string,
  q: z.infer<typeof payoutListQuery>,
): Promise<{ data: Payout[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ' AND (created_at, id) < ($2::timestamptz, $3::text)';
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<PayoutRow>(
    `SELECT * FROM payouts WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map(toPayout), nextCursor };
}
