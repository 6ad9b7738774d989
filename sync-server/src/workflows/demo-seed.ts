/**
 * The demo store, seeded idempotently on every start in one transaction: the merchants module's merchant,
 * the kernel's chart of accounts, the catalog module's items and tax rates, the opening stock (inventory counts, then
 * the catalog re-stamps `stockOnHand`), the merchants module's sign-ins, the sanctions module's sample SDN list and the apps module's example in-platform app ("Shelf labels", listed). Existing rows are never overwritten, so a
 * store's edits survive restarts; the opening counts are recorded once.
 */
import type { Db } from '../platform/db/db.ts';
import { openMutation } from '../kernel/mutation.ts';
import { ensureChartOfAccounts } from '../kernel/ledger.ts';
import { seedCatalog } from '../modules/catalog/index.ts';
import { hasStockMovementsOf } from '../modules/inventory/index.ts';
import {
  createDemoMerchant,
  DEMO_CATALOG_ITEMS,
  DEMO_TAX_RATES,
  ensureDemoAccess,
  findDemoMerchant,
  openingStockCounts,
  OPENING_STOCK_SOURCE,
  type DemoSeed,
} from '../modules/merchants/index.ts';
import { ensureSampleList } from '../modules/sanctions/index.ts';
import { ensureExampleApp } from '../modules/apps/index.ts';
import { recordStockChange } from './stock-change.ts';

/**
 * Creates the demo store, or completes it (idempotent; instances starting at once are serialised). Returns its ids
 * and, when this call issued it, the demo app token's plaintext. `now` stamps the rows written.
 */
export async function seedDemoStore(db: Db, now: Date = new Date()): Promise<DemoSeed> {
  // Not mutation(): the demo merchant is found or made inside (instances serialised), then openMutation takes its lock.
  return db.transaction(async (tx) => {
    const { merchant, created } = await findDemoMerchant(tx);
    const m = await openMutation(tx, { merchantId: merchant.id, actor: 'system' }, now);
    if (created) await createDemoMerchant(m, merchant);
    await ensureChartOfAccounts(tx, merchant.id);
    await seedCatalog(m, DEMO_TAX_RATES, DEMO_CATALOG_ITEMS);
    if (!(await hasStockMovementsOf(tx, merchant.id, OPENING_STOCK_SOURCE))) await recordStockChange(m, { movements: openingStockCounts() });
    const access = await ensureDemoAccess(m);
    await ensureSampleList(tx, merchant.id, m);
    await ensureExampleApp(tx, now);
    if (created)
      await m.audit({ action: 'merchant.seeded', entityType: 'merchant', entityId: merchant.id, data: { name: merchant.name, demo: true } });
    return { merchantId: merchant.id, merchantName: merchant.name, currency: merchant.currency, ...access, created };
  });
}
