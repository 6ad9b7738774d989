import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  formatReceiptNumber,
  isValidE164,
  parseReceiptNumber,
  customerCreateSchema,
  nonBlankText,
  payRequestCreateSchema,
} from '../../core/index.ts';

describe('payRequestCreateSchema (the pay-request create body)', () => {
  const ok = { amountCents: 1250, phone: '+14155552671', memo: 'Table 4' };
  it('accepts a free-amount request', () => {
    expect(payRequestCreateSchema.parse(ok)).toEqual(ok);
  });
  it.each([
    [{ ...ok, amountCents: 0 }, 'amountCents'],
    [{ ...ok, amountCents: 100_000_000 }, 'amountCents'],
    [{ ...ok, amountCents: 12.5 }, 'amountCents'],
    [{ ...ok, amountCents: '1250' }, 'amountCents'],
    [{ ...ok, phone: '4155552671' }, 'phone'],
    [{ ...ok, phone: '+1 415 555 2671' }, 'phone'],
    [{ ...ok, memo: 'x'.repeat(501) }, 'memo'],
    [{ ...ok, tip: 5 }, ''],
    [{ phone: ok.phone }, 'amountCents'],
    [{ ...ok, lineItems: [{ catalogItemId: 'itm_latte', variationId: 'var_latte', quantity: 1 }] }, 'lineItems'],
    [{ phone: ok.phone, lineItems: [{ catalogItemId: 'itm_latte', variationId: 'var_latte', quantity: 1, priceCents: 1 }] }, 'lineItems.0'],
  ])('refuses %j at path %j', (body, path) => {
    const result = payRequestCreateSchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });
});

describe('phones, receipts, canonical JSON', () => {
  it('validates E.164 with the numbering plan', () => {
    expect(isValidE164('+14155552671')).toBe(true);
    expect(isValidE164('+442071838750')).toBe(true);
    expect(isValidE164('+1415555267')).toBe(false);
    expect(isValidE164('+999123456789')).toBe(false);
  });
  it('numbers receipts per register', () => {
    expect(formatReceiptNumber(2, 123)).toBe('R2-000123');
    expect(parseReceiptNumber('R12-1234567')).toEqual({ registerNumber: 12, sequence: 1234567 });
    expect(parseReceiptNumber('X2-000001')).toBeUndefined();
    expect(() => formatReceiptNumber(0, 1)).toThrow(RangeError);
  });
  it('sorts keys and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [true, null, { d: undefined, c: 'x' }] })).toBe('{"a":[true,null,{"c":"x"}],"b":1}');
  });
});

describe('names people type (nonBlankText): no bidirectional controls, no lone surrogates', () => {
  const name = nonBlankText(100);
  it.each([
    ['a right-to-left override', 'Latte \u202Eetal'],
    ['a left-to-right embedding', '\u202ACoffee'],
    ['an isolate', 'Tea \u2066x\u2069'],
    ['a lone high surrogate', 'Cake \uD83D'],
    ['a lone low surrogate', '\uDE00 Cake'],
  ])('refuses %s', (_what, text) => {
    const result = name.safeParse(text);
    expect(result.success).toBe(false);
  });
  it.each(['Café crème', 'قهوة', 'שוקולד', 'Tea 🍵', '  Bagel  '])('accepts real names in any script: %s', (text) => {
    expect(name.parse(text)).toBe(text.trim());
  });
  it('refuses it where a customer is named, naming the field', () => {
    const result = customerCreateSchema.safeParse({ givenName: 'Eve\u202Enor' });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path.join('.'))).toEqual(['givenName']);
  });
});
