/**
 * Scale-out: two sync-server instances — each with its own connection pool, LISTEN connection, webhook
 * worker and rate limiter — on one PostgreSQL database, reached over real HTTP:
 * - two registers syncing to different instances converge: each one's push reaches the other's SSE stream (through
 *   LISTEN/NOTIFY) and pull;
 * - the webhook outbox is delivered once per attempt while both instances' workers run (deliveries are claimed with
 *   `FOR UPDATE SKIP LOCKED` and a lease): a real receiver counts every POST;
 * - the app rate limit is one quota across the instances (`RateLimiterPostgres`): an app's 120 requests spent on both,
 *   the 121st is a 429 on either.
 * Needs TEST_DATABASE_URL (CI sets it); without it the PostgreSQL suite is skipped, saying so. On PGlite the memory
 * store stays: checked without PostgreSQL.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, POS_APP_RATE_LIMIT } from '../../sync-server/src/app.ts';
import { openPgliteDb, openPostgresDb, type Db } from '../../sync-server/src/platform/db/db.ts';
import { migrate } from '../../sync-server/src/platform/db/migrate.ts';
import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES, type DemoSeed } from '../../sync-server/src/modules/merchants/seed.ts';
import { seedDemoStore } from '../../sync-server/src/workflows/demo-seed.ts';
import { WEBHOOK_EVENT_ID_HEADER } from '../../core/index.ts';
import { createFreshPostgresDatabase } from '../support/databases.ts';
import { buildSale } from '../support/sales.ts';
import { syncClient, type SyncDoc } from '../support/sync-client.ts';
import { enrollRegister, type EnrolledRegister } from '../support/enroll.ts';
import { IdentityProvider } from '../../sync-server/src/platform/auth/identity.ts';

const DATABASE_URL = process.env.TEST_DATABASE_URL;
/** One public address for both instances, as behind a load balancer: staff tokens name it as their issuer. */
const PUBLIC_URL = 'http://register.test';
const catalog = { items: DEMO_CATALOG_ITEMS, taxRates: DEMO_TAX_RATES };

type Doc = SyncDoc;

interface Instance {
  app: FastifyInstance;
  db: Db;
  /** Where this instance listens (`http://127.0.0.1:<port>`). */
  url: string;
}

async function startInstance(databaseUrl: string): Promise<Instance> {
  const db = await openPostgresDb(databaseUrl, { max: 5 });
  const app = await buildApp({
    db,
    config: { baseUrl: PUBLIC_URL, staticDir: null, streamKeepAliveMs: 200, allowPrivateWebhookReceivers: true },
    webhooks: { pollIntervalMs: 10, retryDelaysMs: [50], timeoutMs: 5000 },
    recurringInvoices: { enabled: false },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, db, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** An SSE stream's `data:` payloads, one at a time. */
async function openStream(url: string): Promise<{ next(): Promise<string>; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) return data;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    },
    close() {
      controller.abort();
      void reader.cancel().catch(() => undefined);
    },
  };
}

/** Waits for `check` to hold, polling every 50 ms; fails after `timeoutMs` (a bound, not a measurement). */
async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const SUITE = DATABASE_URL
  ? 'two instances on one PostgreSQL'
  : 'two instances on one PostgreSQL — SKIPPED: TEST_DATABASE_URL is unset (CI sets it; e.g. postgres://postgres@127.0.0.1:5432/postgres)';
describe.skipIf(!DATABASE_URL)(SUITE, () => {
  let drop: () => Promise<void>;
  let seed: DemoSeed;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    const fresh = await createFreshPostgresDatabase(DATABASE_URL!);
    drop = fresh.drop;
    const setup = await openPostgresDb(fresh.url, { max: 1 });
    try {
      await migrate(setup);
      seed = await seedDemoStore(setup);
    } finally {
      await setup.close();
    }
    a = await startInstance(fresh.url);
    b = await startInstance(fresh.url);
  }, 60_000);

  afterAll(async () => {
    for (const instance of [a, b]) {
      await instance?.app.close();
      await instance?.db.close();
    }
    await drop?.();
  });

  /** The demo owner's staff token (issued by the identity provider the instances share). */
  const ownerToken = async (): Promise<string> =>
    (await IdentityProvider.load(a.db, PUBLIC_URL)).issueStaffToken({ staffId: seed.staffId, merchantId: seed.merchantId, role: seed.staffRole });
  /** A register enrolled through `instance` (pairing code, then the exchange), with its credential. */
  const pair = async (instance: Instance): Promise<EnrolledRegister> => enrollRegister({ baseUrl: instance.url }, await ownerToken());
  /** A single-use stream ticket from `instance` for `token`. */
  const ticketOf = async (instance: Instance, token: string): Promise<string> => {
    const res = await fetch(`${instance.url}/api/sync/stream-tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { ticket: string }).ticket;
  };
  const push = async (instance: Instance, token: string, collection: string, docs: unknown[]) => {
    const answer = await syncClient(instance.url, token).push(collection, docs);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([]);
  };
  const pullAll = (instance: Instance, token: string, collection: string): Promise<Doc[]> => syncClient(instance.url, token).pullAll(collection);

  it("two registers syncing to different instances converge: pushes reach the other instance's stream and pull", async () => {
    const one = await pair(a);
    const two = await pair(b);
    expect(two.registerNumber).not.toBe(one.registerNumber);
    const streamOnA = await openStream(`${a.url}/api/sync/orders/stream?ticket=${await ticketOf(a, one.registerToken)}`);
    const streamOnB = await openStream(`${b.url}/api/sync/orders/stream?ticket=${await ticketOf(b, two.registerToken)}`);
    try {
      expect(await streamOnA.next()).toBe('"RESYNC"');
      expect(await streamOnB.next()).toBe('"RESYNC"');

      // Register one sells on instance A; register two, on B, hears of it through its stream.
      const fromOne = buildSale({ register: one, sequence: 1, catalog });
      // The register pushes the order only; the server derives its journal transaction (journal-transactions is pull-only).
      await push(a, one.registerToken, 'orders', [fromOne.order]);
      const heardOnB = JSON.parse(await streamOnB.next()) as { documents: Doc[] };
      expect(heardOnB.documents.map((d) => d.id)).toContain(fromOne.order.id);

      // And the other way round.
      const fromTwo = buildSale({ register: two, sequence: 1, catalog, method: 'card' });
      await push(b, two.registerToken, 'orders', [fromTwo.order]);
      let heardOnA: string[] = [];
      while (!heardOnA.includes(fromTwo.order.id)) heardOnA = (JSON.parse(await streamOnA.next()) as { documents: Doc[] }).documents.map((d) => d.id);

      // Both pull the same orders and journal transactions, whichever instance they ask.
      for (const collection of ['orders', 'journal-transactions']) {
        const onA = (await pullAll(a, one.registerToken, collection)).map((d) => `${d.id}@${d.syncSeq}`).sort();
        const onB = (await pullAll(b, two.registerToken, collection)).map((d) => `${d.id}@${d.syncSeq}`).sort();
        expect(onB, collection).toEqual(onA);
      }
      const orderIds = (await pullAll(b, two.registerToken, 'orders')).map((d) => d.id);
      expect(orderIds).toEqual(expect.arrayContaining([fromOne.order.id, fromTwo.order.id]));
    } finally {
      streamOnA.close();
      streamOnB.close();
    }
  }, 60_000);

  it('delivers the webhook outbox once per attempt while both instances run workers', async () => {
    // A real receiver: counts every POST per event id; refuses each event's first attempt every third event, so
    // retries are claimed too; answers after a short pause, so both workers have deliveries in flight at once.
    const received = new Map<string, number>();
    let n = 0;
    const refuseFirst = new Set<string>();
    const receiver: Server = createServer((req: IncomingMessage, res) => {
      req.resume();
      req.on('end', () => {
        const id = String(req.headers[WEBHOOK_EVENT_ID_HEADER] ?? '');
        const count = (received.get(id) ?? 0) + 1;
        received.set(id, count);
        if (count === 1 && n++ % 3 === 0) refuseFirst.add(id);
        setTimeout(() => {
          res.statusCode = count === 1 && refuseFirst.has(id) ? 503 : 204;
          res.end();
        }, 20);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const staff = await pair(a);
      const subscribed = await fetch(`${a.url}/api/pos/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await ownerToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
          eventTypes: ['order.created', 'order.paid'],
        }),
      });
      expect(subscribed.status).toBe(201);
      const { id: subscriptionId } = (await subscribed.json()) as { id: string };

      // Sales pushed to both instances: each makes events in the outbox, which both workers drain.
      const sales = Array.from({ length: 24 }, (_, i) => buildSale({ register: staff, sequence: 100 + i, catalog }));
      await Promise.all(sales.map((sale, i) => push(i % 2 === 0 ? a : b, staff.registerToken, 'orders', [sale.order])));

      const deliveries = async () =>
        (
          await a.db.query<{ event_id: string; status: string; attempts: number }>(
            'SELECT event_id, status, attempts FROM webhook_deliveries WHERE subscription_id = $1',
            [subscriptionId],
          )
        ).rows;
      await eventually(async () => {
        const rows = await deliveries();
        return rows.length > 0 && rows.length >= sales.length && rows.every((r) => r.status !== 'pending');
      }, 60_000);
      const rows = await deliveries();
      expect(rows.every((r) => r.status === 'succeeded')).toBe(true);
      // One delivery per event, and the receiver saw exactly as many POSTs of an event as attempts were recorded.
      expect(new Set(rows.map((r) => r.event_id)).size).toBe(rows.length);
      const attemptRows = (
        await a.db.query<{ delivery_id: string; attempt: number }>(
          'SELECT a.delivery_id, a.attempt FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.subscription_id = $1',
          [subscriptionId],
        )
      ).rows;
      for (const row of rows) {
        const seen = received.get(row.event_id) ?? 0;
        expect(seen, row.event_id).toBe(Number(row.attempts));
        expect(seen, row.event_id).toBe(refuseFirst.has(row.event_id) ? 2 : 1);
      }
      expect(attemptRows.length).toBe([...received.values()].reduce((x, y) => x + y, 0));
      expect(refuseFirst.size).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  }, 120_000);

  it('shares the app rate limit: 120 requests spent across both instances, the 121st is a 429 on either', async () => {
    const headers = { authorization: `Bearer ${seed.appToken}` };
    const remaining: number[] = [];
    for (let i = 0; i < POS_APP_RATE_LIMIT.quota; i++) {
      const res = await fetch(`${(i % 2 === 0 ? a : b).url}/api/pos/catalog`, { headers });
      expect(res.status, `request ${i + 1}`).toBe(200);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
      await res.arrayBuffer();
    }
    // One counter: the remaining quota falls by one per request whichever instance answers.
    expect(remaining).toEqual(Array.from({ length: POS_APP_RATE_LIMIT.quota }, (_, i) => POS_APP_RATE_LIMIT.quota - 1 - i));
    for (const instance of [a, b]) {
      const res = await fetch(`${instance.url}/api/pos/catalog`, { headers });
      expect(res.status).toBe(429);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ status: 429, 'violated-policies': ['app'] });
    }
    // The counter lives in PostgreSQL.
    const { rows } = await a.db.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = $1', [
      `rl_app:${seed.merchantId}:${seed.appId}`,
    ]);
    expect(Number(rows[0]?.points)).toBeGreaterThanOrEqual(POS_APP_RATE_LIMIT.quota);
  }, 60_000);
});

describe('the rate limit on PGlite', () => {
  it('stays in memory: one process, nothing written to rate_limits', async () => {
    const db = await openPgliteDb();
    try {
      await migrate(db);
      const seeded = await seedDemoStore(db);
      const app = await buildApp({
        db,
        config: { baseUrl: PUBLIC_URL, staticDir: null },
        webhooks: { enabled: false },
        recurringInvoices: { enabled: false },
      });
      try {
        const res = await app.inject({ method: 'GET', url: '/api/pos/catalog', headers: { authorization: `Bearer ${seeded.appToken}` } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-remaining']).toBe(String(POS_APP_RATE_LIMIT.quota - 1));
        expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM rate_limits')).rows[0]!.n).toBe(0);
      } finally {
        await app.close();
      }
    } finally {
      await db.close();
    }
  });
});
