import fc from 'fast-check';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../sync-server/src/platform/db/db.ts';

/** node-postgres's own conversion of a parameter (what it sends when arrayLiteral leaves a value alone). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): unknown };

describe('arrayLiteral (platform/db/db.ts): the array parameters of PostgreSQL statements', () => {
  it('writes exactly the literal node-postgres writes, for flat arrays of strings, numbers, booleans and nulls', () => {
    const item = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'é', '"', '\\', ',', '{', '}', ' ', 'N', '\u{1F600}') }),
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 20 }), (values) => {
        expect(arrayLiteral(values)).toBe(prepareValue(values));
      }),
      { numRuns: 1000 },
    );
    expect(arrayLiteral(['a"b', 'c\\d', null, 12, true])).toBe('{"a\\"b","c\\\\d",NULL,"12","true"}');
  });

  it('leaves anything else to node-postgres: dates, buffers, nested arrays, objects, non-arrays', () => {
    for (const value of [[new Date(0)], [Buffer.from('x')], [['a']], [{ a: 1 }], 'text', 12, null, { a: 1 }]) expect(arrayLiteral(value)).toBe(value);
  });
});
