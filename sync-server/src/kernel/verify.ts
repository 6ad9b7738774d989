import type { Queryable } from '../platform/db/db.ts';
import { walkAuditChain, type StoredAuditRow } from './audit.ts';
import { listCheckpoints, type AuditSigner, type SignedCheckpoint } from './checkpoints.ts';
import { hydrateJournalTransactions, journalHash } from './ledger.ts';

/** What {@link verifyAuditTrail} found. */
export interface AuditTrailVerification {
  /** True when the chain, every journal transaction and every validly signed checkpoint agree. */
  ok: boolean;
  /** Audit entries whose chain link and hash check out, from the first (stops at the first broken one). */
  checked: number;
  /** Sequence number of the first entry found bad (absent when ok, or when only an unrecorded journal transaction is). */
  brokenAtSeq?: number;
  /** What is wrong there, in words. */
  reason?: string;
  /** The latest validly signed checkpoint the database still agrees with, before the first bad entry; null if none. */
  lastGoodCheckpoint: SignedCheckpoint | null;
  /** Journal transactions whose postings were checked against the hash their audit entry recorded. */
  journalTransactions: number;
  /** Checkpoints checked (stored and held), and those set aside for a signature that is not the server's key's. */
  checkpoints: { checked: number; invalidSignature: number };
}

/** How many journal transactions are hydrated per statement. */
const JOURNAL_BATCH = 500;

/**
 * Verifies a merchant's audit trail (issue 11, DESIGN §4) and names the first bad entry and the last good checkpoint:
 * - the hash chain (kernel/audit.ts): an edited entry, or one deleted or reordered in the middle, breaks it;
 * - the journal: the hash each entry recorded for a journal transaction (`journal_hashes`) must match it as stored,
 *   postings included (an edited posting), and every journal transaction must be recorded by an entry (one slipped in);
 * - the signed checkpoints, those stored in the database and those a holder hands in (`held`, e.g. a register's copy),
 *   each verified with `signer`'s public key: the entry a checkpoint names must still exist with the signed hash, so a
 *   deleted tail, or a rewritten entry whose later hashes were all recomputed, is caught up to the last checkpoint.
 *   Checkpoints that do not verify are left out (counted in `invalidSignature`); one that claims this key yet does
 *   not verify (forged or altered) also makes the verdict not ok, while another key's is only set aside.
 *
 * @param db the database
 * @param merchantId whose trail
 * @param signer the checkpoint key (its public half is all this uses)
 * @param held checkpoints kept outside the database; other merchants' are ignored
 */
export async function verifyAuditTrail(db: Queryable, merchantId: string, signer: AuditSigner, held: readonly SignedCheckpoint[] = []): Promise<AuditTrailVerification> {
  const { rows } = await db.query<StoredAuditRow>('SELECT * FROM audit_log WHERE merchant_id = $1 ORDER BY seq', [merchantId]);
  const chain = walkAuditChain(rows);
  const problems: { seq: number; reason: string }[] = [];
  if (!chain.ok) problems.push({ seq: chain.brokenAtSeq!, reason: chain.reason! });

  // Journal transactions against the hashes recorded when they were posted.
  const recorded = new Map<string, { seq: number; hash: unknown }>();
  for (const row of rows) {
    for (const [id, hash] of Object.entries(row.journal_hashes ?? {})) recorded.set(id, { seq: Number(row.seq), hash });
  }
  let journalTransactions = 0;
  let unrecorded: string | undefined;
  const seen = new Set<string>();
  for (let after = -1; ; ) {
    const { rows: jtRows } = await db.query<Parameters<typeof hydrateJournalTransactions>[1][number]>(
      'SELECT * FROM journal_transactions WHERE merchant_id = $1 AND sync_seq > $2 ORDER BY sync_seq LIMIT $3',
      [merchantId, after, JOURNAL_BATCH],
    );
    for (const jt of await hydrateJournalTransactions(db, jtRows)) {
      seen.add(jt.id);
      const entry = recorded.get(jt.id);
      if (!entry) {
        unrecorded ??= jt.id;
        continue;
      }
      journalTransactions += 1;
      if (journalHash(jt) !== entry.hash) problems.push({ seq: entry.seq, reason: `journal transaction ${jt.id} (its postings or header) differs from the one this entry recorded` });
    }
    if (jtRows.length < JOURNAL_BATCH) break;
    after = Number(jtRows.at(-1)!.sync_seq);
  }
  for (const [id, entry] of recorded) if (!seen.has(id)) problems.push({ seq: entry.seq, reason: `journal transaction ${id}, recorded by this entry, is missing` });

  // Signed checkpoints, stored and held.
  const all = new Map<string, SignedCheckpoint>();
  for (const cp of [...(await listCheckpoints(db, merchantId)), ...held]) if (cp.merchantId === merchantId) all.set(JSON.stringify([cp.seq, cp.headHash, cp.signedAt, cp.keyId, cp.reason, cp.signature]), cp);
  const valid = [...all.values()].filter((cp) => signer.verify(cp)).sort((a, b) => a.seq - b.seq);
  // Claiming this key but not verifying: forged or altered (another key's checkpoints are only set aside).
  const forged = [...all.values()].find((cp) => cp.keyId === signer.keyId && !signer.verify(cp));
  const bySeq = new Map(rows.map((r) => [Number(r.seq), r]));
  const lastSeq = rows.length > 0 ? Number(rows.at(-1)!.seq) : 0;
  let previousCheckpoint = 0;
  for (const cp of valid) {
    const row = bySeq.get(cp.seq);
    if (!row) {
      problems.push({
        seq: cp.seq,
        reason: cp.seq > lastSeq
          ? `entry ${cp.seq}, the chain's head in the checkpoint signed ${cp.signedAt}, is missing: entries after ${lastSeq} were deleted`
          : `entry ${cp.seq}, named by the checkpoint signed ${cp.signedAt}, is missing`,
      });
    } else if (row.hash !== cp.headHash) {
      problems.push({ seq: cp.seq, reason: `entry ${cp.seq} differs from the checkpoint signed ${cp.signedAt}: an entry after ${previousCheckpoint} was rewritten (and later hashes recomputed)` });
    }
    previousCheckpoint = cp.seq;
  }

  const first = problems.sort((a, b) => a.seq - b.seq)[0];
  const lastGoodCheckpoint = [...valid].reverse().find((cp) => (!first || cp.seq < first.seq) && bySeq.get(cp.seq)?.hash === cp.headHash) ?? null;
  const base = { checked: chain.checked, lastGoodCheckpoint, journalTransactions, checkpoints: { checked: all.size, invalidSignature: all.size - valid.length } };
  if (first) return { ok: false, ...base, brokenAtSeq: first.seq, reason: first.reason };
  if (forged) return { ok: false, ...base, reason: `the checkpoint of entry ${forged.seq} carries an invalid signature: it was forged or altered` };
  if (unrecorded) return { ok: false, ...base, reason: `journal transaction ${unrecorded} has no audit entry (written outside the kernel)` };
  return { ok: true, ...base };
}
