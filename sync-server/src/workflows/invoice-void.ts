/**
 * Voiding an invoice: the invoices module voids it (receivable reversed when issued) → an issued
 * invoice's goods come back to stock (`return` movements keyed by the invoice; inventory module) → its pending pay
 * links are canceled (`invoice_void`; pay-links module). One mutation.
 */
import type { Invoice } from '../../../core/index.ts';
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { actorOf, mutation } from '../kernel/mutation.ts';
import { recordSaleStock } from '../modules/inventory/index.ts';
import * as invoices from '../modules/invoices/index.ts';
import { cancelPendingPayLinks } from '../modules/pay-links/index.ts';

/**
 * Voids an invoice that has no payment: `draft | sent | overdue → void`, with its stock and pay links.
 * @throws ProblemError 409 naming `currentState` for partially paid, paid or void invoices (and an overdue one with
 *   payments: those must be refunded first).
 */
export async function voidInvoice(ctx: AppContext, principal: Principal, id: string, input: { reason?: string }): Promise<Invoice> {
  await mutation(ctx, actorOf(principal), async (m) => {
    const { issuedLines } = await invoices.voidInvoice(m, id, input);
    // The sale is undone: the goods it took off stock come back.
    if (
      issuedLines &&
      (await recordSaleStock(m.tx, { merchantId: m.merchantId, kind: 'return', sourceId: id, lines: issuedLines, actor: m.actor, now: m.now }))
    )
      m.changed('catalog-items');
    await cancelPendingPayLinks(m, { invoiceId: id, reason: 'invoice_void' });
  });
  return invoices.getInvoice(ctx, principal.merchantId, id);
}
