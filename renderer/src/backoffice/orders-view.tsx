/**
 * Back office → Orders: every order of the store, register sales synced to the server and orders created through the
 * API alike, newest first with a state filter and "Show more" (cursor pagination). Opening one shows its lines,
 * payments, refunds, totals and balance, and lets staff act on it without the API:
 * - refund a paid order by line (a quantity per line, "Return to stock" on by default) or by amount, with a reason;
 *   the server's field errors (`lines.<i>.quantity`, `amountCents`, …) show next to their inputs;
 * - cancel an open order after an inline confirmation;
 * - send the receipt by SMS or e-mail, or show it in a printable block (printed only on the Print button).
 *
 * Amounts typed by people are parsed with `parseCashInput` into integer cents (never floats); money is shown with
 * core's `formatMoney`. The server stays the authority: the refund preview and "Up to … can still be refunded" come from
 * core's refund rule (`planOrderRefund`, `refundableBalance`, the functions the server plans with) only to label the
 * form, and whatever the server refuses is shown where it belongs.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { formatMoney, ORDER_STATES, tenderLabel, planOrderRefund, refundableBalance, type RefundRequest } from '../../../core/index.ts';
import { DataTable, type Column, type FootRow } from '../ui/data-table.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import {
  ApiError,
  type ApiOrder,
  type ApiOrderState,
  type Customer,
  type OrderReceipt,
  type OrderRefundInput,
  type Page,
} from '../common/back-office-api.ts';
import { CursorListBody, useCursorList } from '../common/cursor-list.tsx';
import { OfflineCardBalances } from './offline-card-balances.tsx';
import {
  Field,
  formErrorsOf,
  LoadError,
  NO_ERRORS,
  useApi,
  useCurrency,
  useEscapeFromBody,
  useFocusFirstError,
  type FormErrors,
} from '../common/back-office-kit.tsx';

/** How each order state reads on screen. */
export const ORDER_STATE_TEXT: Record<ApiOrderState, string> = {
  open: 'Open',
  paid: 'Paid',
  partially_refunded: 'Partly refunded',
  refunded: 'Refunded',
  canceled: 'Canceled',
  balance_due: 'Balance due',
};

type Payment = NonNullable<ApiOrder['payments']>[number];

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
type Refund = NonNullable<ApiOrder['refunds']>[number];
type Line = ApiOrder['lines'][number];

/** The state badge of an order (`data-state` carries the raw state for tests and styles). */
function StateBadge({ state }: { state: ApiOrderState }) {
  return (
    <span className={`bo-status bo-status-${state}`} data-testid="order-state" data-state={state}>
      {ORDER_STATE_TEXT[state]}
    </span>
  );
}

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

const sourceText = (order: ApiOrder) => (order.source === 'register' ? `Register ${order.registerNumber}` : 'Back office');

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

/** Quantities of each line already refunded, by line id. */
function refundedQuantities(order: ApiOrder): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of order.refunds ?? []) for (const l of r.lines) out.set(l.lineId, (out.get(l.lineId) ?? 0) + l.quantity);
  return out;
}

/** What can still be given back (tips included): core's refund rule over the order's payments and refunds. */
function refundableCents(order: ApiOrder): number {
  return refundableBalance(order, order.payments ?? [], order.refunds ?? []).totalCents;
}

function paymentLabel(p: Payment): string {
  if (p.method === 'card') return p.last4 ? `${p.cardBrand ?? 'Card'} •••• ${p.last4}` : 'Card';
  if (p.method === 'check') return p.reference ? `Check ${p.reference}` : 'Check';
  if (p.method === 'other') return p.reference ? `Other (${p.reference})` : 'Other';
  return tenderLabel(p.method);
}

const lineTitle = (line: Line) => line.name;
const lineDetail = (line: Line) => [line.variationName, ...line.modifiers.map((m) => m.name)].filter(Boolean).join(', ');

/** The order dialog: loads the full order (payments, refunds) and hosts the refund, cancel and receipt panels. */
function OrderDetail({ summary, onChanged, onClose }: { summary: ApiOrder; onChanged: (order: ApiOrder) => void; onClose: () => void }) {
  const api = useApi();
  const [order, setOrder] = useState<ApiOrder | undefined>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string | undefined>();
  useEscapeFromBody(onClose);

  useEffect(() => {
    let current = true;
    api.getOrder(summary.id).then(
      (o) => current && setOrder(o),
      (err: unknown) => current && setError(err),
    );
    return () => {
      current = false;
    };
  }, [api, summary.id]);

  const update = (next: ApiOrder, message: string) => {
    setOrder(next);
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

type RefundMode = 'lines' | 'amount';

const lineKey = (lineId: string) => `line:${lineId}`;

/**
 * The refund form: by line (quantity per line, at most what is left, "Return to stock" on by default) or by amount,
 * with an optional reason. Server field errors are mapped back to the inputs they name.
 */
function RefundPanel({ order, onRefunded }: { order: ApiOrder; onRefunded: (order: ApiOrder, message: string) => void }) {
  const api = useApi();
  const currency = useCurrency();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [mode, setMode] = useState<RefundMode>('lines');
  const [quantities, setQuantities] = useState<Record<string, string>>({});
  const [restock, setRestock] = useState(true);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  // A cashier's refund above the store's limit (403 approval_required): the refund waits for a manager's PIN.
  const [pending, setPending] = useState<OrderRefundInput | undefined>(undefined);
  useFocusFirstError(formRef, errors);

  const cur = order.currency || currency;
  const money = (cents: number) => formatMoney(cents, cur);
  const refunded = refundedQuantities(order);
  const left = (line: Line) => Math.max(0, line.quantity - (refunded.get(line.id) ?? 0));
  const refundable = refundableCents(order);

  /** The lines asked for (quantity typed and not 0), in order; `bad` holds the lines whose text is not a count. */
  const asked = () => {
    const chosen: { line: Line; quantity: number }[] = [];
    const bad: string[] = [];
    for (const line of order.lines) {
      const text = (quantities[line.id] ?? '').trim();
      if (text === '') continue;
      if (!/^\d{1,4}$/.test(text)) {
        bad.push(line.id);
        continue;
      }
      const quantity = Number(text);
      if (quantity > 0) chosen.push({ line, quantity });
    }
    return { chosen, bad };
  };

  /** A preview of what the server will give back (core's planner); undefined when it would refuse. */
  const preview = (): number | undefined => {
    let request: RefundRequest;
    if (mode === 'lines') {
      const { chosen, bad } = asked();
      if (chosen.length === 0 || bad.length > 0) return undefined;
      request = { lines: chosen.map((c) => ({ lineId: c.line.id, quantity: c.quantity })) };
    } else {
      const cents = parseCashInput(amount, cur);
      if (!cents) return undefined;
      request = { amountCents: cents };
    }
    try {
      return planOrderRefund(order, order.payments ?? [], order.refunds ?? [], request).amountCents;
    } catch {
      return undefined;
    }
  };
  const previewCents = preview();

  const setQuantity = (lineId: string, text: string) => {
    setQuantities((q) => ({ ...q, [lineId]: text }));
    setErrors((e) => {
      const key = lineKey(lineId);
      if (!(key in e.fields) && !('lines' in e.fields)) return e;
      const fields = { ...e.fields };
      delete fields[key];
      delete fields.lines;
      return { ...e, fields };
    });
  };

  const step = (line: Line, delta: number) => {
    const now = Number((quantities[line.id] ?? '').trim() || '0');
    const next = Math.min(left(line), Math.max(0, (Number.isFinite(now) ? now : 0) + delta));
    setQuantity(line.id, next === 0 ? '' : String(next));
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    let input: OrderRefundInput;
    let sentLines: Line[] = [];
    const trimmedReason = reason.trim();
    if (mode === 'lines') {
      const { chosen, bad } = asked();
      if (bad.length > 0) {
        setErrors({ fields: Object.fromEntries(bad.map((lineId) => [lineKey(lineId), 'Enter a whole number of items'])) });
        return;
      }
      if (chosen.length === 0) {
        setErrors({ fields: {}, form: 'Enter how many items to refund on at least one line.' });
        return;
      }
      sentLines = chosen.map((c) => c.line);
      input = {
        lines: chosen.map((c) => ({ lineId: c.line.id, quantity: c.quantity })),
        restock,
        ...(trimmedReason ? { reason: trimmedReason } : {}),
      };
    } else {
      const cents = parseCashInput(amount, cur);
      if (cents === undefined || cents === 0) {
        setErrors({ fields: { amountCents: 'Enter an amount like 4.50' } });
        return;
      }
      input = { amountCents: cents, ...(trimmedReason ? { reason: trimmedReason } : {}) };
    }
    await send(input, sentLines);
  };

  /** Sends the refund (with a manager's approval once given); 403 `approval_required` asks for the manager's PIN. */
  const send = async (input: OrderRefundInput, sentLines: Line[] = []) => {
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const { refund, order: next } = await api.refundOrder(order.id, input);
      setPending(undefined);
      setQuantities({});
      setAmount('');
      setReason('');
      setRestock(true);
      const what =
        refund.lines.length > 0
          ? ` for ${refund.lines.map((l) => `${l.quantity} × ${order.lines.find((x) => x.id === l.lineId)?.name ?? l.lineId}`).join(', ')}${refund.restock ? ', returned to stock' : ''}`
          : '';
      onRefunded(next, `Refunded ${money(refund.amountCents)}${what}. The order is now ${ORDER_STATE_TEXT[next.state].toLowerCase()}.`);
    } catch (err) {
      if (err instanceof ApiError && err.problem.code === 'approval_required') {
        setPending(input);
        return;
      }
      const known = (path: string) => /^lines\.\d+\.(quantity|lineId)$/.test(path) || ['lines', 'amountCents', 'reason', 'restock'].includes(path);
      const found = formErrorsOf(err, known);
      const fields: Record<string, string> = {};
      for (const [path, message] of Object.entries(found.fields)) {
        const match = /^lines\.(\d+)\./.exec(path);
        const line = match ? sentLines[Number(match[1])] : undefined;
        fields[line ? lineKey(line.id) : path] = message;
      }
      setErrors({ fields, ...(found.form ? { form: found.form } : {}) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="bo-panel bo-refund" aria-labelledby={`${id}-title`} data-testid="order-refund">
      <h3 id={`${id}-title`}>Refund</h3>
      <p className="muted bo-flush">Up to {money(refundable)} can still be refunded.</p>
      {pending ? (
        <ManagerApproval orderId={order.id} onApproved={(approval) => void send({ ...pending, approval })} onCancel={() => setPending(undefined)} />
      ) : null}
      <form ref={formRef} className="bo-form" onSubmit={onSubmit} noValidate data-testid="order-refund-form">
        <fieldset className="bo-segmented">
          <legend>Refund by</legend>
          <label className="bo-check">
            <input
              type="radio"
              name={`${id}-mode`}
              value="lines"
              checked={mode === 'lines'}
              onChange={() => (setMode('lines'), setErrors(NO_ERRORS))}
              data-testid="order-refund-mode-lines"
            />{' '}
            Items
          </label>
          <label className="bo-check">
            <input
              type="radio"
              name={`${id}-mode`}
              value="amount"
              checked={mode === 'amount'}
              onChange={() => (setMode('amount'), setErrors(NO_ERRORS))}
              data-testid="order-refund-mode-amount"
            />{' '}
            Amount
          </label>
        </fieldset>
        {errors.form ? (
          <p className="form-error" role="alert" data-testid="order-refund-form-error">
            {errors.form}
          </p>
        ) : null}
        {mode === 'lines' ? (
          <>
            <table className="orders-table bo-table">
              <thead>
                <tr>
                  <th scope="col">Item</th>
                  <th scope="col" className="numeric">
                    Left to refund
                  </th>
                  <th scope="col">Quantity to refund</th>
                </tr>
              </thead>
              <tbody>
                {order.lines.map((line) => {
                  const inputId = `${id}-qty-${line.id}`;
                  const error = errors.fields[lineKey(line.id)];
                  const remaining = left(line);
                  return (
                    <tr key={line.id} data-testid="order-refund-line" data-line-id={line.id}>
                      <td>
                        {lineTitle(line)}
                        {lineDetail(line) ? <span className="muted bo-hint"> · {lineDetail(line)}</span> : null}
                      </td>
                      <td className="numeric" data-testid="order-refund-line-left">
                        {remaining} of {line.quantity}
                      </td>
                      <td>
                        <div className="bo-stepper">
                          <label className="visually-hidden" htmlFor={inputId}>
                            Quantity of {line.name} to refund (at most {remaining})
                          </label>
                          <button
                            type="button"
                            className="button bo-step"
                            onClick={() => step(line, -1)}
                            disabled={remaining === 0}
                            aria-label={`One fewer ${line.name}`}
                            aria-controls={inputId}
                          >
                            −
                          </button>
                          <input
                            id={inputId}
                            className="bo-input bo-units"
                            inputMode="numeric"
                            placeholder="0"
                            min={0}
                            max={remaining}
                            value={quantities[line.id] ?? ''}
                            onChange={(e) => setQuantity(line.id, e.target.value)}
                            disabled={remaining === 0}
                            aria-invalid={Boolean(error)}
                            {...(error ? { 'aria-describedby': `${inputId}-error` } : {})}
                            data-testid="order-refund-line-qty"
                          />
                          <button
                            type="button"
                            className="button bo-step"
                            onClick={() => step(line, 1)}
                            disabled={remaining === 0}
                            aria-label={`One more ${line.name}`}
                            aria-controls={inputId}
                          >
                            +
                          </button>
                        </div>
                        {error ? (
                          <span className="bo-field-error" id={`${inputId}-error`} role="alert" data-testid="field-error">
                            {error}
                          </span>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {errors.fields.lines ? (
              <p className="bo-field-error" role="alert" data-testid="field-error">
                {errors.fields.lines}
              </p>
            ) : null}
            <label className="bo-check">
              <input type="checkbox" checked={restock} onChange={(e) => setRestock(e.target.checked)} data-testid="order-refund-restock" /> Return to
              stock
            </label>
          </>
        ) : (
          <div className="bo-row">
            <Field
              id={`${id}-amount`}
              label={`Amount to refund (${cur})`}
              error={errors.fields.amountCents}
              hint={`At most ${money(refundable)}`}
              className="bo-field-narrow"
            >
              {(p) => (
                <input
                  {...p}
                  className="bo-input bo-money"
                  inputMode="decimal"
                  placeholder="0.00"
                  value={amount}
                  onChange={(e) => setAmount(e.target.value)}
                  data-testid="order-refund-amount"
                />
              )}
            </Field>
            <button
              type="button"
              className="button bo-inline-button"
              onClick={() => setAmount(centsToInput(refundable, cur))}
              data-testid="order-refund-amount-all"
            >
              Everything left
            </button>
          </div>
        )}
        <Field id={`${id}-reason`} label="Reason (optional)" error={errors.fields.reason}>
          {(p) => (
            <input
              {...p}
              className="bo-input"
              value={reason}
              maxLength={500}
              onChange={(e) => setReason(e.target.value)}
              data-testid="order-refund-reason"
            />
          )}
        </Field>
        <div>
          <button type="submit" className="button button-primary" disabled={busy} data-testid="order-refund-submit">
            {busy ? 'Refunding…' : previewCents !== undefined ? `Refund ${money(previewCents)}` : 'Refund'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** Cancel an open order: a button, then an inline confirmation (with an optional reason) — no window.confirm. */
function CancelPanel({ order, onCanceled }: { order: ApiOrder; onCanceled: (order: ApiOrder, message: string) => void }) {
  const api = useApi();
  const id = useId();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const reasonRef = useRef<HTMLInputElement>(null);
  const money = (cents: number) => formatMoney(cents, order.currency);

  useEffect(() => {
    if (confirming) reasonRef.current?.focus();
  }, [confirming]);

  const cancel = async () => {
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const next = await api.cancelOrder(order.id, reason.trim() || undefined);
      setConfirming(false);
      onCanceled(next, next.refundedCents > 0 ? `Order canceled; ${money(next.refundedCents)} given back.` : 'Order canceled.');
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'reason'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="bo-panel" aria-labelledby={`${id}-title`} data-testid="order-cancel-panel">
      <h3 id={`${id}-title`}>Cancel</h3>
      {!confirming ? (
        <div>
          <button type="button" className="button bo-danger-ghost" onClick={() => setConfirming(true)} data-testid="order-cancel">
            Cancel order…
          </button>
        </div>
      ) : (
        <div className="bo-form" role="group" aria-labelledby={`${id}-question`}>
          <p id={`${id}-question`} className="bo-delete-question bo-flush">
            Cancel order {order.receiptNumber}?{' '}
            {order.paidCents > 0 ? `The ${money(order.paidCents)} already paid is given back.` : 'Nothing has been paid on it.'} This cannot be
            undone.
          </p>
          <Field id={`${id}-reason`} label="Reason (optional)" error={errors.fields.reason}>
            {(p) => (
              <input
                {...p}
                ref={reasonRef}
                className="bo-input"
                value={reason}
                maxLength={500}
                onChange={(e) => setReason(e.target.value)}
                onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), void cancel())}
                data-testid="order-cancel-reason"
              />
            )}
          </Field>
          {errors.form ? (
            <p className="form-error" role="alert">
              {errors.form}
            </p>
          ) : null}
          <div className="bo-actions">
            <button type="button" className="button bo-danger" onClick={cancel} disabled={busy} data-testid="order-cancel-confirm">
              {busy ? 'Canceling…' : 'Cancel order'}
            </button>
            <button
              type="button"
              className="button button-ghost"
              onClick={() => setConfirming(false)}
              disabled={busy}
              data-testid="order-cancel-keep"
            >
              Keep order
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

/** Why a `balance_due` order owes, in words. */
const BALANCE_DUE_TEXT: Record<NonNullable<ApiOrder['balanceDueReason']>, string> = {
  offline_card_declined: 'offline card declined on forward',
  offline_card_expired: "offline card not forwarded within the store's window",
  bank_payment_returned: 'bank payment returned',
};

/**
 * A `balance_due` order: what the customer owes and why (the failed payment: card and decline code, or the
 * bank's return code), the receipt's customer to contact (name, e-mail, phone), and "Collect balance": an amount (the
 * whole balance by default) taken in cash or by card, `POST /api/pos/orders/{id}/payments`; back to Paid at zero.
 */
function BalanceDuePanel({ order, onCollected }: { order: ApiOrder; onCollected: (order: ApiOrder, message: string) => void }) {
  const api = useApi();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [customer, setCustomer] = useState<Customer | undefined>();
  const [amount, setAmount] = useState(() => centsToInput(order.balanceDueCents));
  const [method, setMethod] = useState<'cash' | 'card'>('cash');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  useFocusFirstError(formRef, errors);
  const money = (cents: number) => formatMoney(cents, order.currency);

  useEffect(() => {
    let current = true;
    if (!order.customerId) return;
    api.orderCustomer(order.customerId).then(
      (c) => current && setCustomer(c),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, order.customerId]);

  const failed = (order.payments ?? []).filter((p) => p.state === 'returned' || (p.state === 'declined' && p.journalTransactionId));
  const contact = customer
    ? [[customer.givenName, customer.familyName].filter(Boolean).join(' '), customer.email, customer.phone].filter(Boolean).join(' · ')
    : order.customerId
      ? '…'
      : 'no customer on the receipt';

  const collect = async (e: FormEvent) => {
    e.preventDefault();
    const cents = parseCashInput(amount, order.currency);
    if (!cents || cents > order.balanceDueCents) {
      setErrors({ fields: { amount: `Type an amount up to ${money(order.balanceDueCents)}.` } });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const next = await api.collectOrderBalance(
        order.id,
        method === 'cash' ? { method, amountCents: cents } : { method, amountCents: cents, cardToken: 'tok_visa' },
      );
      setAmount(centsToInput(next.balanceDueCents));
      onCollected(
        next,
        next.state === 'balance_due'
          ? `${money(cents)} collected; ${money(next.balanceDueCents)} still due.`
          : `${money(cents)} collected: the order is paid.`,
      );
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'amount'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="bo-panel" aria-labelledby={`${id}-title`} data-testid="order-balance-due">
      <h3 id={`${id}-title`}>Balance due</h3>
      <p className="bo-flush" data-testid="order-balance-due-text">
        {money(order.balanceDueCents)} due — {order.balanceDueReason ? BALANCE_DUE_TEXT[order.balanceDueReason] : 'a payment failed after the sale'}
        {failed.map((p) => ` · ${p.cardBrand ?? tenderLabel(p.method)}${p.last4 ? ` ···${p.last4}` : ''}: ${p.declineCode ?? p.state}`).join('')}
      </p>
      <p className="muted bo-flush" data-testid="order-balance-due-customer">
        Customer on the receipt: {contact}
      </p>
      <form ref={formRef} className="bo-form" onSubmit={collect} noValidate>
        <Field id={`${id}-amount`} label="Amount" error={errors.fields.amount}>
          {(p) => (
            <input
              {...p}
              className="bo-input"
              inputMode="decimal"
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              data-testid="order-collect-amount"
            />
          )}
        </Field>
        <fieldset className="bo-fieldset">
          <legend>Taken in</legend>
          {(['cash', 'card'] as const).map((m) => (
            <label key={m} className="bo-check">
              <input
                type="radio"
                name={`${id}-method`}
                value={m}
                checked={method === m}
                onChange={() => setMethod(m)}
                data-testid={`order-collect-${m}`}
              />{' '}
              {m === 'cash' ? 'Cash' : 'Card'}
            </label>
          ))}
        </fieldset>
        {errors.form ? (
          <p className="form-error" role="alert">
            {errors.form}
          </p>
        ) : null}
        <div className="bo-actions">
          <button type="submit" className="button" disabled={busy} data-testid="order-collect">
            {busy ? 'Collecting…' : 'Collect balance'}
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * Send the receipt (SMS or e-mail, to the order's customer or a typed phone / address) and show the re-print data in
 * a printable block; `window.print()` runs only when the Print button is pressed.
 */
function ReceiptPanel({ order }: { order: ApiOrder }) {
  const api = useApi();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [channel, setChannel] = useState<'email' | 'sms'>('email');
  const [to, setTo] = useState('');
  const [customer, setCustomer] = useState<Customer | undefined>();
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string | undefined>();
  const [receipt, setReceipt] = useState<OrderReceipt | undefined>();
  const [receiptError, setReceiptError] = useState<unknown>();
  const [loadingReceipt, setLoadingReceipt] = useState(false);
  useFocusFirstError(formRef, errors);

  useEffect(() => {
    if (!order.customerId) return;
    let current = true;
    api.orderCustomer(order.customerId).then(
      (c) => current && setCustomer(c),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, order.customerId]);

  // The printed receipt follows the order (a refund changes it): drop a stale copy.
  useEffect(() => setReceipt(undefined), [order.state, order.refundedCents]);

  const fallback = channel === 'sms' ? customer?.phone : customer?.email;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setSending(true);
    setErrors(NO_ERRORS);
    setSent(undefined);
    try {
      // A national number is read in the store's country by the server, as for customers.
      const target = to.trim();
      const recipient = target ? { to: target } : {};
      const result = await api.sendOrderReceipt(order.id, channel === 'sms' ? { channel: 'sms', ...recipient } : { channel: 'email', ...recipient });
      setSent(`Receipt ${result.channel === 'sms' ? 'texted' : 'e-mailed'} to ${result.to}.`);
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'to'));
    } finally {
      setSending(false);
    }
  };

  const showReceipt = async () => {
    setLoadingReceipt(true);
    setReceiptError(undefined);
    try {
      setReceipt(await api.orderReceipt(order.id));
    } catch (err) {
      setReceiptError(err);
    } finally {
      setLoadingReceipt(false);
    }
  };

  return (
    <section className="bo-panel" aria-labelledby={`${id}-title`} data-testid="order-receipt">
      <h3 id={`${id}-title`}>Receipt</h3>
      <form ref={formRef} className="bo-form" onSubmit={send} noValidate>
        <fieldset className="bo-segmented">
          <legend>Send by</legend>
          <label className="bo-check">
            <input
              type="radio"
              name={`${id}-channel`}
              value="email"
              checked={channel === 'email'}
              onChange={() => (setChannel('email'), setErrors(NO_ERRORS))}
              data-testid="order-receipt-channel-email"
            />{' '}
            E-mail
          </label>
          <label className="bo-check">
            <input
              type="radio"
              name={`${id}-channel`}
              value="sms"
              checked={channel === 'sms'}
              onChange={() => (setChannel('sms'), setErrors(NO_ERRORS))}
              data-testid="order-receipt-channel-sms"
            />{' '}
            SMS
          </label>
        </fieldset>
        {errors.form ? (
          <p className="form-error" role="alert">
            {errors.form}
          </p>
        ) : null}
        <div className="bo-row bo-receipt-send">
          <Field
            id={`${id}-to`}
            label={channel === 'sms' ? 'Phone number' : 'E-mail address'}
            error={errors.fields.to}
            hint={
              fallback
                ? `Leave empty to send to the customer (${fallback})`
                : channel === 'sms'
                  ? 'As dialled in the store, or + and the country code'
                  : 'This order has no customer e-mail: type an address'
            }
          >
            {(p) => (
              <input
                {...p}
                className="bo-input"
                type={channel === 'sms' ? 'tel' : 'email'}
                autoComplete="off"
                value={to}
                onChange={(e) => (setTo(e.target.value), setSent(undefined))}
                data-testid="order-receipt-to"
              />
            )}
          </Field>
          <button type="submit" className="button button-primary bo-inline-button" disabled={sending} data-testid="order-receipt-send">
            {sending ? 'Sending…' : 'Send receipt'}
          </button>
        </div>
        {sent ? (
          <p className="bo-saved bo-flush" role="status" data-testid="order-receipt-sent">
            {sent}
          </p>
        ) : null}
      </form>
      <div className="bo-actions">
        <button type="button" className="button" onClick={showReceipt} disabled={loadingReceipt} data-testid="order-receipt-show">
          {loadingReceipt ? 'Loading…' : receipt ? 'Reload receipt' : 'Show receipt to print'}
        </button>
        {receipt ? (
          <button type="button" className="button button-primary" onClick={() => window.print()} data-testid="order-receipt-print">
            Print
          </button>
        ) : null}
      </div>
      {receiptError ? <LoadError error={receiptError} what="The receipt" /> : null}
      {receipt ? (
        <pre className="bo-receipt-print" aria-label={`Receipt ${receipt.receiptNumber}`} data-testid="order-receipt-text">
          {receipt.text}
        </pre>
      ) : null}
    </section>
  );
}

/**
 * The manager's approval prompt: a manager or owner picks their name and types their PIN
 * (`POST /api/register/approvals`); the approval, bound to this order, is handed to `onApproved` for the retry.
 */
function ManagerApproval({ orderId, onApproved, onCancel }: { orderId: string; onApproved: (approval: string) => void; onCancel: () => void }) {
  const api = useApi();
  const id = useId();
  const [approvers, setApprovers] = useState<{ id: string; name: string }[] | undefined>(undefined);
  const [staffId, setStaffId] = useState('');
  const [pin, setPin] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    api.signInStaff().then(
      ({ data }) => {
        if (!live) return;
        const managers = data.filter((s) => s.role === 'manager' || s.role === 'owner');
        setApprovers(managers);
        setStaffId((current) => current || managers[0]?.id || '');
      },
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [api]);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const { approval } = await api.approve({ staffId, pin, action: 'refund', orderId });
      setPin('');
      onApproved(approval);
    } catch (err) {
      setError(err instanceof ApiError && err.problem.code === 'invalid_pin' ? 'Wrong PIN.' : err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="bo-form bo-panel" onSubmit={onSubmit} noValidate data-testid="refund-approval" aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`} role="alert">
        This refund is above the store's limit for cashiers: a manager approves it with their PIN.
      </p>
      {error ? (
        <p className="form-error" role="alert" data-testid="refund-approval-error">
          {error}
        </p>
      ) : null}
      <div className="bo-row">
        <label htmlFor={`${id}-manager`}>Manager</label>
        <select
          id={`${id}-manager`}
          className="bo-input"
          value={staffId}
          onChange={(e) => setStaffId(e.target.value)}
          disabled={!approvers}
          data-testid="refund-approval-manager"
        >
          {(approvers ?? []).map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-pin`}>PIN</label>
        <input
          id={`${id}-pin`}
          className="bo-input"
          type="password"
          inputMode="numeric"
          autoComplete="off"
          maxLength={8}
          value={pin}
          onChange={(e) => setPin(e.target.value.replace(/\D/g, ''))}
          data-testid="refund-approval-pin"
        />
        <button type="submit" className="button button-primary" disabled={busy || !staffId || pin.length < 4} data-testid="refund-approval-submit">
          Approve and refund
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
