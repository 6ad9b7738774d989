/**
 * Ringing up a sale in two steps (renderer/src/register/sale/ring-up.ts): the draft is built at once, without the
 * local database, so the receipt can paint in the frame after the tap; the commit numbers, checks and stores it.
 * On the register's RxDB database over fake-indexeddb, with a Map for localStorage (the receipt counter).
 */
import 'fake-indexeddb/auto';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { catalogSnapshot, priceLine, saleJournalTransactionId } from '../../core/index.ts';
import { openRegisterDatabase, type RegisterDatabase } from '../../renderer/src/register/db/database.ts';
import type { RegisterSession } from '../../renderer/src/register/session.ts';
import { commitSale, draftSale, predictReceiptSequence, sequenceKey, type SaleInput } from '../../renderer/src/register/sale/ring-up.ts';
import { currentShift } from '../../renderer/src/register/shifts/shift-store.ts';
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

describe('ringing up a sale: draft at once, commit under the receipt lock', () => {
  let db: RegisterDatabase;
  let saved: PropertyDescriptor | undefined;
  const input = (tenderedCents = 2000): SaleInput => ({
    db,
    session,
    catalog,
    lines: [priceLine({ catalogItemId: mug.id, variationId: 'var_mug', modifierIds: [], quantity: 1 }, catalog, 'lines.0')],
    payment: { method: 'cash', tenderedCents },
  });

  beforeEach(async () => {
    saved = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
    const store = new Map<string, string>();
    Object.defineProperty(globalThis, 'localStorage', {
      configurable: true,
      value: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) },
    });
    db = await openRegisterDatabase({ name: `ringup${Date.now()}${Math.random().toString(36).slice(2)}`, storage: getRxStorageDexie(), multiInstance: false });
  });
  afterEach(async () => {
    await db.remove();
    if (saved) Object.defineProperty(globalThis, 'localStorage', saved);
    else delete (globalThis as { localStorage?: unknown }).localStorage;
  });

  it('drafts the sale without the database, numbered as predicted; nothing is stored or counted until the commit', async () => {
    const draft = draftSale(input());
    expect(draft.sequence).toBe(1);
    expect(draft.sale.order.receiptNumber).toBe('R3-000001');
    expect(draft.sale.order.tenders[0]).toMatchObject({ method: 'cash', tenderedCents: 2000, changeCents: 2000 - draft.sale.order.totalCents });
    expect(await db.orders.count().exec()).toBe(0);
    expect(localStorage.getItem(sequenceKey(session.registerId))).toBeNull();
    expect(await currentShift(db, session.registerId)).toBeUndefined();

    const order = await commitSale(draft);
    expect(order).toEqual(draft.sale.order);
    expect((await db.orders.findOne(order.id).exec())?.receiptNumber).toBe('R3-000001');
    expect(await db.journal_transactions.findOne(saleJournalTransactionId(order.id)).exec()).not.toBeNull();
    expect(localStorage.getItem(sequenceKey(session.registerId))).toBe('1');
    // A sale with no shift open opened one.
    expect(await currentShift(db, session.registerId)).toBeDefined();
    expect(predictReceiptSequence(session)).toBe(2);
  });

  it('renumbers a draft whose predicted number another tab took meanwhile (same order id), never storing a number twice', async () => {
    const first = draftSale(input());
    const second = draftSale(input(5000));
    expect(second.sequence).toBe(first.sequence);
    await commitSale(first);
    const stored = await commitSale(second);
    expect(stored.id).toBe(second.sale.order.id);
    expect(stored.receiptNumber).toBe('R3-000002');
    expect(stored.createdAt).toBe(second.createdAt);
    expect(stored.journalTransactionId).toBe(saleJournalTransactionId(stored.id));
    const receipts = (await db.orders.find().exec()).map((doc) => doc.receiptNumber).sort();
    expect(receipts).toEqual(['R3-000001', 'R3-000002']);
  });

  it('numbers past the sales in the database when the stored counter was lost', async () => {
    await commitSale(draftSale(input()));
    await commitSale(draftSale(input()));
    localStorage.removeItem(sequenceKey(session.registerId));
    const draft = draftSale(input());
    expect(draft.sequence).toBe(1);
    const stored = await commitSale(draft);
    expect(stored.receiptNumber).toBe('R3-000003');
    expect(localStorage.getItem(sequenceKey(session.registerId))).toBe('3');
  });

  it('refuses a tender that does not cover the total at the draft, before anything is shown or stored', async () => {
    expect(() => draftSale(input(100))).toThrow(RangeError);
    expect(await db.orders.count().exec()).toBe(0);
  });

  it('advances no counter when the write fails', async () => {
    const stored = await commitSale(draftSale(input()));
    // A draft whose order id is stored already: the local database refuses the write (a conflict).
    const clash = draftSale(input());
    const refused = { ...clash, sale: { ...clash.sale, order: { ...clash.sale.order, id: stored.id } } };
    await expect(commitSale(refused)).rejects.toThrow();
    expect(localStorage.getItem(sequenceKey(session.registerId))).toBe('1');
    expect(await db.orders.count().exec()).toBe(1);
  });
});
