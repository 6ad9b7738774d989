import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { allocateProRata, assertCents, divideHalfEven, formatMoney, MoneyError } from '../../core/index.ts';

describe('divideHalfEven', () => {
  it.each([
    [5, 2, 2], // 2.5 → 2 (even)
    [15, 2, 8], // 7.5 → 8 (even)
    [7, 2, 4], // 3.5 → 4
    [-5, 2, -2],
    [-7, 2, -4],
    [10, 3, 3],
    [11, 3, 4],
    [875 * 1000, 10_000, 88], // 87.5 → 88 (even)
    [875 * 1100, 10_000, 96], // 96.25 → 96
  ])('%i / %i = %i', (n, d, expected) => {
    expect(divideHalfEven(n, d)).toBe(expected);
  });

  it('is within half a unit of the exact quotient and rounds ties to even', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 1, max: 1e6 }), (n, d) => {
        const q = divideHalfEven(n, d);
        const diff = Math.abs(q * d - n) * 2;
        expect(diff).toBeLessThanOrEqual(d);
        if (diff === d) expect(Math.abs(q % 2)).toBe(0);
      }),
    );
  });

  it('refuses a non-positive denominator and non-integers', () => {
    expect(() => divideHalfEven(1, 0)).toThrow(MoneyError);
    expect(() => divideHalfEven(1.5, 2)).toThrow();
  });
});

describe('allocateProRata', () => {
  it('splits exactly and in proportion', () => {
    expect(allocateProRata(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocateProRata(10, [0, 5, 5])).toEqual([0, 5, 5]);
    expect(allocateProRata(7, [0, 0])).toEqual([7, 0]);
    expect(allocateProRata(-100, [1, 1, 1])).toEqual([-34, -33, -33]);
  });

  it('always sums to the total, each part within one unit of its exact share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.array(fc.integer({ min: 0, max: 1e7 }), { minLength: 1, maxLength: 30 }),
        (total, weights) => {
          const parts = allocateProRata(total, weights);
          expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
          const sum = weights.reduce((a, b) => a + b, 0);
          if (sum > 0) parts.forEach((p, i) => expect(Math.abs(p - (total * (weights[i] ?? 0)) / sum)).toBeLessThan(1.000001));
        },
      ),
    );
  });
});

describe('assertCents / formatMoney', () => {
  it('rejects floats and unsafe integers', () => {
    expect(() => assertCents(1.1)).toThrow(MoneyError);
    expect(() => assertCents(Number.MAX_SAFE_INTEGER + 1)).toThrow(MoneyError);
    expect(() => assertCents(Number.NaN)).toThrow(MoneyError);
    expect(() => assertCents(-25)).not.toThrow();
  });
  it('formats minor units', () => {
    expect(formatMoney(123456, 'USD')).toBe('$1,234.56');
    expect(formatMoney(-5, 'USD')).toBe('-$0.05');
    expect(formatMoney(500, 'JPY')).toBe('¥500');
  });
});
