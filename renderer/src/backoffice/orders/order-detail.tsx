/** The order dialog of Back office → Orders: lines, payments and refunds, and the panels that act on the order. */
import { useState } from 'react';
import { formatMoney, tenderLabel } from '../../../../core/index.ts';
import { DataTable, type FootRow } from '../../ui/data-table.tsx';
import { Dialog } from '../../ui/dialog.tsx';
import type { ApiOrder } from '../../common/back-office-api.ts';
import { LoadError, useEscapeFromBody } from '../../common/back-office-kit.tsx';
import { useBackOfficeData } from '../../common/back-office-query.ts';
import { type Payment, type Refund, StateBadge, lineDetail, lineTitle, refundedQuantities, sourceText } from './order-parts.tsx';
import { RefundPanel } from './refund-panel.tsx';
import { BalanceDuePanel, CancelPanel } from './order-actions.tsx';
import { ReceiptPanel } from './receipt-panel.tsx';

const PAYMENT_STATE_TEXT: Record<Payment['state'], string> = {
  pending: 'Pending',
  authorized: 'Authorized',
  captured: 'Captured',
  declined: 'Declined',
  voided: 'Voided',
  partially_refunded: 'Partly refunded',
  refunded: 'Refunded',
  returned: 'Returned by the bank',
};

function paymentLabel(p: Payment): string {
  if (p.method === 'card') return p.last4 ? `${p.cardBrand ?? 'Card'} •••• ${p.last4}` : 'Card';
  if (p.method === 'check') return p.reference ? `Check ${p.reference}` : 'Check';
  if (p.method === 'other') return p.reference ? `Other (${p.reference})` : 'Other';
  return tenderLabel(p.method);
}

/**
 * The order dialog: reads the full order (payments, refunds) and hosts the refund, cancel and receipt panels; what a
 * panel changes is read again, and the list is told of the changed order (`onChanged`).
 */
export function OrderDetail({ summary, onChanged, onClose }: { summary: ApiOrder; onChanged: (order: ApiOrder) => void; onClose: () => void }) {
  // The full order, read again by the panels' actions once they change it (never an edit of this copy).
  const { data: order, error } = useBackOfficeData('order', [summary.id], (api) => api.getOrder(summary.id));
  const [notice, setNotice] = useState<string | undefined>();
  useEscapeFromBody(onClose);

  const update = (next: ApiOrder, message: string) => {
    setNotice(message);
    onChanged(next);
  };

  const shown = order ?? summary;
  const money = (cents: number) => formatMoney(cents, shown.currency);

  return (
    <Dialog
      title={`Order ${shown.receiptNumber}`}
      onClose={onClose}
      wide
      footer={
        <>
          {notice ? (
            <span className="bo-saved" role="status" data-testid="order-notice">
              {notice}
            </span>
          ) : null}
          <button type="button" className="button" onClick={onClose} data-testid="order-close">
            Close
          </button>
        </>
      }
    >
      <div className="bo-order" data-testid="order-detail" data-order-id={shown.id} data-state={shown.state}>
        <dl className="bo-totals">
          <div>
            <dt>State</dt>
            <dd>
              <StateBadge state={shown.state} />
            </dd>
          </div>
          <div>
            <dt>Total</dt>
            <dd data-testid="order-total">{money(shown.totalCents + shown.tipCents)}</dd>
          </div>
          <div>
            <dt>Paid</dt>
            <dd data-testid="order-paid">{money(shown.paidCents)}</dd>
          </div>
          <div>
            <dt>Refunded</dt>
            <dd data-testid="order-refunded">{money(shown.refundedCents)}</dd>
          </div>
          <div>
            <dt>Balance due</dt>
            <dd data-testid="order-balance">{money(shown.balanceDueCents)}</dd>
          </div>
        </dl>
        <p className="muted bo-flush">
          {new Date(shown.createdAt).toLocaleString()} · {sourceText(shown)}
          {shown.note ? ` · Note: ${shown.note}` : ''}
        </p>
        {error ? <LoadError error={error} what="This order" /> : null}
        {!order && !error ? (
          <p className="muted" role="status">
            Loading the order…
          </p>
        ) : null}
        {order ? (
          <>
            <OrderLines order={order} />
            <OrderPayments order={order} />
            <OrderRefunds order={order} />
            <div className="bo-order-actions">
              {order.state === 'balance_due' ? <BalanceDuePanel order={order} onCollected={update} /> : null}
              {order.state === 'paid' || order.state === 'partially_refunded' ? <RefundPanel order={order} onRefunded={update} /> : null}
              {order.state === 'open' ? <CancelPanel order={order} onCanceled={update} /> : null}
              <ReceiptPanel order={order} />
            </div>
          </>
        ) : null}
      </div>
    </Dialog>
  );
}

/** Lines (quantity, name, amount, refunded quantity) with the order's totals in the footer. */
function OrderLines({ order }: { order: ApiOrder }) {
  const refunded = refundedQuantities(order);
  const money = (cents: number) => formatMoney(cents, order.currency);
  // Each total stands under the Amount column, its label under the three before.
  const total = (key: string, label: string, cents: number, sign = ''): FootRow => ({ key, label, cells: { amount: `${sign}${money(cents)}` } });
  return (
    <DataTable
      testId="order-lines"
      caption="Items"
      columns={[
        { key: 'quantity', header: 'Qty', numeric: true, cell: (l) => l.quantity },
        {
          key: 'item',
          header: 'Item',
          cell: (l) => (
            <>
              {lineTitle(l)}
              {lineDetail(l) ? <span className="muted bo-hint"> · {lineDetail(l)}</span> : null}
            </>
          ),
        },
        { key: 'unit', header: 'Unit price', numeric: true, cell: (l) => money(l.unitPriceCents) },
        { key: 'amount', header: 'Amount', numeric: true, cell: (l) => money(l.grossCents) },
        { key: 'refunded', header: 'Refunded', numeric: true, cell: (l) => refunded.get(l.id) ?? 0, cellTestId: 'order-line-refunded' },
      ]}
      rows={order.lines}
      rowKey={(l) => l.id}
      rowAttributes={(l) => ({ 'data-testid': 'order-line', 'data-line-id': l.id })}
      foot={[
        total('subtotal', 'Subtotal', order.subtotalCents),
        ...(order.discountCents > 0 ? [total('discount', 'Discount', order.discountCents, '−')] : []),
        ...order.taxLines.map((t) => total(`tax-${t.taxRateId}`, `${t.name}${t.inclusive ? ' (included)' : ''}`, t.taxCents)),
        ...(order.tipCents > 0 ? [total('tip', 'Tip', order.tipCents)] : []),
        total('total', 'Total', order.totalCents + order.tipCents),
      ]}
    />
  );
}

/** A payment's settlement on its rail's schedule, in words (— when it settles at once or was never captured). */
function settlementText(p: Payment): string {
  const s = p.settlement;
  if (!s) return '—';
  if (s.status === 'pending') return `Pending until ${new Date(s.settlesAt).toLocaleString()}`;
  if (s.status === 'returned') return `Returned by the bank (${s.returnCode ?? 'return'})`;
  return `Settled ${s.settledAt ? new Date(s.settledAt).toLocaleDateString() : ''}`.trim();
}

/** The tenders taken (declined card attempts included, marked as such), with their settlement. */
function OrderPayments({ order }: { order: ApiOrder }) {
  const money = (cents: number) => formatMoney(cents, order.currency);
  const orDash = (cents: number | null | undefined) => (cents ? money(cents) : '—');
  return (
    <DataTable
      testId="order-payments"
      caption="Payments"
      columns={[
        { key: 'tender', header: 'Tender', cell: (p) => paymentLabel(p) },
        {
          key: 'state',
          header: 'State',
          cell: (p) => (p.state === 'declined' ? `Declined (${p.declineCode ?? 'card'})` : PAYMENT_STATE_TEXT[p.state]),
        },
        { key: 'amount', header: 'Amount', numeric: true, cell: (p) => money(p.amountCents) },
        { key: 'tip', header: 'Tip', numeric: true, cell: (p) => orDash(p.tipCents) },
        { key: 'change', header: 'Change', numeric: true, cell: (p) => orDash(p.changeCents) },
        { key: 'refunded', header: 'Refunded', numeric: true, cell: (p) => orDash(p.refundedCents) },
        { key: 'settlement', header: 'Settlement', cell: (p) => settlementText(p), cellTestId: 'order-payment-settlement' },
      ]}
      rows={order.payments ?? []}
      rowKey={(p) => p.id}
      rowAttributes={(p) => ({ 'data-testid': 'order-payment', 'data-payment-id': p.id, 'data-state': p.state })}
      emptyText="No payment taken yet."
      emptyClassName="muted bo-flush"
    />
  );
}

/** What a refund gave back, in words: "1 × Butter croissant, returned to stock" or "an amount". */
function refundWhat(order: ApiOrder, refund: Refund): string {
  if (refund.kind === 'cancellation') return 'Cancellation';
  if (refund.lines.length === 0) return 'By amount';
  const names = refund.lines.map((l) => `${l.quantity} × ${order.lines.find((x) => x.id === l.lineId)?.name ?? l.lineId}`).join(', ');
  return refund.restock ? `${names}, returned to stock` : names;
}

/** The refunds made, oldest first. */
function OrderRefunds({ order }: { order: ApiOrder }) {
  return (
    <DataTable
      testId="order-refunds"
      caption="Refunds"
      columns={[
        { key: 'time', header: 'Time', cell: (r) => new Date(r.createdAt).toLocaleString() },
        { key: 'what', header: 'What', cell: (r) => refundWhat(order, r) },
        { key: 'reason', header: 'Reason', cell: (r) => r.reason ?? '—' },
        { key: 'approvedBy', header: 'Approved by', cell: (r) => r.approvedBy ?? '—' },
        { key: 'amount', header: 'Amount', numeric: true, cell: (r) => formatMoney(r.amountCents, order.currency) },
      ]}
      rows={order.refunds ?? []}
      rowKey={(r) => r.id}
      rowAttributes={(r) => ({ 'data-testid': 'order-refund-row', 'data-refund-id': r.id })}
      emptyText="No refunds."
      emptyClassName="muted bo-flush"
    />
  );
}
