/**
 * Catalog pricing and order totals. Pure functions over catalog snapshots; the register and the
 * server run the same code, so a total computed offline is the total the server recomputes on push.
 *
 * Rules:
 * - a line's unit price = variation price + the chosen modifiers' prices; gross = unit × quantity;
 * - line discounts (a discount naming a `lineId`) apply first, in order, each to its line's remaining
 *   amount (a percentage of it, or a fixed amount capped at it);
 * - order discounts (percentage in basis points, or fixed) then apply in order to the remaining subtotal and are
 *   allocated to lines pro rata by their amount after line discounts (largest remainder), before tax;
 * - tax is computed once per tax rate over the sum of the net amounts of the lines carrying it (one "tax line"),
 *   rounded half-even: exclusive → base × bp / 10 000; inclusive → base × bp / (10 000 + bp);
 * - an item's tax rates are either all exclusive, or one inclusive rate;
 * - total = subtotal − discounts + exclusive tax (inclusive tax is already inside the prices);
 * - every product (unit × quantity, amount × basis points) is exact: integers through BigInt, rounded once
 *   (docs/decisions/0001-money-and-tax.md), never a float product rounded afterwards;
 * - a unit price, a line, the subtotal and the total are each at most MAX_AMOUNT_CENTS, else
 *   PricingError `amount_out_of_range`: the bound every order schema holds, so what pricing returns is schema-valid.
 */
import { allocateProRata, MAX_AMOUNT_CENTS, mulDivHalfEven, multiplyCents, sumCents, type Cents } from './money.ts';
import { newId } from './ids.ts';
import type { CatalogItem, Discount, LineItemInput, LineTax, OrderLine, TaxLine, TaxRate } from './schemas.ts';

/** Why a line could not be priced; `path` names the offending input field (e.g. `lines.0.modifierIds`). */
export class PricingError extends Error {
  override name = 'PricingError';
  constructor(
    readonly code:
      | 'unknown_item'
      | 'unknown_variation'
      | 'unknown_modifier'
      | 'modifier_choice'
      | 'unknown_tax_rate'
      | 'tax_configuration'
      | 'invalid_quantity'
      | 'unknown_line'
      | 'amount_out_of_range',
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/** What pricing needs to know of the catalog: items and tax rates by id. */
export interface CatalogSnapshot {
  items: ReadonlyMap<string, CatalogItem>;
  taxRates: ReadonlyMap<string, TaxRate>;
}

/** Builds a CatalogSnapshot from arrays (convenience for callers holding lists). */
export function catalogSnapshot(items: Iterable<CatalogItem>, taxRates: Iterable<TaxRate>): CatalogSnapshot {
  return {
    items: new Map([...items].map((i) => [i.id, i])),
    taxRates: new Map([...taxRates].map((t) => [t.id, t])),
  };
}

/**
 * Prices one line from catalog references. Returns an OrderLine whose discount and tax shares are still zero —
 * {@link computeOrderTotals} fills them.
 * @throws PricingError with `path` prefixed by `pathPrefix` when a reference is unknown, modifier choices break a
 *   list's min/max, or the item's tax set mixes inclusive and exclusive rates.
 */
export function priceLine(input: LineItemInput, catalog: CatalogSnapshot, pathPrefix = 'line', lineId?: string): OrderLine {
  const item = catalog.items.get(input.catalogItemId);
  if (!item) throw new PricingError('unknown_item', `catalog item ${input.catalogItemId} does not exist`, `${pathPrefix}.catalogItemId`);
  const variation = item.variations.find((v) => v.id === input.variationId);
  if (!variation) {
    throw new PricingError('unknown_variation', `variation ${input.variationId} is not a variation of ${item.id}`, `${pathPrefix}.variationId`);
  }
  if (!Number.isInteger(input.quantity) || input.quantity < 1) {
    throw new PricingError('invalid_quantity', 'quantity must be a positive integer', `${pathPrefix}.quantity`);
  }
  const modifierIds = input.modifierIds ?? [];
  if (new Set(modifierIds).size !== modifierIds.length) {
    throw new PricingError('modifier_choice', 'a modifier may be chosen once per line', `${pathPrefix}.modifierIds`);
  }
  const chosen = [];
  for (const [i, modifierId] of modifierIds.entries()) {
    const found = item.modifierLists.flatMap((l) => l.modifiers).find((m) => m.id === modifierId);
    if (!found)
      throw new PricingError('unknown_modifier', `modifier ${modifierId} is not offered for ${item.name}`, `${pathPrefix}.modifierIds.${i}`);
    chosen.push(found);
  }
  for (const list of item.modifierLists) {
    const count = list.modifiers.filter((m) => modifierIds.includes(m.id)).length;
    if (count < list.minSelected || count > list.maxSelected) {
      const want = list.minSelected === list.maxSelected ? `${list.minSelected}` : `${list.minSelected}–${list.maxSelected}`;
      throw new PricingError('modifier_choice', `${list.name}: choose ${want}, got ${count}`, `${pathPrefix}.modifierIds`);
    }
  }
  const taxes: LineTax[] = item.taxRateIds.map((taxRateId, i) => {
    const rate = catalog.taxRates.get(taxRateId);
    if (!rate) throw new PricingError('unknown_tax_rate', `tax rate ${taxRateId} does not exist`, `${pathPrefix}.taxRateIds.${i}`);
    return { taxRateId: rate.id, name: rate.name, basisPoints: rate.basisPoints, inclusive: rate.inclusive };
  });
  assertTaxSet(taxes, pathPrefix);
  const unitPriceCents = sumCents([variation.priceCents, ...chosen.map((m) => m.priceCents)]);
  if (unitPriceCents > MAX_AMOUNT_CENTS) {
    throw new PricingError(
      'amount_out_of_range',
      `the unit price with its modifiers is ${unitPriceCents}; at most ${MAX_AMOUNT_CENTS}`,
      `${pathPrefix}.modifierIds`,
    );
  }
  const grossCents = multiplyCents(unitPriceCents, input.quantity);
  if (grossCents > MAX_AMOUNT_CENTS) {
    throw new PricingError('amount_out_of_range', `the line comes to ${grossCents}; at most ${MAX_AMOUNT_CENTS}`, `${pathPrefix}.quantity`);
  }
  return {
    id: lineId ?? newId('orderLine'),
    catalogItemId: item.id,
    variationId: variation.id,
    kind: item.kind,
    name: item.variations.length > 1 ? `${item.name} (${variation.name})` : item.name,
    variationName: variation.name,
    modifiers: chosen.map((m) => ({ id: m.id, name: m.name, priceCents: m.priceCents })),
    quantity: input.quantity,
    unitPriceCents,
    grossCents,
    discountCents: 0,
    netCents: grossCents,
    taxCents: 0,
    taxes,
  };
}

function assertTaxSet(taxes: readonly LineTax[], pathPrefix: string): void {
  const inclusive = taxes.filter((t) => t.inclusive).length;
  if (inclusive > 1 || (inclusive === 1 && taxes.length > 1)) {
    throw new PricingError('tax_configuration', 'an item carries either exclusive tax rates or a single inclusive one', `${pathPrefix}.taxes`);
  }
}

/** Totals of an order, all in minor units. */
export interface OrderTotals {
  lines: OrderLine[];
  taxLines: TaxLine[];
  subtotalCents: Cents;
  discountCents: Cents;
  taxCents: Cents;
  /** Of `taxCents`, the part already inside the prices. */
  inclusiveTaxCents: Cents;
  totalCents: Cents;
}

/**
 * Computes discounts (line discounts, then sale discounts), tax lines and totals for priced lines. Lines come back with their `discountCents`, `netCents`
 * and `taxCents` shares filled in (shares add up exactly to the order figures). Products are exact (BigInt) and
 * rounded half-even once per discount and tax line.
 * @throws PricingError when a line's tax set is invalid (`lines.<i>.taxes`), `unknown_line` when a discount names a
 *   line the order does not have (`discounts.<k>.lineId`), or `amount_out_of_range` when a line
 *   (`lines.<i>.quantity`), the subtotal or the total (`lines`) exceeds MAX_AMOUNT_CENTS.
 */
export function computeOrderTotals(lines: readonly OrderLine[], discounts: readonly Discount[]): OrderTotals {
  const grosses = lines.map((l, i) => {
    const gross = multiplyCents(l.unitPriceCents, l.quantity);
    if (gross > MAX_AMOUNT_CENTS)
      throw new PricingError('amount_out_of_range', `the line comes to ${gross}; at most ${MAX_AMOUNT_CENTS}`, `lines.${i}.quantity`);
    return gross;
  });
  const subtotalCents = sumCents(grosses);
  if (subtotalCents > MAX_AMOUNT_CENTS) {
    throw new PricingError('amount_out_of_range', `the lines come to ${subtotalCents}; an order is at most ${MAX_AMOUNT_CENTS}`, 'lines');
  }

  // Line discounts first, each on its own line's remaining amount.
  const lineIndex = new Map(lines.map((l, i) => [l.id, i]));
  const ownDiscounts = grosses.map(() => 0);
  for (const [k, d] of discounts.entries()) {
    if (d.lineId === undefined) continue;
    const i = lineIndex.get(d.lineId);
    if (i === undefined)
      throw new PricingError('unknown_line', `discount ${d.id} names line ${d.lineId}, which is not a line of the order`, `discounts.${k}.lineId`);
    const left = (grosses[i] ?? 0) - (ownDiscounts[i] ?? 0);
    ownDiscounts[i] =
      (ownDiscounts[i] ?? 0) + (d.kind === 'percentage' ? mulDivHalfEven(left, d.basisPoints, 10_000) : Math.min(d.amountCents, left));
  }
  const afterLineDiscounts = grosses.map((g, i) => g - (ownDiscounts[i] ?? 0));
  // Then the sale's discounts on what remains, allocated pro rata (by gross when no line carries a discount).
  let remaining = sumCents(afterLineDiscounts);
  let saleDiscountCents = 0;
  for (const d of discounts) {
    if (d.lineId !== undefined) continue;
    const amount = d.kind === 'percentage' ? mulDivHalfEven(remaining, d.basisPoints, 10_000) : Math.min(d.amountCents, remaining);
    saleDiscountCents += amount;
    remaining -= amount;
  }
  const saleShares = allocateProRata(saleDiscountCents, afterLineDiscounts);
  const lineDiscounts = grosses.map((_, i) => (ownDiscounts[i] ?? 0) + (saleShares[i] ?? 0));
  const discountCents = sumCents(lineDiscounts);
  const nets = grosses.map((g, i) => g - (lineDiscounts[i] ?? 0));

  const rateOrder: LineTax[] = [];
  for (const [i, line] of lines.entries()) {
    assertTaxSet(line.taxes, `lines.${i}`);
    for (const t of line.taxes) if (!rateOrder.some((r) => r.taxRateId === t.taxRateId)) rateOrder.push(t);
  }
  const lineTaxes = lines.map(() => 0);
  const taxLines: TaxLine[] = rateOrder.map((rate) => {
    const carriers = lines.map((l) => l.taxes.some((t) => t.taxRateId === rate.taxRateId));
    const taxableCents = sumCents(nets.filter((_, i) => carriers[i]));
    const taxCents = rate.inclusive
      ? mulDivHalfEven(taxableCents, rate.basisPoints, 10_000 + rate.basisPoints)
      : mulDivHalfEven(taxableCents, rate.basisPoints, 10_000);
    const shares = allocateProRata(
      taxCents,
      nets.map((n, i) => (carriers[i] ? n : 0)),
    );
    shares.forEach((s, i) => (lineTaxes[i] = (lineTaxes[i] ?? 0) + s));
    return { ...rate, taxableCents, taxCents };
  });

  const taxCents = sumCents(taxLines.map((t) => t.taxCents));
  const inclusiveTaxCents = sumCents(taxLines.filter((t) => t.inclusive).map((t) => t.taxCents));
  const totalCents = subtotalCents - discountCents + (taxCents - inclusiveTaxCents);
  if (totalCents > MAX_AMOUNT_CENTS) {
    throw new PricingError('amount_out_of_range', `the order comes to ${totalCents} with tax; at most ${MAX_AMOUNT_CENTS}`, 'lines');
  }
  return {
    lines: lines.map((l, i) => ({
      ...l,
      grossCents: grosses[i] ?? 0,
      discountCents: lineDiscounts[i] ?? 0,
      netCents: nets[i] ?? 0,
      taxCents: lineTaxes[i] ?? 0,
    })),
    taxLines,
    subtotalCents,
    discountCents,
    taxCents,
    inclusiveTaxCents,
    totalCents,
  };
}

/**
 * Prices a whole cart from catalog references: {@link priceLine} for each line, then {@link computeOrderTotals}.
 * @throws PricingError naming `lines.<i>.<field>`.
 */
export function priceCart(inputs: readonly LineItemInput[], discounts: readonly Discount[], catalog: CatalogSnapshot): OrderTotals {
  const lines = inputs.map((input, i) => priceLine(input, catalog, `lines.${i}`));
  return computeOrderTotals(lines, discounts);
}

/** Result of a cash tender: what is applied to the order and the change to hand back. */
export interface CashTenderResult {
  amountCents: Cents;
  changeCents: Cents;
}

/**
 * Applies cash: the customer hands `tenderedCents` for `dueCents`.
 * @throws RangeError when the cash handed over is less than what is due.
 */
export function applyCashTender(dueCents: Cents, tenderedCents: Cents): CashTenderResult {
  if (tenderedCents < dueCents) throw new RangeError(`cash tendered ${tenderedCents} is less than ${dueCents} due`);
  return { amountCents: dueCents, changeCents: tenderedCents - dueCents };
}
