/**
 * Completing a sale in two steps: draft it at once (the paid order and its journal transaction built with core's
 * buildRegisterSale, numbered with the receipt sequence the register will most likely hand out), then commit it
 * under the register's receipt lock — its number checked, both checked against the core schemas and written to the
 * local database — before anything is printed (write before print, DESIGN §8). The register shows the draft's
 * receipt while it commits (views/register-view.tsx).
 */
import {
  buildRegisterSale,
  journalTransactionSchema,
  orderSchema,
  parseReceiptNumber,
  type CatalogSnapshot,
  type Cents,
  type Discount,
  type JournalTransaction,
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

/** What a sale is rung up from: the cart's priced lines and discounts, its customer and the tender. */
export type SaleInput = Omit<RingUpInput, 'tenderedCents'> & { payment: SalePayment };

/**
 * A sale built but not stored yet: the order and journal transaction as they will be stored, numbered with the
 * receipt sequence this register will most likely hand out ({@link predictReceiptSequence}).
 */
export interface DraftSale {
  input: SaleInput;
  sequence: number;
  /** Business time of the sale (ISO 8601), kept when the draft is renumbered. */
  createdAt: string;
  staffId: string | undefined;
  sale: { order: Order; journalTransaction: JournalTransaction | null };
}

/**
 * The receipt sequence this register will most likely hand out next, read without waiting: one more than the
 * highest of the stored counter (localStorage, which the register's other tabs update too) and the server's last
 * known sequence. {@link commitSale} checks it under the receipt lock against the local database as well.
 */
export function predictReceiptSequence(session: RegisterSession): number {
  const stored = Number(localStorage.getItem(sequenceKey(session.registerId)) ?? '0') || 0;
  return Math.max(stored, session.lastReceiptSequence) + 1;
}

function build(input: SaleInput, sequence: number, createdAt: string, staffId: string | undefined, orderId?: string) {
  const { session, catalog, lines, discounts, customerId, payment } = input;
  return buildRegisterSale({
    registerId: session.registerId,
    registerNumber: session.registerNumber,
    sequence,
    currency: session.currency,
    createdAt,
    lines,
    ...(discounts && discounts.length > 0 ? { discounts } : {}),
    payment,
    catalog,
    ...(staffId ? { staffId } : {}),
    ...(customerId ? { customerId } : {}),
    ...(orderId ? { orderId } : {}),
  });
}

/**
 * Builds the sale at once, without touching the local database, so the register can show its receipt in the frame
 * after the tap (issue 13: "cash complete → receipt" within a frame). Nothing is stored, printed or counted until
 * {@link commitSale} resolves.
 * @throws PricingError for a bad catalog reference; RangeError when the tender does not cover the total.
 */
export function draftSale(input: SaleInput): DraftSale {
  // The staff member signed in on this register is recorded on the sale (issue 11); the register view refuses to
  // sell with nobody signed in.
  const staffId = currentRegisterStaff()?.staff.id;
  const sequence = predictReceiptSequence(input.session);
  const createdAt = new Date().toISOString();
  return { input, sequence, createdAt, staffId, sale: build(input, sequence, createdAt, staffId) };
}

/**
 * Stores a drafted sale — all before anything is printed (write before print, DESIGN §8): under the register's
 * receipt lock (two tabs of one register never hand out the same number), opens a shift if none is open (float 0,
 * opened at the sale's time so the sale counts in it: the register never refuses a sale for want of a shift), takes the register's next receipt sequence
 * ({@link nextReceiptSequence}: the draft is renumbered, same order id, in the rare case another tab or a cleared
 * counter made the prediction wrong), checks the order and journal transaction against the core schemas and writes
 * them; then advances the stored counter. Resolves with the order as stored.
 * @throws ZodError when the sale does not pass the schemas; the local database's error when it cannot be written
 *   (nothing is stored then: the cart is the cashier's to keep).
 */
export async function commitSale(draft: DraftSale): Promise<Order> {
  const { input } = draft;
  const { db, session } = input;
  const run = async (): Promise<Order> => {
    // The sale belongs to the shift it is stored in: a shift opened for it opens at the sale's time, and a sale
    // drafted before the open shift began (another tab opened it, or closed the last one meanwhile) takes the
    // shift's opening time — else the time window of core's isSaleOfShift would leave it out of every shift.
    const shift = await ensureShiftForSale(db, session, draft.staffId, draft.createdAt);
    const createdAt = Date.parse(draft.createdAt) < Date.parse(shift.openedAt) ? shift.openedAt : draft.createdAt;
    const sequence = await nextReceiptSequence(db, session);
    const sale = sequence === draft.sequence && createdAt === draft.createdAt ? draft.sale : build(input, sequence, createdAt, draft.staffId, draft.sale.order.id);
    orderSchema.parse(sale.order);
    if (sale.journalTransaction) journalTransactionSchema.parse(sale.journalTransaction);
    await saveSale(db, sale);
    // Only once the sale is stored: the counter witnesses receipts that were really handed out.
    localStorage.setItem(sequenceKey(session.registerId), String(sequence));
    return sale.order;
  };
  if (typeof navigator !== 'undefined' && navigator.locks) {
    return navigator.locks.request(`register-receipt-sequence:${session.registerId}`, run);
  }
  return run();
}

/** Rings up a cash sale and stores it; resolves with the stored order. */
export function ringUpCashSale({ tenderedCents, ...input }: RingUpInput): Promise<Order> {
  return ringUpSale({ ...input, payment: { method: 'cash', tenderedCents } });
}

/**
 * Rings up a sale paid by any single tender (cash, a card approved by the terminal, a scanned check) and stores it
 * before anything is printed ({@link draftSale} then {@link commitSale}); resolves with the stored order.
 */
export async function ringUpSale(input: SaleInput): Promise<Order> {
  return commitSale(draftSale(input));
}
