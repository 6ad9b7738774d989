/**
 * Sending an invoice: the invoices module issues it (draft → sent, receivable posted) or marks a reminder
 * → an issue takes its catalog goods off stock (inventory module) → its pending pay link is found or made for the
 * balance (pay-links module) → the invoices module sends the SMS / e-mail with that link and audits. One mutation.
 */
import type { Invoice } from '../../../core/index.ts';
import { callerOf, type Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { getMerchant } from '../kernel/merchant.ts';
import { mutation } from '../kernel/mutation.ts';
import { recordSaleStock } from '../modules/inventory/index.ts';
import * as invoices from '../modules/invoices/index.ts';
import { insertInvoicePayLink, pendingInvoiceLink } from '../modules/pay-links/index.ts';

/**
 * Sends an invoice by SMS and/or e-mail with its pay link, in one transaction with the state change. A draft is
 * ISSUED (draft → sent; the receivable is posted; its catalog goods leave stock as `sale` movements keyed by the
 * invoice; a pay link for the total is created). An issued invoice with a balance (sent, partially paid, overdue) is
 * sent again as a reminder with its current link (a new one if it has none). Returns the invoice.
 * @throws ProblemError 409 naming `currentState` for paid or void invoices; 400 naming `channels` when the customer
 *   cannot be reached that way.
 */
export async function sendInvoice(ctx: AppContext, principal: Principal, id: string, input: { channels?: ('sms' | 'email')[] }): Promise<Invoice> {
  return sendInvoiceAs(ctx, { merchantId: principal.merchantId, actor: callerOf(principal) }, id, input);
}

/** {@link sendInvoice} for a given actor (`system` for the recurring scheduler). */
export async function sendInvoiceAs(
  ctx: AppContext,
  who: { merchantId: string; actor: string },
  id: string,
  input: { channels?: ('sms' | 'email')[] },
): Promise<Invoice> {
  const merchant = await getMerchant(ctx.db, who.merchantId);
  await mutation(ctx, who, async (m) => {
    const sending = await invoices.markInvoiceSent(m, id, input);
    const view = sending.invoice;
    // Issued is sold (revenue recognised now): the catalog goods on it leave stock now too.
    if (
      sending.isIssue &&
      (await recordSaleStock(m.tx, { merchantId: m.merchantId, kind: 'sale', sourceId: id, lines: view.lines, actor: m.actor, now: m.now }))
    )
      m.changed('catalog-items');
    const link =
      (await pendingInvoiceLink(m.tx, id, m.now)) ??
      (await insertInvoicePayLink(m, ctx.config, {
        invoiceId: id,
        invoiceNumber: view.number,
        amountCents: view.balanceDueCents,
        currency: view.currency,
        phone: view.billTo.phone,
        dueDate: view.dueDate,
      }));
    await invoices.deliverInvoice(ctx, m, merchant, sending, link);
  });
  return invoices.getInvoice(ctx, merchant.id, id);
}
