/**
 * Back office → Invoices: list with status, create a draft (customer, custom lines in dollars → integer cents, due
 * date, memo), send it (issue: SMS/e-mail with the pay link), record a payment, void it, download its PDF; and the
 * recurring series (`invoice-series.tsx`) below the list. The list is held by TanStack Query (common/back-office-query.ts):
 * each change made here reads it again. The draft form (React Hook Form) checks each field with the body's own rule.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useCallback, useId, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { invoiceCreateSchema } from '../../../core/index.ts';
import type { Invoice } from '../common/back-office-api.ts';
import { DataTable, type Column } from '../ui/data-table.tsx';
import {
  CustomerPicker,
  customerIdRule,
  customLinesRule,
  inDays,
  linePaths,
  LinesFieldset,
  newLine,
  optionalText,
  useCustomerPicker,
  useLinesFieldset,
} from './invoice-parts.tsx';
import { SeriesPanel } from './invoice-series.tsx';
import { Field, LoadError, useCurrency } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem } from '../common/forms.ts';
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
  const id = useId();
  const [status, setStatus] = useState('');
  const list = useBackOfficeData('invoices', [status], (api) => api.listInvoices(status ? { status } : {}));
  const [creating, setCreating] = useState(false);
  const rows = list.data?.data;
  const loadError = list.error;

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
          onCreated={() => setCreating(false)}
          onCancel={() => {
            setCreating(false);
            // Escape or Cancel: focus back on "New invoice", never the page body.
            requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-testid="invoice-new"]')?.focus());
          }}
        />
      ) : null}
      {loadError ? <LoadError error={loadError} what="Invoices" /> : null}
      {!rows && !loadError ? <p className="muted">Loading…</p> : null}
      {rows ? (
        <DataTable
          caption="Invoices"
          captionHidden
          columns={INVOICE_COLUMNS}
          rows={rows}
          rowKey={(inv) => inv.id}
          renderRow={(inv) => <InvoiceRow invoice={inv} />}
          emptyText={status ? 'No invoice with this status.' : 'No invoices yet.'}
        />
      ) : null}
      <SeriesPanel />
    </section>
  );
}

/**
 * The draft form: what is typed → the `POST /api/pos/invoices` body, each field checked by the body's own rule (core
 * `invoiceCreateSchema`; the lines by its line rule).
 */
function draftForm(currency: string) {
  const f = invoiceCreateSchema.shape;
  return z.object({
    customerId: customerIdRule(f.customerId),
    customLines: customLinesRule(currency),
    dueDate: f.dueDate,
    memo: optionalText(f.memo),
  });
}
type DraftForm = ReturnType<typeof draftForm>;
type TypedDraft = z.input<DraftForm>;

function InvoiceDraftForm({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const currency = useCurrency();
  const id = useId();
  const schema = useMemo(() => draftForm(currency), [currency]);
  const form = useForm<TypedDraft, unknown, z.output<DraftForm>>({
    resolver: zodResolver(schema),
    defaultValues: { customerId: '', customLines: [newLine()], dueDate: inDays(14), memo: '' },
  });
  const { register, handleSubmit, setError, setValue, watch, formState } = form;
  const errors = formState.errors;
  const lines = useLinesFieldset(form);
  const choose = useCallback((customerId: string) => setValue('customerId', customerId), [setValue]);
  const picker = useCustomerPicker(watch('customerId'), choose);
  const actions = useBackOfficeActions(['invoices']);

  const onSubmit = handleSubmit(async (body) => {
    const fields = ['customerId', 'dueDate', 'memo', 'customLines', ...linePaths(body.customLines.length)] as const;
    const created = await actions.run(
      (api) => api.createInvoice(body),
      (err) => showProblem<TypedDraft>(err, setError, fields),
    );
    if (created) onCreated();
  });

  return (
    <form
      className="bo-panel bo-form"
      onSubmit={(event) => void onSubmit(event)}
      onKeyDown={(e) => e.key === 'Escape' && onCancel()}
      noValidate
      aria-label="New invoice"
      data-testid="invoice-form"
    >
      <h3>New draft invoice</h3>
      {actions.error ? (
        <p className="form-error" role="alert">
          {actions.error}
        </p>
      ) : null}
      <div className="bo-row">
        <CustomerPicker id={id} picker={picker} field={register('customerId')} error={errors.customerId?.message} testId="invoice" autoFocus />
        <Field id={`${id}-due`} label="Due date" error={errors.dueDate?.message}>
          {(p) => <input {...p} className="bo-input" type="date" {...register('dueDate')} data-testid="invoice-due" />}
        </Field>
      </div>
      <LinesFieldset id={id} {...lines} currency={currency} testId="invoice" />
      <Field id={`${id}-memo`} label="Memo (optional)" error={errors.memo?.message}>
        {(p) => <input {...p} className="bo-input" {...register('memo')} />}
      </Field>
      <div className="bo-actions">
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting} data-testid="invoice-create">
          {formState.isSubmitting ? 'Saving…' : 'Save draft'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
