/**
 * Order-creation bench: `POST /api/pos/orders` (catalog references only, priced by the server) against a
 * store that already holds 1 000 and then 10 000 orders (ORDER_SIZES, default "1000,10000"), so a cost that grows with
 * the number of orders shows. The server runs in this process; the load generator (autocannon) in its own
 * (test/bench/load-process.ts), never in the server's event loop.
 *
 * Existing orders are seeded through the real `createOrder` workflow, 32 calls in flight, so each carries the rows the
 * API path writes with it (its audit entry and outbox event). Copying one API order's rows with fresh ids was not an
 * option: audit entries form a per-merchant hash chain (kernel/audit.ts), which copies would break. After every
 * measurement the orders it created are deleted again (their audit entries stay: the audit log is append-only), so
 * each run starts from the same number of orders.
 *
 * Lines of the table, per number of existing orders, each a median over BENCH_ROUNDS rounds (default 6), most with
 * their distribution-free 95 % interval as median (low–high) (report.ts `medianInterval`; `*` when the rounds are too
 * few for 95 %):
 * - orders/s: ORDER_REQUESTS requests (default 500) at concurrency 32, each with a fresh Idempotency-Key, divided by
 *   the run's duration; then the rate at the largest size as a share of the rate at the smallest (aim ≥ 80 %).
 * - p50 / p95 / p99 latency, ms, over every answer of the run, and p99 / p50 (aim ≤ 5).
 * - baseline: the same service call (`createOrder`: lock, price from the catalog, insert, audit, outbox event) made
 *   directly in this process at the same concurrency — ORDER_DIRECT calls (default 200), 32 in flight (report.ts
 *   `pool`) — measured just before and just after every run; each round's baseline is the mean of the two, and the
 *   largest before/after gap is printed as a diagnostic.
 * - API ÷ direct: per round, the API's rate over that round's baseline (report.ts `bracketedRatio`), in per cent.
 * - the server's event-loop delay during each load run (`monitorEventLoopDelay`, 10 ms resolution, enabled just
 *   before the load starts and disabled when it ends): p50, p99 (aim ≤ 20 ms) and max, ms — the time between the
 *   histogram timer's turns less its 10 ms interval, so an idle loop reads about 0.
 */
import { fork } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { OrderCreate } from '../../core/index.ts';
import { POS_APP_RATE_LIMIT } from '../../sync-server/src/app.ts';
import { IdentityProvider, type Principal } from '../../sync-server/src/platform/auth/identity.ts';
import type { AppContext } from '../../sync-server/src/platform/context.ts';
import { AuditSigner, generateAuditSigningKey } from '../../sync-server/src/platform/auth/audit-signing-key.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { createOrder } from '../../sync-server/src/workflows/create-order.ts';
import { OutboxEmailProvider } from '../../sync-server/src/platform/messaging/email.ts';
import { OutboxSmsProvider } from '../../sync-server/src/modules/sms/index.ts';
import { ChangeFeed } from '../../sync-server/src/platform/change-feed.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import type { LoadMessage, LoadRequest, LoadResult } from './load-process.ts';
import {
  anchoredRate,
  bracketed,
  bracketedBaseline,
  bracketedRatio,
  fmt,
  fmtMedianInterval,
  fmtRatioInterval,
  median,
  medianInterval,
  pct,
  pool,
  printTable,
  type MedianInterval,
} from './report.ts';
import { startBenchServer, type BenchServer } from './server.ts';

/** The order every request creates. */
const ORDER: OrderCreate = {
  lineItems: [
    { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large', 'mod_extra_oat_milk'], quantity: 1 },
    { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 2 },
  ],
  note: 'bench',
};

/** Resolution of the event-loop delay histogram, ms (its timer's interval). */
const LOOP_RESOLUTION_MS = 10;

/** Concurrent connections of the load generator. */
export const CONNECTIONS = 32;

/** Runs the load generator in its own process and returns what it measured. */
function runLoad(request: LoadRequest): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-process.ts', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answer: LoadMessage | undefined;
    child.on('message', (m: LoadMessage) => (answer = m));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (answer?.type === 'result') resolve(answer);
      else reject(new Error(`load generator: ${answer?.type === 'error' ? answer.message : `exited with code ${code}`}`));
    });
    child.send(request);
  });
}

/**
 * Adds `count` orders through the real `createOrder` workflow (the direct service call: lock, price, insert, audit
 * entry in the merchant's hash chain, outbox event), `CONNECTIONS` calls in flight, so each seeded order carries
 * every row the API path writes with it.
 */
async function seedOrders(ctx: AppContext, principal: Principal, count: number): Promise<void> {
  await pool(count, CONNECTIONS, () => createOrder(ctx, principal, ORDER));
}

async function orderCount(db: Db): Promise<number> {
  return Number((await db.query<{ n: number | string }>('SELECT count(*) AS n FROM orders')).rows[0]!.n);
}

/** Runs `fn`, then deletes the API orders it created (those with a later sync sequence), so the store is as before. */
async function andForget<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  const mark = Number((await db.query<{ seq: number | string | null }>('SELECT COALESCE(MAX(sync_seq), 0) AS seq FROM orders')).rows[0]!.seq);
  const result = await fn();
  await db.query(`DELETE FROM orders WHERE source = 'api' AND sync_seq > $1`, [mark]);
  return result;
}

/** The server process's event-loop delay during one load run, ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** One load run: what the load generator measured and the server's event-loop delay meanwhile. */
export type OrderRun = LoadResult & { loop: LoopDelay };

/** The figures at one number of existing orders. */
export interface OrderSizeResult {
  existingOrders: number;
  runs: OrderRun[];
  /** Direct service calls per second at the same concurrency, `rounds + 1`: before and after each run. */
  direct: number[];
}

export interface OrderBenchResult {
  engine: string;
  requests: number;
  rounds: number;
  sizes: OrderSizeResult[];
}

/** Order creation at each of `sizes` existing orders: `rounds` load runs, each bracketed by the direct baseline. */
export async function benchOrders(
  target: DatabaseTarget,
  options: { sizes: readonly number[]; requests: number; direct: number; rounds: number },
): Promise<OrderBenchResult> {
  const server: BenchServer = await startBenchServer(target, { workers: true });
  try {
    const headers = { authorization: `Bearer ${server.staffToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.baseUrl}/api/pos/orders`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': `bench-template-${Date.now()}` },
      body: JSON.stringify(ORDER),
    });
    if (created.status !== 201 && created.status !== 200)
      throw new Error(`orders: creating a first order through the API answered ${created.status}: ${await created.text()}`);

    const idp = await IdentityProvider.load(server.rawDb, server.baseUrl);
    const principal = await idp.verifyStaffToken(server.staffToken);
    const ctx: AppContext = {
      db: server.rawDb,
      config: {
        baseUrl: server.baseUrl,
        staticDir: null,
        minRegisterSchemaVersion: 1,
        streamKeepAliveMs: 15_000,
        allowPrivateWebhookReceivers: false,
        demoSelfPair: false,
        deviceBridgeUrl: null,
        demoOutbox: null,
        trustProxy: false,
      },
      clock: () => new Date(),
      idp,
      sms: new OutboxSmsProvider(),
      email: new OutboxEmailProvider(),
      feed: new ChangeFeed(),
      appRateLimit: new RateLimit(POS_APP_RATE_LIMIT),
      auditSigner: new AuditSigner(generateAuditSigningKey()),
    };
    let runNumber = 0;
    const load = (amount: number): Promise<OrderRun> =>
      andForget(server.rawDb, async () => {
        // The server runs in this process, the load generator in its own: this histogram sees only the server's delay.
        const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
        delay.enable();
        const result = await runLoad({
          url: `${server.baseUrl}/api/pos/orders`,
          method: 'POST',
          headers,
          body: JSON.stringify(ORDER),
          connections: CONNECTIONS,
          amount,
          idempotencyKeyPrefix: `bench-${process.pid}-${runNumber++}`,
        }).finally(() => delay.disable());
        // A figure measured over failed requests means nothing: the bench fails instead of printing it.
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`orders ${target.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors in ${result.requests} requests`);
        // The histogram holds the time between its timer's turns, the resolution included: the delay is what lies beyond.
        const ms = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
        return { ...result, loop: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) } };
      });
    const direct = () =>
      andForget(server.rawDb, async () => {
        const start = performance.now();
        await pool(options.direct, CONNECTIONS, () => createOrder(ctx, principal, ORDER));
        return options.direct / ((performance.now() - start) / 1000);
      });

    await load(Math.min(options.requests, 200)); // warm-up: JIT, plans, connections
    const sizes: OrderSizeResult[] = [];
    for (const size of options.sizes) {
      const existing = await orderCount(server.rawDb);
      if (size > existing) await seedOrders(ctx, principal, size - existing);
      const result = await bracketed(options.rounds, () => load(options.requests), direct);
      sizes.push({ existingOrders: await orderCount(server.rawDb), runs: result.figures, direct: result.baselines });
    }
    return { engine: target.name, requests: options.requests, rounds: options.rounds, sizes };
  } finally {
    await server.close();
  }
}

/** Prints the order-creation table: one column per engine. */
export function printOrderBench(results: readonly OrderBenchResult[]): void {
  if (results.length === 0) return;
  const first = results[0]!;
  const col = (f: (r: OrderBenchResult) => string) => results.map(f);
  const at = (r: OrderBenchResult, i: number) => r.sizes[i]!;
  const med = (s: OrderSizeResult, f: (x: OrderRun) => number) => median(s.runs.map(f));
  const interval = (s: OrderSizeResult, f: (x: OrderRun) => number): MedianInterval => medianInterval(s.runs.map(f));
  const ms = (x: MedianInterval) => fmtMedianInterval(x, (n) => fmt(n, 1));
  const rows: { label: string; values: string[]; aim?: string }[] = [];
  first.sizes.forEach((size, i) => {
    const n = fmt(size.existingOrders);
    rows.push(
      { label: `orders/s at ${n} existing orders`, values: col((r) => fmtMedianInterval(interval(at(r, i), (x) => x.requestsPerSecond))) },
      {
        label: `  latency p50 / p95 / p99, ms`,
        values: col((r) => [med(at(r, i), (x) => x.p50), med(at(r, i), (x) => x.p95), med(at(r, i), (x) => x.p99)].map((v) => fmt(v, 1)).join(' / ')),
      },
      {
        label: `  p99 / p50`,
        values: col((r) =>
          fmt(
            med(at(r, i), (x) => x.p99 / x.p50),
            1,
          ),
        ),
        aim: '≤ 5',
      },
      {
        label: `  baseline: createOrder directly, ${CONNECTIONS} in flight, orders/s`,
        values: col((r) => fmtMedianInterval(bracketedBaseline(at(r, i).direct))),
      },
      { label: `    before/after gap`, values: col((r) => pct(anchoredRate(at(r, i).direct).spread)) },
      {
        label: `  API ÷ direct, per round`,
        values: col((r) =>
          fmtRatioInterval(
            bracketedRatio(
              at(r, i).runs.map((x) => x.requestsPerSecond),
              at(r, i).direct,
            ),
          ),
        ),
      },
      { label: `  server event-loop delay p50, ms`, values: col((r) => ms(interval(at(r, i), (x) => x.loop.p50))) },
      { label: `  server event-loop delay p99, ms`, values: col((r) => ms(interval(at(r, i), (x) => x.loop.p99))), aim: 'p99 ≤ 20 ms' },
      { label: `  server event-loop delay max, ms`, values: col((r) => ms(interval(at(r, i), (x) => x.loop.max))) },
    );
  });
  if (first.sizes.length > 1) {
    const last = first.sizes.length - 1;
    rows.push({
      label: `orders/s at ${fmt(first.sizes[last]!.existingOrders)} / at ${fmt(first.sizes[0]!.existingOrders)} existing`,
      values: col((r) => pct(med(at(r, last), (x) => x.requestsPerSecond) / med(at(r, 0), (x) => x.requestsPerSecond))),
      aim: '≥ 80 %',
    });
  }
  printTable(
    `Orders — POST /api/pos/orders, ${first.requests} requests at concurrency ${CONNECTIONS} (load generator in its own process), ` +
      `median (95 % interval) of ${first.rounds} rounds`,
    results.map((r) => r.engine),
    rows,
  );
}
