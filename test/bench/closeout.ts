/**
 * Closeout bench: the store closeout of a business day with CLOSEOUT_SALES sales (default 10 000) on one
 * register's shift, seconds, beside the raw read of the same rows (the shift's orders and their drawer postings, the
 * two statements' worth of data the closeout reads, with no computation).
 *
 * The rows are seeded raw (SQL inserts of orders, their journal transactions and postings, the shift and its
 * closeout), never through the API. The figure is workflows/shift-closeout.ts `dayStatus` — everything the store
 * closeout does except its one insert and the checkpoint: read the day's shifts, recompute each shift's report from
 * its sales and the ledger, compare with the register's, roll up — bracketed by the raw read (report.ts
 * `bracketed`); then one real `closeStoreDay` (insert, audit, signed checkpoint) is timed once.
 *
 * Printed as median (low–high) over BENCH_ROUNDS rounds with the distribution-free 95 % interval (report.ts
 * `medianInterval`; `*` when the rounds are too few for 95 %): the closeout's seconds, the raw read's (each round's the
 * mean of the read just before and after; the largest before/after gap as a diagnostic), and the per-round ratio
 * closeout / raw read (report.ts `bracketedRatio`), as a multiple. The store close, timed once, is a single figure.
 */
import { generateKeyPairSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ulid } from 'ulid';
import {
  buildSaleJournalTransaction,
  businessDayOf,
  cashDrawerAccount,
  computeZReport,
  type Order,
  type Shift,
  type ShiftCloseout,
} from '../../core/index.ts';
import { ensureChartOfAccounts } from '../../sync-server/src/kernel/ledger.ts';
import { AuditSigner } from '../../sync-server/src/platform/auth/audit-signing-key.ts';
import { ChangeFeed } from '../../sync-server/src/platform/change-feed.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { closeStoreDay, dayStatus } from '../../sync-server/src/workflows/shift-closeout.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import { benchSales } from './sales.ts';
import {
  anchoredRate,
  bracketed,
  bracketedBaseline,
  bracketedRatio,
  fmt,
  fmtMedianInterval,
  medianInterval,
  pct,
  printTable,
  type MedianInterval,
} from './report.ts';

/** Figures of one engine, seconds. */
export interface CloseoutBenchResult {
  engine: string;
  sales: number;
  rounds: number;
  /** The day's closeout per round, median with its interval. */
  closeoutSeconds: MedianInterval;
  /** The raw read: per round the mean of before and after, median with its interval; the largest before/after gap. */
  rawReadSeconds: MedianInterval & { spread: number };
  /** Per round, closeout / mean(raw read before, after): median with its interval. */
  ratio: MedianInterval;
  storeCloseSeconds: number;
}

const CHUNK = 500;

/** Inserts the orders, their sale journal transactions and postings, raw, `CHUNK` orders per statement. */
async function seedSales(db: Db, merchantId: string, registerId: string, orders: readonly Order[], accounts: Map<string, string>): Promise<void> {
  for (let i = 0; i < orders.length; i += CHUNK) {
    const chunk = orders.slice(i, i + CHUNK);
    const jts = chunk.map((o) => buildSaleJournalTransaction(o));
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO orders (id, merchant_id, register_id, receipt_number, state, total_cents, created_at, data, sync_seq, source)
         SELECT id, $1, $2, receipt, 'paid', total, created, data::jsonb, nextval('sync_seq'), 'register'
           FROM unnest($3::text[], $4::text[], $5::bigint[], $6::timestamptz[], $7::text[]) AS t(id, receipt, total, created, data)`,
        [
          merchantId,
          registerId,
          chunk.map((o) => o.id),
          chunk.map((o) => o.receiptNumber),
          chunk.map((o) => o.totalCents),
          chunk.map((o) => o.createdAt),
          chunk.map((o) => JSON.stringify(o)),
        ],
      );
      await tx.query(
        `INSERT INTO journal_transactions (id, merchant_id, kind, source_type, source_id, register_id, occurred_at, memo, currency, sync_seq)
         SELECT id, $1, 'sale', 'order', source, $2, occurred, memo, 'USD', nextval('sync_seq') FROM unnest($3::text[], $4::text[], $5::timestamptz[], $6::text[]) AS t(id, source, occurred, memo)`,
        [merchantId, registerId, jts.map((j) => j.id), jts.map((j) => j.sourceId), jts.map((j) => j.occurredAt), jts.map((j) => j.memo)],
      );
      const postings = jts.flatMap((j) => j.postings.map((p, n) => ({ jt: j.id, n, account: accounts.get(p.accountCode)!, amount: p.amountCents })));
      await tx.query(
        `INSERT INTO postings (id, journal_transaction_id, line_no, account_id, amount_cents)
         SELECT 'pst_' || jt || '_' || n, jt, n, account, amount FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[]) AS t(jt, n, account, amount)`,
        [postings.map((p) => p.jt), postings.map((p) => p.n), postings.map((p) => p.account), postings.map((p) => p.amount)],
      );
    });
  }
}

/** Runs the closeout bench on one engine. */
export async function benchCloseout(target: DatabaseTarget, options: { sales: number; rounds: number }): Promise<CloseoutBenchResult> {
  const db = await target.open();
  try {
    await migrate(db);
    const merchantId = `mer_${ulid()}`;
    const registerId = `reg_${ulid()}`;
    await db.query(`INSERT INTO merchants (id, name, currency) VALUES ($1, 'Closeout bench', 'USD')`, [merchantId]);
    await db.query(`INSERT INTO registers (id, merchant_id, number, name) VALUES ($1, $2, 1, 'Register 1')`, [registerId, merchantId]);
    await db.transaction((tx) => ensureChartOfAccounts(tx, merchantId));
    const register = { registerId, registerNumber: 1 };
    // The day's sales, one second apart from 04:30 UTC (the default cut-off is 04:00 in the store's zone, UTC).
    const firstSaleAt = Date.parse('2026-03-10T04:30:00Z');
    const orders = benchSales({ register, sales: options.sales, firstSaleAt }).map((s) => s.order);
    const codes = [...new Set(orders.flatMap((o) => buildSaleJournalTransaction(o).postings.map((p) => p.accountCode)))];
    for (const code of codes.filter((c) => c.includes(':'))) {
      await db.query(
        `INSERT INTO accounts (id, merchant_id, code, name, type) VALUES ($1, $2, $3, $3, 'asset') ON CONFLICT (merchant_id, code) DO NOTHING`,
        [`acc_${ulid()}`, merchantId, code],
      );
    }
    const accounts = new Map(
      (await db.query<{ id: string; code: string }>('SELECT id, code FROM accounts WHERE merchant_id = $1', [merchantId])).rows.map((r) => [
        r.code,
        r.id,
      ]),
    );
    await seedSales(db, merchantId, registerId, orders, accounts);

    const shift: Shift = {
      id: `shf_${ulid()}`,
      registerId,
      registerNumber: 1,
      currency: 'USD',
      openedAt: '2026-03-10T04:15:00Z',
      openingFloatCents: 20_000,
    };
    const closedAt = new Date(firstSaleAt + options.sales * 1000).toISOString();
    const report = computeZReport(shift, orders, [], { count: { closedAt, countedCashCents: 0 } });
    const closeout: ShiftCloseout = {
      id: `clo_${ulid()}`,
      shiftId: shift.id,
      registerId,
      registerNumber: 1,
      currency: 'USD',
      closedAt,
      counted: [],
      countedCashCents: 0,
      report,
    };
    const day = businessDayOf(shift.openedAt, 'UTC', 4);
    await db.query(
      `INSERT INTO shifts (id, merchant_id, register_id, opened_at, business_day, data, sync_seq) VALUES ($1, $2, $3, $4, $5, $6, nextval('sync_seq'))`,
      [shift.id, merchantId, registerId, shift.openedAt, day, JSON.stringify(shift)],
    );
    await db.query(
      `INSERT INTO shift_closeouts (id, merchant_id, shift_id, register_id, closed_at, counted_cents, over_short_cents, data, sync_seq) VALUES ($1, $2, $3, $4, $5, 0, $6, $7, nextval('sync_seq'))`,
      [closeout.id, merchantId, shift.id, registerId, closedAt, report.overShortCents, JSON.stringify(closeout)],
    );

    const now = new Date(Date.parse(closedAt) + 86_400_000 * 2);
    const timed = async (fn: () => Promise<unknown>) => {
      const started = performance.now();
      await fn();
      return (performance.now() - started) / 1000;
    };
    const rawRead = () =>
      timed(async () => {
        await db.query('SELECT data FROM orders WHERE merchant_id = $1 AND register_id = $2 AND created_at >= $3 AND created_at <= $4', [
          merchantId,
          registerId,
          shift.openedAt,
          closedAt,
        ]);
        await db.query(
          `SELECT p.amount_cents FROM journal_transactions jt JOIN postings p ON p.journal_transaction_id = jt.id JOIN accounts a ON a.id = p.account_id
            WHERE jt.merchant_id = $1 AND a.code = $2`,
          [merchantId, cashDrawerAccount(1)],
        );
      });
    let salesSeen = 0;
    const run = await bracketed(
      options.rounds,
      () =>
        timed(async () => {
          salesSeen = (await dayStatus(db, merchantId, day, now)).totals.salesCount;
        }),
      rawRead,
    );
    if (salesSeen !== options.sales) throw new Error(`closeout bench: the day counts ${salesSeen} sales, ${options.sales} seeded`);

    const { privateKey } = generateKeyPairSync('ed25519');
    const ctx = { db, clock: () => now, feed: new ChangeFeed(), auditSigner: new AuditSigner(privateKey) };
    const storeCloseSeconds = await timed(() => closeStoreDay(ctx, { merchantId, actor: 'system' }, day, true));
    return {
      engine: target.name,
      sales: options.sales,
      rounds: options.rounds,
      closeoutSeconds: medianInterval(run.figures),
      rawReadSeconds: { ...bracketedBaseline(run.baselines), spread: anchoredRate(run.baselines).spread },
      ratio: bracketedRatio(run.figures, run.baselines),
      storeCloseSeconds,
    };
  } finally {
    await db.close();
  }
}

/** Prints the closeout table: the day's closeout computation, the raw read of the same rows, and one real store close. */
export function printCloseoutBench(results: readonly CloseoutBenchResult[]): void {
  if (results.length === 0) return;
  const first = results[0]!;
  const s = (x: MedianInterval) => fmtMedianInterval(x, (n) => fmt(n, 3));
  printTable(
    `Closeout — a store day of ${fmt(first.sales)} sales on one shift, seconds, median (95 % interval) of ${first.rounds} rounds`,
    results.map((r) => r.engine),
    [
      { label: 'closeout of the day (recompute, compare, roll up), s', values: results.map((r) => s(r.closeoutSeconds)) },
      { label: '  baseline: raw read of the same rows, s', values: results.map((r) => s(r.rawReadSeconds)) },
      { label: '    before/after gap', values: results.map((r) => pct(r.rawReadSeconds.spread)) },
      { label: 'closeout / raw read, per round', values: results.map((r) => fmtMedianInterval(r.ratio, (n) => `${fmt(n, 1)}×`)) },
      { label: 'store close (the above + insert, audit, signed checkpoint), once, s', values: results.map((r) => fmt(r.storeCloseSeconds, 3)) },
    ],
  );
}
