/**
 * The register's device client (DESIGN §11): one `DeviceHostApi`, two transports, chosen once at start —
 * - the Electron preload's `window.registerDevices` when it is there (IPC, validated in the main process), else
 * - the web hardware bridge over WebSocket (`ws://127.0.0.1:8790` by default), paired with a token the cashier pastes
 *   in the Devices view (or opens once as `/#bridge-token=<token>`).
 *
 * `state$` says where the devices stand at every moment (`ready`, `connecting`, `unpaired`, `refused`,
 * `unreachable`) with each device's mode and status, so the register can show it; without devices the register keeps
 * selling cash-only — no call here ever blocks a sale that does not need a device.
 */
import { BehaviorSubject } from 'rxjs';
import type { ChargeRequest, CheckScan, DeviceStatus, PrintJob, TerminalResult } from '../../../../core/devices.ts';
import {
  BRIDGE_CLOSE,
  DEVICE_METHODS,
  bridgeServerMessageSchema,
  type DeviceHostApi,
  type DeviceMethod,
  type DeviceOverview,
  type DeviceSettings,
  type PortInfo,
} from '../../../../core/device-transport.ts';

/** A failed device call: `code` is a transport or driver code (e.g. `printer_offline`, `bridge_unavailable`). */
export class DeviceCallFailure extends Error {
  override name = 'DeviceCallFailure';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Where the devices stand. */
export interface DeviceClientState {
  transport: 'electron' | 'bridge';
  connection: 'ready' | 'connecting' | 'unpaired' | 'refused' | 'unreachable';
  /** The bridge URL (bridge transport only). */
  url?: string;
  devices: DeviceOverview[];
  message?: string;
}

/** The Electron preload's object (electron/preload/preload.ts). */
declare global {
  interface Window {
    registerDevices?: DeviceHostApi;
  }
}

const BRIDGE_CONFIG_KEY = 'register.deviceBridge.v1';
export const DEFAULT_BRIDGE_URL = 'ws://127.0.0.1:8790';

/** The bridge address and pairing token this register uses (localStorage). */
export interface BridgeConfig {
  url: string;
  token: string;
}

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

/** Per-call time limits: a card sale waits for the customer at the terminal (the driver itself gives up at 120 s). */
const CALL_TIMEOUT_MS: Partial<Record<DeviceMethod, number>> = { charge: 200_000, refund: 200_000, scanCheck: 45_000 };

/** Parses the `[code] message` form in which the preload's errors cross the context bridge. */
function failureFromIpc(error: unknown): DeviceCallFailure {
  const text = error instanceof Error ? error.message : String(error);
  const match = /\[([a-z_]+)\] (.*)$/s.exec(text);
  return match ? new DeviceCallFailure(match[1]!, match[2]!) : new DeviceCallFailure('internal', text);
}

/** The device client. One per page: use `getDeviceClient()`. */
export class DeviceClient implements DeviceHostApi {
  readonly state$: BehaviorSubject<DeviceClientState>;
  readonly #statusListeners = new Set<(status: DeviceStatus) => void>();
  readonly #ipc: DeviceHostApi | undefined;
  #socket: WebSocket | undefined;
  #pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  #nextId = 0;
  #retryMs = 1000;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #config: BridgeConfig;

  constructor(ipc: DeviceHostApi | undefined) {
    this.#ipc = ipc;
    this.#config = loadBridgeConfig();
    if (ipc) {
      this.state$ = new BehaviorSubject<DeviceClientState>({ transport: 'electron', connection: 'ready', devices: [] });
      ipc.onStatus((status) => this.#onStatus(status));
      void this.refreshStatus();
    } else {
      this.state$ = new BehaviorSubject<DeviceClientState>({ transport: 'bridge', connection: 'connecting', url: this.#config.url, devices: [] });
      this.#connect();
    }
  }

  /** The bridge settings in use. */
  get bridgeConfig(): BridgeConfig {
    return { ...this.#config };
  }

  /** True when device calls can be made now. */
  get isReady(): boolean {
    return this.state$.value.connection === 'ready';
  }

  /** Mode and status of one device ('none' when not known). */
  device(kind: DeviceOverview['device']): DeviceOverview | undefined {
    return this.state$.value.devices.find((device) => device.device === kind);
  }

  #patch(patch: Partial<DeviceClientState>): void {
    this.state$.next({ ...this.state$.value, ...patch });
  }

  #onStatus(status: DeviceStatus): void {
    const devices = this.state$.value.devices.map((device) => (device.device === status.device ? { ...device, status } : device));
    this.#patch({ devices });
    for (const listener of this.#statusListeners) listener(status);
  }

  /** Re-reads every device's mode and status. */
  async refreshStatus(): Promise<void> {
    try {
      this.#patch({ devices: await this.getStatus() });
    } catch {
      // not connected: the state already says so
    }
  }

  /** Points the bridge client at another URL / token and reconnects (the Devices view's "Connect"). */
  configureBridge(config: BridgeConfig): void {
    this.#config = { url: config.url.trim() || DEFAULT_BRIDGE_URL, token: config.token.trim() };
    storeBridgeConfig(this.#config);
    if (this.#ipc) return;
    this.#disconnect();
    this.#retryMs = 1000;
    this.#patch({ url: this.#config.url, connection: 'connecting', devices: [], message: undefined });
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
      this.#patch({ connection: 'unpaired', devices: [], message: 'Not paired with a hardware bridge' });
      return;
    }
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.#config.url);
    } catch {
      this.#patch({ connection: 'unreachable', devices: [], message: `Not a WebSocket address: ${this.#config.url}` });
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
        this.#patch({ connection: 'refused', devices: [], message: 'The hardware bridge refused the pairing token' });
        return;
      }
      this.#patch({ connection: 'unreachable', devices: [], message: `No hardware bridge at ${this.#config.url}` });
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
      this.#patch({ connection: 'ready', devices: message.devices, message: undefined });
    } else if (message.type === 'status') {
      this.#onStatus(message.status);
    } else if (message.type === 'response') {
      const call = this.#pending.get(message.id);
      if (!call) return;
      this.#pending.delete(message.id);
      clearTimeout(call.timer);
      if (message.ok) call.resolve(message.result);
      else call.reject(new DeviceCallFailure(message.error.code, message.error.message));
    }
  }

  async #call<M extends DeviceMethod>(method: M, params?: unknown): Promise<unknown> {
    if (this.#ipc) {
      try {
        return await (this.#ipc[method] as (p?: unknown) => Promise<unknown>)(params);
      } catch (error) {
        throw failureFromIpc(error);
      }
    }
    const socket = this.#socket;
    if (!socket || this.state$.value.connection !== 'ready') {
      throw new DeviceCallFailure('bridge_unavailable', this.state$.value.message ?? 'No hardware bridge connected');
    }
    const id = `c${(this.#nextId += 1)}`;
    const raw = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new DeviceCallFailure('timeout', `the hardware bridge did not answer ${method} in time`));
      }, CALL_TIMEOUT_MS[method] ?? 30_000);
      this.#pending.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify({ type: 'request', id, method, ...(params === undefined ? {} : { params }) }));
    });
    const checked = DEVICE_METHODS[method].result.safeParse(raw);
    if (!checked.success) throw new DeviceCallFailure('malformed_message', `the hardware bridge answered an invalid ${method} result`);
    return checked.data;
  }

  async print(job: PrintJob): Promise<{ queued: true }> {
    return (await this.#call('print', job)) as { queued: true };
  }
  async openDrawer(): Promise<void> {
    await this.#call('openDrawer');
  }
  async charge(request: ChargeRequest): Promise<TerminalResult> {
    return (await this.#call('charge', request)) as TerminalResult;
  }
  async refund(request: ChargeRequest & { token: string }): Promise<TerminalResult> {
    return (await this.#call('refund', request)) as TerminalResult;
  }
  async scanCheck(): Promise<CheckScan> {
    return (await this.#call('scanCheck')) as CheckScan;
  }
  onStatus(listener: (status: DeviceStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }
  async listPorts(): Promise<PortInfo[]> {
    return (await this.#call('listPorts')) as PortInfo[];
  }
  async getSettings(): Promise<DeviceSettings> {
    return (await this.#call('getSettings')) as DeviceSettings;
  }
  async saveSettings(settings: DeviceSettings): Promise<DeviceOverview[]> {
    const devices = (await this.#call('saveSettings', settings)) as DeviceOverview[];
    this.#patch({ devices });
    return devices;
  }
  async getStatus(): Promise<DeviceOverview[]> {
    return (await this.#call('getStatus')) as DeviceOverview[];
  }
  async testPrint(): Promise<{ queued: true }> {
    return (await this.#call('testPrint')) as { queued: true };
  }
}

/** Takes a pairing token from `#bridge-token=…` in the address (a link printed by the bridge), then removes it. */
function adoptTokenFromUrl(): void {
  const match = /(?:^#|&)bridge-token=([A-Za-z0-9_-]{16,200})/.exec(location.hash);
  if (!match) return;
  storeBridgeConfig({ ...loadBridgeConfig(), token: match[1]! });
  history.replaceState(null, '', location.pathname + location.search);
}

let client: DeviceClient | undefined;

/** The page's device client (created on first use: IPC when the Electron preload is present, else the bridge). */
export function getDeviceClient(): DeviceClient {
  if (!client) {
    adoptTokenFromUrl();
    client = new DeviceClient(window.registerDevices);
  }
  return client;
}
