import { describe, expect, it } from 'vitest';
import { isPhoneCountry, normalizePhone } from '../../core/index.ts';

describe('normalizePhone (libphonenumber-js: international form, or national in the default country)', () => {
  it.each([
    ['+1 (415) 555-0123', undefined, '+14155550123'],
    ['+14155550123', 'GB', '+14155550123'],
    ['(415) 555-0123', 'US', '+14155550123'],
    ['415.555.0123', 'US', '+14155550123'],
    ['020 7946 0958', 'GB', '+442079460958'],
    ['07911 123456', 'GB', '+447911123456'],
    ['01 42 68 53 00', 'FR', '+33142685300'],
  ])('%s in %s → %s', (input, country, e164) => {
    expect(normalizePhone(input, country)).toBe(e164);
  });

  it.each([
    ['(415) 555-0123', undefined],
    ['(415) 555-0123', 'GB'],
    ['(415) 555-0123', 'ZZ'],
    ['555-0123', 'US'],
    ['+1 555', 'US'],
    ['call me', 'US'],
    ['1'.repeat(40), 'US'],
  ])('%s in %s is not a number', (input, country) => {
    expect(normalizePhone(input, country)).toBeUndefined();
  });
});

describe('isPhoneCountry (ISO 3166-1 alpha-2 with a numbering plan)', () => {
  it('accepts upper-case codes libphonenumber-js knows, nothing else', () => {
    for (const code of ['US', 'GB', 'FR', 'DE', 'JP']) expect(isPhoneCountry(code)).toBe(true);
    for (const code of ['ZZ', 'us', 'USA', '', '1']) expect(isPhoneCountry(code)).toBe(false);
  });
});
