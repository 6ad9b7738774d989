import { catalogSnapshot, type CatalogItem, type CatalogSnapshot, type TaxRate } from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';

/**
 * The merchant's live catalog (items and tax rates not deleted) as a core pricing snapshot (core/pricing.ts), read in
 * the caller's transaction. Workflows hand it to the orders, pay-links and invoices modules, which price catalog
 * references with it (apps never send prices: the catalog decides them).
 */
export async function loadCatalog(db: Queryable, merchantId: string): Promise<CatalogSnapshot> {
  const items = await db.query<{ data: CatalogItem }>('SELECT data FROM catalog_items WHERE merchant_id = $1 AND NOT deleted', [merchantId]);
  const rates = await db.query<{ data: TaxRate }>('SELECT data FROM tax_rates WHERE merchant_id = $1 AND NOT deleted', [merchantId]);
  return catalogSnapshot(
    items.rows.map((r) => r.data),
    rates.rows.map((r) => r.data),
  );
}
