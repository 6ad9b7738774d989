import { ProblemError } from './problem.ts';

/** Opaque list cursors (DESIGN §7): base64url of a small JSON array of the last row's sort key. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** @throws ProblemError 400 when the cursor was not made by {@link encodeCursor} with members of these kinds. */
export type CursorPart = 'string' | 'number' | 'date';

export function decodeCursor(cursor: string, parts: readonly CursorPart[]): (string | number)[] {
  const fits = (v: unknown, part: CursorPart) =>
    part === 'number'
      ? Number.isSafeInteger(v)
      : typeof v === 'string' && v.length <= 200 && !v.includes('\u0000') && (part === 'string' || (/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(v) && !Number.isNaN(Date.parse(v)) && !v.startsWith('0000')));
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === parts.length && value.every((v, i) => fits(v, parts[i]!))) return value as (string | number)[];
  } catch {
    // fall through to the problem below
  }
  throw new ProblemError(400, 'validation_error', 'Invalid cursor: pass the nextCursor of a previous page unchanged.', [{ path: 'cursor', message: 'is not a cursor of this list' }]);
}
