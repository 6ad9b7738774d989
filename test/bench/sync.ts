import 'fake-indexeddb/auto';
import { performance } from 'node:perf_hooks';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { buildSale, type PairedRegister } from '../support/sales.ts';
import type { DatabaseTarget } from '../support/databases.ts';

/**
 * The register's own replication engine (`renderer/src/sync/replication.ts`) runs here in Node. It reads a handful of
 * browser globals; these shims give it exactly those and nothing more: `localStorage` (a Map), `navigator.onLine`,
 * `location.origin`, `window` online/offline events, relative `fetch` paths resolved against the server, and an
 * `EventSource` that never connects (the bench measures push + pull, not the live stream).
 */
function installBrowserShims(baseUrl: string, timing: PushTiming): () => void {
  const store = new Map<string, string>();
  const g = globalThis as Record<string, unknown>;
  const names = ['localStorage', 'navigator', 'location', 'window', 'fetch', 'EventSource'] as const;
  const saved = names.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const);
  g.localStorage = {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, String(v)),
    removeItem: (k: string) => void store.delete(k),
  };
  Object.defineProperty(globalThis, 'navigator', { value: { onLine: true }, configurable: true, writable: true });
  g.location = { origin: baseUrl };
  const events = new EventTarget();
  g.window = { addEventListener: events.addEventListener.bind(events), removeEventListener: events.removeEventListener.bind(events) };
  const realFetch = globalThis.fetch;
  g.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' && input.startsWith('/') ? `${baseUrl}${input}` : input;
    if (typeof url !== 'string' || !url.includes('/push')) return realFetch(url, init);
    // Push requests are timed until their whole answer is read: the server's share of the sync. Pushes may overlap,
    // so the time counted is while at least one push is in flight (overlaps counted once).
    if (timing.inFlight++ === 0) timing.busySince = performance.now();
    try {
      const response = await realFetch(url, init);
      const body = await response.arrayBuffer();
      timing.pushes += 1;
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      if (--timing.inFlight === 0) timing.pushMs += performance.now() - timing.busySince;
    }
  };
  g.EventSource = class {
    onmessage: unknown = null;
    onerror: unknown = null;
    onopen: unknown = null;
    addEventListener(): void {}
    close(): void {}
  };
  // Restores the globals: PGlite, for one, takes `window` as a sign that it runs in a browser.
  return () => {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete g[name];
    }
  };
}

/** Wall-clock time while at least one push request was in flight (request sent → answer read), over the run. */
interface PushTiming {
  pushMs: number;
  pushes: number;
  inFlight: number;
  busySince: number;
}

/** Figures of one sync run. Rates are per second of wall-clock time on this machine. */
export interface SyncBenchResult {
  engine: Db['engine'];
  sales: number;
  /** Register-side: sales written to the local RxDB (Dexie on fake-indexeddb) per second. */
  localSalesPerSecond: number;
  /** Sales (order pushed; its journal transaction derived, validated, ledger, audit) synced to the server per second. */
  syncedSalesPerSecond: number;
  /**
   * Register-side "shown synced" lag per sale, in ms: from the server committing the order (its `updated_at` stamp)
   * to the register holding the stamped copy (what the unsynced counter and the sale's marker read). Median and max.
   */
  shownSyncedLagMs: { median: number; max: number };
  /** From starting the sync to the register's unsynced count reaching 0, in ms. */
  allShownSyncedMs: number;
  /**
   * Sales per second of time spent inside push requests: the server's own rate, without the register emulation's
   * share (Node has no IndexedDB; fake-indexeddb's index scans grow with the number of local documents).
   */
  serverSalesPerSecond: number;
  pushes: number;
  /** Baseline: bare INSERTs of the same documents into a scratch table of the same server database, per second. */
  rawRowsPerSecond: number;
  rawBatchSize: number;
}

async function rawInsertRate(db: Db, documents: readonly unknown[], batchSize: number): Promise<number> {
  await db.exec('DROP TABLE IF EXISTS bench_raw_insert; CREATE TABLE bench_raw_insert (id TEXT PRIMARY KEY, data JSONB NOT NULL)');
  const start = performance.now();
  for (let i = 0; i < documents.length; i += batchSize) {
    const batch = documents.slice(i, i + batchSize);
    await db.transaction(async (tx) => {
      for (const [j, doc] of batch.entries()) {
        await tx.query('INSERT INTO bench_raw_insert (id, data) VALUES ($1, $2::jsonb)', [`${i + j}`, JSON.stringify(doc)]);
      }
    });
  }
  const seconds = (performance.now() - start) / 1000;
  await db.exec('DROP TABLE bench_raw_insert');
  return documents.length / seconds;
}

/**
 * Sells `sales` times offline into a fresh register database, then starts the register's replication engine against
 * a real server (HTTP on 127.0.0.1) and waits until the server holds every order and journal transaction. Then
 * measures the raw insert rate of the same documents into the same database for comparison.
 */
export async function benchSync(target: DatabaseTarget, sales = 5_000): Promise<SyncBenchResult> {
  const server: TestServer = await startTestServer({ target, listen: true, staticDir: null });
  const timing: PushTiming = { pushMs: 0, pushes: 0, inFlight: 0, busySince: 0 };
  const restoreGlobals = installBrowserShims(server.baseUrl, timing);
  // Imported after the shims: the modules read globals when they run.
  const { openRegisterDatabase, saveSale } = await import('../../renderer/src/register/db/database.ts');
  const { startSync } = await import('../../renderer/src/register/sync/replication.ts');
  const pairing = (await (await fetch(`${server.baseUrl}/api/dev/pair-register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as PairedRegister & { staffToken: string };
  const register = await openRegisterDatabase({ name: `bench${Date.now()}`, storage: getRxStorageDexie(), multiInstance: false });
  try {
    const built = Array.from({ length: sales }, (_, i) =>
      buildSale({ register: pairing, sequence: i + 1, catalog: server.catalog, method: i % 3 === 0 ? 'card' : 'cash', createdAt: new Date(Date.now() - (sales - i) * 1000).toISOString() }),
    );
    const localStart = performance.now();
    for (const sale of built) await saveSale(register, sale);
    const localSeconds = (performance.now() - localStart) / 1000;

    // When each order's stamped copy lands locally (wall clock, to compare with the server's commit stamps).
    const stampedAt = new Map<string, number>();
    const stampWatch = register.orders.$.subscribe((event) => {
      const doc = event.documentData as { id: string; syncSeq?: number };
      if (doc.syncSeq !== undefined && !stampedAt.has(doc.id)) stampedAt.set(doc.id, Date.now());
    });
    const syncStart = performance.now();
    const engine = startSync(register, { getToken: () => pairing.staffToken, merchantId: server.credentials.merchantId });
    let stored = 0;
    for (;;) {
      const { rows } = await server.db.query<{ orders: number | string; jts: number | string }>(
        `SELECT (SELECT count(*) FROM orders) AS orders, (SELECT count(*) FROM journal_transactions WHERE source_id LIKE 'ord_%') AS jts`,
      );
      stored = Math.min(Number(rows[0]!.orders), Number(rows[0]!.jts));
      if (stored >= sales) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const syncSeconds = (performance.now() - syncStart) / 1000;
    while (engine.status$.value.unsyncedCount > 0 || stampedAt.size < sales) await new Promise((r) => setTimeout(r, 20));
    const allShownSyncedMs = performance.now() - syncStart;
    stampWatch.unsubscribe();
    await engine.stop();
    const committed = await server.db.query<{ id: string; updated_at: Date }>('SELECT id, updated_at FROM orders WHERE register_id = $1', [pairing.registerId]);
    const lags = committed.rows.map((r) => (stampedAt.get(r.id) ?? Number.NaN) - new Date(r.updated_at).getTime()).sort((a, b) => a - b);

    const rawBatchSize = 50; // the register's push batch size
    const documents = built.flatMap((s) => [s.order, s.journalTransaction]);
    const rawRowsPerSecond = await rawInsertRate(server.db, documents, rawBatchSize);
    return {
      engine: server.db.engine,
      sales,
      localSalesPerSecond: sales / localSeconds,
      syncedSalesPerSecond: sales / syncSeconds,
      shownSyncedLagMs: { median: lags[Math.floor(lags.length / 2)] ?? Number.NaN, max: lags.at(-1) ?? Number.NaN },
      allShownSyncedMs,
      serverSalesPerSecond: sales / (timing.pushMs / 1000),
      pushes: timing.pushes,
      rawRowsPerSecond,
      rawBatchSize,
    };
  } finally {
    await register.remove();
    restoreGlobals();
    await server.close();
  }
}

/** Prints the sync figures of {@link benchSync}, with the raw insert rate of the same database beside them. */
export async function printSyncBench(target: DatabaseTarget, sales = 5_000): Promise<void> {
  const r = await benchSync(target, sales);
  console.log(
    `sync ${r.engine.padEnd(8)} ${r.sales} offline sales: ${r.syncedSalesPerSecond.toFixed(0)} sales/s synced end to end ` +
      `(order pushed, journal transaction derived by the server, validated, ledger + audit), ${r.serverSalesPerSecond.toFixed(0)} sales/s of time in ` +
      `${r.pushes} push requests | baseline: raw insert ${r.rawRowsPerSecond.toFixed(0)} rows/s ` +
      `= ${(r.rawRowsPerSecond / 2).toFixed(0)} sales/s (bare INSERTs of the same documents, ${r.rawBatchSize} per transaction) | ` +
      `register local writes ${r.localSalesPerSecond.toFixed(0)} sales/s | shown synced on the register ` +
      `${r.shownSyncedLagMs.median.toFixed(0)} ms (median) / ${r.shownSyncedLagMs.max.toFixed(0)} ms (max) after the server committed each sale, ` +
      `all ${(r.allShownSyncedMs / 1000).toFixed(1)} s after the sync started`,
  );
}
