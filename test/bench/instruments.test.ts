import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb, transactionMemo } from '../../sync-server/src/platform/db/db.ts';
import { databaseTargets } from '../support/databases.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { buildSale } from '../support/sales.ts';
import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES } from '../../sync-server/src/modules/merchants/seed.ts';
import { anchoredRate, median, quantileInterval } from './report.ts';
import { describeTables, gainedRows, insertRowsInBatches, openReplica, planBatches, snapshotTables, type TableRows } from './rows.ts';
import { benchCountingDb, StatementCounter, startBenchServer, type BenchServer } from './server.ts';

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
