import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../core/index.ts';
import { jsonValue, lockMerchant, prepared, transactionMemo, type Queryable, type ReadPart } from '../platform/db/db.ts';

/**
 * Hash-chained audit log: each merchant's rows form a chain where
 * `hash = SHA-256(prevHash ‖ canonicalJson(row without hash))`, the first `prevHash` being 64 zeros. Rows are appended
 * in the same database transaction as the change they record.
 */
export const GENESIS_HASH = '0'.repeat(64);

/** Who did it: `staff:<id>`, `app:<id>`, `register:<id>` or `system`. */
export interface AuditEntry {
  merchantId: string;
  actor: string;
  action: string;
  entityType: string;
  entityId: string;
  registerId?: string | null;
  appId?: string | null;
  data?: Record<string, unknown>;
  occurredAt?: Date;
  /**
   * Hashes (kernel/ledger.ts `journalHash`) of the journal transactions this entry records, by id; left out or empty:
   * none. A mutation's `audit` fills it from the journal transactions the mutation posted (kernel/mutation.ts).
   */
  journalHashes?: Record<string, string>;
}

interface AuditRow {
  seq: number | string;
  merchant_id: string;
  occurred_at: Date;
  actor: string;
  register_id: string | null;
  app_id: string | null;
  action: string;
  entity_type: string;
  entity_id: string;
  data: Record<string, unknown>;
  /** Journal transactions recorded by this entry: id → hash (postings included); null when it records none. */
  journal_hashes: Record<string, string> | null;
  prev_hash: string;
  hash: string;
}

/** SHA-256 of the UTF-8 text, 64 lowercase hex digits. */
export function sha256hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The hashed content of a row: every column but `hash`, with timestamps as ISO strings and seq as a number;
 * `journalHashes` only when the row records journal transactions (rows written before migration 0100 hash as before).
 */
function hashedContent(row: Omit<AuditRow, 'hash'>): string {
  return canonicalJson({
    ...(row.journal_hashes ? { journalHashes: row.journal_hashes } : {}),
    seq: Number(row.seq),
    merchantId: row.merchant_id,
    occurredAt: new Date(row.occurred_at).toISOString(),
    actor: row.actor,
    registerId: row.register_id,
    appId: row.app_id,
    action: row.action,
    entityType: row.entity_type,
    entityId: row.entity_id,
    data: row.data,
    prevHash: row.prev_hash,
  });
}

/** A row's chain hash: SHA-256(prevHash ‖ canonical JSON of the row without its hash), hex. */
export function auditHash(row: Omit<AuditRow, 'hash'>): string {
  return sha256hex(row.prev_hash + hashedContent(row));
}

/** Appends one audit row inside `tx` (takes the merchant's write lock, so the chain has one tail). Returns its seq. */
export async function appendAudit(tx: Queryable, entry: AuditEntry): Promise<number> {
  await lockMerchant(tx, entry.merchantId);
  // With the merchant's lock held, the chain's head is the last row this transaction wrote, once it has written one.
  const memo = transactionMemo(tx);
  const headKey = `audit-head:${entry.merchantId}`;
  let prevHash = memo?.get(headKey) as string | undefined;
  if (prevHash === undefined) {
    const last = await tx.query<{ hash: string }>('SELECT hash FROM audit_log WHERE merchant_id = $1 ORDER BY seq DESC LIMIT 1', [entry.merchantId]);
    prevHash = last.rows[0]?.hash ?? GENESIS_HASH;
  }
  const seqRow = await tx.query<{ seq: number | string }>(`SELECT nextval(pg_get_serial_sequence('audit_log', 'seq')) AS seq`);
  // Millisecond precision: what a JS Date holds, so the timestamp read back hashes identically.
  const occurredAt = new Date((entry.occurredAt ?? new Date()).getTime());
  const row: Omit<AuditRow, 'hash'> = {
    seq: Number(seqRow.rows[0]!.seq),
    merchant_id: entry.merchantId,
    occurred_at: occurredAt,
    actor: entry.actor,
    register_id: entry.registerId ?? null,
    app_id: entry.appId ?? null,
    action: entry.action,
    entity_type: entry.entityType,
    entity_id: entry.entityId,
    data: JSON.parse(JSON.stringify(entry.data ?? {})) as Record<string, unknown>,
    journal_hashes: journalHashesOf(entry),
    prev_hash: prevHash,
  };
  const hash = auditHash(row);
  await tx.query(
    `INSERT INTO audit_log (seq, merchant_id, occurred_at, actor, register_id, app_id, action, entity_type, entity_id, data, journal_hashes, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13)`,
    [
      row.seq,
      row.merchant_id,
      occurredAt.toISOString(),
      row.actor,
      row.register_id,
      row.app_id,
      row.action,
      row.entity_type,
      row.entity_id,
      JSON.stringify(row.data),
      row.journal_hashes && JSON.stringify(row.journal_hashes),
      prevHash,
      hash,
    ],
  );
  memo?.set(headKey, hash);
  memo?.set(lastSeqKey(entry.merchantId), Number(row.seq));
  return Number(row.seq);
}

/** Memo key of the highest `seq` this transaction appended for a merchant (a reservation drawn before it is stale). */
const lastSeqKey = (merchantId: string) => `audit-last-seq:${merchantId}`;

export interface AuditVerification {
  ok: boolean;
  checked: number;
  brokenAtSeq?: number;
  reason?: string;
}

/** A stored audit row, as read back (`SELECT * FROM audit_log`). */
export type StoredAuditRow = AuditRow;

/**
 * Walks rows of one merchant's chain in seq order from the genesis: the first row whose `prev_hash` is not the previous
 * row's hash (a row before it deleted, reordered or edited) or whose `hash` does not match its content (the row
 * edited) breaks it. `checked` counts the rows before the break.
 */
export function walkAuditChain(rows: readonly AuditRow[]): AuditVerification {
  let prev = GENESIS_HASH;
  let checked = 0;
  for (const row of rows) {
    const seq = Number(row.seq);
    if (row.prev_hash !== prev) return { ok: false, checked, brokenAtSeq: seq, reason: 'prev_hash does not match the previous row' };
    if (auditHash(row) !== row.hash) return { ok: false, checked, brokenAtSeq: seq, reason: 'hash does not match the row content' };
    prev = row.hash;
    checked += 1;
  }
  return { ok: true, checked };
}

/**
 * Recomputes a merchant's chain from the first row; reports the first row whose link or hash does not match. The chain
 * alone: kernel/verify.ts `verifyAuditTrail` adds the journal hashes and the signed checkpoints.
 */
export async function verifyAuditChain(db: Queryable, merchantId: string): Promise<AuditVerification> {
  const { rows } = await db.query<AuditRow>('SELECT * FROM audit_log WHERE merchant_id = $1 ORDER BY seq', [merchantId]);
  return walkAuditChain(rows);
}

/** `$1` sequence numbers of audit rows, and the chain's head of merchant `$2`. */
const DRAW_SEQS_WITH_HEAD = prepared(
  'audit_draw_seqs_head',
  `SELECT (SELECT hash FROM audit_log WHERE merchant_id = $2 ORDER BY seq DESC LIMIT 1) AS head,
          (SELECT array_agg(nextval(pg_get_serial_sequence('audit_log', 'seq'))) FROM generate_series(1, $1::int)) AS seqs`,
);
/** `$1` sequence numbers of audit rows (the head is known to the transaction). */
const DRAW_SEQS = prepared(
  'audit_draw_seqs',
  `SELECT NULL::text AS head, (SELECT array_agg(nextval(pg_get_serial_sequence('audit_log', 'seq'))) FROM generate_series(1, $1::int)) AS seqs`,
);

/** Sequence numbers drawn ahead for a batch of audit rows, and the chain's head when they were drawn. */
export interface AuditReservation {
  /** The hash of the merchant's last audit row (null: no row yet). */
  head: string | null;
  /** `count` fresh `audit_log.seq` values. */
  seqs: number[];
}

/**
 * The chain's head and `count` sequence numbers for {@link appendAuditBatch} (`options.reserved`), as a part of a
 * combined read (platform/db `readTogether`): a workflow that reads other things before its writes draws them in the
 * same round trip. Drawn under the merchant's lock (the caller holds it); numbers left unused are a gap in `seq`, as
 * after any rolled-back write — the chain is ordered by seq and linked by hash, never by consecutive numbers.
 */
export function auditReservationPart(merchantId: string, count: number): ReadPart<AuditReservation> {
  return {
    sql: `SELECT json_build_object(
              'head', (SELECT hash FROM audit_log WHERE merchant_id = $1 ORDER BY seq DESC LIMIT 1),
              'seqs', (SELECT coalesce(json_agg(nextval(pg_get_serial_sequence('audit_log', 'seq'))), '[]'::json) FROM generate_series(1, $2::int)))`,
    params: [merchantId, count],
    parse: (value) => {
      const read = jsonValue<{ head: string | null; seqs: (number | string)[] }>(value);
      return { head: read.head, seqs: read.seqs.map(Number) };
    },
  };
}

/**
 * Appends many audit rows inside `tx` in one chain segment, in the order given: takes the merchant's write lock, reads
 * the chain's head once (or knows it from this transaction's memo), draws every `seq` in one statement and writes
 * every row in one multi-row INSERT. The rows hash exactly as {@link appendAudit} would have chained them one by one,
 * so {@link verifyAuditChain} holds. All entries must be of the same merchant.
 *
 * With `options.reserved` (an {@link auditReservationPart} read in this transaction under the merchant's lock) holding
 * at least one number per entry, none below a row this transaction appended since, its lowest numbers and that head
 * are used and nothing is read; otherwise they are drawn here. Reserved numbers not used are a gap in `seq`.
 *
 * @param entries rows to append (`occurredAt` default: now); an empty list writes nothing
 * @returns the seq of each entry, in the order given
 * @throws Error when the entries name more than one merchant
 */
export async function appendAuditBatch(
  tx: Queryable,
  entries: readonly AuditEntry[],
  options: { reserved?: AuditReservation } = {},
): Promise<number[]> {
  if (entries.length === 0) return [];
  const merchantId = entries[0]!.merchantId;
  if (entries.some((e) => e.merchantId !== merchantId)) throw new Error('appendAuditBatch: entries of one merchant only');
  const memo = transactionMemo(tx);
  // A reservation is used only when it has one number per entry and no row was appended after it was drawn (its
  // numbers would then come before that row's, and the chain is ordered by seq).
  const lastSeq = memo?.get(lastSeqKey(merchantId)) as number | undefined;
  const reserved =
    options.reserved && options.reserved.seqs.length >= entries.length && (lastSeq === undefined || Math.min(...options.reserved.seqs) > lastSeq)
      ? options.reserved
      : undefined;
  if (entries.length === 1 && !reserved) return [await appendAudit(tx, entries[0]!)];
  await lockMerchant(tx, merchantId);
  const headKey = `audit-head:${merchantId}`;
  let prevHash = memo?.get(headKey) as string | undefined;
  let seqList: (number | string)[];
  if (reserved) {
    // A head this transaction wrote itself (the memo) is the newest; else the one read with the numbers.
    prevHash ??= reserved.head ?? GENESIS_HASH;
    // The lowest numbers, one per entry (any left over stay unused).
    seqList = [...reserved.seqs].sort((a, b) => a - b).slice(0, entries.length);
  } else {
    // The sequence numbers are drawn under the merchant's lock in one statement — with the chain's head when this
    // transaction does not know it yet.
    const {
      rows: [drawn],
    } = await tx.query<{ head: string | null; seqs: (number | string)[] | string }>(
      prevHash === undefined ? DRAW_SEQS_WITH_HEAD : DRAW_SEQS,
      prevHash === undefined ? [entries.length, merchantId] : [entries.length],
    );
    if (prevHash === undefined) prevHash = drawn!.head ?? GENESIS_HASH;
    seqList = typeof drawn!.seqs === 'string' ? drawn!.seqs.replace(/[{}]/g, '').split(',') : drawn!.seqs;
  }
  // Sorted ascending, so the chain's order is the seq order.
  const seqs = seqList.map((v) => Number(v)).sort((a, b) => a - b);
  const now = Date.now();
  const columns: unknown[][] = Array.from({ length: 11 }, () => []);
  // `data` and `journal_hashes` of every row travel as one JSON array (a jsonb parameter), not text[] of JSON.
  const documents: { d: Record<string, unknown>; j: Record<string, string> | null }[] = [];
  for (const [i, entry] of entries.entries()) {
    const occurredAt = new Date((entry.occurredAt ?? new Date(now)).getTime());
    const row: Omit<AuditRow, 'hash'> = {
      seq: seqs[i]!,
      merchant_id: merchantId,
      occurred_at: occurredAt,
      actor: entry.actor,
      register_id: entry.registerId ?? null,
      app_id: entry.appId ?? null,
      action: entry.action,
      entity_type: entry.entityType,
      entity_id: entry.entityId,
      data: JSON.parse(JSON.stringify(entry.data ?? {})) as Record<string, unknown>,
      journal_hashes: journalHashesOf(entry),
      prev_hash: prevHash,
    };
    const hash = auditHash(row);
    const values = [
      row.seq,
      merchantId,
      occurredAt.toISOString(),
      row.actor,
      row.register_id,
      row.app_id,
      row.action,
      row.entity_type,
      row.entity_id,
      prevHash,
      hash,
    ];
    values.forEach((v, c) => columns[c]!.push(v));
    documents.push({ d: row.data, j: row.journal_hashes });
    prevHash = hash;
  }
  await tx.query(
    prepared(
      'audit_insert_batch',
      `INSERT INTO audit_log (seq, merchant_id, occurred_at, actor, register_id, app_id, action, entity_type, entity_id, data, journal_hashes, prev_hash, hash)
     SELECT seq, merchant_id, occurred_at, actor, register_id, app_id, action, entity_type, entity_id, x.doc->'d', NULLIF(x.doc->'j', 'null'::jsonb), prev_hash, hash
       FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) WITH ORDINALITY
            AS t(seq, merchant_id, occurred_at, actor, register_id, app_id, action, entity_type, entity_id, prev_hash, hash, n)
       JOIN jsonb_array_elements($12::jsonb) WITH ORDINALITY AS x(doc, n) USING (n)
      ORDER BY n`,
    ),
    [...columns, JSON.stringify(documents)],
  );
  memo?.set(headKey, prevHash);
  memo?.set(lastSeqKey(merchantId), seqs.at(-1)!);
  return seqs;
}

/* ───────────── journal transactions recorded by audit entries ───────────── */

/** The audit action of an entry that only records journal transactions (posted outside a mutation, or left over). */
export const JOURNAL_POSTED_ACTION = 'journal_transaction.posted';

/** The `journal_hashes` of an entry: a copy of its `journalHashes`, null when it records none. */
function journalHashesOf(entry: AuditEntry): Record<string, string> | null {
  return entry.journalHashes && Object.keys(entry.journalHashes).length > 0 ? { ...entry.journalHashes } : null;
}

/**
 * The `journal_transaction.posted` entry (actor `system`) recording journal transactions no other entry records: those
 * posted outside a mutation (kernel/ledger.ts), or those a mutation posted and no entry of it named (kernel/mutation.ts
 * `flushJournalHashes`, which signs it as the mutation's actor).
 *
 * @param hashes journal transaction id → hash, at least one
 */
export function journalPostedEntry(merchantId: string, hashes: Record<string, string>): AuditEntry {
  const ids = Object.keys(hashes);
  return {
    merchantId,
    actor: 'system',
    action: JOURNAL_POSTED_ACTION,
    entityType: 'journal_transaction',
    entityId: ids[0]!,
    data: { journalTransactionIds: ids },
    journalHashes: hashes,
  };
}
