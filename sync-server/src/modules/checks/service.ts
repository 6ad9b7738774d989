/**
 * A restaurant's open checks as registers push them (core/check-documents.ts): each pushed header, line or payment is
 * joined with the stored one by the check book's merge — never overwritten — and stored with a new sync sequence when
 * the join changed it, so every register pulls what the others did. Each change is one audit entry naming the
 * register and staff member of its stamp. This module is the one writer of `checks`, `check_lines` and
 * `check_payments`.
 */
import {
  canonicalJson,
  CHECK_DOCUMENT_SCHEMAS,
  checkDocumentChanges,
  mergeCheckDocument,
  type CheckCollection,
  type CheckDocument,
} from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { jsonValue } from '../../platform/db/db.ts';

const TABLE: Record<CheckCollection, 'checks' | 'check_lines' | 'check_payments'> = {
  checks: 'checks',
  'check-lines': 'check_lines',
  'check-payments': 'check_payments',
};
const ENTITY: Record<CheckCollection, string> = { checks: 'check', 'check-lines': 'check_line', 'check-payments': 'check_payment' };

/** A stored document as a push answers it (the master state). */
export interface StoredCheckDocument {
  data: Record<string, unknown>;
  syncSeq: number;
  updatedAt: string;
}

/**
 * What became of one pushed document:
 * - `stored`: the join is what was pushed (new here, or newer in every part): stored, nothing to answer;
 * - `unchanged`: the server held it already;
 * - `master`: the server held changes the register had not heard of: the join is stored and answered, and the
 *   register takes it (it contains all of the register's own changes);
 * - `rejected`: not a valid document (quarantined with `reason`).
 */
export type CheckDocumentOutcome =
  | { kind: 'stored' }
  | { kind: 'unchanged' }
  | { kind: 'master'; stored: StoredCheckDocument }
  | { kind: 'rejected'; reason: string; registerId: string | null };

/** The documents of `collection` with these ids, by id. */
async function held(m: Mutation, collection: CheckCollection, ids: string[]): Promise<Map<string, CheckDocument>> {
  if (ids.length === 0) return new Map();
  const { rows } = await m.tx.query<{ id: string; data: unknown }>(
    `SELECT id, data FROM ${TABLE[collection]} WHERE merchant_id = $1 AND id = ANY($2)`,
    [m.merchantId, ids],
  );
  return new Map(rows.map((r) => [r.id, jsonValue<CheckDocument>(r.data)]));
}

/** The check a document belongs to (lines and payments name it; a header is its own). */
function checkIdOf(collection: CheckCollection, doc: CheckDocument): string {
  if (collection === 'checks') return doc.id as string;
  if (collection === 'check-lines') return (doc as { place: { checkId: string } }).place.checkId;
  return (doc as { checkId: string }).checkId;
}

/**
 * Joins pushed documents of `collection` with the stored ones and stores what changed, in the caller's mutation.
 * Documents that fail the collection's schema are `rejected` with the first field's path and message (the push
 * quarantines them); nothing else refuses a document: a check edited on another register meanwhile is a join, not a
 * conflict.
 * @returns one outcome per document, in push order
 */
export async function storeCheckDocuments(
  m: Mutation,
  collection: CheckCollection,
  documents: readonly Record<string, unknown>[],
): Promise<CheckDocumentOutcome[]> {
  const schema = CHECK_DOCUMENT_SCHEMAS[collection];
  const parsed = documents.map((doc) => schema.safeParse(doc));
  const ids = parsed.flatMap((p) => (p.success ? [p.data.id] : []));
  const current = await held(m, collection, [...new Set(ids)]);
  const outcomes: CheckDocumentOutcome[] = [];
  for (const [i, result] of parsed.entries()) {
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const registerId = typeof documents[i]!.registerId === 'string' ? (documents[i]!.registerId as string).slice(0, 64) : null;
      outcomes.push({ kind: 'rejected', reason: `invalid document: ${issue.path.join('.') || '(document)'} ${issue.message}`, registerId });
      continue;
    }
    const pushed = result.data as CheckDocument;
    const id = pushed.id as string;
    const before = current.get(id);
    const joined = before ? mergeCheckDocument(collection, before, pushed) : pushed;
    const joinedJson = canonicalJson(joined);
    const changedHere = before === undefined || joinedJson !== canonicalJson(before);
    let stored: StoredCheckDocument | undefined;
    if (changedHere) {
      const { rows } = await m.tx.query<{ sync_seq: string | number }>(
        `INSERT INTO ${TABLE[collection]} (merchant_id, id, ${collection === 'checks' ? '' : 'check_id, '}data, sync_seq, updated_at)
         VALUES ($1, $2, ${collection === 'checks' ? '' : '$5, '}$3::jsonb, nextval('sync_seq'), $4)
         ON CONFLICT (merchant_id, id) DO UPDATE SET ${collection === 'checks' ? '' : 'check_id = EXCLUDED.check_id, '}data = EXCLUDED.data,
           sync_seq = EXCLUDED.sync_seq, updated_at = EXCLUDED.updated_at
         RETURNING sync_seq`,
        [m.merchantId, id, JSON.stringify(joined), m.now.toISOString(), ...(collection === 'checks' ? [] : [checkIdOf(collection, joined)])],
      );
      stored = { data: joined as unknown as Record<string, unknown>, syncSeq: Number(rows[0]!.sync_seq), updatedAt: m.now.toISOString() };
      current.set(id, joined);
      for (const change of checkDocumentChanges(collection, before, joined)) {
        await m.audit({
          action: change.action,
          entityType: ENTITY[collection],
          entityId: id,
          data: {
            ...change.data,
            checkId: checkIdOf(collection, joined),
            at: change.stamp.at,
            registerId: change.stamp.by,
            staffId: change.stamp.staffId ?? null,
          },
        });
      }
    }
    if (joinedJson === canonicalJson(pushed)) outcomes.push(changedHere ? { kind: 'stored' } : { kind: 'unchanged' });
    else
      outcomes.push({
        kind: 'master',
        stored: stored ?? (await storedOf(m, collection, id)),
      });
  }
  if (outcomes.some((o) => o.kind === 'stored' || o.kind === 'master')) m.changed(collection);
  return outcomes;
}

/** The stored document `id` of `collection` as a push answers it. */
async function storedOf(m: Mutation, collection: CheckCollection, id: string): Promise<StoredCheckDocument> {
  const { rows } = await m.tx.query<{ data: unknown; sync_seq: string | number; updated_at: Date }>(
    `SELECT data, sync_seq, updated_at FROM ${TABLE[collection]} WHERE merchant_id = $1 AND id = $2`,
    [m.merchantId, id],
  );
  const row = rows[0]!;
  return { data: jsonValue<Record<string, unknown>>(row.data), syncSeq: Number(row.sync_seq), updatedAt: new Date(row.updated_at).toISOString() };
}
