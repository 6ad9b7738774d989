import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  isZeroValueSale,
  buildRegisterSale,
  catalogSnapshot,
  checkRegisterSale,
  computeOrderTotals,
  divideHalfEven,
  isBalanced,
  journalTransactionSchema,
  orderSchema,
  postingsTotal,
  priceCart,
  priceLine,
  PricingError,
  verifyOrderTotals,
  type CatalogItem,
  type TaxRate,
} from '../../core/index.ts';
import { cartArb } from './arbitraries.ts';

const salesTax: TaxRate = { id: 'tax_sales', name: 'Sales tax', basisPoints: 875, inclusive: false };
const vat: TaxRate = { id: 'tax_vat', name: 'VAT', basisPoints: 2000, inclusive: true };
const latte: CatalogItem = {
  id: 'itm_latte',
  name: 'Latte',
  category: 'Coffee',
  kind: 'product',
  variations: [{ id: 'var_latte', name: 'Regular', priceCents: 450, trackStock: false }],
  modifierLists: [
    {
      id: 'mdl_size',
      name: 'Size',
      minSelected: 1,
      maxSelected: 1,
      modifiers: [
        { id: 'mod_small', name: 'Small', priceCents: 0 },
        { id: 'mod_large', name: 'Large', priceCents: 100 },
      ],
    },
    {
      id: 'mdl_extras',
      name: 'Extras',
      minSelected: 0,
      maxSelected: 2,
      modifiers: [
        { id: 'mod_oat', name: 'Oat milk', priceCents: 70 },
        { id: 'mod_shot', name: 'Extra shot', priceCents: 90 },
        { id: 'mod_vanilla', name: 'Vanilla', priceCents: 60 },
      ],
    },
  ],
  taxRateIds: ['tax_sales'],
};
const haircut: CatalogItem = {
  id: 'itm_haircut',
  name: 'Haircut',
  category: 'Salon',
  kind: 'service',
  variations: [{ id: 'var_haircut', name: 'Standard', priceCents: 3500, trackStock: false }],
  modifierLists: [],
  taxRateIds: ['tax_vat'],
};
const catalog = catalogSnapshot([latte, haircut], [salesTax, vat]);

describe('priceLine', () => {
  it('adds modifier prices to the variation price and multiplies by quantity', () => {
    const line = priceLine({ catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_large', 'mod_oat'], quantity: 2 }, catalog);
    expect(line.unitPriceCents).toBe(620);
    expect(line.grossCents).toBe(1240);
    expect(line.modifiers.map((m) => m.name)).toEqual(['Large', 'Oat milk']);
    expect(line.taxes).toEqual([{ taxRateId: 'tax_sales', name: 'Sales tax', basisPoints: 875, inclusive: false }]);
  });

  it.each([
    [{ catalogItemId: 'itm_nope', variationId: 'var_latte', modifierIds: [], quantity: 1 }, 'unknown_item', 'line.catalogItemId'],
    [{ catalogItemId: 'itm_latte', variationId: 'var_haircut', modifierIds: ['mod_small'], quantity: 1 }, 'unknown_variation', 'line.variationId'],
    [{ catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: [], quantity: 1 }, 'modifier_choice', 'line.modifierIds'],
    [
      { catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_small', 'mod_large'], quantity: 1 },
      'modifier_choice',
      'line.modifierIds',
    ],
    [
      { catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_small', 'mod_oat', 'mod_shot', 'mod_vanilla'], quantity: 1 },
      'modifier_choice',
      'line.modifierIds',
    ],
    [
      { catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_small', 'mod_zzz'], quantity: 1 },
      'unknown_modifier',
      'line.modifierIds.1',
    ],
    [{ catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_small'], quantity: 0 }, 'invalid_quantity', 'line.quantity'],
  ])('refuses %j with %s at %s', (input, code, path) => {
    try {
      priceLine(input, catalog);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PricingError);
      expect((err as PricingError).code).toBe(code);
      expect((err as PricingError).path).toBe(path);
    }
  });
});

describe('computeOrderTotals', () => {
  it('rounds each tax line half-even on exclusive tax', () => {
    // 2 × Small latte = 900; 8.75 % of 900 = 78.75 → 79
    const totals = priceCart([{ catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_small'], quantity: 2 }], [], catalog);
    expect(totals.subtotalCents).toBe(900);
    expect(totals.taxLines).toEqual([
      { taxRateId: 'tax_sales', name: 'Sales tax', basisPoints: 875, inclusive: false, taxableCents: 900, taxCents: 79 },
    ]);
    expect(totals.totalCents).toBe(979);
  });

  it('extracts inclusive tax from the price without adding it to the total', () => {
    // 3500 incl. 20 %: 3500 × 2000 / 12000 = 583.33 → 583
    const totals = priceCart([{ catalogItemId: 'itm_haircut', variationId: 'var_haircut', quantity: 1 }], [], catalog);
    expect(totals.taxCents).toBe(583);
    expect(totals.inclusiveTaxCents).toBe(583);
    expect(totals.totalCents).toBe(3500);
  });

  it('applies discounts before tax and allocates them to lines', () => {
    const totals = priceCart(
      [
        { catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_small'], quantity: 1 },
        { catalogItemId: 'itm_haircut', variationId: 'var_haircut', quantity: 1 },
      ],
      [{ id: 'dsc_01J00000000000000000000000', name: '10 % off', kind: 'percentage', basisPoints: 1000 }],
      catalog,
    );
    expect(totals.subtotalCents).toBe(3950);
    expect(totals.discountCents).toBe(395);
    expect(totals.lines.map((l) => l.discountCents)).toEqual([45, 350]);
    // latte net 405 × 8.75 % = 35.4375 → 35; haircut net 3150 × 2000/12000 = 525
    expect(totals.taxLines.map((t) => t.taxCents)).toEqual([35, 525]);
    expect(totals.totalCents).toBe(3950 - 395 + 35);
  });

  it('keeps every figure consistent over random carts (property)', () => {
    fc.assert(
      fc.property(cartArb, ({ catalog: c, lines, discounts }) => {
        const t = priceCart(lines, discounts, c.snapshot);
        const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
        expect(t.subtotalCents).toBe(sum(t.lines.map((l) => l.grossCents)));
        expect(t.discountCents).toBe(sum(t.lines.map((l) => l.discountCents)));
        expect(t.discountCents).toBeLessThanOrEqual(t.subtotalCents);
        expect(sum(t.lines.map((l) => l.netCents))).toBe(t.subtotalCents - t.discountCents);
        expect(t.taxCents).toBe(sum(t.taxLines.map((x) => x.taxCents)));
        expect(t.taxCents).toBe(sum(t.lines.map((l) => l.taxCents)));
        for (const x of t.taxLines) {
          const expected = x.inclusive
            ? divideHalfEven(x.taxableCents * x.basisPoints, 10_000 + x.basisPoints)
            : divideHalfEven(x.taxableCents * x.basisPoints, 10_000);
          expect(x.taxCents).toBe(expected);
        }
        expect(t.totalCents).toBe(t.subtotalCents - t.discountCents + t.taxCents - t.inclusiveTaxCents);
        expect(t.totalCents).toBeGreaterThanOrEqual(0);
        for (const l of t.lines) expect(l.netCents).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('sale → journal transaction', () => {
  const base = { registerId: 'reg_1', registerNumber: 2, sequence: 123, currency: 'USD', createdAt: '2026-11-22T10:00:00.000Z' };

  it('posts a cash sale with change to the register drawer, revenue, tax and tips', () => {
    const { order, journalTransaction: jtOrNull } = buildRegisterSale({
      ...base,
      catalog,
      lines: [{ catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_large', 'mod_oat'], quantity: 1 }],
      payment: { method: 'cash', tenderedCents: 1000, tipCents: 100 },
    });
    const jt = jtOrNull!;
    expect(order.receiptNumber).toBe('R2-000123');
    expect(order.totalCents).toBe(620 + 54); // 620 × 8.75 % = 54.25 → 54
    expect(order.tenders[0]).toMatchObject({ method: 'cash', amountCents: 774, tenderedCents: 1000, changeCents: 226, tipCents: 100 });
    expect(jt.postings).toEqual([
      { accountCode: 'cash_drawer:R2', amountCents: 774 },
      { accountCode: 'sales_revenue', amountCents: -620 },
      { accountCode: 'sales_tax_payable', amountCents: -54 },
      { accountCode: 'tips_payable', amountCents: -100 },
    ]);
    expect(jt.id).toBe(order.journalTransactionId);
  });

  it('refuses cash that does not cover the total', () => {
    expect(() =>
      buildRegisterSale({
        ...base,
        catalog,
        lines: [{ catalogItemId: 'itm_haircut', variationId: 'var_haircut', quantity: 1 }],
        payment: { method: 'cash', tenderedCents: 3499 },
      }),
    ).toThrow(RangeError);
  });

  it('balances every journal transaction and passes the server checks over random carts (property)', () => {
    fc.assert(
      fc.property(cartArb, ({ catalog: c, lines, discounts, tipCents, extraCash, method }) => {
        const probe = priceCart(lines, discounts, c.snapshot);
        const payment =
          method === 'cash'
            ? { method, tipCents, tenderedCents: probe.totalCents + tipCents + extraCash }
            : { method, tipCents, cardBrand: 'visa', last4: '4242' };
        const { order, journalTransaction } = buildRegisterSale({ ...base, catalog: c.snapshot, lines, discounts, payment });
        expect(orderSchema.parse(order)).toEqual(order);
        if (journalTransaction === null) {
          // A cart that moves no money (free items, no discount, no tip): no tender, nothing to post, and the server's
          // check agrees (core/ledger.ts isZeroValueSale).
          expect(isZeroValueSale(order)).toBe(true);
          expect(order).toMatchObject({ totalCents: 0, tipCents: 0, discountCents: 0, tenders: [], journalTransactionId: null });
          expect(checkRegisterSale(order)).toEqual({ journalTransaction: null });
          return;
        }
        expect(journalTransactionSchema.parse(journalTransaction)).toEqual(journalTransaction);
        expect(postingsTotal(journalTransaction.postings)).toBe(0);
        expect(isBalanced(journalTransaction.postings)).toBe(true);
        const debits = journalTransaction.postings.filter((p) => p.amountCents > 0).reduce((a, p) => a + p.amountCents, 0);
        expect(debits).toBe(order.totalCents + order.tipCents + order.discountCents);
        expect(verifyOrderTotals(order)).toEqual([]);
        const checked = checkRegisterSale(order);
        expect(checked.problems).toBeUndefined();
        expect(checked).toEqual({ journalTransaction });
        expect(computeOrderTotals(order.lines, order.discounts).totalCents).toBe(order.totalCents);
      }),
      { numRuns: 300 },
    );
  });

  it('detects a tampered total, line or tender', () => {
    const { order } = buildRegisterSale({
      ...base,
      catalog,
      lines: [{ catalogItemId: 'itm_latte', variationId: 'var_latte', modifierIds: ['mod_small'], quantity: 2 }],
      payment: { method: 'cash', tenderedCents: 2000 },
    });
    expect(verifyOrderTotals({ ...order, totalCents: order.totalCents - 1 }).map((p) => p.path)).toContain('totalCents');
    const cheaper = { ...order, lines: order.lines.map((l) => ({ ...l, grossCents: l.grossCents - 100 })) };
    expect(verifyOrderTotals(cheaper).map((p) => p.path)).toContain('lines.0.grossCents');
    const underpaid = { ...order, tenders: order.tenders.map((t) => ({ ...t, amountCents: t.amountCents - 1 })) };
    expect(checkRegisterSale(underpaid).problems?.length).toBeGreaterThan(0);
  });
});
