/**
 * Order-creation bench: `POST /api/pos/orders` (catalog references only, priced by the server) against a
 * store that already holds 1 000 and then 10 000 orders (ORDER_SIZES, default "1000,10000"), so a cost that grows with
 * the number of orders shows. The load generator (autocannon) runs in its own process (test/bench/load-process.ts),
 * never in the server's event loop.
 *
 * Existing orders are seeded raw: copies of one order created through the API, in the same back-office register,
 * with fresh ids, following receipt numbers and sync sequences (only `orders` rows; no audit or outbox rows). After
 * every measurement the orders it created are deleted again, so each run starts from the same number of orders.
 *
 * Lines of the table, per number of existing orders (median over BENCH_ROUNDS rounds, default 3):
 * - orders/s: ORDER_REQUESTS requests (default 500) at concurrency 32, each with a fresh Idempotency-Key, divided by
 *   the run's duration; then the rate at the largest size as a share of the rate at the smallest (aim ≥ 80 %).
 * - p50 / p95 / p99 latency, ms, over every answer of the run, and p99 / p50 (aim ≤ 5).
 * - baseline: the same service call (`createOrder`: lock, price from the catalog, insert, audit, outbox event) made
 *   directly, one after another, ORDER_DIRECT times (default 200), measured before and after every run; the largest
 *   before/after gap is printed.
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ulid } from 'ulid';
import { formatReceiptNumber, parseReceiptNumber, type OrderCreate } from '../../core/index.ts';
import { POS_APP_RATE_LIMIT } from '../../sync-server/src/app.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';
import type { AppContext } from '../../sync-server/src/platform/context.ts';
import { AuditSigner, generateAuditSigningKey } from '../../sync-server/src/platform/auth/audit-signing-key.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { createOrder } from '../../sync-server/src/workflows/create-order.ts';
import { OutboxEmailProvider } from '../../sync-server/src/platform/messaging/email.ts';
import { OutboxSmsProvider } from '../../sync-server/src/platform/messaging/sms.ts';
import { ChangeFeed } from '../../sync-server/src/platform/change-feed.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import type { LoadMessage, LoadRequest, LoadResult } from './load-process.ts';
import { anchoredRate, bracketed, fmt, median, pct, printTable } from './report.ts';
import { startBenchServer, type BenchServer } from './server.ts';

/** The order every request creates. */
const ORDER: OrderCreate = {
  lineItems: [
    { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large', 'mod_extra_oat_milk'], quantity: 1 },
    { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 2 },
  ],
  note: 'bench',
};

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
 * Adds `count` orders raw: copies of `templateId` (same merchant, register, lines, state), each with a fresh id, the
 * register's next receipt numbers, a fresh sync sequence and an earlier creation time; 1 000 per statement.
 */
async function seedOrders(db: Db, templateId: string, count: number): Promise<void> {
  const { rows: columns } = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'orders' AND is_generated = 'NEVER' ORDER BY ordinal_position`,
  );
  const template = (
    await db.query<{ register_id: string; created_at: Date | string }>('SELECT register_id, created_at FROM orders WHERE id = $1', [templateId])
  ).rows[0]!;
  const last = (
    await db.query<{ receipt_number: string }>(
      'SELECT receipt_number FROM orders WHERE register_id = $1 ORDER BY length(receipt_number) DESC, receipt_number DESC LIMIT 1',
      [template.register_id],
    )
  ).rows[0]!;
  const parsed = parseReceiptNumber(last.receipt_number)!;
  // The register's receipt counter (receipt_sequences, orders module) may be ahead of its stored orders (the bench
  // deletes the orders a measurement made): seed after both, then move the counter past the seeded numbers.
  const counter = (
    await db.query<{ last_seq: number | string }>('SELECT last_seq FROM receipt_sequences WHERE register_id = $1', [template.register_id])
  ).rows[0];
  const base = Math.max(parsed.sequence, Number(counter?.last_seq ?? 0));
  const oldest = new Date(template.created_at).getTime() - count * 1000;
  const computed: Record<string, string> = {
    id: 's.id',
    receipt_number: 's.receipt',
    sync_seq: `nextval('sync_seq')`,
    created_at: 's.created::timestamptz',
    updated_at: 's.created::timestamptz',
    data: `t.data || jsonb_build_object('id', s.id, 'receiptNumber', s.receipt, 'createdAt', s.created)`,
  };
  const names = columns.map((c) => `"${c.column_name}"`).join(', ');
  const values = columns.map((c) => computed[c.column_name] ?? `t."${c.column_name}"`).join(', ');
  for (let done = 0; done < count; done += 1_000) {
    const n = Math.min(1_000, count - done);
    const ids = Array.from({ length: n }, () => `ord_${ulid()}`);
    const receipts = Array.from({ length: n }, (_, i) => formatReceiptNumber(parsed.registerNumber, base + done + i + 1));
    const created = Array.from({ length: n }, (_, i) => new Date(oldest + (done + i) * 1000).toISOString());
    await db.query(
      `INSERT INTO orders (${names}) SELECT ${values} FROM orders t, unnest($2::text[], $3::text[], $4::text[]) AS s(id, receipt, created) WHERE t.id = $1`,
      [templateId, ids, receipts, created],
    );
  }
  await db.query('UPDATE receipt_sequences SET last_seq = GREATEST(last_seq, $2) WHERE register_id = $1', [template.register_id, base + count]);
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

/** The figures at one number of existing orders. */
export interface OrderSizeResult {
  existingOrders: number;
  runs: LoadResult[];
  /** Direct service calls per second, measured before and after each run. */
  direct: { median: number; spread: number };
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
      throw new Error(`orders: creating the template order answered ${created.status}: ${await created.text()}`);
    const templateId = ((await created.json()) as { id: string }).id;

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
    const load = (amount: number) =>
      andForget(server.rawDb, async () => {
        const result = await runLoad({
          url: `${server.baseUrl}/api/pos/orders`,
          method: 'POST',
          headers,
          body: JSON.stringify(ORDER),
          connections: CONNECTIONS,
          amount,
          idempotencyKeyPrefix: `bench-${process.pid}-${runNumber++}`,
        });
        // A figure measured over failed requests means nothing: the bench fails instead of printing it.
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`orders ${target.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors in ${result.requests} requests`);
        return result;
      });
    const direct = () =>
      andForget(server.rawDb, async () => {
        const start = performance.now();
        for (let i = 0; i < options.direct; i += 1) await createOrder(ctx, principal, ORDER);
        return options.direct / ((performance.now() - start) / 1000);
      });

    await load(Math.min(options.requests, 200)); // warm-up: JIT, plans, connections
    const sizes: OrderSizeResult[] = [];
    for (const size of options.sizes) {
      const existing = await orderCount(server.rawDb);
      if (size > existing) await seedOrders(server.rawDb, templateId, size - existing);
      const result = await bracketed(options.rounds, () => load(options.requests), direct);
      sizes.push({ existingOrders: await orderCount(server.rawDb), runs: result.figures, direct: anchoredRate(result.baselines) });
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
  const med = (s: OrderSizeResult, f: (x: LoadResult) => number) => median(s.runs.map(f));
  const rows: { label: string; values: string[]; aim?: string }[] = [];
  first.sizes.forEach((size, i) => {
    const n = fmt(size.existingOrders);
    rows.push(
      { label: `orders/s at ${n} existing orders`, values: col((r) => fmt(med(at(r, i), (x) => x.requestsPerSecond))) },
      {
        label: `  latency p50 / p95 / p99, ms`,
        values: col((r) =>
          [50, 95, 99]
            .map((p) =>
              fmt(
                med(at(r, i), (x) => (p === 50 ? x.p50 : p === 95 ? x.p95 : x.p99)),
                1,
              ),
            )
            .join(' / '),
        ),
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
      { label: `  baseline: createOrder directly, orders/s`, values: col((r) => fmt(at(r, i).direct.median)) },
      { label: `    before/after gap`, values: col((r) => pct(at(r, i).direct.spread)) },
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
    `Orders — POST /api/pos/orders, ${first.requests} requests at concurrency ${CONNECTIONS} (load generator in its own process), median of ${first.rounds} rounds`,
    results.map((r) => r.engine),
    rows,
  );
}
