/** fast-check generators of catalogs and carts that respect the catalog's modifier rules. */
import fc from 'fast-check';
import type { CatalogItem, Discount, LineItemInput, TaxRate } from '../../core/index.ts';
import { catalogSnapshot, newId, type CatalogSnapshot } from '../../core/index.ts';

const price = fc.integer({ min: 0, max: 50_000 });

export const taxRatesArb: fc.Arbitrary<TaxRate[]> = fc
  .tuple(fc.array(fc.integer({ min: 0, max: 2_500 }), { minLength: 1, maxLength: 3 }), fc.integer({ min: 0, max: 2_500 }))
  .map(([exclusive, inclusive]) => [
    ...exclusive.map((bp, i) => ({ id: `tax_ex${i}`, name: `Exclusive ${i}`, basisPoints: bp, inclusive: false })),
    { id: 'tax_vat', name: 'VAT (included)', basisPoints: inclusive, inclusive: true },
  ]);

function itemArb(index: number, exclusiveIds: string[]): fc.Arbitrary<CatalogItem> {
  return fc
    .record({
      kind: fc.constantFrom('product' as const, 'service' as const),
      variationPrices: fc.array(price, { minLength: 1, maxLength: 3 }),
      lists: fc.array(
        fc.record({
          prices: fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 4 }),
          min: fc.integer({ min: 0, max: 2 }),
          extra: fc.integer({ min: 0, max: 2 }),
        }),
        { maxLength: 2 },
      ),
      taxMode: fc.constantFrom('none', 'inclusive', 'exclusive'),
      taxPick: fc.subarray(exclusiveIds, { minLength: 1 }),
    })
    .map(({ kind, variationPrices, lists, taxMode, taxPick }) => ({
      id: `itm_${index}`,
      name: `Item ${index}`,
      category: kind === 'service' ? 'Services' : 'Goods',
      kind,
      variations: variationPrices.map((p, v) => ({ id: `var_${index}_${v}`, name: `V${v}`, priceCents: p, trackStock: false })),
      modifierLists: lists.map((l, m) => {
        const min = Math.min(l.min, l.prices.length);
        return {
          id: `mdl_${index}_${m}`,
          name: `List ${m}`,
          minSelected: min,
          maxSelected: Math.max(1, Math.min(l.prices.length, min + l.extra)),
          modifiers: l.prices.map((p, k) => ({ id: `mod_${index}_${m}_${k}`, name: `M${k}`, priceCents: p })),
        };
      }),
      taxRateIds: taxMode === 'none' ? [] : taxMode === 'inclusive' ? ['tax_vat'] : taxPick,
    }));
}

/** A random catalog (1–6 items, some taxed inclusive, some exclusive, some with modifier lists). */
export const catalogArb: fc.Arbitrary<{ items: CatalogItem[]; taxRates: TaxRate[]; snapshot: CatalogSnapshot }> = taxRatesArb.chain((taxRates) => {
  const exclusiveIds = taxRates.filter((t) => !t.inclusive).map((t) => t.id);
  return fc
    .integer({ min: 1, max: 6 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => itemArb(i, exclusiveIds))))
    .map((items) => ({ items, taxRates, snapshot: catalogSnapshot(items, taxRates) }));
});

/** A valid line for `item`: a variation and a modifier choice within each list's min/max. */
export function lineArb(item: CatalogItem): fc.Arbitrary<LineItemInput> {
  return fc
    .record({
      variation: fc.constantFrom(...item.variations),
      choices: fc.tuple(...item.modifierLists.map((l) => fc.shuffledSubarray(l.modifiers, { minLength: l.minSelected, maxLength: l.maxSelected }))),
      quantity: fc.integer({ min: 1, max: 20 }),
    })
    .map(({ variation, choices, quantity }) => ({
      catalogItemId: item.id,
      variationId: variation.id,
      modifierIds: choices.flat().map((m) => m.id),
      quantity,
    }));
}

export const discountsArb: fc.Arbitrary<Discount[]> = fc.array(
  fc.oneof(
    fc.integer({ min: 1, max: 10_000 }).map((bp) => ({ id: newId('discount'), name: 'Promo', kind: 'percentage' as const, basisPoints: bp })),
    fc.integer({ min: 1, max: 100_000 }).map((a) => ({ id: newId('discount'), name: 'Coupon', kind: 'fixed' as const, amountCents: a })),
  ),
  { maxLength: 2 },
);

/** A catalog with a random cart over it and random discounts. */
export const cartArb = catalogArb.chain((catalog) =>
  fc.record({
    catalog: fc.constant(catalog),
    lines: fc.array(fc.constantFrom(...catalog.items).chain(lineArb), { minLength: 1, maxLength: 8 }),
    discounts: discountsArb,
    tipCents: fc.integer({ min: 0, max: 5_000 }),
    extraCash: fc.integer({ min: 0, max: 10_000 }),
    method: fc.constantFrom('cash' as const, 'card' as const),
  }),
);
