import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Secrets the server must be able to use again — the identity provider's private signing key (`signing_keys`) and
 * webhook signing secrets (`webhook_subscriptions`, `app_tokens.webhook_secret`) — are kept in the database only
 * sealed with a key-encryption key (KEK) that the database never holds ("a dump alone signs nothing").
 *
 * Sealing is AES-256-GCM (NIST SP 800-38D) from `node:crypto`: a random 96-bit IV per value, a 128-bit tag, and the
 * row the value belongs to (`signing_keys:<kid>`, …) as additional authenticated data, so a sealed value copied into
 * another row does not open. Stored form: `kek1.<base64url(iv ‖ ciphertext ‖ tag)>`.
 *
 * The KEK (32 bytes) comes from `REGISTER_KEK` (base64) or the file `DATA_DIR/kek.key` (base64, mode 0600), which
 * `npm start` creates on its first start when neither exists (main.ts, {@link loadKek}).
 */

/** Length of the KEK in bytes (AES-256). */
export const KEK_BYTES = 32;
/** Prefix of a sealed value (the format's version). */
const SEALED_PREFIX = 'kek1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value did not open: another KEK, another row, or edited bytes. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

/** Seals and opens short secrets with one KEK. */
export class SecretBox {
  readonly #key: Buffer;

  /** @throws RangeError unless `key` is {@link KEK_BYTES} bytes. */
  constructor(key: Uint8Array) {
    if (key.length !== KEK_BYTES) throw new RangeError(`the key-encryption key must be ${KEK_BYTES} bytes, not ${key.length}`);
    this.#key = Buffer.from(key);
  }

  /** `plaintext` sealed for the row named `context` (e.g. `webhook_subscriptions:whk_…`): `kek1.…`. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * A key derived from the KEK for `label` (HMAC-SHA256, base64url): the same on every instance sharing the KEK, never
   * stored — e.g. the OAuth server's cookie-signing keys.
   */
  derive(label: string): string {
    return createHmac('sha256', this.#key).update(`derive:${label}`).digest('base64url');
  }

  /** The plaintext of `sealed` (from {@link seal} with the same `context`). @throws SecretBoxError when it does not open. */
  open(sealed: string, context: string): string {
    if (!sealed.startsWith(SEALED_PREFIX)) throw new SecretBoxError(`not a sealed value (${context})`);
    const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError(`sealed value too short (${context})`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(
        `the sealed secret of ${context} does not open with this key-encryption key (REGISTER_KEK / DATA_DIR/kek.key): another key, or edited bytes`,
      );
    }
  }
}

/** The 32 bytes of a base64 (or base64url) KEK. @throws RangeError naming `source` when it is not 32 bytes. */
export function parseKek(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, /[-_]/.test(trimmed) ? 'base64url' : 'base64');
  if (key.length !== KEK_BYTES || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new RangeError(`${source} must hold a base64 key of ${KEK_BYTES} bytes (e.g. openssl rand -base64 32)`);
  }
  return key;
}

/**
 * The server's KEK: `REGISTER_KEK` (base64, 32 bytes) when set; else the file `DATA_DIR/kek.key`; else, when `create`
 * (the demo's first start), a new random key written to that file with mode 0600 (never overwriting one that appeared
 * meanwhile). @throws RangeError for a malformed key, Error when there is none and `create` is false.
 */
export async function loadKek(options: { env: NodeJS.ProcessEnv; dataDir: string; create: boolean }): Promise<{ key: Buffer; source: string }> {
  const fromEnv = options.env.REGISTER_KEK;
  if (fromEnv !== undefined && fromEnv !== '') return { key: parseKek(fromEnv, 'REGISTER_KEK'), source: 'REGISTER_KEK' };
  const file = join(options.dataDir, 'kek.key');
  const existing = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (existing !== undefined) return { key: parseKek(existing, file), source: file };
  if (!options.create) throw new Error(`no key-encryption key: set REGISTER_KEK or create ${file}`);
  const key = randomBytes(KEK_BYTES);
  try {
    await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadKek({ ...options, create: false });
    throw err;
  }
  return { key, source: `${file} (generated)` };
}

/**
 * Seals the secrets an older server stored in clear, for the table that owns them: `select` returns `{ id, clear }`
 * for each row still holding a clear value (a string, or JSON such as a JWK, sealed as its JSON text); `update` takes
 * `$1` = id and `$2` = the sealed value, writes it and empties the clear column. Both statements are the owner's.
 */
export async function sealClearSecrets(
  db: { query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> },
  statements: { select: string; update: string; context: (id: string) => string },
  box: SecretBox = secretBox(),
): Promise<void> {
  const { rows } = await db.query<{ id: string; clear: unknown }>(statements.select);
  for (const row of rows) {
    const text = typeof row.clear === 'string' ? row.clear : JSON.stringify(row.clear);
    await db.query(statements.update, [row.id, box.seal(text, statements.context(row.id))]);
  }
}

let installed: SecretBox | undefined;

/**
 * Makes `box` the one every owner of a sealed column uses in this process (main.ts, once, before the server starts).
 */
export function installSecretBox(box: SecretBox): void {
  installed = box;
}

/**
 * The process's SecretBox: the installed one; else one keyed by `REGISTER_KEK` when set; else a random key kept for
 * the life of the process (tests and benches that build the app in-process — whatever they seal they open in the same
 * process). The server (main.ts) always installs its configured KEK first.
 */
export function secretBox(): SecretBox {
  if (!installed) {
    const fromEnv = process.env.REGISTER_KEK;
    installed = new SecretBox(fromEnv ? parseKek(fromEnv, 'REGISTER_KEK') : randomBytes(KEK_BYTES));
  }
  return installed;
}
