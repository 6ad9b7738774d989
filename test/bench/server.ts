/**
 * The server the benchmarks run: the real `buildApp` on a fresh, migrated, seeded database (the demo store), listening
 * on 127.0.0.1, built with a **statement-counting** wrapper around its Db. Every SQL statement the server issues is
 * counted — `query`/`exec` calls, plus BEGIN and COMMIT (or ROLLBACK) for each transaction — and attributed to the
 * kind of request that issued it (`push`, `pull`, `other`, or `background` outside any request), so the sync figure
 * can say "statements per synced sale". The bench's own queries go through `rawDb`, which is not counted.
 *
 * The background workers (webhook delivery, recurring invoices) are off unless `workers: true`: they poll on timers,
 * and would add statements and CPU that belong to no request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../sync-server/src/app.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { countingDb } from '../support/counting-db.ts';
import type { DatabaseTarget } from '../support/databases.ts';

/** What issued a statement: a replication push or pull request, any other request, or no request at all. */
export type StatementSource = 'push' | 'pull' | 'other' | 'background';

/** Statements counted since the last {@link StatementCounter.reset}, by source and by first SQL keyword. */
export class StatementCounter {
  /** source → first keyword of the statement, upper case (SELECT, INSERT, UPDATE, DELETE, WITH, BEGIN/COMMIT, …) → n. */
  counts = new Map<StatementSource, Map<string, number>>();

  add(source: StatementSource, kind: string, n = 1): void {
    let kinds = this.counts.get(source);
    if (!kinds) this.counts.set(source, (kinds = new Map()));
    kinds.set(kind, (kinds.get(kind) ?? 0) + n);
  }

  /** Statements issued by `source` (all sources when omitted). */
  of(source?: StatementSource): number {
    let sum = 0;
    for (const [s, kinds] of this.counts) if (source === undefined || s === source) for (const n of kinds.values()) sum += n;
    return sum;
  }

  /** Statements of `source` by first keyword. */
  kindsOf(source: StatementSource): Map<string, number> {
    return new Map(this.counts.get(source) ?? []);
  }

  reset(): void {
    this.counts.clear();
  }
}

/** Request kind of the current async context, set by an onRequest hook of the bench server. */
const requestSource = new AsyncLocalStorage<StatementSource>();

function kindOf(sql: string): string {
  const word = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(sql)?.[1];
  return word ? word.toUpperCase() : '?';
}

/** `db` with every statement counted into `counter`, by the request kind that issued it (BEGIN and COMMIT included). */
export function benchCountingDb(db: Db, counter: StatementCounter): Db {
  const source = (): StatementSource => requestSource.getStore() ?? 'background';
  return countingDb(db, {
    onStatement: (sql) => counter.add(source(), kindOf(sql)),
    onTransaction: () => counter.add(source(), 'BEGIN/COMMIT', 2),
  });
}

/**
 * Time while at least one request of a kind was being handled (onRequest → onResponse; overlapping requests
 * counted once), and how many there were. This is the server's own share of the sync: the register's work happens
 * in another process between requests.
 */
export class BusyTimer {
  ms = 0;
  requests = 0;
  private inFlight = 0;
  private since = 0;

  begin(): void {
    if (this.inFlight++ === 0) this.since = performance.now();
  }

  end(): void {
    this.requests += 1;
    if (--this.inFlight === 0) this.ms += performance.now() - this.since;
  }

  /** True while a request of this kind is being handled. */
  get isBusy(): boolean {
    return this.inFlight > 0;
  }

  reset(): void {
    this.ms = 0;
    this.requests = 0;
  }
}

export interface BenchServer {
  app: FastifyInstance;
  /** The database as the bench sees it: not counted. */
  rawDb: Db;
  counter: StatementCounter;
  /** Server time spent in replication push requests. */
  pushTime: BusyTimer;
  /** Server time spent in replication pull requests. */
  pullTime: BusyTimer;
  baseUrl: string;
  merchantId: string;
  /** Owner staff ID token of the demo store. */
  staffToken: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise<number>((resolvePort, rejectPort) => {
    const probe = createServer();
    probe.once('error', rejectPort);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts the bench server on a fresh database of `target` (see the file's comment). */
export async function startBenchServer(target: DatabaseTarget, options: { workers?: boolean } = {}): Promise<BenchServer> {
  const rawDb = await target.open();
  try {
    await migrate(rawDb);
    const seed = await seedDemoStore(rawDb);
    const counter = new StatementCounter();
    const pushTime = new BusyTimer();
    const pullTime = new BusyTimer();
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const workers = options.workers ?? false;
    const app = await buildApp({
      db: benchCountingDb(rawDb, counter),
      config: { baseUrl, staticDir: null, allowPrivateWebhookReceivers: true },
      ...(workers ? {} : { webhooks: { enabled: false }, recurringInvoices: { enabled: false } }),
    });
    // A callback hook, so the store entered here is the context the rest of the request runs in.
    app.addHook('onRequest', (request, _reply, done) => {
      const path = request.url.split('?')[0] ?? '';
      const kind: StatementSource = /^\/api\/sync\/[^/]+\/push$/.test(path) ? 'push' : /^\/api\/sync\/[^/]+\/pull$/.test(path) ? 'pull' : 'other';
      if (kind === 'push') pushTime.begin();
      if (kind === 'pull') pullTime.begin();
      (request as { benchKind?: StatementSource }).benchKind = kind;
      requestSource.enterWith(kind);
      done();
    });
    app.addHook('onResponse', (request, _reply, done) => {
      const kind = (request as { benchKind?: StatementSource }).benchKind;
      if (kind === 'push') pushTime.end();
      if (kind === 'pull') pullTime.end();
      done();
    });
    await app.listen({ port, host: '127.0.0.1' });
    const idp = await IdentityProvider.load(rawDb, baseUrl);
    const staffToken = await idp.issueStaffToken({ staffId: seed.staffId, merchantId: seed.merchantId, role: seed.staffRole });
    return {
      app,
      rawDb,
      counter,
      pushTime,
      pullTime,
      baseUrl,
      merchantId: seed.merchantId,
      staffToken,
      async close() {
        await app.close();
        await rawDb.close();
      },
    };
  } catch (err) {
    await rawDb.close();
    throw err;
  }
}
