/**
 * The cart: catalog references only (item, variation, modifiers, quantity). Prices are always computed from the
 * catalog with core's priceLine/computeOrderTotals, so what the cashier sees is what the sale records and what the
 * server recomputes.
 */
import {
  computeOrderTotals,
  multiplyCents,
  newId,
  priceLine,
  PricingError,
  type CatalogSnapshot,
  type Discount,
  type LineItemInput,
  type OrderLine,
  type OrderTotals,
} from '../../../../core/index.ts';

/**
 * A line discount as the cashier set it: a percentage in basis points or an amount in minor units off
 * this line; `id` becomes the core discount's id (`dsc_…`), which names the line by its key (`lineId`).
 */
export type LineDiscount = { id: string; kind: 'percentage'; basisPoints: number } | { id: string; kind: 'fixed'; amountCents: number };

/** A unit price changed by staff, with the reason and the approving manager or owner (core `priceOverride`). */
export interface LinePriceOverride {
  unitPriceCents: number;
  reason: string;
  approvedBy: string;
}

export interface CartLine {
  /** Stable key of the line in the cart (also its order line id once sold). */
  key: string;
  catalogItemId: string;
  variationId: string;
  modifierIds: string[];
  quantity: number;
  discount?: LineDiscount;
  priceOverride?: LinePriceOverride;
}

type Choice = Pick<CartLine, 'catalogItemId' | 'variationId' | 'modifierIds'>;

export type CartAction =
  | { type: 'add'; line: Choice; quantity?: number; key: string }
  | { type: 'setQuantity'; key: string; quantity: number }
  | { type: 'setDiscount'; key: string; discount: LineDiscount | undefined }
  | { type: 'overridePrice'; key: string; priceOverride: LinePriceOverride | undefined }
  | { type: 'remove'; key: string }
  | { type: 'replace'; lines: CartLine[] }
  | { type: 'clear' };

const sameChoice = (a: Choice & Partial<CartLine>, b: Choice) =>
  a.discount === undefined &&
  a.priceOverride === undefined &&
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
    case 'setDiscount':
      return lines.map((l) => {
        if (l.key !== action.key) return l;
        const { discount: _, ...rest } = l;
        return action.discount ? { ...rest, discount: action.discount } : rest;
      });
    case 'overridePrice':
      return lines.map((l) => {
        if (l.key !== action.key) return l;
        const { priceOverride: _, ...rest } = l;
        return action.priceOverride ? { ...rest, priceOverride: action.priceOverride } : rest;
      });
    case 'remove':
      return lines.filter((l) => l.key !== action.key);
    case 'replace':
      return action.lines;
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
  /** Every discount of the sale: the priced lines' line discounts, then the sale's. */
  discounts: Discount[];
}

/**
 * The cart's discount as the cashier types it: a percentage (0 … 100, at most two decimals) → a core percentage
 * discount in basis points; `undefined` for none (empty or 0), `'invalid'` when it is not such a percentage.
 */
export function cartDiscount(percentText: string, kind: 'percentage' | 'fixed' = 'percentage'): Discount | undefined | 'invalid' {
  if (kind === 'fixed') {
    const cents = parseAmount(percentText);
    if (cents === 'invalid') return 'invalid';
    return cents === undefined || cents === 0
      ? undefined
      : { id: newId('discount'), name: `Discount ${formatCents(cents)}`, kind: 'fixed', amountCents: cents };
  }
  const text = percentText.trim().replace(/\s*%$/, '');
  if (text === '') return undefined;
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(text)) return 'invalid';
  const basisPoints = Math.round(Number(text) * 100);
  if (basisPoints > 10_000) return 'invalid';
  if (basisPoints === 0) return undefined;
  return { id: newId('discount'), name: `Discount ${text} %`, kind: 'percentage', basisPoints };
}

/**
 * An amount as typed ("5", "5.5", "5.50", "$5.50") → minor units (two decimals); `undefined` when empty, `'invalid'`
 * when it is not such an amount.
 */
export function parseAmount(text: string): number | undefined | 'invalid' {
  const t = text.trim().replace(/^\$\s*/, '');
  if (t === '') return undefined;
  if (!/^\d{1,9}(\.\d{1,2})?$/.test(t)) return 'invalid';
  const [whole = '0', fraction = ''] = t.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

const formatCents = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** The core discount of a cart line's discount: named after it, scoped to the line (`lineId` = the line's key). */
export function lineDiscountOf(line: CartLine): Discount | undefined {
  const d = line.discount;
  if (!d) return undefined;
  return d.kind === 'percentage'
    ? { id: d.id, name: `Line ${d.basisPoints / 100} %`, kind: 'percentage', basisPoints: d.basisPoints, lineId: line.key }
    : { id: d.id, name: `Line ${formatCents(d.amountCents)}`, kind: 'fixed', amountCents: d.amountCents, lineId: line.key };
}

/**
 * Prices one cart line: core's priceLine from the catalog, then its price override (unit price replaced, the reason
 * and approver recorded as core `priceOverride`). @throws PricingError as priceLine.
 */
export function priceCartLine(line: CartLine, catalog: CatalogSnapshot): OrderLine {
  const priced = priceLine(toLineInput(line), catalog, 'line', line.key);
  const o = line.priceOverride;
  if (!o) return priced;
  return {
    ...priced,
    unitPriceCents: o.unitPriceCents,
    grossCents: multiplyCents(o.unitPriceCents, priced.quantity),
    netCents: multiplyCents(o.unitPriceCents, priced.quantity),
    priceOverride: { reason: o.reason, approvedBy: o.approvedBy },
  };
}

/**
 * Prices the cart with the current catalog: each line (with its price override), its line discount, then the cart's
 * `discounts` (core order discounts); lines that no longer price are reported, not thrown — so are lines that would
 * take the sale above core's MAX_AMOUNT_CENTS (PricingError `amount_out_of_range`), from the first that does.
 * `discounts` of the result is every discount the sale records: the line discounts of the priced lines, then the
 * cart's.
 */
export function priceCart(lines: readonly CartLine[], catalog: CatalogSnapshot, saleDiscounts: readonly Discount[] = []): PricedCart {
  const priced: OrderLine[] = [];
  const invalidKeys: string[] = [];
  for (const line of lines) {
    try {
      priced.push(priceCartLine(line, catalog));
    } catch {
      invalidKeys.push(line.key);
    }
  }
  const discountsFor = (kept: readonly OrderLine[]) => {
    const ids = new Set(kept.map((l) => l.id));
    const own = lines.filter((l) => ids.has(l.key)).flatMap((l) => lineDiscountOf(l) ?? []);
    return [...own, ...saleDiscounts];
  };
  try {
    const discounts = discountsFor(priced);
    return { totals: computeOrderTotals(priced, discounts), invalidKeys, discounts };
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
  const discounts = discountsFor(kept);
  return { totals: computeOrderTotals(kept, discounts), invalidKeys, discounts };
}
