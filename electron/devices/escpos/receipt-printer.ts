/**
 * Receipt-printer driver: ESC/POS over serial with a persistent print queue.
 *
 * `print(job)` journals the job (fsync) and returns; a worker prints queued jobs in order: it asks the printer's
 * real-time status (DLE EOT 1, 2, 4), sends the job only when the printer is online with paper and the cover closed,
 * asks the status again after the last byte, and only then marks the job printed. A printer that is off, out of paper
 * or unplugged keeps the job waiting; the worker retries every `retryIntervalMs` and re-opens a port that went away.
 * A job interrupted mid-way (power cut) is printed again in full when the printer is back — it is never marked
 * printed without a confirmed status, and never printed again after it was.
 *
 * Events: `status` (DeviceStatus — ready / busy / offline / paper_out / cover_open), `printed` ({ jobId, attempts }),
 * `jobFailed` ({ jobId, reason }) for a job that can never print.
 */
import { EventEmitter } from 'node:events';
import type { DeviceStatus, PrintJob, SerialSettingsInput } from '../../../core/devices.ts';
import { DeviceError } from '../errors.ts';
import { openSerialPort, type SerialConnection } from '../serial/transport.ts';
import { DRAWER_KICK, encodePrintJob, statusRequest, type EscPosEncoderOptions } from './encoder.ts';
import { PrintQueue, type PrintQueueOptions, type QueuedJob } from './print-queue.ts';
import { isStatusByte, parsePrinterStatus, type PrinterCondition } from './status.ts';

/** Driver settings. Times in milliseconds. */
export interface ReceiptPrinterOptions {
  port: SerialSettingsInput;
  /** Directory of the persistent print queue (journal + lock). */
  queueDir: string;
  /** Encoder settings (code page, QR size…). */
  encoder?: EscPosEncoderOptions;
  /** Wait for each real-time status byte. Default 500. */
  statusTimeoutMs?: number;
  /** Pause before retrying while the printer is offline / out of paper. Default 1000. */
  retryIntervalMs?: number;
  queue?: PrintQueueOptions;
}

type PrinterEvents = {
  status: [DeviceStatus];
  printed: [{ jobId: string; attempts: number }];
  jobFailed: [{ jobId: string; reason: string }];
};

/** The receipt-printer driver. Construct with `ReceiptPrinter.open(options)`. */
export class ReceiptPrinter extends EventEmitter<PrinterEvents> {
  readonly #options: ReceiptPrinterOptions;
  readonly #queue: PrintQueue;
  #connection: SerialConnection | undefined;
  #statusBytes: number[] = [];
  #statusWaiter: (() => void) | undefined;
  #wake: (() => void) | undefined;
  #idleWaiters: (() => void)[] = [];
  #attempts = new Map<string, number>();
  #lastStatus: DeviceStatus | undefined;
  #closed = false;
  #worker: Promise<void>;
  #busy: Promise<unknown> = Promise.resolve();

  private constructor(options: ReceiptPrinterOptions, queue: PrintQueue, connection: SerialConnection | undefined) {
    super();
    this.#options = options;
    this.#queue = queue;
    if (connection) this.#attach(connection);
    this.#worker = this.#run();
  }

  /**
   * Opens the queue and the serial port and starts the worker (which prints whatever the journal still holds).
   * A port that cannot be opened yet is not an error: the printer is reported offline and retried. Throws
   * `DeviceError('queue_io')` when the queue directory is unusable, `invalid_input` for bad serial settings.
   */
  static async open(options: ReceiptPrinterOptions): Promise<ReceiptPrinter> {
    const queue = await PrintQueue.open(options.queueDir, options.queue);
    let connection: SerialConnection | undefined;
    try {
      connection = await openSerialPort(options.port);
    } catch (error) {
      if (!(error instanceof DeviceError) || error.code !== 'port_open_failed') {
        await queue.close();
        throw error;
      }
    }
    return new ReceiptPrinter(options, queue, connection);
  }

  #attach(connection: SerialConnection): void {
    this.#connection = connection;
    this.#statusBytes = [];
    connection.on('data', (chunk) => {
      for (const byte of chunk) if (isStatusByte(byte)) this.#statusBytes.push(byte);
      this.#statusWaiter?.();
    });
    connection.on('close', (info) => {
      if (this.#connection === connection) this.#connection = undefined;
      if (info.unexpected) this.#report({ device: 'printer', state: 'offline', detail: 'printer disconnected' });
      this.#statusWaiter?.();
    });
  }

  #report(status: DeviceStatus): void {
    const last = this.#lastStatus;
    if (last && last.state === status.state && last.detail === status.detail) return;
    this.#lastStatus = status;
    this.emit('status', status);
  }

  /** The last status reported (undefined before the first status query). */
  get status(): DeviceStatus | undefined {
    return this.#lastStatus;
  }

  /**
   * Queues a job (fsynced before this resolves) and wakes the worker. A job id already queued or printed is accepted
   * without being queued again. Throws `DeviceError('invalid_input')` for a job failing `printJobSchema` or holding
   * data its barcode cannot carry, `queue_io` when the journal cannot be written.
   */
  async print(job: PrintJob): Promise<{ queued: true; jobId: string; duplicate: boolean }> {
    if (this.#closed) throw new DeviceError('port_closed', 'the printer driver is closed');
    encodePrintJob(job, this.#options.encoder); // refuse now what could never print
    const { jobId, duplicate } = await this.#queue.enqueue(job);
    this.#wake?.();
    return { queued: true, jobId, duplicate };
  }

  /** Jobs still waiting, oldest first. */
  pendingJobs(): QueuedJob[] {
    return this.#queue.pending();
  }

  /** Resolves when the queue is empty (immediately if it is). */
  whenIdle(): Promise<void> {
    if (this.#queue.pending().length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Kicks the cash drawer now (ESC p). Not queued — a drawer that opens minutes later would be worse than an error.
   * Paper and cover are not checked (the drawer works without paper). Throws `printer_offline` when the printer does
   * not answer its status request, `disconnected` when the port goes away during the write.
   */
  async openDrawer(): Promise<void> {
    await this.#exclusive(async () => {
      const condition = await this.#queryStatus();
      if (!condition || !this.#connection) throw new DeviceError('printer_offline', 'the printer does not answer; the drawer is on its port');
      await this.#connection.write(DRAWER_KICK);
    });
  }

  /** Asks the printer's real-time status now; `undefined` when it does not answer (off or unplugged). */
  queryStatus(): Promise<PrinterCondition | undefined> {
    return this.#exclusive(() => this.#queryStatus());
  }

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#busy.then(task);
    this.#busy = run.catch(() => undefined);
    return run;
  }

  async #readStatusByte(): Promise<number | undefined> {
    const deadline = Date.now() + (this.#options.statusTimeoutMs ?? 500);
    while (this.#statusBytes.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0 || !this.#connection) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#statusWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#statusWaiter = undefined;
    }
    return this.#statusBytes.shift();
  }

  async #queryStatus(): Promise<PrinterCondition | undefined> {
    if (!this.#connection) await this.#reconnect();
    const connection = this.#connection;
    if (!connection) {
      this.#report({ device: 'printer', state: 'offline', detail: 'port not available' });
      return undefined;
    }
    this.#statusBytes = [];
    const answers: Partial<Record<1 | 2 | 4, number>> = {};
    try {
      for (const n of [1, 2, 4] as const) {
        await connection.write(statusRequest(n));
        const byte = await this.#readStatusByte();
        if (byte === undefined) {
          this.#report({ device: 'printer', state: 'offline', detail: 'no answer to DLE EOT' });
          return undefined;
        }
        answers[n] = byte;
      }
    } catch (error) {
      if (error instanceof DeviceError) {
        this.#report({ device: 'printer', state: 'offline', detail: error.message.slice(0, 200) });
        return undefined;
      }
      throw error;
    }
    const condition = parsePrinterStatus(answers);
    if (condition.coverOpen) this.#report({ device: 'printer', state: 'cover_open' });
    else if (condition.paperOut) this.#report({ device: 'printer', state: 'paper_out' });
    else if (!condition.online) this.#report({ device: 'printer', state: 'offline', detail: 'printer reports offline' });
    else if (condition.error) this.#report({ device: 'printer', state: 'error', detail: 'printer reports an error' });
    else this.#report({ device: 'printer', state: this.#queue.pending().length > 0 ? 'busy' : 'ready' });
    return condition;
  }

  async #reconnect(): Promise<void> {
    if (this.#closed) return;
    try {
      const connection = await openSerialPort(this.#options.port);
      await connection.flushInput();
      this.#attach(connection);
    } catch {
      // still unplugged
    }
  }

  #ready(condition: PrinterCondition | undefined): condition is PrinterCondition {
    return !!condition && condition.online && !condition.paperOut && !condition.coverOpen && !condition.error;
  }

  async #printOne(entry: QueuedJob): Promise<boolean> {
    return this.#exclusive(async () => {
      const before = await this.#queryStatus();
      if (!this.#ready(before) || !this.#connection) return false;
      let bytes: Uint8Array;
      try {
        bytes = encodePrintJob(entry.job, this.#options.encoder);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        await this.#queue.markFailed(entry.jobId, reason);
        this.emit('jobFailed', { jobId: entry.jobId, reason });
        return true;
      }
      const attempts = (this.#attempts.get(entry.jobId) ?? 0) + 1;
      this.#attempts.set(entry.jobId, attempts);
      this.#report({ device: 'printer', state: 'busy' });
      try {
        await this.#connection.write(bytes);
      } catch {
        this.#report({ device: 'printer', state: 'offline', detail: 'write failed' });
        return false;
      }
      const after = await this.#queryStatus();
      if (!this.#ready(after)) return false;
      await this.#queue.markPrinted(entry.jobId, attempts);
      this.#attempts.delete(entry.jobId);
      this.emit('printed', { jobId: entry.jobId, attempts });
      return true;
    });
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      const next = this.#queue.pending()[0];
      if (!next) {
        for (const resolve of this.#idleWaiters.splice(0)) resolve();
        if (this.#lastStatus?.state === 'busy') this.#report({ device: 'printer', state: 'ready' });
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
        continue;
      }
      let printed = false;
      try {
        printed = await this.#printOne(next);
      } catch (error) {
        // queue_io: the job stays queued in memory and on disk; try again after a pause.
        if (!(error instanceof DeviceError)) throw error;
      }
      if (!printed && !this.#closed) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#options.retryIntervalMs ?? 1000);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = undefined;
      }
    }
  }

  /** Stops the worker, closes the port and the journal. Pending jobs stay in the journal for the next start. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    await this.#worker.catch(() => undefined);
    await this.#busy;
    await this.#connection?.close();
    await this.#queue.close();
  }
}
