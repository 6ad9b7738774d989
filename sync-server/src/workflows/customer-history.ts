/**
 * A customer's purchase history (GET /api/pos/customers/{id}/orders): the customers module says whether the
 * customer is the merchant's, the orders module lists their orders. A workflow rather than a query of the customers
 * module: orders are the orders module's rows and shape (`OrderView`, with payments and refunds), which the customers
 * module would otherwise have to read and map a second time.
 */
import type { OrderView } from '../../../core/index.ts';
import type { Queryable } from '../platform/db/db.ts';
import { getCustomer } from '../modules/customers/index.ts';
import { listOrders, type OrderListQuery } from '../modules/orders/index.ts';

/**
 * The orders of customer `customerId`, newest first, a page of `q.limit` after `q.cursor`, optionally of one state
 * (`q.status`): customers `getCustomer` (404 for a customer not the merchant's, or deleted) → orders `listOrders`.
 * @throws ProblemError 404 `not_found`; 400 naming `cursor` for a cursor this list did not make.
 */
export async function customerPurchaseHistory(
  db: Queryable,
  merchantId: string,
  customerId: string,
  q: Omit<OrderListQuery, 'customerId'>,
): Promise<{ data: OrderView[]; nextCursor: string | null }> {
  await getCustomer(db, merchantId, customerId);
  return listOrders(db, merchantId, { ...q, customerId });
}
