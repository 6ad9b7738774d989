import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { distributeTips, TipPoolError, type TipOutRule, type TipShift } from '../../core/index.ts';

/** Tip-outs (core/tip-pool.ts): servers and the bar share with bussers and the kitchen by minutes worked, to the cent. */
describe('tip-outs', () => {
  it('servers give 20 % of their tips to the bussers by minutes worked; the bar gives 10 % to the kitchen', () => {
    const shifts: TipShift[] = [
      { staffId: 'ana', role: 'server', tipsCents: 12_345, minutesWorked: 360 },
      { staffId: 'bo', role: 'server', tipsCents: 8_000, minutesWorked: 300 },
      { staffId: 'cy', role: 'busser', tipsCents: 0, minutesWorked: 240 },
      { staffId: 'di', role: 'busser', tipsCents: 0, minutesWorked: 120 },
      { staffId: 'ed', role: 'bartender', tipsCents: 5_001, minutesWorked: 360 },
      { staffId: 'fa', role: 'cook', tipsCents: 0, minutesWorked: 0 },
    ];
    const rules: TipOutRule[] = [
      { fromRole: 'server', basisPoints: 2_000, toRoles: ['busser'] },
      { fromRole: 'bartender', basisPoints: 1_000, toRoles: ['cook'] },
    ];
    const shares = distributeTips(shifts, rules);
    expect(shares.map((s) => [s.staffId, s.tippedOutCents, s.receivedCents, s.finalCents])).toEqual([
      ['ana', 2_469, 0, 9_876],
      ['bo', 1_600, 0, 6_400],
      ['cy', 0, 2_713, 2_713],
      ['di', 0, 1_356, 1_356],
      // Nobody of the kitchen worked: the bar keeps its tips.
      ['ed', 0, 0, 5_001],
      ['fa', 0, 0, 0],
    ]);
  });

  it('refuses a rule or a shift it cannot apply', () => {
    const one: TipShift[] = [{ staffId: 'a', role: 'server', tipsCents: 100, minutesWorked: 60 }];
    expect(() => distributeTips(one, [{ fromRole: 'server', basisPoints: 10_001, toRoles: ['busser'] }])).toThrow(TipPoolError);
    expect(() => distributeTips(one, [{ fromRole: 'server', basisPoints: 100, toRoles: ['server'] }])).toThrow(/itself/);
    expect(() => distributeTips([...one, ...one], [])).toThrow(/twice/);
    expect(() =>
      distributeTips(one, [
        { fromRole: 'server', basisPoints: 6_000, toRoles: ['busser'] },
        { fromRole: 'server', basisPoints: 5_000, toRoles: ['cook'] },
      ]),
    ).toThrow(/at most 100 %/);
    expect(() => distributeTips([{ ...one[0]!, tipsCents: -1 }], [])).toThrow(/tips/);
  });

  it('accounts for every cent: what everyone ends with adds up to the tips taken, and nobody ends below zero', () => {
    const roles = ['server', 'busser', 'bartender', 'cook', 'host'];
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            staffId: fc.string({ minLength: 1, maxLength: 4 }),
            role: fc.constantFrom(...roles),
            tipsCents: fc.integer({ min: 0, max: 500_000 }),
            minutesWorked: fc.integer({ min: 0, max: 720 }),
          }),
          { selector: (s) => s.staffId, maxLength: 12 },
        ),
        fc
          .array(
            fc
              .record({
                fromRole: fc.constantFrom(...roles),
                basisPoints: fc.integer({ min: 0, max: 10_000 }),
                toRoles: fc.subarray(roles, { minLength: 1 }),
              })
              .filter((r) => !r.toRoles.includes(r.fromRole)),
            { maxLength: 4 },
          )
          .filter((rules) => roles.every((role) => rules.filter((r) => r.fromRole === role).reduce((t, r) => t + r.basisPoints, 0) <= 10_000)),
        (shifts, rules) => {
          const shares = distributeTips(shifts, rules);
          expect(shares.reduce((t, s) => t + s.finalCents, 0)).toBe(shifts.reduce((t, s) => t + s.tipsCents, 0));
          for (const s of shares) expect(s.finalCents).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 500 },
    );
  });
});
