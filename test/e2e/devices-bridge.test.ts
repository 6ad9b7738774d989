/**
 * The web hardware bridge's front door: WebSocket on 127.0.0.1 only, Origin allow-list, pairing token,
 * every message validated — a wrong Origin or token is refused, a malformed message gets an error answer and the
 * bridge keeps serving. Real `ws` connections to a real bridge with the device simulators on socat pseudo-terminals,
 * in their own process (test/support/device-host.ts).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startDeviceHost, type DeviceHost } from '../support/device-host.ts';

const ORIGIN = 'http://127.0.0.1:8787';

interface Connection {
  socket: WebSocket;
  messages: unknown[];
  next(predicate?: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a socket; resolves with it, or rejects with the HTTP status of a refused upgrade. */
function connect(url: string, origin: string | undefined): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, origin ? { origin } : {});
    const messages: Record<string, unknown>[] = [];
    const consumed = new Set<Record<string, unknown>>();
    const waiters: { predicate: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      messages.push(message);
      const waiter = waiters.find((w) => w.predicate(message));
      if (waiter) {
        waiters.splice(waiters.indexOf(waiter), 1);
        consumed.add(message);
        waiter.resolve(message);
      }
    });
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      socket.on('close', (code, reason) => done({ code, reason: reason.toString() })),
    );
    socket.on('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.on('error', reject);
    socket.on('open', () =>
      resolve({
        socket,
        messages,
        closed,
        // The next message not taken yet that matches; pushed status events are skipped unless asked for.
        next(predicate = (m) => m.type !== 'status') {
          const found = messages.find((m) => !consumed.has(m) && predicate(m));
          if (found) {
            consumed.add(found);
            return Promise.resolve(found);
          }
          return new Promise((done) => waiters.push({ predicate, resolve: done }));
        },
      }),
    );
  });
}

describe('web hardware bridge: origin, pairing token, validation', () => {
  let dir: string;
  let bridge: DeviceHost;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bridge-'));
    bridge = await startDeviceHost({ dataDir: dir, port: 0, allowedOrigins: [ORIGIN], printerRetryIntervalMs: 100, simulatorProcessingMs: 20 });
  });

  afterAll(async () => {
    await bridge?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 and keeps the pairing token in device-bridge.json', async () => {
    expect(bridge.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const stored = JSON.parse(await readFile(join(dir, 'device-bridge.json'), 'utf8')) as { token: string; url: string };
    expect(stored).toMatchObject({ token: bridge.token, url: bridge.url });
    expect(bridge.token.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses a connection from another origin, and one without an origin', async () => {
    await expect(connect(bridge.url, 'http://evil.example')).rejects.toThrow('HTTP 403');
    await expect(connect(bridge.url, 'http://127.0.0.1:9999')).rejects.toThrow('HTTP 403');
    await expect(connect(bridge.url, undefined)).rejects.toThrow('HTTP 403');
  });

  it('closes the socket on a wrong pairing token, and on a request before the token', async () => {
    const wrong = await connect(bridge.url, ORIGIN);
    wrong.socket.send(JSON.stringify({ type: 'hello', token: 'not-the-token-at-all' }));
    expect(await wrong.next()).toMatchObject({ type: 'error', error: { code: 'unauthorized' } });
    expect(await wrong.closed).toMatchObject({ code: 4401 });

    const early = await connect(bridge.url, ORIGIN);
    early.socket.send(JSON.stringify({ type: 'request', id: '1', method: 'openDrawer' }));
    expect(await early.next()).toMatchObject({ type: 'error', error: { code: 'unauthorized' } });
    expect(await early.closed).toMatchObject({ code: 4401 });
    expect(bridge.simulators?.printer.drawerKicks).toBe(0);
  });

  it('answers malformed messages with errors and keeps serving', async () => {
    const client = await connect(bridge.url, ORIGIN);
    client.socket.send(JSON.stringify({ type: 'hello', token: bridge.token }));
    const ready = await client.next((m) => m.type === 'ready');
    expect((ready.devices as { device: string; mode: string }[]).map((d) => [d.device, d.mode])).toEqual([
      ['printer', 'simulator'],
      ['terminal', 'simulator'],
      ['checkScanner', 'simulator'],
    ]);

    client.socket.send('{not json');
    expect(await client.next()).toMatchObject({ type: 'error', error: { code: 'malformed_message' } });
    client.socket.send(JSON.stringify({ type: 'request', id: 'm1', method: 'formatDisk' }));
    expect(await client.next()).toMatchObject({ type: 'response', id: 'm1', ok: false, error: { code: 'malformed_message' } });
    client.socket.send(
      JSON.stringify({ type: 'request', id: 'm2', method: 'charge', params: { idempotencyKey: 'k', amountCents: 12.5, currency: 'USD' } }),
    );
    expect(await client.next((m) => m.id === 'm2')).toMatchObject({
      ok: false,
      error: { code: 'invalid_params', message: expect.stringContaining('amountCents') },
    });
    client.socket.send(JSON.stringify({ type: 'request', id: 'm3', method: 'print', params: { jobId: 'x', blocks: [], extra: 1 } }));
    expect(await client.next((m) => m.id === 'm3')).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    client.socket.send(
      JSON.stringify({
        type: 'request',
        id: 'm4',
        method: 'charge',
        params: { idempotencyKey: 'k', amountCents: 100, currency: 'USD', cardNumber: '4242424242424242' },
      }),
    );
    expect(await client.next((m) => m.id === 'm4')).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    client.socket.send(JSON.stringify([1, 2, 3]));
    expect(await client.next()).toMatchObject({ type: 'error', error: { code: 'malformed_message' } });
    client.socket.send(Buffer.from([0xff, 0x00, 0x01]), { binary: true });
    expect(await client.next()).toMatchObject({ type: 'error', error: { code: 'malformed_message' } });

    // Still serving: a valid call after all that.
    client.socket.send(JSON.stringify({ type: 'request', id: 'ok1', method: 'listPorts' }));
    const ports = await client.next((m) => m.id === 'ok1');
    expect(ports).toMatchObject({ ok: true });
    expect((ports.result as { path: string }[]).map((p) => p.path)).toEqual(expect.arrayContaining([bridge.simulators!.paths.printer]));
    expect((ports.result as { path: string }[]).some((p) => p.path.endsWith('.sim'))).toBe(false);

    client.socket.send(JSON.stringify({ type: 'request', id: 'ok2', method: 'openDrawer' }));
    expect(await client.next((m) => m.id === 'ok2')).toMatchObject({ ok: true, result: null });
    // The call answers once the bytes are written to the port; the simulator at the pty's other end reads them a moment
    // later (on a loaded machine, more than a moment).
    const deadline = Date.now() + 10_000;
    while ((bridge.simulators?.printer.drawerKicks ?? 0) < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(bridge.simulators?.printer.drawerKicks).toBe(1);
    client.socket.close();
  });
});
