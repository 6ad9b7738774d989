/**
 * Ringing up a sale (renderer/src/register/sale/ring-up.ts): it resolves only once the sale is in the local database,
 * numbered from the sales stored there — never from a counter a crash can lose — and never with a number twice.
 * On the register's RxDB database over fake-indexeddb, with a Map for localStorage (the receipt witness).
 */
import 'fake-indexeddb/auto';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { catalogSnapshot, drawerPostingsCents, priceLine, saleJournalTransactionId, type SalePayment } from '../../core/index.ts';
import { openRegisterDatabase, type RegisterDatabase } from '../../renderer/src/register/db/database.ts';
import type { RegisterSession } from '../../renderer/src/common/session.ts';
import { ringUpSale, sequenceKey, type SaleInput } from '../../renderer/src/register/sale/ring-up.ts';
import { closeShift, currentShift, xReport } from '../../renderer/src/register/shifts/shift-store.ts';
import { mug, tax } from './support/mug.ts';

const catalog = catalogSnapshot([mug], [tax]);
const session: RegisterSession = {
  registerToken: 'rrc_test',
  merchantId: 'mer_test',
  merchantName: 'Test store',
  currency: 'USD',
  registerId: 'reg_ringup',
  registerNumber: 3,
  lastReceiptSequence: 0,
  pairedAt: '2026-11-26T10:00:00.000Z',
};

describe('ringing up a sale: resolved only once stored, numbered from the local database', () => {
  let db: RegisterDatabase;
  let saved: PropertyDescriptor | undefined;
  const input = (tenderedCents = 2000, quantity = 1): SaleInput => ({
    db,
    session,
    catalog,
    lines: [priceLine({ catalogItemId: mug.id, variationId: 'var_mug', modifierIds: [], quantity }, catalog, 'lines.0')],
    payment: { method: 'cash', tenderedCents },
  });
  const card: SalePayment = { method: 'card', cardBrand: 'visa', last4: '4242', authCode: 'A1' };
  const storedReceipts = async () => (await db.orders.find().exec()).map((doc) => doc.receiptNumber).sort();
  /** Σ postings to this register's drawer account over the journal transactions stored on the register. */
  const drawerLedger = async () =>
    (await db.journal_transactions.find().exec()).reduce((sum, doc) => sum + drawerPostingsCents(doc.toJSON().postings, session.registerNumber), 0);

  beforeEach(async () => {
    saved = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
    const store = new Map<string, string>();
    Object.defineProperty(globalThis, 'localStorage', {
      configurable: true,
      value: {
        getItem: (k: string) => store.get(k) ?? null,
        setItem: (k: string, v: string) => void store.set(k, v),
        removeItem: (k: string) => void store.delete(k),
      },
    });
    db = await openRegisterDatabase({
      name: `ringup${Date.now()}${Math.random().toString(36).slice(2)}`,
      storage: getRxStorageDexie(),
      multiInstance: false,
    });
  });
  afterEach(async () => {
    await db.remove();
    if (saved) Object.defineProperty(globalThis, 'localStorage', saved);
    else delete (globalThis as { localStorage?: unknown }).localStorage;
  });

  it('resolves with the order as stored: its number, its journal transaction and its shift are in the database', async () => {
    const order = await ringUpSale(input());
    expect(order.receiptNumber).toBe('R3-000001');
    expect(order.tenders[0]).toMatchObject({ method: 'cash', tenderedCents: 2000, changeCents: 2000 - order.totalCents });
    expect((await db.orders.findOne(order.id).exec())?.toJSON()).toMatchObject({ receiptNumber: 'R3-000001', totalCents: order.totalCents });
    expect(await db.journal_transactions.findOne(saleJournalTransactionId(order.id)).exec()).not.toBeNull();
    expect(localStorage.getItem(sequenceKey(session.registerId))).toBe('1');
    // A sale with no shift open opened one.
    expect(await currentShift(db, session.registerId)).toBeDefined();
  });

  it('sales rung up at the same moment each get their own number, in the order they were stored', async () => {
    const orders = await Promise.all([ringUpSale(input()), ringUpSale(input(5000)), ringUpSale({ ...input(), payment: card })]);
    expect(orders.map((o) => o.receiptNumber).sort()).toEqual(['R3-000001', 'R3-000002', 'R3-000003']);
    expect(await storedReceipts()).toEqual(['R3-000001', 'R3-000002', 'R3-000003']);
    // One shift for all three.
    expect(await db.shifts.count().exec()).toBe(1);
  });

  it('numbers from the stored sales when the localStorage witness was lost: no number reused', async () => {
    await ringUpSale(input());
    await ringUpSale(input());
    localStorage.removeItem(sequenceKey(session.registerId));
    const stored = await ringUpSale(input());
    expect(stored.receiptNumber).toBe('R3-000003');
    expect(localStorage.getItem(sequenceKey(session.registerId))).toBe('3');
    expect(await storedReceipts()).toEqual(['R3-000001', 'R3-000002', 'R3-000003']);
  });

  it('never numbers below what the server or the witness knows was handed out (sales a lost database no longer holds)', async () => {
    localStorage.setItem(sequenceKey(session.registerId), '7');
    expect((await ringUpSale(input())).receiptNumber).toBe('R3-000008');
    expect((await ringUpSale({ ...input(), session: { ...session, lastReceiptSequence: 20 } })).receiptNumber).toBe('R3-000021');
  });

  it('refuses a tender that does not cover the total before anything is stored (no sale, no shift)', async () => {
    await expect(ringUpSale(input(100))).rejects.toThrow(RangeError);
    expect(await db.orders.count().exec()).toBe(0);
    expect(await currentShift(db, session.registerId)).toBeUndefined();
  });

  it('when the write fails: rejects, stores no sale, advances no witness — and the next sale takes the number', async () => {
    await ringUpSale(input());
    const insert = db.orders.insert.bind(db.orders);
    db.orders.insert = () => Promise.reject(new Error('QuotaExceededError'));
    try {
      await expect(ringUpSale(input())).rejects.toThrow('QuotaExceededError');
    } finally {
      db.orders.insert = insert;
    }
    expect(localStorage.getItem(sequenceKey(session.registerId))).toBe('1');
    expect(await db.orders.count().exec()).toBe(1);
    expect((await ringUpSale(input())).receiptNumber).toBe('R3-000002');
  });

  it('a first sale rung up with no shift open belongs to the shift it opens — cash and card; X and Z equal the hand sums and the drawer ledger', async () => {
    // Cash first: the shift it opens counts it.
    const cash = await ringUpSale(input(3000, 2));
    const first = (await currentShift(db, session.registerId))!;
    expect(first.openingFloatCents).toBe(0);
    expect(Date.parse(first.openedAt)).toBeLessThanOrEqual(Date.parse(cash.createdAt));
    const x = await xReport(db, first);
    expect(x).toMatchObject({
      salesCount: 1,
      netSalesCents: cash.totalCents,
      cashSalesCents: cash.totalCents,
      expectedCashCents: cash.totalCents,
      firstReceiptNumber: cash.receiptNumber,
    });
    expect(x.expectedCashCents).toBe(await drawerLedger());
    const z = await closeShift(db, session.registerId, {
      counted: [
        { kind: 'note', valueCents: 1000, count: 2 },
        { kind: 'coin', valueCents: 1, count: cash.totalCents - 2000 },
      ],
    });
    expect(z.report).toMatchObject({ salesCount: 1, expectedCashCents: cash.totalCents, countedCashCents: cash.totalCents, overShortCents: 0 });

    // Then a card sale with no shift open: the next shift counts it, and no cash.
    const paid = await ringUpSale({ ...input(), payment: card });
    const second = (await currentShift(db, session.registerId))!;
    expect(second.id).not.toBe(first.id);
    expect(Date.parse(paid.createdAt)).toBeGreaterThan(Date.parse(z.closedAt));
    const x2 = await xReport(db, second);
    expect(x2).toMatchObject({
      salesCount: 1,
      netSalesCents: paid.totalCents,
      cashSalesCents: 0,
      expectedCashCents: 0,
      firstReceiptNumber: paid.receiptNumber,
    });
    expect(x2.byTender.card).toEqual({ count: 1, amountCents: paid.totalCents, tipCents: 0 });
    // The drawer ledger moved only by the first shift's cash sale.
    expect(await drawerLedger()).toBe(z.report.expectedCashCents + x2.expectedCashCents);
  });
});
