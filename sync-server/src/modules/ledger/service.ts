/**
 * Read models of the ledger module's routes (staff only): the SMS and e-mail outboxes, the replication quarantine and
 * the journal, each one keyset-paginated page. Reads only: the kernel writes the journal, the platform the outboxes,
 * the sync protocol the quarantine.
 */
import type { Queryable } from '../../platform/db/db.ts';
import { createdAtKey, decodeCursor, pageOf } from '../../platform/http/cursor.ts';
import { hydrateJournalTransactions, type StoredJournalTransaction } from '../../kernel/ledger.ts';
import { smsSegments } from '../../../../core/index.ts';

/** A page request: `limit` rows after `cursor` (a cursor this list made). */
export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
}

/** Filters of an outbox page: one delivery state, and/or what the messages are about (`invoice:<id>`, …). */
export interface OutboxFilter {
  status?: string | undefined;
  subjectRef?: string | undefined;
}

/**
 * One page of an outbox table (`sms_outbox`, `email_outbox`: id, merchant_id, created_at, status + `columns`), newest
 * first, keyset-paginated on (created_at, id), optionally of one `status` and/or one `subjectRef`; `view` maps a row's
 * own columns to the API fields.
 * @throws ProblemError 400 naming `cursor` for a cursor this list did not make.
 */
async function outboxPage<R extends object>(
  db: Queryable,
  merchantId: string,
  q: PageQuery & OutboxFilter,
  table: 'sms_outbox' | 'email_outbox',
  columns: string,
  view: (row: R) => Record<string, unknown>,
): Promise<{ data: Record<string, unknown>[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.status) {
    params.push(q.status);
    where += ` AND status = $${params.length}`;
  }
  if (q.subjectRef) {
    params.push(q.subjectRef);
    where += ` AND subject_ref = $${params.length}`;
  }
  if (q.cursor) {
    const [createdAt, id] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, id);
    where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`;
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<R & { id: string; created_at: Date; status: string }>(
    `SELECT id, ${columns}, created_at, status FROM ${table} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => ({ id: r.id, ...view(r), status: r.status, createdAt: new Date(r.created_at).toISOString() })), nextCursor };
}

/** An address the store's mail was refused for for good (`email_suppressions`): nothing more is sent to it. */
export interface EmailSuppression {
  address: string;
  reason: string;
  emailId: string;
  createdAt: string;
}

/**
 * The merchant's suppressed e-mail addresses, newest first (keyset on created_at, address).
 * @throws ProblemError 400 naming `cursor` for a cursor this list did not make.
 */
export async function listEmailSuppressions(
  db: Queryable,
  merchantId: string,
  q: PageQuery,
): Promise<{ data: EmailSuppression[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.cursor) {
    const [createdAt, address] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(createdAt, address);
    where += ' AND (created_at, address) < ($2::timestamptz, $3::text)';
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<{ id: string; reason: string; email_id: string; created_at: Date }>(
    `SELECT address AS id, reason, email_id, created_at FROM email_suppressions WHERE ${where}
      ORDER BY created_at DESC, address DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return {
    data: page.map((r) => ({ address: r.id, reason: r.reason, emailId: r.email_id, createdAt: new Date(r.created_at).toISOString() })),
    nextCursor,
  };
}

/** A phone that answered STOP to the store's texts (`sms_opt_outs`): no text is sent to it until it answers START. */
export interface SmsOptOut {
  phone: string;
  keyword: string;
  optedOutAt: string;
}

/**
 * The merchant's opted-out phones, newest first (keyset on opted_out_at, phone).
 * @throws ProblemError 400 naming `cursor` for a cursor this list did not make.
 */
export async function listSmsOptOuts(db: Queryable, merchantId: string, q: PageQuery): Promise<{ data: SmsOptOut[]; nextCursor: string | null }> {
  const params: unknown[] = [merchantId];
  let where = 'merchant_id = $1';
  if (q.cursor) {
    const [at, phone] = decodeCursor(q.cursor, ['date', 'string']);
    params.push(at, phone);
    where += ' AND (opted_out_at, phone) < ($2::timestamptz, $3::text)';
  }
  params.push(q.limit + 1);
  const { rows } = await db.query<{ id: string; keyword: string; created_at: Date }>(
    `SELECT phone AS id, keyword, opted_out_at AS created_at FROM sms_opt_outs WHERE ${where}
      ORDER BY opted_out_at DESC, phone DESC LIMIT $${params.length}`,
    params,
  );
  const { page, nextCursor } = pageOf(rows, q.limit, createdAtKey);
  return { data: page.map((r) => ({ phone: r.id, keyword: r.keyword, optedOutAt: new Date(r.created_at).toISOString() })), nextCursor };
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

/** One page of `sms_outbox` in the API shape (routes.ts `smsOutboxEntry`), newest first. */
export function smsOutboxPage(db: Queryable, merchantId: string, q: PageQuery & OutboxFilter) {
  return outboxPage<{
    to_phone: string;
    body: string;
    provider_code: string | null;
    attempts: number;
    next_attempt_at: Date | null;
    last_error: string | null;
    subject_ref: string | null;
  }>(db, merchantId, q, 'sms_outbox', 'to_phone, body, provider_code, attempts, next_attempt_at, last_error, subject_ref', (r) => {
    const { encoding, segments } = smsSegments(r.body);
    return {
      to: r.to_phone,
      body: r.body,
      providerCode: r.provider_code,
      attempts: Number(r.attempts),
      nextAttemptAt: iso(r.next_attempt_at),
      lastError: r.last_error,
      subjectRef: r.subject_ref,
      encoding,
      segments,
    };
  });
}

/** One page of `email_outbox` in the API shape (routes.ts `emailOutboxEntry`), newest first. */
export function emailOutboxPage(db: Queryable, merchantId: string, q: PageQuery & OutboxFilter) {
  return outboxPage<{
    to_address: string;
    subject: string;
    body: string;
    kind: string;
    attempts: number;
    next_attempt_at: Date | null;
    last_error: string | null;
    sent_at: Date | null;
    message_id: string | null;
    subject_ref: string | null;
  }>(
    db,
    merchantId,
    q,
    'email_outbox',
    'to_address, subject, body, kind, attempts, next_attempt_at, last_error, sent_at, message_id, subject_ref',
    (r) => ({
      to: r.to_address,
      subject: r.subject,
      body: r.body,
      kind: r.kind,
      attempts: Number(r.attempts),
      nextAttemptAt: iso(r.next_attempt_at),
      lastError: r.last_error,
      sentAt: iso(r.sent_at),
      messageId: r.message_id,
      subjectRef: r.subject_ref,
    }),
  );
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
