/**
 * Quiet hours (core/quiet-hours.ts): a daily window of local time in the store's zone, possibly over midnight; the
 * instant it ends follows the zone's daylight-saving changes (America/New_York: 2026-03-08 02:00 → 03:00,
 * 2026-11-01 02:00 → 01:00; Europe/London: 2026-03-29 01:00 → 02:00).
 */
import { describe, expect, it } from 'vitest';
import { quietHoursEnd } from '../../core/index.ts';

const end = (instant: string, zone: string, start: string, stop: string) =>
  quietHoursEnd(new Date(instant), zone, start, stop)?.toISOString() ?? null;

describe('quietHoursEnd', () => {
  it('a window within one day: inside it ends the same day, outside there is none; start counts, end does not', () => {
    expect(end('2026-06-10T13:30:00Z', 'UTC', '12:00', '14:00')).toBe('2026-06-10T14:00:00.000Z');
    expect(end('2026-06-10T12:00:00Z', 'UTC', '12:00', '14:00')).toBe('2026-06-10T14:00:00.000Z');
    expect(end('2026-06-10T14:00:00Z', 'UTC', '12:00', '14:00')).toBeNull();
    expect(end('2026-06-10T11:59:59Z', 'UTC', '12:00', '14:00')).toBeNull();
  });

  it('a window over midnight: the evening ends the next morning, the small hours the same morning', () => {
    // 23:30 in New York (EDT, −4) on 10 June → 08:00 EDT on 11 June.
    expect(end('2026-06-11T03:30:00Z', 'America/New_York', '21:00', '08:00')).toBe('2026-06-11T12:00:00.000Z');
    // 06:00 EDT on 11 June → 08:00 the same morning.
    expect(end('2026-06-11T10:00:00Z', 'America/New_York', '21:00', '08:00')).toBe('2026-06-11T12:00:00.000Z');
    // Noon: none.
    expect(end('2026-06-11T16:00:00Z', 'America/New_York', '21:00', '08:00')).toBeNull();
  });

  it('ends at the local time after a daylight-saving change inside the window, not a fixed offset later', () => {
    // 23:30 EST on 7 March; the clocks go forward that night: 08:00 EDT is 12:00Z (a fixed −5 would say 13:00Z).
    expect(end('2026-03-08T04:30:00Z', 'America/New_York', '21:00', '08:00')).toBe('2026-03-08T12:00:00.000Z');
    // 23:30 EDT on 31 October; the clocks go back that night: 08:00 EST is 13:00Z.
    expect(end('2026-11-01T03:30:00Z', 'America/New_York', '21:00', '08:00')).toBe('2026-11-01T13:00:00.000Z');
    // London's clocks go forward at 01:00 on 29 March: 22:00 GMT → 07:00 BST = 06:00Z.
    expect(end('2026-03-28T22:00:00Z', 'Europe/London', '21:00', '07:00')).toBe('2026-03-29T06:00:00.000Z');
  });

  it('an end the clocks skip is the same distance past the change; a repeated one is its first occurrence', () => {
    // 02:30 does not exist in New York on 8 March 2026: it ends at 03:30 EDT (07:30Z).
    expect(end('2026-03-08T05:00:00Z', 'America/New_York', '23:00', '02:30')).toBe('2026-03-08T07:30:00.000Z');
    // 01:30 happens twice on 1 November 2026: the first (EDT, 05:30Z).
    expect(end('2026-11-01T04:00:00Z', 'America/New_York', '23:00', '01:30')).toBe('2026-11-01T05:30:00.000Z');
  });

  it('equal start and end are no quiet hours; malformed times throw', () => {
    expect(end('2026-06-10T13:00:00Z', 'UTC', '13:00', '13:00')).toBeNull();
    expect(() => end('2026-06-10T13:00:00Z', 'UTC', '9pm', '08:00')).toThrow(/HH:MM/);
  });
});
