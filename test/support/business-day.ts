import type { Queryable } from '../../sync-server/src/platform/db/db.ts';

/**
 * Moves the store's business-day cut-off (merchants.day_cutoff_hour, store time zone UTC) twelve hours away from the
 * current hour, so that what a test stamps within the last few hours and what the server calls "today" share one
 * business day whatever time the run happens at. With the shipped cut-off, 04:00, a shift opened 20 min ago belongs to
 * the day before for a run between 04:00 and 04:20 UTC.
 * @param now the instant the test's records are stamped around (default: the current time)
 * @returns the cut-off hour set (0–23)
 */
export async function cutoffAwayFromNow(db: Queryable, merchantId: string, now = new Date()): Promise<number> {
  const hour = (now.getUTCHours() + 12) % 24;
  await db.query(`UPDATE merchants SET time_zone = 'UTC', day_cutoff_hour = $2 WHERE id = $1`, [merchantId, hour]);
  return hour;
}
