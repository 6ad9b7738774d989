/**
 * The closeout module's tables (migration 0110): shifts, cash movements, shift closeouts — register-authored,
 * append-only, replicated — and store closeouts, one per closed business day (the day's lock). Reads and writes only;
 * the checks and the ledger postings are the workflow's (workflows/shift-closeout.ts).
 */
import type { CashMovement, Shift, ShiftCloseout } from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';

/** A stored register-authored document: its core content and server stamps (`updatedAt` ISO 8601). */
export interface StoredShiftDocument {
  data: Record<string, unknown>;
  syncSeq: number;
  updatedAt: string;
}

/** The replicated collections of this module and their tables. */
export const SHIFT_TABLES = { shifts: 'shifts', 'cash-movements': 'cash_movements', 'shift-closeouts': 'shift_closeouts' } as const;
export type ShiftCollection = keyof typeof SHIFT_TABLES;

/** Documents of `collection` stored under `ids` for the merchant (others' ids are reported as taken: `merchantId`). */
export async function findShiftDocuments(
  tx: Queryable,
  merchantId: string,
  collection: ShiftCollection,
  ids: readonly string[],
): Promise<Map<string, StoredShiftDocument & { merchantId: string }>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<{ id: string; merchant_id: string; data: Record<string, unknown>; sync_seq: number | string; updated_at: Date }>(
    `SELECT id, merchant_id, data, sync_seq, updated_at FROM ${SHIFT_TABLES[collection]} WHERE id = ANY($1::text[])`,
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

const nextSeq = async (tx: Queryable) => Number((await tx.query<{ seq: number | string }>(`SELECT nextval('sync_seq') AS seq`)).rows[0]!.seq);

/** Stores a shift assigned to `businessDay` (`YYYY-MM-DD`). */
export async function insertShift(tx: Queryable, merchantId: string, shift: Shift, businessDay: string, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO shifts (id, merchant_id, register_id, opened_at, business_day, data, sync_seq, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [shift.id, merchantId, shift.registerId, shift.openedAt, businessDay, JSON.stringify(shift), await nextSeq(tx), now],
  );
}

/** Stores a cash movement. */
export async function insertCashMovement(tx: Queryable, merchantId: string, movement: CashMovement, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO cash_movements (id, merchant_id, shift_id, register_id, kind, amount_cents, created_at, data, sync_seq, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      movement.id,
      merchantId,
      movement.shiftId,
      movement.registerId,
      movement.kind,
      movement.amountCents,
      movement.createdAt,
      JSON.stringify(movement),
      await nextSeq(tx),
      now,
    ],
  );
}

/** Stores a shift closeout with the over/short posted (`journalTransactionId`, null when the drawer was exact). */
export async function insertShiftCloseout(
  tx: Queryable,
  merchantId: string,
  closeout: ShiftCloseout,
  overShortCents: number,
  journalTransactionId: string | null,
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO shift_closeouts (id, merchant_id, shift_id, register_id, closed_at, counted_cents, over_short_cents, journal_transaction_id, data, sync_seq, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      closeout.id,
      merchantId,
      closeout.shiftId,
      closeout.registerId,
      closeout.closedAt,
      closeout.countedCashCents,
      overShortCents,
      journalTransactionId,
      JSON.stringify(closeout),
      await nextSeq(tx),
      now,
    ],
  );
}

/** A shift with its business day and its closeout and movements when stored. */
export interface ShiftRecord {
  shift: Shift;
  businessDay: string;
  closeout: ShiftCloseout | null;
  movements: CashMovement[];
}

/** The shifts of the merchant matching `where` (`s.` columns; parameters from $2), with their closeouts and movements. */
async function shiftRecords(db: Queryable, merchantId: string, where: string, params: unknown[]): Promise<ShiftRecord[]> {
  const { rows } = await db.query<{ data: Shift; business_day: string; closeout: ShiftCloseout | null; movements: CashMovement[] | string }>(
    `SELECT s.data, s.business_day, c.data AS closeout,
            (SELECT coalesce(json_agg(m.data ORDER BY m.created_at, m.id), '[]'::json) FROM cash_movements m WHERE m.merchant_id = s.merchant_id AND m.shift_id = s.id) AS movements
       FROM shifts s LEFT JOIN shift_closeouts c ON c.merchant_id = s.merchant_id AND c.shift_id = s.id
      WHERE s.merchant_id = $1 AND ${where} ORDER BY s.opened_at, s.id`,
    [merchantId, ...params],
  );
  return rows.map((r) => ({
    shift: r.data,
    businessDay: r.business_day,
    closeout: r.closeout,
    movements: typeof r.movements === 'string' ? (JSON.parse(r.movements) as CashMovement[]) : r.movements,
  }));
}

/** One shift of the merchant, or undefined. */
export async function getShiftRecord(db: Queryable, merchantId: string, shiftId: string): Promise<ShiftRecord | undefined> {
  return (await shiftRecords(db, merchantId, 's.id = $2', [shiftId]))[0];
}

/** The shifts of one business day (`YYYY-MM-DD`), in opening order. */
export async function shiftsOfDay(db: Queryable, merchantId: string, businessDay: string): Promise<ShiftRecord[]> {
  return shiftRecords(db, merchantId, 's.business_day = $2', [businessDay]);
}

/** The store closeout of a business day as stored. */
export interface StoreCloseoutRow {
  businessDay: string;
  closedAt: string;
  closedBy: string;
  missing: unknown[];
  report: Record<string, unknown>;
}

/** The store closeout of `businessDay`, or undefined while the day is open. */
export async function getStoreCloseout(db: Queryable, merchantId: string, businessDay: string): Promise<StoreCloseoutRow | undefined> {
  const { rows } = await db.query<{ business_day: string; closed_at: Date; closed_by: string; missing: unknown[]; report: Record<string, unknown> }>(
    'SELECT business_day, closed_at, closed_by, missing, report FROM store_closeouts WHERE merchant_id = $1 AND business_day = $2',
    [merchantId, businessDay],
  );
  const r = rows[0];
  return (
    r && { businessDay: r.business_day, closedAt: new Date(r.closed_at).toISOString(), closedBy: r.closed_by, missing: r.missing, report: r.report }
  );
}

/** The closed business days among `days`. */
export async function closedDays(db: Queryable, merchantId: string, days: readonly string[]): Promise<Set<string>> {
  if (days.length === 0) return new Set();
  const { rows } = await db.query<{ business_day: string }>(
    'SELECT business_day FROM store_closeouts WHERE merchant_id = $1 AND business_day = ANY($2::text[])',
    [merchantId, [...new Set(days)]],
  );
  return new Set(rows.map((r) => r.business_day));
}

/** The first business day on or after `day` that is not closed (a day locked by its closeout sends records onward). */
export async function firstOpenDay(db: Queryable, merchantId: string, day: string, next: (day: string) => string): Promise<string> {
  const { rows } = await db.query<{ business_day: string }>(
    'SELECT business_day FROM store_closeouts WHERE merchant_id = $1 AND business_day >= $2 ORDER BY business_day LIMIT 400',
    [merchantId, day],
  );
  const closed = new Set(rows.map((r) => r.business_day));
  let d = day;
  while (closed.has(d)) d = next(d);
  return d;
}

/** Records the store closeout of a business day (the day is locked from then on). */
export async function insertStoreCloseout(tx: Queryable, merchantId: string, row: StoreCloseoutRow): Promise<void> {
  await tx.query('INSERT INTO store_closeouts (merchant_id, business_day, closed_at, closed_by, missing, report) VALUES ($1, $2, $3, $4, $5, $6)', [
    merchantId,
    row.businessDay,
    row.closedAt,
    row.closedBy,
    JSON.stringify(row.missing),
    JSON.stringify(row.report),
  ]);
}

/** Closed business days of the merchant, newest first (at most `limit`). */
export async function listStoreCloseouts(
  db: Queryable,
  merchantId: string,
  limit: number,
): Promise<{ businessDay: string; closedAt: string; missingCount: number }[]> {
  const { rows } = await db.query<{ business_day: string; closed_at: Date; missing: unknown[] }>(
    'SELECT business_day, closed_at, missing FROM store_closeouts WHERE merchant_id = $1 ORDER BY business_day DESC LIMIT $2',
    [merchantId, limit],
  );
  return rows.map((r) => ({ businessDay: r.business_day, closedAt: new Date(r.closed_at).toISOString(), missingCount: r.missing.length }));
}

/** The merchant's registers not revoked, with the last time any of their credentials was seen (ISO, or null). */
export async function activeRegisters(
  db: Queryable,
  merchantId: string,
): Promise<{ id: string; number: number; name: string; lastSeenAt: string | null }[]> {
  const { rows } = await db.query<{ id: string; number: number; name: string; last_seen: Date | null }>(
    `SELECT r.id, r.number, r.name, (SELECT MAX(c.last_seen_at) FROM register_credentials c WHERE c.register_id = r.id) AS last_seen
       FROM registers r WHERE r.merchant_id = $1 AND r.revoked_at IS NULL ORDER BY r.number`,
    [merchantId],
  );
  return rows.map((r) => ({
    id: r.id,
    number: Number(r.number),
    name: r.name,
    lastSeenAt: r.last_seen ? new Date(r.last_seen).toISOString() : null,
  }));
}
