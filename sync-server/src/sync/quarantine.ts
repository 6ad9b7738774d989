import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../core/index.ts';
import { ulid } from '../../../core/index.ts';
import { appendAuditBatch } from '../kernel/audit.ts';
import type { Mutation } from '../kernel/mutation.ts';
import { storable, storableText } from '../platform/http/input-guard.ts';

/**
 * The replication quarantine: a pushed document the server refuses is kept, once per distinct content
 * (`data_hash` = SHA-256 of its canonical JSON), with the reason, and answered to the register as a rejected master
 * state; each new quarantine row gets a `sync.quarantined` audit entry. Written in batches: one INSERT for the push's
 * refused documents, one read of those already quarantined, one audit batch.
 */
export interface Refusal {
  /** The document as pushed, client fields stripped. */
  data: Record<string, unknown>;
  reason: string;
  registerId: string | null;
}

/** The quarantined document as answered to the register: its content, `rejection: { reason, at }` and `at` as updatedAt. */
export interface QuarantinedDocument {
  data: Record<string, unknown>;
  reason: string;
  /** ISO 8601: when it was first quarantined. */
  at: string;
}

interface Row {
  docId: string;
  data: Record<string, unknown>;
  dataHash: string;
  reason: string;
  registerId: string | null;
}

const keyOf = (r: { docId: string; dataHash: string }) => `${r.docId}\u0000${r.dataHash}`;

/**
 * Quarantines `refusals` of `collection` (already quarantined content keeps its first reason and time) inside `m.tx`.
 * Never throws for a document's content: a row the database refuses is retried alone, then kept as its id only.
 * @returns one quarantined document per refusal, in the order given
 */
export async function quarantine(m: Mutation, collection: string, refusals: readonly Refusal[]): Promise<QuarantinedDocument[]> {
  if (refusals.length === 0) return [];
  const rows: Row[] = refusals.map((r) => {
    const data = storable(r.data) as Record<string, unknown>;
    const docId = typeof data.id === 'string' ? data.id.slice(0, 200) : '(no id)';
    return {
      docId,
      data,
      dataHash: createHash('sha256').update(canonicalJson(data)).digest('hex'),
      reason: storableText(r.reason),
      registerId: r.registerId === null ? null : storableText(r.registerId.slice(0, 64)),
    };
  });
  const kept = new Map<string, { reason: string; at: string }>();
  const unique = [...new Map(rows.map((r) => [keyOf(r), r])).values()];
  const all = await attempt(m, () => keep(m, collection, unique, kept));
  if (!all) {
    for (const row of unique) {
      if (await attempt(m, () => keep(m, collection, [row], kept))) continue;
      // Last resort: its id and reason only, so the register still hears why and nothing fails the push.
      const bare = {
        ...row,
        data: { id: row.docId },
        dataHash: createHash('sha256')
          .update(canonicalJson({ id: row.docId }))
          .digest('hex'),
      };
      await keep(m, collection, [bare], kept);
      kept.set(keyOf(row), kept.get(keyOf(bare))!);
    }
  }
  return rows.map((r) => {
    const found = kept.get(keyOf(r))!;
    return { data: r.data, reason: found.reason, at: found.at };
  });
}

async function attempt(m: Mutation, fn: () => Promise<void>): Promise<boolean> {
  await m.savepoint('quarantine');
  try {
    await fn();
    await m.releaseSavepoint('quarantine');
    return true;
  } catch {
    await m.rollbackToSavepoint('quarantine');
    await m.releaseSavepoint('quarantine');
    return false;
  }
}

/** Inserts the rows not quarantined yet, audits them, and fills `kept` with the reason and time of every row. */
async function keep(m: Mutation, collection: string, rows: readonly Row[], kept: Map<string, { reason: string; at: string }>): Promise<void> {
  const inserted = await m.tx.query<{ doc_id: string; data_hash: string; created_at: Date }>(
    `INSERT INTO quarantine (id, merchant_id, collection, doc_id, data, data_hash, reason, created_at)
     SELECT id, $1, $2, doc_id, data::jsonb, data_hash, reason, $3 FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS t(id, doc_id, data, data_hash, reason)
     ON CONFLICT (merchant_id, collection, doc_id, data_hash) DO NOTHING RETURNING doc_id, data_hash, created_at`,
    [
      m.merchantId,
      collection,
      m.now.toISOString(),
      rows.map(() => `qtn_${ulid()}`),
      rows.map((r) => r.docId),
      rows.map((r) => JSON.stringify(r.data)),
      rows.map((r) => r.dataHash),
      rows.map((r) => r.reason),
    ],
  );
  const fresh = new Map(inserted.rows.map((r) => [keyOf({ docId: r.doc_id, dataHash: r.data_hash }), new Date(r.created_at).toISOString()]));
  const old = rows.filter((r) => !fresh.has(keyOf(r)));
  if (old.length > 0) {
    const existing = await m.tx.query<{ doc_id: string; data_hash: string; created_at: Date; reason: string }>(
      `SELECT q.doc_id, q.data_hash, q.created_at, q.reason FROM quarantine q
         JOIN unnest($3::text[], $4::text[]) AS k(doc_id, data_hash) ON q.doc_id = k.doc_id AND q.data_hash = k.data_hash
        WHERE q.merchant_id = $1 AND q.collection = $2`,
      [m.merchantId, collection, old.map((r) => r.docId), old.map((r) => r.dataHash)],
    );
    for (const r of existing.rows)
      kept.set(keyOf({ docId: r.doc_id, dataHash: r.data_hash }), { reason: r.reason, at: new Date(r.created_at).toISOString() });
  }
  const audited = rows.filter((r) => fresh.has(keyOf(r)));
  for (const r of audited) kept.set(keyOf(r), { reason: r.reason, at: fresh.get(keyOf(r))! });
  await appendAuditBatch(
    m.tx,
    audited.map((r) => ({
      merchantId: m.merchantId,
      actor: m.actor,
      registerId: r.registerId,
      action: 'sync.quarantined',
      entityType: collection,
      entityId: r.docId,
      occurredAt: m.now,
      data: { reason: r.reason, dataHash: r.dataHash },
    })),
  );
}
