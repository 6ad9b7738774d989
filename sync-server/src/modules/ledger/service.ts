/**
 * Read models of the ledger module's routes (staff only): the SMS and e-mail outboxes, the replication quarantine and
 * the journal, each one keyset-paginated page. Reads only: the kernel writes the journal, the platform the outboxes,
 * the sync protocol the quarantine.
 */
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { hydrateJournalTransactions, type StoredJournalTransaction } from '../../kernel/ledger.ts';

/** A page request: `limit` rows after `cursor` (a cursor this list made). */
export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
}

/**
 * One page of an outbox table (`sms_outbox`, `email_outbox`: id, merchant_id, created_at, status + `columns`), newest
 * first, keyset-paginated on (created_at, id); `view` maps a row's own columns to the API fields.
 */
export async function outboxPage<R extends object>(
  db: Queryable,
  merchantId: string,
  q: PageQuery,
  table: 'sms_outbox' | 'email_outbox',
  columns: string,
  view: (row: R) => Record<string, unknown>,
): Promise<{ data: Record<string, unknown>[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ` AND (created_at, id) < ($2::timestamptz, $3::text)`;
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<R & { id: string; created_at: Date; status: string }>(
    `SELECT id, ${columns}, created_at, status FROM ${table} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => ({ id: r.id, ...view(r), status: r.status, createdAt: new Date(r.created_at).toISOString() })), nextCursor };
}

/** A document the sync protocol refused, with the reason. */
export interface QuarantineEntry {
  id: string;
  collection: string;
  documentId: string;
  document: unknown;
  reason: string;
  createdAt: string;
}

/**
 * The merchant's quarantined documents, newest first (keyset on created_at, id), optionally of one collection.
 * @throws ProblemError 400 naming `cursor` for a cursor this list did not make.
 */
export async function listQuarantine(
  db: Queryable,
  merchantId: string,
  q: PageQuery & { collection?: string | undefined },
): Promise<{ data: QuarantineEntry[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.collection) {
    params.push(q.collection);
    where += ` AND collection = $${params.length}`;
  }
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<{ id: string; collection: string; doc_id: string; data: unknown; reason: string; created_at: Date }>(
    `SELECT id, collection, doc_id, data, reason, created_at FROM quarantine WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return {
    data: page.map((r) => ({
      id: r.id,
      collection: r.collection,
      documentId: r.doc_id,
      document: r.data,
      reason: r.reason,
      createdAt: new Date(r.created_at).toISOString(),
    })),
    nextCursor,
  };
}

/**
 * The merchant's journal transactions in posting order (server sequence), with their postings (debit > 0, credit < 0),
 * optionally of one source (e.g. an order id). Cursor: the last sequence read.
 * @throws ProblemError 400 naming `cursor` for a cursor this list did not make.
 */
export async function listJournalTransactions(
  db: Queryable,
  merchantId: string,
  q: PageQuery & { sourceId?: string | undefined },
): Promise<{ data: StoredJournalTransaction[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.sourceId) {
    params.push(q.sourceId);
    where += ` AND source_id = $${params.length}`;
  }
  if (q.cursor) {
    params.push(decodeCursor(q.cursor, ['number'])[0]);
    where += ` AND sync_seq > $${params.length}`;
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<Parameters<typeof hydrateJournalTransactions>[1][number]>(
    `SELECT * FROM journal_transactions WHERE ${where} ORDER BY sync_seq LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, (last) => [Number(last.sync_seq)]);
  return { data: await hydrateJournalTransactions(db, page), nextCursor };
}
