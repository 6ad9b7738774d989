import {
  buildRegisterSale,
  catalogSnapshot,
  type CatalogItem,
  type JournalTransaction,
  type LineItemInput,
  type Order,
  type TaxRate,
} from '../../core/index.ts';

/** A register as the server paired it (POST /api/register/pair; test/support/enroll.ts). */
export interface PairedRegister {
  registerId: string;
  registerNumber: number;
}

/** Default cart over the demo catalog: a large latte with oat milk, two croissants, a haircut (product + service). */
export const DEMO_CART: readonly LineItemInput[] = [
  { catalogItemId: 'itm_latte', variationId: 'var_latte_regular', modifierIds: ['mod_size_large', 'mod_extra_oat_milk'], quantity: 1 },
  { catalogItemId: 'itm_croissant', variationId: 'var_croissant_regular', modifierIds: [], quantity: 2 },
  { catalogItemId: 'itm_haircut', variationId: 'var_haircut_standard', modifierIds: [], quantity: 1 },
];

/**
 * A paid sale built the way the register builds it (core's buildRegisterSale), so it passes the server's checks.
 * Cash by default (handing over $100 unless `tenderedCents` says otherwise).
 */
export function buildSale(input: {
  register: PairedRegister;
  sequence: number;
  catalog: { items: readonly CatalogItem[]; taxRates: readonly TaxRate[] };
  lines?: readonly LineItemInput[];
  method?: 'cash' | 'card';
  tenderedCents?: number;
  createdAt?: string;
  currency?: string;
}): { order: Order; journalTransaction: JournalTransaction } {
  const sale = buildRegisterSale({
    registerId: input.register.registerId,
    registerNumber: input.register.registerNumber,
    sequence: input.sequence,
    currency: input.currency ?? 'USD',
    createdAt: input.createdAt ?? new Date().toISOString(),
    lines: input.lines ?? DEMO_CART,
    payment:
      input.method === 'card'
        ? { method: 'card', cardBrand: 'visa', last4: '4242' }
        : { method: 'cash', tenderedCents: input.tenderedCents ?? 100_00 },
    catalog: catalogSnapshot(input.catalog.items, input.catalog.taxRates),
  });
  if (!sale.journalTransaction) throw new Error('buildSale: the cart moves no money (no journal transaction); sell something with a price');
  return { order: sale.order, journalTransaction: sale.journalTransaction };
}
