/**
 * Returns made at the register (core/returns.ts), pushed through sync (`POST /api/sync/returns/push`)
 * online or after an outage. For each pushed return, in the push's mutation and its own savepoint: the
 * core schema, a register of this store, the order it returns; the store's approval rule (a cashier's return above
 * `cashierRefundLimitCents` carries a manager's approval token, consumed here); then the orders module refunds the
 * lines (core planOrderRefund: the same rule and rounding as the back office's refunds — never more than was sold,
 * across registers), the inventory module puts them back on stock (`return` movements keyed by the refund id) when
 * `restock` — cash given back from the drawer of the register that took the return —, and the return is stored with its `refundId` (modules/returns). A return already stored (same id) is
 * answered as it is (de-duplicated); one that cannot be refunded is refused (quarantined by the caller, shown on the
 * register). A return whose sale has not reached the server yet makes the push fail with 409 `order_not_synced`,
 * which the register retries (each collection syncs on its own, so a return may overtake its sale).
 */
import { canonicalJson, cashDrawerAccount, registerReturnSchema, type RegisterReturn } from '../../../core/index.ts';
import type { Mutation } from '../kernel/mutation.ts';
import { recordSaleStock } from '../modules/inventory/index.ts';
import { consumeApproval, getSettings } from '../modules/merchants/index.ts';
import * as orders from '../modules/orders/index.ts';
import { findReturns, insertReturn, isOrderQuarantined, type StoredReturn } from '../modules/returns/index.ts';
import { findUnstorable } from '../platform/http/input-guard.ts';
import { ProblemError } from '../platform/http/problem.ts';

/** What became of one pushed return. */
export type ReturnOutcome =
  | { kind: 'stored'; stored: StoredReturn }
  | { kind: 'unchanged' }
  | { kind: 'master'; stored: StoredReturn }
  | { kind: 'rejected'; reason: string; registerId: string | null };

/** The staff member's role (null when unknown to the store). */
async function roleOf(m: Mutation, staffId: string | undefined): Promise<string | null> {
  if (!staffId) return null;
  const { rows } = await m.tx.query<{ role: string }>('SELECT role FROM staff WHERE id = $1 AND merchant_id = $2', [staffId, m.merchantId]);
  return rows[0]?.role ?? null;
}

/**
 * Stores pushed returns for `m`'s merchant (see the file comment).
 * @returns one outcome per document, in order
 * @throws ProblemError 409 `order_not_synced` when a return's sale is not on the server yet (retry the push later)
 */
export async function storeRegisterReturns(m: Mutation, documents: readonly Record<string, unknown>[]): Promise<ReturnOutcome[]> {
  const ids = documents.map((d) => d.id).filter((v): v is string => typeof v === 'string' && v.length <= 64 && findUnstorable(v) === undefined);
  const stored = await findReturns(m.tx, m.merchantId, ids);
  const registers = new Map(
    (await m.tx.query<{ id: string; number: number | string }>('SELECT id, number FROM registers WHERE merchant_id = $1', [m.merchantId])).rows.map(
      (r) => [r.id, Number(r.number)],
    ),
  );
  const { cashierRefundLimitCents } = await getSettings(m.tx, m.merchantId);
  const outcomes: ReturnOutcome[] = [];
  const waiting: string[] = [];
  for (const doc of documents) {
    const registerId = typeof doc.registerId === 'string' ? doc.registerId.slice(0, 64) : null;
    const reject = (reason: string): ReturnOutcome => ({ kind: 'rejected', reason, registerId });
    const unstorable = findUnstorable(doc);
    if (unstorable) {
      outcomes.push(reject(`invalid return: ${unstorable.path} ${unstorable.message}`));
      continue;
    }
    const { refundId: _refundId, ...asPushed } = doc;
    const master = stored.get(typeof doc.id === 'string' ? doc.id : '');
    if (master) {
      if (master.merchantId !== m.merchantId) {
        outcomes.push(reject(`id conflict: ${String(doc.id)} is taken by another document; record it again under a new id`));
        continue;
      }
      const { refundId: _r, ...storedAsPushed } = master.data;
      outcomes.push(canonicalJson(storedAsPushed) === canonicalJson(asPushed) ? { kind: 'unchanged' } : { kind: 'master', stored: master });
      continue;
    }
    const parsed = registerReturnSchema.safeParse(asPushed);
    if (!parsed.success) {
      outcomes.push(
        reject(
          `invalid return: ${parsed.error.issues
            .slice(0, 5)
            .map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`)
            .join('; ')}`,
        ),
      );
      continue;
    }
    const ret = parsed.data;
    if (!registers.has(ret.registerId)) {
      outcomes.push(reject(`register ${ret.registerId} is not a register of this store`));
      continue;
    }
    if (!(await orders.orderExists(m.tx, m.merchantId, ret.orderId))) {
      if (await isOrderQuarantined(m.tx, m.merchantId, ret.orderId))
        outcomes.push(reject(`sale ${ret.receiptNumber} was refused by the server: it cannot be returned`));
      else {
        waiting.push(ret.receiptNumber);
        outcomes.push({ kind: 'unchanged' });
      }
      continue;
    }
    outcomes.push(await refundReturn(m, ret, cashierRefundLimitCents, registers.get(ret.registerId)!, reject));
    const last = outcomes.at(-1)!;
    if (last.kind === 'stored') stored.set(ret.id, last.stored);
  }
  if (waiting.length > 0) {
    throw new ProblemError(
      409,
      'order_not_synced',
      `The sale${waiting.length > 1 ? 's' : ''} ${waiting.join(', ')} ${waiting.length > 1 ? 'are' : 'is'} not on the server yet: push the orders first, then the returns again.`,
    );
  }
  if (outcomes.some((o) => o.kind === 'stored')) {
    m.changed('returns');
    m.changed('orders');
  }
  return outcomes;
}

/** Refunds and stores one return in its own savepoint: a refusal rolls back that return only. */
async function refundReturn(
  m: Mutation,
  ret: RegisterReturn,
  limitCents: number,
  registerNumber: number,
  reject: (reason: string) => ReturnOutcome,
): Promise<ReturnOutcome> {
  await m.savepoint('register_return');
  try {
    const role = await roleOf(m, ret.staffId);
    const approve = async (amountCents: number): Promise<string | null> => {
      if (ret.approval) return consumeApproval(m, ret.approval, 'refund', ret.orderId, amountCents);
      if (role === 'manager' || role === 'owner' || amountCents <= limitCents) return null;
      throw new ProblemError(
        403,
        'approval_required',
        `a return of ${amountCents} above the store's cashierRefundLimitCents ${limitCents} needs a manager's approval`,
      );
    };
    // Cash goes back from the drawer of the register that took the return, whichever register made the sale.
    const { refund, restock } = await orders.refundOrder(
      m,
      ret.orderId,
      { lines: ret.lines, restock: ret.restock, reason: ret.reason ?? `Return ${ret.id} at the register` },
      approve,
      ret.tender.method === 'cash' ? { cashDrawerAccount: cashDrawerAccount(registerNumber) } : {},
    );
    if (
      restock.length > 0 &&
      (await recordSaleStock(m.tx, { merchantId: m.merchantId, kind: 'return', sourceId: refund.id, lines: restock, actor: m.actor, now: m.now }))
    )
      m.changed('catalog-items');
    const stored = await insertReturn(m.tx, m.merchantId, ret, refund.id, refund.amountCents, m.now);
    await m.audit({
      action: 'return.stored',
      entityType: 'order',
      entityId: ret.orderId,
      registerId: ret.registerId,
      data: {
        returnId: ret.id,
        refundId: refund.id,
        amountCents: refund.amountCents,
        registerAmountCents: ret.amountCents,
        tender: ret.tender.method,
        restock: ret.restock,
        exchangeOrderId: ret.exchangeOrderId ?? null,
      },
    });
    await m.releaseSavepoint('register_return');
    return { kind: 'stored', stored };
  } catch (err) {
    await m.rollbackToSavepoint('register_return');
    await m.releaseSavepoint('register_return');
    if (err instanceof ProblemError) return reject(`${err.code}: ${err.message}`);
    return reject(`the return could not be stored: ${(err instanceof Error ? err.message : String(err)).slice(0, 300)}`);
  }
}
