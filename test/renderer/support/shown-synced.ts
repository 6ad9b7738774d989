/**
 * How long the register takes to show a sale synced once the server has committed it (aim: within 2 s, for a
 * backlog of 1,000 sales): the watch on the register's unsynced-orders query, and the figures reported. Used by the
 * backlog test (test/renderer/sync-backlog.test.ts) and the bench's register process.
 */
import type { RegisterDatabase } from '../../../renderer/src/register/db/database.ts';
import { percentile } from '../../bench/report.ts';

/**
 * Watches the query the register's badge counts unsynced sales with (orders without the server's `syncSeq` and not
 * refused) and notes, per order id, when it left that set — when the register started showing it synced (ms since
 * the epoch). `stop()` ends the watch.
 */
export function watchShownSynced(db: RegisterDatabase): { shownAt: Map<string, number>; pending: () => number; stop: () => void } {
  const shownAt = new Map<string, number>();
  let before = new Set<string>();
  let pendingNow = 0;
  const subscription = db.orders.find({ selector: { syncSeq: { $exists: false }, rejection: { $exists: false } } }).$.subscribe((docs) => {
    const now = Date.now();
    const current = new Set(docs.map((d) => d.id));
    for (const id of before) if (!current.has(id) && !shownAt.has(id)) shownAt.set(id, now);
    before = current;
    pendingNow = current.size;
  });
  return { shownAt, pending: () => pendingNow, stop: () => subscription.unsubscribe() };
}

/** Median, 95th percentile and maximum of `values` (nearest rank), or zeros when there are none. */
export function lagFigures(values: readonly number[]): { median: number; p95: number; max: number } {
  if (values.length === 0) return { median: 0, p95: 0, max: 0 };
  return { median: percentile(values, 50), p95: percentile(values, 95), max: Math.max(...values) };
}
