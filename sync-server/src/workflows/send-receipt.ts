/**
 * Sending an order's receipt: the recipient is settled with the customers module — a number typed for
 * this receipt read like a customer's (national numbers in the store's country, to E.164), or else the order's
 * customer's phone or e-mail — then the orders module sends and audits it.
 */
import type { ReceiptSend } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { ProblemError } from '../platform/http/problem.ts';
import { getCustomer, storePhoneToE164 } from '../modules/customers/index.ts';
import * as orders from '../modules/orders/index.ts';

/**
 * Sends the receipt by SMS or e-mail to `to` or else the order's customer's phone or e-mail. Returns the message id.
 * @throws ProblemError 404; 400 naming `to` when there is no recipient or the number is not valid.
 */
export async function sendReceipt(
  ctx: AppContext,
  principal: Principal,
  orderId: string,
  input: ReceiptSend,
): Promise<{ id: string; channel: 'sms' | 'email'; to: string; orderId: string }> {
  const order = await orders.getOrderView(ctx.db, principal.merchantId, orderId);
  let to = input.to;
  if (!to && order.customerId) {
    const customer = await getCustomer(ctx.db, principal.merchantId, order.customerId).catch((err: unknown) => {
      if (err instanceof ProblemError && err.status === 404) return undefined;
      throw err;
    });
    to = (input.channel === 'sms' ? customer?.phone : customer?.email) ?? undefined;
  }
  if (to && input.channel === 'sms' && input.to) to = await storePhoneToE164(ctx.db, principal.merchantId, to, 'to');
  return orders.sendReceipt(ctx, principal, orderId, { channel: input.channel, to });
}
