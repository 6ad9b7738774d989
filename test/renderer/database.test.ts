import 'fake-indexeddb/auto';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRegisterSale, catalogSnapshot, isBalanced } from '../../core/index.ts';
import {
  openRegisterDatabase,
  removeOrphanSaleJournalTransactions,
  repairMissingJournalTransactions,
  saveSale,
  type RegisterDatabase,
} from '../../renderer/src/register/db/database.ts';
import { mug, tax } from './support/mug.ts';

function sale(sequence: number) {
  return buildRegisterSale({
    registerId: 'reg_test',
    registerNumber: 2,
    sequence,
    currency: 'USD',
    createdAt: new Date().toISOString(),
    lines: [{ catalogItemId: 'itm_mug', variationId: 'var_mug', modifierIds: [], quantity: 3 }],
    payment: { method: 'cash', tenderedCents: 5000 },
    catalog: catalogSnapshot([mug], [tax]),
  });
}

describe('register database', () => {
  let db: RegisterDatabase | undefined;
  afterEach(async () => {
    await db?.remove();
    db = undefined;
  });

  it('stores a sale with its balanced journal transaction', async () => {
    db = await openRegisterDatabase({ name: `t${Date.now()}a`, storage: getRxStorageDexie(), multiInstance: false });
    const s = sale(1);
    await saveSale(db, s);
    const order = await db.orders.findOne(s.order.id).exec();
    expect(order?.receiptNumber).toBe('R2-000001');
    expect(order?.totalCents).toBe(4238);
    const journal = await db.journal_transactions.findOne(s.journalTransaction!.id).exec();
    expect(journal && isBalanced(journal.toJSON().postings)).toBe(true);
  });

  it('re-derives a journal transaction lost between the two writes', async () => {
    db = await openRegisterDatabase({ name: `t${Date.now()}b`, storage: getRxStorageDexie(), multiInstance: false });
    const s = sale(7);
    await db.orders.insert(s.order); // "crash" before the journal transaction was written
    expect(await repairMissingJournalTransactions(db)).toBe(1);
    const journal = await db.journal_transactions.findOne(s.journalTransaction!.id).exec();
    expect(journal?.toJSON().postings).toEqual(s.journalTransaction!.postings);
    expect(await repairMissingJournalTransactions(db)).toBe(0);
  });

  it('removes the ledger line of a sale whose order was never stored (the crash kept only the journal transaction)', async () => {
    db = await openRegisterDatabase({ name: `t${Date.now()}c`, storage: getRxStorageDexie(), multiInstance: false });
    const kept = sale(1);
    await saveSale(db, kept);
    const lost = sale(2);
    await db.journal_transactions.insert(lost.journalTransaction!); // "crash" before the order was written
    expect(await removeOrphanSaleJournalTransactions(db)).toBe(1);
    expect(await db.journal_transactions.findOne(lost.journalTransaction!.id).exec()).toBeNull();
    expect(await db.journal_transactions.findOne(kept.journalTransaction!.id).exec()).not.toBeNull();
    expect(await removeOrphanSaleJournalTransactions(db)).toBe(0);
  });

  it('a sale whose order cannot be written stores neither part (its journal transaction is taken back)', async () => {
    db = await openRegisterDatabase({ name: `t${Date.now()}d`, storage: getRxStorageDexie(), multiInstance: false });
    const first = sale(1);
    await saveSale(db, first);
    const clash = sale(2);
    // The same order id again: the local database refuses the order (a conflict).
    await expect(saveSale(db, { order: { ...clash.order, id: first.order.id }, journalTransaction: clash.journalTransaction })).rejects.toThrow();
    expect(await db.journal_transactions.findOne(clash.journalTransaction!.id).exec()).toBeNull();
    expect(await db.orders.count().exec()).toBe(1);
  });
});
