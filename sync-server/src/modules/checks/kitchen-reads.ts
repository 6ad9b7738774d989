/**
 * Reads of the stored check book for the kitchen (workflows/kitchen-tickets.ts): the lines sent to the kitchen in a
 * period, or under some send ids, with their checks' headers. Read-only.
 */
import type { CheckBook, CheckHeader, CheckLine } from '../../../../core/index.ts';
import { jsonValue, type Queryable } from '../../platform/db/db.ts';

/**
 * The sent lines of the store whose send was stamped in [`from`, `to`) (ISO 8601 instants, UTC `…Z` as stored) — or,
 * with `sendIds`, the lines of those sends whenever they were sent — and the headers of their checks, as a check book
 * (no payments).
 */
export async function readSentCheckBook(
  db: Queryable,
  merchantId: string,
  which: { from: string; to: string } | { sendIds: readonly string[] },
): Promise<CheckBook> {
  const { rows } =
    'sendIds' in which
      ? await db.query<{ id: string; data: unknown }>(
          `SELECT id, data FROM check_lines WHERE merchant_id = $1 AND data->'sent'->>'sendId' = ANY($2)`,
          [merchantId, [...which.sendIds]],
        )
      : await db.query<{ id: string; data: unknown }>(
          `SELECT id, data FROM check_lines WHERE merchant_id = $1 AND data->'sent'->'stamp'->>'at' >= $2 AND data->'sent'->'stamp'->>'at' < $3`,
          [merchantId, which.from, which.to],
        );
  const lines: Record<string, CheckLine> = {};
  for (const r of rows) {
    const { id: _id, ...line } = jsonValue<CheckLine & { id: string }>(r.data);
    lines[r.id] = line;
  }
  const checkIds = [...new Set(Object.values(lines).map((l) => l.place.checkId))];
  const checks: Record<string, CheckHeader> = {};
  if (checkIds.length > 0) {
    const found = await db.query<{ id: string; data: unknown }>('SELECT id, data FROM checks WHERE merchant_id = $1 AND id = ANY($2)', [
      merchantId,
      checkIds,
    ]);
    for (const r of found.rows) checks[r.id] = jsonValue<CheckHeader>(r.data);
  }
  return { checks, lines, payments: {} };
}
