/**
 * Ringing up a sale in two steps (renderer/src/register/sale/ring-up.ts): the draft is built at once, without the
 * local database, so the receipt can paint in the frame after the tap; the commit numbers, checks and stores it.
 * On the register's RxDB database over fake-indexeddb, with a Map for localStorage (the receipt counter).
 */
import 'fake-indexeddb/auto';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { catalogSnapshot, drawerPostingsCents, priceLine, saleJournalTransactionId, type SalePayment } from '../../core/index.ts';
import { openRegisterDatabase, type RegisterDatabase } from '../../renderer/src/register/db/database.ts';
import type { RegisterSession } from '../../renderer/src/register/session.ts';
import { commitSale, draftSale, predictReceiptSequence, sequenceKey, type SaleInput } from '../../renderer/src/register/sale/ring-up.ts';
import { closeShift, currentShift, openShift, xReport } from '../../renderer/src/register/shifts/shift-store.ts';
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
  const input = (tenderedCents = 2000, quantity = 1): SaleInput => ({
    db,
    session,
    catalog,
    lines: [priceLine({ catalogItemId: mug.id, variationId: 'var_mug', modifierIds: [], quantity }, catalog, 'lines.0')],
    payment: { method: 'cash', tenderedCents },
  });
  const card: SalePayment = { method: 'card', cardBrand: 'visa', last4: '4242', authCode: 'A1' };
  /** Lets the register's clock move on between the tap (draft) and the commit, as it does on a real register. */
  const later = () => new Promise((resolve) => setTimeout(resolve, 5));
  /** Σ postings to this register's drawer account over the journal transactions stored on the register. */
  const drawerLedger = async () =>
    (await db.journal_transactions.find().exec()).reduce((sum, doc) => sum + drawerPostingsCents(doc.toJSON().postings, session.registerNumber), 0);

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

  it('a first sale rung up with no shift open belongs to the shift it opens — cash and card; X and Z equal the hand sums and the drawer ledger', async () => {
    // Cash first: the shift it opens counts it.
    const cashDraft = draftSale(input(3000, 2));
    await later();
    const cash = await commitSale(cashDraft);
    const first = (await currentShift(db, session.registerId))!;
    expect(first.openingFloatCents).toBe(0);
    expect(Date.parse(first.openedAt)).toBeLessThanOrEqual(Date.parse(cash.createdAt));
    const x = await xReport(db, first);
    expect(x).toMatchObject({ salesCount: 1, netSalesCents: cash.totalCents, cashSalesCents: cash.totalCents, expectedCashCents: cash.totalCents, firstReceiptNumber: cash.receiptNumber });
    expect(x.expectedCashCents).toBe(await drawerLedger());
    const z = await closeShift(db, session.registerId, { counted: [{ kind: 'note', valueCents: 1000, count: 2 }, { kind: 'coin', valueCents: 1, count: cash.totalCents - 2000 }] });
    expect(z.report).toMatchObject({ salesCount: 1, expectedCashCents: cash.totalCents, countedCashCents: cash.totalCents, overShortCents: 0 });

    // Then a card sale with no shift open: the next shift counts it, and no cash.
    const cardDraft = draftSale({ ...input(), payment: card });
    await later();
    const paid = await commitSale(cardDraft);
    const second = (await currentShift(db, session.registerId))!;
    expect(second.id).not.toBe(first.id);
    const x2 = await xReport(db, second);
    expect(x2).toMatchObject({ salesCount: 1, netSalesCents: paid.totalCents, cashSalesCents: 0, expectedCashCents: 0, firstReceiptNumber: paid.receiptNumber });
    expect(x2.byTender.card).toEqual({ count: 1, amountCents: paid.totalCents, tipCents: 0 });
    // The drawer ledger moved only by the first shift's cash sale.
    expect(await drawerLedger()).toBe(z.report.expectedCashCents + x2.expectedCashCents);
  });

  it('a sale drafted before its shift was closed and stored after belongs to the next shift, not to the closed one', async () => {
    await openShift(db, session, { openingFloatCents: 0 });
    const draft = draftSale(input());
    await later();
    const closed = await closeShift(db, session.registerId, { counted: [] });
    expect(closed.report.salesCount).toBe(0);
    await later();
    const stored = await commitSale(draft);
    expect(stored.id).toBe(draft.sale.order.id);
    expect(Date.parse(stored.createdAt)).toBeGreaterThan(Date.parse(closed.closedAt));
    const next = (await currentShift(db, session.registerId))!;
    expect((await xReport(db, next)).salesCount).toBe(1);
  });
});
