import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../../../../core/index.ts';

/** File name of the audit checkpoint signing key under `DATA_DIR`. */
export const AUDIT_SIGNING_KEY_FILE = 'audit-signing.key';

/** Environment variable that may carry the audit checkpoint signing key (PKCS#8 PEM, or its DER in base64). */
export const AUDIT_SIGNING_KEY_ENV = 'AUDIT_SIGNING_KEY';

/**
 * Parses an Ed25519 private key given as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) or as base64 of its DER.
 * @throws Error when the text is no Ed25519 private key.
 */
export function parseAuditSigningKey(text: string): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----')
    ? createPrivateKey({ key: trimmed, format: 'pem' })
    : createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the audit signing key must be Ed25519, not ${key.asymmetricKeyType ?? 'unknown'}`);
  return key;
}

/** A new Ed25519 private key (for tests and in-memory servers: checkpoints it signs die with the process's key). */
export function generateAuditSigningKey(): KeyObject {
  return generateKeyPairSync('ed25519').privateKey;
}

/**
 * The private key that signs audit checkpoints: never stored in the database, so a database dump or a
 * database owner cannot sign a checkpoint. Read from `AUDIT_SIGNING_KEY` when set, else from
 * `<dataDir>/audit-signing.key` (PKCS#8 PEM), which is generated with mode 0600 on first start.
 *
 * @param dataDir the server's `DATA_DIR`
 * @param env the environment (default `process.env`)
 * @param options.create false: answer null instead of generating a key when there is none (the verify CLI)
 * @throws Error when the variable or the file holds no Ed25519 private key
 */
export async function loadAuditSigningKey(dataDir: string, env?: NodeJS.ProcessEnv): Promise<KeyObject>;
export async function loadAuditSigningKey(dataDir: string, env: NodeJS.ProcessEnv | undefined, options: { create: false }): Promise<KeyObject | null>;
export async function loadAuditSigningKey(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { create?: boolean } = {},
): Promise<KeyObject | null> {
  const fromEnv = env[AUDIT_SIGNING_KEY_ENV];
  if (fromEnv) return parseAuditSigningKey(fromEnv);
  const file = join(dataDir, AUDIT_SIGNING_KEY_FILE);
  try {
    return parseAuditSigningKey(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (options.create === false) return null;
  const key = generateAuditSigningKey();
  // 'wx': never overwrite a key another process wrote meanwhile; then read back whichever won.
  try {
    await writeFile(file, key.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600, flag: 'wx' });
    await chmod(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return parseAuditSigningKey(await readFile(file, 'utf8'));
}

/**
 * Signed checkpoints of the audit chain: "merchant M's chain had head hash H at entry S, at time T", signed
 * with Ed25519 (RFC 8032) by a key the database does not hold (platform/auth/audit-signing-key.ts). They anchor the
 * chain outside the database: whoever holds a checkpoint (an export, a register) can tell that an entry up to S was
 * deleted or rewritten, even when every later hash was recomputed. kernel/verify.ts checks the chain against them.
 */
export interface SignedCheckpoint {
  merchantId: string;
  /** Sequence number of the audit entry that was the chain's head. */
  seq: number;
  /** That entry's `hash` (64 hex digits). */
  headHash: string;
  /** When it was signed, ISO 8601 (ms). */
  signedAt: string;
  /** Id of the signing key ({@link AuditSigner.keyId}). */
  keyId: string;
  /** Ed25519 signature of {@link checkpointPayload}, base64url. */
  signature: string;
  /** Why it was written: `periodic` (housekeeping tick), `on_demand` (API), `closeout`, … */
  reason: string;
}

/** The signed bytes of a checkpoint: canonical JSON of merchantId, seq, headHash, signedAt, keyId and reason. */
export function checkpointPayload(cp: Omit<SignedCheckpoint, 'signature'>): Buffer {
  return Buffer.from(
    canonicalJson({ merchantId: cp.merchantId, seq: cp.seq, headHash: cp.headHash, signedAt: cp.signedAt, keyId: cp.keyId, reason: cp.reason }),
  );
}

/** Signs and checks checkpoints with one Ed25519 key pair; only the public half is ever shown. */
export class AuditSigner {
  /** The public key, as a JWK (`kty: OKP`, `crv: Ed25519`, `x`, `kid`). */
  readonly publicJwk: JsonWebKey & { kid: string };
  /** First 16 hex digits of the SHA-256 of the public key's SPKI DER. */
  readonly keyId: string;
  private readonly publicKey: KeyObject;

  /**
   * @param privateKey an Ed25519 private key; `null` makes a verify-only signer from `publicKey`
   * @param publicKey needed only without a private key
   * @throws Error when neither is an Ed25519 key
   */
  constructor(
    private readonly privateKey: KeyObject | null,
    publicKey?: KeyObject,
  ) {
    const pub = publicKey ?? (privateKey ? createPublicKey(privateKey) : null);
    if (!pub || pub.asymmetricKeyType !== 'ed25519') throw new Error('AuditSigner: an Ed25519 key is required');
    this.publicKey = pub;
    this.keyId = createHash('sha256')
      .update(pub.export({ format: 'der', type: 'spki' }))
      .digest('hex')
      .slice(0, 16);
    this.publicJwk = { ...(pub.export({ format: 'jwk' }) as JsonWebKey), kid: this.keyId };
  }

  /**
   * Signs a checkpoint.
   * @throws Error on a verify-only signer
   */
  sign(cp: Omit<SignedCheckpoint, 'signature' | 'keyId'>): SignedCheckpoint {
    if (!this.privateKey) throw new Error('AuditSigner: this signer only verifies');
    const unsigned = { ...cp, keyId: this.keyId };
    return { ...unsigned, signature: sign(null, checkpointPayload(unsigned), this.privateKey).toString('base64url') };
  }

  /** True when `cp` carries this key's valid signature (any other key, or any altered field, is false). */
  verify(cp: SignedCheckpoint): boolean {
    if (cp.keyId !== this.keyId || typeof cp.signature !== 'string') return false;
    try {
      return verify(null, checkpointPayload(cp), this.publicKey, Buffer.from(cp.signature, 'base64url'));
    } catch {
      return false;
    }
  }
}
