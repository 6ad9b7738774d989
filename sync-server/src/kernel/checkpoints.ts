import { AuditSigner, type SignedCheckpoint } from '../platform/auth/audit-signing-key.ts';
import type { AuditWitness } from '../platform/auth/audit-witness.ts';
import { lockMerchant, type Db, type Queryable } from '../platform/db/db.ts';

export { AuditSigner, type SignedCheckpoint, type AuditWitness };

interface CheckpointRow {
  merchant_id: string;
  seq: number | string;
  head_hash: string;
  signed_at: Date;
  key_id: string;
  signature: string;
  reason: string;
}

const toCheckpoint = (r: CheckpointRow): SignedCheckpoint => ({
  merchantId: r.merchant_id,
  seq: Number(r.seq),
  headHash: r.head_hash,
  signedAt: new Date(r.signed_at).toISOString(),
  keyId: r.key_id,
  signature: r.signature,
  reason: r.reason,
});

/**
 * Signs the merchant's current audit head and stores the checkpoint (the closeout calls this at every closeout; the
 * housekeeping tick and `POST /api/pos/audit/checkpoints` too). Takes the merchant's write lock, so the head it signs is
 * the committed one. When the head is already checkpointed, returns that checkpoint and writes nothing.
 *
 * @param db the database (a transaction is opened here)
 * @param signer holds the private key
 * @param merchantId whose chain
 * @param reason `periodic`, `on_demand`, `closeout`, …
 * @param now signing time
 * @param witness the file outside the database that also receives every new checkpoint, appended (and fsync'd) once
 *   the checkpoint's transaction has committed; null or omitted: none (tests, benches)
 * @returns the checkpoint of the current head, or null when the merchant's chain is empty
 * @throws Error when the witness cannot be written (the checkpoint is stored in the database all the same)
 */
export async function writeCheckpoint(
  db: Db,
  signer: AuditSigner,
  merchantId: string,
  reason: string,
  now: Date,
  witness?: AuditWitness | null,
): Promise<SignedCheckpoint | null> {
  // Not mutation(): it signs the audit head, so it takes the merchant's lock but must append no entry of its own.
  const written = await db.transaction(async (tx) => {
    await lockMerchant(tx, merchantId);
    const head = await tx.query<{ seq: number | string; hash: string }>(
      'SELECT seq, hash FROM audit_log WHERE merchant_id = $1 ORDER BY seq DESC LIMIT 1',
      [merchantId],
    );
    if (!head.rows[0]) return null;
    const seq = Number(head.rows[0].seq);
    const existing = await tx.query<CheckpointRow>('SELECT * FROM audit_checkpoints WHERE merchant_id = $1 AND seq = $2', [merchantId, seq]);
    if (existing.rows[0]) return { cp: toCheckpoint(existing.rows[0]), fresh: false };
    const cp = signer.sign({ merchantId, seq, headHash: head.rows[0].hash, signedAt: new Date(now.getTime()).toISOString(), reason });
    await tx.query(
      'INSERT INTO audit_checkpoints (merchant_id, seq, head_hash, signed_at, key_id, signature, reason) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [cp.merchantId, cp.seq, cp.headHash, cp.signedAt, cp.keyId, cp.signature, cp.reason],
    );
    return { cp, fresh: true };
  });
  if (!written) return null;
  if (written.fresh && witness) await witness.append(written.cp);
  return written.cp;
}

/**
 * The housekeeping tick's part: a `periodic` checkpoint for every merchant whose audit head moved since its last
 * checkpoint (each also appended to `witness`). Returns how many were written.
 */
export async function writeDueCheckpoints(db: Db, signer: AuditSigner, now: Date, witness?: AuditWitness | null): Promise<number> {
  const { rows } = await db.query<{ merchant_id: string }>(
    `SELECT a.merchant_id FROM (SELECT merchant_id, MAX(seq) AS head FROM audit_log GROUP BY merchant_id) a
     LEFT JOIN (SELECT merchant_id, MAX(seq) AS last FROM audit_checkpoints GROUP BY merchant_id) c ON c.merchant_id = a.merchant_id
     WHERE c.last IS NULL OR c.last < a.head`,
  );
  let written = 0;
  for (const r of rows) if (await writeCheckpoint(db, signer, r.merchant_id, 'periodic', now, witness)) written += 1;
  return written;
}

/** The merchant's stored checkpoints, oldest first; `afterSeq` keeps those of later entries only. */
export async function listCheckpoints(db: Queryable, merchantId: string, afterSeq = 0): Promise<SignedCheckpoint[]> {
  const { rows } = await db.query<CheckpointRow>('SELECT * FROM audit_checkpoints WHERE merchant_id = $1 AND seq > $2 ORDER BY seq', [
    merchantId,
    afterSeq,
  ]);
  return rows.map(toCheckpoint);
}

/** The merchant's newest stored checkpoint (the signed head registers are handed), or null when there is none. */
export async function newestCheckpoint(db: Queryable, merchantId: string): Promise<SignedCheckpoint | null> {
  const { rows } = await db.query<CheckpointRow>('SELECT * FROM audit_checkpoints WHERE merchant_id = $1 ORDER BY seq DESC LIMIT 1', [merchantId]);
  return rows[0] ? toCheckpoint(rows[0]) : null;
}

/** The merchant's stored checkpoint of entry `seq`, or null. */
export async function checkpointAt(db: Queryable, merchantId: string, seq: number): Promise<SignedCheckpoint | null> {
  const { rows } = await db.query<CheckpointRow>('SELECT * FROM audit_checkpoints WHERE merchant_id = $1 AND seq = $2', [merchantId, seq]);
  return rows[0] ? toCheckpoint(rows[0]) : null;
}
