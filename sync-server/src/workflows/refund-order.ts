/**
 * Refunding an order: the orders module writes the refund (record, journal transaction, payment and
 * order states, audit, `payment.refunded`) → the inventory module puts refunded lines back on stock (`return`
 * movements keyed by the refund id) unless `restock: false`. A cashier's refund above the store's
 * `cashierRefundLimitCents` needs a manager's approval (merchants/approvals.ts), consumed in the same mutation and
 * recorded as the refund's `approvedBy`. One mutation.
 */
import type { OrderView, RefundCreate, RefundRecord } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { ProblemError } from '../platform/http/problem.ts';
import { actorOf, mutation, type Mutation } from '../kernel/mutation.ts';
import { recordSaleStock } from '../modules/inventory/index.ts';
import { consumeApproval, getSettings } from '../modules/merchants/index.ts';
import * as orders from '../modules/orders/index.ts';

/**
 * The approval rule of a refund of `amountCents` (cents) on `orderId`: a cashier above the store's limit needs
 * `approval`, consumed here; anyone else needs none (but an approval sent is still consumed and recorded).
 * @throws ProblemError 403 `approval_required` (no approval sent), 403 `approval_invalid` (unknown, used, expired or
 *   bound to something else).
 */
async function approveRefund(
  m: Mutation,
  principal: Principal,
  orderId: string,
  amountCents: number,
  approval: string | undefined,
): Promise<string | null> {
  if (approval !== undefined) return consumeApproval(m, approval, 'refund', orderId, amountCents);
  if (principal.kind !== 'staff' || principal.role !== 'cashier') return null;
  const { cashierRefundLimitCents } = await getSettings(m.tx, m.merchantId);
  if (amountCents <= cashierRefundLimitCents) return null;
  throw new ProblemError(
    403,
    'approval_required',
    `A cashier's refund above ${cashierRefundLimitCents} (minor units) needs a manager's approval (POST /api/register/approvals).`,
    [{ path: 'approval', message: `required for a refund of ${amountCents} above the store's cashierRefundLimitCents ${cashierRefundLimitCents}` }],
  );
}

/**
 * Refunds a paid order, fully or partly: by line and quantity, or by amount; restocks refunded lines unless
 * `restock: false`. A cashier's refund above the store's `cashierRefundLimitCents` carries a manager's `approval`.
 * @throws ProblemError 404; 409 (`currentState`) when the order is not paid or partially refunded; 400 naming the field
 *   when a line is unknown or the refund exceeds what is left; 403 `approval_required` / `approval_invalid`.
 */
export async function refundOrder(
  ctx: AppContext,
  principal: Principal,
  orderId: string,
  input: RefundCreate,
): Promise<{ refund: RefundRecord; order: OrderView }> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const { refund, order, restock } = await orders.refundOrder(m, orderId, input, (amountCents) =>
      approveRefund(m, principal, orderId, amountCents, input.approval),
    );
    if (
      restock.length > 0 &&
      (await recordSaleStock(m.tx, { merchantId: m.merchantId, kind: 'return', sourceId: refund.id, lines: restock, actor: m.actor, now: m.now }))
    )
      m.changed('catalog-items');
    return { refund, order };
  });
}
