/**
 * The web hardware bridge: the device API over WebSocket (`ws`) for the register running in an ordinary
 * browser — the way Odoo's POS talks to its IoT box.
 *
 * Safety, in the order a connection meets it:
 * 1. it listens on 127.0.0.1 only (other hosts are refused at start);
 * 2. the upgrade is refused (HTTP 403) unless `Origin` is on the allow-list (the register's origin) and `Host` names
 *    this loopback port (no DNS rebinding);
 * 3. the first message must be `{ type: 'hello', token }` with the pairing token (compared in constant time) within
 *    `helloTimeoutMs`; otherwise the socket is closed with 4401 / 4408;
 * 4. every later frame is parsed and validated with the zod schemas of core/device-transport.ts; a malformed one is
 *    answered with an error message, never a crash; frames over 1 MiB close the socket (ws `maxPayload`).
 * Status events of the devices are pushed to every paired connection.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BRIDGE_CLOSE, bridgeClientMessageSchema, type BridgeServerMessage, type DeviceHostApi } from '../../core/device-transport.ts';
import { dispatchDeviceCall } from './dispatch.ts';

/** Bridge settings. */
export interface BridgeServerOptions {
  host: DeviceHostApi;
  /** Pairing token the register must present (at least 16 characters). */
  token: string;
  /** Origins allowed to connect, e.g. `http://localhost:8787` (compared after URL normalisation). */
  allowedOrigins: readonly string[];
  /** Port on 127.0.0.1 (0 = any free port). */
  port: number;
  /** Only `127.0.0.1` is accepted (the bridge is never reachable from the network). Default `127.0.0.1`. */
  listenHost?: string;
  /** Time to send the hello. Default 5000 ms. */
  helloTimeoutMs?: number;
  log?: (message: string) => void;
}

/** A running bridge. */
export interface BridgeServer {
  /** `ws://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Normalises an origin (`scheme://host[:port]`), or undefined when it is not one. */
export function normaliseOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.origin === 'null') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time comparison of a presented token with the expected one. */
export function tokensMatch(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

function refuseUpgrade(socket: Duplex, status: 400 | 403, reason: string): void {
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Request'}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Starts the bridge on 127.0.0.1. Throws when asked for another host or when the port is taken. */
export async function startBridgeServer(options: BridgeServerOptions): Promise<BridgeServer> {
  const listenHost = options.listenHost ?? '127.0.0.1';
  if (listenHost !== '127.0.0.1') throw new Error('the hardware bridge listens on 127.0.0.1 only');
  if (options.token.length < 16) throw new Error('the pairing token must have at least 16 characters');
  const allowed = new Set(options.allowedOrigins.map((origin) => normaliseOrigin(origin)).filter((origin): origin is string => !!origin));
  if (allowed.size === 0) throw new Error('the hardware bridge needs at least one allowed origin');
  const log = options.log ?? (() => undefined);
  const helloTimeoutMs = options.helloTimeoutMs ?? 5000;

  const http: Server = createServer((_request, response) => {
    // Plain HTTP answers nothing about the devices: only a paired WebSocket does.
    response.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' }).end('Upgrade to WebSocket\n');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const paired = new Set<WebSocket>();
  let port = 0;

  const send = (socket: WebSocket, message: BridgeServerMessage): void => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };

  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    const origin = normaliseOrigin(String(request.headers.origin ?? ''));
    if (!origin || !allowed.has(origin)) {
      log(`bridge: refused a connection from origin ${JSON.stringify(request.headers.origin ?? null)}`);
      refuseUpgrade(socket, 403, 'origin not allowed');
      return;
    }
    const hostHeader = String(request.headers.host ?? '');
    if (hostHeader !== `127.0.0.1:${port}` && hostHeader !== `localhost:${port}`) {
      refuseUpgrade(socket, 403, 'host not allowed');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });

  wss.on('connection', (socket: WebSocket) => {
    let isPaired = false;
    let unsubscribe: (() => void) | undefined;
    const helloTimer = setTimeout(() => {
      if (!isPaired) socket.close(BRIDGE_CLOSE.helloTimeout, 'pairing token expected');
    }, helloTimeoutMs);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(helloTimer);
      paired.delete(socket);
      unsubscribe?.();
    });
    socket.on('message', (data, isBinary) => {
      void (async () => {
        let raw: unknown;
        try {
          raw = JSON.parse(isBinary ? '' : data.toString());
        } catch {
          send(socket, { type: 'error', error: { code: 'malformed_message', message: 'a message must be a JSON text frame' } });
          return;
        }
        const parsed = bridgeClientMessageSchema.safeParse(raw);
        if (!parsed.success) {
          const id =
            typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string'
              ? (raw as { id: string }).id.slice(0, 64)
              : undefined;
          const issue = parsed.error.issues[0];
          const error = { code: 'malformed_message', message: `Invalid ${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` };
          if (id && isPaired) send(socket, { type: 'response', id, ok: false, error });
          else send(socket, { type: 'error', error });
          return;
        }
        const message = parsed.data;
        if (message.type === 'hello') {
          if (isPaired) return;
          if (!tokensMatch(message.token, options.token)) {
            log('bridge: refused a wrong pairing token');
            send(socket, { type: 'error', error: { code: 'unauthorized', message: 'wrong pairing token' } });
            socket.close(BRIDGE_CLOSE.unauthorized, 'wrong pairing token');
            return;
          }
          isPaired = true;
          clearTimeout(helloTimer);
          paired.add(socket);
          unsubscribe = options.host.onStatus((status) => send(socket, { type: 'status', status }));
          send(socket, { type: 'ready', devices: await options.host.getStatus() });
          return;
        }
        if (!isPaired) {
          send(socket, { type: 'error', error: { code: 'unauthorized', message: 'send the pairing token first' } });
          socket.close(BRIDGE_CLOSE.unauthorized, 'not paired');
          return;
        }
        const outcome = await dispatchDeviceCall(options.host, message.method, message.params);
        send(
          socket,
          outcome.ok
            ? { type: 'response', id: message.id, ok: true, result: outcome.result }
            : { type: 'response', id: message.id, ok: false, error: outcome.error },
        );
      })().catch((error: unknown) => {
        log(`bridge: ${error instanceof Error ? error.message : String(error)}`);
        send(socket, { type: 'error', error: { code: 'internal', message: 'the bridge could not handle that message' } });
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, listenHost, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address();
  port = typeof address === 'object' && address ? address.port : options.port;

  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    async close() {
      for (const socket of wss.clients) socket.close(BRIDGE_CLOSE.shuttingDown, 'bridge stopping');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
