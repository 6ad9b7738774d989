import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderSchema, toUtcIsoDateTime, utcDateTime } from '../../core/index.ts';

describe('utcDateTime (ISO 8601 with an offset in −14:00 … +14:00, normalised to UTC)', () => {
  it('normalises an offset to the same instant in UTC, keeping the fraction as written', () => {
    expect(utcDateTime.parse('2024-03-01T10:00:00+02:00')).toBe('2024-03-01T08:00:00Z');
    expect(utcDateTime.parse('2024-03-01T10:00:00-05:30')).toBe('2024-03-01T15:30:00Z');
    expect(utcDateTime.parse('2024-01-01T00:00:00+14:00')).toBe('2023-12-31T10:00:00Z');
    expect(utcDateTime.parse('2024-01-01T00:00:00-14:00')).toBe('2024-01-01T14:00:00Z');
    expect(utcDateTime.parse('2024-02-29T23:59:59.123456+01:00')).toBe('2024-02-29T22:59:59.123456Z');
    // A time already in UTC is left exactly as it is (what the register's toISOString() writes).
    expect(utcDateTime.parse('2026-03-01T12:00:00.000Z')).toBe('2026-03-01T12:00:00.000Z');
  });

  it('refuses offsets outside the real range, days that do not exist and other shapes', () => {
    for (const bad of [
      '2024-01-01T00:00:00+16:00',
      '2024-01-01T00:00:00-16:00',
      '2024-01-01T00:00:00+14:01',
      '2024-01-01T00:00:00+23:59',
      '2024-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2024-01-01T00:00:00',
      '2024-01-01T00:00Z',
      '2024-01-01 00:00:00Z',
      '2024-01-01T24:00:00Z',
      '0001-01-01T00:00:00+00:01',
      '9999-12-31T23:59:59-00:01',
      'yesterday',
    ]) {
      expect(utcDateTime.safeParse(bad).success, bad).toBe(false);
    }
  });

  it('is the same instant as Date parsing says, for any time and offset in range (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        (at, offsetMinutes) => {
          const local = new Date(at.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const abs = Math.abs(offsetMinutes);
          const offset = `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          const out = utcDateTime.parse(`${local}${offset}`);
          expect(out.endsWith('Z')).toBe(true);
          expect(new Date(out).getTime()).toBe(at.getTime());
          expect(toUtcIsoDateTime(out)).toBe(out);
        },
      ),
    );
  });

  it('is the schema of an order createdAt', () => {
    const shape = orderSchema.shape.createdAt;
    expect(shape.safeParse('2024-01-01T00:00:00+16:00').success).toBe(false);
    expect(shape.parse('2024-01-01T01:00:00+01:00')).toBe('2024-01-01T00:00:00Z');
  });
});
