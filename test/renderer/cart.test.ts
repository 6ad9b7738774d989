import { describe, expect, it } from 'vitest';
import { catalogSnapshot, newId, type CatalogItem, type TaxRate } from '../../core/index.ts';
import { cartReducer, priceCart, type CartLine } from '../../renderer/src/register/sale/cart.ts';

const tax: TaxRate = { id: 'tax_sales', name: 'Sales tax', basisPoints: 875, inclusive: false };
const latte: CatalogItem = {
  id: 'itm_latte',
  name: 'Latte',
  category: 'Café',
  kind: 'product',
  taxRateIds: ['tax_sales'],
  variations: [
    { id: 'var_small', name: 'Small', priceCents: 395, trackStock: false },
    { id: 'var_large', name: 'Large', priceCents: 475, trackStock: false },
  ],
  modifierLists: [
    {
      id: 'mdl_milk',
      name: 'Milk',
      minSelected: 1,
      maxSelected: 1,
      modifiers: [
        { id: 'mod_oat', name: 'Oat milk', priceCents: 75 },
        { id: 'mod_whole', name: 'Whole', priceCents: 0 },
      ],
    },
  ],
};
const catalog = catalogSnapshot([latte], [tax]);
const large = { catalogItemId: 'itm_latte', variationId: 'var_large', modifierIds: ['mod_oat'] };

describe('cart', () => {
  it('adds the same choice to one line and a different choice to a new line', () => {
    let lines: CartLine[] = [];
    lines = cartReducer(lines, { type: 'add', key: newId('orderLine'), line: large });
    lines = cartReducer(lines, { type: 'add', key: newId('orderLine'), line: { ...large, modifierIds: ['mod_oat'] } });
    lines = cartReducer(lines, { type: 'add', key: newId('orderLine'), line: { ...large, modifierIds: ['mod_whole'] } });
    expect(lines.map((l) => l.quantity)).toEqual([2, 1]);
  });

  it('drops a line whose quantity goes to zero', () => {
    const key = newId('orderLine');
    let lines = cartReducer([], { type: 'add', key, line: large });
    lines = cartReducer(lines, { type: 'setQuantity', key, quantity: 0 });
    expect(lines).toEqual([]);
  });

  it('prices with core: Large + oat = 5.50, tax 8.75 % half-even = 0.48', () => {
    const lines = cartReducer([], { type: 'add', key: newId('orderLine'), line: large });
    const { totals, invalidKeys } = priceCart(lines, catalog);
    expect(invalidKeys).toEqual([]);
    expect(totals.subtotalCents).toBe(550);
    expect(totals.taxCents).toBe(48);
    expect(totals.totalCents).toBe(598);
    expect(totals.lines[0]?.id).toBe(lines[0]?.key);
  });

  it('reports lines that would take the sale above MAX_AMOUNT_CENTS instead of throwing', () => {
    let lines: CartLine[] = [];
    const first = newId('orderLine');
    const second = newId('orderLine');
    lines = cartReducer(lines, { type: 'add', key: first, line: large });
    lines = cartReducer(lines, { type: 'setQuantity', key: first, quantity: 9999 });
    lines = cartReducer(lines, { type: 'add', key: second, line: { ...large, modifierIds: ['mod_whole'] } });
    lines = cartReducer(lines, { type: 'setQuantity', key: second, quantity: 9999 });
    const pricey = catalogSnapshot([{ ...latte, variations: latte.variations.map((v) => ({ ...v, priceCents: 6_000 })) }], [tax]);
    const { totals, invalidKeys } = priceCart(lines, pricey);
    // 9999 × 60.75 fits; a second line of 9999 × 60.00 would take the sale over $999,999.99 with tax.
    expect(invalidKeys).toEqual([second]);
    expect(totals.lines.map((l) => l.id)).toEqual([first]);
  });

  it('reports lines that no longer price instead of throwing', () => {
    const lines = cartReducer([], { type: 'add', key: newId('orderLine'), line: { ...large, modifierIds: [] } });
    expect(priceCart(lines, catalog).invalidKeys).toEqual([lines[0]?.key]);
  });
});
