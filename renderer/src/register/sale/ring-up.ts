/**
 * Completing a sale: the paid order and its journal transaction built with core's buildRegisterSale, numbered under
 * the register's receipt lock from what the local database holds, checked against the core schemas and written to
 * the local database — and only then handed back, so the register shows the receipt (and its number) only for a sale
 * it has stored (docs/decisions/0015-receipt-after-stored.md; write before print).
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
import type { RegisterSession } from '../../common/session.ts';
import { currentRegisterStaff } from '../../common/staff-session.ts';
import { ensureShiftForSale } from '../shifts/shift-store.ts';

/**
 * The localStorage key of a register's receipt witness: the last sequence it stored a sale under, written only once
 * that sale is in the local database. It numbers nothing by itself — it only keeps a register whose local database
 * was lost from handing out a lost sale's number again — and it is how lost sales are noticed
 * (sync/missing-receipts.ts).
 */
export const sequenceKey = (registerId: string) => `register.receiptSequence.${registerId}`;

/** Orders read back to find the highest stored sequence: the latest by business time (two tabs may interleave a few). */
const RECENT_ORDERS = 50;

/**
 * The next receipt sequence of this register, from the local database: one more than the highest sequence among the
 * register's stored sales (its latest {@link RECENT_ORDERS} by `createdAt`). Two floors only ever raise it, never
 * lower it: the server's last known sequence for this register (`session.lastReceiptSequence`: the sales a lost local
 * database no longer holds) and the localStorage witness ({@link sequenceKey}) — a crash that wipes the witness
 * changes nothing, the stored sales still number the next one. Called under the receipt lock ({@link ringUpSale}).
 */
export async function nextReceiptSequence(db: RegisterDatabase, session: RegisterSession): Promise<number> {
  const witness = Number(localStorage.getItem(sequenceKey(session.registerId)) ?? '0') || 0;
  const recent = await db.orders.find({ selector: { registerId: session.registerId }, sort: [{ createdAt: 'desc' }], limit: RECENT_ORDERS }).exec();
  const localMax = recent.reduce((max, doc) => Math.max(max, parseReceiptNumber(doc.receiptNumber)?.sequence ?? 0), 0);
  return Math.max(witness, session.lastReceiptSequence, localMax) + 1;
}

interface RingUpInput {
  db: RegisterDatabase;
  session: RegisterSession;
  catalog: CatalogSnapshot;
  lines: readonly OrderLine[];
  /** The cart's order discounts (core), if any. */
  discounts?: readonly Discount[];
  /** The customer attached to the sale, if any. */
  customerId?: string;
  tenderedCents: Cents;
}

/** What a sale is rung up from: the cart's priced lines and discounts, its customer and the tender. */
export type SaleInput = Omit<RingUpInput, 'tenderedCents'> & { payment: SalePayment };

/** Where the Web Locks API is missing (Node): one sale at a time per register within this process. */
const turns = new Map<string, Promise<unknown>>();
function inTurn<T>(registerId: string, task: () => Promise<T>): Promise<T> {
  const result = (turns.get(registerId) ?? Promise.resolve()).then(task);
  turns.set(
    registerId,
    result.catch(() => undefined),
  );
  return result;
}

/** Wall-clock time of the last {@link ringUpSale}: from its call until its sale was stored (ms), for the register bench. */
export const SALE_STORED_MEASURE = 'register:sale-stored';

/**
 * Rings up a sale paid by any single tender (cash, a card approved by the terminal, a scanned check) and stores it;
 * resolves with the order as stored, once it is — the caller shows the receipt then, never before. Under the
 * register's receipt lock (two tabs of one register never hand out the same number), at once and side by side: the
 * open shift is found (or opened, float 0, at the sale's time: the register never refuses a sale for want of a shift)
 * and the next receipt sequence is read from the local database ({@link nextReceiptSequence}). The sale is built with
 * that number and the time of this call (moved up to the shift's opening if it opened later), checked against the
 * core schemas and written ({@link saveSale}: the order's insert is the commit point); then the witness advances.
 * @throws PricingError for a bad catalog reference; RangeError when the tender does not cover the total; ZodError when
 *   the sale does not pass the schemas; the local database's error when it cannot be written (nothing is stored then:
 *   the cart is the cashier's to keep).
 */
export async function ringUpSale(input: SaleInput): Promise<Order> {
  const { db, session, catalog, lines, discounts, customerId, payment } = input;
  const started = typeof performance !== 'undefined' ? performance.now() : 0;
  // The staff member signed in on this register is recorded on the sale; the register view refuses to sell with
  // nobody signed in.
  const staffId = currentRegisterStaff()?.staff.id;
  const requestedAt = new Date().toISOString();
  const build = (sequence: number, createdAt: string) =>
    buildRegisterSale({
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
    });
  // Pricing and tender errors surface before the lock is taken (the number is not needed to find them).
  build(1, requestedAt);
  const run = async (): Promise<Order> => {
    const [shift, sequence] = await Promise.all([ensureShiftForSale(db, session, staffId, requestedAt), nextReceiptSequence(db, session)]);
    // The sale belongs to the shift it is stored in: a sale asked for before the open shift began (another tab opened
    // it, or closed the last one meanwhile) takes the shift's opening time — else core's isSaleOfShift would leave it
    // out of every shift.
    const createdAt = Date.parse(requestedAt) < Date.parse(shift.openedAt) ? shift.openedAt : requestedAt;
    const sale = build(sequence, createdAt);
    orderSchema.parse(sale.order);
    if (sale.journalTransaction) journalTransactionSchema.parse(sale.journalTransaction);
    await saveSale(db, sale);
    // Only once the sale is stored: the witness names receipts that were really handed out.
    localStorage.setItem(sequenceKey(session.registerId), String(sequence));
    return sale.order;
  };
  const order =
    typeof navigator !== 'undefined' && navigator.locks
      ? await navigator.locks.request(`register-receipt-sequence:${session.registerId}`, run)
      : await inTurn(session.registerId, run);
  if (typeof performance !== 'undefined' && typeof performance.measure === 'function') {
    performance.clearMeasures(SALE_STORED_MEASURE);
    performance.measure(SALE_STORED_MEASURE, { start: started, end: performance.now() });
  }
  return order;
}
