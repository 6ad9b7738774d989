/**
 * Check-scanner simulator: the far end of a socat pseudo-terminal pair speaking the scanner protocol of
 * `micr/scanner-protocol.ts`. Checks are loaded into its feeder with `load(...)`; each `SCAN` from the host sends the
 * next one (its MICR line verbatim — any substitution scheme — and its PNG, or the documented placeholder image), or
 * `ERR NO_CHECK` when the feeder is empty. Bad reads are simulated by loading bad MICR lines, scanner errors
 * (`{ error: 'JAM' }`), or raw bytes (`{ raw }`: oversized lines, garbage, a truncated record).
 */
import type { SerialSettingsInput } from '../../../core/devices.ts';
import { placeholderCheckPng } from '../micr/placeholder-png.ts';
import { encodeCheckRecord } from '../micr/scanner-protocol.ts';
import { createPtyPair, type PtyPair } from '../serial/pty-pair.ts';
import { openSerialPort, type SerialConnection } from '../serial/transport.ts';

/** One item in the simulated feeder. */
export type SimulatedCheck =
  /** A check: its MICR line as the scanner spells it; `image` false sends none, a Buffer sends that PNG. */
  | { micr: string; image?: Uint8Array | false }
  /** The scanner reports a problem instead of a check. */
  | { error: 'JAM' | 'DOUBLE_FEED' | 'NO_CHECK' }
  /** Bytes sent as they are (protocol faults). */
  | { raw: Uint8Array };

/** Simulator settings. */
export interface CheckScannerSimulatorOptions {
  dir?: string;
  /** Link base name. Default `check-scanner`. */
  name?: string;
  serial?: Omit<SerialSettingsInput, 'path'>;
  /** Checks in the feeder at start. */
  checks?: SimulatedCheck[];
}

/** A running check-scanner simulator; `devicePath` is what the driver opens. */
export class CheckScannerSimulator {
  readonly #pair: PtyPair;
  readonly #connection: SerialConnection;
  readonly #feeder: SimulatedCheck[];
  #input = '';
  /** SCAN commands received. */
  scans = 0;

  private constructor(pair: PtyPair, connection: SerialConnection, checks: SimulatedCheck[]) {
    this.#pair = pair;
    this.#connection = connection;
    this.#feeder = [...checks];
    connection.on('data', (chunk) => {
      this.#input = (this.#input + chunk.toString('latin1')).slice(-64);
      let end: number;
      while ((end = this.#input.indexOf('\r\n')) >= 0) {
        const line = this.#input.slice(0, end);
        this.#input = this.#input.slice(end + 2);
        if (line === 'SCAN') {
          this.scans += 1;
          void this.#sendNext();
        }
      }
    });
  }

  /** Creates the pty pair and opens the scanner end. */
  static async start(options: CheckScannerSimulatorOptions = {}): Promise<CheckScannerSimulator> {
    const pair = await createPtyPair({ ...(options.dir ? { dir: options.dir } : {}), name: options.name ?? 'check-scanner' });
    try {
      const connection = await openSerialPort({ ...options.serial, path: pair.simulatorPath });
      return new CheckScannerSimulator(pair, connection, options.checks ?? []);
    } catch (error) {
      await pair.close();
      throw error;
    }
  }

  /** The path the check-scanner driver opens. */
  get devicePath(): string {
    return this.#pair.devicePath;
  }

  /** Puts checks (or faults) in the feeder, in order. */
  load(...checks: SimulatedCheck[]): void {
    this.#feeder.push(...checks);
  }

  /** Sends one item now, without a SCAN (a check pushed through by hand). */
  async emit(check: SimulatedCheck): Promise<void> {
    await this.#connection.write(encode(check));
  }

  async #sendNext(): Promise<void> {
    const next = this.#feeder.shift() ?? { error: 'NO_CHECK' as const };
    await this.#connection.write(encode(next)).catch(() => undefined);
  }

  /** Pulls the cable: ends socat so both ends see the device go away. */
  async unplug(): Promise<void> {
    await this.#pair.close();
  }

  /** Stops the simulator and removes its pty pair. */
  async stop(): Promise<void> {
    await this.#connection.close();
    await this.#pair.close();
  }
}

function encode(check: SimulatedCheck): Uint8Array {
  if ('raw' in check) return check.raw;
  if ('error' in check) return Buffer.from(`ERR ${check.error}\r\n`, 'ascii');
  const image = check.image === false ? undefined : (check.image ?? placeholderCheckPng());
  return encodeCheckRecord(check.micr, image);
}

/** Starts a check-scanner simulator (see `CheckScannerSimulator`). */
export function startCheckScannerSimulator(options: CheckScannerSimulatorOptions = {}): Promise<CheckScannerSimulator> {
  return CheckScannerSimulator.start(options);
}
