/**
 * The register's shifts, stored locally first: a shift opened with a counted float, cash paid in and out
 * and no-sale drawer opens during it, and its closeout with the drawer counted by denomination — the documents of
 * core/shifts.ts, checked with its schemas before they are written. Every record is append-only and born here with
 * its id, so it is pushed like a sale (sync/replication.ts): kept through an outage, stored once however often it is
 * sent. A shift is open while this register holds no closeout of it.
 *
 * The X- and Z-report are core's `computeZReport` over every sale stored on this register during the shift, synced
 * or not (`isSaleOfShift`: same register, `openedAt ≤ createdAt ≤ closedAt`).
 */
import {
  cashMovementSchema,
  computeZReport,
  countedTotalCents,
  newId,
  shiftCloseoutSchema,
  shiftSchema,
  type CashMovement,
  type CashMovementKind,
  type Cents,
  type DenominationCount,
  type Shift,
  type ServiceCashKind,
  type ShiftCloseout,
  type ZReport,
} from '../../../../core/index.ts';
import type { RegisterDatabase, StoredOrder } from '../db/database.ts';
import type { RegisterSession } from '../../common/session.ts';

type RegisterOfShift = Pick<RegisterSession, 'registerId' | 'registerNumber' | 'currency'>;

/** Thrown on a shift action the shift's state does not allow (a paid out or a close with no shift open, a second open). */
export class ShiftStateError extends Error {
  override name = 'ShiftStateError';
}

/** A closeout as the register stores it (with the server's stamp once synced, pulled back). */
export type StoredCloseout = ShiftCloseout;

const clean = <T extends object>(doc: T): T => {
  const { _meta, _rev, _attachments, _deleted, ...rest } = doc as T & Record<string, unknown>;
  (void _meta, void _rev, void _attachments, void _deleted);
  return rest as T;
};

/** The open shift of this register (its latest shift with no closeout), if any. */
export async function currentShift(db: RegisterDatabase, registerId: string): Promise<Shift | undefined> {
  const latest = await db.shifts.findOne({ selector: { registerId }, sort: [{ openedAt: 'desc' }] }).exec();
  if (!latest) return undefined;
  const closed = await db.closeouts.findOne({ selector: { shiftId: latest.id } }).exec();
  return closed ? undefined : clean(latest.toMutableJSON() as Shift);
}

/**
 * Opens a shift with a counted opening float (cents), optionally counted by denomination (`count`, whose total is
 * then the float). @throws ShiftStateError when a shift is already open; ZodError when the shift is not valid.
 */
export async function openShift(
  db: RegisterDatabase,
  register: RegisterOfShift,
  input: { openingFloatCents?: Cents; count?: DenominationCount[]; staffId?: string; at?: string },
): Promise<Shift> {
  if (await currentShift(db, register.registerId)) throw new ShiftStateError('A shift is already open on this register');
  const counted = input.count?.filter((c) => c.count > 0);
  const shift = shiftSchema.parse({
    id: newId('shift'),
    registerId: register.registerId,
    registerNumber: register.registerNumber,
    currency: register.currency,
    openedAt: input.at ?? new Date().toISOString(),
    openingFloatCents: counted && counted.length > 0 ? countedTotalCents(counted) : (input.openingFloatCents ?? 0),
    ...(counted && counted.length > 0 ? { openingCount: counted } : {}),
    ...(input.staffId ? { staffId: input.staffId } : {}),
  });
  await db.shifts.insert(shift);
  return shift;
}

/**
 * The open shift, or one the register opens by itself (float 0) for a sale rung up with none open — the register
 * never refuses a sale for want of a shift (docs/decisions/0011-shifts-on-the-register.md). A shift it opens belongs to `staffId`, the staff
 * member signed in on the register, when given, and opens at `at` (ISO 8601; default now): the business time of the
 * sale that opens it, so that sale lies in the shift's window (`openedAt ≤ createdAt`) — but never before the close
 * of this register's last shift (then 1 ms after it: shifts never overlap). Callers whose record is stamped earlier
 * than the shift's `openedAt` restamp it (sale/ring-up.ts `ringUpSale`).
 */
export async function ensureShiftForSale(db: RegisterDatabase, register: RegisterOfShift, staffId?: string, at?: string): Promise<Shift> {
  const open = await currentShift(db, register.registerId);
  if (open) return open;
  const lastClose = await db.closeouts.findOne({ selector: { registerId: register.registerId }, sort: [{ closedAt: 'desc' }] }).exec();
  let openedAt = at ?? new Date().toISOString();
  if (lastClose && Date.parse(openedAt) <= Date.parse(lastClose.closedAt)) openedAt = new Date(Date.parse(lastClose.closedAt) + 1).toISOString();
  return openShift(db, register, { openingFloatCents: 0, at: openedAt, ...(staffId ? { staffId } : {}) });
}

/**
 * Records cash paid in or out (amount in cents ≥ 1, with a reason) or a no-sale drawer open (amount 0) in the open
 * shift. @throws ShiftStateError with no shift open; ZodError when the movement is not valid (no reason, amount).
 */
export async function recordCashMovement(
  db: RegisterDatabase,
  registerId: string,
  input: { kind: CashMovementKind; amountCents?: Cents; reason?: string; staffId?: string; at?: string },
): Promise<CashMovement> {
  const shift = await currentShift(db, registerId);
  if (!shift) throw new ShiftStateError('No shift is open on this register: open one first');
  const reason = input.reason?.trim();
  const movement = cashMovementSchema.parse({
    id: newId('cashMovement'),
    shiftId: shift.id,
    registerId,
    registerNumber: shift.registerNumber,
    kind: input.kind,
    amountCents: input.kind === 'no_sale' ? 0 : (input.amountCents ?? 0),
    ...(reason ? { reason } : {}),
    createdAt: input.at ?? new Date().toISOString(),
    ...(input.staffId ? { staffId: input.staffId } : {}),
  });
  await db.cash_movements.insert(movement);
  return movement;
}

/**
 * Records the drawer side of a financial service from the server's answer (services are online-only, so the
 * answer is what the register knows): a check's payout handed out (`check_cashed`), a transfer's or a bill's amount +
 * fee taken in (`transfer_in`, `bill_payment_in`), a canceled transfer's refund handed back (`transfer_canceled`). It
 * goes in `shiftId` — the shift named in the request, so the server's report counts the same — and is pushed like
 * any cash movement (it posts no journal transaction: the service posted its own). Recording the same service record
 * and kind again returns the stored movement.
 * @throws ZodError when the movement is not valid (amount < 1, not a service record id).
 */
export async function recordServiceCash(
  db: RegisterDatabase,
  shift: Pick<Shift, 'id' | 'registerId' | 'registerNumber'>,
  input: { kind: ServiceCashKind; amountCents: Cents; feeCents: Cents; serviceRef: string; staffId?: string; at?: string },
): Promise<CashMovement> {
  const existing = await db.cash_movements.findOne({ selector: { shiftId: shift.id, serviceRef: input.serviceRef, kind: input.kind } }).exec();
  if (existing) return clean(existing.toMutableJSON() as CashMovement);
  const label = {
    check_cashed: 'Check cashed',
    transfer_in: 'Money transfer',
    bill_payment_in: 'Bill payment',
    transfer_canceled: 'Money transfer canceled',
  }[input.kind];
  const movement = cashMovementSchema.parse({
    id: newId('cashMovement'),
    shiftId: shift.id,
    registerId: shift.registerId,
    registerNumber: shift.registerNumber,
    kind: input.kind,
    amountCents: input.amountCents,
    feeCents: input.feeCents,
    serviceRef: input.serviceRef,
    reason: `${label} ${input.serviceRef}`,
    createdAt: input.at ?? new Date().toISOString(),
    ...(input.staffId ? { staffId: input.staffId } : {}),
  });
  await db.cash_movements.insert(movement);
  return movement;
}

/** The cash movements of a shift, oldest first. */
export async function movementsOf(db: RegisterDatabase, shiftId: string): Promise<CashMovement[]> {
  const docs = await db.cash_movements.find({ selector: { shiftId }, sort: [{ createdAt: 'asc' }] }).exec();
  return docs.map((d) => clean(d.toMutableJSON() as CashMovement));
}

/** Every sale this register stores from the shift's opening on (synced or not); computeZReport keeps the shift's. */
async function salesSince(db: RegisterDatabase, shift: Shift): Promise<StoredOrder[]> {
  const docs = await db.orders.find({ selector: { registerId: shift.registerId, createdAt: { $gte: shift.openedAt } } }).exec();
  return docs.map((d) => clean(d.toMutableJSON() as StoredOrder));
}

/**
 * The returns made on this register during the shift, not refused by the server: all of them
 * (`refundsCents`) and those paid in cash out of the drawer (`cashRefundsCents`), minor units.
 */
export async function returnsOfShift(db: RegisterDatabase, shift: Shift): Promise<{ refundsCents: number; cashRefundsCents: number }> {
  const docs = await db.returns.find({ selector: { shiftId: shift.id } }).exec();
  const kept = docs.map((d) => d.toJSON()).filter((r) => !r.rejection);
  return {
    refundsCents: kept.reduce((a, r) => a + r.amountCents, 0),
    cashRefundsCents: kept.filter((r) => r.tender.method === 'cash').reduce((a, r) => a + r.amountCents, 0),
  };
}

/** The X-report of a shift now (mid-shift, no count), from everything stored on this register. */
export async function xReport(db: RegisterDatabase, shift: Shift, at = new Date().toISOString()): Promise<ZReport> {
  return computeZReport(shift, await salesSince(db, shift), await movementsOf(db, shift.id), { at, ...(await returnsOfShift(db, shift)) });
}

/** How many of the shift's sales (up to `until`) are not yet on the server (made or kept offline). */
export async function unsyncedSalesOf(db: RegisterDatabase, shift: Shift, until?: string): Promise<number> {
  const sales = await salesSince(db, shift);
  return sales.filter((o) => o.syncSeq === undefined && (until === undefined || o.createdAt <= until)).length;
}

/**
 * Closes the open shift: the drawer counted by denomination (`counted`; zero lines dropped), and the Z-report as
 * computed here from every sale of the shift stored on this register, synced or not. The closeout is stored before
 * anything is printed. @throws ShiftStateError when no shift is open; ZodError on a count that is not of the store
 * currency.
 */
export async function closeShift(
  db: RegisterDatabase,
  registerId: string,
  input: { counted: DenominationCount[]; staffId?: string; note?: string; at?: string },
): Promise<ShiftCloseout> {
  const shift = await currentShift(db, registerId);
  if (!shift) throw new ShiftStateError('No shift is open on this register');
  const closedAt = input.at ?? new Date().toISOString();
  const counted = input.counted.filter((c) => c.count > 0);
  const countedCashCents = countedTotalCents(counted);
  const report = computeZReport(shift, await salesSince(db, shift), await movementsOf(db, shift.id), {
    count: { closedAt, countedCashCents },
    ...(await returnsOfShift(db, shift)),
  });
  const closeout = shiftCloseoutSchema.parse({
    id: newId('shiftCloseout'),
    shiftId: shift.id,
    registerId,
    registerNumber: shift.registerNumber,
    currency: shift.currency,
    closedAt,
    counted,
    countedCashCents,
    report,
    ...(input.staffId ? { staffId: input.staffId } : {}),
    ...(input.note?.trim() ? { note: input.note.trim() } : {}),
  });
  await db.closeouts.insert(closeout);
  return closeout;
}
