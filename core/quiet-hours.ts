/**
 * A store's quiet hours for texts (docs/decisions/0092-vonage-and-quiet-hours.md): a daily window of local wall-clock
 * time, in the store's IANA time zone, during which texts that can wait (invoice texts and reminders) are held. The
 * window may cross midnight (`21:00`–`08:00`). Computed with the runtime's time-zone database (`Intl.DateTimeFormat`,
 * as core/shifts.ts `businessDayOf` does), so daylight-saving changes move the instants, not the local times.
 */
import { z } from 'zod';

/** `HH:MM`, 24-hour local time of day (`00:00` … `23:59`). */
export const LOCAL_TIME_OF_DAY_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** A local time of day as the settings API takes it: `HH:MM` (24-hour). */
export const localTimeOfDay = z.string().trim().regex(LOCAL_TIME_OF_DAY_PATTERN, 'must be a local time of day HH:MM (24-hour), e.g. 21:00');

/** Minutes after local midnight of `HH:MM`. @throws Error when `time` is not `HH:MM`. */
function minutesOf(time: string): number {
  const m = LOCAL_TIME_OF_DAY_PATTERN.exec(time);
  if (!m) throw new Error(`not a local time of day HH:MM: ${time}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  /** Minutes after local midnight. */
  minutes: number;
}

/** The wall-clock date and time of `instant` in `timeZone` (seconds dropped). */
function wallClockOf(instant: Date, timeZone: string): WallClock {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(instant);
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)!.value);
  return { year: get('year'), month: get('month'), day: get('day'), minutes: get('hour') * 60 + get('minute') };
}

/** The UTC offset of `timeZone` at `instant`, ms (local − UTC; seconds of historical offsets dropped). */
function offsetMsAt(instant: number, timeZone: string): number {
  const w = wallClockOf(new Date(instant), timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, 0, w.minutes);
  return asUtc - Math.floor(instant / 60_000) * 60_000;
}

/**
 * The first instant at which the wall clock of `timeZone` reads `minutes` after midnight on `year-month-day`. A
 * local time skipped by a daylight-saving change (02:30 on a spring-forward night) yields the instant the same
 * distance past the change (03:30 daylight time), as RFC 9557 / Temporal's "compatible" disambiguation does; a
 * repeated one (01:30 on a fall-back night) yields its first occurrence.
 */
function instantOfWallClock(year: number, month: number, day: number, minutes: number, timeZone: string): number {
  const asUtc = Date.UTC(year, month - 1, day, 0, minutes);
  const before = asUtc - offsetMsAt(asUtc - 86_400_000, timeZone);
  const after = asUtc - offsetMsAt(asUtc + 86_400_000, timeZone);
  const matches = (t: number) => {
    const w = wallClockOf(new Date(t), timeZone);
    return w.year === year && w.month === month && w.day === day && w.minutes === minutes;
  };
  const candidates = [before, after].filter(matches).sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0]!;
  // Skipped (a gap): the offset before the change puts the time past it, by the gap's length.
  return Math.max(before, after);
}

/**
 * When quiet hours from `start` to `end` (`HH:MM`, local to `timeZone`) hold at `instant`: the instant they end;
 * null when `instant` is outside them (or `start` equals `end`: no quiet hours). The window contains `start` and
 * excludes `end`; when `start` is after `end` it crosses midnight (`21:00`–`08:00`: from 21:00 one evening to 08:00
 * the next morning).
 * @throws Error when `start` or `end` is not `HH:MM` or `timeZone` is not an IANA zone the runtime knows.
 */
export function quietHoursEnd(instant: Date, timeZone: string, start: string, end: string): Date | null {
  const from = minutesOf(start);
  const to = minutesOf(end);
  if (from === to) return null;
  const now = wallClockOf(instant, timeZone);
  const inside = from < to ? now.minutes >= from && now.minutes < to : now.minutes >= from || now.minutes < to;
  if (!inside) return null;
  // The end is today when it is still ahead on the wall clock, else tomorrow (an evening inside a window over midnight).
  const endDay = new Date(Date.UTC(now.year, now.month - 1, now.day + (now.minutes < to ? 0 : 1)));
  const endsAt = instantOfWallClock(endDay.getUTCFullYear(), endDay.getUTCMonth() + 1, endDay.getUTCDate(), to, timeZone);
  return endsAt > instant.getTime() ? new Date(endsAt) : null;
}
