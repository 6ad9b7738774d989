/**
 * Settlement of delayed rails: a card or bank payment (pay page, staff API, invoice, register
 * card present, forwarded offline card) sits `pending` in its clearing account until its rail's settlement time (core
 * RailConfig `settlementHours`: cards 48 h, ACH 72 h) has passed; the housekeeping tick then settles it — or, a bank
 * payment, the bank returns it, and the reversal of its journal transaction is posted (the money never arrived). The sandbox decides by the documented accounts: an account ending `3338`
 * (`000333333338`) is returned `R01` (insufficient funds) at settlement; every other account settles.
 * Pending amounts are not part of the settled balance a payout may take.
 */
import { z } from 'zod';
import { buildJournalTransaction, newId, pageQueryFields, type JournalTransaction } from '../../../../core/index.ts';
import { getJournalTransaction } from '../../kernel/ledger.ts';
import { mutation, type Mutation } from '../../kernel/mutation.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';

/** Sandbox bank accounts returned at settlement, by last four digits → ACH return code. */
export const SANDBOX_RETURNED_ACCOUNTS: Readonly<Record<string, string>> = { '3338': 'R01' };

/** The bank rails a settlement can be returned on (a card is never returned at settlement: disputes are not this). */
export const RETURNABLE_RAILS: ReadonlySet<string> = new Set(['ach', 'instant_bank']);

/**
 * What a settlement settles: a pay page payment (`pay_request`), a payment of an order (`order_payment`, staff API card
 * tenders and a register's card-present tenders, id `pmt_…`), a card payment of an invoice (`invoice_payment`), or
 * an offline card forwarded and captured (`offline_card`, id the register tender's `tnd_…`).
 */
export type SettlementSource = 'pay_request' | 'order_payment' | 'invoice_payment' | 'offline_card';

/** A settlement as the API answers it. */
export const settlementSchema = z.strictObject({
  id: z.string(),
  sourceType: z
    .string()
    .describe(
      "`pay_request` (pay page), `order_payment` (an order's card payment: staff API or register), `invoice_payment`, `offline_card` (a forwarded offline card).",
    ),
  sourceId: z.string(),
  rail: z.string(),
  amountCents: z.int().min(1),
  status: z.enum(['pending', 'settled', 'returned']),
  settlesAt: z.iso.datetime().describe("When the rail settles it (capture + the rail's settlementHours)."),
  settledAt: z.iso.datetime().nullable().describe('When it settled or was returned.'),
  returnCode: z.string().nullable().describe("The bank's return code (ACH `R01`…) when returned."),
  journalTransactionId: z.string(),
  reversalJournalTransactionId: z.string().nullable().describe('The reversal posted when returned.'),
  createdAt: z.iso.datetime(),
});
/** See {@link settlementSchema}. */
export type Settlement = z.infer<typeof settlementSchema>;

/** `GET /api/pos/settlements` query. */
export const settlementListQuery = z.strictObject({
  ...pageQueryFields,
  sourceId: z.string().min(1).max(64).optional(),
  status: z.enum(['pending', 'settled', 'returned']).optional(),
});

interface SettlementRow {
  id: string;
  merchant_id: string;
  source_type: string;
  source_id: string;
  rail: string;
  amount_cents: number | string;
  account_code: string;
  last4: string | null;
  journal_transaction_id: string;
  status: Settlement['status'];
  settles_at: Date | string;
  settled_at: Date | string | null;
  return_code: string | null;
  reversal_journal_transaction_id: string | null;
  created_at: Date | string;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const toSettlement = (r: SettlementRow): Settlement => ({
  id: r.id,
  sourceType: r.source_type,
  sourceId: r.source_id,
  rail: r.rail,
  amountCents: Number(r.amount_cents),
  status: r.status,
  settlesAt: iso(r.settles_at),
  settledAt: r.settled_at ? iso(r.settled_at) : null,
  returnCode: r.return_code,
  journalTransactionId: r.journal_transaction_id,
  reversalJournalTransactionId: r.reversal_journal_transaction_id,
  createdAt: iso(r.created_at),
});

/**
 * Records a captured payment as pending settlement inside `m` (after its journal transaction was posted).
 * `settlementHours` 0 records nothing: the rail settles at once.
 */
export async function recordPendingSettlement(
  m: Mutation,
  s: {
    sourceType: SettlementSource;
    sourceId: string;
    rail: string;
    accountCode: string;
    amountCents: number;
    last4: string | null;
    journalTransactionId: string;
    settlementHours: number;
  },
): Promise<void> {
  if (s.settlementHours <= 0) return;
  const settlesAt = new Date(m.now.getTime() + s.settlementHours * 3_600_000);
  await m.tx.query(
    `INSERT INTO settlements (id, merchant_id, source_type, source_id, rail, amount_cents, account_code, last4, journal_transaction_id, status, settles_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $11)`,
    [
      newId('settlement'),
      m.merchantId,
      s.sourceType,
      s.sourceId,
      s.rail,
      s.amountCents,
      s.accountCode,
      s.last4,
      s.journalTransactionId,
      settlesAt.toISOString(),
      m.now.toISOString(),
    ],
  );
}

/**
 * Records many captured payments as pending settlement in one statement inside `m` (a register push: its card-present
 * tenders), each settling `settlementHours` after `m.now`; a payment already recorded is left as it is. No-op for an
 * empty list or `settlementHours` 0.
 */
export async function recordPendingSettlements(
  m: Mutation,
  settlementHours: number,
  rows: readonly {
    sourceType: SettlementSource;
    sourceId: string;
    rail: string;
    accountCode: string;
    amountCents: number;
    last4: string | null;
    journalTransactionId: string;
  }[],
): Promise<void> {
  if (rows.length === 0 || settlementHours <= 0) return;
  const settlesAt = new Date(m.now.getTime() + settlementHours * 3_600_000).toISOString();
  await m.tx.query(
    `INSERT INTO settlements (id, merchant_id, source_type, source_id, rail, amount_cents, account_code, last4, journal_transaction_id, status, settles_at, created_at)
     SELECT id, $1, source_type, source_id, rail, amount_cents, account_code, last4, jtx, 'pending', $2, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[]) AS t(id, source_type, source_id, rail, amount_cents, account_code, last4, jtx)
     ON CONFLICT (merchant_id, source_type, source_id) DO NOTHING`,
    [
      m.merchantId,
      settlesAt,
      m.now.toISOString(),
      rows.map(() => newId('settlement')),
      rows.map((r) => r.sourceType),
      rows.map((r) => r.sourceId),
      rows.map((r) => r.rail),
      rows.map((r) => r.amountCents),
      rows.map((r) => r.accountCode),
      rows.map((r) => r.last4),
      rows.map((r) => r.journalTransactionId),
    ],
  );
}

/** Pending settlement amounts (minor units) by clearing account: not yet part of the settled balance. */
export async function pendingByAccount(db: Queryable, merchantId: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ account_code: string; pending: string | number }>(
    `SELECT account_code, SUM(amount_cents) AS pending FROM settlements WHERE merchant_id = $1 AND status = 'pending' GROUP BY account_code`,
    [merchantId],
  );
  return new Map(rows.map((r) => [r.account_code, Number(r.pending)]));
}

/** The reversal of a returned payment's journal transaction: every posting negated, kind `adjustment`. */
function reversalOf(original: JournalTransaction, settlementId: string, returnCode: string, now: Date): JournalTransaction {
  return buildJournalTransaction(
    {
      kind: 'adjustment',
      sourceType: original.sourceType,
      sourceId: original.sourceId,
      registerId: original.registerId,
      currency: original.currency,
      occurredAt: now.toISOString(),
      memo: `Returned by the bank (${returnCode}): reversal of ${original.id} (settlement ${settlementId})`,
    },
    original.postings.map((p) => ({ accountCode: p.accountCode, amountCents: -p.amountCents })),
  );
}

/** A settlement the bank just returned, with the reversal posted, for {@link runSettlements}' `onReturned`. */
export interface ReturnedSettlement {
  id: string;
  sourceType: SettlementSource;
  sourceId: string;
  rail: string;
  amountCents: number;
  returnCode: string;
  reversal: JournalTransaction;
}

/**
 * The housekeeping tick's settlement run: every pending settlement due by `now` settles, or — a sandbox returning
 * account — is returned with the reversal of its journal transaction posted; each in its own mutation (merchant lock,
 * audit `settlement.settled` / `settlement.returned`); `onReturned` is called in a return's transaction, after the
 * reversal, so the workflow gives what the payment paid its balance due back. Returns how many it settled and returned.
 */
export async function runSettlements(
  app: Pick<AppContext, 'db' | 'feed'>,
  now: Date,
  onReturned?: (m: Mutation, returned: ReturnedSettlement) => Promise<void>,
): Promise<{ settled: number; returned: number }> {
  const due = await app.db.query<SettlementRow>(`SELECT * FROM settlements WHERE status = 'pending' AND settles_at <= $1 ORDER BY settles_at, id`, [
    now.toISOString(),
  ]);
  const counts = { settled: 0, returned: 0 };
  const at = { db: app.db, feed: app.feed, clock: () => now };
  for (const row of due.rows) {
    await mutation(at, { merchantId: row.merchant_id, actor: 'system' }, async (m) => {
      const tx = m.tx;
      const current = await tx.query<{ status: string }>('SELECT status FROM settlements WHERE id = $1 FOR UPDATE', [row.id]);
      if (current.rows[0]?.status !== 'pending') return;
      const returnCode = row.last4 && RETURNABLE_RAILS.has(row.rail) ? SANDBOX_RETURNED_ACCOUNTS[row.last4] : undefined;
      if (!returnCode) {
        await tx.query(`UPDATE settlements SET status = 'settled', settled_at = $2 WHERE id = $1`, [row.id, now.toISOString()]);
        await m.audit({
          action: 'settlement.settled',
          entityType: 'settlement',
          entityId: row.id,
          data: { sourceId: row.source_id, rail: row.rail, amountCents: Number(row.amount_cents) },
        });
        counts.settled += 1;
        return;
      }
      const original = await getJournalTransaction(tx, row.merchant_id, row.journal_transaction_id);
      if (!original) throw new Error(`settlement ${row.id}: journal transaction ${row.journal_transaction_id} is missing`);
      const reversal = reversalOf(original, row.id, returnCode, now);
      await m.postJournalTransaction(reversal);
      m.changed('journal-transactions');
      await tx.query(
        `UPDATE settlements SET status = 'returned', settled_at = $2, return_code = $3, reversal_journal_transaction_id = $4 WHERE id = $1`,
        [row.id, now.toISOString(), returnCode, reversal.id],
      );
      await m.audit({
        action: 'settlement.returned',
        entityType: 'settlement',
        entityId: row.id,
        data: { sourceId: row.source_id, rail: row.rail, amountCents: Number(row.amount_cents), returnCode, journalTransactionId: reversal.id },
      });
      // What the payment paid gets its balance due back (the caller's workflow: order, invoice), in this transaction.
      if (onReturned)
        await onReturned(m, {
          id: row.id,
          sourceType: row.source_type as SettlementSource,
          sourceId: row.source_id,
          rail: row.rail,
          amountCents: Number(row.amount_cents),
          returnCode,
          reversal,
        });
      counts.returned += 1;
    });
  }
  return counts;
}

/** The merchant's settlements, newest first (cursor pagination); filter by `sourceId` (a pay request) or `status`. */
export async function listSettlements(
  db: Queryable,
  merchantId: string,
  q: z.infer<typeof settlementListQuery>,
): Promise<{ data: Settlement[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.sourceId) {
    params.push(q.sourceId);
    where += ` AND source_id = $${params.length}`;
  }
  if (q.status) {
    params.push(q.status);
    where += ` AND status = $${params.length}`;
  }
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<SettlementRow>(
    `SELECT * FROM settlements WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map(toSettlement), nextCursor };
}
