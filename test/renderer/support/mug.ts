/**
 * The one-item catalog the register's database suites sell from: a $12.99 mug (stock tracked, with a GTIN) taxed at
 * 8.75 % exclusive.
 */
import type { CatalogItem, TaxRate } from '../../../core/index.ts';

/** Sales tax, 875 basis points, added on top. */
export const tax: TaxRate = { id: 'tax_sales', name: 'Sales tax', basisPoints: 875, inclusive: false };

/** A mug at 1299 cents, one variation, taxed with {@link tax}. */
export const mug: CatalogItem = {
  id: 'itm_mug',
  name: 'Mug',
  category: 'Retail',
  kind: 'product',
  taxRateIds: ['tax_sales'],
  variations: [{ id: 'var_mug', name: 'Regular', priceCents: 1299, gtin: '0012345678905', trackStock: true }],
  modifierLists: [],
};
