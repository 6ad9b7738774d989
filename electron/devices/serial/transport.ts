/**
 * Serial transport on `serialport`: opens a device with path, baud rate, parity, data bits and stop
 * bits, moves raw bytes, and reports an unplugged device (or a closed pseudo-terminal) as a `close` event with
 * `unexpected: true`. Drivers and simulators both sit on this class, so the simulators speak the very same bytes
 * through real pseudo-terminals.
 *
 * The native binding (`@serialport/bindings-cpp`) ships prebuilt for linux/darwin/win32 x64+arm64 and loads through
 * `node-gyp-build` without an install script; it is imported lazily so that a machine where it cannot load gets a
 * typed `port_open_failed` error instead of a crash at import time.
 */
import { EventEmitter } from 'node:events';
import { readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { serialSettingsSchema, type SerialSettings, type SerialSettingsInput } from '../../../core/devices.ts';
import { DeviceError } from '../errors.ts';

type SerialPortModule = typeof import('serialport');
let serialPortModule: Promise<SerialPortModule> | undefined;

async function loadSerialPort(): Promise<SerialPortModule> {
  serialPortModule ??= import('serialport');
  try {
    return await serialPortModule;
  } catch (error) {
    serialPortModule = undefined;
    throw new DeviceError('port_open_failed', 'the serialport native binding cannot be loaded on this machine', {
      cause: String(error),
    });
  }
}

/** Why a connection closed: `unexpected` is true when the device went away (not a call to `close()`). */
export interface SerialCloseInfo {
  unexpected: boolean;
  error?: Error;
}

type SerialEvents = { data: [Buffer]; close: [SerialCloseInfo] };

/** How often an open connection checks that its device node still exists, ms. */
const PRESENCE_CHECK_MS = 500;

/**
 * One open serial device. Events: `data` (a chunk of bytes as the OS delivered it — frames may be split or joined),
 * `close` (once; `unexpected: true` when unplugged). Writes resolve after the bytes are handed to the OS (`drain`).
 */
export class SerialConnection extends EventEmitter<SerialEvents> {
  #closing = false;
  #closed = false;
  readonly #presence: ReturnType<typeof setInterval>;

  private constructor(
    private readonly port: import('serialport').SerialPort,
    /** The settings the port was opened with (defaults applied). */
    readonly settings: SerialSettings,
  ) {
    super();
    port.on('data', (chunk: Buffer) => this.emit('data', chunk));
    port.on('error', () => {
      // 'error' on an open port is followed by 'close' (disconnected); nothing to do here, but the listener keeps
      // Node from treating it as an unhandled error event.
    });
    port.on('close', (error?: Error & { disconnected?: boolean }) => {
      clearInterval(this.#presence);
      if (this.#closed) return;
      this.#closed = true;
      this.emit('close', error ? { unexpected: !this.#closing, error } : { unexpected: !this.#closing });
    });
    // The binding reports a hang-up when its poller sees one; a device node that is gone (a USB adapter pulled, a
    // pseudo-terminal whose other side ended) is also noticed here, in case that report never comes (seen with
    // pseudo-terminals on a loaded machine: a scan waited out its timeout after the cable was pulled).
    this.#presence = setInterval(() => {
      stat(settings.path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') this.#lost(new Error(`${settings.path} is gone (${error.code})`));
      });
    }, PRESENCE_CHECK_MS);
    this.#presence.unref();
  }

  /** The device went away (its node is gone): closed as if unplugged, once. */
  #lost(error: Error): void {
    clearInterval(this.#presence);
    if (this.#closed) return;
    this.#closed = true;
    this.emit('close', { unexpected: !this.#closing, error });
    if (this.port.isOpen) this.port.close(() => undefined);
  }

  /**
   * Opens a serial device. Throws `DeviceError('invalid_input')` for bad settings and `DeviceError('port_open_failed')`
   * when the path cannot be opened.
   */
  static async open(input: SerialSettingsInput): Promise<SerialConnection> {
    const parsed = serialSettingsSchema.safeParse(input);
    if (!parsed.success) {
      throw new DeviceError('invalid_input', `bad serial settings: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
        issues: parsed.error.issues,
      });
    }
    const settings = parsed.data;
    const { SerialPort } = await loadSerialPort();
    const port = new SerialPort({
      path: settings.path,
      baudRate: settings.baudRate,
      parity: settings.parity,
      dataBits: settings.dataBits,
      stopBits: settings.stopBits,
      autoOpen: false,
    });
    await new Promise<void>((resolve, reject) => {
      port.open((error) => {
        if (error) {
          reject(new DeviceError('port_open_failed', `cannot open ${settings.path}: ${error.message}`, { path: settings.path }));
        } else resolve();
      });
    });
    return new SerialConnection(port, settings);
  }

  /** True until `close()` is called or the device goes away. */
  get isOpen(): boolean {
    return !this.#closed && this.port.isOpen;
  }

  /** Writes bytes and waits until the OS has taken them. Throws `port_closed` / `write_failed`. */
  async write(bytes: Uint8Array): Promise<void> {
    if (!this.isOpen) throw new DeviceError('port_closed', `${this.settings.path} is not open`);
    const failed = (error: Error): DeviceError =>
      /EIO|ENXIO|EBADF|ENODEV|not open/i.test(error.message)
        ? new DeviceError('disconnected', `${this.settings.path} went away: ${error.message}`)
        : new DeviceError('write_failed', `write to ${this.settings.path} failed: ${error.message}`);
    await new Promise<void>((resolve, reject) => {
      this.port.write(Buffer.from(bytes), (error) => {
        if (error) reject(failed(error));
      });
      this.port.drain((error) => {
        if (error) reject(failed(error));
        else resolve();
      });
    });
  }

  /** Discards bytes the OS has buffered but nobody has read yet (stale input from before a reconnect). */
  async flushInput(): Promise<void> {
    if (!this.isOpen) return;
    await new Promise<void>((resolve) => this.port.flush(() => resolve()));
  }

  /** Closes the port; resolves when closed. Idempotent. */
  async close(): Promise<void> {
    clearInterval(this.#presence);
    if (this.#closed) return;
    this.#closing = true;
    await new Promise<void>((resolve) => {
      if (!this.port.isOpen) {
        this.#closed = true;
        this.emit('close', { unexpected: false });
        resolve();
        return;
      }
      this.port.close(() => resolve());
    });
  }
}

/** Opens a serial device (see `SerialConnection.open`). */
export function openSerialPort(settings: SerialSettingsInput): Promise<SerialConnection> {
  return SerialConnection.open(settings);
}

/** One serial device found on the machine. */
export interface SerialPortInfo {
  path: string;
  manufacturer?: string;
  serialNumber?: string;
  vendorId?: string;
  productId?: string;
  /** `serialport` = reported by the binding's enumerator; `dev-scan` = found under /dev; `link` = a symlink in an extra directory (simulators). */
  source: 'serialport' | 'dev-scan' | 'link';
  /** For `link`: the pseudo-terminal it points to. */
  target?: string;
}

const DEV_PATTERNS = [/^ttyUSB\d+$/, /^ttyACM\d+$/, /^ttyS\d+$/, /^ttyAMA\d+$/, /^cu\..+$/, /^rfcomm\d+$/];

/**
 * Lists serial devices. Uses `SerialPort.list()`; on Linux that needs `udevadm`, so when it fails (containers, CI) the
 * list falls back to scanning `/dev` (ttyUSB*, ttyACM*, ttyS*, ttyAMA*, /dev/serial/by-id/*). `linkDirs` adds the
 * symlinks found in those directories — simulators create their pseudo-terminal links there. Never throws.
 */
export async function listPorts(options: { linkDirs?: string[] } = {}): Promise<SerialPortInfo[]> {
  const found = new Map<string, SerialPortInfo>();
  try {
    const { SerialPort } = await loadSerialPort();
    for (const port of await SerialPort.list()) {
      found.set(port.path, {
        path: port.path,
        source: 'serialport',
        ...(port.manufacturer ? { manufacturer: port.manufacturer } : {}),
        ...(port.serialNumber ? { serialNumber: port.serialNumber } : {}),
        ...(port.vendorId ? { vendorId: port.vendorId } : {}),
        ...(port.productId ? { productId: port.productId } : {}),
      });
    }
  } catch {
    for (const name of await readdir('/dev').catch(() => [] as string[])) {
      if (DEV_PATTERNS.some((pattern) => pattern.test(name))) found.set(`/dev/${name}`, { path: `/dev/${name}`, source: 'dev-scan' });
    }
    for (const name of await readdir('/dev/serial/by-id').catch(() => [] as string[])) {
      const path = `/dev/serial/by-id/${name}`;
      found.set(path, { path, source: 'dev-scan' });
    }
  }
  for (const dir of options.linkDirs ?? []) {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name);
      const target = await readlink(path).catch(() => undefined);
      if (!target) continue;
      const isCharDevice = await stat(path)
        .then((info) => info.isCharacterDevice())
        .catch(() => false);
      if (isCharDevice) found.set(path, { path, source: 'link', target });
    }
  }
  return [...found.values()].sort((a, b) => a.path.localeCompare(b.path));
}
