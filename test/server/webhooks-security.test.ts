/**
 * Webhook receivers must be public addresses (SSRF defence, services/receiver-network.ts): refused when subscribing,
 * and refused again when a delivery connects (a name may resolve elsewhere later). Secrets rotate: deliveries after a
 * rotation verify with the new secret only. Real HTTP receivers on 127.0.0.1; both databases.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyWebhookSignature, type WebhookDelivery } from '../../core/index.ts';
import { refusedRange } from '../../sync-server/src/platform/http/receiver-network.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A receiver that records every request it gets (raw body and signature) and answers 204. */
class RecordingReceiver {
  readonly requests: { path: string; raw: string; signature: string }[] = [];
  private server: Server | undefined;
  url = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({
          path: req.url ?? '',
          raw: Buffer.concat(chunks).toString('utf8'),
          signature: String(req.headers['x-service-signature'] ?? ''),
        });
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

type Json = Record<string, any>;

describe('receiver address classification', () => {
  it('allows public unicast addresses only', () => {
    expect(refusedRange('93.184.216.34')).toBeUndefined();
    expect(refusedRange('2606:2800:220:1:248:1893:25c8:1946')).toBeUndefined();
    expect(refusedRange('127.0.0.1')).toBe('loopback');
    expect(refusedRange('::1')).toBe('loopback');
    expect(refusedRange('10.1.2.3')).toBe('private');
    expect(refusedRange('192.168.0.10')).toBe('private');
    expect(refusedRange('172.16.5.4')).toBe('private');
    expect(refusedRange('169.254.169.254')).toBe('linkLocal');
    expect(refusedRange('fe80::1')).toBe('linkLocal');
    expect(refusedRange('fd00::1')).toBe('uniqueLocal');
    expect(refusedRange('100.64.0.1')).toBe('carrierGradeNat');
    expect(refusedRange('0.0.0.0')).toBe('unspecified');
    expect(refusedRange('224.0.0.1')).toBe('multicast');
    expect(refusedRange('::ffff:127.0.0.1')).toBe('loopback');
    expect(refusedRange('not an address')).toBe('invalid');
  });
});

describe.each(databaseTargets())('webhook receivers and secrets on $name', (target) => {
  const receiver = new RecordingReceiver();
  /** Refuses private receivers, as production does. */
  let strict: TestServer;
  /** Accepts them when subscribing (a developer's setting) but its worker refuses them when delivering. */
  let lenientThenStrict: TestServer;
  /** Delivers to 127.0.0.1: the rotation test. */
  let local: TestServer;
  const workerOptions = { pollIntervalMs: 20, retryDelaysMs: [40, 80, 120], timeoutMs: 400 };

  beforeAll(async () => {
    await receiver.start();
    strict = await startTestServer({ target, staticDir: null, allowPrivateWebhookReceivers: false, webhooks: workerOptions });
    lenientThenStrict = await startTestServer({
      target,
      staticDir: null,
      allowPrivateWebhookReceivers: true,
      webhooks: { ...workerOptions, allowPrivateNetworks: false },
    });
    local = await startTestServer({ target, staticDir: null, webhooks: workerOptions });
  });
  afterAll(async () => {
    await strict?.close();
    await lenientThenStrict?.close();
    await local?.close();
    await receiver.stop();
  });

  const call = (server: TestServer, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, token = server.credentials.appToken) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const renameLatte = (server: TestServer, name: string) =>
    call(server, 'PATCH', '/api/pos/catalog/items/itm_latte', { name }, server.credentials.staffToken);
  const settle = (server: TestServer) =>
    vi.waitFor(
      async () => {
        const { rows } = await server.db.query<{ n: number | string }>(
          `SELECT (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending') + (SELECT COUNT(*) FROM event_outbox WHERE dispatched_at IS NULL) AS n`,
        );
        expect(Number(rows[0]!.n)).toBe(0);
      },
      { timeout: 15_000, interval: 50 },
    );

  it('refuses receivers on loopback, private, link-local and other internal addresses when subscribing', async () => {
    const internal = [
      'http://127.0.0.1:9/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.5/hook',
      'http://192.168.1.20/hook',
      'http://[fd00::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0.0.0.0/hook',
      `http://localhost:${new URL(receiver.url).port}/hook`,
    ];
    for (const url of internal) {
      const res = await call(strict, 'POST', '/api/pos/webhooks', { url, eventTypes: ['order.paid'] });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'receiver_not_public', errors: [{ path: 'url' }] });
    }
    const scheme = await call(strict, 'POST', '/api/pos/webhooks', { url: 'file:///etc/passwd', eventTypes: ['order.paid'] });
    expect(scheme.statusCode).toBe(400);
    expect(scheme.json().errors.map((e: Json) => e.path)).toContain('url');
    const stored = await strict.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_subscriptions');
    expect(stored.rows[0]!.n).toBe(0);

    // A public address is accepted (nothing connects when subscribing); moving it to an internal one is refused.
    const ok = await call(strict, 'POST', '/api/pos/webhooks', { url: 'https://93.184.216.34/hooks/register', eventTypes: ['order.paid'] });
    expect(ok.statusCode, ok.body).toBe(201);
    const moved = await call(strict, 'PATCH', `/api/pos/webhooks/${ok.json().id}`, { url: 'http://169.254.169.254/latest' });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().errors[0].path).toBe('url');
    expect((await call(strict, 'GET', `/api/pos/webhooks/${ok.json().id}`)).json().url).toBe('https://93.184.216.34/hooks/register');
  });

  it('never connects to an internal receiver when delivering: each attempt fails with the reason, nothing arrives', async () => {
    const before = receiver.requests.length;
    const byIp = await call(lenientThenStrict, 'POST', '/api/pos/webhooks', { url: `${receiver.url}/by-ip`, eventTypes: ['catalog.updated'] });
    const byName = await call(lenientThenStrict, 'POST', '/api/pos/webhooks', {
      url: `http://localhost:${new URL(receiver.url).port}/by-name`,
      eventTypes: ['catalog.updated'],
    });
    expect([byIp.statusCode, byName.statusCode]).toEqual([201, 201]);
    expect((await renameLatte(lenientThenStrict, 'Refused latte')).statusCode).toBe(200);
    await settle(lenientThenStrict);

    expect(receiver.requests.length).toBe(before);
    for (const sub of [byIp.json(), byName.json()]) {
      const log = (await call(lenientThenStrict, 'GET', `/api/pos/webhooks/${sub.id}/deliveries`)).json().data as WebhookDelivery[];
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ status: 'failed', attempts: 4, lastStatusCode: null });
      expect(log[0]!.lastError).toMatch(/^refused: .*loopback/);
    }
  });

  it('rotates a secret: later deliveries verify with the new secret only; the rotation is audited', async () => {
    const created = await call(
      local,
      'POST',
      '/api/pos/webhooks',
      { url: `${receiver.url}/rotating`, eventTypes: ['catalog.updated'] },
      local.credentials.staffToken,
    );
    expect(created.statusCode).toBe(201);
    const sub = created.json();
    const oldSecret = sub.secret as string;

    await renameLatte(local, 'Latte before rotation');
    await settle(local);
    const first = receiver.requests.filter((r) => r.path === '/rotating');
    expect(first).toHaveLength(1);
    expect(await verifyWebhookSignature(oldSecret, first[0]!.raw, first[0]!.signature)).toBe(true);

    const rotated = await call(local, 'POST', `/api/pos/webhooks/${sub.id}/rotate-secret`, undefined, local.credentials.staffToken);
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json()).toMatchObject({ id: sub.id, url: sub.url, secret: expect.stringMatching(/^whsec_/) });
    const newSecret = rotated.json().secret as string;
    expect(newSecret).not.toBe(oldSecret);
    // The secret is shown once: reads never carry it.
    expect((await call(local, 'GET', `/api/pos/webhooks/${sub.id}`, undefined, local.credentials.staffToken)).json().secret).toBeUndefined();

    await renameLatte(local, 'Latte after rotation');
    await settle(local);
    const after = receiver.requests.filter((r) => r.path === '/rotating');
    expect(after).toHaveLength(2);
    expect(await verifyWebhookSignature(newSecret, after[1]!.raw, after[1]!.signature)).toBe(true);
    expect(await verifyWebhookSignature(oldSecret, after[1]!.raw, after[1]!.signature)).toBe(false);

    const audit = await local.db.query<{ data: Json }>(
      `SELECT data FROM audit_log WHERE action = 'webhook_subscription.secret_rotated' AND entity_id = $1`,
      [sub.id],
    );
    expect(audit.rows).toHaveLength(1);
    expect(JSON.stringify(audit.rows[0]!.data)).not.toContain(newSecret);

    // With an Idempotency-Key a retried rotation replays the stored answer (same secret) and rotates nothing more.
    const key = { authorization: `Bearer ${local.credentials.staffToken}`, 'idempotency-key': `rotate-${sub.id}` };
    const keyed = await local.app.inject({ method: 'POST', url: `/api/pos/webhooks/${sub.id}/rotate-secret`, headers: key });
    const replay = await local.app.inject({ method: 'POST', url: `/api/pos/webhooks/${sub.id}/rotate-secret`, headers: key });
    expect([keyed.statusCode, replay.statusCode]).toEqual([200, 200]);
    expect(keyed.json().secret).not.toBe(newSecret);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().secret).toBe(keyed.json().secret);
    const rotations = await local.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'webhook_subscription.secret_rotated' AND entity_id = $1`,
      [sub.id],
    );
    expect(rotations.rows[0]!.n).toBe(2);

    // Another app cannot rotate it (the demo app sees only its own subscriptions); an unknown id is a 404.
    expect((await call(local, 'POST', `/api/pos/webhooks/${sub.id}/rotate-secret`)).statusCode).toBe(404);
    expect(
      (await call(local, 'POST', '/api/pos/webhooks/whs_01J00000000000000000000000/rotate-secret', undefined, local.credentials.staffToken))
        .statusCode,
    ).toBe(404);
  });
});
