/**
 * Back office → Invoices: list with status, create a draft (customer, custom lines in dollars → integer cents, due
 * date, memo), send it (issue: SMS/e-mail with the pay link), record a payment, void it, download its PDF; and the
 * recurring series (`invoice-series.tsx`) below the list.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { useRegisterSession } from '../common/session-context.ts';
import { centsToInput, parseCashInput } from '../common/cash.ts';
import { errorMessage, type Invoice, type InvoicePaymentMethod, type InvoiceStatus } from '../common/back-office-api.ts';
import { DataTable, type Column } from '../ui/data-table.tsx';
import { downloadBlob } from './download.ts';
import { CustomerPicker, firstLine, inDays, isLinePath, LinesFieldset, parseLines, useCustomerPicker, type LineDraft } from './invoice-parts.tsx';
import { SeriesPanel } from './invoice-series.tsx';
import { copyText } from './pay-requests-view.tsx';
import { Field, formErrorsOf, LoadError, NO_ERRORS, useApi, useCurrency, useFocusFirstError, type FormErrors } from '../common/back-office-kit.tsx';

const STATUS_TEXT: Record<InvoiceStatus, string> = {
  draft: 'Draft',
  sent: 'Sent',
  partially_paid: 'Partly paid',
  overdue: 'Overdue',
  paid: 'Paid',
  void: 'Void',
};

/** The invoice list's header (each `InvoiceRow` draws its own cells: it keeps the state of its actions). */
const INVOICE_COLUMNS: Column<Invoice>[] = [
  { key: 'number', header: 'Number' },
  { key: 'customer', header: 'Customer' },
  { key: 'due', header: 'Due' },
  { key: 'status', header: 'Status' },
  { key: 'total', header: 'Total', numeric: true },
  { key: 'balance', header: 'Balance due', numeric: true },
  { key: 'actions', header: 'Actions', hideHeader: true },
];

export function InvoicesView() {
  const api = useApi();
  const id = useId();
  const [status, setStatus] = useState('');
  const [list, setList] = useState<Invoice[] | undefined>();
  const [loadError, setLoadError] = useState<unknown>();
  const [creating, setCreating] = useState(false);

  useEffect(() => {
    let current = true;
    setLoadError(undefined);
    api.listInvoices(status ? { status } : {}).then(
      (page) => current && setList(page.data),
      (err: unknown) => current && setLoadError(err),
    );
    return () => {
      current = false;
    };
  }, [api, status]);

  const replace = (inv: Invoice) =>
    setList((l) => (l ? (l.some((x) => x.id === inv.id) ? l.map((x) => (x.id === inv.id ? inv : x)) : [inv, ...l]) : [inv]));

  return (
    <section className="bo-section" aria-labelledby={`${id}-title`}>
      <div className="bo-toolbar">
        <h2 id={`${id}-title`}>Invoices</h2>
        <label className="visually-hidden" htmlFor={`${id}-status`}>
          Status
        </label>
        <select id={`${id}-status`} className="bo-input" value={status} onChange={(e) => setStatus(e.target.value)} data-testid="invoice-filter">
          <option value="">Every status</option>
          {Object.entries(STATUS_TEXT).map(([k, v]) => (
            <option key={k} value={k}>
              {v}
            </option>
          ))}
        </select>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)} data-testid="invoice-new">
          New invoice
        </button>
      </div>
      {creating ? (
        <InvoiceDraftForm
          onCreated={(inv) => {
            replace(inv);
            setCreating(false);
          }}
          onCancel={() => {
            setCreating(false);
            // Escape or Cancel: focus back on "New invoice", never the page body.
            requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-testid="invoice-new"]')?.focus());
          }}
        />
      ) : null}
      {loadError ? <LoadError error={loadError} what="Invoices" /> : null}
      {!list && !loadError ? <p className="muted">Loading…</p> : null}
      {list ? (
        <DataTable
          caption="Invoices"
          captionHidden
          columns={INVOICE_COLUMNS}
          rows={list}
          rowKey={(inv) => inv.id}
          renderRow={(inv) => <InvoiceRow invoice={inv} onChanged={replace} />}
          emptyText={status ? 'No invoice with this status.' : 'No invoices yet.'}
        />
      ) : null}
      <SeriesPanel />
    </section>
  );
}

function InvoiceDraftForm({ onCreated, onCancel }: { onCreated: (inv: Invoice) => void; onCancel: () => void }) {
  const api = useApi();
  const currency = useCurrency();
  const id = useId();
  const picker = useCustomerPicker(api);
  const [lines, setLines] = useState<LineDraft[]>(firstLine);
  const [dueDate, setDueDate] = useState(inDays(14));
  const [memo, setMemo] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstError(formRef, errors);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const local: Record<string, string> = {};
    if (!picker.customerId) local.customerId = 'Choose a customer (create one under Customers first)';
    const customLines = parseLines(lines, currency, local);
    if (Object.keys(local).length > 0) {
      setErrors({ fields: local });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      onCreated(await api.createInvoice({ customerId: picker.customerId, customLines, dueDate, ...(memo.trim() ? { memo: memo.trim() } : {}) }));
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => ['customerId', 'dueDate', 'memo'].includes(p) || isLinePath(p)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      ref={formRef}
      className="bo-panel bo-form"
      onSubmit={onSubmit}
      onKeyDown={(e) => e.key === 'Escape' && onCancel()}
      noValidate
      aria-label="New invoice"
      data-testid="invoice-form"
    >
      <h3>New draft invoice</h3>
      {errors.form ? (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      ) : null}
      <div className="bo-row">
        <CustomerPicker id={id} picker={picker} error={errors.fields.customerId} testId="invoice" autoFocus />
        <Field id={`${id}-due`} label="Due date" error={errors.fields.dueDate}>
          {(p) => (
            <input {...p} className="bo-input" type="date" value={dueDate} onChange={(e) => setDueDate(e.target.value)} data-testid="invoice-due" />
          )}
        </Field>
      </div>
      <LinesFieldset id={id} lines={lines} setLines={setLines} errors={errors} currency={currency} testId="invoice" />
      <Field id={`${id}-memo`} label="Memo (optional)" error={errors.fields.memo}>
        {(p) => <input {...p} className="bo-input" value={memo} onChange={(e) => setMemo(e.target.value)} />}
      </Field>
      <div className="bo-actions">
        <button type="submit" className="button button-primary" disabled={busy} data-testid="invoice-create">
          {busy ? 'Saving…' : 'Save draft'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function InvoiceRow({ invoice: inv, onChanged }: { invoice: Invoice; onChanged: (inv: Invoice) => void }) {
  const api = useApi();
  const currency = useCurrency();
  const { session } = useRegisterSession();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | undefined>();
  const [paying, setPaying] = useState(false);
  /** Closes the inline payment form; focus returns to its "Record payment" button. */
  const stopPaying = () => {
    setPaying(false);
    requestAnimationFrame(() => payButton.current?.focus());
  };
  const payButton = useRef<HTMLButtonElement>(null);
  const [amount, setAmount] = useState('');
  const [method, setMethod] = useState<InvoicePaymentMethod>('check');
  const [confirmVoid, setConfirmVoid] = useState(false);
  const [refunding, setRefunding] = useState(false);
  const [refundAmount, setRefundAmount] = useState('');

  const run = async (action: () => Promise<Invoice>, done?: string) => {
    setBusy(true);
    setMessage(undefined);
    try {
      onChanged(await action());
      if (done) setMessage(done);
    } catch (err) {
      setMessage(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const pay = async (event: FormEvent) => {
    event.preventDefault();
    const cents = parseCashInput(amount, currency);
    if (cents === undefined || cents === 0) {
      setMessage('Enter the amount received, like 40.00');
      return;
    }
    const extra = method === 'cash' ? { registerId: session.registerId } : method === 'card' ? { cardToken: 'tok_visa' } : {};
    await run(() => api.recordInvoicePayment(inv.id, { amountCents: cents, method, ...extra }), 'Payment recorded');
    setPaying(false);
    setAmount('');
  };

  const refundable = inv.status === 'paid' ? inv.paidCents - inv.refundedCents : 0;
  const refund = async (event: FormEvent) => {
    event.preventDefault();
    const cents = parseCashInput(refundAmount, currency);
    if (cents === undefined || cents === 0 || cents > refundable) {
      setMessage(`Enter an amount up to ${formatMoney(refundable, inv.currency)}`);
      return;
    }
    await run(() => api.refundInvoice(inv.id, { amountCents: cents }), 'Refunded');
    setRefunding(false);
  };

  const pdf = async () => {
    try {
      downloadBlob(await api.invoicePdf(inv.id), `${inv.number}.pdf`);
    } catch (err) {
      setMessage(errorMessage(err));
    }
  };

  const canSend =
    inv.status === 'draft' || ((inv.status === 'sent' || inv.status === 'partially_paid' || inv.status === 'overdue') && inv.balanceDueCents > 0);
  const canPay = inv.status === 'sent' || inv.status === 'partially_paid' || inv.status === 'overdue';
  const canVoid = (inv.status === 'draft' || inv.status === 'sent' || inv.status === 'overdue') && inv.paidCents === 0;

  return (
    <tr data-testid="invoice-row" data-invoice-id={inv.id} data-status={inv.status}>
      <td>
        {inv.number}
        {inv.seriesId ? (
          <span className="bo-tag" title="Generated by a recurring series">
            recurring
          </span>
        ) : null}
      </td>
      <td>{inv.billTo.name ?? inv.billTo.email ?? inv.billTo.phone ?? inv.customerId}</td>
      <td>{inv.dueDate}</td>
      <td>
        <span className={`bo-status bo-status-${inv.status}`} data-testid="invoice-status">
          {STATUS_TEXT[inv.status]}
        </span>
      </td>
      <td className="numeric">{formatMoney(inv.totalCents, inv.currency)}</td>
      <td className="numeric" data-testid="invoice-balance">
        {formatMoney(inv.balanceDueCents, inv.currency)}
        {inv.refundedCents > 0 ? (
          <span className="bo-tag" data-testid="invoice-refunded">
            {formatMoney(inv.refundedCents, inv.currency)} refunded
          </span>
        ) : null}
      </td>
      <td className="bo-actions">
        {canSend ? (
          <button
            type="button"
            className="button button-ghost"
            disabled={busy}
            onClick={() => run(() => api.sendInvoice(inv.id), inv.status === 'draft' ? 'Sent' : 'Reminder sent')}
            data-testid="invoice-send"
          >
            {inv.status === 'draft' ? 'Send' : 'Remind'}
          </button>
        ) : null}
        {canPay && !paying ? (
          <button
            ref={payButton}
            type="button"
            className="button button-ghost"
            onClick={() => (setPaying(true), setAmount(''))}
            data-testid="invoice-pay"
          >
            Record payment
          </button>
        ) : null}
        {paying ? (
          <form className="bo-actions" onSubmit={pay} onKeyDown={(e) => e.key === 'Escape' && stopPaying()}>
            <label className="visually-hidden" htmlFor={`${inv.id}-amount`}>
              Amount received
            </label>
            <input
              id={`${inv.id}-amount`}
              className="bo-input bo-money"
              inputMode="decimal"
              placeholder="0.00"
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              data-testid="invoice-pay-amount"
              autoFocus
            />
            <label className="visually-hidden" htmlFor={`${inv.id}-method`}>
              Method
            </label>
            <select
              id={`${inv.id}-method`}
              className="bo-input"
              value={method}
              onChange={(e) => setMethod(e.target.value as InvoicePaymentMethod)}
              data-testid="invoice-pay-method"
            >
              <option value="check">Check</option>
              <option value="cash">Cash (this register)</option>
              <option value="bank_transfer">Bank transfer</option>
              <option value="card">Card (sandbox)</option>
              <option value="other">Other</option>
            </select>
            <button type="submit" className="button button-primary" disabled={busy} data-testid="invoice-pay-submit">
              Record
            </button>
            <button type="button" className="button button-ghost" onClick={stopPaying}>
              Cancel
            </button>
          </form>
        ) : null}
        {refundable > 0 && !refunding ? (
          <button
            type="button"
            className="button button-ghost"
            onClick={() => (setRefunding(true), setRefundAmount(centsToInput(refundable, inv.currency)))}
            data-testid="invoice-refund"
          >
            Refund…
          </button>
        ) : null}
        {refunding ? (
          <form className="bo-actions" onSubmit={refund} onKeyDown={(e) => e.key === 'Escape' && setRefunding(false)}>
            <label className="visually-hidden" htmlFor={`${inv.id}-refund`}>
              Amount to refund
            </label>
            <input
              id={`${inv.id}-refund`}
              className="bo-input bo-money"
              inputMode="decimal"
              value={refundAmount}
              onChange={(e) => setRefundAmount(e.target.value)}
              data-testid="invoice-refund-amount"
              autoFocus
            />
            <button type="submit" className="button bo-danger" disabled={busy} data-testid="invoice-refund-submit">
              Refund
            </button>
            <button type="button" className="button button-ghost" onClick={() => setRefunding(false)}>
              Cancel
            </button>
          </form>
        ) : null}
        {canVoid && !confirmVoid ? (
          <button type="button" className="button button-ghost" onClick={() => setConfirmVoid(true)} data-testid="invoice-void">
            Void…
          </button>
        ) : null}
        {confirmVoid ? (
          <>
            <button
              type="button"
              className="button bo-danger"
              disabled={busy}
              onClick={() => run(() => api.voidInvoice(inv.id), 'Voided').then(() => setConfirmVoid(false))}
              data-testid="invoice-confirm-void"
            >
              Void invoice
            </button>
            <button type="button" className="button button-ghost" onClick={() => setConfirmVoid(false)}>
              Keep
            </button>
          </>
        ) : null}
        <button type="button" className="button button-ghost" onClick={pdf} data-testid="invoice-pdf">
          PDF
        </button>
        {inv.payUrl ? (
          <button
            type="button"
            className="button button-ghost"
            onClick={async () => setMessage((await copyText(inv.payUrl!)) ? 'Pay link copied' : 'Copy failed')}
          >
            Copy pay link
          </button>
        ) : null}
        {message ? (
          <span role="status" className="bo-hint" data-testid="invoice-message">
            {message}
          </span>
        ) : null}
      </td>
    </tr>
  );
}
