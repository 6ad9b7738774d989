/**
 * The register's local database: RxDB on IndexedDB (Dexie storage). Every sale is written here first, so the
 * register keeps selling through an outage and nothing is lost to a reload or a crash (DESIGN §8).
 *
 * `multiInstance` + leader election: several tabs of one register share the database, and only the leader tab
 * replicates, so one offline queue is never sent twice from two tabs.
 */
import { addRxPlugin, createRxDatabase, type RxCollection, type RxDatabase, type RxStorage } from 'rxdb';
import { RxDBLeaderElectionPlugin } from 'rxdb/plugins/leader-election';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import type { CashMovement, CatalogItem, JournalTransaction, Order, RegisterReturn, Shift, TaxRate } from '../../../../core/index.ts';
import type { StoredCloseout } from '../shifts/shift-store.ts';
import { buildSaleJournalTransaction } from '../../../../core/index.ts';
import { registerIdentityRxSchema, type StoredIdentity } from './identity.ts';
import { staffSignInRxSchema } from '../staff-offline.ts';
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
  type Rejectable,
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
  /** Returns and exchanges made here (issue 13; returns/return-store.ts): born here, pushed, pulled back stamped. */
  returns: RxCollection<Rejectable<RegisterReturn>>;
  /**
   * The store's customers (pulled) and those created here (pushed, offline too), with the aliases of the ones the
   * server merged into an existing customer (issue 13; customers/customer-store.ts).
   */
  customers: RxCollection<StoredCustomer>;
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
  });
  await repairMissingJournalTransactions(db);
  return db;
}

/**
 * Writes a paid sale: the order and its journal transaction, both before the receipt is shown (write before print).
 * IndexedDB gives no transaction across two RxDB collections, so a crash between the two writes is repaired at the
 * next start by {@link repairMissingJournalTransactions}, which re-derives the (deterministic) journal transaction.
 */
export async function saveSale(db: RegisterDatabase, sale: { order: Order; journalTransaction: JournalTransaction | null }): Promise<void> {
  await db.orders.insert(sale.order);
  // A sale that moves no money has none (core isZeroValueSale).
  if (sale.journalTransaction) await db.journal_transactions.insert(sale.journalTransaction);
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
