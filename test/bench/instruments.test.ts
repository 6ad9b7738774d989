import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb, transactionMemo } from '../../sync-server/src/platform/db/db.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES } from '../../sync-server/src/modules/merchants/seed.ts';
import {
  anchoredRate,
  bracketedBaseline,
  bracketedDifference,
  bracketedRatio,
  fmtMedianInterval,
  fmtRatioInterval,
  median,
  medianInterval,
  pool,
  quantileInterval,
} from './report.ts';
import { describeTables, gainedRows, insertRowsInBatches, openReplica, planBatches, snapshotTables, type TableRows } from './rows.ts';
import { benchCountingDb, StatementCounter, startBenchServer, type BenchServer } from './server.ts';
import { BENCH_END_MARK, BENCH_START_MARK, benchWindows, phaseTimes, tailPhases, type TraceEvent } from './trace-phases.ts';
import { bulkName, bulkPriceCents, bulkValidGtin, gtinCheckDigit, largeCatalogCsv } from '../support/large-catalog.ts';
import { isValidGtin } from '../../core/index.ts';
import { parsePrice, readCatalogCsv } from '../../sync-server/src/modules/catalog/csv.ts';

/** The bench's measuring instruments measure what they say (the figures themselves are never asserted). */
describe('statement counter', () => {
  it('counts each query plus BEGIN and COMMIT, and keeps the transaction handle the server keys its memo on', async () => {
    const counter = new StatementCounter();
    const raw = await openPgliteDb();
    try {
      const db = benchCountingDb(raw, counter);
      await db.query('SELECT 1');
      const hadMemo = await db.transaction(async (tx) => {
        await tx.query('CREATE TABLE t (n int)');
        await tx.query('INSERT INTO t VALUES (1), (2)');
        return transactionMemo(tx) !== undefined;
      });
      expect(hadMemo).toBe(true);
      expect(counter.of()).toBe(5);
      expect(counter.of('background')).toBe(5); // no request around it
      expect(Object.fromEntries(counter.kindsOf('background'))).toEqual({ SELECT: 1, 'BEGIN/COMMIT': 2, CREATE: 1, INSERT: 1 });
    } finally {
      await raw.close();
    }
  });
});

describe('report helpers', () => {
  it('takes medians, and anchors each round on the mean of the baselines before and after it', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    // Rounds: (100+110)/2 = 105, (110+90)/2 = 100, (90+100)/2 = 95; the widest before/after gap is 20 of 100.
    expect(anchoredRate([100, 110, 90, 100])).toEqual({ median: 100, spread: 0.2 });
  });
});

describe('percentile confidence interval', () => {
  it('brackets a percentile by the order statistics n·q ∓ 1.96·√(n·q·(1 − q)), clamped to the samples', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 1 … 100, unsorted
    expect(quantileInterval(values, 50)).toEqual({ value: 50, low: 40, high: 60, n: 100 });
    expect(quantileInterval(values, 95)).toEqual({ value: 95, low: 90, high: 100, n: 100 });
    expect(quantileInterval([7], 95)).toEqual({ value: 7, low: 7, high: 7, n: 1 });
    expect(Number.isNaN(quantileInterval([], 50).value)).toBe(true);
  });
});

describe('median confidence interval and bracketed ratio', () => {
  it('takes the order statistics whose exact binomial coverage is at least 95 %, min–max when rounds are too few', () => {
    // n = 10: P(Binomial(10, ½) ≤ 1) = 11/1024, so [x₍₂₎, x₍₉₎] covers 1 − 22/1024 ≈ 97.9 %; [x₍₃₎, x₍₈₎] only 89 %.
    const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    const x = medianInterval(ten);
    expect(x).toMatchObject({ median: 5.5, low: 2, high: 9, n: 10 });
    expect(x.coverage).toBeCloseTo(1 - 22 / 1024, 10);
    // n = 5: even min–max covers only 1 − 2/32 = 93.75 %, and says so.
    expect(medianInterval([3, 1, 2, 5, 4])).toMatchObject({ median: 3, low: 1, high: 5, coverage: 0.9375 });
    expect(medianInterval([])).toMatchObject({ n: 0 });
  });

  it('divides each figure by the mean of the baselines before and after it, and prints the ratio in per cent', () => {
    // Rounds: 50 / ((100 + 100) / 2) = 0.5, 60 / ((100 + 50) / 2) = 0.8, 30 / ((50 + 70) / 2) = 0.5.
    const r = bracketedRatio([50, 60, 30], [100, 100, 50, 70]);
    expect(r).toMatchObject({ median: 0.5, low: 0.5, high: 0.8, n: 3 });
    expect(fmtRatioInterval(r)).toBe('50 % (50–80 %)*');
    expect(fmtRatioInterval(medianInterval([0.6, 0.62, 0.64, 0.66, 0.7, 0.71]))).toBe('65 % (60–71 %)');
    expect(fmtMedianInterval(medianInterval([1200, 1100, 1000, 1300, 1250, 1150]))).toBe('1,175 (1,000–1,300)');
  });

  it("subtracts from each figure the mean of the baselines before and after it, and takes each round's baseline as that mean", () => {
    // Rounds: 50 − (10 + 20) / 2 = 35, 40 − (20 + 40) / 2 = 10, 60 − (40 + 30) / 2 = 25.
    expect(bracketedDifference([50, 40, 60], [10, 20, 40, 30])).toMatchObject({ median: 25, low: 10, high: 35, n: 3 });
    expect(bracketedBaseline([10, 20, 40, 30])).toMatchObject({ median: 30, low: 15, high: 35, n: 3 });
  });
});

describe('concurrency pool', () => {
  it('calls every index once with at most the given calls in flight, and answers in index order', async () => {
    let inFlight = 0;
    let most = 0;
    const called: number[] = [];
    const results = await pool(20, 4, async (i) => {
      called.push(i);
      inFlight++;
      most = Math.max(most, inFlight);
      // Uneven settling: a later call may finish before an earlier one.
      await new Promise((r) => setTimeout(r, (i * 7) % 5));
      inFlight--;
      return i * 10;
    });
    expect(most).toBe(4);
    expect([...called].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 10));
    expect(await pool(0, 4, async () => 1)).toEqual([]);
  });

  it('rejects with the first error and starts no call after it', async () => {
    const started: number[] = [];
    const run = pool(10, 2, async (i) => {
      started.push(i);
      await new Promise((r) => setTimeout(r, 1));
      if (i === 3) throw new Error('call 3 failed');
      return i;
    });
    await expect(run).rejects.toThrow('call 3 failed');
    const atFailure = started.length;
    await new Promise((r) => setTimeout(r, 20));
    // Calls 0–3 ran; at most the other worker's call in flight started besides; none started after the rejection.
    expect(started.slice(0, 4).sort((a, b) => a - b)).toEqual([0, 1, 2, 3]);
    expect(started.length).toBeLessThanOrEqual(5);
    expect(started.length).toBe(atFailure);
  });
});

describe.each(databaseTargets())('bench server and rows baseline on $name', (target) => {
  let server: BenchServer;
  let register: EnrolledRegister;

  beforeAll(async () => {
    server = await startBenchServer(target);
    register = await enrollRegister({ baseUrl: server.baseUrl }, server.staffToken);
  });
  afterAll(async () => {
    await server?.close();
  });

  const push = (collection: string, docs: unknown[]) =>
    fetch(`${server.baseUrl}/api/sync/${collection}/push`, {
      method: 'POST',
      headers: { authorization: `Bearer ${register.registerToken}`, 'content-type': 'application/json', 'x-register-schema-version': '1' },
      body: JSON.stringify(docs.map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
    });

  it('attributes the statements of push requests to them, and re-inserts exactly the rows the pushes wrote', async () => {
    const sales = [1, 2, 3].map((sequence) =>
      buildSale({ register, sequence, catalog: { items: DEMO_CATALOG_ITEMS, taxRates: DEMO_TAX_RATES }, method: sequence === 1 ? 'card' : 'cash' }),
    );
    const tables = await describeTables(server.rawDb);
    const before = await snapshotTables(server.rawDb, tables);
    server.counter.reset();
    server.pushTime.reset();

    // Two pushes, as a register sends them: orders only (the server derives their journal transactions).
    expect(
      (
        await push(
          'orders',
          sales.slice(0, 2).map((s) => s.order),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await push(
          'orders',
          sales.slice(2).map((s) => s.order),
        )
      ).status,
    ).toBe(200);

    expect(server.pushTime.requests).toBe(2);
    expect(server.pushTime.ms).toBeGreaterThan(0);
    expect(server.counter.of('push')).toBeGreaterThan(0);
    expect(server.counter.kindsOf('push').get('INSERT')).toBeGreaterThanOrEqual(6); // orders and their derived journal transactions, in each push
    expect(server.counter.kindsOf('push').get('BEGIN/COMMIT')).toBeGreaterThanOrEqual(4); // a transaction per push at least
    expect(server.counter.of('background')).toBe(0);

    const gained = gainedRows(before, await snapshotTables(server.rawDb, tables));
    const count = (rows: readonly TableRows[], name: string) => rows.find((g) => g.table.name === name)?.rows.length ?? 0;
    expect(count(gained, 'orders')).toBe(3);
    expect(count(gained, 'journal_transactions')).toBe(3);

    // A fresh database of the same engine with the "before" state, the gained rows inserted in two batches: it then
    // holds exactly the same new rows (a parent before its children, or the foreign keys would refuse them).
    const replica = await openReplica(target, before);
    try {
      const expected = new Map(gained.map((g) => [g.table.name, count(before, g.table.name) + g.rows.length]));
      const seconds = await insertRowsInBatches(replica, planBatches(gained, 2, 3), expected);
      expect(seconds).toBeGreaterThan(0);
      const again = gainedRows(before, await snapshotTables(replica, tables));
      const sorted = (rows: readonly TableRows[]) => rows.map((g) => ({ table: g.table.name, rows: g.rows.map((r) => JSON.stringify(r)).sort() }));
      expect(sorted(again)).toEqual(sorted(gained));
    } finally {
      await replica.close();
    }
  });
});

describe('large catalog as a CSV', () => {
  it('computes GS1 check digits, so the generated GTINs are valid', () => {
    expect(gtinCheckDigit('400638133393')).toBe(1); // 4006381333931, a published EAN-13
    expect(gtinCheckDigit('03600029145')).toBe(2); // UPC-A 036000291452
    expect(() => gtinCheckDigit('12a')).toThrow();
    for (const n of [1, 9, 4321, 49_999, 123_456]) {
      expect(bulkValidGtin(n)).toMatch(/^2\d{12}$/);
      expect(isValidGtin(bulkValidGtin(n))).toBe(true);
    }
    expect(new Set([1, 2, 3, 10, 11].map(bulkValidGtin)).size).toBe(5);
  });

  it('writes the generated items as rows the importer reads: name, price, SKU, category, barcode', () => {
    const { rows } = readCatalogCsv(largeCatalogCsv(41, 3));
    expect(rows.map((r) => r.get('Handle'))).toEqual(['bulk-item-41', 'bulk-item-42', 'bulk-item-43']);
    const row = rows[1]!;
    expect(row.get('Title')).toBe(bulkName(42));
    expect(parsePrice(row.get('Variant Price'), 2)).toBe(bulkPriceCents(42));
    expect(row.get('Variant SKU')).toBe('BULK-42');
    expect(row.get('Type')).toBe('Aisle 02');
    expect(row.get('Variant Barcode')).toBe(bulkValidGtin(42));
  });
});

describe('trace phases', () => {
  const main = { pid: 1, tid: 7 };
  const stamp = (ts: number, message: string, tid = 7): TraceEvent => ({ name: 'TimeStamp', ph: 'I', pid: 1, tid, ts, args: { data: { message } } });
  const x = (name: string, ts: number, dur: number, extra: Partial<TraceEvent> = {}): TraceEvent => ({ name, ph: 'X', ...main, ts, dur, ...extra });

  it('pairs each start mark with the next end mark on its thread', () => {
    const windows = benchWindows([
      stamp(300, BENCH_END_MARK),
      stamp(100, BENCH_START_MARK),
      stamp(500, BENCH_START_MARK),
      stamp(900, BENCH_END_MARK),
      stamp(50, 'other'),
    ]);
    expect(windows).toEqual([
      { ...main, start: 100, end: 300 },
      { ...main, start: 500, end: 900 },
    ]);
  });

  it('counts self time once, in its own phase or its parent’s, clipped to the window and on its thread only', () => {
    const events = [
      x('RunTask', 0, 9_000), // 1,000 µs of its own: other
      x('FunctionCall', 1_000, 5_000), // 5,000 less its children's 3,000: script
      x('Layout', 2_000, 2_000), // a forced layout inside script: layout
      x('v8.compile', 4_500, 500), // script
      x('Anonymous', 5_000, 500), // no phase of its own: its parent's, script
      x('UpdateLayoutTree', 6_000, 1_000),
      x('Paint', 7_000, 1_000),
      x('IDBObjectStore::putRequestSetup', 8_000, 1_000), // IndexedDB
      x('Paint', 20_000, 5_000), // outside the window
      x('Layout', 2_000, 9_000, { tid: 8 }), // another thread
      x('Commit', 10_000, 2_000), // 500 µs inside the window
    ];
    const t = phaseTimes(events, { ...main, start: 0, end: 10_500 });
    expect(t).toEqual({ script: 3, style: 1, layout: 2, paint: 1.5, indexedDb: 1, other: 1 });
  });

  it('averages the repetitions at or above the p95', () => {
    const events = [x('Layout', 0, 2_000), x('Layout', 10_000, 4_000), x('Paint', 20_000, 6_000)];
    const windows = [
      { ...main, start: 0, end: 5_000 },
      { ...main, start: 10_000, end: 15_000 },
      { ...main, start: 20_000, end: 30_000 },
    ];
    expect(tailPhases(events, windows, [3, 9, 8], 8)).toEqual({ script: 0, style: 0, layout: 2, paint: 3, indexedDb: 0, other: 0 });
    expect(tailPhases(events, windows, [3, 9], 8)).toBeUndefined();
  });
});
