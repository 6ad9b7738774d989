import { describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../sync-server/src/platform/db/db.ts';
import { SqlFilter } from '../../sync-server/src/platform/db/sql-filter.ts';

describe('SqlFilter', () => {
  it('numbers placeholders in order, binds reused values once, and runs on PostgreSQL', async () => {
    const f = new SqlFilter(['a = ?'], [1]);
    f.add('b BETWEEN ? AND ?', 2, 3);
    const like = f.param('%x%');
    f.add(`(c ILIKE ${like} OR d ILIKE ${like})`);
    const limit = f.param(10);
    expect(f.where).toBe('a = $1 AND b BETWEEN $2 AND $3 AND (c ILIKE $4 OR d ILIKE $4)');
    expect(limit).toBe('$5');
    expect(f.params).toEqual([1, 2, 3, '%x%', 10]);

    const db = await openPgliteDb();
    try {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (VALUES (1, 2, 'axb', 'y'), (1, 9, 'x', 'x'), (2, 2, 'x', 'x')) t(a, b, c, d) WHERE ${f.where} LIMIT ${limit}`,
        f.params,
      );
      expect(rows[0]!.n).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('is TRUE without conditions and refuses a placeholder count that does not match the values', () => {
    expect(new SqlFilter().where).toBe('TRUE');
    expect(() => new SqlFilter().add('a = ? AND b = ?', 1)).toThrow(/2 placeholders, 1 values/);
  });
});
