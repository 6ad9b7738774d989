import { open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SignedCheckpoint } from './audit-signing-key.ts';

/** File name of the checkpoint witness under `DATA_DIR`, beside the signing key. */
export const AUDIT_WITNESS_FILE = 'audit-checkpoints.jsonl';

/** Environment variable that may name the checkpoint witness file instead (`main.ts` and the verify CLI read it). */
export const AUDIT_WITNESS_FILE_ENV = 'AUDIT_WITNESS_FILE';

/** The witness file's path: `AUDIT_WITNESS_FILE` when set, else `<dataDir>/audit-checkpoints.jsonl`. */
export function auditWitnessPath(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env[AUDIT_WITNESS_FILE_ENV] || join(dataDir, AUDIT_WITNESS_FILE);
}

/** What {@link readAuditWitness} found in a witness file. */
export interface WitnessedCheckpoints {
  /** The file read. */
  path: string;
  /** Its checkpoints, in the order they were appended (every merchant's). */
  checkpoints: SignedCheckpoint[];
  /** Lines that are no checkpoint (a line torn by a crash mid-append, or an edit). */
  malformedLines: number;
}

/**
 * Reads a witness file (one JSON checkpoint per line).
 * @returns null when the file does not exist
 * @throws Error on any other read error
 */
export async function readAuditWitness(path: string): Promise<WitnessedCheckpoints | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const checkpoints: SignedCheckpoint[] = [];
  let malformedLines = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const cp = JSON.parse(line) as SignedCheckpoint;
      if (
        cp &&
        typeof cp.merchantId === 'string' &&
        Number.isSafeInteger(cp.seq) &&
        typeof cp.headHash === 'string' &&
        typeof cp.signature === 'string'
      )
        checkpoints.push(cp);
      else malformedLines += 1;
    } catch {
      malformedLines += 1;
    }
  }
  return { path, checkpoints, malformedLines };
}

/**
 * The copy of every signed checkpoint kept outside the database, the way Certificate Transparency's signed tree heads
 * are kept by witnesses: an append-only JSON Lines file, by default beside the signing key
 * (`DATA_DIR/audit-checkpoints.jsonl`). Someone who can rewrite the database can delete its checkpoints; a checkpoint
 * also held here still names the head it signed, so kernel/verify.ts catches the rewrite.
 */
export class AuditWitness {
  private tail: Promise<void> = Promise.resolve();

  /** @param path the witness file (created on the first append, mode 0600) */
  constructor(readonly path: string) {}

  /**
   * Appends one checkpoint as a JSON line and fsyncs the file (and its directory when the file was new) before
   * resolving. Appends are serialized, so concurrent ones never interleave.
   * @throws Error when the file cannot be written or synced
   */
  append(cp: SignedCheckpoint): Promise<void> {
    const line = `${JSON.stringify({ merchantId: cp.merchantId, seq: cp.seq, headHash: cp.headHash, signedAt: cp.signedAt, keyId: cp.keyId, signature: cp.signature, reason: cp.reason })}\n`;
    const run = this.tail.then(() => this.write(line));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Reads the file back (null when no checkpoint was appended yet). */
  read(): Promise<WitnessedCheckpoints | null> {
    return readAuditWitness(this.path);
  }

  private async write(line: string): Promise<void> {
    let created = false;
    let file: FileHandle;
    try {
      file = await open(this.path, 'ax', 0o600);
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      file = await open(this.path, 'a');
    }
    try {
      await file.write(line);
      await file.sync();
    } finally {
      await file.close();
    }
    if (created) {
      // A new file's directory entry must reach the disk too (not every platform lets a directory be synced).
      const dir = await open(dirname(this.path), 'r');
      try {
        await dir.sync().catch(() => undefined);
      } finally {
        await dir.close();
      }
    }
  }
}
