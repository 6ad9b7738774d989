/**
 * Persistent print queue ("jobs queued and retried, never lost"). A journal of JSON lines in a directory:
 *
 *   {"op":"enqueue","jobId":"…","job":{…PrintJob},"at":"ISO-8601"}
 *   {"op":"printed","jobId":"…","at":"…","attempts":N}
 *   {"op":"failed","jobId":"…","at":"…","reason":"…"}      (a job that can never print, e.g. invalid barcode data)
 *
 * Every append is fsynced before the call resolves, so an accepted job survives a crash or power cut. Replaying the
 * journal gives the pending jobs (enqueued, neither printed nor failed) in order. Job ids are idempotency keys: a job
 * id seen before (pending or printed, within the last `rememberPrinted` printed jobs) is not queued again.
 *
 * A torn last line (crash in the middle of an append) is ignored on replay. When the queue is empty and the journal
 * has grown past `compactAfterLines`, it is rewritten (temp file + fsync + rename + directory fsync) keeping only the
 * ids of the last printed jobs. A lock file (`print-queue.lock`, holding the owner's pid) keeps a second process off.
 *
 * Exactly once: a job is marked printed only after the printer confirmed its status following the job's last byte;
 * if the process dies in the instant between that confirmation and the fsync of `printed`, the job prints again on
 * the next start — the one window a serial printer without job acknowledgement leaves open.
 */
import { mkdir, open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { printJobSchema, type PrintJob } from '../../../core/devices.ts';
import { DeviceError } from '../errors.ts';

/** A job waiting in the queue. */
export interface QueuedJob {
  jobId: string;
  job: PrintJob;
  enqueuedAt: string;
}

/** Journal settings. */
export interface PrintQueueOptions {
  /** Printed job ids remembered for de-duplication after compaction. Default 1000. */
  rememberPrinted?: number;
  /** Journal lines after which an empty queue is compacted. Default 2000. */
  compactAfterLines?: number;
  /** Clock for the `at` stamps (tests). */
  now?: () => Date;
}

type JournalLine =
  | { op: 'enqueue'; jobId: string; job: PrintJob; at: string }
  | { op: 'printed'; jobId: string; at: string; attempts?: number }
  | { op: 'failed'; jobId: string; at: string; reason: string };

const JOURNAL = 'print-queue.jsonl';
const LOCK = 'print-queue.lock';

function ioError(action: string, error: unknown): DeviceError {
  return new DeviceError('queue_io', `print queue: cannot ${action}: ${error instanceof Error ? error.message : String(error)}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The journal-backed queue. Open with `PrintQueue.open(dir)`. Appends are serialised. */
export class PrintQueue {
  readonly #dir: string;
  readonly #pending = new Map<string, QueuedJob>();
  readonly #done = new Set<string>();
  readonly #doneOrder: string[] = [];
  readonly #options: Required<Omit<PrintQueueOptions, 'now'>> & { now: () => Date };
  #handle: FileHandle | undefined;
  #lines = 0;
  #writes: Promise<unknown> = Promise.resolve();

  private constructor(dir: string, options: PrintQueueOptions) {
    this.#dir = dir;
    this.#options = {
      rememberPrinted: options.rememberPrinted ?? 1000,
      compactAfterLines: options.compactAfterLines ?? 2000,
      now: options.now ?? (() => new Date()),
    };
  }

  /**
   * Opens (creating if needed) the queue in `dir` and replays its journal. Throws `DeviceError('queue_io')` when the
   * directory cannot be used or another live process holds the lock.
   */
  static async open(dir: string, options: PrintQueueOptions = {}): Promise<PrintQueue> {
    const queue = new PrintQueue(dir, options);
    try {
      await mkdir(dir, { recursive: true });
    } catch (error) {
      throw ioError(`create ${dir}`, error);
    }
    await queue.#lock();
    try {
      await queue.#replay();
      queue.#handle = await open(join(dir, JOURNAL), 'a');
      await syncDirectory(dir);
    } catch (error) {
      await queue.close();
      throw error instanceof DeviceError ? error : ioError('open the journal', error);
    }
    return queue;
  }

  async #lock(): Promise<void> {
    const path = join(this.#dir, LOCK);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        await writeFile(path, String(process.pid), { flag: 'wx' });
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('take the lock', error);
        const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
        if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
          throw new DeviceError('queue_io', `print queue ${this.#dir} is in use by process ${owner}`);
        }
        if (owner === process.pid) {
          throw new DeviceError('queue_io', `print queue ${this.#dir} is already open in this process`);
        }
        await rm(path, { force: true }); // stale lock of a dead process
      }
    }
    throw new DeviceError('queue_io', `cannot lock print queue ${this.#dir}`);
  }

  async #replay(): Promise<void> {
    let text: string;
    try {
      text = await readFile(join(this.#dir, JOURNAL), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw ioError('read the journal', error);
    }
    for (const raw of text.split('\n')) {
      if (raw.trim() === '') continue;
      this.#lines += 1;
      let line: JournalLine;
      try {
        line = JSON.parse(raw) as JournalLine;
      } catch {
        continue; // torn write at a crash
      }
      this.#apply(line);
    }
  }

  #apply(line: JournalLine): void {
    if (line.op === 'enqueue') {
      if (this.#done.has(line.jobId) || this.#pending.has(line.jobId)) return;
      const parsed = printJobSchema.safeParse(line.job);
      if (!parsed.success) return;
      this.#pending.set(line.jobId, { jobId: line.jobId, job: parsed.data, enqueuedAt: line.at });
    } else {
      this.#pending.delete(line.jobId);
      this.#remember(line.jobId);
    }
  }

  #remember(jobId: string): void {
    if (this.#done.has(jobId)) return;
    this.#done.add(jobId);
    this.#doneOrder.push(jobId);
    while (this.#doneOrder.length > this.#options.rememberPrinted) this.#done.delete(this.#doneOrder.shift()!);
  }

  #append(line: JournalLine): Promise<void> {
    const run = this.#writes.then(async () => {
      if (!this.#handle) throw new DeviceError('queue_io', 'print queue is closed');
      try {
        await this.#handle.appendFile(`${JSON.stringify(line)}\n`, 'utf8');
        await this.#handle.sync();
      } catch (error) {
        throw ioError('append to the journal', error);
      }
      this.#lines += 1;
      this.#apply(line);
    });
    this.#writes = run.catch(() => undefined);
    return run;
  }

  /**
   * Adds a job (validated by `printJobSchema`; `DeviceError('invalid_input')` otherwise) and resolves once it is on
   * disk. A job id already pending or printed is not added again: `duplicate: true`.
   */
  async enqueue(job: PrintJob): Promise<{ jobId: string; duplicate: boolean }> {
    const parsed = printJobSchema.safeParse(job);
    if (!parsed.success) {
      throw new DeviceError('invalid_input', `invalid print job: ${parsed.error.issues[0]?.message ?? 'invalid'}`, { issues: parsed.error.issues });
    }
    await this.#writes;
    const { jobId } = parsed.data;
    if (this.#pending.has(jobId) || this.#done.has(jobId)) return { jobId, duplicate: true };
    await this.#append({ op: 'enqueue', jobId, job: parsed.data, at: this.#options.now().toISOString() });
    return { jobId, duplicate: false };
  }

  /** Records that a job came out of the printer. */
  async markPrinted(jobId: string, attempts: number): Promise<void> {
    if (!this.#pending.has(jobId)) return;
    await this.#append({ op: 'printed', jobId, at: this.#options.now().toISOString(), attempts });
    await this.#maybeCompact();
  }

  /** Records that a job can never print (it leaves the queue; the reason is kept in the journal). */
  async markFailed(jobId: string, reason: string): Promise<void> {
    if (!this.#pending.has(jobId)) return;
    await this.#append({ op: 'failed', jobId, at: this.#options.now().toISOString(), reason: reason.slice(0, 200) });
    await this.#maybeCompact();
  }

  /** Pending jobs, oldest first. */
  pending(): QueuedJob[] {
    return [...this.#pending.values()];
  }

  /** True when the job id was printed (or failed) and is still remembered. */
  isDone(jobId: string): boolean {
    return this.#done.has(jobId);
  }

  async #maybeCompact(): Promise<void> {
    if (this.#pending.size > 0 || this.#lines < this.#options.compactAfterLines) return;
    const run = this.#writes.then(async () => {
      const at = this.#options.now().toISOString();
      const body = this.#doneOrder.map((jobId) => JSON.stringify({ op: 'printed', jobId, at })).join('\n');
      const temp = join(this.#dir, `${JOURNAL}.tmp`);
      try {
        const handle = await open(temp, 'w');
        await handle.writeFile(body.length > 0 ? `${body}\n` : '', 'utf8');
        await handle.sync();
        await handle.close();
        await this.#handle?.close();
        await rename(temp, join(this.#dir, JOURNAL));
        await syncDirectory(this.#dir);
        this.#handle = await open(join(this.#dir, JOURNAL), 'a');
        this.#lines = this.#doneOrder.length;
      } catch (error) {
        throw ioError('compact the journal', error);
      }
    });
    this.#writes = run.catch(() => undefined);
    await run;
  }

  /** Flushes and closes the journal and releases the lock. */
  async close(): Promise<void> {
    await this.#writes;
    await this.#handle?.close().catch(() => undefined);
    this.#handle = undefined;
    const path = join(this.#dir, LOCK);
    const owner = await readFile(path, 'utf8').catch(() => '');
    if (owner.trim() === String(process.pid)) await rm(path, { force: true });
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the file's own fsync still holds.
  } finally {
    await handle.close();
  }
}
