/**
 * The browser's device transport: the web hardware bridge over WebSocket (`ws://127.0.0.1:8790` by default,
 * electron/bridge), paired with a token the cashier pastes in the Devices view (or opens once as
 * `/#bridge-token=<token>`). Every frame from the bridge is checked with `bridgeServerMessageSchema` and every result
 * with the method's schema (in `DeviceClient`); a lost connection is retried (1 s doubling to 10 s) except after the
 * bridge refused the token (close code 4401).
 */
import { BRIDGE_CLOSE, bridgeServerMessageSchema, type DeviceMethod } from '../../../../core/device-transport.ts';
import { DeviceCallFailure, DeviceClient } from './device-client.ts';

const BRIDGE_CONFIG_KEY = 'register.deviceBridge.v1';
export const DEFAULT_BRIDGE_URL = 'ws://127.0.0.1:8790';

/** The bridge address and pairing token this register uses (localStorage `register.deviceBridge.v1`). */
export interface BridgeConfig {
  url: string;
  token: string;
}

/** The stored bridge settings (the default address and no token when nothing, or nothing readable, is stored). */
export function loadBridgeConfig(): BridgeConfig {
  try {
    const raw = JSON.parse(localStorage.getItem(BRIDGE_CONFIG_KEY) ?? '{}') as Partial<BridgeConfig>;
    return { url: typeof raw.url === 'string' && raw.url ? raw.url : DEFAULT_BRIDGE_URL, token: typeof raw.token === 'string' ? raw.token : '' };
  } catch {
    return { url: DEFAULT_BRIDGE_URL, token: '' };
  }
}

function storeBridgeConfig(config: BridgeConfig): void {
  localStorage.setItem(BRIDGE_CONFIG_KEY, JSON.stringify(config));
}

/** Whether this register has a bridge address of its own (set in Devices), which the server's never overrides. */
export function hasStoredBridgeUrl(): boolean {
  try {
    const raw = JSON.parse(localStorage.getItem(BRIDGE_CONFIG_KEY) ?? '{}') as Partial<BridgeConfig>;
    return typeof raw.url === 'string' && raw.url !== '' && raw.url !== DEFAULT_BRIDGE_URL;
  } catch {
    return false;
  }
}

/** Takes a pairing token from `#bridge-token=…` in the address (a link printed by the bridge), then removes it. */
export function adoptTokenFromUrl(): void {
  const match = /(?:^#|&)bridge-token=([A-Za-z0-9_-]{16,200})/.exec(location.hash);
  if (!match) return;
  storeBridgeConfig({ ...loadBridgeConfig(), token: match[1]! });
  history.replaceState(null, '', location.pathname + location.search);
}

/** Per-call time limits in ms: a card sale waits for the customer at the terminal (the driver itself gives up at 120 s). */
const CALL_TIMEOUT_MS: Partial<Record<DeviceMethod, number>> = { charge: 200_000, refund: 200_000, cardHold: 200_000, scanCheck: 45_000 };
const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** Device calls over the web hardware bridge's WebSocket. */
export class BridgeTransport extends DeviceClient {
  readonly transport = 'bridge';
  protected readonly peerName = 'the hardware bridge';
  #socket: WebSocket | undefined;
  #pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  #nextId = 0;
  #retryMs = 1000;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #config: BridgeConfig;

  /** Connects at once with `config` (the stored settings by default). */
  constructor(config: BridgeConfig = loadBridgeConfig()) {
    super({ transport: 'bridge', connection: 'connecting', url: config.url, devices: [] });
    this.#config = config;
    this.#connect();
  }

  /** The bridge settings in use. */
  get bridgeConfig(): BridgeConfig {
    return { ...this.#config };
  }

  /** Points the client at another URL / token, stores them and reconnects (the Devices view's "Connect"). */
  configureBridge(config: BridgeConfig): void {
    this.#config = { url: config.url.trim() || DEFAULT_BRIDGE_URL, token: config.token.trim() };
    storeBridgeConfig(this.#config);
    this.#disconnect();
    this.#retryMs = 1000;
    this.patch({ url: this.#config.url, connection: 'connecting', devices: [], message: undefined });
    this.#connect();
  }

  /**
   * The address the server was configured with (`GET /api/register/device-bridge`): used — in memory, not
   * stored — while this register has no address of its own, so a bridge on another `BRIDGE_PORT` is found.
   */
  useServerBridgeUrl(url: string): void {
    if (hasStoredBridgeUrl() || url === this.#config.url || !/^wss?:\/\//.test(url)) return;
    this.#config = { ...this.#config, url };
    this.#disconnect();
    this.#retryMs = 1000;
    this.patch({ url, connection: 'connecting', devices: [], message: undefined });
    this.#connect();
  }

  #disconnect(): void {
    clearTimeout(this.#retryTimer);
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket) {
      socket.onclose = null;
      socket.close();
    }
    this.#failPending(new DeviceCallFailure('disconnected', 'the hardware bridge connection closed'));
  }

  #failPending(error: Error): void {
    for (const [id, call] of this.#pending) {
      clearTimeout(call.timer);
      call.reject(error);
      this.#pending.delete(id);
    }
  }

  #scheduleReconnect(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => this.#connect(), this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, 10_000);
  }

  #connect(): void {
    if (!this.#config.token) {
      this.patch({ connection: 'unpaired', devices: [], message: 'Not paired with a hardware bridge' });
      return;
    }
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.#config.url);
    } catch {
      this.patch({ connection: 'unreachable', devices: [], message: `Not a WebSocket address: ${this.#config.url}` });
      return;
    }
    this.#socket = socket;
    socket.onopen = () => socket.send(JSON.stringify({ type: 'hello', token: this.#config.token }));
    socket.onmessage = (event) => this.#onMessage(event.data);
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#failPending(new DeviceCallFailure('disconnected', 'the hardware bridge connection closed'));
      if (event.code === BRIDGE_CLOSE.unauthorized) {
        this.patch({ connection: 'refused', devices: [], message: 'The hardware bridge refused the pairing token' });
        return;
      }
      this.patch({ connection: 'unreachable', devices: [], message: `No hardware bridge at ${this.#config.url}` });
      this.#scheduleReconnect();
    };
  }

  #onMessage(data: unknown): void {
    let parsed;
    try {
      parsed = bridgeServerMessageSchema.safeParse(JSON.parse(String(data)));
    } catch {
      return;
    }
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.type === 'ready') {
      this.#retryMs = 1000;
      this.patch({ connection: 'ready', devices: message.devices, message: undefined });
    } else if (message.type === 'status') {
      this.onStatusEvent(message.status);
    } else if (message.type === 'response') {
      const call = this.#pending.get(message.id);
      if (!call) return;
      this.#pending.delete(message.id);
      clearTimeout(call.timer);
      if (message.ok) call.resolve(message.result);
      else call.reject(new DeviceCallFailure(message.error.code, message.error.message));
    }
  }

  protected send(method: DeviceMethod, params: unknown): Promise<unknown> {
    const socket = this.#socket;
    if (!socket || this.state$.value.connection !== 'ready') {
      return Promise.reject(new DeviceCallFailure('bridge_unavailable', this.state$.value.message ?? 'No hardware bridge connected'));
    }
    const id = `c${(this.#nextId += 1)}`;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new DeviceCallFailure('timeout', `the hardware bridge did not answer ${method} in time`));
      }, CALL_TIMEOUT_MS[method] ?? DEFAULT_CALL_TIMEOUT_MS);
      this.#pending.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify({ type: 'request', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }
}
