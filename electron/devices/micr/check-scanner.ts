/**
 * Check-scanner driver: asks the scanner to feed a check (`SCAN`), reads its record (MICR line + PNG
 * image, see `scanner-protocol.ts`), validates the MICR line (`micr.ts`: substitution scheme, ABA checksum) and
 * answers a `CheckScan` (core/devices.ts) with the image as base64 PNG. Bad reads are refused with a typed
 * `DeviceError` (codes `micr_*`, `scanner_jam`, `line_too_long`, `image_too_large`, `malformed_frame`, `timeout`,
 * `disconnected`).
 *
 * Events: `scan` (CheckScan) for every good record — also checks fed without a `scanCheck()` call —, `badRead`
 * (DeviceError) for every refused one, `status` (DeviceStatus).
 */
import { EventEmitter } from 'node:events';
import { checkScanSchema, type CheckScan, type DeviceStatus, type SerialSettingsInput } from '../../../core/devices.ts';
import { DeviceError } from '../errors.ts';
import { openSerialPort, type SerialConnection } from '../serial/transport.ts';
import { parseMicrLine, type MicrScheme } from './micr.ts';
import { isPng } from './placeholder-png.ts';
import { SCAN_COMMAND, ScannerRecordReader, type ScannerRecord } from './scanner-protocol.ts';

/** Driver settings. */
export interface CheckScannerOptions {
  port: SerialSettingsInput;
  /** The scanner's MICR substitution scheme; `auto` detects it per line. Default `auto`. */
  scheme?: MicrScheme | 'auto';
  /** Wait for a record after SCAN. Default 30 000 ms. */
  scanTimeoutMs?: number;
  /** Refuse records without an image. Default false. */
  requireImage?: boolean;
  /** Largest image accepted. Default 5 MiB. */
  maxImageBytes?: number;
}

type ScannerEvents = { scan: [CheckScan]; badRead: [DeviceError]; status: [DeviceStatus] };

/** Scanner error words mapped to the typed code (all are `scanner_jam` — the check did not pass cleanly). */
const SCANNER_REASONS: Record<string, string> = {
  JAM: 'the check jammed in the scanner',
  DOUBLE_FEED: 'two checks were fed at once',
  NO_CHECK: 'no check in the feeder',
};

/** The check-scanner driver. Construct with `CheckScanner.open(options)`. */
export class CheckScanner extends EventEmitter<ScannerEvents> {
  readonly #connection: SerialConnection;
  readonly #options: CheckScannerOptions;
  readonly #reader: ScannerRecordReader;
  #waiter: ((outcome: CheckScan | DeviceError) => void) | undefined;
  #closed = false;

  private constructor(connection: SerialConnection, options: CheckScannerOptions) {
    super();
    this.#connection = connection;
    this.#options = options;
    this.#reader = new ScannerRecordReader(options.maxImageBytes ? { maxImageBytes: options.maxImageBytes } : {});
    connection.on('data', (chunk) => {
      for (const record of this.#reader.push(chunk)) this.#onRecord(record);
    });
    connection.on('close', (info) => {
      this.#closed = true;
      if (info.unexpected) this.emit('status', { device: 'checkScanner', state: 'offline', detail: 'scanner disconnected' });
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter?.(new DeviceError('disconnected', 'the check scanner went away during the scan'));
    });
  }

  /** Opens the serial port. Throws `DeviceError('port_open_failed' | 'invalid_input')`. */
  static async open(options: CheckScannerOptions): Promise<CheckScanner> {
    const connection = await openSerialPort(options.port);
    await connection.flushInput();
    return new CheckScanner(connection, options);
  }

  /** Turns one record into a scan or a typed refusal. */
  #interpret(record: ScannerRecord): CheckScan | DeviceError {
    if (record.type === 'protocol_error') return new DeviceError(record.code, record.detail);
    if (record.type === 'scanner_error') {
      return new DeviceError('scanner_jam', SCANNER_REASONS[record.reason] ?? `the scanner reported ${record.reason}`, { reason: record.reason });
    }
    let fields;
    try {
      fields = parseMicrLine(record.micr, { scheme: this.#options.scheme ?? 'auto' });
    } catch (error) {
      return error instanceof DeviceError ? error : new DeviceError('malformed_frame', String(error));
    }
    if (record.image && !isPng(record.image)) return new DeviceError('malformed_frame', 'the check image is not a PNG');
    if (!record.image && this.#options.requireImage) return new DeviceError('malformed_frame', 'the scanner sent no check image');
    const scan: CheckScan = {
      routingNumber: fields.routingNumber,
      accountNumber: fields.accountNumber,
      ...(fields.checkNumber ? { checkNumber: fields.checkNumber } : {}),
      ...(fields.auxOnUs ? { auxOnUs: fields.auxOnUs } : {}),
      ...(fields.amountCents !== undefined ? { amountCents: fields.amountCents } : {}),
      ...(record.image ? { imagePng: Buffer.from(record.image).toString('base64') } : {}),
    };
    const checked = checkScanSchema.safeParse(scan);
    return checked.success ? checked.data : new DeviceError('micr_missing_account', 'the MICR fields do not fit a check scan');
  }

  #onRecord(record: ScannerRecord): void {
    const outcome = this.#interpret(record);
    if (outcome instanceof DeviceError) this.emit('badRead', outcome);
    else this.emit('scan', outcome);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(outcome);
  }

  /**
   * Feeds one check and resolves with its validated fields and image; rejects with the typed refusal of a bad read,
   * `timeout` when nothing comes, `disconnected` when the scanner goes away meanwhile, and `invalid_input` for a
   * second call while one is waiting.
   */
  async scanCheck(): Promise<CheckScan> {
    if (this.#closed) throw new DeviceError('disconnected', 'the check scanner is not connected');
    if (this.#waiter) throw new DeviceError('invalid_input', 'a scan is already in progress');
    let settle: (value: CheckScan | DeviceError) => void = () => undefined;
    const outcome = new Promise<CheckScan | DeviceError>((resolve) => {
      const timer = setTimeout(() => resolve(new DeviceError('timeout', 'no check was read in time')), this.#options.scanTimeoutMs ?? 30_000);
      settle = (value) => {
        clearTimeout(timer);
        resolve(value);
      };
    });
    this.#waiter = settle;
    try {
      this.emit('status', { device: 'checkScanner', state: 'busy' });
      await this.#connection.write(SCAN_COMMAND);
    } catch (error) {
      settle(error instanceof DeviceError ? error : new DeviceError('write_failed', String(error)));
    }
    const result = await outcome;
    if (this.#waiter === settle) this.#waiter = undefined;
    if (result instanceof DeviceError) {
      if (result.code !== 'disconnected') this.emit('status', { device: 'checkScanner', state: 'ready' });
      throw result;
    }
    this.emit('status', { device: 'checkScanner', state: 'ready' });
    return result;
  }

  /** Closes the serial port. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#connection.close();
  }
}
