/**
 * Demo register pairing (POST /api/dev/pair-register): the demo store and its staff member, the register (known or the
 * next number), and the highest receipt sequence the server holds for it. Registers are this module's rows; pairing
 * one is a mutation (kernel/mutation.ts) audited `register.paired`.
 */
import { newId, parseReceiptNumber } from '../../../../core/index.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import { mutation } from '../../kernel/mutation.ts';

/** The demo store (the oldest `is_demo` merchant) and the staff member demo registers sign in as (its owner first). */
export interface DemoStore {
  merchant: { id: string; name: string; currency: string };
  staff: { id: string; role: string };
}

/** @throws ProblemError 404 `no_demo_store` when the server has no demo store, or it has no staff member. */
export async function findDemoStore(db: Queryable): Promise<DemoStore> {
  const merchant = (await db.query<DemoStore['merchant']>('SELECT id, name, currency FROM merchants WHERE is_demo ORDER BY created_at, id LIMIT 1')).rows[0];
  if (!merchant) throw new ProblemError(404, 'no_demo_store', 'This server has no demo store; registers are paired by the merchant.');
  const staff = (await db.query<DemoStore['staff']>(`SELECT id, role FROM staff WHERE merchant_id = $1 ORDER BY (role = 'owner') DESC, created_at LIMIT 1`, [merchant.id])).rows[0];
  if (!staff) throw new ProblemError(404, 'no_demo_store', 'The demo store has no staff member.');
  return { merchant, staff };
}

/**
 * The register `requestedId` when it is the merchant's, else a new one numbered after the highest (`Register <n>`),
 * audited `register.paired` by `staff:<staffId>`.
 */
export async function pairDemoRegister(ctx: Pick<AppContext, 'db' | 'clock' | 'feed'>, who: { merchantId: string; staffId: string }, requestedId: string | undefined): Promise<{ id: string; number: number }> {
  return mutation(ctx, { merchantId: who.merchantId, actor: `staff:${who.staffId}` }, async ({ tx, merchantId, audit }) => {
    if (requestedId) {
      const known = (await tx.query<{ id: string; number: number }>('SELECT id, number FROM registers WHERE id = $1 AND merchant_id = $2', [requestedId, merchantId])).rows[0];
      if (known) return known;
    }
    const next = (await tx.query<{ n: number | string }>('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM registers WHERE merchant_id = $1', [merchantId])).rows[0]!;
    const created = { id: newId('register'), number: Number(next.n) };
    await tx.query('INSERT INTO registers (id, merchant_id, number, name) VALUES ($1, $2, $3, $4)', [created.id, merchantId, created.number, `Register ${created.number}`]);
    await audit({
      registerId: created.id,
      action: 'register.paired',
      entityType: 'register',
      entityId: created.id,
      data: { number: created.number, requestedId: requestedId ?? null },
    });
    return created;
  });
}

/**
 * The highest receipt sequence among the register's orders (0 for none), so a re-installed register never reuses a
 * receipt number (DESIGN §8). Reads the orders module's rows; writes nothing.
 */
export async function lastReceiptSequenceOf(db: Queryable, registerId: string): Promise<number> {
  const receipts = await db.query<{ receipt_number: string }>('SELECT receipt_number FROM orders WHERE register_id = $1', [registerId]);
  return receipts.rows.reduce((max, r) => Math.max(max, parseReceiptNumber(r.receipt_number)?.sequence ?? 0), 0);
}
