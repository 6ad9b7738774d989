import type { WitnessedCheckpoints } from '../platform/auth/audit-witness.ts';
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
  /** The witness file read (null: none), and how many of this merchant's checkpoints it holds. */
  witness: { file: string | null; checkpoints: number };
  /** What weakens the verdict without being a finding: no witness file, unreadable witness lines. */
  warnings: string[];
}

/** Where the verifier looks outside the database (the route and `npm run audit:verify` pass all of it). */
export interface AuditVerifyOptions {
  /** The witness file's path when one is configured; null or omitted: none (a warning). */
  witnessFile?: string | null;
  /** What that file holds (every merchant's); null: the file does not exist (a warning). */
  witnessed?: WitnessedCheckpoints | null;
  /**
   * How often the housekeeping tick checkpoints a moved head, in ms; null or omitted: no stale-head check. Entries
   * past the newest checkpoint written more than this interval before `now` (plus {@link TICK_SLACK_MS} for the tick
   * to reach its checkpoint) are a finding: the newest checkpoints were deleted, or no tick runs.
   */
  checkpointIntervalMs?: number | null;
  /** The time the stale-head check measures from (default: now). */
  now?: Date;
}

/** What the stale-head check allows a housekeeping tick, from its start, to sign its checkpoint (ms). */
export const TICK_SLACK_MS = 60_000;

/** How many journal transactions are hydrated per statement. */
const JOURNAL_BATCH = 500;

/**
 * Verifies a merchant's audit trail and names the first bad entry and the last good checkpoint:
 * - the hash chain (kernel/audit.ts): an edited entry, or one deleted or reordered in the middle, breaks it;
 * - the journal: the hash each entry recorded for a journal transaction (`journal_hashes`) must match it as stored,
 *   postings included (an edited posting), and every journal transaction must be recorded by an entry (one slipped in);
 * - the signed checkpoints, those stored in the database and those a holder hands in (`held`, e.g. a register's copy),
 *   each verified with `signer`'s public key: the entry a checkpoint names must still exist with the signed hash, so a
 *   deleted tail, or a rewritten entry whose later hashes were all recomputed, is caught up to the last checkpoint.
 *   Checkpoints that do not verify are left out (counted in `invalidSignature`); one that claims this key yet does
 *   not verify (forged or altered) also makes the verdict not ok, while another key's is only set aside;
 * - the witness file (`options.witnessed`, platform/auth/audit-witness.ts), the copy of every signed checkpoint kept
 *   outside the database: its checkpoints are checked like held ones, and besides, one missing from the database (or
 *   stored there differently) is a finding, and so is a head that went backwards (a checkpoint naming an earlier
 *   entry than one signed before it). Without a witness file the verdict carries a warning: checkpoints deleted from
 *   the database together with the entries after them would go unseen;
 * - the head's age (`options.checkpointIntervalMs`): entries past the newest checkpoint older than the housekeeping
 *   tick would have left them are a finding (the newest checkpoints deleted).
 *
 * @param db the database
 * @param merchantId whose trail
 * @param signer the checkpoint key (its public half is all this uses)
 * @param held checkpoints kept outside the database; other merchants' are ignored
 * @param options the witness file and the checkpoint interval ({@link AuditVerifyOptions})
 */
export async function verifyAuditTrail(
  db: Queryable,
  merchantId: string,
  signer: AuditSigner,
  held: readonly SignedCheckpoint[] = [],
  options: AuditVerifyOptions = {},
): Promise<AuditTrailVerification> {
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
  for (let after = -1; ;) {
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
      if (journalHash(jt) !== entry.hash)
        problems.push({ seq: entry.seq, reason: `journal transaction ${jt.id} (its postings or header) differs from the one this entry recorded` });
    }
    if (jtRows.length < JOURNAL_BATCH) break;
    after = Number(jtRows.at(-1)!.sync_seq);
  }
  for (const [id, entry] of recorded)
    if (!seen.has(id)) problems.push({ seq: entry.seq, reason: `journal transaction ${id}, recorded by this entry, is missing` });

  // Signed checkpoints, stored, held and witnessed.
  const stored = await listCheckpoints(db, merchantId);
  const witnessed = (options.witnessed?.checkpoints ?? []).filter((cp) => cp.merchantId === merchantId);
  const all = new Map<string, SignedCheckpoint>();
  for (const cp of [...stored, ...held, ...witnessed])
    if (cp.merchantId === merchantId) all.set(JSON.stringify([cp.seq, cp.headHash, cp.signedAt, cp.keyId, cp.reason, cp.signature]), cp);
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
        reason:
          cp.seq > lastSeq
            ? `entry ${cp.seq}, the chain's head in the checkpoint signed ${cp.signedAt}, is missing: entries after ${lastSeq} were deleted`
            : `entry ${cp.seq}, named by the checkpoint signed ${cp.signedAt}, is missing`,
      });
    } else if (row.hash !== cp.headHash) {
      problems.push({
        seq: cp.seq,
        reason: `entry ${cp.seq} differs from the checkpoint signed ${cp.signedAt}: an entry after ${previousCheckpoint} was rewritten (and later hashes recomputed)`,
      });
    }
    previousCheckpoint = cp.seq;
  }

  // The witness: every checkpoint it holds must still be in the database, as signed, and the head never goes back.
  const storedBySeq = new Map(stored.map((cp) => [cp.seq, cp]));
  const warnings: string[] = [];
  let highest: SignedCheckpoint | undefined;
  for (const cp of witnessed) {
    if (!signer.verify(cp)) continue;
    const inDb = storedBySeq.get(cp.seq);
    if (!inDb) {
      problems.push({
        seq: cp.seq,
        reason: `the checkpoint of entry ${cp.seq} signed ${cp.signedAt}, held in the witness file, is missing from the database: it was deleted`,
      });
    } else if (inDb.headHash !== cp.headHash || inDb.signature !== cp.signature || inDb.signedAt !== cp.signedAt) {
      problems.push({
        seq: cp.seq,
        reason: `the checkpoint of entry ${cp.seq} in the database differs from the one signed ${cp.signedAt} and held in the witness file`,
      });
    }
    if (highest && cp.seq < highest.seq) {
      problems.push({
        seq: cp.seq,
        reason: `the head went backwards: the checkpoint signed ${cp.signedAt} names entry ${cp.seq}, earlier than entry ${highest.seq} of the one signed ${highest.signedAt} before it`,
      });
    }
    if (!highest || cp.seq > highest.seq) highest = cp;
  }
  if (!options.witnessFile) {
    warnings.push(
      'no checkpoint witness file is configured: checkpoints deleted from the database together with the entries after them would go unseen',
    );
  } else if (!options.witnessed) {
    warnings.push(
      `the checkpoint witness file ${options.witnessFile} does not exist${stored.length > 0 ? ` though the database holds ${stored.length} checkpoint(s): it was removed, or the witness began after them` : ''}; checkpoints deleted from the database would go unseen`,
    );
  } else if (options.witnessed.malformedLines > 0) {
    warnings.push(`the checkpoint witness file ${options.witnessFile} has ${options.witnessed.malformedLines} line(s) that are no checkpoint`);
  }

  // A stale head: entries past the newest checkpoint older than the housekeeping tick would have left them.
  if (options.checkpointIntervalMs != null && rows.length > 0) {
    const newest = valid.at(-1)?.seq ?? 0;
    const unanchored = rows.find((r) => Number(r.seq) > newest);
    const limit = options.checkpointIntervalMs + TICK_SLACK_MS;
    const now = (options.now ?? new Date()).getTime();
    if (unanchored && now - new Date(unanchored.occurred_at).getTime() > limit) {
      problems.push({
        seq: Number(unanchored.seq),
        reason: `entries from ${Number(unanchored.seq)} on, the first written ${new Date(unanchored.occurred_at).toISOString()}, are past the newest checkpoint${newest ? ` (entry ${newest})` : ''} though the housekeeping tick checkpoints every ${options.checkpointIntervalMs / 1000} s: the newest checkpoints were deleted, or no tick runs`,
      });
    }
  }

  const first = problems.sort((a, b) => a.seq - b.seq)[0];
  const lastGoodCheckpoint = [...valid].reverse().find((cp) => (!first || cp.seq < first.seq) && bySeq.get(cp.seq)?.hash === cp.headHash) ?? null;
  const base = {
    checked: chain.checked,
    lastGoodCheckpoint,
    journalTransactions,
    checkpoints: { checked: all.size, invalidSignature: all.size - valid.length },
    witness: { file: options.witnessFile ?? null, checkpoints: witnessed.length },
    warnings,
  };
  if (first) return { ok: false, ...base, brokenAtSeq: first.seq, reason: first.reason };
  if (forged) return { ok: false, ...base, reason: `the checkpoint of entry ${forged.seq} carries an invalid signature: it was forged or altered` };
  if (unrecorded) return { ok: false, ...base, reason: `journal transaction ${unrecorded} has no audit entry (written outside the kernel)` };
  return { ok: true, ...base };
}
