import { describe, expect, it } from 'vitest';
import { centsToInput, parseCashInput, quickTenders } from '../../renderer/src/common/cash.ts';

describe('cash entry', () => {
  it('parses typed dollars into integer cents without floats', () => {
    expect(parseCashInput('20')).toBe(2000);
    expect(parseCashInput('20.5')).toBe(2050);
    expect(parseCashInput('20.05')).toBe(2005);
    expect(parseCashInput('0.29')).toBe(29);
    expect(parseCashInput('.1')).toBe(10);
    expect(parseCashInput('$1,020.00')).toBe(102_000);
    expect(parseCashInput(' 7. ')).toBe(700);
  });

  it('refuses what is not a plain amount', () => {
    for (const bad of ['', '.', 'abc', '1.234', '-5', '1e3', '12.3.4', '$']) expect(parseCashInput(bad), bad).toBeUndefined();
  });

  it('knows currencies without minor units', () => {
    expect(parseCashInput('500', 'JPY')).toBe(500);
    expect(parseCashInput('500.5', 'JPY')).toBeUndefined();
  });

  it('round-trips cents to the input form', () => {
    for (const cents of [0, 5, 29, 2000, 123_456]) expect(parseCashInput(centsToInput(cents))).toBe(cents);
  });

  it('suggests the exact amount and the next round notes', () => {
    expect(quickTenders(326)).toEqual([326, 500, 1000, 2000]);
    expect(quickTenders(3588)).toEqual([3588, 4000, 5000, 10_000]);
    expect(quickTenders(2000)).toEqual([2000, 5000, 10_000]);
  });
});
