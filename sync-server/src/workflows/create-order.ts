/**
 * Creating an order through the API: the customer is checked with the customers module, the catalog
 * read from the catalog module, and the orders module prices the catalog references against it and stores the order
 * — one mutation (transaction, merchant lock, audit, `order.created`, change feed after commit).
 */
import type { OrderCreate, OrderView } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/db.ts';
import { ProblemError } from '../platform/http/problem.ts';
import { getMerchant } from '../kernel/merchant.ts';
import { actorOf, mutation } from '../kernel/mutation.ts';
import { loadCatalog } from '../modules/catalog/index.ts';
import { getCustomer } from '../modules/customers/index.ts';
import { ensureBackOfficeRegister } from '../modules/merchants/index.ts';
import * as orders from '../modules/orders/index.ts';

/**
 * Checks that `customerId` is a (not deleted) customer of the merchant.
 * @throws ProblemError 400 `unknown_customer` naming `customerId` otherwise.
 */
export async function requireCustomer(tx: Queryable, merchantId: string, customerId: string): Promise<void> {
  try {
    await getCustomer(tx, merchantId, customerId);
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) {
      throw new ProblemError(400, 'unknown_customer', `Invalid customerId: customer ${customerId} does not exist.`, [
        { path: 'customerId', message: 'is not a customer of this store' },
      ]);
    }
    throw err;
  }
}

/**
 * Creates an open order from catalog references, priced from the merchant's catalog (never at a caller's price), with an
 * optional customer and discounts: customer check → catalog read → back-office register (merchants module) → order
 * stored (orders module).
 * @throws ProblemError 400 naming the field when a line cannot be priced, the customer is unknown or the total is out
 *   of bounds.
 */
export async function createOrder(ctx: AppContext, principal: Principal, input: OrderCreate): Promise<OrderView> {
  return mutation(ctx, actorOf(principal), async (m) => {
    const merchant = await getMerchant(m.tx, m.merchantId);
    if (input.customerId) await requireCustomer(m.tx, merchant.id, input.customerId);
    const catalog = await loadCatalog(m.tx, merchant.id);
    const register = await ensureBackOfficeRegister(m); // API orders are numbered on the back-office register
    return orders.createOrder(m, input, {
      currency: merchant.currency,
      catalog,
      register,
      ...(principal.kind === 'staff' ? { staffId: principal.staffId } : {}),
    });
  });
}
