import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsCardNumber, findCardNumbers, luhnValid, maskCardNumbers } from '../../core/index.ts';
import { spellings } from '../support/card-spellings.ts';

/** The Luhn check digit that completes `body` (ISO/IEC 7812-1 Annex B). */
function luhnComplete(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error('unreachable');
}

/** A Luhn-valid PAN of 13–19 digits, its first digit 1–9 (the major industry identifier of a card). */
const pan = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 11, max: 17 }))
  .chain(([first, n]) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((ds) => `${first}${ds.join('')}`))
  .map((body) => luhnComplete(body));

/** A PAN as people write it: plain, or in groups of 4 separated by spaces or dashes. */
const writtenPan = fc.tuple(pan, fc.constantFrom('', ' ', '-')).map(([p, sep]) => ({ digits: p, written: sep ? p.match(/.{1,4}/g)!.join(sep) : p }));

/** Text around it that holds no digit (letters, punctuation, spaces, non-Latin script). */
const noDigits = fc.string({ unit: fc.constantFrom(...'abcXYZ _:;,.#/()é€漢\n'.split('')), maxLength: 30 });

const digitsOf = (s: string) => s.replace(/\D/g, '');

describe('luhnValid (ISO/IEC 7812-1 Annex B)', () => {
  it.each([
    ['4242424242424242', true],
    ['4111111111111111', true],
    ['378282246310005', true],
    ['6011111111111117', true],
    ['4242424242424241', false],
    ['', false],
    ['42a2', false],
  ])('%s → %s', (digits, ok) => expect(luhnValid(digits)).toBe(ok));

  it('changing one digit breaks the check', () => {
    fc.assert(
      fc.property(pan, fc.nat(), fc.integer({ min: 1, max: 9 }), (p, at, delta) => {
        const i = at % p.length;
        const changed = p.slice(0, i) + ((Number(p[i]) + delta) % 10) + p.slice(i + 1);
        expect(luhnValid(changed)).toBe(false);
      }),
    );
  });
});

describe('findCardNumbers / containsCardNumber', () => {
  it.each([
    'tok_4242424242424242',
    'card 4242424242424242 cvc 987',
    'card 4242 4242 4242 4242',
    'card 4242-4242-4242-4242 exp 12/30',
    'amex 3782 822463 10005',
    'pan:4111111111111111.',
    'order 12 4242424242424242',
    '9999994242424242424242999999', // glued to other digits, in a long unbroken group
    '4242-4242 4242-4242', // spaces and dashes mixed
    '12 -- 4242424242424242', // after a run the double separator ended
    '1-2-3-4-5-6-7-8-9-0-1-2 4242424242424242', // a short run joined to the PAN by single separators
    '4242  4242  4242  4242', // two spaces
    '4242.4242.4242.4242',
    '4242/4242/4242/4242',
    '4242\n4242\n4242\n4242',
    '4242\u00a04242\u00a04242\u00a04242', // no-break space
    '4242 \u2013 4242 \u2013 4242 \u2013 4242', // en dash with spaces
    '4\u200b2\u200b4\u200b2\u200b4\u200b2\u200b4\u200b2\u200b4\u200b2\u200b4\u200b2\u200b4\u200b2\u200b4\u200b2', // zero-width spaces
    '\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12', // full-width digits
    '\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662\u0664\u0662', // Arabic-Indic digits
  ])('finds the card number in %j', (text) => expect(containsCardNumber(text)).toBe(true));

  it.each([
    'tok_visa',
    '+14155550123',
    'receipt R2-000123',
    '4242424242424241', // Luhn fails
    'cus_01J00000000000000000000000', // a run of zeros passes Luhn, but no PAN starts with 0
    '424242424242', // 12 digits
    '4242,4242,4242,4242', // a comma is no separator: four runs, none long enough
    '4242 .-/ 4242 4242 4242', // four separators in a row end a run
    'Table 4, 2 guests',
  ])('finds none in %j', (text) => expect(containsCardNumber(text)).toBe(false));

  it('finds a PAN written plain or grouped anywhere in text without digits', () => {
    fc.assert(
      fc.property(noDigits, writtenPan, noDigits, (before, { digits, written }, after) => {
        const text = `${before}${written}${after}`;
        const matches = findCardNumbers(text);
        expect(matches.some((m) => m.digitIndexes.map((i) => text[i]).join('') === digits)).toBe(true);
      }),
    );
  });

  it('every match is 13–19 digits of the text that pass the plain Luhn check', () => {
    const text = fc.string({ unit: fc.constantFrom(...'0123456789 -x'.split('')), maxLength: 80 });
    fc.assert(
      fc.property(text, (t) => {
        for (const m of findCardNumbers(t)) {
          const digits = m.digitIndexes.map((i) => t[i]).join('');
          expect(digits).toMatch(/^\d{13,19}$/);
          expect(luhnValid(digits)).toBe(true);
        }
      }),
    );
  });

  it('finds nothing in text without a run of 13 digits', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }).map((s) => s.replace(/\d{12,}/g, '')),
        (text) => {
          const longest = Math.max(0, ...[...text.matchAll(/\d+(?:[\s._/\-]{1,3}\d+)*/g)].map((m) => digitsOf(m[0]).length));
          if (longest < 13) expect(containsCardNumber(text)).toBe(false);
        },
      ),
    );
  });
});

describe('spellings', () => {
  it('finds and masks a PAN in every spelling, keeping the length and at most 6 + 4 of its digits', () => {
    fc.assert(
      fc.property(pan, noDigits, fc.constantFrom(...Object.keys(spellings('4242424242424242'))), (p, before, how) => {
        const text = `${before}${spellings(p)[how]!} cvc 987`;
        expect(containsCardNumber(text)).toBe(true);
        const masked = maskCardNumbers(text);
        expect(masked).toHaveLength(text.length);
        expect(containsCardNumber(masked)).toBe(false);
        expect(masked.endsWith('cvc ***')).toBe(true);
      }),
    );
  });
});

describe('maskCardNumbers', () => {
  it('keeps the first six and last four digits, separators, and masks the CVC phrase', () => {
    expect(maskCardNumbers('card 4242424242424242 cvc 987')).toBe('card 424242******4242 cvc ***');
    expect(maskCardNumbers('4242-4242-4242-4242, CVV: 123')).toBe('4242-42**-****-4242, CVV: ***');
    expect(maskCardNumbers('tok_4242424242424242')).toBe('tok_424242******4242');
  });

  it('masks a code written right after the card number without a label, after an expiry too; keeps other numbers', () => {
    expect(maskCardNumbers('card 4111 1111 1111 1111 123')).toBe('card 4111 11** **** 1111 ***');
    expect(maskCardNumbers('4242424242424242, 12/29, 1234 thanks')).toBe('424242******4242, 12/29, **** thanks');
    expect(maskCardNumbers('4242424242424242 exp 12/2029 987')).toBe('424242******4242 exp 12/2029 ***');
    expect(maskCardNumbers('4242424242424242\nvalid thru 01-27\n555')).toBe('424242******4242\nvalid thru 01-27\n***');
    // Not right after it: a quantity later in the text, a longer number, and a text without a card number stay.
    expect(maskCardNumbers('4242424242424242 for 3 boxes of 100')).toBe('424242******4242 for 3 boxes of 100');
    expect(maskCardNumbers('4242424242424242 123456')).toBe('424242******4242 123456');
    expect(maskCardNumbers('order 1234 123')).toBe('order 1234 123');
  });

  it('masks the unlabelled code after a PAN in every spelling', () => {
    fc.assert(
      fc.property(pan, noDigits, fc.constantFrom(...Object.keys(spellings('4242424242424242'))), (p, before, how) => {
        const text = `${before}${spellings(p)[how]!} 12/29 987.`;
        const masked = maskCardNumbers(text);
        expect(masked).toHaveLength(text.length);
        expect(containsCardNumber(masked)).toBe(false);
        expect(masked.endsWith(' ***.')).toBe(true); // the expiry may be masked too, where a longer run passes Luhn
      }),
    );
  });

  it('leaves a text without a card number as it is (a CVC phrase alone is no card number)', () => {
    expect(maskCardNumbers('Table 4, cvc 987, call +1 415 555 0123')).toBe('Table 4, cvc 987, call +1 415 555 0123');
  });

  it('output holds no card number, has the same length, and keeps at most 6 + 4 digits of the PAN', () => {
    fc.assert(
      fc.property(noDigits, writtenPan, noDigits, fc.constantFrom('', ' cvc 987', ' CVV2: 1234'), (before, { written }, after, cvc) => {
        const text = `${before}${written}${after}${cvc}`;
        const masked = maskCardNumbers(text);
        expect(masked).toHaveLength(text.length);
        expect(containsCardNumber(masked)).toBe(false);
        const maskedPan = masked.slice(before.length, before.length + written.length);
        expect(digitsOf(maskedPan).length).toBeLessThanOrEqual(10);
        expect(masked.slice(0, before.length)).toBe(before);
        if (cvc) expect(masked.endsWith(cvc.replace(/\d+$/, (code) => '*'.repeat(code.length)))).toBe(true);
      }),
    );
  });

  it('never leaves a card number, whatever the text (digits, separators, several PANs)', () => {
    const piece = fc.oneof(
      writtenPan.map((p) => p.written),
      fc.string({ unit: fc.constantFrom(...'0123456789 -a'.split('')), maxLength: 40 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 5 }), (pieces) => {
        const text = pieces.join('');
        const masked = maskCardNumbers(text);
        expect(containsCardNumber(masked)).toBe(false);
        expect(masked).toHaveLength(text.length);
        expect(maskCardNumbers(masked)).toBe(masked);
      }),
    );
  });
});
