import { z } from 'zod';
import type { Queryable } from '../platform/db/db.ts';
import { hydrateJournalTransactions } from '../kernel/ledger.ts';
import { mutation, type MutationActor } from '../kernel/mutation.ts';
import type { AppContext } from '../platform/context.ts';
import { storeRegisterSales } from '../workflows/register-sale.ts';
import { quarantine } from './quarantine.ts';

/**
 * RxDB replication endpoints (DESIGN §15): pull by server sequence, push with content-based conflicts, quarantine of
 * invalid documents. Catalog and tax rates are server-authoritative (pull only); orders are register-authored and
 * append-only; journal transactions are derived by the server from the orders it stores (pull only).
 */
export const COLLECTIONS = ['catalog-items', 'tax-rates', 'orders', 'journal-transactions'] as const;
export type Collection = (typeof COLLECTIONS)[number];
/** Register-authored collections. Journal transactions are derived by the server from the orders: pull only. */
export const PUSHABLE: readonly Collection[] = ['orders'];
export const MAX_PUSH_ROWS = 500;

/** A replicated document: core-shaped data plus server stamps and RxDB's deletion flag. */
export type SyncDocument = Record<string, unknown> & { updatedAt: string; syncSeq: number; _deleted: boolean };

export interface PullResult {
  documents: SyncDocument[];
  checkpoint: { seq: number } | null;
}

/** Fields a register may send that are not part of the core shape (server stamps, RxDB internals, our rejection). */
const CLIENT_ONLY_FIELDS = ['_deleted', 'updatedAt', 'syncSeq', '_meta', '_rev', '_attachments', 'rejection'];

function stripClientFields(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!CLIENT_ONLY_FIELDS.includes(k)) out[k] = v;
  return out;
}

export const pushBodySchema = z
  .array(
    z.strictObject({
      assumedMasterState: z.record(z.string(), z.unknown()).nullable().optional(),
      newDocumentState: z.record(z.string(), z.unknown()),
    }),
  )
  .max(MAX_PUSH_ROWS);
export type PushRow = z.infer<typeof pushBodySchema>[number];

interface DataRow {
  data: Record<string, unknown>;
  sync_seq: number | string;
  updated_at: Date;
  deleted?: boolean;
}

function toDocument(row: DataRow): SyncDocument {
  return { ...row.data, updatedAt: new Date(row.updated_at).toISOString(), syncSeq: Number(row.sync_seq), _deleted: row.deleted ?? false };
}

const TABLE: Record<Exclude<Collection, 'journal-transactions'>, string> = {
  'catalog-items': 'catalog_items',
  'tax-rates': 'tax_rates',
  orders: 'orders',
};

/** Documents of `collection` strictly after `seq`, in sequence order. With none, the checkpoint sent is returned. */
export async function pull(db: Queryable, merchantId: string, collection: Collection, seq: number | null, limit: number): Promise<PullResult> {
  let documents: SyncDocument[];
  if (collection === 'journal-transactions') {
    const { rows } = await db.query<Parameters<typeof hydrateJournalTransactions>[1][number]>(
      'SELECT * FROM journal_transactions WHERE merchant_id = $1 AND sync_seq > $2 ORDER BY sync_seq LIMIT $3',
      [merchantId, seq ?? 0, limit],
    );
    documents = (await hydrateJournalTransactions(db, rows)).map((jt) => ({ ...jt, _deleted: false }));
  } else {
    const deleted = collection === 'orders' ? 'false AS deleted' : 'deleted';
    const { rows } = await db.query<DataRow>(
      `SELECT data, sync_seq, updated_at, ${deleted} FROM ${TABLE[collection]} WHERE merchant_id = $1 AND sync_seq > $2 ORDER BY sync_seq LIMIT $3`,
      [merchantId, seq ?? 0, limit],
    );
    documents = rows.map(toDocument);
  }
  const last = documents.at(-1);
  return { documents, checkpoint: last ? { seq: last.syncSeq } : seq === null ? null : { seq } };
}

/** The highest sequence of the merchant's documents in `collection` (0 when none). */
export async function maxSeq(db: Queryable, merchantId: string, collection: Collection): Promise<number> {
  const table = collection === 'journal-transactions' ? 'journal_transactions' : TABLE[collection];
  const { rows } = await db.query<{ seq: number | string | null }>(`SELECT MAX(sync_seq) AS seq FROM ${table} WHERE merchant_id = $1`, [merchantId]);
  return Number(rows[0]?.seq ?? 0);
}

/**
 * Applies a push of register orders (DESIGN §15) in one transaction under the merchant's write lock, through the
 * register-sale workflow, which validates, price-checks and stores the sales with their derived journal transactions.
 * Refused documents are quarantined with their reason; a bad document never fails the push. The change feed hears of
 * the collections written after the commit.
 * @returns the conflicts to answer, in push order: master states of stored orders that differ, and refused documents
 *   marked with `rejection: { reason, at }`
 */
export async function push(app: Pick<AppContext, 'db' | 'clock' | 'feed'>, who: MutationActor, collection: 'orders', rows: PushRow[]): Promise<SyncDocument[]> {
  return mutation(app, who, async (m) => {
    const documents = rows.map((row) => stripClientFields(row.newDocumentState));
    const outcomes = await storeRegisterSales(m, documents);
    const refused = outcomes.flatMap((o, i) => (o.kind === 'rejected' ? [{ index: i, data: documents[i]!, reason: o.reason, registerId: o.registerId }] : []));
    const kept = await quarantine(m, collection, refused);
    const rejections = new Map(refused.map((r, k) => [r.index, kept[k]!]));
    return outcomes.flatMap((o, i): SyncDocument[] => {
      if (o.kind === 'master') return [{ ...o.stored.data, updatedAt: o.stored.updatedAt, syncSeq: o.stored.syncSeq, _deleted: false }];
      const q = rejections.get(i);
      return q ? [{ ...q.data, rejection: { reason: q.reason, at: q.at }, updatedAt: q.at, syncSeq: 0, _deleted: false }] : [];
    });
  });
}
