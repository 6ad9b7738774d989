/**
 * The register's shifts, stored locally first (DESIGN §8): a shift opened with a counted float, cash paid in and out
 * and no-sale drawer opens during it, and its closeout with the drawer counted by denomination. Every record is
 * append-only and born here with its id, so it is pushed like a sale — kept through an outage, stored once however
 * often it is sent. A shift is open while it has no closeout.
 *
 * The figures of a shift cover every sale stored on this register between its opening and its close, synced or not.
 */
import { newShiftRecordId, type Cents } from './shift-types.ts';
import type { RegisterDatabase, StoredOrder } from '../db/database.ts';
import type { RegisterSession } from '../session.ts';
import type { CashMovement, CashMovementKind, Closeout, DenominationCount, Shift } from './shift-types.ts';

/** Thrown on a shift action that the shift's state does not allow (e.g. a paid out with no shift open). */
export class ShiftStateError extends Error {
  override name = 'ShiftStateError';
}

/** The open shift of this register (the latest one without a closeout), if any. */
export async function currentShift(db: RegisterDatabase, registerId: string): Promise<Shift | undefined> {
  const latest = await db.shifts.findOne({ selector: { registerId }, sort: [{ openedAt: 'desc' }] }).exec();
  if (!latest) return undefined;
  const closed = await db.closeouts.findOne({ selector: { shiftId: latest.id } }).exec();
  return closed ? undefined : (latest.toMutableJSON() as Shift);
}

/**
 * Opens a shift with a counted opening float (cents; `counts` by denomination when the drawer was counted note by
 * note). `openedBy: 'sale'` marks a shift the register opened by itself for a sale rung up with none open (float 0).
 * @throws ShiftStateError when a shift is already open on this register.
 */
export async function openShift(
  db: RegisterDatabase,
  session: Pick<RegisterSession, 'registerId' | 'registerNumber' | 'currency'>,
  input: { openingFloatCents: Cents; counts?: DenominationCount[]; openedBy?: 'cashier' | 'sale'; staffId?: string; at?: string },
): Promise<Shift> {
  if (!Number.isSafeInteger(input.openingFloatCents) || input.openingFloatCents < 0) throw new RangeError('openingFloatCents must be a non-negative integer of cents');
  if (await currentShift(db, session.registerId)) throw new ShiftStateError('A shift is already open on this register');
  const shift: Shift = {
    id: newShiftRecordId('shift'),
    registerId: session.registerId,
    registerNumber: session.registerNumber,
    currency: session.currency,
    openedAt: input.at ?? new Date().toISOString(),
    openingFloatCents: input.openingFloatCents,
    openingCounts: input.counts ?? [],
    openedBy: input.openedBy ?? 'cashier',
    ...(input.staffId ? { staffId: input.staffId } : {}),
  };
  await db.shifts.insert(shift);
  return shift;
}

/** The open shift, or one opened by the register for a sale (float 0, `openedBy: 'sale'`) when none is. */
export async function ensureShiftForSale(db: RegisterDatabase, session: Pick<RegisterSession, 'registerId' | 'registerNumber' | 'currency'>): Promise<Shift> {
  return (await currentShift(db, session.registerId)) ?? openShift(db, session, { openingFloatCents: 0, openedBy: 'sale' });
}

/**
 * Records cash paid in or out (with a reason; amount in cents > 0) or a no-sale drawer open (amount 0, reason
 * optional) in the open shift. @throws ShiftStateError with no shift open; RangeError on a bad amount or no reason.
 */
export async function recordCashMovement(
  db: RegisterDatabase,
  registerId: string,
  input: { kind: CashMovementKind; amountCents?: Cents; reason?: string; staffId?: string; at?: string },
): Promise<CashMovement> {
  const shift = await currentShift(db, registerId);
  if (!shift) throw new ShiftStateError('No shift is open on this register: open one first');
  const amountCents = input.kind === 'no_sale' ? 0 : (input.amountCents ?? 0);
  const reason = (input.reason ?? '').trim();
  if (input.kind !== 'no_sale') {
    if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError('amountCents must be a positive integer of cents');
    if (!reason) throw new RangeError('A paid in or paid out needs a reason');
  }
  const movement: CashMovement = {
    id: newShiftRecordId('cashMovement'),
    shiftId: shift.id,
    registerId,
    kind: input.kind,
    amountCents,
    reason: reason || 'No sale',
    createdAt: input.at ?? new Date().toISOString(),
    ...(input.staffId ? { staffId: input.staffId } : {}),
  };
  await db.cash_movements.insert(movement);
  return movement;
}

/** What a shift's report is made from: the shift, its cash movements and every sale stored here during it. */
export interface ShiftActivity {
  shift: Shift;
  movements: CashMovement[];
  /** Sales of this register from the shift's opening to `until` (its close, or now), synced or not, oldest first. */
  orders: StoredOrder[];
  until: string;
}

/** Gathers a shift's activity up to `until` (ISO time; default now). */
export async function shiftActivity(db: RegisterDatabase, shift: Shift, until = new Date().toISOString()): Promise<ShiftActivity> {
  const movements = (await db.cash_movements.find({ selector: { shiftId: shift.id }, sort: [{ createdAt: 'asc' }] }).exec()).map((d) => d.toMutableJSON() as CashMovement);
  const orders = (
    await db.orders.find({ selector: { registerId: shift.registerId, createdAt: { $gte: shift.openedAt, $lte: until } }, sort: [{ createdAt: 'asc' }] }).exec()
  ).map((d) => d.toMutableJSON() as StoredOrder);
  return { shift, movements, orders, until };
}

/**
 * Closes the open shift: stores the closeout with the drawer's count by denomination, the expected cash and the
 * over/short (counted − expected, cents), and the Z-report figures as computed here. @throws ShiftStateError when no
 * shift is open.
 */
export async function closeShift(
  db: RegisterDatabase,
  registerId: string,
  input: { counts: DenominationCount[]; staffId?: string; at?: string },
  compute: (activity: ShiftActivity, counts: DenominationCount[]) => Pick<Closeout, 'countedCashCents' | 'expectedCashCents' | 'overShortCents' | 'report'>,
): Promise<Closeout> {
  const shift = await currentShift(db, registerId);
  if (!shift) throw new ShiftStateError('No shift is open on this register');
  const closedAt = input.at ?? new Date().toISOString();
  const activity = await shiftActivity(db, shift, closedAt);
  const figures = compute(activity, input.counts);
  const closeout: Closeout = {
    id: newShiftRecordId('closeout'),
    shiftId: shift.id,
    registerId,
    closedAt,
    counts: input.counts,
    ...figures,
    ...(input.staffId ? { staffId: input.staffId } : {}),
  };
  await db.closeouts.insert(closeout);
  return closeout;
}
