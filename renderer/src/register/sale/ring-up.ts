/**
 * Completing a sale: take the register's next receipt number, build the paid order and its journal transaction with
 * core's buildRegisterSale, check both against the core schemas and write them to the local database — all before
 * the receipt is shown (write before print, DESIGN §8).
 */
import {
  buildRegisterSale,
  journalTransactionSchema,
  orderSchema,
  parseReceiptNumber,
  type CatalogSnapshot,
  type Cents,
  type Discount,
  type Order,
  type OrderLine,
  type SalePayment,
} from '../../../../core/index.ts';
import { saveSale, type RegisterDatabase } from '../db/database.ts';
import type { RegisterSession } from '../session.ts';
import { currentRegisterStaff } from '../staff-session.ts';
import { ensureShiftForSale } from '../shifts/shift-store.ts';

/**
 * The localStorage key of a register's receipt counter: the last sequence it handed out. Besides seeding the next
 * number, it is the witness that notices sales lost with the local database (sync/missing-receipts.ts).
 */
export const sequenceKey = (registerId: string) => `register.receiptSequence.${registerId}`;

/**
 * The next receipt sequence of this register: one more than the highest of the locally stored counter, the server's
 * last known sequence for this register, and the receipts of the sales already in the local database (so a cleared
 * localStorage never reuses a number).
 */
export async function nextReceiptSequence(db: RegisterDatabase, session: RegisterSession): Promise<number> {
  const stored = Number(localStorage.getItem(sequenceKey(session.registerId)) ?? '0') || 0;
  const recent = await db.orders.find({ selector: { registerId: session.registerId }, sort: [{ createdAt: 'desc' }], limit: 50 }).exec();
  const localMax = recent.reduce((max, doc) => Math.max(max, parseReceiptNumber(doc.receiptNumber)?.sequence ?? 0), 0);
  return Math.max(stored, session.lastReceiptSequence, localMax) + 1;
}

interface RingUpInput {
  db: RegisterDatabase;
  session: RegisterSession;
  catalog: CatalogSnapshot;
  lines: readonly OrderLine[];
  /** The cart's order discounts (core), if any. */
  discounts?: readonly Discount[];
  /** The customer attached to the sale (issue 13), if any. */
  customerId?: string;
  tenderedCents: Cents;
}

/** Rings up a cash sale and stores it; resolves with the stored order. */
export function ringUpCashSale({ tenderedCents, ...input }: RingUpInput): Promise<Order> {
  return ringUpSale({ ...input, payment: { method: 'cash', tenderedCents } });
}

/**
 * Rings up a sale paid by any single tender (cash, a card approved by the terminal, a scanned check) and stores it
 * before anything is printed; resolves with the stored order.
 */
export async function ringUpSale({ db, session, catalog, lines, discounts, customerId, payment }: Omit<RingUpInput, 'tenderedCents'> & { payment: SalePayment }): Promise<Order> {
  const run = async () => {
    // A sale with no shift open opens one (float 0): the register never refuses a sale for want of a shift.
    // The staff member signed in on this register is recorded on the sale and owns a shift it opens (issue 11); the
    // register view refuses to sell with nobody signed in.
    const staff = currentRegisterStaff();
    await ensureShiftForSale(db, session, staff?.staff.id);
    const sequence = await nextReceiptSequence(db, session);
    const sale = buildRegisterSale({
      registerId: session.registerId,
      registerNumber: session.registerNumber,
      sequence,
      currency: session.currency,
      createdAt: new Date().toISOString(),
      lines,
      ...(discounts && discounts.length > 0 ? { discounts } : {}),
      payment,
      catalog,
      ...(staff ? { staffId: staff.staff.id } : {}),
      ...(customerId ? { customerId } : {}),
    });
    orderSchema.parse(sale.order);
    if (sale.journalTransaction) journalTransactionSchema.parse(sale.journalTransaction);
    await saveSale(db, sale);
    // Only once the sale is stored: the counter witnesses receipts that were really handed out.
    localStorage.setItem(sequenceKey(session.registerId), String(sequence));
    return sale.order;
  };
  // Two tabs of one register must never hand out the same receipt number.
  if (typeof navigator !== 'undefined' && navigator.locks) {
    return navigator.locks.request(`register-receipt-sequence:${session.registerId}`, run);
  }
  return run();
}
