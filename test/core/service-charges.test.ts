import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addServiceCharges,
  buildJournalTransaction,
  computeOrderTotals,
  newId,
  saleCreditPostings,
  ServiceChargeError,
  splitCheck,
  type Discount,
  type LineTax,
  type OrderLine,
  type SplitPlan,
} from '../../core/index.ts';

/**
 * Service charge and automatic gratuity (core/service-charges.ts): added to a check's totals as lines, they split with
 * the check so that every part still balances as a sale and the parts add up to the whole, to the cent.
 */

const tax = (bp: number, inclusive: boolean, k: number): LineTax => ({
  taxRateId: `tax_${inclusive ? 'inc' : 'ex'}${k}_${bp}`,
  name: `T${k}`,
  basisPoints: bp,
  inclusive,
});

function dish(unit: number, quantity: number, taxes: LineTax[], i: number): OrderLine {
  return {
    id: newId('orderLine'),
    catalogItemId: `itm_${i}`,
    variationId: `var_${i}`,
    kind: 'product',
    name: `Dish ${i}`,
    variationName: 'Regular',
    modifiers: [],
    quantity,
    unitPriceCents: unit,
    grossCents: unit * quantity,
    discountCents: 0,
    netCents: unit * quantity,
    taxCents: 0,
    taxes,
  };
}

const ids = () => ({ serviceCharge: newId('orderLine'), gratuity: newId('orderLine') });

describe('a party of eight with an 18 % gratuity from six guests', () => {
  const settings = {
    serviceChargeBasisPoints: 300,
    serviceChargeTaxable: false,
    gratuityBasisPoints: 1800,
    gratuityPartySize: 6,
    gratuityTaxable: true,
  };
  const food = tax(875, false, 0);

  it('adds a 3 % untaxed service charge and an 18 % taxed gratuity on the pre-tax net; a party of five pays no gratuity', () => {
    const totals = computeOrderTotals([dish(2500, 8, [food], 0)], []);
    expect(totals.totalCents).toBe(20_000 + 1750);
    const eight = addServiceCharges(totals, 8, settings, [food], ids());
    expect(eight.charges.map((c) => [c.name, c.grossCents, c.taxes.length])).toEqual([
      ['Service charge', 600, 0],
      ['Gratuity', 3600, 1],
    ]);
    // Tax: 8.75 % of 200.00 + 36.00 = 20.65.
    expect(eight.totals.taxCents).toBe(2065);
    expect(eight.totals.totalCents).toBe(20_000 + 600 + 3600 + 2065);
    const five = addServiceCharges(totals, 5, settings, [food], ids());
    expect(five.charges.map((c) => c.name)).toEqual(['Service charge']);
    expect(five.totals.totalCents).toBe(20_000 + 600 + 1750);
  });

  it('leaves the totals alone when neither charge applies, and refuses an inclusive rate on a charge', () => {
    const totals = computeOrderTotals([dish(1000, 1, [food], 0)], []);
    const none = addServiceCharges(totals, 2, { ...settings, serviceChargeBasisPoints: 0 }, [food], ids());
    expect(none).toEqual({ totals, charges: [] });
    expect(() => addServiceCharges(totals, 8, settings, [tax(2000, true, 1)], ids())).toThrow(ServiceChargeError);
  });
});

describe('splitting a check with its charges', () => {
  const taxArb = fc.record({ bp: fc.oneof(fc.integer({ min: 0, max: 2500 }), fc.integer({ min: 0, max: 100_000 })), inclusive: fc.boolean() });
  const checkArb = fc.record({
    lines: fc.array(
      fc.record({
        unit: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 200_000 })),
        quantity: fc.integer({ min: 1, max: 12 }),
        taxes: fc.array(taxArb, { maxLength: 2 }),
        seat: fc.option(fc.integer({ min: 1, max: 8 })),
        lineDiscountBp: fc.option(fc.integer({ min: 1, max: 10_000 })),
      }),
      { minLength: 1, maxLength: 10 },
    ),
    saleDiscountBp: fc.option(fc.integer({ min: 1, max: 5_000 })),
    guests: fc.integer({ min: 1, max: 20 }),
    settings: fc.record({
      serviceChargeBasisPoints: fc.integer({ min: 0, max: 10_000 }),
      serviceChargeTaxable: fc.boolean(),
      gratuityBasisPoints: fc.integer({ min: 0, max: 10_000 }),
      gratuityPartySize: fc.integer({ min: 1, max: 12 }),
      gratuityTaxable: fc.boolean(),
    }),
    chargeTaxes: fc.array(fc.integer({ min: 0, max: 2500 }), { maxLength: 2 }),
    plan: fc.oneof(
      fc.record({ kind: fc.constant('even' as const), parts: fc.integer({ min: 1, max: 12 }) }),
      fc.constant({ kind: 'seats' as const }),
      fc.record({
        kind: fc.constant('items' as const),
        parts: fc.integer({ min: 1, max: 6 }),
        picks: fc.array(fc.uniqueArray(fc.nat(5), { minLength: 1, maxLength: 6 }), { minLength: 12, maxLength: 12 }),
      }),
    ),
  });

  it('gives parts that add up exactly to the charged whole, each with no negative share and a balanced journal transaction', () => {
    fc.assert(
      fc.property(checkArb, (input) => {
        const lines = input.lines.map((l, i) => {
          const inclusive = l.taxes.find((t) => t.inclusive);
          return dish(
            l.unit,
            l.quantity,
            (inclusive ? [inclusive] : l.taxes).map((t, k) => tax(t.bp, t.inclusive, k)),
            i,
          );
        });
        const discounts: Discount[] = input.lines.flatMap((l, i) =>
          l.lineDiscountBp === null
            ? []
            : [{ id: newId('discount'), name: 'Comp', kind: 'percentage' as const, basisPoints: l.lineDiscountBp, lineId: lines[i]!.id }],
        );
        if (input.saleDiscountBp !== null)
          discounts.push({ id: newId('discount'), name: 'Happy hour', kind: 'percentage', basisPoints: input.saleDiscountBp });
        const plain = computeOrderTotals(lines, discounts);
        // A taxable charge carries the exclusive rates given (some the dishes carry too, some not).
        const chargeTaxes = input.chargeTaxes.map((bp, k) => tax(bp, false, k + (k % 2 === 0 ? 0 : 5)));
        const { totals, charges } = addServiceCharges(plain, input.guests, input.settings, chargeTaxes, ids());

        // The charges are the expected share of the pre-tax net, and nothing else about the check changed.
        const base = plain.subtotalCents - plain.discountCents - plain.inclusiveTaxCents;
        const expected = [
          input.settings.serviceChargeBasisPoints,
          input.guests >= input.settings.gratuityPartySize ? input.settings.gratuityBasisPoints : 0,
        ]
          .map((bp) => Math.round((base * bp) / 10_000))
          .filter((c) => c > 0);
        expect(charges.map((c) => c.grossCents).length).toBe(expected.length);
        charges.forEach((c, k) => expect(Math.abs(c.grossCents - expected[k]!)).toBeLessThanOrEqual(1));
        expect(totals.subtotalCents).toBe(plain.subtotalCents + charges.reduce((s, c) => s + c.grossCents, 0));
        expect(totals.discountCents).toBe(plain.discountCents);
        expect(totals.totalCents).toBe(totals.subtotalCents - totals.discountCents + totals.taxCents - totals.inclusiveTaxCents);
        expect(totals.taxLines.reduce((s, t) => s + t.taxCents, 0)).toBe(totals.taxCents);
        expect(totals.lines.reduce((s, l) => s + l.taxCents, 0)).toBe(totals.taxCents);

        const seated = [...lines.map((l, i) => ({ id: l.id, seat: input.lines[i]!.seat })), ...charges.map((c) => ({ id: c.id, seat: null }))];
        const plan: SplitPlan =
          input.plan.kind === 'items'
            ? {
                kind: 'items',
                parts: input.plan.parts,
                assignment: Object.fromEntries(
                  seated.map((l, i) => {
                    const p = input.plan as { parts: number; picks: number[][] };
                    // A charge is shared by every part; a dish goes to the parts picked for it.
                    return [
                      l.id,
                      i < lines.length ? [...new Set(p.picks[i]!.map((x) => x % p.parts))] : Array.from({ length: p.parts }, (_, k) => k),
                    ];
                  }),
                ),
              }
            : input.plan;
        if (plan.kind === 'seats' && seated.every((l) => l.seat === null)) return;
        const parts = splitCheck(totals, seated, plan);
        const sum = (f: (p: (typeof parts)[number]) => number) => parts.reduce((s, p) => s + f(p), 0);
        expect(sum((p) => p.subtotalCents)).toBe(totals.subtotalCents);
        expect(sum((p) => p.discountCents)).toBe(totals.discountCents);
        expect(sum((p) => p.taxCents)).toBe(totals.taxCents);
        expect(sum((p) => p.totalCents)).toBe(totals.totalCents);
        totals.taxLines.forEach((rate, t) => expect(sum((p) => p.taxLines[t]!.taxCents)).toBe(rate.taxCents));
        for (const charge of charges) {
          const shares = parts.flatMap((p) => p.lines.filter((l) => l.lineId === charge.id));
          expect(shares.reduce((s, l) => s + l.grossCents, 0)).toBe(charge.grossCents);
        }
        for (const part of parts) {
          for (const l of part.lines) expect(Math.min(l.grossCents, l.netCents, l.discountCents, l.taxCents)).toBeGreaterThanOrEqual(0);
          const postings = [
            { accountCode: 'cash_drawer:R1', amountCents: part.totalCents },
            { accountCode: 'discounts', amountCents: part.discountCents },
            ...saleCreditPostings(part.lines, part.taxCents),
          ];
          if (postings.every((p) => p.amountCents === 0)) continue;
          expect(() =>
            buildJournalTransaction(
              {
                kind: 'sale',
                sourceType: 'order',
                sourceId: 'ord_x',
                registerId: 'reg_1',
                currency: 'USD',
                occurredAt: '2026-11-28T19:00:00.000Z',
                memo: 'part',
              },
              postings,
            ),
          ).not.toThrow();
        }
      }),
      { numRuns: 500 },
    );
  });
});
