/**
 * Register orders written in batches: the orders module's reads and writes for a replication push, each
 * one statement whatever the number of orders, so a push of 50 sales costs a handful of statements, not 50 times a
 * handful. The register-sale workflow (workflows/register-sale.ts) calls them inside its transaction:
 *
 *     readPushContext(tx, merchantId, ask)         → { currency, tip bound, stored orders (ids are global), the
 *                                                    merchant's registers, staff and receipt numbers used }: one statement
 *     pushContextPart(merchantId, ask)             → the same read as a part of a combined read (platform/db readTogether)
 *     (stored with the module's one insert, service.ts `insertOrders`, source 'register')
 *     registerOrderEvents(merchantId, order, now)  → the `order.created` (+ `order.paid`) events of a stored sale
 */
import type { EventType, Order, TipLimit } from '../../../../core/index.ts';
import type { StaffRole } from '../../platform/auth/permissions.ts';
import { jsonValue, type ReadPart } from '../../platform/db/db.ts';

/** An order as stored: its core document, owner and server stamps (`syncSeq`, `updatedAt` ISO 8601). */
export interface StoredRegisterOrder {
  merchantId: string;
  data: Record<string, unknown>;
  syncSeq: number;
  updatedAt: string;
}

/** The key of a receipt number within its register (receipt numbers are unique per register). */
export const receiptKey = (registerId: string, receiptNumber: string): string => `${registerId}\u0000${receiptNumber}`;

/** What a push needs to know before checking its sales, read by {@link readPushContext}. */
export interface PushContext {
  /** The store's currency (ISO 4217); null when the merchant is unknown. */
  currency: string | null;
  /** The store's tip bound (store settings); null when the merchant is unknown. */
  tipLimit: TipLimit | null;
  /**
   * Stored orders among the ids asked, whichever merchant holds them (order ids are global). Another merchant's order
   * comes without its content (`data` empty, stamps zero): the push only learns that the id is taken.
   */
  stored: Map<string, StoredRegisterOrder>;
  /** Register number of each register asked that is a register of the merchant (others are absent). */
  registers: Map<string, number>;
  /** The (register, receipt number) pairs asked that an order already uses, as {@link receiptKey}s. */
  usedReceipts: Set<string>;
  /** Role of each staff id asked that is a staff member of the merchant (others are absent). */
  staff: Map<string, StaffRole>;
}

/** What {@link pushContextPart} is asked about: values taken from the pushed documents (strings only). */
export interface PushContextAsk {
  ids: readonly string[];
  registerIds: readonly string[];
  staffIds: readonly string[];
  receipts: readonly { registerId: string; receiptNumber: string }[];
}

/**
 * Everything a push checks its sales against, as a part of a combined read (platform/db `readTogether`; a workflow
 * reads it with what its writes need, one round trip): the store's currency and tip bound, the orders already stored
 * under `ids`, the merchant's registers among `registerIds`, its staff among `staffIds` (sellers and price-override
 * approvers) and the receipt numbers among `receipts` already used. Values that are not strings are the caller's to
 * leave out.
 */
export function pushContextPart(merchantId: string, ask: PushContextAsk): ReadPart<PushContext> {
  return {
    sql: `SELECT json_build_object(
              'currency', m.currency, 'tipBp', m.tip_limit_basis_points, 'tipCents', m.tip_limit_cents,
              'stored', (SELECT coalesce(json_agg(json_build_object('id', o.id, 'merchantId', o.merchant_id,
                                   'data', CASE WHEN o.merchant_id = $1 THEN o.data END,
                                   'syncSeq', CASE WHEN o.merchant_id = $1 THEN o.sync_seq ELSE 0 END,
                                   'updatedAt', CASE WHEN o.merchant_id = $1 THEN o.updated_at END)), '[]'::json)
                           FROM orders o WHERE o.id = ANY($2::text[])),
              'registers', (SELECT coalesce(json_agg(json_build_object('id', r.id, 'number', r.number)), '[]'::json)
                              FROM registers r WHERE r.merchant_id = $1 AND r.id = ANY($3::text[])),
              'used', (SELECT coalesce(json_agg(json_build_object('registerId', o.register_id, 'receiptNumber', o.receipt_number)), '[]'::json)
                         FROM orders o JOIN unnest($4::text[], $5::text[]) AS p(register_id, receipt_number)
                           ON o.register_id = p.register_id AND o.receipt_number = p.receipt_number),
              'staff', (SELECT coalesce(json_agg(json_build_object('id', s.id, 'role', s.role)), '[]'::json)
                          FROM staff s WHERE s.merchant_id = $1 AND s.id = ANY($6::text[])))
       FROM (SELECT 1) AS one LEFT JOIN merchants m ON m.id = $1`,
    params: [
      merchantId,
      [...new Set(ask.ids)],
      [...new Set(ask.registerIds)],
      ask.receipts.map((p) => p.registerId),
      ask.receipts.map((p) => p.receiptNumber),
      [...new Set(ask.staffIds)],
    ],
    parse: (value) => {
      const row = jsonValue<{
        currency: string | null;
        tipBp: number | string | null;
        tipCents: number | string | null;
        stored: { id: string; merchantId: string; data: Record<string, unknown> | null; syncSeq: number | string; updatedAt: string | null }[];
        registers: { id: string; number: number }[];
        used: { registerId: string; receiptNumber: string }[];
        staff: { id: string; role: StaffRole }[];
      }>(value);
      return {
        currency: row.currency,
        tipLimit: row.tipBp === null || row.tipCents === null ? null : { basisPoints: Number(row.tipBp), fixedCents: Number(row.tipCents) },
        stored: new Map(
          row.stored.map((o) => [
            o.id,
            {
              merchantId: o.merchantId,
              data: o.data ?? {},
              syncSeq: Number(o.syncSeq),
              updatedAt: o.updatedAt ? new Date(o.updatedAt).toISOString() : new Date(0).toISOString(),
            },
          ]),
        ),
        registers: new Map(row.registers.map((r) => [r.id, Number(r.number)])),
        usedReceipts: new Set(row.used.map((u) => receiptKey(u.registerId, u.receiptNumber))),
        staff: new Map(row.staff.map((s) => [s.id, s.role])),
      };
    },
  };
}

/**
 * The webhook events of a register sale just stored: `order.created`, and `order.paid` when it arrived
 * paid; the object is the order as the API shows it (`source: 'register'`, nothing refunded yet).
 */
export function registerOrderEvents(
  merchantId: string,
  order: Order,
  now: Date,
): { merchantId: string; type: EventType; object: Record<string, unknown>; occurredAt: Date }[] {
  const object = {
    ...order,
    source: 'register',
    refundedCents: 0,
    balanceDueCents: order.state === 'open' ? Math.max(0, order.totalCents + order.tipCents - order.paidCents) : 0,
  };
  const events: { merchantId: string; type: EventType; object: Record<string, unknown>; occurredAt: Date }[] = [
    { merchantId, type: 'order.created', object, occurredAt: now },
  ];
  if (order.state === 'paid') events.push({ merchantId, type: 'order.paid', object, occurredAt: now });
  return events;
}
