/**
 * Register orders written in batches (DESIGN §15): the orders module's reads and writes for a replication push, each
 * one statement whatever the number of orders, so a push of 50 sales costs a handful of statements, not 50 times a
 * handful. The register-sale workflow (workflows/register-sale.ts) calls them inside its transaction:
 *
 *     findStoredOrders(tx, ids)                    → Map<id, StoredRegisterOrder>  (any merchant: ids are global)
 *     findRegisterNumbers(tx, merchantId, ids)     → Map<registerId, number>       (the merchant's registers)
 *     findUsedReceiptNumbers(tx, pairs)            → Set<receiptKey(registerId, receiptNumber)>
 *     (stored with the module's one insert, service.ts `insertOrders`, source 'register')
 *     registerOrderEvents(merchantId, order, now)  → the `order.created` (+ `order.paid`) events of a stored sale
 */
import type { EventType, Order } from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';

/** An order as stored: its core document, owner and server stamps (`syncSeq`, `updatedAt` ISO 8601). */
export interface StoredRegisterOrder {
  merchantId: string;
  data: Record<string, unknown>;
  syncSeq: number;
  updatedAt: string;
}

/** Stored orders among `ids`, whichever merchant holds them (order ids are global), in one statement. */
export async function findStoredOrders(tx: Queryable, ids: readonly string[]): Promise<Map<string, StoredRegisterOrder>> {
  const out = new Map<string, StoredRegisterOrder>();
  if (ids.length === 0) return out;
  const { rows } = await tx.query<{ id: string; merchant_id: string; data: Record<string, unknown>; sync_seq: number | string; updated_at: Date }>(
    'SELECT id, merchant_id, data, sync_seq, updated_at FROM orders WHERE id = ANY($1::text[])',
    [[...new Set(ids)]],
  );
  for (const r of rows) out.set(r.id, { merchantId: r.merchant_id, data: r.data, syncSeq: Number(r.sync_seq), updatedAt: new Date(r.updated_at).toISOString() });
  return out;
}

/** Register number of each of `registerIds` that is a register of the merchant (others are absent), in one statement. */
export async function findRegisterNumbers(tx: Queryable, merchantId: string, registerIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (registerIds.length === 0) return out;
  const { rows } = await tx.query<{ id: string; number: number }>('SELECT id, number FROM registers WHERE merchant_id = $1 AND id = ANY($2::text[])', [
    merchantId,
    [...new Set(registerIds)],
  ]);
  for (const r of rows) out.set(r.id, Number(r.number));
  return out;
}

/** The key of a receipt number within its register (receipt numbers are unique per register). */
export const receiptKey = (registerId: string, receiptNumber: string): string => `${registerId}\u0000${receiptNumber}`;

/** Which of the (register, receipt number) pairs an order already uses, as {@link receiptKey}s, in one statement. */
export async function findUsedReceiptNumbers(tx: Queryable, pairs: readonly { registerId: string; receiptNumber: string }[]): Promise<Set<string>> {
  const out = new Set<string>();
  if (pairs.length === 0) return out;
  const { rows } = await tx.query<{ register_id: string; receipt_number: string }>(
    `SELECT o.register_id, o.receipt_number FROM orders o
       JOIN unnest($1::text[], $2::text[]) AS p(register_id, receipt_number) ON o.register_id = p.register_id AND o.receipt_number = p.receipt_number`,
    [pairs.map((p) => p.registerId), pairs.map((p) => p.receiptNumber)],
  );
  for (const r of rows) out.add(receiptKey(r.register_id, r.receipt_number));
  return out;
}


/**
 * The webhook events of a register sale just stored (DESIGN §6): `order.created`, and `order.paid` when it arrived
 * paid; the object is the order as the API shows it (`source: 'register'`, nothing refunded yet).
 */
export function registerOrderEvents(merchantId: string, order: Order, now: Date): { merchantId: string; type: EventType; object: Record<string, unknown>; occurredAt: Date }[] {
  const object = { ...order, source: 'register', refundedCents: 0, balanceDueCents: order.state === 'open' ? Math.max(0, order.totalCents + order.tipCents - order.paidCents) : 0 };
  const events: { merchantId: string; type: EventType; object: Record<string, unknown>; occurredAt: Date }[] = [{ merchantId, type: 'order.created', object, occurredAt: now }];
  if (order.state === 'paid') events.push({ merchantId, type: 'order.paid', object, occurredAt: now });
  return events;
}
