/**
 * The cart: catalog references only (item, variation, modifiers, quantity). Prices are always computed from the
 * catalog with core's priceLine/computeOrderTotals, so what the cashier sees is what the sale records and what the
 * server recomputes.
 */
import {
  computeOrderTotals,
  newId,
  priceLine,
  PricingError,
  type CatalogSnapshot,
  type Discount,
  type LineItemInput,
  type OrderLine,
  type OrderTotals,
} from '../../../../core/index.ts';

export interface CartLine {
  /** Stable key of the line in the cart (also its order line id once sold). */
  key: string;
  catalogItemId: string;
  variationId: string;
  modifierIds: string[];
  quantity: number;
}

export type CartAction =
  | { type: 'add'; line: Omit<CartLine, 'key' | 'quantity'>; quantity?: number; key: string }
  | { type: 'setQuantity'; key: string; quantity: number }
  | { type: 'remove'; key: string }
  | { type: 'clear' };

const sameChoice = (a: Omit<CartLine, 'key' | 'quantity'>, b: Omit<CartLine, 'key' | 'quantity'>) =>
  a.catalogItemId === b.catalogItemId &&
  a.variationId === b.variationId &&
  [...a.modifierIds].sort().join(',') === [...b.modifierIds].sort().join(',');

export const MAX_LINE_QUANTITY = 9999;

/** Adding the same item with the same choices again raises that line's quantity instead of adding a line. */
export function cartReducer(lines: CartLine[], action: CartAction): CartLine[] {
  switch (action.type) {
    case 'add': {
      const quantity = action.quantity ?? 1;
      const existing = lines.find((l) => sameChoice(l, action.line));
      if (existing) {
        return lines.map((l) => (l === existing ? { ...l, quantity: Math.min(MAX_LINE_QUANTITY, l.quantity + quantity) } : l));
      }
      return [...lines, { ...action.line, key: action.key, quantity }];
    }
    case 'setQuantity':
      if (action.quantity < 1) return lines.filter((l) => l.key !== action.key);
      return lines.map((l) => (l.key === action.key ? { ...l, quantity: Math.min(MAX_LINE_QUANTITY, action.quantity) } : l));
    case 'remove':
      return lines.filter((l) => l.key !== action.key);
    case 'clear':
      return [];
  }
}

export function toLineInput(line: CartLine): LineItemInput {
  return { catalogItemId: line.catalogItemId, variationId: line.variationId, modifierIds: line.modifierIds, quantity: line.quantity };
}

export interface PricedCart {
  totals: OrderTotals;
  /** Cart lines whose item vanished from the catalog or whose choices are no longer valid. */
  invalidKeys: string[];
}

/**
 * The cart's discount as the cashier types it: a percentage (0 … 100, at most two decimals) → a core percentage
 * discount in basis points; `undefined` for none (empty or 0), `'invalid'` when it is not such a percentage.
 */
export function cartDiscount(percentText: string): Discount | undefined | 'invalid' {
  const text = percentText.trim().replace(/\s*%$/, '');
  if (text === '') return undefined;
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(text)) return 'invalid';
  const basisPoints = Math.round(Number(text) * 100);
  if (basisPoints > 10_000) return 'invalid';
  if (basisPoints === 0) return undefined;
  return { id: newId('discount'), name: `Discount ${text} %`, kind: 'percentage', basisPoints };
}

/**
 * Prices the cart with the current catalog (and the cart's `discounts`, core order discounts); lines that no longer
 * price are reported, not thrown — so are lines that would take the sale above core's MAX_AMOUNT_CENTS (PricingError
 * `amount_out_of_range`), from the first that does.
 */
export function priceCart(lines: readonly CartLine[], catalog: CatalogSnapshot, discounts: readonly Discount[] = []): PricedCart {
  const priced: OrderLine[] = [];
  const invalidKeys: string[] = [];
  for (const line of lines) {
    try {
      priced.push(priceLine(toLineInput(line), catalog, 'line', line.key));
    } catch {
      invalidKeys.push(line.key);
    }
  }
  try {
    return { totals: computeOrderTotals(priced, discounts), invalidKeys };
  } catch (err) {
    if (!(err instanceof PricingError)) throw err;
  }
  // Over the amount bound: keep the lines in cart order while the sale still prices.
  const kept: OrderLine[] = [];
  for (const line of priced) {
    try {
      computeOrderTotals([...kept, line], []);
      kept.push(line);
    } catch (err) {
      if (!(err instanceof PricingError)) throw err;
      invalidKeys.push(line.id);
    }
  }
  return { totals: computeOrderTotals(kept, discounts), invalidKeys };
}
