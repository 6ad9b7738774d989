/**
 * Pending pay links (Text-to-Pay requests) of an invoice or an order. A link is for the whole balance due
 * when it was made, so any change of that balance — a payment recorded elsewhere, a newer link, a void or a cancel —
 * must take the old link out of the customer's hands before they pay a stale amount. The workflows that change an
 * order's or an invoice's balance (workflows/) call this inside their mutation.
 */
import type { Queryable } from '../../platform/db/db.ts';
import type { Mutation } from '../../kernel/mutation.ts';

/** Whose links to cancel: an invoice's or an order's. */
export type PayLinkOwner = { invoiceId: string; orderId?: never } | { orderId: string; invoiceId?: never };

/**
 * Cancels the owner's pending, unexpired pay links in the mutation (`status → canceled`, `cancel_reason = reason`),
 * each with an audit row `pay_request.canceled` by the mutation's actor at its time. `supersededBy` names the link
 * that replaces them (an old link then leads the customer to the new one); `except` keeps links (the one being paid,
 * the replacement). Returns the canceled ids.
 */
export async function cancelPendingPayLinks(
  m: Mutation,
  link: PayLinkOwner & { reason: string; supersededBy?: string; except?: string[] },
): Promise<string[]> {
  const [column, ownerId] = link.invoiceId !== undefined ? (['invoice_id', link.invoiceId] as const) : (['order_id', link.orderId] as const);
  const { rows } = await m.tx.query<{ id: string }>(
    `UPDATE pay_requests SET status = 'canceled', canceled_at = $2, cancel_reason = $3, superseded_by = $4
     WHERE ${column} = $1 AND merchant_id = $6 AND status = 'pending' AND expires_at > $2 AND NOT (id = ANY($5::text[])) RETURNING id`,
    [ownerId, m.now.toISOString(), link.reason, link.supersededBy ?? null, link.except ?? [], m.merchantId],
  );
  for (const r of rows) {
    await m.audit({
      action: 'pay_request.canceled',
      entityType: 'pay_request',
      entityId: r.id,
      data: {
        reason: link.reason,
        supersededBy: link.supersededBy ?? null,
        ...(link.orderId ? { orderId: link.orderId } : { invoiceId: link.invoiceId }),
      },
    });
  }
  return rows.map((r) => r.id);
}

/** Ids of the invoice's pending pay links (expired or not), but `except`. */
export async function pendingInvoiceLinkIds(tx: Queryable, invoiceId: string, except: string | null): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM pay_requests WHERE invoice_id = $1 AND status = 'pending' AND id <> COALESCE($2, '')`,
    [invoiceId, except],
  );
  return rows.map((r) => r.id);
}
