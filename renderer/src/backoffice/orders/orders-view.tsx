/**
 * Back office → Orders: every order of the store, register sales synced to the server and orders created through the
 * API alike, newest first with a state filter and "Show more" (cursor pagination). Opening one shows its lines,
 * payments, refunds, totals and balance, and lets staff act on it without the API:
 * - refund a paid order by line (a quantity per line, "Return to stock" on by default) or by amount, with a reason;
 *   the server's field errors (`lines.<i>.quantity`, `amountCents`, …) show next to their inputs;
 * - cancel an open order after an inline confirmation;
 * - send the receipt by SMS or e-mail, or show it in a printable block (printed only on the Print button).
 *
 * This file holds the list and the lost-receipts banner; the order dialog is `order-detail.tsx`.
 */
import { useEffect, useId, useState } from 'react';
import { formatMoney, ORDER_STATES } from '../../../../core/index.ts';
import { DataTable, type Column } from '../../ui/data-table.tsx';
import type { ApiOrder, ApiOrderState, Page } from '../../common/back-office-api.ts';
import { CursorListBody, useCursorList } from '../../common/cursor-list.tsx';
import { OfflineCardBalances } from '../offline-card-balances.tsx';
import { useApi } from '../../common/back-office-kit.tsx';
import { ORDER_STATE_TEXT, StateBadge, sourceText } from './order-parts.tsx';
import { OrderDetail } from './order-detail.tsx';

/** One receipt number a register reported lost (`GET /api/sync/missing-receipts`). */
interface MissingReceipt {
  registerId: string;
  registerNumber: number;
  receiptNumber: string;
  reportedAt: string;
}

/**
 * Receipt numbers the registers reported lost (their browser storage was cleared before the sales synced): shown
 * above the orders so the owner can chase paper copies. Nothing when none; a failed load shows nothing either (the
 * orders list reports the connection).
 */
function MissingReceipts({ reload }: { reload: number }) {
  const api = useApi();
  const [missing, setMissing] = useState<MissingReceipt[]>([]);
  useEffect(() => {
    let current = true;
    api.request<{ data: MissingReceipt[] }>('GET', '/api/sync/missing-receipts').then(
      (body) => current && setMissing(body.data),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, reload]);
  if (missing.length === 0) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="missing-receipts">
      <span>
        Sales lost on a register before they synced (its browser storage was cleared):{' '}
        {missing.map((m, i) => (
          <span
            key={`${m.registerId} ${m.receiptNumber}`}
            data-testid="missing-receipt-row"
            data-register-id={m.registerId}
            title={`Reported ${new Date(m.reportedAt).toLocaleString()}`}
          >
            {i > 0 ? ', ' : ''}
            {m.receiptNumber} (Register {m.registerNumber})
          </span>
        ))}
      </span>
    </div>
  );
}

/** The columns of the order list; the receipt number opens the order. */
function orderColumns(open: (order: ApiOrder) => void): Column<ApiOrder>[] {
  return [
    {
      key: 'receipt',
      header: 'Receipt',
      cell: (o) => (
        <button
          type="button"
          className="link-button bo-order-open"
          onClick={() => open(o)}
          aria-label={`Open order ${o.receiptNumber}`}
          data-testid="orders-open"
        >
          {o.receiptNumber}
        </button>
      ),
    },
    { key: 'time', header: 'Time', cell: (o) => new Date(o.createdAt).toLocaleString() },
    { key: 'source', header: 'Source', cell: sourceText },
    { key: 'state', header: 'State', cell: (o) => <StateBadge state={o.state} /> },
    { key: 'total', header: 'Total', numeric: true, cell: (o) => formatMoney(o.totalCents + o.tipCents, o.currency) },
  ];
}

/**
 * The Orders section: the list with its filter, loading, empty and offline states, and the order detail dialog of the
 * order opened.
 */
export function OrdersView() {
  const api = useApi();
  const id = useId();
  const [status, setStatus] = useState<ApiOrderState | ''>('');
  const [reload, setReload] = useState(0);
  const [opened, setOpened] = useState<ApiOrder | undefined>();
  const list = useCursorList<ApiOrder, Page<ApiOrder>>('orders', [status], (cursor) =>
    api.listOrders({ ...(cursor ? { cursor } : {}), ...(status ? { status } : {}) }),
  );

  return (
    <section className="bo-section" aria-labelledby={`${id}-title`} data-testid="orders">
      <div className="bo-toolbar">
        <h2 id={`${id}-title`}>Orders</h2>
        <label className="visually-hidden" htmlFor={`${id}-status`}>
          State
        </label>
        <select
          id={`${id}-status`}
          className="bo-input"
          value={status}
          onChange={(e) => setStatus(e.target.value as ApiOrderState | '')}
          data-testid="orders-filter"
        >
          <option value="">Every state</option>
          {ORDER_STATES.map((s) => (
            <option key={s} value={s}>
              {ORDER_STATE_TEXT[s]}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button"
          onClick={() => {
            setReload((r) => r + 1);
            void list.refresh();
          }}
          data-testid="orders-refresh"
        >
          Refresh
        </button>
      </div>
      <MissingReceipts reload={reload} />
      <OfflineCardBalances reload={reload} />
      <CursorListBody
        list={list}
        what="Orders"
        loadingText="Loading orders…"
        loadingTestId="orders-loading"
        moreLabel="Show more orders"
        moreTestId="orders-more"
      >
        {(rows) => (
          <DataTable
            caption="Orders"
            captionHidden
            columns={orderColumns(setOpened)}
            rows={rows}
            rowKey={(o) => o.id}
            rowAttributes={(o) => ({ 'data-testid': 'orders-row', 'data-order-id': o.id, 'data-state': o.state })}
            emptyText={
              status
                ? `No ${ORDER_STATE_TEXT[status].toLowerCase()} orders.`
                : 'No orders yet. Register sales show here once they sync, with orders created through the API.'
            }
            emptyTestId="orders-empty"
          />
        )}
      </CursorListBody>
      {opened ? <OrderDetail key={opened.id} summary={opened} onChanged={list.replace} onClose={() => setOpened(undefined)} /> : null}
    </section>
  );
}
