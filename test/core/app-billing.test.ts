/**
 * core/app-billing.ts: the arithmetic of app subscriptions — the 85/15 split always adds up to the charge
 * in minor units and never pays the developer more than 85 %; proration by whole UTC days (half up); the retry
 * schedule; the weekly payout cut-off; the hold on developer earnings (it outlasts every refund window), where a
 * refund is taken from and how a release repays a debt; what an app's new price does to a subscription.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  billingPeriodOf,
  DEVELOPER_EARNINGS_HOLD_DAYS,
  earningsAvailableAt,
  initialCharge,
  nextChargeRetryAt,
  prorateCents,
  refundDebits,
  releaseCredits,
  splitAppCharge,
  subscriptionPriceChange,
  uninstallRefund,
  weeklyPayoutCutoff,
} from '../../core/index.ts';

const DAY_MS = 24 * 3600 * 1000;

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
    expect(initialCharge(3000, new Date('2026-11-17T23:59:00Z'))).toMatchObject({
      coveredDays: 14,
      monthDays: 30,
      amountCents: 1400,
      periodEnd: new Date('2026-12-01T00:00:00Z'),
    });
    expect(initialCharge(1999, new Date('2027-02-01T00:00:00Z'))).toMatchObject({ coveredDays: 28, monthDays: 28, amountCents: 1999 });
    expect(initialCharge(1999, new Date('2028-02-29T12:00:00Z'))).toMatchObject({ coveredDays: 1, monthDays: 29, amountCents: 69 }); // 68.93
    expect(prorateCents(1419, 11, 22)).toBe(710); // 709.5 rounds up
    expect(billingPeriodOf(new Date('2026-12-31T23:59:59Z'))).toEqual({
      start: new Date('2026-12-01T00:00:00Z'),
      end: new Date('2027-01-01T00:00:00Z'),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 31 }),
        fc.integer({ min: 28, max: 31 }),
        (amount, part, whole) => {
          fc.pre(part <= whole);
          const p = prorateCents(amount, part, whole);
          expect(Math.abs(p - (amount * part) / whole)).toBeLessThanOrEqual(0.5);
        },
      ),
    );
  });

  it('refunds the unused whole days after the uninstall day, and never more than the charge or the developer share', () => {
    const charge = {
      amountCents: 1419,
      developerCents: 1206,
      periodStart: new Date('2027-01-10T00:00:00Z'),
      periodEnd: new Date('2027-02-01T00:00:00Z'),
    };
    expect(uninstallRefund(charge, new Date('2027-01-20T09:00:00Z'))).toEqual({
      unusedDays: 11,
      coveredDays: 22,
      amountCents: 710,
      developerCents: 603,
      platformCents: 107,
    });
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
    expect([1, 2, 3, 4].map((n) => nextChargeRetryAt(first, n)?.toISOString() ?? null)).toEqual([
      '2027-01-02T01:00:00.000Z',
      '2027-01-04T01:00:00.000Z',
      '2027-01-06T01:00:00.000Z',
      null,
    ]);
  });

  it('cuts weekly payouts at the latest Monday 00:00 UTC', () => {
    expect(weeklyPayoutCutoff(new Date('2027-03-08T00:05:00Z')).toISOString()).toBe('2027-03-08T00:00:00.000Z');
    expect(weeklyPayoutCutoff(new Date('2027-03-14T23:59:00Z')).toISOString()).toBe('2027-03-08T00:00:00.000Z');
    expect(weeklyPayoutCutoff(new Date('2027-03-07T12:00:00Z')).toISOString()).toBe('2027-03-01T00:00:00.000Z');
  });

  it("holds a charge's share at least until its refund window has closed: no uninstall after the release refunds anything", () => {
    expect(DEVELOPER_EARNINGS_HOLD_DAYS).toBeGreaterThanOrEqual(31);
    // An install on 1 March covers 31 days: its share is released 31 days later, on 1 April — the period's end.
    const march = initialCharge(3000, new Date('2027-03-01T10:00:00Z'));
    expect(earningsAvailableAt({ createdAt: new Date('2027-03-01T10:00:00Z'), periodEnd: march.periodEnd }).toISOString()).toBe(
      '2027-04-01T10:00:00.000Z',
    );
    // Any charge the billing makes — the install's rest of the month at any moment, or a renewal / retry / catch-up of a
    // period that started at most a month before — stops being refundable before its share is released.
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2030, 11, 31) }),
        fc.integer({ min: 0, max: 40 * 24 }),
        fc.boolean(),
        (t, hoursLater, renewal) => {
          const now = new Date(t);
          const period = renewal ? billingPeriodOf(now) : { start: initialCharge(1000, now).periodStart, end: initialCharge(1000, now).periodEnd };
          const amountCents = renewal ? 1000 : initialCharge(1000, now).amountCents;
          const charge = {
            amountCents,
            developerCents: splitAppCharge(amountCents).developerCents,
            periodStart: period.start,
            periodEnd: period.end,
          };
          const availableAt = earningsAvailableAt({ createdAt: now, periodEnd: period.end });
          expect(availableAt.getTime()).toBeGreaterThanOrEqual(now.getTime() + DEVELOPER_EARNINGS_HOLD_DAYS * DAY_MS);
          expect(availableAt.getTime() - now.getTime()).toBe(DEVELOPER_EARNINGS_HOLD_DAYS * DAY_MS); // the constant alone covers it
          const uninstall = new Date(availableAt.getTime() + hoursLater * 3600 * 1000);
          expect(uninstallRefund(charge, uninstall).amountCents).toBe(0);
        },
      ),
    );
  });

  it('takes a refund from pending first, then available, and owes the rest; the parts add up', () => {
    expect(refundDebits(603, { pendingCents: 2000, availableCents: 5000 })).toEqual({
      fromPendingCents: 603,
      fromAvailableCents: 0,
      toReceivableCents: 0,
    });
    expect(refundDebits(7368, { pendingCents: 0, availableCents: 0 })).toEqual({
      fromPendingCents: 0,
      fromAvailableCents: 0,
      toReceivableCents: 7368,
    });
    expect(refundDebits(1000, { pendingCents: 300, availableCents: 500 })).toEqual({
      fromPendingCents: 300,
      fromAvailableCents: 500,
      toReceivableCents: 200,
    });
    expect(() => refundDebits(-1, { pendingCents: 0, availableCents: 0 })).toThrow(RangeError);
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.nat(1_000_000), fc.nat(1_000_000), (r, pending, available) => {
        const d = refundDebits(r, { pendingCents: pending, availableCents: available });
        expect(d.fromPendingCents + d.fromAvailableCents + d.toReceivableCents).toBe(r);
        expect(d.fromPendingCents).toBeLessThanOrEqual(pending);
        expect(d.fromAvailableCents).toBeLessThanOrEqual(available);
        if (d.toReceivableCents > 0) expect([d.fromPendingCents, d.fromAvailableCents]).toEqual([pending, available]);
      }),
    );
  });

  it('releases held earnings oldest first, never more than is pending, repaying what is owed before anything is available', () => {
    expect(releaseCredits([1699, 850], { pendingCents: 2549, owedCents: 0 })).toEqual({
      perCharge: [
        { releasedCents: 1699, recoveredCents: 0 },
        { releasedCents: 850, recoveredCents: 0 },
      ],
      releasedCents: 2549,
      recoveredCents: 0,
      toAvailableCents: 2549,
    });
    expect(releaseCredits([5000, 5000], { pendingCents: 10_000, owedCents: 7368 })).toMatchObject({
      perCharge: [
        { releasedCents: 5000, recoveredCents: 5000 },
        { releasedCents: 5000, recoveredCents: 2368 },
      ],
      releasedCents: 10_000,
      recoveredCents: 7368,
      toAvailableCents: 2632,
    });
    // A refund took 1 000 of held money for an already released charge: the last release is short by that much.
    expect(releaseCredits([1500, 2000], { pendingCents: 2500, owedCents: 0 }).perCharge).toEqual([
      { releasedCents: 1500, recoveredCents: 0 },
      { releasedCents: 1000, recoveredCents: 0 },
    ]);
    fc.assert(
      fc.property(fc.array(fc.nat(100_000), { maxLength: 20 }), fc.nat(2_000_000), fc.nat(2_000_000), (held, pending, owed) => {
        const r = releaseCredits(held, { pendingCents: pending, owedCents: owed });
        expect(r.releasedCents).toBe(
          Math.min(
            pending,
            held.reduce((a, b) => a + b, 0),
          ),
        );
        expect(r.recoveredCents).toBe(Math.min(owed, r.releasedCents));
        expect(r.toAvailableCents).toBe(r.releasedCents - r.recoveredCents);
        r.perCharge.forEach((c, i) => {
          expect(c.releasedCents).toBeLessThanOrEqual(held[i]!);
          expect(c.recoveredCents).toBeLessThanOrEqual(c.releasedCents);
        });
      }),
    );
  });

  it('keeps the agreed price against a rise until the store accepts; applies a lower price; ends when the app is free', () => {
    const sub = { priceCents: 9_000_000, currency: 'USD' };
    expect(subscriptionPriceChange(sub, { priceCents: 9_000_000, currency: 'USD' })).toEqual({ kind: 'none' });
    expect(subscriptionPriceChange(sub, { priceCents: 1_000_000_000, currency: 'USD' })).toEqual({
      kind: 'rise',
      priceCents: 1_000_000_000,
      currency: 'USD',
    });
    expect(subscriptionPriceChange(sub, { priceCents: 5_000, currency: 'EUR' })).toEqual({ kind: 'rise', priceCents: 5_000, currency: 'EUR' });
    expect(subscriptionPriceChange(sub, { priceCents: 4_500_000, currency: 'USD' })).toEqual({ kind: 'lower', priceCents: 4_500_000 });
    expect(subscriptionPriceChange(sub, { priceCents: 0, currency: null })).toEqual({ kind: 'free' });
  });
});
