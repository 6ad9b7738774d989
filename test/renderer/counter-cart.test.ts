/**
 * The register cart's counter tools as pure functions: line discounts and price overrides priced into
 * what the sale records, an added item never merging into a discounted line, the sale discount as an amount, typed
 * amounts, and the stock badge / past-zero checks.
 */
import { describe, expect, it } from 'vitest';
import { catalogSnapshot, checkRegisterSale, buildRegisterSale, newId, type CatalogItem, type TaxRate } from '../../core/index.ts';
import { cartDiscount, cartReducer, parseAmount, priceCart, type CartLine } from '../../renderer/src/register/sale/cart.ts';
import { pastZero, stockState } from '../../renderer/src/register/sale/stock.ts';

const tax: TaxRate = { id: 'tax_sales', name: 'Sales tax', basisPoints: 1000, inclusive: false };
const item = (id: string, priceCents: number, stockOnHand?: number): CatalogItem => ({
  id: `itm_${id}`,
  name: id,
  category: 'Test',
  kind: 'product',
  taxRateIds: ['tax_sales'],
  variations: [
    { id: `var_${id}`, name: 'Regular', priceCents, trackStock: stockOnHand !== undefined, ...(stockOnHand !== undefined ? { stockOnHand } : {}) },
  ],
  modifierLists: [],
});
const catalog = catalogSnapshot([item('a', 1000, 3), item('b', 500, 0), item('c', 200, 40)], [tax]);
const add = (lines: CartLine[], id: string, quantity = 1) =>
  cartReducer(lines, {
    type: 'add',
    key: newId('orderLine'),
    quantity,
    line: { catalogItemId: `itm_${id}`, variationId: `var_${id}`, modifierIds: [] },
  });

describe('counter cart', () => {
  it('prices a line discount, a price override and a sale discount into a sale the server accepts', () => {
    let lines = add(add([], 'a', 2), 'c');
    const [a, c] = lines as [CartLine, CartLine];
    lines = cartReducer(lines, { type: 'setDiscount', key: a.key, discount: { id: newId('discount'), kind: 'percentage', basisPoints: 2500 } });
    lines = cartReducer(lines, {
      type: 'overridePrice',
      key: c.key,
      priceOverride: { unitPriceCents: 150, reason: 'Damaged box', approvedBy: 'stf_manager' },
    });
    const sale = cartDiscount('1.00', 'fixed');
    expect(sale).toMatchObject({ kind: 'fixed', amountCents: 100 });
    const { totals, discounts, invalidKeys } = priceCart(lines, catalog, sale && sale !== 'invalid' ? [sale] : []);
    expect(invalidKeys).toEqual([]);
    expect(totals.subtotalCents).toBe(2000 + 150);
    expect(totals.discountCents).toBe(500 + 100);
    expect(discounts.map((d) => d.lineId ?? 'sale')).toEqual([a.key, 'sale']);
    expect(totals.lines[1]).toMatchObject({ unitPriceCents: 150, priceOverride: { reason: 'Damaged box', approvedBy: 'stf_manager' } });
    const built = buildRegisterSale({
      registerId: 'reg_01J00000000000000000000000',
      registerNumber: 1,
      sequence: 1,
      currency: 'USD',
      createdAt: '2026-01-01T10:00:00.000Z',
      lines: totals.lines,
      discounts,
      payment: { method: 'cash', tenderedCents: 10_000 },
      catalog,
    });
    expect(built.order.totalCents).toBe(totals.totalCents);
    expect(checkRegisterSale(built.order).problems).toBeUndefined();
  });

  it('adds the same item to a new line when the existing line carries a discount or an override', () => {
    let lines = add([], 'a');
    lines = cartReducer(lines, { type: 'setDiscount', key: lines[0]!.key, discount: { id: newId('discount'), kind: 'fixed', amountCents: 100 } });
    lines = add(lines, 'a');
    expect(lines.map((l) => [l.quantity, l.discount?.kind ?? null])).toEqual([
      [1, 'fixed'],
      [1, null],
    ]);
    lines = cartReducer(lines, { type: 'setDiscount', key: lines[0]!.key, discount: undefined });
    expect(lines[0]!.discount).toBeUndefined();
  });

  it('reads typed amounts', () => {
    expect(['5', '5.5', '$5.50', '', 'abc', '1.234', '-1'].map(parseAmount)).toEqual([500, 550, 550, undefined, 'invalid', 'invalid', 'invalid']);
    expect(cartDiscount('abc', 'fixed')).toBe('invalid');
    expect(cartDiscount('0', 'fixed')).toBeUndefined();
  });

  it('shows low and out of stock, and finds a cart past zero', () => {
    expect(stockState(catalog.items.get('itm_a')!)).toEqual({ state: 'low', units: 3 });
    expect(stockState(catalog.items.get('itm_b')!)).toEqual({ state: 'out', units: 0 });
    expect(stockState(catalog.items.get('itm_c')!)).toBeUndefined();
    const lines = add(add([], 'a', 3), 'b');
    expect(pastZero(lines, catalog.items, 'var_a')).toBeUndefined();
    expect(pastZero(add(lines, 'a'), catalog.items, 'var_a')).toEqual({ name: 'a', inStock: 3, wanted: 4 });
    expect(pastZero(lines, catalog.items, 'var_b')).toEqual({ name: 'b', inStock: 0, wanted: 1 });
  });
});
