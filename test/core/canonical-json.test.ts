import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../core/index.ts';

/** The first implementation (entries, sort, template strings, join): the output canonicalJson must keep. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (value === undefined) return 'null';
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => reference(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
}

describe('canonicalJson (core/canonical-json.ts)', () => {
  it('sorts keys by code unit and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [true, null, { d: undefined, c: 'x' }], B: 'é', '\u{1F600}': 0, é: 2 })).toBe(
      '{"B":"é","a":[true,null,{"c":"x"}],"b":1,"é":2,"\u{1F600}":0}',
    );
  });

  it('writes undefined array members as null and leaves holes empty, as before', () => {
    expect(canonicalJson([1, undefined, , 'x'])).toBe('[1,null,,"x"]');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('gives exactly what the first implementation gave, for any JSON value and any value with undefined members', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true, withSparseArray: true, withBigInt: false }), (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 500 },
    );
  });
});
