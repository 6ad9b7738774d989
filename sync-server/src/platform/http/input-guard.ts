import { findCardNumberField, maskCardNumbers } from '../../../../core/index.ts';

/**
 * Input PostgreSQL cannot store, caught before it reaches SQL so it is a 400 (or a quarantined document), never a
 * 500: NUL characters (text and jsonb refuse U+0000), absurd nesting (it would overflow recursive walkers), and
 * timestamps in year 0 (valid ISO 8601, refused by timestamptz).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The first problem of `value` as `{ path, message }` (`path` dotted from `path`, e.g. `lines.0.name`), or undefined
 * when it can be stored: what PostgreSQL cannot store, then a card number outside a free-text field (core
 * card-number-guard.ts `findCardNumberField`: refused, never stored — free text is masked by the boundary before).
 * A first walk only asks whether anything is wrong, building no path (a push walks every document it receives); only
 * a value with a problem is walked again to name it.
 */
export function findUnstorable(value: unknown, path = '', depth = 0): { path: string; message: string } | undefined {
  return isStorable(value, depth) ? findCardNumberField(value, path) : describeUnstorable(value, path, depth);
}

/**
 * What PostgreSQL cannot store in a text body (a `text/csv` upload), as `{ path: '(body)', message }`: NULs and lone
 * surrogates only — its card numbers are the reading route's (catalog csv.ts applies the boundary's rule per cell).
 */
export function findUnstorableText(text: string): { path: string; message: string } | undefined {
  return isStorable(text, 0) ? undefined : describeUnstorable(text, '', 0);
}

/** True when {@link describeUnstorable} would find nothing: the same checks, without paths. */
function isStorable(value: unknown, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (typeof value === 'string') return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (i in value && !isStorable(value[i], depth + 1)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (LONE_SURROGATE.test(key) || key.includes('\u0000') || !isStorable(record[key], depth + 1)) return false;
  }
  return true;
}

function describeUnstorable(value: unknown, path: string, depth: number): { path: string; message: string } | undefined {
  const here = path || '(body)';
  if (depth > MAX_JSON_DEPTH) return { path: here, message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return { path: here, message: 'must not contain NUL characters' };
    return LONE_SURROGATE.test(value) ? { path: here, message: 'must be well-formed UTF-16 (a lone surrogate cannot be stored)' } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const childPath = path ? `${path}.${key}` : key;
    if (LONE_SURROGATE.test(key)) return { path: childPath, message: 'field names must be well-formed UTF-16' };
    if (key.includes('\u0000')) return { path: childPath.replaceAll('\u0000', '\\0'), message: 'field names must not contain NUL characters' };
    const found = describeUnstorable(child, childPath, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * A copy safe to keep in jsonb: NULs and lone surrogates replaced by U+FFFD, nesting cut at {@link MAX_JSON_DEPTH}, and
 * every card number in a string or key masked (first six, last four; core/card-numbers.ts) — what is kept of a refused
 * document must not keep the card number that may have been the reason it was refused.
 */
export function storable(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_JSON_DEPTH) return '(nested too deep)';
  if (Array.isArray(value)) return value.map((v) => storable(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storable(v, depth + 1)]));
}

/** A UTF-16 surrogate without its pair: JSON.stringify escapes it as `\\udXXX`, which jsonb refuses. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `text` with NULs and lone surrogates replaced by U+FFFD, so text and jsonb columns accept it, and card numbers masked. */
export function storableText(text: string): string {
  return maskCardNumbers(text.replaceAll('\u0000', '\uFFFD').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD'));
}

/** True unless the ISO timestamp lies in year 0 (PostgreSQL's timestamptz starts at 1 AD for ISO input). */
export function isStorableTimestamp(iso: string): boolean {
  return !iso.startsWith('0000');
}
