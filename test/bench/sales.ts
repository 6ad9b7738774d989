import { DEMO_CATALOG_ITEMS, DEMO_TAX_RATES } from '../../sync-server/src/modules/merchants/seed.ts';
import { buildSale, type PairedRegister } from '../support/sales.ts';

/**
 * The `sales` offline sales the bench's register sells, built exactly as the register builds them (core's
 * buildRegisterSale over the demo catalog): sequences 1…sales, every third paid by card, the rest cash, one second
 * apart from `firstSaleAt` (ms since the epoch). Deterministic, so the parent process can rebuild the same documents.
 */
export function benchSales(start: { register: PairedRegister; sales: number; firstSaleAt: number }): ReturnType<typeof buildSale>[] {
  return Array.from({ length: start.sales }, (_, i) =>
    buildSale({
      register: start.register,
      sequence: i + 1,
      catalog: { items: DEMO_CATALOG_ITEMS, taxRates: DEMO_TAX_RATES },
      method: i % 3 === 0 ? 'card' : 'cash',
      createdAt: new Date(start.firstSaleAt + i * 1000).toISOString(),
    }),
  );
}
