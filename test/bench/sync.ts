/**
 * Sync bench: `sales` offline sales pushed to a real server by the register's own replication engine, which runs in
 * its own process (test/bench/register-process.ts), so none of the register's work — RxDB, fake-indexeddb, building
 * requests — lands in the server's figures. Each round starts a fresh server and a fresh register.
 *
 * Lines of the table (median over BENCH_ROUNDS rounds, default 6; the title says the machine's CPUs and the first line
 * the 1-minute load average when the engine's run started and ended, so a loaded machine shows):
 * - statements per synced sale: SQL statements the server issued while handling push requests (BEGIN and COMMIT
 *   included), divided by the sales; counted by a wrapper around the Db the server is built with (test/bench/server.ts).
 *   Then every statement of the run (also the register's pulls meanwhile, and any other), and statements per push
 *   request. The run lasts from "start syncing" until the server holds every sale and no push is still answering.
 * - server sync rate: sales per second of time the server spent handling push requests (request received → answer
 *   sent; overlapping pushes counted once).
 * - baseline, same rows raw: the rows the synced run added to each table (captured in a first, warm-up run) inserted
 *   again into a fresh database of the same engine holding the same "before" state, in as many transactions as the run
 *   had push requests, one multi-row INSERT per table per transaction (test/bench/rows.ts); as sales per second.
 *   The server's rate and this baseline are printed as median (low–high), the distribution-free 95 % interval of the
 *   median (report.ts `medianInterval`; `*` when the rounds are too few for 95 %).
 * - server rate / same-rows baseline: per round, the server's rate over the mean of the rows baseline measured just
 *   before and just after it (report.ts `bracketedRatio`), median with its interval in per cent; its aim (≥ 70 %) is
 *   for the interval's lower bound on a quiet machine.
 * - baseline, 2 documents raw (the earlier baseline): each sale's order and journal transaction as JSONB, one INSERT
 *   per document, 50 per transaction, into a scratch table of a fresh database.
 * Each baseline is measured before and after every round's figure; a round's baseline is the mean of the two, and the
 * largest before/after gap is printed as a diagnostic, so a change of machine load during a round shows.
 * - end to end: sales per second from "start syncing" until the server holds every order and journal transaction.
 * - server commit → register shows synced: per sale, from the server's stamp (`updatedAt`, taken in the push's
 *   transaction) to the register's unsynced-orders query dropping it (its process); median, p95, max.
 * - register local writes: sales stored in the register's own database per second (its process, before syncing).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { DatabaseTarget } from '../support/databases.ts';
import { enrollRegister } from '../support/enroll.ts';
import type { ChildMessage, ParentMessage } from './register-process.ts';
import {
  anchoredRate,
  bracketed,
  bracketedRatio,
  fmt,
  fmtMedianInterval,
  fmtRatioInterval,
  median,
  medianInterval,
  pct,
  printTable,
  type MedianInterval,
} from './report.ts';
import { describeTables, gainedRows, insertRowsInBatches, openReplica, planBatches, snapshotTables, type TableRows } from './rows.ts';
import { lagFigures } from '../renderer/support/shown-synced.ts';
import { benchSales } from './sales.ts';
import { startBenchServer } from './server.ts';

/** The register's push batch size (renderer/src/register/sync/replication.ts): the old baseline's transaction size. */
const REGISTER_PUSH_BATCH = 50;

/** A sync that stores nothing new for this long has failed (e.g. documents quarantined): the bench stops. */
const STALL_MS = 120_000;

/** Figures of one synced run. */
export interface SyncRun {
  sales: number;
  /** Statements issued while handling push requests, pull requests, other requests, and outside any request. */
  statements: { push: number; pull: number; other: number; background: number };
  /** Push statements by first keyword. */
  pushKinds: Map<string, number>;
  pushes: number;
  pulls: number;
  /** Server time in push requests (overlaps once), seconds. */
  pushSeconds: number;
  /** From "start syncing" until the server holds every order and journal transaction, seconds. */
  storedSeconds: number;
  /** Register process: seconds to store the sales offline. */
  localSeconds: number;
  /** Per sale, ms from the server stamping it (its push's transaction) to the register showing it synced. */
  shownSyncedLag: { median: number; p95: number; max: number };
  /** Tables before the sync and the rows the sync added (only when asked to capture). */
  capture?: { before: TableRows[]; gained: TableRows[] };
}

/** The register child process, with a way to wait for each of its messages. */
function startRegister(): { child: ChildProcess; next: (type: ChildMessage['type']) => Promise<ChildMessage>; send: (m: ParentMessage) => void } {
  // Same Node flags as this process (the tsx loader), so the child runs TypeScript too.
  const child = fork(fileURLToPath(new URL('./register-process.ts', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const inbox: ChildMessage[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  child.on('message', (m: ChildMessage) => {
    if (m.type === 'error') failure = new Error(`register process: ${m.message}`);
    else inbox.push(m);
    wake?.();
  });
  child.on('exit', (code) => {
    if (code !== 0) failure ??= new Error(`register process exited with code ${code}`);
    wake?.();
  });
  const next = async (type: ChildMessage['type']): Promise<ChildMessage> => {
    for (;;) {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) return inbox.splice(i, 1)[0]!;
      if (failure) throw failure;
      if (child.exitCode !== null) throw new Error(`register process exited before "${type}"`);
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  };
  return { child, next, send: (m) => void child.send(m) };
}

/**
 * One synced run on a fresh server and register: the register sells `sales` times offline, then syncs; the server's
 * statements and request time are counted from the moment the register starts syncing until the server holds every
 * order and journal transaction (and no push is still answering). With `capture`, the server's tables are read before and after (see rows.ts).
 */
export async function syncRun(target: DatabaseTarget, sales: number, capture = false): Promise<SyncRun> {
  const server = await startBenchServer(target);
  const register = startRegister();
  try {
    const paired = await enrollRegister({ baseUrl: server.baseUrl }, server.staffToken);
    register.send({
      type: 'start',
      baseUrl: server.baseUrl,
      staffToken: paired.registerToken,
      merchantId: server.merchantId,
      register: { registerId: paired.registerId, registerNumber: paired.registerNumber },
      sales,
      firstSaleAt: Date.now() - sales * 1000,
    });
    const saved = (await register.next('saved')) as Extract<ChildMessage, { type: 'saved' }>;
    const tables = capture ? await describeTables(server.rawDb) : [];
    const before = capture ? await snapshotTables(server.rawDb, tables) : [];

    server.counter.reset();
    server.pushTime.reset();
    server.pullTime.reset();
    const start = performance.now();
    register.send({ type: 'sync' });
    let stored = -1;
    let progressAt = performance.now();
    for (;;) {
      const { rows } = await server.rawDb.query<{ orders: number | string; jts: number | string }>(
        `SELECT (SELECT count(*) FROM orders) AS orders, (SELECT count(*) FROM journal_transactions WHERE source_id LIKE 'ord_%') AS jts`,
      );
      const now = Math.min(Number(rows[0]!.orders), Number(rows[0]!.jts));
      if (now >= sales) break;
      if (now !== stored) [stored, progressAt] = [now, performance.now()];
      else if (performance.now() - progressAt > STALL_MS)
        throw new Error(
          `sync ${target.name}: stuck at ${now} of ${sales} sales for ${STALL_MS / 1000} s (quarantined documents? see the quarantine table)`,
        );
      if (process.env.BENCH_DEBUG)
        console.error(
          `server: ${rows[0]!.orders} orders, ${rows[0]!.jts} journal transactions; ${server.pushTime.requests} pushes, ${server.pullTime.requests} pulls`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
    const storedSeconds = (performance.now() - start) / 1000;
    // The last push may still be answering: its statements and time belong to the run.
    while (server.pushTime.isBusy) await new Promise((r) => setTimeout(r, 10));
    const c = server.counter;
    const run: SyncRun = {
      sales,
      statements: { push: c.of('push'), pull: c.of('pull'), other: c.of('other'), background: c.of('background') },
      pushKinds: c.kindsOf('push'),
      pushes: server.pushTime.requests,
      pulls: server.pullTime.requests,
      pushSeconds: server.pushTime.ms / 1000,
      storedSeconds,
      localSeconds: saved.localSeconds,
      shownSyncedLag: { median: 0, p95: 0, max: 0 },
    };
    if (capture) run.capture = { before, gained: gainedRows(before, await snapshotTables(server.rawDb, tables)) };
    run.shownSyncedLag = lagFigures(((await register.next('synced')) as Extract<ChildMessage, { type: 'synced' }>).lagsMs);
    register.send({ type: 'stop' });
    await register.next('stopped');
    return run;
  } finally {
    if (register.child.exitCode === null) register.child.kill();
    await server.close();
  }
}

/** Sales per second of re-inserting `gained` raw in `batches` transactions into a fresh copy of `before`. */
async function rowsBaseline(target: DatabaseTarget, capture: NonNullable<SyncRun['capture']>, sales: number, batches: number): Promise<number> {
  const db = await openReplica(target, capture.before);
  try {
    const expected = new Map(
      capture.gained.map((g) => [g.table.name, (capture.before.find((b) => b.table.name === g.table.name)?.rows.length ?? 0) + g.rows.length]),
    );
    return sales / (await insertRowsInBatches(db, planBatches(capture.gained, batches, sales), expected));
  } finally {
    await db.close();
  }
}

/** The earlier baseline: each document as JSONB, one INSERT per document, `batchSize` per transaction; sales/s. */
async function documentsBaseline(target: DatabaseTarget, documents: readonly unknown[], sales: number, batchSize: number): Promise<number> {
  const db = await target.open();
  try {
    await db.exec('CREATE TABLE bench_raw_insert (id TEXT PRIMARY KEY, data JSONB NOT NULL)');
    const start = performance.now();
    for (let i = 0; i < documents.length; i += batchSize) {
      const batch = documents.slice(i, i + batchSize);
      await db.transaction(async (tx) => {
        for (const [j, doc] of batch.entries()) {
          await tx.query('INSERT INTO bench_raw_insert (id, data) VALUES ($1, $2::jsonb)', [`${i + j}`, JSON.stringify(doc)]);
        }
      });
    }
    return sales / ((performance.now() - start) / 1000);
  } finally {
    await db.close();
  }
}

/** Everything the sync table prints for one engine. */
export interface SyncBenchResult {
  engine: string;
  sales: number;
  rounds: number;
  runs: SyncRun[];
  /** Rows the sync added per table (warm-up run). */
  gainedPerTable: { table: string; rows: number }[];
  /** Same rows raw, sales/s: median of the per-round means (baseline before and after) with its interval; largest gap. */
  rowsBaseline: MedianInterval & { spread: number };
  documentsBaseline: { median: number; spread: number };
  /** Server sync rate (sales/s of push handling) per round, median with its interval. */
  serverRate: MedianInterval;
  /** Per round, server rate / mean(rows baseline before, after): median with its interval. */
  shareOfRowsBaseline: MedianInterval;
  /** 1-minute load average when the engine's run started and when it ended, and the machine's CPUs. */
  load: { start: number; end: number; cpus: number };
}

/**
 * A warm-up synced run that captures the rows a sync writes, then `rounds` rounds of synced run, each bracketed by
 * both baselines (see the file's comment).
 */
export async function benchSync(target: DatabaseTarget, sales: number, rounds: number): Promise<SyncBenchResult> {
  const loadAtStart = loadavg()[0]!;
  const warmUp = await syncRun(target, sales, true);
  const capture = warmUp.capture!;
  const batches = Math.max(1, warmUp.pushes);
  const documents = benchSales({ register: { registerId: 'reg_bench', registerNumber: 1 }, sales, firstSaleAt: Date.now() - sales * 1000 }).flatMap(
    (s) => [s.order, s.journalTransaction],
  );
  const result = await bracketed(
    rounds,
    () => syncRun(target, sales),
    async () => ({
      rows: await rowsBaseline(target, capture, sales, batches),
      documents: await documentsBaseline(target, documents, sales, REGISTER_PUSH_BATCH),
    }),
  );
  const rowsRates = result.baselines.map((b) => b.rows);
  const serverRates = result.figures.map((f) => f.sales / f.pushSeconds);
  const roundBaselines = rowsRates.slice(1).map((after, r) => (rowsRates[r]! + after) / 2);
  return {
    engine: target.name,
    sales,
    rounds,
    runs: result.figures,
    gainedPerTable: capture.gained.map((g) => ({ table: g.table.name, rows: g.rows.length })),
    rowsBaseline: { ...medianInterval(roundBaselines), spread: anchoredRate(rowsRates).spread },
    documentsBaseline: anchoredRate(result.baselines.map((b) => b.documents)),
    serverRate: medianInterval(serverRates),
    shareOfRowsBaseline: bracketedRatio(serverRates, rowsRates),
    load: { start: loadAtStart, end: loadavg()[0]!, cpus: availableParallelism() },
  };
}

/** Prints the sync table: one column per engine. */
export function printSyncBench(results: readonly SyncBenchResult[]): void {
  if (results.length === 0) return;
  const col = (f: (r: SyncBenchResult) => string) => results.map(f);
  const perRun = (f: (run: SyncRun) => number) => (r: SyncBenchResult) => median(r.runs.map(f));
  const first = results[0]!;
  const kinds = [...new Set(results.flatMap((r) => r.runs.flatMap((run) => [...run.pushKinds.keys()])))].sort();
  const tables = [...new Set(results.flatMap((r) => r.gainedPerTable.map((g) => g.table)))].sort();
  printTable(
    `Sync — ${first.sales} offline sales by the register's replication engine (own process), median (95 % interval) of ${first.rounds} rounds, ${first.load.cpus} CPUs`,
    results.map((r) => r.engine),
    [
      { label: 'machine load average (1 min), start → end', values: col((r) => `${fmt(r.load.start, 2)} → ${fmt(r.load.end, 2)}`) },
      { label: 'statements per synced sale, push requests', values: col((r) => fmt(perRun((x) => x.statements.push / x.sales)(r), 2)), aim: '≤ 8' },
      ...kinds.map((k) => ({ label: `  of which ${k}`, values: col((r) => fmt(perRun((x) => (x.pushKinds.get(k) ?? 0) / x.sales)(r), 2)) })),
      {
        label: 'statements per synced sale, all (pulls meanwhile too)',
        values: col((r) =>
          fmt(perRun((x) => (x.statements.push + x.statements.pull + x.statements.other + x.statements.background) / x.sales)(r), 2),
        ),
      },
      { label: 'statements per push request', values: col((r) => fmt(perRun((x) => x.statements.push / Math.max(1, x.pushes))(r), 1)) },
      { label: 'statements outside sync requests', values: col((r) => fmt(perRun((x) => x.statements.other + x.statements.background)(r))) },
      { label: 'push / pull requests until stored', values: col((r) => `${fmt(perRun((x) => x.pushes)(r))} / ${fmt(perRun((x) => x.pulls)(r))}`) },
      { label: 'server sync rate, sales/s of push handling', values: col((r) => fmtMedianInterval(r.serverRate)) },
      { label: 'baseline: same rows raw, sales/s', values: col((r) => fmtMedianInterval(r.rowsBaseline)) },
      { label: '  before/after gap', values: col((r) => pct(r.rowsBaseline.spread)) },
      {
        label: 'server rate / same-rows baseline, per round',
        values: col((r) => fmtRatioInterval(r.shareOfRowsBaseline)),
        aim: '≥ 70 % (lower bound, quiet machine)',
      },
      { label: 'baseline: 2 documents raw, sales/s', values: col((r) => fmt(r.documentsBaseline.median)) },
      { label: '  before/after gap', values: col((r) => pct(r.documentsBaseline.spread)) },
      { label: 'end to end, sales/s until the server holds all', values: col((r) => fmt(perRun((x) => x.sales / x.storedSeconds)(r))) },
      {
        label: 'server commit → register shows synced, ms: median',
        values: col((r) => fmt(perRun((x) => x.shownSyncedLag.median)(r))),
        aim: '≤ 2000',
      },
      { label: '  p95 / max', values: col((r) => `${fmt(perRun((x) => x.shownSyncedLag.p95)(r))} / ${fmt(perRun((x) => x.shownSyncedLag.max)(r))}`) },
      { label: 'register local writes, sales/s (its process)', values: col((r) => fmt(perRun((x) => x.sales / x.localSeconds)(r))) },
      { label: 'rows written per sale', values: col((r) => fmt(r.gainedPerTable.reduce((s, g) => s + g.rows, 0) / r.sales, 2)) },
      ...tables.map((t) => ({ label: `  ${t}`, values: col((r) => fmt((r.gainedPerTable.find((g) => g.table === t)?.rows ?? 0) / r.sales, 2)) })),
    ],
  );
}
