/**
 * Ledger bench: what the tamper evidence costs (docs/decisions/0043-tamper-evidence.md) — journal transactions per second posted through the
 * kernel with the posting hash (each transaction's SHA-256, postings included, carried by the audit entry that records
 * it, inside the chained hash) beside the same work without it (`postJournalTransactions(…, { tamperEvidence: false })`).
 * Both write the same rows: the transactions, their postings and one audit entry per transaction naming it, so the
 * difference is the hashing and the `journal_hashes` column.
 *
 * Two paths, each on a fresh database per engine:
 * - batched, as a register push stores sales: BATCH transactions per database transaction (one multi-row INSERT each
 *   for transactions, postings and audit entries);
 * - one per database transaction, as an API payment or refund posts.
 * The figure without the hash is the baseline, measured just before and just after each figure with the hash
 * (report.ts `bracketed`); lines are medians over BENCH_ROUNDS rounds (default 3). A last line times the hash alone
 * in process (µs per journal transaction), the part of the cost that does not depend on the database's noise.
 */
import { performance } from 'node:perf_hooks';
import { ulid } from 'ulid';
import type { JournalTransaction } from '../../core/index.ts';
import { appendAuditBatch } from '../../sync-server/src/kernel/audit.ts';
import { ensureChartOfAccounts, journalHash } from '../../sync-server/src/kernel/ledger.ts';
import { openMutation } from '../../sync-server/src/kernel/mutation.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import { anchoredRate, bracketed, fmt, median, pct, printTable } from './report.ts';

/** Journal transactions per database transaction on the batched path: the register's push batch. */
const BATCH = 50;

/** A cash sale of `cents` with tax: four postings, like a register sale's. */
function sale(cents: number): JournalTransaction {
  const id = ulid();
  const tax = Math.round(cents * 0.0875);
  return {
    id: `jtx_${id}`,
    kind: 'sale',
    sourceType: 'order',
    sourceId: `ord_${id}`,
    registerId: 'reg_bench',
    currency: 'USD',
    occurredAt: new Date().toISOString(),
    memo: 'bench sale',
    postings: [
      { accountCode: 'cash_drawer:R1', amountCents: cents + tax },
      { accountCode: 'discounts', amountCents: 10 },
      { accountCode: 'sales_revenue', amountCents: -(cents + 10) },
      { accountCode: 'sales_tax_payable', amountCents: -tax },
    ],
  };
}

/** Posts `count` journal transactions `perTx` per database transaction, each recorded by an audit entry; per second. */
async function post(db: Db, merchantId: string, count: number, perTx: number, tamperEvidence: boolean): Promise<number> {
  const jts = Array.from({ length: count }, (_, i) => sale(100 + (i % 900)));
  const started = performance.now();
  for (let i = 0; i < jts.length; i += perTx) {
    const chunk = jts.slice(i, i + perTx);
    await db.transaction(async (tx) => {
      const m = await openMutation(tx, { merchantId, actor: 'register:reg_bench', registerId: 'reg_bench' }, new Date());
      await m.postJournalTransactions(chunk, { tamperEvidence });
      await appendAuditBatch(
        tx,
        chunk.map((jt) => ({
          merchantId,
          actor: 'register:reg_bench',
          action: 'order.stored',
          entityType: 'order',
          entityId: jt.sourceId,
          data: { journalTransactionId: jt.id },
          journalHashes: m.journalHashesFor({ data: { journalTransactionId: jt.id } }),
        })),
      );
    });
  }
  return count / ((performance.now() - started) / 1000);
}

/** Figures of one engine. */
export interface LedgerBenchResult {
  engine: string;
  rounds: number;
  count: number;
  paths: { label: string; withHash: number[]; without: { median: number; spread: number } }[];
  /** The hash alone (canonical JSON + SHA-256 of one journal transaction), µs, median of the rounds. */
  hashMicros: number;
}

/** µs per {@link journalHash} of a four-posting sale, over 20 000 calls. */
function hashMicros(): number {
  const jts = Array.from({ length: 20_000 }, (_, i) => sale(100 + i));
  const started = performance.now();
  for (const jt of jts) journalHash(jt);
  return ((performance.now() - started) * 1000) / jts.length;
}

/**
 * Runs the ledger bench on one engine.
 * @param options.count journal transactions per measurement; options.rounds rounds
 */
export async function benchLedger(target: DatabaseTarget, options: { count: number; rounds: number }): Promise<LedgerBenchResult> {
  const paths: LedgerBenchResult['paths'] = [];
  for (const [label, perTx, count] of [
    [`batched, ${BATCH} per transaction (push)`, BATCH, options.count],
    ['one per transaction (API)', 1, Math.max(1, Math.floor(options.count / 5))],
  ] as const) {
    const db = await target.open();
    try {
      await migrate(db);
      const merchantId = `mer_${ulid()}`;
      await db.query(`INSERT INTO merchants (id, name, currency) VALUES ($1, 'Ledger bench', 'USD')`, [merchantId]);
      await db.transaction((tx) => ensureChartOfAccounts(tx, merchantId));
      await post(db, merchantId, Math.min(count, 200), perTx, true); // warm-up
      const run = await bracketed(
        options.rounds,
        () => post(db, merchantId, count, perTx, true),
        () => post(db, merchantId, count, perTx, false),
      );
      paths.push({ label, withHash: run.figures, without: anchoredRate(run.baselines) });
    } finally {
      await db.close();
    }
  }
  const micros = Array.from({ length: options.rounds }, () => hashMicros());
  return { engine: target.name, rounds: options.rounds, count: options.count, paths, hashMicros: median(micros) };
}

/** Prints the ledger table: per path, with and without the posting hash, and the cost. */
export function printLedgerBench(results: readonly LedgerBenchResult[]): void {
  if (results.length === 0) return;
  const first = results[0]!;
  const rows: { label: string; values: string[] }[] = [];
  first.paths.forEach((path, i) => {
    rows.push(
      { label: `${path.label}: with posting hash, jt/s`, values: results.map((r) => fmt(median(r.paths[i]!.withHash))) },
      { label: `  baseline: without the hash, jt/s`, values: results.map((r) => fmt(r.paths[i]!.without.median)) },
      { label: `    before/after gap`, values: results.map((r) => pct(r.paths[i]!.without.spread)) },
      { label: `  cost of the tamper evidence`, values: results.map((r) => pct(1 - median(r.paths[i]!.withHash) / r.paths[i]!.without.median)) },
    );
  });
  rows.push({ label: 'the hash alone (canonical JSON + SHA-256), µs per jt', values: results.map((r) => fmt(r.hashMicros, 1)) });
  printTable(
    `Ledger — journal transactions posted through the kernel, each with its audit entry, ${fmt(first.count)} per batched measurement, median of ${first.rounds} rounds`,
    results.map((r) => r.engine),
    rows,
  );
}
