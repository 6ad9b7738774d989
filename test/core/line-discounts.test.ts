/**
 * Register line discounts: a discount naming a `lineId` applies to that line only, before the sale's
 * discounts; the figures stay exact and the server-side checks (verifyOrderTotals / checkRegisterSale) see them.
 */
import { describe, expect, it } from 'vitest';
import {
  buildRegisterSale,
  catalogSnapshot,
  checkRegisterSale,
  computeOrderTotals,
  discountSchema,
  priceLine,
  PricingError,
  type CatalogItem,
  type Discount,
  type TaxRate,
} from '../../core/index.ts';

const salesTax: TaxRate = { id: 'tax_sales', name: 'Sales tax', basisPoints: 1000, inclusive: false };
const item = (id: string, priceCents: number): CatalogItem => ({
  id: `itm_${id}`,
  name: id,
  category: 'Test',
  kind: 'product',
  variations: [{ id: `var_${id}`, name: 'Regular', priceCents, trackStock: false }],
  modifierLists: [],
  taxRateIds: ['tax_sales'],
});
const catalog = catalogSnapshot([item('a', 1000), item('b', 3000)], [salesTax]);
const LINE_A = 'lin_01J00000000000000000000001';
const LINE_B = 'lin_01J00000000000000000000002';
const lines = () => [
  priceLine({ catalogItemId: 'itm_a', variationId: 'var_a', quantity: 2 }, catalog, 'line', LINE_A),
  priceLine({ catalogItemId: 'itm_b', variationId: 'var_b', quantity: 1 }, catalog, 'line', LINE_B),
];
const pct = (n: number, basisPoints: number, lineId?: string): Discount => ({
  id: `dsc_01J0000000000000000000000${n}`,
  name: 'pct',
  kind: 'percentage',
  basisPoints,
  ...(lineId ? { lineId } : {}),
});
const fixed = (n: number, amountCents: number, lineId?: string): Discount => ({
  id: `dsc_01J0000000000000000000000${n}`,
  name: 'fixed',
  kind: 'fixed',
  amountCents,
  ...(lineId ? { lineId } : {}),
});

describe('line discounts', () => {
  it('a percentage on one line takes only from that line', () => {
    const t = computeOrderTotals(lines(), [pct(1, 2500, LINE_A)]);
    expect(t.lines.map((l) => l.discountCents)).toEqual([500, 0]);
    expect(t.discountCents).toBe(500);
    expect(t.taxCents).toBe(450); // 10 % of 1500 + 3000
    expect(t.totalCents).toBe(5000 - 500 + 450);
  });

  it('a fixed amount is capped at the line; then the sale discount shares what remains pro rata', () => {
    const t = computeOrderTotals(lines(), [fixed(1, 5000, LINE_A), pct(2, 1000)]);
    // line A fully off (2000), then 10 % of the remaining 3000 = 300, all on line B
    expect(t.lines.map((l) => l.discountCents)).toEqual([2000, 300]);
    expect(t.lines.map((l) => l.netCents)).toEqual([0, 2700]);
    expect(t.discountCents).toBe(2300);
    expect(t.totalCents).toBe(2700 + 270);
  });

  it('line and sale discounts in amount and percent together', () => {
    const t = computeOrderTotals(lines(), [pct(1, 1000, LINE_B), fixed(2, 100, LINE_A), fixed(3, 500)]);
    // A: 2000 − 100 = 1900; B: 3000 − 300 = 2700; sale 500 over 4600 pro rata: 1900/4600 × 500 = 206.5 → 207 / 293 (largest remainder)
    expect(t.discountCents).toBe(100 + 300 + 500);
    expect(t.lines.reduce((a, l) => a + l.discountCents, 0)).toBe(900);
    expect(t.lines.map((l) => l.netCents).reduce((a, b) => a + b, 0)).toBe(5000 - 900);
  });

  it('without line discounts the result is what it always was', () => {
    const before = computeOrderTotals(lines(), [pct(1, 1250), fixed(2, 333)]);
    // 12.5 % of 5000 = 625, then 333: 958 allocated by gross 2000 : 3000 → 383.2 / 574.8 → 383 / 575
    expect(before.discountCents).toBe(625 + 333);
    expect(before.lines.map((l) => l.discountCents)).toEqual([383, 575]);
  });

  it('a discount naming a line the order lacks is a PricingError on discounts.<k>.lineId', () => {
    expect(() => computeOrderTotals(lines(), [pct(1, 1000), pct(2, 1000, 'lin_01J00000000000000000000009')])).toThrow(
      expect.objectContaining({ code: 'unknown_line', path: 'discounts.1.lineId' }) as PricingError,
    );
  });

  it('the schema takes a lineId and refuses a malformed one', () => {
    expect(discountSchema.safeParse(pct(1, 1000, LINE_A)).success).toBe(true);
    expect(discountSchema.safeParse({ ...pct(1, 1000), lineId: 'nope' }).success).toBe(false);
  });

  it('a register sale with line and sale discounts passes the server check; a tampered share does not', () => {
    const sale = buildRegisterSale({
      registerId: 'reg_01J00000000000000000000000',
      registerNumber: 1,
      sequence: 1,
      currency: 'USD',
      createdAt: '2026-01-01T10:00:00.000Z',
      lines: lines(),
      discounts: [pct(1, 5000, LINE_A), fixed(2, 200)],
      payment: { method: 'cash', tenderedCents: 10_000 },
      catalog,
    });
    const check = checkRegisterSale(sale.order);
    expect(check.problems).toBeUndefined();
    const discountPosting = ('journalTransaction' in check ? check.journalTransaction : null)?.postings.find((p) => p.accountCode === 'discounts');
    expect(discountPosting?.amountCents).toBe(1000 + 200);
    const tampered = {
      ...sale.order,
      lines: sale.order.lines.map((l, i) => (i === 0 ? { ...l, discountCents: l.discountCents - 1, netCents: l.netCents + 1 } : l)),
    };
    expect(checkRegisterSale(tampered).problems?.map((p) => p.path)).toContain('lines.0.discountCents');
    const orphan = { ...sale.order, discounts: [pct(1, 5000, 'lin_01J00000000000000000000009')] };
    expect(checkRegisterSale(orphan).problems?.map((p) => p.path)).toEqual(['discounts.0.lineId']);
  });
});
