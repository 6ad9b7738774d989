/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined` members dropped (the JSON
 * Canonicalization Scheme of RFC 8785 for the values we store: strings, safe integers, booleans, null, arrays,
 * objects). Used for content comparison in replication and for the audit log's hash chain.
 *
 * Built in one pass with string concatenation (no entry arrays, no per-member template strings): a push hashes and
 * compares a few hundred documents, and this was one of its larger costs. Array holes stay empty as `join` leaves
 * them (`[1,,2]`), a function or symbol member reads `undefined` as before: the output is exactly the earlier
 * `Object.entries`/`sort`/`join` version's (test/core/canonical-json.test.ts compares the two).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (value === undefined) return 'null';
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      if (!(i in value)) continue;
      const v: unknown = value[i];
      const member = canonicalJson(v === undefined ? null : v) as string | undefined;
      if (member !== undefined) out += member;
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}
