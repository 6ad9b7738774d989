import { ProblemError } from './problem.ts';

/** Opaque list cursors: base64url of a small JSON array of the last row's sort key. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The kind of each member of a cursor's sort key: a string id, a safe integer (a sequence) or an ISO-8601 UTC time. */
export type CursorPart = 'string' | 'number' | 'date';

/**
 * True for a time exactly as {@link encodeCursor}'s callers write it (`Date#toISOString`, years 0001 … 9999): the round
 * trip refuses dates `Date.parse` rolls over (`2024-02-31`) and PostgreSQL would reject, so a forged cursor is a 400.
 */
function isCursorTime(v: string): boolean {
  const t = Date.parse(v);
  return !Number.isNaN(t) && new Date(t).toISOString() === v && !v.startsWith('0000');
}

/**
 * The sort key a cursor made by {@link encodeCursor} carries, checked member by member against `parts`.
 * @throws ProblemError 400 `validation_error` naming `cursor` when it was not made by {@link encodeCursor} with members of these kinds.
 */
export function decodeCursor(cursor: string, parts: readonly CursorPart[]): (string | number)[] {
  const fits = (v: unknown, part: CursorPart) =>
    part === 'number'
      ? Number.isSafeInteger(v)
      : typeof v === 'string' && v.length <= 200 && !v.includes('\u0000') && (part === 'string' || isCursorTime(v));
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === parts.length && value.every((v, i) => fits(v, parts[i]!))) return value as (string | number)[];
  } catch {
    // fall through to the problem below
  }
  throw new ProblemError(400, 'validation_error', 'Invalid cursor: pass the nextCursor of a previous page unchanged.', [
    { path: 'cursor', message: 'is not a cursor of this list' },
  ]);
}

/**
 * One page of a list from the `limit + 1` rows its query fetched: the first `limit` rows, and the cursor of
 * the next page — `keyOf` (the sort key) of the page's last row — when the extra row shows there is more, else null.
 */
export function pageOf<T>(
  rows: readonly T[],
  limit: number,
  keyOf: (last: T) => readonly (string | number)[],
): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}

/** The `(created_at, id)` sort key of a row, for lists newest first; `created_at` as an ISO-8601 UTC string. */
export function createdAtKey(row: { created_at: Date | string; id: string }): [string, string] {
  return [new Date(row.created_at).toISOString(), row.id];
}
