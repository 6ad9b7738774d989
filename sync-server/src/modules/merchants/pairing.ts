/**
 * Helpers of register pairing (enrollment.ts, dev-routes.ts): the demo store and its staff member, and the highest
 * receipt sequence the server holds for a register.
 */
import { parseReceiptNumber } from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';

/** The demo store (the oldest `is_demo` merchant) and the staff member demo registers sign in as (its owner first). */
export interface DemoStore {
  merchant: { id: string; name: string; currency: string };
  staff: { id: string; role: string };
}

/** @throws ProblemError 404 `no_demo_store` when the server has no demo store, or it has no staff member. */
export async function findDemoStore(db: Queryable): Promise<DemoStore> {
  const merchant = (await db.query<DemoStore['merchant']>('SELECT id, name, currency FROM merchants WHERE is_demo ORDER BY created_at, id LIMIT 1'))
    .rows[0];
  if (!merchant) throw new ProblemError(404, 'no_demo_store', 'This server has no demo store; registers are paired by the merchant.');
  const staff = (
    await db.query<DemoStore['staff']>(`SELECT id, role FROM staff WHERE merchant_id = $1 ORDER BY (role = 'owner') DESC, created_at LIMIT 1`, [
      merchant.id,
    ])
  ).rows[0];
  if (!staff) throw new ProblemError(404, 'no_demo_store', 'The demo store has no staff member.');
  return { merchant, staff };
}

/**
 * The highest receipt sequence among the register's orders (0 for none), so a re-installed register never reuses a
 * receipt number. Reads the orders module's rows; writes nothing.
 */
export async function lastReceiptSequenceOf(db: Queryable, registerId: string): Promise<number> {
  const receipts = await db.query<{ receipt_number: string }>('SELECT receipt_number FROM orders WHERE register_id = $1', [registerId]);
  return receipts.rows.reduce((max, r) => Math.max(max, parseReceiptNumber(r.receipt_number)?.sequence ?? 0), 0);
}
