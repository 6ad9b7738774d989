/**
 * The register's device client contract: the `DeviceHostApi` of core/device-transport.ts plus where the
 * devices stand (`state$`). Two implementations, chosen once at start-up by `createDeviceClient()` (index.ts):
 * - `IpcTransport` (ipc-transport.ts): the Electron preload's `window.registerDevices`;
 * - `BridgeTransport` (bridge-transport.ts): the web hardware bridge over WebSocket on 127.0.0.1.
 *
 * Both answer through `DeviceClient#call`, whose raw results this base class checks with the method's zod result
 * schema (`DEVICE_METHODS`), so neither transport's answers are trusted as they come. Without devices the register
 * keeps selling cash-only — no call here ever blocks a sale that does not need a device.
 */
import { BehaviorSubject } from 'rxjs';
import type { z } from 'zod';
import type { CardHoldRequest, ChargeRequest, CheckScan, DeviceStatus, PrintJob, TerminalResult } from '../../../../core/devices.ts';
import {
  DEVICE_METHODS,
  type DeviceHostApi,
  type DeviceMethod,
  type DeviceOverview,
  type DeviceSettings,
  type KitchenPrinterOverview,
  type KitchenPrintRequest,
  type PortInfo,
} from '../../../../core/device-transport.ts';

/**
 * A failed device call: `code` is a transport code (`bridge_unavailable`, `disconnected`, `timeout`,
 * `malformed_message`, `internal`, …) or a driver `DeviceError` code (e.g. `printer_offline`).
 */
export class DeviceCallFailure extends Error {
  override name = 'DeviceCallFailure';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Which transport a client uses. */
export type DeviceTransportKind = 'electron' | 'bridge';

/** Where the devices stand. */
export interface DeviceClientState {
  transport: DeviceTransportKind;
  connection: 'ready' | 'connecting' | 'unpaired' | 'refused' | 'unreachable';
  /** The bridge URL (bridge transport only). */
  url?: string;
  devices: DeviceOverview[];
  message?: string;
}

/** The result type of a device method (`DEVICE_METHODS[m].result`). */
export type DeviceResult<M extends DeviceMethod> = z.output<(typeof DEVICE_METHODS)[M]['result']>;

/**
 * The device client both transports implement. Subclasses provide `send` (one raw call) and feed pushed status
 * events to `onStatusEvent`; the typed methods, result validation and `state$` bookkeeping live here.
 */
export abstract class DeviceClient implements DeviceHostApi {
  abstract readonly transport: DeviceTransportKind;
  readonly state$: BehaviorSubject<DeviceClientState>;
  readonly #statusListeners = new Set<(status: DeviceStatus) => void>();

  protected constructor(initial: DeviceClientState) {
    this.state$ = new BehaviorSubject<DeviceClientState>(initial);
  }

  /**
   * Makes one call over the transport and resolves with its raw, unchecked result.
   * @throws DeviceCallFailure with the transport's or the driver's code.
   */
  protected abstract send(method: DeviceMethod, params: unknown): Promise<unknown>;

  /** Who answered, for error messages ("the hardware bridge", "the desktop app"). */
  protected abstract readonly peerName: string;

  /** True when device calls can be made now. */
  get isReady(): boolean {
    return this.state$.value.connection === 'ready';
  }

  /** Mode and status of one device (undefined when not known). */
  device(kind: DeviceOverview['device']): DeviceOverview | undefined {
    return this.state$.value.devices.find((device) => device.device === kind);
  }

  protected patch(patch: Partial<DeviceClientState>): void {
    this.state$.next({ ...this.state$.value, ...patch });
  }

  /** A pushed status event (already validated by the transport): updates `state$` and tells the listeners. */
  protected onStatusEvent(status: DeviceStatus): void {
    const devices = this.state$.value.devices.map((device) => (device.device === status.device ? { ...device, status } : device));
    this.patch({ devices });
    for (const listener of this.#statusListeners) listener(status);
  }

  /** Re-reads every device's mode and status (errors leave the state as it is: it already says why). */
  async refreshStatus(): Promise<void> {
    try {
      this.patch({ devices: await this.getStatus() });
    } catch {
      // not connected: the state already says so
    }
  }

  /**
   * One call, its result checked with the method's result schema (a void answer, `undefined` over IPC, counts as the
   * bridge's JSON `null`).
   * @throws DeviceCallFailure — `malformed_message` when the answer does not match the schema.
   */
  async #call<M extends DeviceMethod>(method: M, params?: unknown): Promise<DeviceResult<M>> {
    const raw = await this.send(method, params);
    const checked = DEVICE_METHODS[method].result.safeParse(raw === undefined ? null : raw);
    if (!checked.success) throw new DeviceCallFailure('malformed_message', `${this.peerName} answered an invalid ${method} result`);
    return checked.data as DeviceResult<M>;
  }

  print(job: PrintJob): Promise<{ queued: true }> {
    return this.#call('print', job);
  }
  async openDrawer(): Promise<void> {
    await this.#call('openDrawer');
  }
  charge(request: ChargeRequest): Promise<TerminalResult> {
    return this.#call('charge', request);
  }
  refund(request: ChargeRequest & { token: string }): Promise<TerminalResult> {
    return this.#call('refund', request);
  }
  scanCheck(): Promise<CheckScan> {
    return this.#call('scanCheck');
  }
  onStatus(listener: (status: DeviceStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }
  listPorts(): Promise<PortInfo[]> {
    return this.#call('listPorts');
  }
  getSettings(): Promise<DeviceSettings> {
    return this.#call('getSettings');
  }
  async saveSettings(settings: DeviceSettings): Promise<DeviceOverview[]> {
    const devices = await this.#call('saveSettings', settings);
    this.patch({ devices });
    return devices;
  }
  getStatus(): Promise<DeviceOverview[]> {
    return this.#call('getStatus');
  }
  testPrint(): Promise<{ queued: true }> {
    return this.#call('testPrint');
  }
  cardHold(request: CardHoldRequest): Promise<TerminalResult> {
    return this.#call('cardHold', request);
  }
  printKitchen(request: KitchenPrintRequest): Promise<{ queued: true; duplicate: boolean }> {
    return this.#call('printKitchen', request);
  }
  kitchenPrinters(): Promise<KitchenPrinterOverview[]> {
    return this.#call('kitchenPrinters');
  }
}
