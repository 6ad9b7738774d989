/**
 * `npm run audit:verify [-- --merchant <id>] [--checkpoints <file>] [--public-key <file>] [--witness <file>]`: verifies the audit trail
 * of every merchant (or one) with the same code as `GET/POST /api/pos/audit/verify` (kernel/verify.ts), straight
 * against the database — the hash chain, the journal transactions' hashes and the signed checkpoints — and exits 1
 * when any trail is not sound, 2 on a usage or set-up error. Prints one JSON verdict per merchant.
 *
 * - database: `DATABASE_URL` (PostgreSQL), else PGlite in `DATA_DIR/pglite` (default ./data; stop the server first:
 *   PGlite has one process at a time);
 * - key: `--public-key <file>` (the `publicKey` JWK of `GET /api/pos/audit/checkpoints`, or a body holding it), else
 *   the server's `AUDIT_SIGNING_KEY` or `DATA_DIR/audit-signing.key` (never generated here);
 * - `--checkpoints <file>`: checkpoints held outside the database — a JSON array, or a saved
 *   `GET /api/pos/audit/checkpoints` body — so a trail rewritten together with its stored checkpoints is caught;
 * - the checkpoint witness file, read by default: `--witness <file>`, else `AUDIT_WITNESS_FILE`, else
 *   `DATA_DIR/audit-checkpoints.jsonl` (the server appends every signed checkpoint there). A witnessed checkpoint
 *   missing from the database, a head that went backwards, and entries past the newest checkpoint older than twice
 *   `AUDIT_CHECKPOINT_INTERVAL_MS` (default the housekeeping tick's 60 000) are findings; no witness file, a warning.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AuditSigner, type SignedCheckpoint } from './kernel/checkpoints.ts';
import { verifyAuditTrail } from './kernel/verify.ts';
import { loadAuditSigningKey } from './platform/auth/audit-signing-key.ts';
import { auditWitnessPath, readAuditWitness } from './platform/auth/audit-witness.ts';
import { HOUSEKEEPING_INTERVAL_MS } from './workflows/housekeeping.ts';
import { openDb } from './platform/db/db.ts';

async function signerFrom(publicKeyFile: string | undefined, dataDir: string): Promise<AuditSigner> {
  if (publicKeyFile) {
    const parsed = JSON.parse(await readFile(publicKeyFile, 'utf8')) as JsonWebKey & { publicKey?: JsonWebKey };
    return new AuditSigner(null, createPublicKey({ key: parsed.publicKey ?? parsed, format: 'jwk' }));
  }
  const key = await loadAuditSigningKey(dataDir, process.env, { create: false });
  if (!key)
    throw new Error(`no audit signing key: set AUDIT_SIGNING_KEY, put it in ${join(dataDir, 'audit-signing.key')}, or pass --public-key <file>`);
  return new AuditSigner(key);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { merchant: { type: 'string' }, checkpoints: { type: 'string' }, 'public-key': { type: 'string' }, witness: { type: 'string' } },
  });
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  const signer = await signerFrom(values['public-key'], dataDir);
  let held: SignedCheckpoint[] = [];
  if (values.checkpoints) {
    const parsed = JSON.parse(await readFile(values.checkpoints, 'utf8')) as SignedCheckpoint[] | { data: SignedCheckpoint[] };
    held = Array.isArray(parsed) ? parsed : parsed.data;
  }
  const witnessFile = values.witness ?? auditWitnessPath(dataDir, process.env);
  const witnessed = await readAuditWitness(witnessFile);
  const interval = process.env.AUDIT_CHECKPOINT_INTERVAL_MS ? Number(process.env.AUDIT_CHECKPOINT_INTERVAL_MS) : HOUSEKEEPING_INTERVAL_MS;
  if (!Number.isFinite(interval) || interval <= 0) throw new Error('AUDIT_CHECKPOINT_INTERVAL_MS must be a positive number of milliseconds');
  const db = await openDb(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { pgliteDir: join(dataDir, 'pglite') });
  try {
    const merchants = values.merchant
      ? [values.merchant]
      : (await db.query<{ id: string }>('SELECT id FROM merchants ORDER BY id')).rows.map((r) => r.id);
    let sound = true;
    for (const merchantId of merchants) {
      const verdict = await verifyAuditTrail(db, merchantId, signer, held, {
        witnessFile,
        witnessed,
        checkpointIntervalMs: interval,
        now: new Date(),
      });
      sound &&= verdict.ok;
      console.log(JSON.stringify({ merchantId, ...verdict }));
    }
    return sound ? 0 : 1;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`audit:verify: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
