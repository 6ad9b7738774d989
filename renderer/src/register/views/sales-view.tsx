import { useMemo, useState } from 'react';
import { formatMoney } from '../../../../core/index.ts';
import { ReceiptView, syncMarker } from '../components/receipt-view.tsx';
import type { StoredOrder } from '../db/database.ts';
import { DataTable } from '../../ui/data-table.tsx';
import { useObservable } from '../../ui/hooks.ts';
import { useRegister } from '../register-context.ts';

function startOfToday(): string {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
}

/** Today's sales on this register, newest first, each with its sync marker; a row opens its receipt. */
export function SalesView() {
  const { db, session } = useRegister();
  const [openId, setOpenId] = useState<string | undefined>();
  const since = useMemo(startOfToday, []);
  const orders$ = useMemo(
    () => db.orders.find({ selector: { createdAt: { $gte: since }, registerId: session.registerId }, sort: [{ createdAt: 'desc' }] }).$,
    [db, since, session.registerId],
  );
  const docs = useObservable(orders$, []);
  const orders = docs.map((d) => d.toJSON() as StoredOrder);
  const takings = orders.filter((o) => !o.rejection).reduce((a, o) => a + o.totalCents, 0);

  if (openId) {
    return (
      <main className="receipt-screen">
        <ReceiptView orderId={openId} onDone={() => setOpenId(undefined)} doneLabel="Back to sales" />
      </main>
    );
  }

  return (
    <main className="sales">
      <header className="page-header">
        <h1>Today’s sales</h1>
        <p className="muted">
          {orders.length} {orders.length === 1 ? 'sale' : 'sales'} · {formatMoney(takings, session.currency)}
        </p>
      </header>
      <DataTable
        className="orders-table"
        caption="Sales of this register today"
        captionHidden
        columns={[
          {
            key: 'receipt',
            header: 'Receipt',
            cell: (order) => (
              <button type="button" className="link-button" data-testid="order-receipt-number" onClick={() => setOpenId(order.id)}>
                {order.receiptNumber}
              </button>
            ),
          },
          { key: 'time', header: 'Time', cell: (order) => new Date(order.createdAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) },
          { key: 'items', header: 'Items', cell: (order) => order.lines.reduce((a, l) => a + l.quantity, 0) },
          { key: 'total', header: 'Total', numeric: true, cell: (order) => formatMoney(order.totalCents, order.currency), cellTestId: 'order-total' },
          {
            key: 'sync',
            header: 'Sync',
            cell: (order) => {
              const marker = syncMarker(order);
              return (
                <span className={`sync-marker sync-marker-${marker.kind}`} data-testid="order-sync" title={order.rejection?.reason}>
                  {marker.label}
                </span>
              );
            },
          },
        ]}
        rows={orders}
        rowKey={(order) => order.id}
        rowAttributes={(order) => ({ 'data-testid': 'order-row', 'data-order-id': order.id, 'data-sync': syncMarker(order).kind })}
        emptyText="No sales on this register today."
        emptyClassName="muted"
      />
    </main>
  );
}
