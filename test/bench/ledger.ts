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
 * (report.ts `bracketed`). Lines are medians over BENCH_ROUNDS rounds (default 6) with their distribution-free 95 %
 * interval, `median (low–high)` (report.ts `medianInterval`; `*` when the rounds are too few for 95 %): both rates,
 * the largest before/after gap of the baseline (a diagnostic), the per-round ratio with hash / without (each round's
 * figure over the mean of the baseline before and after it, report.ts `bracketedRatio`) and the cost, 1 − that ratio
 * per round — so a cost of a few per cent is printed with the range a loaded machine leaves it. A last line times the
 * hash alone in process (µs per journal transaction), the part of the cost that does not depend on the database's noise.
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
import {
  anchoredRate,
  bracketed,
  bracketedRatio,
  fmt,
  fmtMedianInterval,
  fmtRatioInterval,
  medianInterval,
  pct,
  printTable,
  type MedianInterval,
} from './report.ts';

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
  paths: {
    label: string;
    /** jt/s with the hash per round, median with its interval. */
    withHash: MedianInterval;
    /** jt/s without the hash: per round the mean of the measurement before and after, median with its interval; largest gap. */
    without: MedianInterval & { spread: number };
    /** Per round, with-hash rate / mean(without before, after). */
    ratio: MedianInterval;
    /** Per round, 1 − that ratio: the share of the rate the tamper evidence costs. */
    cost: MedianInterval;
  }[];
  /** The hash alone (canonical JSON + SHA-256 of one journal transaction), µs per round, median with its interval. */
  hashMicros: MedianInterval;
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
      const b = run.baselines;
      const ratios = run.figures.map((f, r) => f / ((b[r]! + b[r + 1]!) / 2));
      paths.push({
        label,
        withHash: medianInterval(run.figures),
        without: { ...medianInterval(b.slice(1).map((after, r) => (b[r]! + after) / 2)), spread: anchoredRate(b).spread },
        ratio: bracketedRatio(run.figures, b),
        cost: medianInterval(ratios.map((x) => 1 - x)),
      });
    } finally {
      await db.close();
    }
  }
  const micros = Array.from({ length: options.rounds }, () => hashMicros());
  return { engine: target.name, rounds: options.rounds, count: options.count, paths, hashMicros: medianInterval(micros) };
}

/** Prints the ledger table: per path, with and without the posting hash, and the cost. */
export function printLedgerBench(results: readonly LedgerBenchResult[]): void {
  if (results.length === 0) return;
  const first = results[0]!;
  const rows: { label: string; values: string[] }[] = [];
  first.paths.forEach((path, i) => {
    rows.push(
      { label: `${path.label}: with posting hash, jt/s`, values: results.map((r) => fmtMedianInterval(r.paths[i]!.withHash)) },
      { label: `  baseline: without the hash, jt/s`, values: results.map((r) => fmtMedianInterval(r.paths[i]!.without)) },
      { label: `    before/after gap`, values: results.map((r) => pct(r.paths[i]!.without.spread)) },
      { label: `  with hash / without, per round`, values: results.map((r) => fmtRatioInterval(r.paths[i]!.ratio)) },
      { label: `  cost of the tamper evidence (1 − that), per round`, values: results.map((r) => fmtRatioInterval(r.paths[i]!.cost)) },
    );
  });
  rows.push({
    label: 'the hash alone (canonical JSON + SHA-256), µs per jt',
    values: results.map((r) => fmtMedianInterval(r.hashMicros, (n) => fmt(n, 1))),
  });
  printTable(
    `Ledger — journal transactions posted through the kernel, each with its audit entry, ${fmt(first.count)} per batched measurement, median (95 % interval) of ${first.rounds} rounds`,
    results.map((r) => r.engine),
    rows,
  );
}
