import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkRegisterSale,
  computeOrderTotals,
  invoiceSchema,
  MAX_AMOUNT_CENTS,
  mulDivHalfEven,
  newId,
  orderSchema,
  orderViewSchema,
  payRequestSchema,
  planRefund,
  PricingError,
  refundRecordSchema,
  saleJournalTransactionId,
  tenderSchema,
  type Discount,
  type Order,
  type OrderLine,
} from '../../core/index.ts';

/** Half-even `n / d` over BigInt: the reference every exact product is compared with. */
function refHalfEven(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const a = neg ? -n : n;
  let q = a / d;
  const r = a % d;
  if (r * 2n > d || (r * 2n === d && q % 2n === 1n)) q += 1n;
  return neg ? -q : q;
}

const lineTax = fc.record({ bp: fc.integer({ min: 0, max: 100_000 }), inclusive: fc.boolean() });

/** A line priced at `unit` × `quantity` with the given tax rates (all exclusive, or one inclusive). */
function line(unit: number, quantity: number, taxes: { bp: number; inclusive: boolean }[], i: number): OrderLine {
  const inclusive = taxes.find((t) => t.inclusive);
  const rates = inclusive ? [inclusive] : taxes;
  return {
    id: newId('orderLine'),
    catalogItemId: `itm_${i}`,
    variationId: `var_${i}`,
    kind: i % 2 ? 'service' : 'product',
    name: `Item ${i}`,
    variationName: 'Regular',
    modifiers: [],
    quantity,
    unitPriceCents: unit,
    grossCents: 0,
    discountCents: 0,
    netCents: 0,
    taxCents: 0,
    taxes: rates.map((t, k) => ({
      taxRateId: `tax_${t.inclusive ? 'inc' : 'ex'}${k}_${t.bp}`,
      name: `T${k}`,
      basisPoints: t.bp,
      inclusive: t.inclusive,
    })),
  };
}

function orderOf(lines: OrderLine[], discounts: Discount[], overrides: Partial<Order> = {}): Order {
  const id = newId('order');
  return {
    id,
    registerId: 'reg_1',
    registerNumber: 1,
    receiptNumber: 'R1-000001',
    state: 'paid',
    currency: 'USD',
    createdAt: '2026-03-01T12:00:00.000Z',
    lines,
    discounts,
    taxLines: [],
    subtotalCents: 0,
    discountCents: 0,
    taxCents: 0,
    totalCents: 0,
    tipCents: 0,
    paidCents: 0,
    tenders: [],
    journalTransactionId: saleJournalTransactionId(id),
    ...overrides,
  };
}

describe('MAX_AMOUNT_CENTS bounds every order amount schema', () => {
  it('refuses a line at 2^52 × 9999 in orderSchema (it made checkRegisterSale throw MoneyError)', () => {
    const big = line(2 ** 52, 9999, [], 0);
    const order = orderOf([{ ...big, grossCents: 2 ** 52, netCents: 2 ** 52 }], [], { subtotalCents: 2 ** 52, totalCents: 2 ** 52 });
    const result = orderSchema.safeParse(order);
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['lines.0.unitPriceCents', 'lines.0.grossCents', 'subtotalCents', 'totalCents']));
    // At the bound itself the amount is accepted.
    const ok = line(MAX_AMOUNT_CENTS, 1, [], 0);
    expect(
      orderSchema.safeParse(
        orderOf([{ ...ok, grossCents: MAX_AMOUNT_CENTS, netCents: MAX_AMOUNT_CENTS }], [], {
          subtotalCents: MAX_AMOUNT_CENTS,
          totalCents: MAX_AMOUNT_CENTS,
        }),
      ).success,
    ).toBe(true);
  });

  it('uses the same bound in tenders, payments, refunds, order views, invoices and pay requests', () => {
    const over = MAX_AMOUNT_CENTS + 1;
    expect(tenderSchema.shape.tipCents.safeParse(over).success).toBe(false);
    expect(tenderSchema.shape.amountCents.safeParse(MAX_AMOUNT_CENTS).success).toBe(true);
    expect(orderViewSchema.shape.refundedCents.safeParse(over).success).toBe(false);
    expect(orderViewSchema.shape.balanceDueCents.safeParse(over).success).toBe(false);
    expect(refundRecordSchema.shape.amountCents.safeParse(over).success).toBe(false);
    expect(refundRecordSchema.shape.tipCents.safeParse(over).success).toBe(false);
    expect(invoiceSchema.shape.totalCents.safeParse(over).success).toBe(false);
    expect(invoiceSchema.shape.balanceDueCents.safeParse(over).success).toBe(false);
    expect(payRequestSchema.shape.amountCents.safeParse(over).success).toBe(false);
  });

  it('pricing refuses a line, subtotal or total above the bound with a PricingError naming the field', () => {
    const at = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err instanceof PricingError ? `${err.code} ${err.path}` : String(err);
      }
      return 'no error';
    };
    expect(at(() => computeOrderTotals([line(MAX_AMOUNT_CENTS, 2, [], 0)], []))).toBe('amount_out_of_range lines.0.quantity');
    expect(at(() => computeOrderTotals([line(MAX_AMOUNT_CENTS, 1, [], 0), line(1, 1, [], 1)], []))).toBe('amount_out_of_range lines');
    expect(at(() => computeOrderTotals([line(MAX_AMOUNT_CENTS, 1, [{ bp: 875, inclusive: false }], 0)], []))).toBe('amount_out_of_range lines');
  });

  it('checkRegisterSale never throws on a schema-valid order, however large its figures (property)', () => {
    const amount = fc.oneof(fc.integer({ min: 0, max: MAX_AMOUNT_CENTS }), fc.constantFrom(0, 1, MAX_AMOUNT_CENTS, MAX_AMOUNT_CENTS - 1));
    let valid = 0;
    const quarter = fc.integer({ min: 0, max: Math.floor(MAX_AMOUNT_CENTS / 4) });
    const lineArb = fc.record({
      unit: amount,
      quantity: fc.oneof(fc.integer({ min: 1, max: 9999 }), fc.constant(9999)),
      taxes: fc.array(lineTax, { maxLength: 3 }),
    });
    const discountArb: fc.Arbitrary<Discount> = fc.oneof(
      fc.integer({ min: 1, max: 10_000 }).map((bp) => ({ id: newId('discount'), name: 'P', kind: 'percentage' as const, basisPoints: bp })),
      fc.integer({ min: 1, max: MAX_AMOUNT_CENTS }).map((c) => ({ id: newId('discount'), name: 'F', kind: 'fixed' as const, amountCents: c })),
    );
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 12 }),
        fc.array(discountArb, { maxLength: 3 }),
        fc.array(
          fc.record({ method: fc.constantFrom('cash' as const, 'card' as const, 'check' as const), amountCents: quarter, tipCents: quarter }),
          { maxLength: 4 },
        ),
        fc.boolean(),
        (specs, discounts, tenders, consistent) => {
          const lines = specs.map((s, i) => line(s.unit, s.quantity, s.taxes, i));
          let order = orderOf(lines, discounts, {
            tenders: tenders.map((t) => ({ id: newId('tender'), ...t })),
            tipCents: tenders.reduce((a, t) => a + t.tipCents, 0),
            paidCents: tenders.reduce((a, t) => a + t.amountCents, 0),
          });
          if (consistent) {
            try {
              const totals = computeOrderTotals(lines, discounts);
              order = { ...order, ...totals };
              delete (order as Partial<typeof totals>).inclusiveTaxCents;
            } catch (err) {
              if (!(err instanceof PricingError)) throw err;
            }
          }
          const parsed = orderSchema.safeParse(order);
          if (!parsed.success) return;
          valid += 1;
          expect(() => checkRegisterSale(parsed.data)).not.toThrow();
        },
      ),
      { numRuns: 300 },
    );
    // Most generated orders are schema-valid, so the property says something.
    expect(valid).toBeGreaterThan(150);
  });
});

describe('pricing multiplies in integers (docs/decisions/0001-money-and-tax.md), compared with BigInt', () => {
  it('mulDivHalfEven equals the BigInt reference where float products round (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 110_000 }),
        (amount, factor, denominator) => {
          const exact = refHalfEven(BigInt(amount) * BigInt(factor), BigInt(denominator));
          fc.pre(exact <= BigInt(Number.MAX_SAFE_INTEGER));
          expect(BigInt(mulDivHalfEven(amount, factor, denominator))).toBe(exact);
        },
      ),
      { numRuns: 500 },
    );
    // A case float arithmetic gets wrong: 2^53 − 1 times 3, over 3.
    expect(mulDivHalfEven(Number.MAX_SAFE_INTEGER, 3, 3)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('computeOrderTotals equals a BigInt reference on carts at the amount bound (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            unit: fc.integer({ min: 1, max: MAX_AMOUNT_CENTS }),
            quantity: fc.integer({ min: 1, max: 9999 }),
            taxes: fc.array(lineTax, { maxLength: 3 }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 3 }),
        (specs, percentages) => {
          // Scale quantities down so the cart stays within the bound (what pricing accepts), near it.
          const share = Math.floor(MAX_AMOUNT_CENTS / specs.length);
          const lines = specs
            .map((s, i) => line(s.unit, Math.max(1, Math.min(s.quantity, Math.floor(share / s.unit))), s.taxes, i))
            .filter((l) => l.unitPriceCents * l.quantity <= share);
          fc.pre(lines.length > 0);
          const discounts: Discount[] = percentages.map((bp) => ({ id: newId('discount'), name: 'P', kind: 'percentage', basisPoints: bp }));
          let totals;
          try {
            totals = computeOrderTotals(lines, discounts);
          } catch (err) {
            // Exclusive tax can lift the total over the bound: refused, never wrong.
            expect(err).toBeInstanceOf(PricingError);
            expect((err as PricingError).code).toBe('amount_out_of_range');
            return;
          }
          const subtotal = lines.reduce((a, l) => a + BigInt(l.unitPriceCents) * BigInt(l.quantity), 0n);
          expect(BigInt(totals.subtotalCents)).toBe(subtotal);
          let remaining = subtotal;
          for (const bp of percentages) remaining -= refHalfEven(remaining * BigInt(bp), 10_000n);
          expect(BigInt(totals.discountCents)).toBe(subtotal - remaining);
          expect(totals.lines.reduce((a, l) => a + BigInt(l.netCents), 0n)).toBe(remaining);
          let exclusive = 0n;
          for (const t of totals.taxLines) {
            const base = totals.lines.filter((l) => l.taxes.some((x) => x.taxRateId === t.taxRateId)).reduce((a, l) => a + BigInt(l.netCents), 0n);
            expect(BigInt(t.taxableCents)).toBe(base);
            const bp = BigInt(t.basisPoints);
            const tax = t.inclusive ? refHalfEven(base * bp, 10_000n + bp) : refHalfEven(base * bp, 10_000n);
            expect(BigInt(t.taxCents)).toBe(tax);
            if (!t.inclusive) exclusive += tax;
          }
          expect(BigInt(totals.totalCents)).toBe(remaining + exclusive);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a refund by amount takes its tax share goods × tax / total exactly, even where the product passes 2^53 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 90_000_000, max: MAX_AMOUNT_CENTS - 1 }), fc.integer({ min: 1, max: 9_999_999 }), (goods, above) => {
        const total = Math.min(MAX_AMOUNT_CENTS, goods + above);
        const tax = total - 1_000; // nearly all tax: the product goods × tax reaches ~10^16 > 2^53
        const order = orderOf([], [], { totalCents: total, taxCents: tax, paidCents: total });
        const plan = planRefund(order, [], [{ id: newId('payment'), accountCode: 'bank', amountCents: total, refundedCents: 0 }], {
          amountCents: goods,
        });
        const exact = refHalfEven(BigInt(goods) * BigInt(tax), BigInt(total));
        expect(BigInt(plan.taxCents)).toBe(exact < BigInt(goods) ? exact : BigInt(goods));
      }),
      { numRuns: 300 },
    );
  });
});
