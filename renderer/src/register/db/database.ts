/**
 * The register's local database: RxDB on IndexedDB (Dexie storage). Every sale is written here first, so the
 * register keeps selling through an outage and nothing is lost to a reload or a crash.
 *
 * `multiInstance` + leader election: several tabs of one register share the database, and only the leader tab
 * replicates, so one offline queue is never sent twice from two tabs.
 */
import { addRxPlugin, createRxDatabase, type RxCollection, type RxDatabase, type RxStorage } from 'rxdb';
import { RxDBLeaderElectionPlugin } from 'rxdb/plugins/leader-election';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import type {
  CashMovement,
  CatalogItem,
  CheckHeader,
  CheckLine,
  CheckPayment,
  JournalTransaction,
  Order,
  RegisterReturn,
  Shift,
  TaxRate,
} from '../../../../core/index.ts';
import type { StoredCloseout } from '../shifts/shift-store.ts';
import { buildSaleJournalTransaction } from '../../../../core/index.ts';
import { checkConflictHandler } from '../checks/check-join.ts';
import { registerIdentityRxSchema, type StoredIdentity } from './identity.ts';
import { staffSignInRxSchema } from '../../common/staff-offline.ts';
import {
  catalogItemRxSchema,
  journalTransactionRxSchema,
  orderRxSchema,
  taxRateRxSchema,
  shiftRxSchema,
  cashMovementRxSchema,
  closeoutRxSchema,
  returnRxSchema,
  customerRxSchema,
  checkRxSchema,
  checkLineRxSchema,
  checkPaymentRxSchema,
  type Rejectable,
  type StoredCheckDocument,
  type StoredCustomer,
} from './schemas.ts';

addRxPlugin(RxDBLeaderElectionPlugin);
addRxPlugin(RxDBMigrationSchemaPlugin);

export type StoredOrder = Rejectable<Order>;
export type StoredJournalTransaction = Rejectable<JournalTransaction>;

export interface RegisterCollections {
  catalog_items: RxCollection<CatalogItem>;
  tax_rates: RxCollection<TaxRate>;
  orders: RxCollection<StoredOrder>;
  journal_transactions: RxCollection<StoredJournalTransaction>;
  /** One document: this register's pairing (identity.ts); never replicated. */
  register_identity: RxCollection<StoredIdentity>;
  /** Shifts, cash movements and closeouts (shifts/shift-store.ts): born here, pushed like orders. */
  shifts: RxCollection<Rejectable<Shift>>;
  cash_movements: RxCollection<Rejectable<CashMovement>>;
  closeouts: RxCollection<Rejectable<StoredCloseout>>;
  /** Returns and exchanges made here (returns/return-store.ts): born here, pushed, pulled back stamped. */
  returns: RxCollection<Rejectable<RegisterReturn>>;
  /**
   * The store's customers (pulled) and those created here (pushed, offline too), with the aliases of the ones the
   * server merged into an existing customer (customers/customer-store.ts).
   */
  customers: RxCollection<StoredCustomer>;
  /**
   * A restaurant's open checks (checks/check-store.ts): headers, lines and payments as core/check-documents.ts keeps
   * them, edited here and on every register of the store and joined by the check book's merge (checks/check-join.ts).
   */
  checks: RxCollection<StoredCheckDocument<CheckHeader>>;
  check_lines: RxCollection<StoredCheckDocument<CheckLine & { id: string }>>;
  check_payments: RxCollection<StoredCheckDocument<CheckPayment & { id: string }>>;
  /** Staff sign-in on this register: the signed-in session, offline verifiers, lockout (staff-offline.ts); never replicated. */
  staff_sign_in: RxCollection<{ id: string; value: Record<string, unknown> }>;
}

export type RegisterDatabase = RxDatabase<RegisterCollections>;

export interface OpenOptions {
  name?: string;
  /** Defaults to Dexie on the browser's IndexedDB; tests pass Dexie on fake-indexeddb. */
  storage?: RxStorage<unknown, unknown>;
  multiInstance?: boolean;
}

/** Opens (or creates) the register database. One database per browser profile: the register it is paired as. */
export async function openRegisterDatabase({ name = 'register', storage, multiInstance = true }: OpenOptions = {}): Promise<RegisterDatabase> {
  const db = await createRxDatabase<RegisterCollections>({
    name,
    storage: storage ?? getRxStorageDexie(),
    multiInstance,
    eventReduce: true,
    closeDuplicates: true,
  });
  await db.addCollections({
    catalog_items: { schema: catalogItemRxSchema },
    tax_rates: { schema: taxRateRxSchema },
    orders: { schema: orderRxSchema },
    journal_transactions: { schema: journalTransactionRxSchema },
    register_identity: { schema: registerIdentityRxSchema },
    shifts: { schema: shiftRxSchema },
    // Version 1 only added the optional fields of financial services' movements: old documents stay as they are.
    cash_movements: { schema: cashMovementRxSchema, migrationStrategies: { 1: (doc: Record<string, unknown>) => doc } },
    closeouts: { schema: closeoutRxSchema },
    returns: { schema: returnRxSchema },
    customers: { schema: customerRxSchema },
    staff_sign_in: { schema: staffSignInRxSchema },
    checks: { schema: checkRxSchema, conflictHandler: checkConflictHandler('checks') },
    check_lines: { schema: checkLineRxSchema, conflictHandler: checkConflictHandler('check-lines') },
    check_payments: { schema: checkPaymentRxSchema, conflictHandler: checkConflictHandler('check-payments') },
  });
  await repairMissingJournalTransactions(db);
  return db;
}

/**
 * Writes a paid sale: the order and its journal transaction, both before the receipt is shown (write before print;
 * docs/decisions/0015-receipt-after-stored.md). RxDB's Dexie storage keeps each collection in an IndexedDB database of its
 * own, so no single transaction spans the two: both writes are issued at once (the sale waits for the slower, not for
 * the sum), and the order is the sale. A crash that kept only the order is repaired at the next start by
 * {@link repairMissingJournalTransactions}, which re-derives the (deterministic) journal transaction; one that kept
 * only the journal transaction left the ledger line of a sale that never was, which
 * {@link removeOrphanSaleJournalTransactions} removes after the next start. When a write fails the
 * other is undone as far as it can be, and the failure is thrown (nothing to show: the cart is the cashier's to keep).
 * @throws the local database's error (a conflict, storage full…).
 */
export async function saveSale(db: RegisterDatabase, sale: { order: Order; journalTransaction: JournalTransaction | null }): Promise<void> {
  const { order, journalTransaction } = sale;
  // A sale that moves no money has none (core isZeroValueSale).
  const [orderWrite, journalWrite] = await Promise.allSettled([
    db.orders.insert(order),
    journalTransaction ? db.journal_transactions.insert(journalTransaction) : Promise.resolve(undefined),
  ]);
  if (orderWrite.status === 'rejected') {
    if (journalWrite.status === 'fulfilled' && journalWrite.value) await journalWrite.value.remove().catch(() => undefined);
    throw orderWrite.reason;
  }
  if (journalWrite.status === 'rejected') {
    await orderWrite.value.remove().catch(() => undefined);
    throw journalWrite.reason;
  }
}

/** Recreates the journal transaction of any local paid order that lacks one (see {@link saveSale}). */
export async function repairMissingJournalTransactions(db: RegisterDatabase): Promise<number> {
  const orders = await db.orders.find().exec();
  let repaired = 0;
  for (const doc of orders) {
    const order = doc.toMutableJSON() as StoredOrder;
    // Only sales authored here and not yet on the server: pulled orders bring their own journal transactions.
    if (order.state !== 'paid' || !order.journalTransactionId || order.rejection || order.syncSeq !== undefined) continue;
    const existing = await db.journal_transactions.findOne(order.journalTransactionId).exec();
    if (existing) continue;
    const { rejection: _rejection, updatedAt: _updatedAt, syncSeq: _syncSeq, ...clean } = order;
    await db.journal_transactions.insert(buildSaleJournalTransaction(clean));
    repaired += 1;
  }
  return repaired;
}

/**
 * Removes the journal transaction of any sale made here whose order was never stored — a crash between the two writes
 * of {@link saveSale} that kept only the journal transaction — as long as the server has not stamped it (`syncSeq`
 * unset: the server's own copies are its ledger). It reads the whole local ledger (no index on its source), so the
 * register runs it after start, off the way to the first sale. Resolves with how many it removed.
 */
export async function removeOrphanSaleJournalTransactions(db: RegisterDatabase): Promise<number> {
  const local = await db.journal_transactions.find({ selector: { sourceType: 'order', syncSeq: { $exists: false } } }).exec();
  if (local.length === 0) return 0;
  const held = await db.orders.findByIds(local.map((jt) => jt.sourceId)).exec();
  const orphans = local.filter((jt) => !held.has(jt.sourceId));
  if (orphans.length > 0) await db.journal_transactions.bulkRemove(orphans.map((jt) => jt.id));
  return orphans.length;
}
