/**
 * The register's local shift store (fake-indexeddb, the register's RxDB database): a shift opened with a counted
 * float, paid in / paid out / no sale, the X-report over the sales stored here, the close with a count by
 * denomination (expected, counted, over/short) checked against core's schemas, and everything still there after the
 * database is closed and opened again (a reload or a crash while offline). Financial services: the cash
 * of each service's answer stored as a movement of the shift, in the X/Z report's expected cash and its own lines;
 * cash movements stored before that (schema version 0) are kept when the database is opened by this version.
 */
import 'fake-indexeddb/auto';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { createRxDatabase } from 'rxdb';
import { buildRegisterSale, catalogSnapshot, newId, serviceCashLines, shiftCloseoutSchema, ulid } from '../../core/index.ts';
import { openRegisterDatabase, saveSale, type RegisterDatabase } from '../../renderer/src/register/db/database.ts';
import { cashMovementRxSchema } from '../../renderer/src/register/db/schemas.ts';
import {
  closeShift,
  currentShift,
  ensureShiftForSale,
  movementsOf,
  openShift,
  recordCashMovement,
  recordServiceCash,
  ShiftStateError,
  xReport,
} from '../../renderer/src/register/shifts/shift-store.ts';
import { mug, tax } from './support/mug.ts';

const register = { registerId: 'reg_test', registerNumber: 2, currency: 'USD' };

/** A cash sale of 3 mugs ($42.38) at `createdAt`, paid with $50. */
function sale(sequence: number, createdAt: string) {
  return buildRegisterSale({
    ...register,
    sequence,
    createdAt,
    lines: [{ catalogItemId: 'itm_mug', variationId: 'var_mug', modifierIds: [], quantity: 3 }],
    payment: { method: 'cash', tenderedCents: 5000 },
    catalog: catalogSnapshot([mug], [tax]),
  });
}

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 24, 9, minutes)).toISOString();

describe('register shift store', () => {
  let db: RegisterDatabase | undefined;
  const name = () => `shift${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
  afterEach(async () => {
    await db?.remove();
    db = undefined;
  });

  it('opens with a counted float, records paid in / out and a no sale, and closes with the over/short', async () => {
    const dbName = name();
    db = await openRegisterDatabase({ name: dbName, storage: getRxStorageDexie(), multiInstance: false });
    await expect(recordCashMovement(db, register.registerId, { kind: 'paid_out', amountCents: 500, reason: 'Milk' })).rejects.toBeInstanceOf(
      ShiftStateError,
    );

    const shift = await openShift(db, register, {
      count: [
        { kind: 'note', valueCents: 2000, count: 5 },
        { kind: 'coin', valueCents: 25, count: 8 },
        { kind: 'coin', valueCents: 10, count: 0 },
      ],
      at: at(0),
    });
    expect(shift.openingFloatCents).toBe(10_200);
    expect(shift.openingCount).toHaveLength(2); // zero lines dropped
    await expect(openShift(db, register, { openingFloatCents: 0 })).rejects.toBeInstanceOf(ShiftStateError);

    const before = sale(1, '2026-11-24T08:59:00.000Z'); // before the shift: not in its report
    await saveSale(db, before);
    await saveSale(db, sale(2, at(5)));
    await saveSale(db, sale(3, at(6)));
    await recordCashMovement(db, register.registerId, { kind: 'paid_out', amountCents: 750, reason: 'Window cleaner', at: at(7) });
    await recordCashMovement(db, register.registerId, { kind: 'paid_in', amountCents: 2000, reason: 'Change from the bank', at: at(8) });
    await recordCashMovement(db, register.registerId, { kind: 'no_sale', at: at(9) });
    await expect(recordCashMovement(db, register.registerId, { kind: 'paid_out', amountCents: 100, reason: '  ' })).rejects.toThrow(/reason/);

    const x = await xReport(db, shift, at(10));
    expect(x.kind).toBe('x');
    expect(x.salesCount).toBe(2);
    expect(x.netSalesCents).toBe(2 * 4238);
    expect(x.cashSalesCents).toBe(2 * 4238);
    expect(x.paidOutCents).toBe(750);
    expect(x.paidInCents).toBe(2000);
    expect(x.noSaleCount).toBe(1);
    // float 102.00 + cash sales 84.76 + paid in 20.00 − paid out 7.50
    expect(x.expectedCashCents).toBe(10_200 + 8476 + 2000 - 750);
    expect(x.firstReceiptNumber).toBe('R2-000002');
    expect(x.lastReceiptNumber).toBe('R2-000003');

    // Counted: $200 in notes, $1.00 in quarters → 201.00 against 199.26 expected: over 1.74.
    const closeout = await closeShift(db, register.registerId, {
      counted: [
        { kind: 'note', valueCents: 10_000, count: 2 },
        { kind: 'coin', valueCents: 25, count: 4 },
      ],
      at: at(11),
    });
    expect(shiftCloseoutSchema.safeParse(closeout).success).toBe(true);
    expect(closeout.countedCashCents).toBe(20_100);
    expect(closeout.report.kind).toBe('z');
    expect(closeout.report.expectedCashCents).toBe(19_926);
    expect(closeout.report.overShortCents).toBe(174);
    expect(await currentShift(db, register.registerId)).toBeUndefined();
    await expect(closeShift(db, register.registerId, { counted: [] })).rejects.toBeInstanceOf(ShiftStateError);

    // Everything is still there after the database is closed and opened again (a reload while offline).
    await db.close();
    db = await openRegisterDatabase({ name: dbName, storage: getRxStorageDexie(), multiInstance: false });
    expect((await db.closeouts.findOne(closeout.id).exec())?.toJSON().report.overShortCents).toBe(174);
    expect(await db.cash_movements.count().exec()).toBe(3);
    expect(await db.shifts.count().exec()).toBe(1);
  });

  it('refuses a count that is not of the store currency', async () => {
    db = await openRegisterDatabase({ name: name(), storage: getRxStorageDexie(), multiInstance: false });
    await openShift(db, register, { openingFloatCents: 0, at: at(0) });
    await expect(closeShift(db, register.registerId, { counted: [{ kind: 'note', valueCents: 300, count: 1 }] })).rejects.toThrow(
      /not a USD denomination/,
    );
    expect(await currentShift(db, register.registerId)).toBeDefined();
  });

  it('opens a shift with an empty float for a sale rung up with none open, and reuses the open one', async () => {
    db = await openRegisterDatabase({ name: name(), storage: getRxStorageDexie(), multiInstance: false });
    const opened = await ensureShiftForSale(db, register);
    expect(opened.openingFloatCents).toBe(0);
    expect((await ensureShiftForSale(db, register)).id).toBe(opened.id);
    expect(await db.shifts.count().exec()).toBe(1);
  });

  it("stores each financial service's cash in the shift: the X/Z report's own lines and expected cash; even when counted exactly", async () => {
    const dbName = name();
    db = await openRegisterDatabase({ name: dbName, storage: getRxStorageDexie(), multiInstance: false });
    const shift = await openShift(db, register, { openingFloatCents: 40_000, at: at(0) });
    const ref = (prefix: string) => `${prefix}_${ulid()}`;
    const check = ref('chq');
    const transfer = ref('mtr');
    await recordServiceCash(db, shift, { kind: 'check_cashed', amountCents: 24_650, feeCents: 350, serviceRef: check, at: at(1) });
    // The same answer recorded twice (a re-render, a retried completion) is one movement.
    const again = await recordServiceCash(db, shift, { kind: 'check_cashed', amountCents: 24_650, feeCents: 350, serviceRef: check, at: at(1) });
    await recordServiceCash(db, shift, { kind: 'transfer_in', amountCents: 10_499, feeCents: 499, serviceRef: transfer, at: at(2) });
    await recordServiceCash(db, shift, { kind: 'transfer_canceled', amountCents: 10_499, feeCents: 499, serviceRef: transfer, at: at(3) });
    await recordServiceCash(db, shift, { kind: 'bill_payment_in', amountCents: 8_150, feeCents: 150, serviceRef: ref('bpy'), at: at(4) });
    const moves = await movementsOf(db, shift.id);
    expect(moves).toHaveLength(4);
    expect(moves[0]).toMatchObject({ id: again.id, kind: 'check_cashed', serviceRef: check, feeCents: 350, reason: `Check cashed ${check}` });
    // A service movement must name its record.
    await expect(recordServiceCash(db, shift, { kind: 'check_cashed', amountCents: 100, feeCents: 0, serviceRef: 'not-a-record' })).rejects.toThrow(
      /serviceRef/,
    );

    const x = await xReport(db, shift, at(5));
    expect(x.services).toEqual({
      checksCashed: { count: 1, amountCents: 24_650 },
      transfersIn: { count: 1, amountCents: 10_499 },
      billPaymentsIn: { count: 1, amountCents: 8_150 },
      transfersCanceled: { count: 1, amountCents: 10_499 },
      feesCents: 350 + 150,
    });
    expect(x.expectedCashCents).toBe(40_000 - 24_650 + 8_150);
    expect(x.paidInCents + x.paidOutCents).toBe(0);
    expect(serviceCashLines(x.services)).toEqual([
      ['Checks cashed out (1)', -24_650],
      ['Transfers in (1)', 10_499],
      ['Bill payments in (1)', 8_150],
      ['Transfers canceled out (1)', -10_499],
      ['Service fees', 500],
    ]);
    // $235.00 in $5 notes: exactly what the register expects.
    const closeout = await closeShift(db, register.registerId, { counted: [{ kind: 'note', valueCents: 500, count: 47 }], at: at(6) });
    expect(shiftCloseoutSchema.parse(closeout).report).toMatchObject({ expectedCashCents: 23_500, countedCashCents: 23_500, overShortCents: 0 });

    await db.close();
    db = await openRegisterDatabase({ name: dbName, storage: getRxStorageDexie(), multiInstance: false });
    expect((await movementsOf(db, shift.id)).map((m) => m.serviceRef)).toEqual(moves.map((m) => m.serviceRef));
  });

  it('keeps the cash movements a register stored before financial services (schema version 0) when it opens this version', async () => {
    const dbName = name();
    const { serviceRef: _ref, feeCents: _fee, ...oldProperties } = cashMovementRxSchema.properties;
    const old = await createRxDatabase({ name: dbName, storage: getRxStorageDexie(), multiInstance: false });
    await old.addCollections({ cash_movements: { schema: { ...cashMovementRxSchema, version: 0, properties: oldProperties } } });
    const paidOut = {
      id: newId('cashMovement'),
      shiftId: newId('shift'),
      registerId: register.registerId,
      registerNumber: 2,
      kind: 'paid_out',
      amountCents: 1_250,
      reason: 'Window cleaner',
      createdAt: at(1),
    };
    await old.cash_movements!.insert(paidOut);
    await old.close();

    db = await openRegisterDatabase({ name: dbName, storage: getRxStorageDexie(), multiInstance: false });
    expect(db.cash_movements.schema.version).toBe(1);
    expect(await movementsOf(db, paidOut.shiftId)).toEqual([paidOut]);
  });
});
