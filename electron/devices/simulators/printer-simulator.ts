/**
 * Receipt-printer simulator: the far end of a socat pseudo-terminal pair that decodes ESC/POS (with the same
 * `EscPosDecoder` the tests check against the python-escpos samples) into lines, styles and events, groups them into
 * receipts at each cut, and answers real-time status requests (DLE EOT n) from its condition. It can be switched off
 * (bytes dropped, no status answers, the page being printed is torn off), run out of paper, open its cover, or be
 * told to lose power after a given number of bytes (to cut a job in the middle).
 */
import { EventEmitter } from 'node:events';
import type { SerialSettingsInput } from '../../../core/devices.ts';
import { EscPosDecoder, type DecodedLine, type EscPosEvent } from '../escpos/decoder.ts';
import { statusByteFor, type PrinterCondition } from '../escpos/status.ts';
import { createPtyPair, type PtyPair } from '../serial/pty-pair.ts';
import { openSerialPort, type SerialConnection } from '../serial/transport.ts';

/** A page of paper between two cuts (or torn off by a power cut). */
export interface SimulatedReceipt {
  lines: DecodedLine[];
  /** Every decoded event of the page (lines, barcodes, QR codes, feeds, drawer kicks, the cut). */
  events: EscPosEvent[];
  /** Plain text of the page, lines joined with `\n`. */
  text: string;
}

/** Simulator settings. */
export interface PrinterSimulatorOptions {
  /** Where to create the pty links (a fresh temp dir when omitted). */
  dir?: string;
  /** Link base name. Default `printer`. */
  name?: string;
  /** Serial settings (besides the path). Default 9600 8N1. */
  serial?: Omit<SerialSettingsInput, 'path'>;
}

type SimulatorEvents = {
  receipt: [SimulatedReceipt];
  event: [EscPosEvent];
  drawer: [{ pin: 2 | 5; onMs: number; offMs: number }];
};

/** A running printer simulator; `devicePath` is what the driver opens. */
export class PrinterSimulator extends EventEmitter<SimulatorEvents> {
  readonly #pair: PtyPair;
  readonly #connection: SerialConnection;
  #decoder = new EscPosDecoder();
  #page: EscPosEvent[] = [];
  #power = true;
  #paper: 'ok' | 'near_end' | 'out' = 'ok';
  #coverOpen = false;
  #powerOffAfter: number | undefined;
  /** Receipts completed by a cut, in order. */
  readonly receipts: SimulatedReceipt[] = [];
  /** Pages lost to a power cut before their cut. */
  readonly torn: SimulatedReceipt[] = [];
  /** Drawer kicks received. */
  drawerKicks = 0;
  /** Bytes received while powered on (for tests). */
  bytesReceived = 0;
  /** Bytes dropped while off or out of paper. */
  bytesDropped = 0;

  private constructor(pair: PtyPair, connection: SerialConnection) {
    super();
    this.#pair = pair;
    this.#connection = connection;
    connection.on('data', (chunk) => this.#onData(chunk));
  }

  /** Creates the pty pair and opens the printer end. */
  static async start(options: PrinterSimulatorOptions = {}): Promise<PrinterSimulator> {
    const pair = await createPtyPair({ ...(options.dir ? { dir: options.dir } : {}), name: options.name ?? 'printer' });
    try {
      const connection = await openSerialPort({ ...options.serial, path: pair.simulatorPath });
      return new PrinterSimulator(pair, connection);
    } catch (error) {
      await pair.close();
      throw error;
    }
  }

  /** The path the receipt-printer driver opens. */
  get devicePath(): string {
    return this.#pair.devicePath;
  }

  /** The condition the simulator reports to DLE EOT. */
  get condition(): PrinterCondition {
    return {
      online: this.#power && this.#paper !== 'out' && !this.#coverOpen,
      coverOpen: this.#coverOpen,
      paperOut: this.#paper === 'out',
      paperNearEnd: this.#paper === 'near_end',
      drawerSignal: false,
      error: false,
    };
  }

  /** Lines decoded since the last cut (the page still in the printer). */
  get currentPage(): DecodedLine[] {
    return this.#page.flatMap((event) => (event.type === 'line' ? [event.line] : []));
  }

  /** Power on/off. Off: every byte is dropped and status requests go unanswered; the unfinished page is torn off. */
  setPower(on: boolean): void {
    if (!on && this.#power) this.#tearOff();
    this.#power = on;
    this.#powerOffAfter = undefined;
  }

  /** Paper level. `out`: print data is dropped (status requests are still answered). */
  setPaper(level: 'ok' | 'near_end' | 'out'): void {
    this.#paper = level;
  }

  /** Cover open: print data is dropped (status requests are still answered). */
  setCover(open: boolean): void {
    this.#coverOpen = open;
  }

  /** Loses power once `bytes` more bytes have arrived (cuts a job in the middle). */
  powerOffAfter(bytes: number): void {
    this.#powerOffAfter = bytes;
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

  #tearOff(): void {
    // The half-printed line is on the paper too.
    for (const event of this.#decoder.end()) if (event.type === 'line') this.#page.push(event);
    if (this.#page.length > 0) this.torn.push(toReceipt(this.#page));
    this.#page = [];
    this.#decoder = new EscPosDecoder();
  }

  #onData(chunk: Buffer): void {
    let bytes: Uint8Array = chunk;
    if (!this.#power) {
      this.bytesDropped += bytes.length;
      return;
    }
    if (this.#powerOffAfter !== undefined) {
      if (bytes.length >= this.#powerOffAfter) {
        const kept = bytes.subarray(0, this.#powerOffAfter);
        this.bytesDropped += bytes.length - kept.length;
        this.#process(kept);
        this.setPower(false);
        return;
      }
      this.#powerOffAfter -= bytes.length;
    }
    this.#process(bytes);
  }

  #process(bytes: Uint8Array): void {
    this.bytesReceived += bytes.length;
    for (const event of this.#decoder.push(bytes)) {
      if (event.type === 'status_request') {
        // Real-time: answered at once, whatever the paper and cover say.
        this.#connection.write(Uint8Array.of(statusByteFor(event.n, this.condition))).catch(() => undefined);
        continue;
      }
      if (this.#paper === 'out' || this.#coverOpen) {
        this.bytesDropped += 1;
        continue;
      }
      this.emit('event', event);
      if (event.type === 'init' || event.type === 'code_page') continue;
      if (event.type === 'drawer') {
        // The drawer is not paper: it opens without being part of a page.
        this.drawerKicks += 1;
        this.emit('drawer', { pin: event.pin, onMs: event.onMs, offMs: event.offMs });
        continue;
      }
      this.#page.push(event);
      if (event.type === 'cut') {
        const receipt = toReceipt(this.#page);
        this.#page = [];
        this.receipts.push(receipt);
        this.emit('receipt', receipt);
      }
    }
  }
}

function toReceipt(events: EscPosEvent[]): SimulatedReceipt {
  const lines = events.flatMap((event) => (event.type === 'line' ? [event.line] : []));
  return { lines, events, text: lines.map((line) => line.text).join('\n') };
}

/** Starts a receipt-printer simulator (see `PrinterSimulator`). */
export function startPrinterSimulator(options: PrinterSimulatorOptions = {}): Promise<PrinterSimulator> {
  return PrinterSimulator.start(options);
}
