/**
 * core/app-billing.ts: the arithmetic of app subscriptions (issue 15) — the 85/15 split always adds up to the charge
 * in minor units and never pays the developer more than 85 %; proration by whole UTC days (half up); the retry
 * schedule; the weekly payout cut-off.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { billingPeriodOf, initialCharge, nextChargeRetryAt, prorateCents, splitAppCharge, uninstallRefund, weeklyPayoutCutoff } from '../../core/index.ts';

describe('app billing arithmetic', () => {
  it('splits every charge 85/15 exactly: the parts add up, the developer gets floor(85 %)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999_999 }), (amount) => {
        const { developerCents, platformCents } = splitAppCharge(amount);
        expect(developerCents + platformCents).toBe(amount);
        expect(developerCents * 100).toBeLessThanOrEqual(amount * 85);
        expect((developerCents + 1) * 100).toBeGreaterThan(amount * 85);
      }),
    );
    expect(splitAppCharge(1999)).toEqual({ developerCents: 1699, platformCents: 300 });
    expect(splitAppCharge(1)).toEqual({ developerCents: 0, platformCents: 1 });
  });

  it('prorates the first charge over the days left in the calendar month (UTC), install day included, half up', () => {
    expect(initialCharge(3000, new Date('2026-11-17T23:59:00Z'))).toMatchObject({ coveredDays: 14, monthDays: 30, amountCents: 1400, periodEnd: new Date('2026-12-01T00:00:00Z') });
    expect(initialCharge(1999, new Date('2027-02-01T00:00:00Z'))).toMatchObject({ coveredDays: 28, monthDays: 28, amountCents: 1999 });
    expect(initialCharge(1999, new Date('2028-02-29T12:00:00Z'))).toMatchObject({ coveredDays: 1, monthDays: 29, amountCents: 69 }); // 68.93
    expect(prorateCents(1419, 11, 22)).toBe(710); // 709.5 rounds up
    expect(billingPeriodOf(new Date('2026-12-31T23:59:59Z'))).toEqual({ start: new Date('2026-12-01T00:00:00Z'), end: new Date('2027-01-01T00:00:00Z') });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 31 }), fc.integer({ min: 28, max: 31 }), (amount, part, whole) => {
        fc.pre(part <= whole);
        const p = prorateCents(amount, part, whole);
        expect(Math.abs(p - (amount * part) / whole)).toBeLessThanOrEqual(0.5);
      }),
    );
  });

  it('refunds the unused whole days after the uninstall day, and never more than the charge or the developer share', () => {
    const charge = { amountCents: 1419, developerCents: 1206, periodStart: new Date('2027-01-10T00:00:00Z'), periodEnd: new Date('2027-02-01T00:00:00Z') };
    expect(uninstallRefund(charge, new Date('2027-01-20T09:00:00Z'))).toEqual({ unusedDays: 11, coveredDays: 22, amountCents: 710, developerCents: 603, platformCents: 107 });
    expect(uninstallRefund(charge, new Date('2027-01-31T23:00:00Z'))).toMatchObject({ unusedDays: 0, amountCents: 0 });
    expect(uninstallRefund(charge, new Date('2027-01-10T01:00:00Z'))).toMatchObject({ unusedDays: 21, amountCents: 1355 }); // 1354.5
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 40 }), (amount, day) => {
        const { developerCents } = splitAppCharge(amount);
        const r = uninstallRefund({ ...charge, amountCents: amount, developerCents }, new Date(Date.UTC(2027, 0, day, 12)));
        expect(r.developerCents + r.platformCents).toBe(r.amountCents);
        expect(r.amountCents).toBeLessThanOrEqual(amount);
        expect(r.developerCents).toBeLessThanOrEqual(developerCents);
        expect(r.platformCents).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('retries 1, 3 and 5 days after the first failure, then stops (suspension)', () => {
    const first = new Date('2027-01-01T01:00:00Z');
    expect([1, 2, 3, 4].map((n) => nextChargeRetryAt(first, n)?.toISOString() ?? null)).toEqual(['2027-01-02T01:00:00.000Z', '2027-01-04T01:00:00.000Z', '2027-01-06T01:00:00.000Z', null]);
  });

  it('cuts weekly payouts at the latest Monday 00:00 UTC', () => {
    expect(weeklyPayoutCutoff(new Date('2027-03-08T00:05:00Z')).toISOString()).toBe('2027-03-08T00:00:00.000Z');
    expect(weeklyPayoutCutoff(new Date('2027-03-14T23:59:00Z')).toISOString()).toBe('2027-03-08T00:00:00.000Z');
    expect(weeklyPayoutCutoff(new Date('2027-03-07T12:00:00Z')).toISOString()).toBe('2027-03-01T00:00:00.000Z');
  });
});
