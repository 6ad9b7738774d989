/**
 * Back office → Invoices: list with status, create a draft (customer, custom lines in dollars → integer cents, due
 * date, memo), send it (issue: SMS/e-mail with the pay link), record a payment, void it, download its PDF; and the
 * recurring series (`invoice-series.tsx`) below the list.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Invoice } from '../common/back-office-api.ts';
import { DataTable, type Column } from '../ui/data-table.tsx';
import { CustomerPicker, firstLine, inDays, isLinePath, LinesFieldset, parseLines, useCustomerPicker, type LineDraft } from './invoice-parts.tsx';
import { SeriesPanel } from './invoice-series.tsx';
import { Field, formErrorsOf, LoadError, NO_ERRORS, useApi, useCurrency, useFocusFirstError, type FormErrors } from '../common/back-office-kit.tsx';
import { InvoiceRow, STATUS_TEXT } from './invoice-row.tsx';

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
