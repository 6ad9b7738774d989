/**
 * The device host behind both transports: owns the receipt-printer, card-terminal and check-scanner
 * drivers of `electron/devices/` and a restaurant's kitchen printers (one per station, each with its own print queue), the device settings of this register (a JSON file per machine), and — for devices
 * set to `simulator` — the pseudo-terminal simulators. The Electron main process (IPC) and the web hardware bridge
 * (WebSocket) both call it through `dispatchDeviceCall`, which validates every message; the hub itself trusts its
 * typed input.
 *
 * A device that cannot be opened is reported `offline` (never a crash); the next call tries to open it again. With no
 * settings file every device starts as a simulator when `simulators` is `auto` (the demo), as `none` otherwise.
 */
import { EventEmitter } from 'node:events';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CardHoldRequest, ChargeRequest, CheckScan, DeviceStatus, PrintJob, TerminalResult } from '../../core/devices.ts';
import {
  DEVICE_KINDS,
  deviceSettingsSchema,
  type DeviceConfig,
  type DeviceHostApi,
  type DeviceKind,
  type DeviceOverview,
  type DeviceSettings,
  type KitchenPrinterOverview,
  type KitchenPrintRequest,
  type PortInfo,
} from '../../core/device-transport.ts';
import {
  CardTerminal,
  CheckScanner,
  DeviceError,
  listPorts,
  ReceiptPrinter,
  startDeviceSimulators,
  startPrinterSimulator,
  type DeviceSimulators,
  type PrinterSimulator,
} from '../devices/index.ts';

/** Hub settings. Times in milliseconds. */
export interface DeviceHubOptions {
  /**
   * Where the settings (`devices.json`), the print queue (`print-queue/`), the kitchen printers' queues
   * (`kitchen-queues/<station>/`) and the simulator ports (`ports/`, a kitchen printer's `kitchen-<station>`) live.
   */
  dataDir: string;
  /** `auto`: devices without settings run on simulators; `never`: they are `none`. Default `auto`. */
  simulators?: 'auto' | 'never';
  /** Card terminal: wait for a RESULT before asking STATUS. Default 120 000 (the customer is at the terminal). */
  terminalResponseTimeoutMs?: number;
  /** Card terminal: wait for a STATUS answer. Default 3000. */
  terminalStatusTimeoutMs?: number;
  /** Card terminal: wait for the ACK of a frame before sending it again (ECR link). Default 1000. */
  terminalAckTimeoutMs?: number;
  /** Receipt printer: pause between retries while it is off or out of paper. Default 1000. */
  printerRetryIntervalMs?: number;
  /** Check scanner: wait for a check after SCAN. Default 30 000. */
  scanTimeoutMs?: number;
  /** Simulated "customer at the terminal" time. Default 300. */
  simulatorProcessingMs?: number;
  log?: (message: string) => void;
}

type HubEvents = { status: [DeviceStatus] };

const SETTINGS_FILE = 'devices.json';

/** Settings used when none are stored. */
export function defaultDeviceSettings(simulators: 'auto' | 'never'): DeviceSettings {
  const mode = simulators === 'auto' ? 'simulator' : 'none';
  return { printer: { mode }, terminal: { mode }, checkScanner: { mode }, kitchenPrinters: {} };
}

/** The device host. Start with `DeviceHub.start(options)`; `close()` stops drivers and simulators. */
export class DeviceHub extends EventEmitter<HubEvents> implements DeviceHostApi {
  readonly #options: DeviceHubOptions;
  #settings: DeviceSettings;
  #simulators: DeviceSimulators | undefined;
  #printer: ReceiptPrinter | undefined;
  #terminal: CardTerminal | undefined;
  #scanner: CheckScanner | undefined;
  readonly #kitchen = new Map<string, ReceiptPrinter>();
  readonly #kitchenSimulators = new Map<string, PrinterSimulator>();
  readonly #kitchenStatus = new Map<string, DeviceStatus>();
  readonly #status = new Map<DeviceKind, DeviceStatus>();
  #reconfiguring: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(options: DeviceHubOptions, settings: DeviceSettings) {
    super();
    this.#options = options;
    this.#settings = settings;
  }

  /** Loads the settings (or the defaults), starts the simulators they need and opens the drivers. */
  static async start(options: DeviceHubOptions): Promise<DeviceHub> {
    await mkdir(options.dataDir, { recursive: true });
    const settings = await loadDeviceSettings(options.dataDir, options.simulators ?? 'auto');
    const hub = new DeviceHub(options, settings);
    await hub.#openAll();
    return hub;
  }

  /** The running simulators (tests drive them: power off the printer, drop a terminal response…). */
  get simulators(): DeviceSimulators | undefined {
    return this.#simulators;
  }

  /** The simulator of a kitchen station's printer set to `simulator` (tests read its tickets). */
  kitchenSimulator(stationId: string): PrinterSimulator | undefined {
    return this.#kitchenSimulators.get(stationId);
  }

  #log(message: string): void {
    this.#options.log?.(message);
  }

  #setStatus(status: DeviceStatus): void {
    const last = this.#status.get(status.device);
    if (last && last.state === status.state && last.detail === status.detail) return;
    this.#status.set(status.device, status);
    this.emit('status', status);
  }

  #pathOf(kind: DeviceKind): string | undefined {
    const config = this.#settings[kind];
    if (config.mode === 'serial') return config.serial?.path;
    if (config.mode === 'simulator') return this.#simulators?.paths[kind];
    return undefined;
  }

  #portOf(kind: DeviceKind): DeviceConfig['serial'] | undefined {
    const config = this.#settings[kind];
    if (config.mode === 'serial') return config.serial;
    const path = this.#pathOf(kind);
    return path ? { path, baudRate: 9600, parity: 'none', dataBits: 8, stopBits: 1 } : undefined;
  }

  async #openAll(): Promise<void> {
    const needsSimulators = DEVICE_KINDS.some((kind) => this.#settings[kind].mode === 'simulator');
    if (needsSimulators && !this.#simulators) {
      try {
        this.#simulators = await startDeviceSimulators({
          dir: join(this.#options.dataDir, 'ports'),
          processingMs: this.#options.simulatorProcessingMs ?? 300,
        });
        this.#log(`device simulators on ${join(this.#options.dataDir, 'ports')}`);
      } catch (error) {
        this.#log(`device simulators could not start: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    for (const kind of DEVICE_KINDS) await this.#open(kind);
    for (const station of Object.keys(this.#settings.kitchenPrinters)) if (!this.#kitchen.has(station)) await this.#openKitchen(station);
  }

  #kitchenPort(station: string): DeviceConfig['serial'] | undefined {
    const config = this.#settings.kitchenPrinters[station];
    if (config?.mode === 'serial') return config.serial;
    const path = config?.mode === 'simulator' ? this.#kitchenSimulators.get(station)?.devicePath : undefined;
    return path ? { path, baudRate: 9600, parity: 'none', dataBits: 8, stopBits: 1 } : undefined;
  }

  /**
   * Opens the printer of a kitchen station (starting its simulator first when it is set to `simulator`). Its queue is
   * `kitchen-queues/<station>/` whatever the port, so tickets journaled before a crash or a port change print there.
   */
  async #openKitchen(station: string): Promise<void> {
    const config = this.#settings.kitchenPrinters[station];
    const report = (status: DeviceStatus) => this.#kitchenStatus.set(station, status);
    if (!config || config.mode === 'none') {
      report({ device: 'printer', state: 'offline', detail: 'not configured' });
      return;
    }
    if (config.mode === 'simulator' && !this.#kitchenSimulators.has(station)) {
      try {
        this.#kitchenSimulators.set(station, await startPrinterSimulator({ dir: join(this.#options.dataDir, 'ports'), name: `kitchen-${station}` }));
      } catch (error) {
        this.#log(`kitchen printer simulator ${station} could not start: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const port = this.#kitchenPort(station);
    if (!port) {
      report({ device: 'printer', state: 'error', detail: 'simulator unavailable (is socat installed?)' });
      return;
    }
    try {
      const printer = await ReceiptPrinter.open({
        port,
        queueDir: join(this.#options.dataDir, 'kitchen-queues', station),
        retryIntervalMs: this.#options.printerRetryIntervalMs ?? 1000,
      });
      printer.on('status', report);
      printer.on('jobFailed', ({ jobId, reason }) => this.#log(`kitchen ticket ${jobId} (${station}) failed: ${reason}`));
      this.#kitchen.set(station, printer);
      void printer.queryStatus().catch(() => undefined);
    } catch (error) {
      report({ device: 'printer', state: 'offline', detail: (error instanceof Error ? error.message : String(error)).slice(0, 200) });
    }
  }

  async #closeKitchen(station: string): Promise<void> {
    await this.#kitchen
      .get(station)
      ?.close()
      .catch(() => undefined);
    this.#kitchen.delete(station);
    this.#kitchenStatus.delete(station);
    await this.#kitchenSimulators
      .get(station)
      ?.stop()
      .catch(() => undefined);
    this.#kitchenSimulators.delete(station);
  }

  async #open(kind: DeviceKind): Promise<void> {
    const config = this.#settings[kind];
    const port = this.#portOf(kind);
    if (config.mode === 'none') {
      this.#setStatus({ device: kind, state: 'offline', detail: 'not configured' });
      return;
    }
    if (!port) {
      this.#setStatus({ device: kind, state: 'error', detail: 'simulator unavailable (is socat installed?)' });
      return;
    }
    try {
      if (kind === 'printer') {
        const printer = await ReceiptPrinter.open({
          port,
          queueDir: join(this.#options.dataDir, 'print-queue'),
          retryIntervalMs: this.#options.printerRetryIntervalMs ?? 1000,
        });
        printer.on('status', (status) => this.#setStatus(status));
        printer.on('jobFailed', ({ jobId, reason }) => this.#log(`print job ${jobId} failed: ${reason}`));
        this.#printer = printer;
        void printer.queryStatus().catch(() => undefined);
      } else if (kind === 'terminal') {
        const terminal = await CardTerminal.open({
          port,
          responseTimeoutMs: this.#options.terminalResponseTimeoutMs ?? 120_000,
          statusTimeoutMs: this.#options.terminalStatusTimeoutMs ?? 3000,
          ...(this.#options.terminalAckTimeoutMs !== undefined ? { ackTimeoutMs: this.#options.terminalAckTimeoutMs } : {}),
        });
        terminal.on('status', (status) => this.#setStatus(status));
        terminal.on('frameError', (error) => this.#log(`terminal frame error: ${error.message}`));
        this.#terminal = terminal;
        this.#setStatus({ device: 'terminal', state: 'ready' });
      } else {
        const scanner = await CheckScanner.open({ port, scanTimeoutMs: this.#options.scanTimeoutMs ?? 30_000 });
        scanner.on('status', (status) => this.#setStatus(status));
        this.#scanner = scanner;
        this.#setStatus({ device: 'checkScanner', state: 'ready' });
      }
    } catch (error) {
      this.#setStatus({ device: kind, state: 'offline', detail: (error instanceof Error ? error.message : String(error)).slice(0, 200) });
    }
  }

  async #closeDriver(kind: DeviceKind): Promise<void> {
    if (kind === 'printer') {
      await this.#printer?.close().catch(() => undefined);
      this.#printer = undefined;
    } else if (kind === 'terminal') {
      await this.#terminal?.close().catch(() => undefined);
      this.#terminal = undefined;
    } else {
      await this.#scanner?.close().catch(() => undefined);
      this.#scanner = undefined;
    }
  }

  #notConfigured(kind: DeviceKind): DeviceError {
    return new DeviceError('port_open_failed', `no ${kind === 'checkScanner' ? 'check scanner' : kind} is configured on this register`);
  }

  async #printerOrThrow(): Promise<ReceiptPrinter> {
    await this.#reconfiguring;
    if (!this.#printer && this.#settings.printer.mode !== 'none') await this.#open('printer');
    if (!this.#printer) throw this.#notConfigured('printer');
    return this.#printer;
  }

  async #terminalOrThrow(): Promise<CardTerminal> {
    await this.#reconfiguring;
    if (!this.#terminal && this.#settings.terminal.mode !== 'none') await this.#open('terminal');
    if (!this.#terminal) throw this.#notConfigured('terminal');
    return this.#terminal;
  }

  async #scannerOrThrow(): Promise<CheckScanner> {
    await this.#reconfiguring;
    if (!this.#scanner && this.#settings.checkScanner.mode !== 'none') await this.#open('checkScanner');
    if (!this.#scanner) throw this.#notConfigured('checkScanner');
    return this.#scanner;
  }

  /** Queues a print job (journaled before this resolves). */
  async print(job: PrintJob): Promise<{ queued: true }> {
    await (await this.#printerOrThrow()).print(job);
    return { queued: true };
  }

  /**
   * Queues a kitchen ticket on the printer of `stationId` (journaled in that printer's queue before this resolves).
   * The job id is the idempotency key: a ticket queued or printed before is answered `duplicate: true` and not printed
   * again, also after a restart. Throws `DeviceError('station_not_configured')` for a station without a printer,
   * `port_open_failed` when its driver cannot start (queue unusable), `invalid_input` for a job that could never print.
   */
  async printKitchen({ stationId, job }: KitchenPrintRequest): Promise<{ queued: true; duplicate: boolean }> {
    await this.#reconfiguring;
    const config = this.#settings.kitchenPrinters[stationId];
    if (!config || config.mode === 'none') throw new DeviceError('station_not_configured', `no kitchen printer is set up for station ${stationId}`);
    if (!this.#kitchen.has(stationId)) await this.#openKitchen(stationId);
    const printer = this.#kitchen.get(stationId);
    if (!printer)
      throw new DeviceError(
        'port_open_failed',
        `the kitchen printer of station ${stationId} cannot be used: ${this.#kitchenStatus.get(stationId)?.detail ?? 'unknown'}`,
      );
    const { duplicate } = await printer.print(job);
    return { queued: true, duplicate };
  }

  /** The kitchen printers of the settings: mode, last status, port and tickets waiting. */
  async kitchenPrinters(): Promise<KitchenPrinterOverview[]> {
    return Object.entries(this.#settings.kitchenPrinters).map(([stationId, config]) => {
      const path = this.#kitchenPort(stationId)?.path;
      const status = this.#kitchenStatus.get(stationId) ?? { device: 'printer' as const, state: 'busy' as const, detail: 'starting' };
      return {
        stationId,
        mode: config.mode,
        status,
        ...(path ? { path } : {}),
        pendingJobs: this.#kitchen.get(stationId)?.pendingJobs().length ?? 0,
      };
    });
  }

  /** Kicks the cash drawer (wired to the receipt printer). */
  async openDrawer(): Promise<void> {
    await (await this.#printerOrThrow()).openDrawer();
  }

  /** A terminal call, re-opening the port once when it went away (a pulled and re-plugged cable). */
  async #withTerminal(call: (terminal: CardTerminal) => Promise<TerminalResult & { ref?: string }>): Promise<TerminalResult> {
    let terminal = await this.#terminalOrThrow();
    let reply: TerminalResult & { ref?: string };
    try {
      reply = await call(terminal);
    } catch (error) {
      if (!(error instanceof DeviceError) || error.code !== 'disconnected') throw error;
      await this.#closeDriver('terminal');
      terminal = await this.#terminalOrThrow();
      reply = await call(terminal);
    }
    const { ref: _ref, ...result } = reply;
    return result;
  }

  /** A step of a card hold (pre-authorise, raise, tip, capture, release); same guarantees as `charge`. */
  cardHold(request: CardHoldRequest): Promise<TerminalResult> {
    return this.#withTerminal((terminal) => terminal.hold(request));
  }

  /** A card-present sale; the driver resolves a lost answer with a STATUS query (never charges twice). */
  charge(request: ChargeRequest): Promise<TerminalResult> {
    return this.#withTerminal((terminal) => terminal.charge(request));
  }

  /** A refund to the card behind `token`. */
  refund(request: ChargeRequest & { token: string }): Promise<TerminalResult> {
    return this.#withTerminal((terminal) => terminal.refund(request));
  }

  /** Feeds one check and answers its MICR fields and image. */
  async scanCheck(): Promise<CheckScan> {
    return (await this.#scannerOrThrow()).scanCheck();
  }

  /** Subscribes to status events; returns the unsubscribe function. */
  onStatus(listener: (status: DeviceStatus) => void): () => void {
    this.on('status', listener);
    return () => this.off('status', listener);
  }

  /** Serial ports of the machine and the simulators' ports (the simulators' own ends, `*.sim`, left out). */
  async listPorts(): Promise<PortInfo[]> {
    const ports = await listPorts({ linkDirs: [join(this.#options.dataDir, 'ports')] });
    return ports.filter((port) => !port.path.endsWith('.sim')).slice(0, 500);
  }

  /** The stored settings (defaults applied). */
  async getSettings(): Promise<DeviceSettings> {
    return structuredClone(this.#settings);
  }

  /**
   * Stores new settings (atomically: temp file + rename) and re-opens the devices whose settings changed. Pending
   * print jobs stay in the queue and print on the new port.
   */
  async saveSettings(settings: DeviceSettings): Promise<DeviceOverview[]> {
    const parsed = deviceSettingsSchema.parse(settings);
    const run = this.#reconfiguring.then(async () => {
      const changed = DEVICE_KINDS.filter((kind) => JSON.stringify(parsed[kind]) !== JSON.stringify(this.#settings[kind]));
      await saveDeviceSettings(this.#options.dataDir, parsed);
      const previous = this.#settings;
      this.#settings = parsed;
      for (const kind of changed) {
        await this.#closeDriver(kind);
        this.#status.delete(kind);
      }
      const stations = new Set([...Object.keys(previous.kitchenPrinters), ...Object.keys(parsed.kitchenPrinters)]);
      const changedStations = [...stations].filter(
        (station) => JSON.stringify(parsed.kitchenPrinters[station]) !== JSON.stringify(previous.kitchenPrinters[station]),
      );
      for (const station of changedStations) await this.#closeKitchen(station);
      if (changed.length > 0) {
        const needsSimulators = DEVICE_KINDS.some((kind) => parsed[kind].mode === 'simulator');
        if (needsSimulators && !this.#simulators) {
          await this.#openAll();
          return;
        }
        for (const kind of changed) await this.#open(kind);
      }
      for (const station of changedStations) if (parsed.kitchenPrinters[station]) await this.#openKitchen(station);
    });
    this.#reconfiguring = run.catch(() => undefined);
    await run;
    return this.getStatus();
  }

  /** The card terminal driver's last link events (see `EcrLink.recentEvents`), for diagnostics; empty with no terminal open. */
  terminalLinkEvents(): readonly string[] {
    return this.#terminal?.recentLinkEvents ?? [];
  }

  /** Every device: mode, last status, port. */
  async getStatus(): Promise<DeviceOverview[]> {
    return DEVICE_KINDS.map((kind) => {
      const mode = this.#settings[kind].mode;
      const path = this.#pathOf(kind);
      const status = this.#status.get(kind) ?? {
        device: kind,
        state: mode === 'none' ? 'offline' : 'busy',
        detail: mode === 'none' ? 'not configured' : 'starting',
      };
      return { device: kind, mode, status, ...(path ? { path } : {}) };
    });
  }

  /** Prints a short test page with the settings in use and a QR code. */
  async testPrint(): Promise<{ queued: true }> {
    const port = this.#portOf('printer');
    const now = new Date();
    return this.print({
      jobId: `test-${now.getTime().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      blocks: [
        { kind: 'text', text: 'TEST PRINT', align: 'center', bold: true, doubleSize: true },
        { kind: 'text', text: `Mode: ${this.#settings.printer.mode}`, align: 'center' },
        { kind: 'text', text: `Port: ${port?.path ?? '-'} ${port ? `${port.baudRate} ${port.parity}` : ''}`.trim(), align: 'center' },
        { kind: 'text', text: now.toISOString(), align: 'center' },
        { kind: 'qr', data: 'register:test-print' },
        { kind: 'feed', lines: 2 },
        { kind: 'cut' },
      ],
    });
  }

  /** Closes every driver and stops the simulators. Pending print jobs stay journaled for the next start. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reconfiguring;
    for (const kind of DEVICE_KINDS) await this.#closeDriver(kind);
    for (const station of new Set([...this.#kitchen.keys(), ...this.#kitchenSimulators.keys()])) await this.#closeKitchen(station);
    await this.#simulators?.stop().catch(() => undefined);
    this.#simulators = undefined;
    this.removeAllListeners();
  }
}

/** Reads `devices.json` in `dataDir`; a missing or unreadable file gives the defaults. */
export async function loadDeviceSettings(dataDir: string, simulators: 'auto' | 'never'): Promise<DeviceSettings> {
  const text = await readFile(join(dataDir, SETTINGS_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return defaultDeviceSettings(simulators);
  try {
    return deviceSettingsSchema.parse(JSON.parse(text));
  } catch {
    return defaultDeviceSettings(simulators);
  }
}

/** Writes `devices.json` atomically (temp file + rename), readable by the owner only. */
export async function saveDeviceSettings(dataDir: string, settings: DeviceSettings): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, SETTINGS_FILE);
  await writeFile(`${path}.tmp`, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}
