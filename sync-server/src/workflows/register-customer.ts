/**
 * Customers created at the register: a push of register customers (`POST /api/sync/customers/push`) is
 * stored by the customers module — new, or merged into an existing customer with the same phone or e-mail
 * (modules/customers/register-customers.ts) — and, for each merge, the orders module re-points the orders already
 * stored with the register's id at the surviving customer. Orders pushed after the merge are re-pointed as they are
 * stored (register-sale.ts, {@link resolveCustomerAliases}). The registers learn both through their pulls.
 *
 *     storeCustomerPush(m, documents) → RegisterCustomerOutcome[]   (one per document, in order)
 */
import type { Mutation } from '../kernel/mutation.ts';
import { storeRegisterCustomers, type RegisterCustomerOutcome } from '../modules/customers/index.ts';
import { reattachCustomerOrders } from '../modules/orders/index.ts';

/**
 * Stores the pushed customers (client fields stripped) in `m.tx` and re-attaches the orders of every customer merged
 * by this push to its survivor. Never throws for a document's content.
 */
export async function storeCustomerPush(m: Mutation, documents: readonly Record<string, unknown>[]): Promise<RegisterCustomerOutcome[]> {
  const outcomes = await storeRegisterCustomers(m, documents);
  for (const o of outcomes) {
    if (o.kind !== 'merged' || !o.isNew) continue;
    const orders = await reattachCustomerOrders(m, o.aliasId, o.customerId);
    if (orders.length > 0) {
      await m.audit({
        action: 'customer.orders_reattached',
        entityType: 'customer',
        entityId: o.customerId,
        data: { aliasId: o.aliasId, orderIds: orders },
      });
    }
  }
  return outcomes;
}
