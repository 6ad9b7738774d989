import { createHash } from 'node:crypto';
import {
  canonicalJson,
  checkRegisterSale,
  isBalanced,
  journalTransactionSchema,
  orderSchema,
  saleJournalTransactionId,
  type JournalTransaction,
  type Order,
} from '../../../core/index.ts';
import { ulid } from 'ulid';
import { z } from 'zod';
import { lockMerchant, type Queryable } from '../platform/db/db.ts';
import { appendAudit } from '../kernel/audit.ts';
import { actorFromString, openMutation } from '../kernel/mutation.ts';
import { refreshStockOnHand } from '../modules/catalog/service.ts';
import { recordStockMovements, saleMovementsOfOrder } from '../modules/inventory/service.ts';
import { announceRegisterOrder } from '../modules/orders/service.ts';
import {
  getJournalTransaction,
  hydrateJournalTransactions,
  journalContent,
  LedgerConflictError,
  LedgerValidationError,
  postJournalTransaction,
} from '../kernel/ledger.ts';
import type { AppContext } from '../platform/context.ts';
import { findUnstorable, isStorableTimestamp, storable } from '../platform/http/input-guard.ts';

/**
 * RxDB replication endpoints (DESIGN §15): pull by server sequence, push with content-based conflicts, quarantine of
 * invalid documents. Catalog and tax rates are server-authoritative (pull only); orders and journal transactions are
 * register-authored and append-only.
 */
export const COLLECTIONS = ['catalog-items', 'tax-rates', 'orders', 'journal-transactions'] as const;
export type Collection = (typeof COLLECTIONS)[number];
export const PUSHABLE: readonly Collection[] = ['orders', 'journal-transactions'];
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

async function orderMaster(tx: Queryable, id: string): Promise<(SyncDocument & { merchantId: string }) | undefined> {
  const { rows } = await tx.query<DataRow & { merchant_id: string }>('SELECT data, sync_seq, updated_at, merchant_id FROM orders WHERE id = $1', [id]);
  const row = rows[0];
  return row ? { ...toDocument(row), merchantId: row.merchant_id } : undefined;
}

interface PushContext {
  tx: Queryable;
  merchantId: string;
  currency: string;
  actor: string;
  now: Date;
  collection: Collection;
  written: Set<Collection>;
  /** Catalog items whose stock at the default location moved in this push: re-stamped once, at the end. */
  stockMovedItemIds: Set<string>;
}

/** Keeps an invalid document in quarantine (once per distinct content) and answers it as a rejected master state. */
async function reject(ctx: PushContext, raw: Record<string, unknown>, reason: string, registerId: unknown): Promise<SyncDocument> {
  const data = storable(stripClientFields(raw)) as Record<string, unknown>;
  const docId = typeof data.id === 'string' ? data.id.slice(0, 200) : '(no id)';
  const dataHash = createHash('sha256').update(canonicalJson(data)).digest('hex');
  const inserted = await ctx.tx.query<{ created_at: Date }>(
    `INSERT INTO quarantine (id, merchant_id, collection, doc_id, data, data_hash, reason, created_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8) ON CONFLICT (merchant_id, collection, doc_id, data_hash) DO NOTHING RETURNING created_at`,
    [`qtn_${ulid()}`, ctx.merchantId, ctx.collection, docId, JSON.stringify(data), dataHash, reason.replaceAll('\u0000', '\uFFFD'), ctx.now.toISOString()],
  );
  let at: Date;
  if (inserted.rows[0]) {
    at = inserted.rows[0].created_at;
    await appendAudit(ctx.tx, {
      merchantId: ctx.merchantId,
      actor: ctx.actor,
      registerId: typeof registerId === 'string' ? registerId.slice(0, 64).replaceAll('\u0000', '\uFFFD') : null,
      action: 'sync.quarantined',
      entityType: ctx.collection,
      entityId: docId,
      occurredAt: ctx.now,
      data: { reason, dataHash },
    });
  } else {
    const existing = await ctx.tx.query<{ created_at: Date; reason: string }>(
      'SELECT created_at, reason FROM quarantine WHERE merchant_id = $1 AND collection = $2 AND doc_id = $3 AND data_hash = $4',
      [ctx.merchantId, ctx.collection, docId, dataHash],
    );
    at = existing.rows[0]!.created_at;
    reason = existing.rows[0]!.reason;
  }
  const atIso = new Date(at).toISOString();
  return { ...data, rejection: { reason, at: atIso }, updatedAt: atIso, syncSeq: 0, _deleted: false };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`)
    .join('; ');
}

async function pushOrder(ctx: PushContext, raw: Record<string, unknown>): Promise<SyncDocument | undefined> {
  const stripped = stripClientFields(raw);
  const unstorable = findUnstorable(stripped);
  if (unstorable) return reject(ctx, raw, `invalid order: ${unstorable.path} ${unstorable.message}`, null);
  if (typeof stripped.id === 'string') {
    const master = await orderMaster(ctx.tx, stripped.id);
    if (master) {
      if (master.merchantId !== ctx.merchantId) return reject(ctx, raw, `order id ${stripped.id} is already used`, stripped.registerId);
      const { merchantId: _m, updatedAt: _u, syncSeq: _s, _deleted: _d, ...masterData } = master;
      if (canonicalJson(masterData) === canonicalJson(stripped)) return undefined;
      const { merchantId: _, ...doc } = master;
      return doc;
    }
  }
  const parsed = orderSchema.safeParse(stripped);
  if (!parsed.success) return reject(ctx, raw, `invalid order: ${describeIssues(parsed.error)}`, stripped.registerId);
  const order: Order = parsed.data;
  if (!isStorableTimestamp(order.createdAt)) return reject(ctx, raw, 'invalid order: createdAt is not a plausible time', order.registerId);
  const register = (await ctx.tx.query<{ number: number }>('SELECT number FROM registers WHERE id = $1 AND merchant_id = $2', [order.registerId, ctx.merchantId])).rows[0];
  if (!register) return reject(ctx, raw, `register ${order.registerId} is not a register of this store`, order.registerId);
  if (register.number !== order.registerNumber) {
    return reject(ctx, raw, `registerNumber ${order.registerNumber} does not match register ${order.registerId} (number ${register.number})`, order.registerId);
  }
  if (order.currency !== ctx.currency) return reject(ctx, raw, `currency ${order.currency} is not the store's currency ${ctx.currency}`, order.registerId);
  const checked = checkRegisterSale(order);
  if (checked.problems) {
    return reject(ctx, raw, `inconsistent sale: ${checked.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, order.registerId);
  }
  const clash = await ctx.tx.query('SELECT id FROM orders WHERE register_id = $1 AND receipt_number = $2', [order.registerId, order.receiptNumber]);
  if (clash.rows.length > 0) return reject(ctx, raw, `receipt number ${order.receiptNumber} is already used by another order of this register`, order.registerId);
  try {
    const posted = await postJournalTransaction(ctx.tx, ctx.merchantId, checked.journalTransaction);
    if (posted.created) ctx.written.add('journal-transactions');
  } catch (err) {
    if (err instanceof LedgerConflictError || err instanceof LedgerValidationError) {
      return reject(ctx, raw, `its journal transaction ${checked.journalTransaction.id} differs from the one already stored`, order.registerId);
    }
    throw err;
  }
  const seq = await ctx.tx.query<{ seq: number | string }>(`SELECT nextval('sync_seq') AS seq`);
  await ctx.tx.query(
    `INSERT INTO orders (id, merchant_id, register_id, receipt_number, state, total_cents, created_at, data, sync_seq, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)`,
    [order.id, ctx.merchantId, order.registerId, order.receiptNumber, order.state, order.totalCents, order.createdAt, JSON.stringify(order), Number(seq.rows[0]!.seq), ctx.now.toISOString()],
  );
  await appendAudit(ctx.tx, {
    merchantId: ctx.merchantId,
    actor: ctx.actor,
    registerId: order.registerId,
    action: 'order.stored',
    entityType: 'order',
    entityId: order.id,
    occurredAt: ctx.now,
    data: { receiptNumber: order.receiptNumber, totalCents: order.totalCents, tipCents: order.tipCents, state: order.state, journalTransactionId: order.journalTransactionId },
  });
  await announceRegisterOrder(await openMutation(ctx.tx, { merchantId: ctx.merchantId, actor: ctx.actor }, ctx.now), order);
  // Stock of tracked variations goes down with the sale (an oversell is recorded, never refused: DESIGN §8).
  const stock = await recordStockMovements(await openMutation(ctx.tx, actorFromString(ctx.merchantId, ctx.actor), ctx.now), { movements: saleMovementsOfOrder(order) });
  for (const id of stock.changedItemIds) ctx.stockMovedItemIds.add(id); // sales move stock at the default location
  ctx.written.add('orders');
  return undefined;
}

async function pushJournalTransaction(ctx: PushContext, raw: Record<string, unknown>): Promise<SyncDocument | undefined> {
  const stripped = stripClientFields(raw);
  const unstorable = findUnstorable(stripped);
  if (unstorable) return reject(ctx, raw, `invalid journal transaction: ${unstorable.path} ${unstorable.message}`, null);
  const parsed = journalTransactionSchema.safeParse(stripped);
  if (typeof stripped.id === 'string') {
    const master = await getJournalTransaction(ctx.tx, ctx.merchantId, stripped.id);
    if (master) {
      if (parsed.success && journalContent(master) === journalContent(parsed.data)) return undefined;
      return { ...master, _deleted: false };
    }
  }
  if (!parsed.success) return reject(ctx, raw, `invalid journal transaction: ${describeIssues(parsed.error)}`, stripped.registerId);
  const jt: JournalTransaction = parsed.data;
  if (!isStorableTimestamp(jt.occurredAt)) return reject(ctx, raw, 'invalid journal transaction: occurredAt is not a plausible time', jt.registerId);
  if (!isBalanced(jt.postings)) return reject(ctx, raw, 'postings do not balance (they must sum to zero)', jt.registerId);
  if (jt.currency !== ctx.currency) return reject(ctx, raw, `currency ${jt.currency} is not the store's currency ${ctx.currency}`, jt.registerId);
  if (jt.registerId !== null) {
    const register = await ctx.tx.query('SELECT 1 FROM registers WHERE id = $1 AND merchant_id = $2', [jt.registerId, ctx.merchantId]);
    if (register.rows.length === 0) return reject(ctx, raw, `register ${jt.registerId} is not a register of this store`, jt.registerId);
  }
  if (jt.sourceType === 'order' && jt.kind === 'sale') {
    if (jt.id !== saleJournalTransactionId(jt.sourceId)) {
      return reject(ctx, raw, `the sale journal transaction of ${jt.sourceId} must have the id ${saleJournalTransactionId(jt.sourceId)}`, jt.registerId);
    }
    const order = await orderMaster(ctx.tx, jt.sourceId);
    if (order && order.merchantId === ctx.merchantId) {
      // The order arrived first and already posted its derived transaction under its own id; anything else is foreign.
      return reject(ctx, raw, `order ${jt.sourceId} is stored and its journal transaction is ${String(order.journalTransactionId)}`, jt.registerId);
    }
  }
  try {
    await postJournalTransaction(ctx.tx, ctx.merchantId, jt);
  } catch (err) {
    if (err instanceof LedgerValidationError || err instanceof LedgerConflictError) return reject(ctx, raw, err.message, jt.registerId);
    throw err;
  }
  await appendAudit(ctx.tx, {
    merchantId: ctx.merchantId,
    actor: ctx.actor,
    registerId: jt.registerId,
    action: 'journal_transaction.posted',
    entityType: 'journal_transaction',
    entityId: jt.id,
    occurredAt: ctx.now,
    data: { kind: jt.kind, sourceType: jt.sourceType, sourceId: jt.sourceId, postings: jt.postings.length },
  });
  ctx.written.add('journal-transactions');
  return undefined;
}

/**
 * Applies a push in one transaction under the merchant's write lock. Returns the conflicts (master states, or rejected
 * documents) and the collections written, for the change feed. A bad document never fails the whole push.
 */
export async function push(
  app: AppContext,
  principal: { merchantId: string; actor: string },
  collection: 'orders' | 'journal-transactions',
  rows: PushRow[],
): Promise<{ conflicts: SyncDocument[]; written: Set<Collection> }> {
  const written = new Set<Collection>();
  const conflicts = await app.db.transaction(async (tx) => {
    await lockMerchant(tx, principal.merchantId);
    const merchant = (await tx.query<{ currency: string }>('SELECT currency FROM merchants WHERE id = $1', [principal.merchantId])).rows[0];
    const ctx: PushContext = { tx, merchantId: principal.merchantId, currency: merchant?.currency ?? 'USD', actor: principal.actor, now: app.clock(), collection, written, stockMovedItemIds: new Set() };
    const out: SyncDocument[] = [];
    for (const row of rows) {
      const conflict = collection === 'orders' ? await pushOrder(ctx, row.newDocumentState) : await pushJournalTransaction(ctx, row.newDocumentState);
      if (conflict) out.push(conflict);
    }
    // Register sales move stock at the default location: each item sold in this push gets one new stamp (registers
    // pull its stockOnHand) and one catalog.updated event carrying the stock after the whole push.
    if (ctx.stockMovedItemIds.size > 0) {
      await refreshStockOnHand(await openMutation(tx, actorFromString(principal.merchantId, 'system'), ctx.now), [...ctx.stockMovedItemIds], true);
      written.add('catalog-items');
    }
    return out;
  });
  return { conflicts, written };
}
