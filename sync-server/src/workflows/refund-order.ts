/**
 * Refunding an order (DESIGN §5, §8): the orders module writes the refund (record, journal transaction, payment and
 * order states, audit, `payment.refunded`) → the inventory module puts refunded lines back on stock (`return`
 * movements keyed by the refund id) unless `restock: false`. One mutation.
 */
import type { OrderView, RefundCreate, RefundRecord } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { actorOf, mutation } from '../kernel/mutation.ts';
import { recordSaleStock } from '../modules/inventory/service.ts';
import * as orders from '../modules/orders/service.ts';

/**
 * Refunds a paid order, fully or partly: by line and quantity, or by amount; restocks refunded lines unless
 * `restock: false`.
 * @throws ProblemError 404; 409 (`currentState`) when the order is not paid or partially refunded; 400 naming the field
 *   when a line is unknown or the refund exceeds what is left.
 */
export async function refundOrder(ctx: AppContext, principal: Principal, orderId: string, input: RefundCreate): Promise<{ refund: RefundRecord; order: OrderView }> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const { refund, order, restock } = await orders.refundOrder(m, orderId, input);
    if (restock.length > 0 && (await recordSaleStock(m.tx, { merchantId: m.merchantId, kind: 'return', sourceId: refund.id, lines: restock, actor: m.actor, now: m.now }))) m.changed('catalog-items');
    return { refund, order };
  });
}
