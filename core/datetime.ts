/**
 * Timestamps on input (docs/decisions/0005-domain-rules-once-bounds-and-formats.md): ISO 8601 / RFC 3339 date-times with seconds and a
 * UTC offset, the offset limited to the range in use on Earth (−14:00 … +14:00, UTC+14 being Kiribati's Line
 * Islands), normalised to UTC (`…Z`) before anything stores or compares them. PostgreSQL refuses offsets of ±16:00
 * and more (a 500 if it ever saw one); normalising here means every layer sees one spelling of an instant.
 */
import { z } from 'zod';

/**
 * `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)` with the offset between −14:00 and +14:00. Calendar validity (Feb 30) is
 * checked separately, by {@link isValidCalendarDate}.
 */
export const ISO_DATETIME_PATTERN =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,9}))?(Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))$/;

/** True when `YYYY-MM-DD` (Gregorian, proleptic) names a day that exists: 2024-02-29 yes, 2023-02-29 no. */
export function isValidCalendarDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(2000, month - 1, day));
  d.setUTCFullYear(year);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/**
 * Normalises an ISO 8601 date-time with an offset to UTC: `2024-03-01T10:00:00+02:00` → `2024-03-01T08:00:00Z`,
 * keeping the fraction of a second as written (`.5` stays `.5`, `.123456` keeps its microseconds: offsets are whole
 * minutes, so the fraction never changes). Returns undefined when `value` does not match {@link ISO_DATETIME_PATTERN},
 * names a day that does not exist, or lies outside the years 0001 … 9999 once in UTC.
 */
export function toUtcIsoDateTime(value: string): string | undefined {
  const m = ISO_DATETIME_PATTERN.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, offset] = m;
  const year = Number(y);
  if (!isValidCalendarDate(year, Number(mo), Number(d))) return undefined;
  let offsetMinutes = 0;
  if (offset !== 'Z') {
    const sign = offset!.startsWith('-') ? -1 : 1;
    offsetMinutes = sign * (Number(offset!.slice(1, 3)) * 60 + Number(offset!.slice(4, 6)));
  }
  const local = new Date(0);
  local.setUTCFullYear(year, Number(mo) - 1, Number(d));
  local.setUTCHours(Number(h), Number(mi) - offsetMinutes, Number(s), 0);
  const utcYear = local.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return undefined;
  const iso = local.toISOString(); // YYYY-MM-DDThh:mm:ss.000Z for years 0001 … 9999
  return `${iso.slice(0, 19)}${fraction !== undefined ? `.${fraction}` : ''}Z`;
}

/**
 * The schema of every timestamp the API and the register send (order `createdAt`, `createdFrom`, `createdTo`,
 * `updatedSince`, …): an ISO 8601 date-time with seconds and an offset within −14:00 … +14:00, parsed to the same
 * instant in UTC (`…Z`). Refused with a 400 naming the field: another shape, a day that does not exist, an offset
 * outside the real range, a time before 0001-01-01 or after 9999-12-31 in UTC. JSON Schema: `format: date-time` with
 * the pattern above. Output: a string ending in `Z`.
 */
export const utcDateTime = z
  .string()
  .max(40)
  .regex(ISO_DATETIME_PATTERN, {
    message: 'must be an ISO 8601 date-time with seconds and a UTC offset between -14:00 and +14:00, e.g. 2024-03-01T10:00:00Z',
    abort: true,
  })
  .refine((v) => toUtcIsoDateTime(v) !== undefined, 'must be a real date and time between the years 0001 and 9999 (UTC)')
  .overwrite((v) => toUtcIsoDateTime(v) ?? v)
  .meta({ format: 'date-time' });
