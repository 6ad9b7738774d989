import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyWebhookSignature, type WebhookDelivery, type WebhookEvent } from '../../core/index.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * A real webhook receiver on 127.0.0.1, written the way docs/api.md asks receivers to be: it verifies
 * `x-service-signature` against the raw body in constant time and answers 401 (processing nothing) on a mismatch.
 * Each path has its own secret and behaviour.
 */
class Receiver {
  private server: Server | undefined;
  url = '';
  /** Events accepted (signature valid) per path. */
  readonly accepted = new Map<string, { headers: IncomingHttpHeaders; raw: string; event: WebhookEvent }[]>();
  /** Requests refused with 401 per path. */
  readonly refused = new Map<string, number>();
  private readonly routes = new Map<string, { secret: string; behaviour: 'ok' | 'flaky' | 'down' | 'hang'; calls: number }>();

  route(path: string, secret: string, behaviour: 'ok' | 'flaky' | 'down' | 'hang' = 'ok'): string {
    this.routes.set(path, { secret, behaviour, calls: 0 });
    return `${this.url}${path}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const route = this.routes.get(req.url ?? '');
        if (!route) return void res.writeHead(404).end();
        route.calls += 1;
        if (route.behaviour === 'hang') return; // never answers: the sender's timeout must fire
        const raw = Buffer.concat(chunks);
        const expected = createHmac('sha256', route.secret).update(raw).digest();
        const sent = Buffer.from(String(req.headers['x-service-signature'] ?? ''), 'hex');
        if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
          this.refused.set(req.url!, (this.refused.get(req.url!) ?? 0) + 1);
          return void res.writeHead(401).end('bad signature');
        }
        if (route.behaviour === 'down' || (route.behaviour === 'flaky' && route.calls <= 2)) return void res.writeHead(503).end();
        const list = this.accepted.get(req.url!) ?? [];
        list.push({ headers: req.headers, raw: raw.toString('utf8'), event: JSON.parse(raw.toString('utf8')) as WebhookEvent });
        this.accepted.set(req.url!, list);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

describe.each(databaseTargets())('webhooks on $name', (target) => {
  let server: TestServer;
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
    server = await startTestServer({ target, staticDir: null, webhooks: { pollIntervalMs: 20, retryDelaysMs: [40, 80, 120], timeoutMs: 400 } });
  });
  afterAll(async () => {
    await server?.close();
    await receiver.stop();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, token = server.credentials.appToken) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const subscribe = async (body: unknown, token?: string) => {
    const res = await call('POST', '/api/pos/webhooks', body, token);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string; secret: string; appId: string | null; eventTypes: string[] }>();
  };
  const deliveries = async (subscriptionId: string, token?: string) => {
    const res = await call('GET', `/api/pos/webhooks/${subscriptionId}/deliveries`, undefined, token);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: WebhookDelivery[] }>().data;
  };
  const renameLatte = (name: string) => call('PATCH', '/api/pos/catalog/items/itm_latte', { name }, server.credentials.staffToken);
  // One statement, so one snapshot: two would miss an event the worker fans out between them (dispatched, and its
  // delivery created after the pending count).
  const settle = () =>
    vi.waitFor(
      async () => {
        const { rows } = await server.db.query<{ pending: number | string; undispatched: number | string }>(
          `SELECT (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending') AS pending, (SELECT COUNT(*) FROM event_outbox WHERE dispatched_at IS NULL) AS undispatched`,
        );
        expect(Number(rows[0]!.pending) + Number(rows[0]!.undispatched)).toBe(0);
      },
      { timeout: 15_000, interval: 50 },
    );

  it('manages subscriptions: apps their own, staff all; the secret is shown once; bad input is refused', async () => {
    const app = await subscribe({ url: `${receiver.url}/none`, eventTypes: ['order.created'], description: 'orders' });
    expect(app.secret).toBe(server.credentials.webhookSecret); // the demo app's provisioned secret
    expect(app.appId).toBe(server.credentials.appId);
    const staff = await subscribe({ url: `${receiver.url}/none`, eventTypes: ['order.paid'] }, server.credentials.staffToken);
    expect(staff.secret).toMatch(/^whsec_/);
    expect(staff.appId).toBeNull();

    const got = await call('GET', `/api/pos/webhooks/${app.id}`);
    expect(got.json()).not.toHaveProperty('secret');
    expect(got.json()).toMatchObject({ id: app.id, enabled: true, eventTypes: ['order.created'], description: 'orders' });
    expect((await call('GET', `/api/pos/webhooks/${staff.id}`)).statusCode).toBe(404);
    expect((await call('GET', '/api/pos/webhooks')).json().data.map((s: { id: string }) => s.id)).toEqual([app.id]);
    const all = (await call('GET', '/api/pos/webhooks', undefined, server.credentials.staffToken)).json().data.map((s: { id: string }) => s.id);
    expect(all).toEqual([staff.id, app.id]);

    const count = async () => Number((await server.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM webhook_subscriptions')).rows[0]!.n);
    const before = await count();
    const bad: [unknown, string[]][] = [
      [{ url: 'ftp://example.com/x', eventTypes: ['order.paid'] }, ['url']],
      [{ url: `${receiver.url}/x`, eventTypes: ['order.shipped'] }, ['eventTypes.0']],
      [{ url: `${receiver.url}/x`, eventTypes: [], secret: 'mine' }, ['eventTypes', 'secret']],
    ];
    for (const [body, paths] of bad) {
      const res = await call('POST', '/api/pos/webhooks', body);
      expect(res.statusCode).toBe(400);
      expect(
        res
          .json()
          .errors.map((e: { path: string }) => e.path)
          .sort(),
      ).toEqual(paths);
    }
    expect(await count()).toBe(before);
    const patched = await call('PATCH', `/api/pos/webhooks/${app.id}`, { eventTypes: ['order.created', 'order.paid'], enabled: false });
    expect(patched.json()).toMatchObject({ eventTypes: ['order.created', 'order.paid'], enabled: false });
    expect((await call('DELETE', `/api/pos/webhooks/${staff.id}`, undefined, server.credentials.staffToken)).statusCode).toBe(204);
    expect((await call('DELETE', `/api/pos/webhooks/${app.id}`)).statusCode).toBe(204);
    expect((await call('GET', '/api/pos/webhooks', undefined, server.credentials.staffToken)).json().data).toEqual([]);
    const noScope = await server.app.inject({ method: 'GET', url: '/api/pos/webhooks' });
    expect(noScope.statusCode).toBe(401);
  });

  it('delivers a signed catalog.updated event to the subscriber of that type only, at once', async () => {
    const catalogUrl = receiver.route('/catalog', server.credentials.webhookSecret);
    const ordersUrl = receiver.route('/orders', server.credentials.webhookSecret);
    const sub = await subscribe({ url: catalogUrl, eventTypes: ['catalog.updated'] });
    await subscribe({ url: ordersUrl, eventTypes: ['order.created'] });
    expect((await renameLatte('Caffè latte')).statusCode).toBe(200);
    await settle();

    const got = receiver.accepted.get('/catalog') ?? [];
    expect(got).toHaveLength(1);
    const { headers, raw, event } = got[0]!;
    expect(event).toMatchObject({
      type: 'catalog.updated',
      merchantId: server.credentials.merchantId,
      data: { object: { id: 'itm_latte', name: 'Caffè latte' } },
    });
    expect(event.id).toMatch(/^evt_/);
    expect(Object.keys(event)).toEqual(['id', 'type', 'createdAt', 'merchantId', 'data']);
    expect(headers['x-service-event-id']).toBe(event.id);
    expect(Number(headers['x-service-timestamp'])).toBeGreaterThan(1_600_000_000);
    expect(headers['content-type']).toBe('application/json');
    expect(await verifyWebhookSignature(server.credentials.webhookSecret, raw, String(headers['x-service-signature']))).toBe(true);
    expect(await verifyWebhookSignature('another secret', raw, String(headers['x-service-signature']))).toBe(false);
    expect(receiver.accepted.get('/orders')).toBeUndefined();

    const log = await deliveries(sub.id);
    expect(log).toEqual([
      expect.objectContaining({
        eventId: event.id,
        eventType: 'catalog.updated',
        status: 'succeeded',
        attempts: 1,
        lastStatusCode: 204,
        nextAttemptAt: null,
      }),
    ]);
    expect(log[0]!.attemptLog).toEqual([expect.objectContaining({ attempt: 1, statusCode: 204, error: null })]);
    await call('DELETE', `/api/pos/webhooks/${sub.id}`);
  });

  it('retries with exponential backoff until a 2xx', async () => {
    const sub = await subscribe({ url: receiver.route('/flaky', server.credentials.webhookSecret, 'flaky'), eventTypes: ['catalog.updated'] });
    await renameLatte('Latte');
    await settle();
    const [delivery] = await deliveries(sub.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, lastStatusCode: 204 });
    expect(delivery!.attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 204]);
    const gaps = delivery!.attemptLog.slice(1).map((a, i) => Date.parse(a.startedAt) - Date.parse(delivery!.attemptLog[i]!.startedAt));
    expect(gaps[0]).toBeGreaterThanOrEqual(40);
    expect(gaps[1]).toBeGreaterThanOrEqual(80);
    expect(receiver.accepted.get('/flaky')).toHaveLength(1);
    await call('DELETE', `/api/pos/webhooks/${sub.id}`);
  });

  it('gives up after 3 retries: a receiver with another secret answers 401 and processes nothing; a silent one times out', async () => {
    const wrong = await subscribe({ url: receiver.route('/wrong-secret', 'not the secret the server signs with'), eventTypes: ['catalog.updated'] });
    const silent = await subscribe({ url: receiver.route('/hang', server.credentials.webhookSecret, 'hang'), eventTypes: ['catalog.updated'] });
    await renameLatte('Latte!');
    await settle();
    const [refused] = await deliveries(wrong.id);
    expect(refused).toMatchObject({ status: 'failed', attempts: 4, lastStatusCode: 401, lastError: 'HTTP 401', nextAttemptAt: null });
    expect(refused!.attemptLog.map((a) => a.statusCode)).toEqual([401, 401, 401, 401]);
    expect(receiver.refused.get('/wrong-secret')).toBe(4);
    expect(receiver.accepted.get('/wrong-secret')).toBeUndefined();
    const [timedOut] = await deliveries(silent.id);
    expect(timedOut).toMatchObject({ status: 'failed', attempts: 4, lastStatusCode: null, lastError: 'no response within 400 ms' });

    // Manual redelivery queues a new delivery of the same event at once.
    const again = await call('POST', `/api/pos/webhooks/${wrong.id}/deliveries/${refused!.id}/redeliver`);
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({ eventId: refused!.eventId, status: 'pending', redeliveryOf: refused!.id, attempts: 0 });
    const pending = await call('POST', `/api/pos/webhooks/${wrong.id}/deliveries/${again.json().id}/redeliver`);
    expect([202, 409]).toContain(pending.statusCode); // 409 delivery_pending unless the worker already finished it
    await call('DELETE', `/api/pos/webhooks/${wrong.id}`);
    await call('DELETE', `/api/pos/webhooks/${silent.id}`);
  });

  it('redelivers a delivered event with the same event id (receivers dedupe on it)', async () => {
    const sub = await subscribe({ url: receiver.route('/redeliver', server.credentials.webhookSecret), eventTypes: ['catalog.updated'] });
    await renameLatte('Latte');
    await settle();
    const [first] = await deliveries(sub.id);
    const res = await call('POST', `/api/pos/webhooks/${sub.id}/deliveries/${first!.id}/redeliver`);
    expect(res.statusCode).toBe(202);
    await settle();
    const got = receiver.accepted.get('/redeliver')!;
    expect(got.map((g) => g.event.id)).toEqual([first!.eventId, first!.eventId]);
    expect(got[1]!.raw).toBe(got[0]!.raw);
    const unknown = await call('POST', `/api/pos/webhooks/${sub.id}/deliveries/whd_01J00000000000000000000000/redeliver`);
    expect(unknown.statusCode).toBe(404);
    await call('DELETE', `/api/pos/webhooks/${sub.id}`);
  });

  it('sends nothing for a rolled-back change', async () => {
    const sub = await subscribe({ url: receiver.route('/rollback', server.credentials.webhookSecret), eventTypes: ['catalog.updated'] });
    const outbox = async () => Number((await server.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM event_outbox')).rows[0]!.n);
    const before = await outbox();
    // A dry-run import writes items (and their events) in a transaction that is then rolled back.
    const dry = await call(
      'POST',
      '/api/pos/catalog/import',
      { csv: 'Handle,Title,Variant Price\nghost,Ghost item,1\n', dryRun: true },
      server.credentials.staffToken,
    );
    expect(dry.json().items.created).toBe(1);
    // A refused edit writes nothing either.
    expect((await call('PATCH', '/api/pos/catalog/items/itm_latte', { taxRateIds: ['tax_missing'] }, server.credentials.staffToken)).statusCode).toBe(
      400,
    );
    await settle();
    expect(await outbox()).toBe(before);
    expect(await deliveries(sub.id)).toEqual([]);
    expect(receiver.accepted.get('/rollback')).toBeUndefined();
  });
});
