import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../../core/index.ts';
import type { Db } from '../../sync-server/src/platform/db/db.ts';
import { WebhookWorker } from '../../sync-server/src/modules/webhooks/service.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The webhook delivery log around a crash ("attempts=1 for events delivered twice"): every attempt is
 * recorded before it is sent, so a worker stopped between sending and recording leaves an attempt whose outcome is
 * `unknown`, and the next worker's retry counts as the second attempt. A real HTTP receiver on 127.0.0.1 accepts the
 * request; the worker's database handle dies the moment the receiver has it (the process killed between send and
 * record); a new worker over the same database takes over once its lease and retry time have passed.
 */

/** The database as a worker process sees it: usable until `kill()`, then every statement fails as a dead process's would. */
function killable(db: Db): { db: Db; kill(): void } {
  let dead = false;
  const check = () => {
    if (dead) throw new Error('worker process killed');
  };
  return {
    kill: () => {
      dead = true;
    },
    db: {
      engine: db.engine,
      query: async (sql, params) => (check(), db.query(sql, params)),
      exec: async (sql) => (check(), db.exec(sql)),
      transaction: async (fn) => (check(), db.transaction(fn)),
      close: () => db.close(),
    },
  };
}

describe.each(databaseTargets())('webhook attempts around a crash on $name', (target) => {
  let server: TestServer;
  let receiver: Server;
  let receiverUrl = '';
  let now = new Date('2026-05-04T10:00:00.000Z');
  /** Requests the receiver accepted, per path: event ids. */
  const received = new Map<string, string[]>();
  /** Called when the receiver has a request, before it answers 204. */
  let onReceive: (path: string) => void = () => undefined;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        received.set(path, [...(received.get(path) ?? []), String(req.headers['x-service-event-id'])]);
        onReceive(path);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // No worker of the server's own: the test runs each worker "process".
    server = await startTestServer({ target, staticDir: null, clock: () => now, webhooks: { enabled: false } });
  });
  afterAll(async () => {
    await server?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()) ?? resolve());
  });

  const staff = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${server.credentials.staffToken}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const deliveriesOf = async (subscriptionId: string) => {
    const res = await staff('GET', `/api/pos/webhooks/${subscriptionId}/deliveries`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: WebhookDelivery[] }>().data;
  };
  const worker = (db: Db, retryDelaysMs: number[]) =>
    new WebhookWorker(db, () => now, { retryDelaysMs, timeoutMs: 5_000, allowPrivateNetworks: true });
  const subscribe = async (path: string) => {
    // Events from before (the demo seed's) are fanned out and their deliveries ended first: the receiver then sees
    // this test's event alone.
    for (let r = await worker(server.db, []).runOnce(); r.dispatched + r.attempted > 0; r = await worker(server.db, []).runOnce());
    const res = await staff('POST', '/api/pos/webhooks', { url: `${receiverUrl}${path}`, eventTypes: ['catalog.updated'] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  };

  it('a worker killed between send and record leaves attempt 1 with outcome unknown; the redelivery is attempt 2', async () => {
    const subscriptionId = await subscribe('/crash');
    expect((await staff('PATCH', '/api/pos/catalog/items/itm_latte', { name: 'Latte (crash)' })).statusCode).toBe(200);

    const first = killable(server.db);
    onReceive = (path) => path === '/crash' && first.kill();
    await expect(worker(first.db, [60_000, 240_000, 960_000]).runOnce()).rejects.toThrow('worker process killed');
    onReceive = () => undefined;
    expect(received.get('/crash')).toHaveLength(1);

    const [afterCrash] = await deliveriesOf(subscriptionId);
    expect(afterCrash).toMatchObject({ status: 'pending', attempts: 1 });
    expect(afterCrash!.attemptLog).toEqual([
      { attempt: 1, startedAt: now.toISOString(), outcome: 'unknown', durationMs: null, statusCode: null, error: null },
    ]);

    // A new worker at once: the attempt's lease and retry time hold it back (no third request to the receiver).
    const second = worker(server.db, [60_000, 240_000, 960_000]);
    await second.runOnce();
    expect(received.get('/crash')).toHaveLength(1);
    // After the first retry delay: delivered again, and counted as the second attempt.
    now = new Date(now.getTime() + 61_000);
    await second.runOnce();
    const ids = received.get('/crash')!;
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]); // the same event: receivers dedupe on x-service-event-id

    const [after] = await deliveriesOf(subscriptionId);
    expect(after).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 204, lastError: null });
    expect(after!.attemptLog.map((a) => [a.attempt, a.outcome, a.statusCode])).toEqual([
      [1, 'unknown', null],
      [2, 'succeeded', 204],
    ]);
    expect(after!.attemptLog[1]!.durationMs).toEqual(expect.any(Number));
  });

  it('a crash during the last allowed attempt ends the delivery failed, outcome unknown, without sending more', async () => {
    const subscriptionId = await subscribe('/last');
    expect((await staff('PATCH', '/api/pos/catalog/items/itm_latte', { name: 'Latte (last)' })).statusCode).toBe(200);
    const first = killable(server.db);
    onReceive = (path) => path === '/last' && first.kill();
    // No retries: the first attempt is the last one allowed.
    await expect(worker(first.db, []).runOnce()).rejects.toThrow('worker process killed');
    onReceive = () => undefined;
    now = new Date(now.getTime() + 120_000);
    await worker(server.db, []).runOnce();
    expect(received.get('/last')).toHaveLength(1);
    const [delivery] = await deliveriesOf(subscriptionId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining('unknown') });
    expect(delivery!.attemptLog.map((a) => a.outcome)).toEqual(['unknown']);
    // It can be redelivered by hand, as any ended delivery.
    const again = await staff('POST', `/api/pos/webhooks/${subscriptionId}/deliveries/${delivery!.id}/redeliver`, {});
    expect(again.statusCode, again.body).toBe(202);
  });
});
