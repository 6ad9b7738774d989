import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { OrderCreate } from '../../core/index.ts';
import { POS_APP_RATE_LIMIT } from '../../sync-server/src/app.ts';
import type { AppContext } from '../../sync-server/src/platform/context.ts';
import { RateLimit } from '../../sync-server/src/platform/rate-limit.ts';
import { createOrder } from '../../sync-server/src/workflows/create-order.ts';
import { OutboxEmailProvider } from '../../sync-server/src/platform/messaging/email.ts';
import { OutboxSmsProvider } from '../../sync-server/src/platform/messaging/sms.ts';
import { ChangeFeed } from '../../sync-server/src/platform/change-feed.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import { startTestServer } from '../support/server.ts';

/** The order every request creates: catalog references only, priced by the server (DESIGN §7). */
const ORDER: OrderCreate = {
  lineItems: [
    { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large', 'mod_extra_oat_milk'], quantity: 1 },
    { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 2 },
  ],
  note: 'bench',
};

/** Figures of one run: API over HTTP at a concurrency, beside the same service call made directly in sequence. */
export interface OrderBenchResult {
  engine: string;
  connections: number;
  requests: number;
  non2xx: number;
  requestsPerSecond: number;
  p99Ms: number;
  directPerSecond: number;
}

/**
 * `POST /api/pos/orders` with autocannon at `connections` concurrent connections for `seconds`, each request with a
 * fresh Idempotency-Key; then `createOrder` (the same database transaction: lock, price from the catalog, insert,
 * audit, outbox event) called directly, one after another, for the same number of orders.
 */
export async function benchOrders(target: DatabaseTarget, options: { connections?: number; seconds?: number } = {}): Promise<OrderBenchResult> {
  const connections = options.connections ?? 32;
  const seconds = options.seconds ?? 10;
  const server = await startTestServer({ target, listen: true, staticDir: null });
  try {
    let n = 0;
    const result = await autocannon({
      url: `${server.baseUrl}/api/pos/orders`,
      connections,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          headers: { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `bench-${process.pid}-${n++}` }, body: JSON.stringify(ORDER) }),
        },
      ],
    });

    const { IdentityProvider } = await import('../../sync-server/src/platform/auth/identity.ts');
    const idp = await IdentityProvider.load(server.db, server.baseUrl);
    const principal = await idp.verifyStaffToken(server.credentials.staffToken);
    const ctx: AppContext = {
      db: server.db,
      config: { baseUrl: server.baseUrl, staticDir: null, minRegisterSchemaVersion: 1, streamKeepAliveMs: 15_000, allowPrivateWebhookReceivers: false },
      clock: () => new Date(),
      idp,
      sms: new OutboxSmsProvider(),
      email: new OutboxEmailProvider(),
      feed: new ChangeFeed(),
      appRateLimit: new RateLimit(POS_APP_RATE_LIMIT),
    };
    const directCount = Math.max(200, Math.min(result.requests.total, 2_000));
    const start = performance.now();
    for (let i = 0; i < directCount; i += 1) await createOrder(ctx, principal, ORDER);
    const directPerSecond = directCount / ((performance.now() - start) / 1000);
    return {
      engine: server.db.engine,
      connections,
      requests: result.requests.total,
      non2xx: result.non2xx,
      requestsPerSecond: result.requests.average,
      p99Ms: result.latency.p99,
      directPerSecond,
    };
  } finally {
    await server.close();
  }
}

/** Prints {@link benchOrders}. */
export async function printOrderBench(target: DatabaseTarget): Promise<void> {
  const r = await benchOrders(target);
  // A figure measured over failed requests means nothing: the bench fails instead of printing it.
  if (r.non2xx > 0) throw new Error(`orders ${r.engine}: ${r.non2xx} of ${r.requests} requests did not answer 2xx; the rate is not a measure of order creation`);
  console.log(
    `orders ${r.engine.padEnd(8)} POST /api/pos/orders ×${r.connections} connections: ${r.requestsPerSecond.toFixed(0)} req/s, p99 ${r.p99Ms} ms ` +
      `(${r.requests} requests, ${r.non2xx} non-2xx) | baseline: the same transaction called directly, one at a time, ${r.directPerSecond.toFixed(0)} orders/s`,
  );
}
