/**
 * Free start times (core/appointments.ts `availableStarts`) against an independent oracle: every start offered keeps
 * the whole appointment in a shift of its local day — wall-clock time read with Intl, not Luxon —, clear of time off,
 * the staff parts clear of breaks and bookings, and a resource of each needed kind free throughout; and every start
 * on the grid that the oracle allows is offered. Generated over the store's daylight-saving days (America/New_York
 * 2026-03-08 and 2026-11-01) and other zones, with the process's own zone (TZ) set to others than the store's.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { availableStarts, busyParts, type AvailabilityInput, type ResourceKind, type ServiceTiming, type StaffShift } from '../../core/index.ts';

const MIN = 60_000;

/** Local date and minutes since midnight of `t` in `zone`, read with Intl (the oracle's own clock). */
const formats = new Map<string, Intl.DateTimeFormat>();
function wall(t: number, zone: string): { date: string; minutes: number } {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(t)).map((p) => [p.type, p.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}
const mins = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
const weekdayOf = (date: string) => ((new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7) + 1;

/** Whether the oracle lets `staffId` start `service` at `start` (every minute checked by its wall-clock time). */
function oracleAllows(input: AvailabilityInput, staffIndex: number, start: number): boolean {
  const { timeZone, date, service } = input;
  const staff = input.staff[staffIndex]!;
  if (!service.prices.some((p) => p.level.toLowerCase() === staff.level.toLowerCase())) return false;
  const parts = busyParts(service, start);
  const end = parts[parts.length - 1]!.end;
  const shifts = staff.shifts.filter((s) => s.weekday === weekdayOf(date));
  // One shift holds every minute of the appointment, on its local day.
  const shift = shifts.find((s) => {
    for (let t = start; t < end; t += MIN) {
      const w = wall(t, timeZone);
      if (w.date !== date || w.minutes < mins(s.start) || w.minutes >= mins(s.end)) return false;
    }
    return true;
  });
  if (!shift) return false;
  for (let t = start; t < end; t += MIN) if (staff.timeOff.some((o) => Date.parse(o.from) <= t && t < Date.parse(o.to))) return false;
  for (const part of parts.filter((p) => p.kind !== 'processing'))
    for (let t = part.start; t < part.end; t += MIN) {
      const w = wall(t, timeZone).minutes;
      if ((shift.breaks ?? []).some((b) => mins(b.start) <= w && w < mins(b.end))) return false;
      if (staff.busy.some((b) => b.start <= t && t < b.end)) return false;
    }
  return service.resourceKinds.every((kind) => input.resources.some((r) => r.kind === kind && !r.busy.some((b) => b.start < end && start < b.end)));
}

// Wall times on the quarter hour, never in 01:00–02:59: the hours a daylight-saving change skips or repeats, where a
// wall time names no instant or two (the oracle reads wall clocks; Luxon picks one instant — see wallTimeToInstant).
const quarter = fc.integer({ min: 0, max: 95 }).filter((q) => q < 4 || q >= 12);
const hhmm = (q: number) => `${String(Math.floor(q / 4)).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`;
const shiftArb = (weekday: number): fc.Arbitrary<StaffShift> =>
  fc
    .tuple(quarter, quarter, fc.option(fc.tuple(quarter, quarter), { nil: undefined }))
    .filter(([a, b]) => a < b)
    .map(([a, b, brk]) => {
      const breaks = brk && brk[0] < brk[1] && brk[0] >= a && brk[1] <= b ? [{ start: hhmm(brk[0]), end: hhmm(brk[1]) }] : [];
      return { weekday, start: hhmm(a), end: hhmm(b), breaks };
    });

const serviceArb: fc.Arbitrary<ServiceTiming & { prices: { level: string; priceCents: number }[]; resourceKinds: ResourceKind[] }> = fc
  .record({
    durationMinutes: fc.integer({ min: 2, max: 16 }).map((n) => n * 15),
    processing: fc.option(
      fc.record({ afterMinutes: fc.integer({ min: 1, max: 6 }).map((n) => n * 10), minutes: fc.integer({ min: 1, max: 6 }).map((n) => n * 10) }),
      { nil: null },
    ),
    bufferAfterMinutes: fc.constantFrom(0, 5, 15),
    resourceKinds: fc.subarray(['chair', 'room', 'basin'] as ResourceKind[]),
    levels: fc.subarray(['junior', 'senior'], { minLength: 1 }),
  })
  .map(({ levels, processing, durationMinutes, ...rest }) => ({
    ...rest,
    durationMinutes,
    processing: processing && processing.afterMinutes + processing.minutes < durationMinutes ? processing : null,
    prices: levels.map((level) => ({ level, priceCents: 5_000 })),
  }));

const DAYS: [string, string][] = [
  ['America/New_York', '2026-03-08'],
  ['America/New_York', '2026-11-01'],
  ['America/New_York', '2026-06-16'],
  ['Europe/London', '2026-03-29'],
  ['Australia/Lord_Howe', '2026-04-05'],
  ['Asia/Kolkata', '2026-01-15'],
];

const inputArb: fc.Arbitrary<AvailabilityInput> = fc.constantFrom(...DAYS).chain(([timeZone, date]) => {
  const weekday = weekdayOf(date);
  const dayStart = Date.parse(`${date}T00:00:00Z`) - 18 * 3_600_000;
  const span = fc.tuple(fc.integer({ min: 0, max: 60 * 4 * 12 }), fc.integer({ min: 1, max: 12 })).map(([q, len]) => ({
    start: dayStart + q * 15 * MIN,
    end: dayStart + (q + len) * 15 * MIN,
  }));
  const staffArb = fc.record({
    level: fc.constantFrom('junior', 'senior', 'master'),
    shifts: fc.array(shiftArb(weekday), { minLength: 1, maxLength: 2 }).map((shifts) =>
      // Shifts of one day do not overlap (the schedule's rule).
      shifts.filter((s, i) => shifts.slice(0, i).every((o) => mins(s.end) <= mins(o.start) || mins(o.end) <= mins(s.start))),
    ),
    timeOff: fc.array(
      span.map((s) => ({ from: new Date(s.start).toISOString(), to: new Date(s.end).toISOString() })),
      { maxLength: 2 },
    ),
    busy: fc.array(span, { maxLength: 4 }),
  });
  return fc.record({
    timeZone: fc.constant(timeZone),
    date: fc.constant(date),
    service: serviceArb,
    staff: fc.array(staffArb, { minLength: 1, maxLength: 3 }).map((list) => list.map((s, i) => ({ ...s, staffId: `stf_${i}` }))),
    resources: fc
      .array(fc.record({ kind: fc.constantFrom<ResourceKind>('chair', 'room', 'basin'), busy: fc.array(span, { maxLength: 3 }) }), { maxLength: 4 })
      .map((list) => list.map((r, i) => ({ ...r, id: `ars_${i}` }))),
    stepMinutes: fc.constantFrom(15, 30),
  });
});

/** The grid of candidate starts: every step from each shift's start instant (as the function takes it) while inside it. */
function expectedStarts(input: AvailabilityInput): Map<string, string[]> {
  const out = new Map<number, string[]>();
  input.staff.forEach((staff, i) => {
    for (const shift of staff.shifts.filter((s) => s.weekday === weekdayOf(input.date))) {
      // The shift's first instant, found by the oracle's clock: the first minute of the day whose wall time is its start.
      let from: number | undefined;
      const midnightUtc = Date.parse(`${input.date}T00:00:00Z`);
      for (let t = midnightUtc - 15 * 3_600_000; t < midnightUtc + 39 * 3_600_000; t += 15 * MIN) {
        const w = wall(t, input.timeZone);
        if (w.date === input.date && w.minutes === mins(shift.start)) {
          from = t;
          break;
        }
      }
      if (from === undefined) continue;
      for (
        let start = from;
        wall(start, input.timeZone).date === input.date && wall(start, input.timeZone).minutes < mins(shift.end);
        start += input.stepMinutes * MIN
      )
        if (oracleAllows(input, i, start)) out.set(start, [...new Set([...(out.get(start) ?? []), staff.staffId])]);
    }
  });
  return new Map([...out.entries()].sort(([a], [b]) => a - b).map(([t, ids]) => [new Date(t).toISOString(), ids]));
}

const asMap = (starts: { startsAt: string; staffIds: string[] }[]) => new Map(starts.map((s) => [s.startsAt, s.staffIds]));

describe('availableStarts', () => {
  const originalTz = process.env.TZ;
  afterEach(() => {
    if (originalTz === undefined) delete process.env.TZ;
    else process.env.TZ = originalTz;
  });

  it('offers exactly the starts the oracle allows, on daylight-saving days and in several zones', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const got = asMap(availableStarts(input));
        const want = expectedStarts(input);
        expect([...got.keys()]).toEqual([...want.keys()]);
        for (const [t, ids] of want) expect(new Set(got.get(t))).toEqual(new Set(ids));
      }),
      { numRuns: 100 },
    );
  });

  it("answers the same whatever the server's own time zone (TZ) is", () => {
    fc.assert(
      fc.property(inputArb, fc.constantFrom('Pacific/Kiritimati', 'Asia/Kathmandu', 'America/Los_Angeles', 'Etc/GMT+12'), (input, serverZone) => {
        process.env.TZ = 'UTC';
        const inUtc = availableStarts(input);
        process.env.TZ = serverZone;
        expect(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()).not.toBe(0); // the zone did change
        expect(availableStarts(input)).toEqual(inUtc);
      }),
      { numRuns: 30 },
    );
  });

  const allDay = (date: string, timeZone = 'America/New_York'): AvailabilityInput => ({
    timeZone,
    date,
    service: { durationMinutes: 60, processing: null, bufferAfterMinutes: 0, prices: [{ level: 'senior', priceCents: 1 }], resourceKinds: [] },
    staff: [
      {
        staffId: 'stf_a',
        level: 'senior',
        shifts: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '00:00', end: '24:00' })),
        timeOff: [],
        busy: [],
      },
    ],
    resources: [],
    stepMinutes: 15,
  });

  it('a daylight-saving day has the hours its clock shows: 23 on 2026-03-08, 25 on 2026-11-01 (New York)', () => {
    // 60-minute service every 15 minutes over the whole day: (hours × 60 − 60) / 15 + 1 starts.
    expect(availableStarts(allDay('2026-03-08'))).toHaveLength((23 * 60 - 60) / 15 + 1);
    expect(availableStarts(allDay('2026-06-16'))).toHaveLength((24 * 60 - 60) / 15 + 1);
    expect(availableStarts(allDay('2026-11-01'))).toHaveLength((25 * 60 - 60) / 15 + 1);
    const spring = availableStarts(allDay('2026-03-08')).map((s) => s.startsAt);
    // 01:45 EST is followed by 03:00 EDT: no start at a wall time that does not exist, the service still 60 real minutes.
    expect(spring).toContain('2026-03-08T06:45:00.000Z');
    expect(spring).toContain('2026-03-08T07:00:00.000Z');
    expect(spring[0]).toBe('2026-03-08T05:00:00.000Z');
    expect(spring.at(-1)).toBe('2026-03-09T03:00:00.000Z');
    // 09:00 is 13:00Z in summer time and 14:00Z after the change back.
    const nine = (date: string) =>
      availableStarts({
        ...allDay(date),
        staff: [{ ...allDay(date).staff[0]!, shifts: [0, 1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '09:00', end: '17:00' })) }],
      });
    expect(nine('2026-03-08')[0]!.startsAt).toBe('2026-03-08T13:00:00.000Z');
    expect(nine('2026-11-01')[0]!.startsAt).toBe('2026-11-01T14:00:00.000Z');
    expect(nine('2026-11-01')).toHaveLength(nine('2026-03-08').length);
  });
});
