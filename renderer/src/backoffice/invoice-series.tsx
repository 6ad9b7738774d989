/**
 * Back office → Invoices → Recurring series: a template invoice (customer, custom lines, memo, days until due) and a
 * schedule (an RFC 5545 RRULE built from "every N days/weeks/months/years", optionally ending after a number of
 * invoices) from a start date. The server's scheduler generates one invoice per occurrence (sent at once when
 * "auto-send" is on). Series are listed with their next occurrence and invoice count; pause, resume, end. The list is
 * held by TanStack Query (common/back-office-query.ts); the form (React Hook Form) checks each field with the body's
 * own rule (core `invoiceSeriesCreateSchema`).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useCallback, useId, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { formatMoney, invoiceSeriesCreateSchema } from '../../../core/index.ts';
import { DataTable, type Column } from '../ui/data-table.tsx';
import type { BackOfficeApi, Customer, InvoiceSeries, SeriesStatus } from '../common/back-office-api.ts';
import {
  CustomerPicker,
  customerIdRule,
  customerName,
  customLinesRule,
  inDays,
  linePaths,
  LinesFieldset,
  newLine,
  optionalText,
  useCustomerPicker,
  useLinesFieldset,
} from './invoice-parts.tsx';
import { Field, LoadError, useCurrency } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem, typed } from '../common/forms.ts';

const STATUS_TEXT: Record<SeriesStatus, string> = { active: 'Active', paused: 'Paused', ended: 'Ended' };

/** The series list's header (each `SeriesRow` draws its own cells: it keeps the state of its actions). */
const SERIES_COLUMNS: Column<InvoiceSeries>[] = [
  { key: 'customer', header: 'Customer' },
  { key: 'schedule', header: 'Schedule' },
  { key: 'perInvoice', header: 'Per invoice', numeric: true },
  { key: 'next', header: 'Next invoice' },
  { key: 'invoices', header: 'Invoices', numeric: true },
  { key: 'status', header: 'Status' },
  { key: 'actions', header: 'Actions', hideHeader: true },
];
const FREQUENCIES = [
  ['DAILY', 'day', 'days'],
  ['WEEKLY', 'week', 'weeks'],
  ['MONTHLY', 'month', 'months'],
  ['YEARLY', 'year', 'years'],
] as const;
type Frequency = (typeof FREQUENCIES)[number][0];

/** The RRULE of "every `interval` `frequency`", ending after `count` occurrences when given. */
export function buildRrule(frequency: Frequency, interval: number, count?: number): string {
  return `FREQ=${frequency};INTERVAL=${interval}${count ? `;COUNT=${count}` : ''}`;
}

/** A sentence for the RRULEs this form builds ("Every 2 months, 12 times"); any other rule is shown as written. */
export function describeRrule(rrule: string): string {
  const parts = Object.fromEntries(
    rrule
      .replace(/^RRULE:/, '')
      .split(';')
      .map((p) => p.split('=') as [string, string]),
  );
  const freq = FREQUENCIES.find(([f]) => f === parts.FREQ);
  const known = new Set(['FREQ', 'INTERVAL', 'COUNT']);
  if (!freq || Object.keys(parts).some((k) => !known.has(k))) return rrule;
  const interval = Number(parts.INTERVAL ?? '1');
  const every = interval === 1 ? `Every ${freq[1]}` : `Every ${interval} ${freq[2]}`;
  return parts.COUNT ? `${every}, ${parts.COUNT} times` : every;
}

/**
 * The series with the names of their customers: the first page of customers, and any series' customer not on it read
 * by id (a customer that cannot be read shows as its id).
 */
async function readSeries(api: BackOfficeApi): Promise<{ rows: InvoiceSeries[]; names: Map<string, string> }> {
  const [page, customers] = await Promise.all([api.listSeries(), api.listCustomers().catch(() => ({ data: [] as Customer[] }))]);
  const names = new Map(customers.data.map((c) => [c.id, customerName(c)]));
  const missing = [...new Set(page.data.map((s) => s.customerId))].filter((id) => !names.has(id));
  const found = await Promise.all(
    missing.map((id) => api.request<Customer>('GET', `/api/pos/customers/${encodeURIComponent(id)}`).catch(() => undefined)),
  );
  for (const c of found) if (c) names.set(c.id, customerName(c));
  return { rows: page.data, names };
}

export function SeriesPanel() {
  const id = useId();
  const series = useBackOfficeData('invoice-series', [], readSeries);
  const [creating, setCreating] = useState(false);
  const list = series.data?.rows;
  const names = series.data?.names;
  const loadError = series.error;

  return (
    <section className="bo-subsection" aria-labelledby={`${id}-title`} data-testid="invoice-series">
      <div className="bo-toolbar">
        <h3 id={`${id}-title`}>Recurring series</h3>
        <button type="button" className="button" onClick={() => setCreating(true)} disabled={creating} data-testid="series-new">
          New recurring series
        </button>
      </div>
      {creating ? (
        <SeriesForm
          onCreated={() => setCreating(false)}
          onCancel={() => {
            setCreating(false);
            // Escape or Cancel: focus back on "New recurring series" (enabled again by then), never the page body.
            requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-testid="series-new"]')?.focus());
          }}
        />
      ) : null}
      {loadError ? <LoadError error={loadError} what="Recurring series" /> : null}
      {!list && !loadError ? <p className="muted">Loading…</p> : null}
      {list ? (
        <DataTable
          caption="Recurring series"
          captionHidden
          columns={SERIES_COLUMNS}
          rows={list}
          rowKey={(s) => s.id}
          renderRow={(s) => <SeriesRow series={s} customerName={names?.get(s.customerId) ?? s.customerId} />}
          emptyText="No recurring series: bill a customer on a schedule with “New recurring series”."
        />
      ) : null}
    </section>
  );
}

/** A typed whole number (digits only), else `undefined`. */
const wholeNumberOf = (text: string) => (/^\s*\d{1,9}\s*$/.test(text) ? Number(text) : undefined);

/**
 * The series form: what is typed → the `POST /api/pos/invoice-series` body, each field checked by the body's own rule
 * (core `invoiceSeriesCreateSchema`); "every N units, M times" becomes its `rrule`.
 */
function seriesForm(currency: string) {
  const f = invoiceSeriesCreateSchema.shape;
  const every = 'A whole number, 1 or more';
  const times = 'A whole number of invoices, or empty for no end';
  return z
    .object({
      customerId: customerIdRule(f.customerId),
      interval: typed(wholeNumberOf, every, z.int().min(1, every).max(999, every)),
      frequency: z.enum(FREQUENCIES.map(([f]) => f)),
      count: typed((t) => (t.trim() === '' ? null : wholeNumberOf(t)), times, z.int().min(1, times).nullable()),
      startDate: f.startDate,
      daysUntilDue: typed(wholeNumberOf, 'A whole number of days (0 for due on issue)', f.daysUntilDue),
      autoSend: f.autoSend,
      memo: optionalText(f.memo),
      customLines: customLinesRule(currency),
    })
    .transform(({ interval, frequency, count, ...body }) => ({ ...body, rrule: buildRrule(frequency, interval, count ?? undefined) }));
}
type SeriesFormSchema = ReturnType<typeof seriesForm>;
type TypedSeries = z.input<SeriesFormSchema>;

function SeriesForm({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const currency = useCurrency();
  const id = useId();
  const schema = useMemo(() => seriesForm(currency), [currency]);
  const form = useForm<TypedSeries, unknown, z.output<SeriesFormSchema>>({
    resolver: zodResolver(schema),
    defaultValues: {
      customerId: '',
      interval: '1',
      frequency: 'MONTHLY',
      count: '',
      startDate: inDays(1),
      daysUntilDue: '30',
      autoSend: true,
      memo: '',
      customLines: [newLine()],
    },
  });
  const { register, handleSubmit, setError, setValue, watch, formState } = form;
  const errors = formState.errors;
  const lines = useLinesFieldset(form);
  const choose = useCallback((customerId: string) => setValue('customerId', customerId), [setValue]);
  const picker = useCustomerPicker(watch('customerId'), choose);
  const actions = useBackOfficeActions(['invoice-series']);

  const onSubmit = handleSubmit(async (body) => {
    // The schedule has no `rrule` input of its own: the server's word on it is said for the form.
    const fields = ['customerId', 'startDate', 'daysUntilDue', 'memo', 'autoSend', 'customLines', ...linePaths(body.customLines.length)] as const;
    const created = await actions.run(
      (api) => api.createSeries(body),
      (err) => showProblem<TypedSeries>(err, setError, fields),
    );
    if (created) onCreated();
  });

  return (
    <form
      className="bo-panel bo-form"
      onSubmit={(event) => void onSubmit(event)}
      onKeyDown={(e) => e.key === 'Escape' && onCancel()}
      noValidate
      aria-label="New recurring series"
      data-testid="series-form"
    >
      <h4>New recurring series</h4>
      {actions.error ? (
        <p className="form-error" role="alert">
          {actions.error}
        </p>
      ) : null}
      <div className="bo-row">
        <CustomerPicker id={id} picker={picker} field={register('customerId')} error={errors.customerId?.message} testId="series" autoFocus />
      </div>
      <div className="bo-row">
        <Field id={`${id}-interval`} label="Repeats every" error={errors.interval?.message}>
          {(p) => <input {...p} className="bo-input bo-units" inputMode="numeric" {...register('interval')} data-testid="series-interval" />}
        </Field>
        <Field id={`${id}-frequency`} label="Unit">
          {(p) => (
            <select {...p} className="bo-input" {...register('frequency')} data-testid="series-frequency">
              {FREQUENCIES.map(([f, one, many]) => (
                <option key={f} value={f}>
                  {watch('interval').trim() === '1' ? one : many}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={`${id}-count`} label="Number of invoices" error={errors.count?.message} hint="Empty: until ended">
          {(p) => <input {...p} className="bo-input bo-units" inputMode="numeric" {...register('count')} data-testid="series-count" />}
        </Field>
        <Field id={`${id}-start`} label="First invoice on" error={errors.startDate?.message}>
          {(p) => <input {...p} className="bo-input" type="date" {...register('startDate')} data-testid="series-start" />}
        </Field>
        <Field id={`${id}-due`} label="Due after (days)" error={errors.daysUntilDue?.message}>
          {(p) => <input {...p} className="bo-input bo-units" inputMode="numeric" {...register('daysUntilDue')} data-testid="series-days-due" />}
        </Field>
      </div>
      <LinesFieldset id={id} {...lines} currency={currency} testId="series" />
      <Field id={`${id}-memo`} label="Memo (optional)" error={errors.memo?.message}>
        {(p) => <input {...p} className="bo-input" {...register('memo')} data-testid="series-memo" />}
      </Field>
      <label className="bo-check">
        <input type="checkbox" {...register('autoSend')} data-testid="series-auto-send" /> Send each invoice to the customer as soon as it is made
      </label>
      {errors.autoSend ? (
        <p className="bo-field-error" role="alert" data-testid="field-error">
          {errors.autoSend.message}
        </p>
      ) : null}
      <div className="bo-actions">
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting} data-testid="series-create">
          {formState.isSubmitting ? 'Saving…' : 'Start series'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function SeriesRow({ series: s, customerName: name }: { series: InvoiceSeries; customerName: string }) {
  const currency = useCurrency();
  const actions = useBackOfficeActions(['invoice-series']);
  const busy = actions.pending;
  const [confirmEnd, setConfirmEnd] = useState(false);
  const message = actions.error;
  const perInvoice = s.customLines.reduce((a, l) => a + l.amountCents * l.quantity, 0);

  const move = async (action: 'pause' | 'resume' | 'end') => {
    await actions.run((api) => api.moveSeries(s.id, action));
    setConfirmEnd(false);
  };

  return (
    <tr data-testid="series-row" data-series-id={s.id} data-status={s.status}>
      <td>{name}</td>
      <td data-testid="series-schedule">
        {describeRrule(s.rrule)}
        <span className="muted bo-hint"> from {s.startDate}</span>
      </td>
      <td className="numeric">
        {formatMoney(perInvoice, currency)}
        {s.lineItems.length > 0 ? (
          <span className="muted bo-hint">
            {' '}
            + {s.lineItems.length} catalog line{s.lineItems.length === 1 ? '' : 's'} at today’s prices
          </span>
        ) : null}
      </td>
      <td>{s.status === 'ended' ? '—' : (s.nextOccurrenceDate ?? 'No more')}</td>
      <td className="numeric" data-testid="series-invoice-count">
        {s.invoiceCount}
      </td>
      <td>
        <span className={`bo-status bo-status-${s.status}`} data-testid="series-status">
          {STATUS_TEXT[s.status]}
        </span>
        {s.autoSend ? null : <span className="muted bo-hint"> · drafts</span>}
      </td>
      <td className="bo-actions">
        {s.status === 'active' ? (
          <button type="button" className="button button-ghost" disabled={busy} onClick={() => move('pause')} data-testid="series-pause">
            Pause
          </button>
        ) : null}
        {s.status === 'paused' ? (
          <button type="button" className="button button-ghost" disabled={busy} onClick={() => move('resume')} data-testid="series-resume">
            Resume
          </button>
        ) : null}
        {s.status !== 'ended' && !confirmEnd ? (
          <button type="button" className="button button-ghost" onClick={() => setConfirmEnd(true)} data-testid="series-end">
            End…
          </button>
        ) : null}
        {confirmEnd ? (
          <>
            <button
              type="button"
              className="button bo-danger"
              disabled={busy}
              onClick={() => move('end')}
              data-testid="series-confirm-end"
              autoFocus
              onKeyDown={(e) => e.key === 'Escape' && setConfirmEnd(false)}
            >
              End series
            </button>
            <button type="button" className="button button-ghost" onClick={() => setConfirmEnd(false)}>
              Keep
            </button>
          </>
        ) : null}
        {message ? (
          <span role="status" className="bo-hint" data-testid="series-message">
            {message}
          </span>
        ) : null}
      </td>
    </tr>
  );
}
