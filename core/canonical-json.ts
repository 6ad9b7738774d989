/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined` members dropped (the JSON
 * Canonicalization Scheme of RFC 8785 for the values we store: strings, safe integers, booleans, null, arrays,
 * objects). Used for content comparison in replication and for the audit log's hash chain (DESIGN §4).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (value === undefined) return 'null';
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
