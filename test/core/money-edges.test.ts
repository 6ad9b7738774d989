import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIP_LIMIT, isIdnEmail, maxTipCents, tipLimitProblem, unsafeTextProblem } from '../../core/index.ts';

describe('tip bound (core tipLimitProblem)', () => {
  it('allows up to the larger of the percentage of the total and the fixed amount, and nothing above', () => {
    expect(maxTipCents(408, DEFAULT_TIP_LIMIT)).toBe(10_000);
    expect(maxTipCents(1_000_000, DEFAULT_TIP_LIMIT)).toBe(500_000);
    expect(tipLimitProblem(408, 99_999_591, DEFAULT_TIP_LIMIT)).toMatch(/exceeds the store's bound of 10000/);
    expect(tipLimitProblem(0, 0, { basisPoints: 0, fixedCents: 0 })).toBeUndefined();
    expect(tipLimitProblem(0, 1, { basisPoints: 0, fixedCents: 0 })).toBeDefined();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 99_999_999 }),
        (total, basisPoints, fixedCents) => {
          const max = maxTipCents(total, { basisPoints, fixedCents });
          expect(max).toBeGreaterThanOrEqual(fixedCents);
          expect(tipLimitProblem(total, max, { basisPoints, fixedCents })).toBeUndefined();
          expect(tipLimitProblem(total, max + 1, { basisPoints, fixedCents })).toBeDefined();
        },
      ),
    );
  });
});

describe('internationalised e-mail (core isIdnEmail, RFC 6531/6532)', () => {
  it('accepts Unicode local parts and domains', () => {
    for (const ok of [
      'josé@exämple.de',
      '用户@例子.广告',
      'Δοκιμή@παράδειγμα.δοκιμή',
      'ana@example.com',
      "o'brien+tag@sub.example.co.uk",
      'x@xn--exmple-cua.de',
    ])
      expect(isIdnEmail(ok), ok).toBe(true);
  });
  it('refuses malformed addresses, controls, bidi controls and lone surrogates', () => {
    for (const bad of [
      'a@b',
      'a@@b.cd',
      '.a@b.cd',
      'a.@b.cd',
      'a..b@c.de',
      'a b@c.de',
      'a@-b.cd',
      'a@b..cd',
      'a@1.2',
      '"a"@b.cd',
      'a@[192.0.2.1]',
      'a\u202e@b.cd',
      'a\ud800@b.cd',
      `${'é'.repeat(33)}@b.cd`,
      'a@b.c_d',
      '@b.cd',
      'a@',
      `a@${'b'.repeat(64)}.cd`,
    ]) {
      expect(isIdnEmail(bad), JSON.stringify(bad)).toBe(false);
    }
  });
  it('unsafeTextProblem names bidi controls and lone surrogates, and passes ordinary text', () => {
    expect(unsafeTextProblem('Café crème')).toBeUndefined();
    expect(unsafeTextProblem('a\u2067b')).toMatch(/bidirectional/);
    expect(unsafeTextProblem('a\udc00')).toMatch(/surrogate/);
  });
});
