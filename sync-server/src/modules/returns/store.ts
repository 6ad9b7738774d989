/**
 * Register returns (core/returns.ts): the `register_returns` table is written here only. A stored return
 * is the register's document with the server's stamps (`refundId`, `syncSeq`, `updatedAt`); the refund itself is the
 * orders module's (`order_refunds`).
 */
import type { RegisterReturn } from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';

/** A stored return as replicated: its data (the register's document plus `refundId`), sequence and time. */
export interface StoredReturn {
  merchantId: string;
  data: Record<string, unknown>;
  syncSeq: number;
  updatedAt: string;
}

/** Stored returns by id (any merchant's: a foreign id is a conflict the caller refuses; its data is not shown). */
export async function findReturns(tx: Queryable, merchantId: string, ids: readonly string[]): Promise<Map<string, StoredReturn>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<{ id: string; merchant_id: string; data: Record<string, unknown>; sync_seq: number | string; updated_at: Date }>(
    'SELECT id, merchant_id, data, sync_seq, updated_at FROM register_returns WHERE id = ANY($1::text[])',
    [[...new Set(ids)]],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        merchantId: r.merchant_id,
        data: r.merchant_id === merchantId ? r.data : {},
        syncSeq: Number(r.sync_seq),
        updatedAt: new Date(r.updated_at).toISOString(),
      },
    ]),
  );
}

/** Stores a return with the refund recorded for it (`refundId`) and the amount the server gave back (cents). */
export async function insertReturn(
  tx: Queryable,
  merchantId: string,
  doc: RegisterReturn,
  refundId: string,
  amountCents: number,
  now: Date,
): Promise<StoredReturn> {
  const seq = Number((await tx.query<{ seq: number | string }>(`SELECT nextval('sync_seq') AS seq`)).rows[0]!.seq);
  const data = { ...doc, refundId };
  await tx.query(
    `INSERT INTO register_returns (id, merchant_id, register_id, order_id, refund_id, amount_cents, tender, created_at, data, sync_seq, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [doc.id, merchantId, doc.registerId, doc.orderId, refundId, amountCents, doc.tender.method, doc.createdAt, JSON.stringify(data), seq, now],
  );
  return { merchantId, data, syncSeq: seq, updatedAt: now.toISOString() };
}

/** Whether a register's order is held in quarantine (refused): a return of it can never be stored. */
export async function isOrderQuarantined(tx: Queryable, merchantId: string, orderId: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM quarantine WHERE merchant_id = $1 AND collection = $2 AND doc_id = $3 LIMIT 1', [
    merchantId,
    'orders',
    orderId,
  ]);
  return rows.length > 0;
}
