import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Where generated PNGs live between generation and purge. Keys are opaque, flat names chosen by the
 * route (`img_01J….png`); the database row says which merchant owns which key and when it expires.
 */
export interface ImageStore {
  /** Short name for logs and docs (`fs`, `memory`). */
  readonly name: string;
  /** Stores `bytes` under `key`, replacing any earlier value. Resolves once the bytes are durable. */
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes under `key`, or `null` when there are none (never stored, or deleted). */
  get(key: string): Promise<Buffer | null>;
  /** Removes `key`; deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
}

/** Keys are single path segments of safe characters, so no key can climb out of the store's folder. */
const KEY_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** Throws a `TypeError` when `key` is not a valid store key (see {@link KEY_PATTERN}). */
export function assertImageKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.includes('..')) throw new TypeError(`invalid image key: ${JSON.stringify(key)}`);
}

/**
 * Files under one folder (by default `DATA_DIR/images`): one file per key. Writes go to a temporary name first and
 * are renamed into place, so a reader never sees half a PNG. The folder is created on first write.
 */
export class FsImageStore implements ImageStore {
  readonly name = 'fs';
  private ready: Promise<unknown> | undefined;

  /** `dir` is the folder for the files, e.g. `join(DATA_DIR, 'images')`. */
  constructor(readonly dir: string) {}

  async put(key: string, bytes: Buffer): Promise<void> {
    assertImageKey(key);
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    const temporary = join(this.dir, `.${key}.${randomBytes(6).toString('hex')}.tmp`);
    await writeFile(temporary, bytes);
    await rename(temporary, join(this.dir, key));
  }

  async get(key: string): Promise<Buffer | null> {
    assertImageKey(key);
    try {
      return await readFile(join(this.dir, key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertImageKey(key);
    await rm(join(this.dir, key), { force: true });
  }
}

/** Keeps images in memory: for tests and for benchmarks that should not measure the disk. */
export class MemoryImageStore implements ImageStore {
  readonly name = 'memory';
  readonly files = new Map<string, Buffer>();

  async put(key: string, bytes: Buffer): Promise<void> {
    assertImageKey(key);
    this.files.set(key, Buffer.from(bytes));
  }

  async get(key: string): Promise<Buffer | null> {
    assertImageKey(key);
    return this.files.get(key) ?? null;
  }

  async delete(key: string): Promise<void> {
    assertImageKey(key);
    this.files.delete(key);
  }
}
