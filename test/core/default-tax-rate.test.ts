import { describe, expect, it } from 'vitest';
import { defaultTaxRateId } from '../../core/index.ts';

describe('defaultTaxRateId: the rate a new item and an imported taxable product get', () => {
  const rates = [
    { id: 'tax_b', inclusive: false },
    { id: 'tax_a', inclusive: true },
    { id: 'tax_c', inclusive: false },
  ];
  it('is the rate the most items carry, ties to the lowest id', () => {
    expect(
      defaultTaxRateId(
        rates,
        new Map([
          ['tax_c', 4],
          ['tax_b', 2],
        ]),
      ),
    ).toBe('tax_c');
    expect(
      defaultTaxRateId(
        rates,
        new Map([
          ['tax_c', 3],
          ['tax_b', 3],
        ]),
      ),
    ).toBe('tax_b');
  });
  it('ignores rates that are not the store’s live ones', () => {
    expect(
      defaultTaxRateId(
        rates,
        new Map([
          ['tax_gone', 9],
          ['tax_a', 1],
        ]),
      ),
    ).toBe('tax_a');
  });
  it('with no item taxed: the first exclusive rate by id, else the first rate, else none', () => {
    expect(defaultTaxRateId(rates, new Map())).toBe('tax_b');
    expect(
      defaultTaxRateId(
        [
          { id: 'tax_z', inclusive: true },
          { id: 'tax_y', inclusive: true },
        ],
        new Map(),
      ),
    ).toBe('tax_y');
    expect(defaultTaxRateId([], new Map([['tax_a', 1]]))).toBeUndefined();
  });
});
