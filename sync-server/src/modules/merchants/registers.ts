/**
 * The merchant's registers (table `registers`, written by this module only): the back-office register that API
 * orders take their receipt numbers from. Registers at the counter are paired in `pairing.ts`.
 */
import { newId } from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';

/** A register's id and its number in the store (`R<number>-…` receipt numbers). */
export interface RegisterRef {
  id: string;
  number: number;
}

/**
 * The merchant's back-office register, created on first use (numbered after the highest, audited
 * `register.created`) inside the caller's mutation, so a failed order leaves none behind.
 */
export async function ensureBackOfficeRegister(m: Mutation): Promise<RegisterRef> {
  const found = await m.tx.query<RegisterRef>(`SELECT id, number FROM registers WHERE merchant_id = $1 AND kind = 'back_office'`, [m.merchantId]);
  if (found.rows[0]) return found.rows[0];
  const next = (
    await m.tx.query<{ n: number | string }>('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM registers WHERE merchant_id = $1', [m.merchantId])
  ).rows[0]!;
  const created = { id: newId('register'), number: Number(next.n) };
  await m.tx.query(`INSERT INTO registers (id, merchant_id, number, name, kind) VALUES ($1, $2, $3, 'Back office', 'back_office')`, [
    created.id,
    m.merchantId,
    created.number,
  ]);
  await m.audit({
    registerId: created.id,
    action: 'register.created',
    entityType: 'register',
    entityId: created.id,
    data: { number: created.number, kind: 'back_office' },
  });
  return created;
}
