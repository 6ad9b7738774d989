/**
 * Canceling an open order: the orders module cancels it (collected payments given back in a
 * `cancellation` refund) → the pay-links module cancels its pending pay links (`order_canceled`). One mutation.
 */
import type { OrderView } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { actorOf, mutation } from '../kernel/mutation.ts';
import * as orders from '../modules/orders/index.ts';
import { cancelPendingPayLinks } from '../modules/pay-links/index.ts';

/**
 * Cancels an open order (open → canceled) and its pending pay links.
 * @throws ProblemError 404; 409 (`currentState`) when the order is not open.
 */
export async function cancelOrder(ctx: AppContext, principal: Principal, orderId: string, input: { reason?: string }): Promise<OrderView> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const view = await orders.cancelOrder(m, orderId, input);
    await cancelPendingPayLinks(m, { orderId, reason: 'order_canceled' });
    return view;
  });
}
