import { describe, expect, it } from 'vitest';
import {
  buildCashMovementJournalTransaction,
  businessDayOf,
  cashMovementSchema,
  countedTotalCents,
  denominationCountProblem,
  denominationsOf,
  diffZReports,
  computeZReport,
  emptyServiceCash,
  isSaleOfShift,
  reportLines,
  salesFigureLines,
  rollUpReports,
  shiftCloseoutSchema,
  type CashMovement,
  type Shift,
} from '../../core/index.ts';
import { shiftReportLines } from '../../renderer/src/register/devices/shift-report-job.ts';

/** Core of shifts and the closeout (core/shifts.ts): business day, denominations, counts, X/Z-report. */
describe('shifts core', () => {
  it('counts a business day in the store time zone from its cut-off hour', () => {
    // 02:30 in New York on 11 March is still the business day of 10 March with a 04:00 cut-off …
    expect(businessDayOf('2026-03-11T06:30:00Z', 'America/New_York', 4)).toBe('2026-03-10');
    // … and 11 March from 04:00 local on.
    expect(businessDayOf('2026-03-11T08:00:00Z', 'America/New_York', 4)).toBe('2026-03-11');
    // A cut-off at midnight is the calendar day; Tokyo is ahead of UTC.
    expect(businessDayOf('2026-03-10T23:30:00Z', 'Asia/Tokyo', 0)).toBe('2026-03-11');
  });

  it("knows the notes and coins of USD, EUR, GBP and CAD, and refuses a count in another currency's", () => {
    for (const c of ['USD', 'EUR', 'GBP', 'CAD']) expect(denominationsOf(c).length).toBeGreaterThan(5);
    expect(denominationCountProblem('GBP', [{ kind: 'note', valueCents: 5_000, count: 1 }])).toBeUndefined();
    expect(denominationCountProblem('GBP', [{ kind: 'note', valueCents: 10_000, count: 1 }])).toBe('note 10000 is not a GBP denomination');
    expect(denominationCountProblem('CAD', [{ kind: 'coin', valueCents: 1, count: 3 }])).toBe('coin 1 is not a CAD denomination');
    expect(
      denominationCountProblem('USD', [
        { kind: 'coin', valueCents: 25, count: 1 },
        { kind: 'coin', valueCents: 25, count: 2 },
      ]),
    ).toMatch(/twice/);
    expect(
      countedTotalCents([
        { kind: 'note', valueCents: 2_000, count: 3 },
        { kind: 'coin', valueCents: 25, count: 4 },
      ]),
    ).toBe(6_100);
  });

  it('an X-report of an empty shift expects the float; a Z-report with a count gives the over/short, and a closeout must add up', () => {
    const shift: Shift = {
      id: 'shf_01JQ0000000000000000000000',
      registerId: 'reg_a',
      registerNumber: 1,
      currency: 'EUR',
      openedAt: '2026-03-10T08:00:00Z',
      openingFloatCents: 15_000,
    };
    const x = computeZReport(
      shift,
      [],
      [
        {
          id: 'cmv_01JQ0000000000000000000001',
          shiftId: shift.id,
          registerId: 'reg_a',
          registerNumber: 1,
          kind: 'paid_out',
          amountCents: 500,
          reason: 'milk',
          createdAt: '2026-03-10T09:00:00Z',
        },
      ],
    );
    expect(x).toMatchObject({ kind: 'x', expectedCashCents: 14_500, overShortCents: null, paidOutCents: 500 });
    const z = computeZReport(shift, [], [], { count: { closedAt: '2026-03-10T18:00:00Z', countedCashCents: 15_020 } });
    expect(z).toMatchObject({ kind: 'z', overShortCents: 20 });
    expect(diffZReports(z, { ...z, overShortCents: 0 })).toEqual([{ field: 'overShortCents', register: 20, server: 0 }]);
    const closeout = {
      id: 'clo_01JQ0000000000000000000002',
      shiftId: shift.id,
      registerId: 'reg_a',
      registerNumber: 1,
      currency: 'EUR',
      closedAt: '2026-03-10T18:00:00Z',
      counted: [{ kind: 'note', valueCents: 5_000, count: 3 }],
      countedCashCents: 15_020,
      report: z,
    };
    expect(shiftCloseoutSchema.safeParse(closeout).success).toBe(false);
    expect(shiftCloseoutSchema.safeParse({ ...closeout, counted: [...closeout.counted, { kind: 'coin', valueCents: 20, count: 1 }] }).success).toBe(
      true,
    );
  });

  it("financial services' movements: they need their record, post nothing, move the expected cash, and the server's figures override the register's", () => {
    const shift: Shift = {
      id: 'shf_01JQ0000000000000000000010',
      registerId: 'reg_a',
      registerNumber: 1,
      currency: 'USD',
      openedAt: '2026-03-10T08:00:00Z',
      openingFloatCents: 20_000,
    };
    const move = (kind: CashMovement['kind'], amountCents: number, extra: Partial<CashMovement> = {}) => ({
      id: `cmv_01JQ00000000000000000000${String(amountCents % 100).padStart(2, '0')}`,
      shiftId: shift.id,
      registerId: 'reg_a',
      registerNumber: 1,
      kind,
      amountCents,
      createdAt: '2026-03-10T09:00:00Z',
      ...extra,
    });
    const check = move('check_cashed', 9_650, { serviceRef: 'chq_01JQ0000000000000000000011', feeCents: 350 });
    const bill = move('bill_payment_in', 5_150, { serviceRef: 'bpy_01JQ0000000000000000000012', feeCents: 150 });
    expect(cashMovementSchema.safeParse(check).success).toBe(true);
    expect(cashMovementSchema.safeParse({ ...check, serviceRef: undefined }).error?.issues[0]?.path).toEqual(['serviceRef']);
    expect(cashMovementSchema.safeParse(move('paid_in', 100, { reason: 'float', serviceRef: 'chq_01JQ0000000000000000000011' })).success).toBe(false);
    expect(buildCashMovementJournalTransaction(cashMovementSchema.parse(check), 'USD')).toBeUndefined();

    const x = computeZReport(shift, [], [check, bill, check]);
    expect(x.services).toMatchObject({
      checksCashed: { count: 1, amountCents: 9_650 },
      billPaymentsIn: { count: 1, amountCents: 5_150 },
      feesCents: 500,
    });
    expect(x.expectedCashCents).toBe(20_000 - 9_650 + 5_150);
    // The server passes its own figures: a check the register never heard of shows as a difference.
    const server = computeZReport(shift, [], [check, bill], {
      services: {
        ...emptyServiceCash(),
        checksCashed: { count: 2, amountCents: 19_300 },
        billPaymentsIn: { count: 1, amountCents: 5_150 },
        feesCents: 850,
      },
    });
    expect(diffZReports(x, server).map((d) => d.field)).toEqual(['services', 'expectedCashCents']);
    expect(rollUpReports('USD', [x, server]).services).toMatchObject({ checksCashed: { count: 3, amountCents: 28_950 }, feesCents: 1_350 });
  });

  it('says what each sales figure is, in the same words on the shift screen, its printout and the back office (gross $11.28 under net $12.27 with tax)', () => {
    const shift: Shift = {
      id: 'shf_01JQ0000000000000000000009',
      registerId: 'reg_a',
      registerNumber: 1,
      currency: 'USD',
      openedAt: '2026-03-10T08:00:00Z',
      openingFloatCents: 0,
    };
    const report = {
      ...computeZReport(shift, [], []),
      salesCount: 1,
      grossSalesCents: 1128,
      discountsCents: 0,
      taxCents: 99,
      netSalesCents: 1227,
      refundsCents: 380,
    };
    const lines = salesFigureLines(report);
    expect(lines).toEqual([
      { label: 'Sales', count: 1 },
      { label: 'Gross sales (before discounts and tax)', cents: 1128 },
      { label: 'Discounts', cents: -0 },
      { label: 'Net sales (after discounts, excl. tax)', cents: 1128 },
      { label: 'Tax', cents: 99 },
      { label: 'Net sales incl. tax', cents: 1227 },
      { label: 'Tips', cents: 0 },
      { label: 'Refunds (returns made in this shift)', cents: -380 },
    ]);
    // The register's screen and printout, and the back office's report of the shift, use the same labels and values.
    const register = new Map(shiftReportLines(report).map(([label, value]) => [label, value]));
    const backOffice = new Map(reportLines('Z', report).map((l) => [l.label, l.value]));
    for (const l of lines.slice(1)) {
      expect(register.get(l.label), l.label).toBeDefined();
      expect(register.get(l.label)).toBe(backOffice.get(l.label));
    }
    expect(register.get('Refunds (returns made in this shift)')).toBe('-$3.80');
    // A store's day (no kind: several shifts) names its refunds without "this shift".
    const { kind: _kind, ...day } = report;
    expect(reportLines('Day', day).some((l) => l.label === 'Refunds (returns)' && l.value === '-$3.80')).toBe(true);
  });

  it('a sale rung up with no shift open, before the shift it opened, counts in it when the server reaches back to the last close', () => {
    const shift: Shift = {
      id: 'shf_01JQ0000000000000000000010',
      registerId: 'reg_a',
      registerNumber: 1,
      currency: 'USD',
      openedAt: '2026-03-10T08:00:00.005Z',
      openingFloatCents: 0,
    };
    const sale = { registerId: 'reg_a', createdAt: '2026-03-10T08:00:00.001Z' };
    expect(isSaleOfShift(shift, null, sale)).toBe(false);
    expect(isSaleOfShift(shift, null, sale, '2026-03-10T07:00:00Z')).toBe(true);
    // Not a sale at or before the last close, nor one of another register.
    expect(isSaleOfShift(shift, null, { ...sale, createdAt: '2026-03-10T07:00:00Z' }, '2026-03-10T07:00:00Z')).toBe(false);
    expect(isSaleOfShift(shift, null, { ...sale, registerId: 'reg_b' }, '2026-03-10T07:00:00Z')).toBe(false);
  });
});
