import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_RAILS,
  feeCents,
  mergeRails,
  RAIL_NAMES,
  routePayment,
  type RailConfig,
  type RailName,
  type RoutingRequest,
} from '../../core/index.ts';

const rails = (patch: Partial<Record<RailName, Partial<RailConfig>>> = {}): RailConfig[] => DEFAULT_RAILS.map((r) => ({ ...r, ...patch[r.rail] }));

describe('routePayment (table)', () => {
  const cases: Array<{
    name: string;
    request: Omit<RoutingRequest, 'rails'>;
    rails?: RailConfig[];
    chosen: RailName | null;
    fee: number;
    candidates: Array<[RailName, number, string]>;
  }> = [
    {
      name: 'credit card present: 2.6 % + 10',
      request: { method: 'card', funding: 'credit', present: true, amountCents: 10_000, online: true },
      chosen: 'card_present',
      fee: 270,
      candidates: [['card_present', 270, 'chosen']],
    },
    {
      name: 'debit card present is cheaper: 1.5 % + 10',
      request: { method: 'card', funding: 'debit', present: true, amountCents: 10_000, online: true },
      chosen: 'card_present',
      fee: 160,
      candidates: [['card_present', 160, 'chosen']],
    },
    {
      name: 'credit card not present: 2.9 % + 30',
      request: { method: 'card', funding: 'credit', amountCents: 10_000, online: true },
      chosen: 'card_not_present',
      fee: 320,
      candidates: [['card_not_present', 320, 'chosen']],
    },
    {
      name: 'debit card not present: 2.0 % + 30',
      request: { method: 'card', funding: 'debit', amountCents: 10_000, online: true },
      chosen: 'card_not_present',
      fee: 230,
      candidates: [['card_not_present', 230, 'chosen']],
    },
    {
      name: 'a tapped wallet: card present beats the wallet rail',
      request: { method: 'apple_pay', present: true, amountCents: 10_000, online: true },
      chosen: 'card_present',
      fee: 270,
      candidates: [
        ['apple_pay', 285, 'costlier'],
        ['card_present', 270, 'chosen'],
      ],
    },
    {
      name: 'a large payment open to any online rail: ACH capped at 5.00 wins',
      request: { method: 'any_online', amountCents: 2_500_000, online: true },
      chosen: 'ach',
      fee: 500,
      candidates: [
        ['card_not_present', 72_530, 'costlier'],
        ['ach', 500, 'chosen'],
        ['instant_bank', 750, 'costlier'],
      ],
    },
    {
      name: 'ACH down: instant bank takes the bank payment',
      request: { method: 'bank', amountCents: 50_000, online: true },
      rails: rails({ ach: { status: 'down' } }),
      chosen: 'instant_bank',
      fee: 750,
      candidates: [
        ['ach', 400, 'down'],
        ['instant_bank', 750, 'chosen'],
      ],
    },
    {
      name: 'over the ACH limit: instant bank',
      request: { method: 'bank', amountCents: 20_000_000, online: true },
      chosen: 'instant_bank',
      fee: 750,
      candidates: [
        ['ach', 500, 'over_limit'],
        ['instant_bank', 750, 'chosen'],
      ],
    },
    {
      name: 'offline: online-only rails are skipped, the tapped wallet goes card present',
      request: { method: 'google_pay', present: true, amountCents: 1_000, online: false },
      chosen: 'card_present',
      fee: 36,
      candidates: [
        ['google_pay', 42, 'offline'],
        ['card_present', 36, 'chosen'],
      ],
    },
    {
      name: 'offline: a bank payment has no rail',
      request: { method: 'bank', amountCents: 1_000, online: false },
      chosen: null,
      fee: 0,
      candidates: [
        ['ach', 8, 'offline'],
        ['instant_bank', 750, 'offline'],
      ],
    },
    {
      name: 'a rail the merchant turned off',
      request: { method: 'apple_pay', amountCents: 1_000, online: true },
      rails: rails({ apple_pay: { enabled: false } }),
      chosen: 'card_not_present',
      fee: 59,
      candidates: [
        ['apple_pay', 42, 'disabled'],
        ['card_not_present', 59, 'chosen'],
      ],
    },
    {
      name: 'equal fees: the faster settlement wins',
      request: { method: 'bank', amountCents: 100_000, online: true },
      rails: rails({ instant_bank: { fee: { basisPoints: 0, fixedCents: 500, capCents: null } } }),
      chosen: 'instant_bank',
      fee: 500,
      candidates: [
        ['ach', 500, 'slower_settlement'],
        ['instant_bank', 500, 'chosen'],
      ],
    },
    {
      name: 'cash is free',
      request: { method: 'cash', present: true, amountCents: 1_234, online: false },
      chosen: 'cash',
      fee: 0,
      candidates: [['cash', 0, 'chosen']],
    },
  ];

  it.each(cases)('$name', ({ request, rails: given, chosen, fee, candidates }) => {
    const decision = routePayment({ ...request, rails: given ?? DEFAULT_RAILS });
    expect(decision.chosen).toBe(chosen);
    expect(decision.feeCents).toBe(fee);
    expect(decision.candidates.map((c) => [c.rail, c.feeCents, c.reason])).toEqual(candidates);
    expect(decision.candidates.every((c) => c.available === !['disabled', 'down', 'offline', 'below_minimum', 'over_limit'].includes(c.reason))).toBe(
      true,
    );
    expect(decision.reason.length).toBeGreaterThan(10);
  });

  it('below the ACH minimum (1.00) a bank payment has no rail: the instant bank minimum is 1.00 too', () => {
    const decision = routePayment({ method: 'bank', amountCents: 50, online: true, rails: DEFAULT_RAILS });
    expect(decision.chosen).toBeNull();
    expect(decision.candidates.map((c) => c.reason)).toEqual(['below_minimum', 'below_minimum']);
    expect(decision.reason).toContain('below minimum');
  });
});

describe('fees', () => {
  it('ACH is 0.8 % capped at 5.00; rounding is half-even', () => {
    const ach = DEFAULT_RAILS.find((r) => r.rail === 'ach')!.fee;
    expect(feeCents(ach, 10_000)).toBe(80);
    expect(feeCents(ach, 62_500)).toBe(500);
    expect(feeCents(ach, 1_000_000)).toBe(500);
    expect(feeCents({ basisPoints: 250, fixedCents: 0, capCents: null }, 100)).toBe(2); // 2.5 → 2
  });

  it('the chosen fee is never more than any available candidate; debit never costs more than credit by default', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('card', 'apple_pay', 'google_pay', 'bank', 'any_online' as const),
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.boolean(),
        fc.boolean(),
        (method, amountCents, present, online) => {
          const credit = routePayment({ method, amountCents, present, online, funding: 'credit', rails: DEFAULT_RAILS });
          const debit = routePayment({ method, amountCents, present, online, funding: 'debit', rails: DEFAULT_RAILS });
          for (const c of credit.candidates) if (c.available) expect(credit.feeCents).toBeLessThanOrEqual(c.feeCents);
          if (credit.chosen && debit.chosen) expect(debit.feeCents).toBeLessThanOrEqual(credit.feeCents);
        },
      ),
    );
  });

  it('mergeRails keeps every rail once, in order, with the overrides', () => {
    const merged = mergeRails([{ ...DEFAULT_RAILS[4]!, status: 'down' }]);
    expect(merged.map((r) => r.rail)).toEqual([...RAIL_NAMES]);
    expect(merged[4]!.status).toBe('down');
  });
});
