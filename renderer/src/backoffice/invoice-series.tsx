/**
 * Back office → Invoices → Recurring series: a template invoice (customer, custom lines, memo, days until due) and a
 * schedule (an RFC 5545 RRULE built from "every N days/weeks/months/years", optionally ending after a number of
 * invoices) from a start date. The server's scheduler generates one invoice per occurrence (sent at once when
 * "auto-send" is on). Series are listed with their next occurrence and invoice count; pause, resume, end.
 */
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { DataTable, type Column } from '../ui/data-table.tsx';
import { errorMessage, type Customer, type InvoiceSeries, type SeriesStatus } from '../common/back-office-api.ts';
import {
  CustomerPicker,
  customerName,
  firstLine,
  inDays,
  isLinePath,
  LinesFieldset,
  parseLines,
  useCustomerPicker,
  type LineDraft,
} from './invoice-parts.tsx';
import { Field, formErrorsOf, LoadError, NO_ERRORS, useApi, useCurrency, useFocusFirstError, type FormErrors } from '../common/back-office-kit.tsx';

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

export function SeriesPanel() {
  const api = useApi();
  const id = useId();
  const [list, setList] = useState<InvoiceSeries[] | undefined>();
  const [customers, setCustomers] = useState<Customer[]>([]);
  const [loadError, setLoadError] = useState<unknown>();
  const [creating, setCreating] = useState(false);

  useEffect(() => {
    let current = true;
    api.listSeries().then(
      (page) => current && setList(page.data),
      (err: unknown) => current && setLoadError(err),
    );
    api.listCustomers().then(
      (page) => current && setCustomers(page.data),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api]);

  const names = useMemo(() => new Map(customers.map((c) => [c.id, customerName(c)])), [customers]);
  const replace = (s: InvoiceSeries) =>
    setList((l) => (l ? (l.some((x) => x.id === s.id) ? l.map((x) => (x.id === s.id ? s : x)) : [s, ...l]) : [s]));

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
          onCreated={(s, customer) => {
            if (customer) setCustomers((c) => (c.some((x) => x.id === customer.id) ? c : [...c, customer]));
            replace(s);
            setCreating(false);
          }}
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
          renderRow={(s) => <SeriesRow series={s} customerName={names.get(s.customerId) ?? s.customerId} onChanged={replace} />}
          emptyText="No recurring series: bill a customer on a schedule with “New recurring series”."
        />
      ) : null}
    </section>
  );
}

function SeriesForm({ onCreated, onCancel }: { onCreated: (s: InvoiceSeries, customer: Customer | undefined) => void; onCancel: () => void }) {
  const api = useApi();
  const currency = useCurrency();
  const id = useId();
  const picker = useCustomerPicker(api);
  const [lines, setLines] = useState<LineDraft[]>(firstLine);
  const [frequency, setFrequency] = useState<Frequency>('MONTHLY');
  const [every, setEvery] = useState('1');
  const [count, setCount] = useState('');
  const [startDate, setStartDate] = useState(inDays(1));
  const [daysUntilDue, setDaysUntilDue] = useState('30');
  const [autoSend, setAutoSend] = useState(true);
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
    const n = /^\d+$/.test(every.trim()) ? Number(every.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > 999) local.interval = 'A whole number, 1 or more';
    const times = count.trim() === '' ? undefined : /^\d+$/.test(count.trim()) ? Number(count.trim()) : NaN;
    if (times !== undefined && (!Number.isSafeInteger(times) || times < 1)) local.count = 'A whole number of invoices, or empty for no end';
    const due = /^\d+$/.test(daysUntilDue.trim()) ? Number(daysUntilDue.trim()) : NaN;
    if (!Number.isSafeInteger(due)) local.daysUntilDue = 'A whole number of days (0 for due on issue)';
    if (Object.keys(local).length > 0) {
      setErrors({ fields: local });
      return;
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const created = await api.createSeries({
        customerId: picker.customerId,
        customLines,
        rrule: buildRrule(frequency, n, times),
        startDate,
        daysUntilDue: due,
        autoSend,
        ...(memo.trim() ? { memo: memo.trim() } : {}),
      });
      onCreated(
        created,
        picker.matches.find((c) => c.id === created.customerId),
      );
    } catch (err) {
      // The schedule has no `rrule` input of its own: that problem shows next to "Repeats every".
      setErrors(formErrorsOf(err, (p) => ['customerId', 'startDate', 'daysUntilDue', 'memo', 'rrule', 'autoSend'].includes(p) || isLinePath(p)));
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
      aria-label="New recurring series"
      data-testid="series-form"
    >
      <h4>New recurring series</h4>
      {errors.form ? (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      ) : null}
      <div className="bo-row">
        <CustomerPicker id={id} picker={picker} error={errors.fields.customerId} testId="series" autoFocus />
      </div>
      <div className="bo-row">
        <Field id={`${id}-interval`} label="Repeats every" error={errors.fields.interval ?? errors.fields.rrule}>
          {(p) => (
            <input
              {...p}
              className="bo-input bo-units"
              inputMode="numeric"
              value={every}
              onChange={(e) => setEvery(e.target.value)}
              data-testid="series-interval"
            />
          )}
        </Field>
        <Field id={`${id}-frequency`} label="Unit">
          {(p) => (
            <select
              {...p}
              className="bo-input"
              value={frequency}
              onChange={(e) => setFrequency(e.target.value as Frequency)}
              data-testid="series-frequency"
            >
              {FREQUENCIES.map(([f, one, many]) => (
                <option key={f} value={f}>
                  {every.trim() === '1' ? one : many}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={`${id}-count`} label="Number of invoices" error={errors.fields.count} hint="Empty: until ended">
          {(p) => (
            <input
              {...p}
              className="bo-input bo-units"
              inputMode="numeric"
              value={count}
              onChange={(e) => setCount(e.target.value)}
              data-testid="series-count"
            />
          )}
        </Field>
        <Field id={`${id}-start`} label="First invoice on" error={errors.fields.startDate}>
          {(p) => (
            <input
              {...p}
              className="bo-input"
              type="date"
              value={startDate}
              onChange={(e) => setStartDate(e.target.value)}
              data-testid="series-start"
            />
          )}
        </Field>
        <Field id={`${id}-due`} label="Due after (days)" error={errors.fields.daysUntilDue}>
          {(p) => (
            <input
              {...p}
              className="bo-input bo-units"
              inputMode="numeric"
              value={daysUntilDue}
              onChange={(e) => setDaysUntilDue(e.target.value)}
              data-testid="series-days-due"
            />
          )}
        </Field>
      </div>
      <LinesFieldset id={id} lines={lines} setLines={setLines} errors={errors} currency={currency} testId="series" />
      <Field id={`${id}-memo`} label="Memo (optional)" error={errors.fields.memo}>
        {(p) => <input {...p} className="bo-input" value={memo} onChange={(e) => setMemo(e.target.value)} data-testid="series-memo" />}
      </Field>
      <label className="bo-check">
        <input type="checkbox" checked={autoSend} onChange={(e) => setAutoSend(e.target.checked)} data-testid="series-auto-send" /> Send each invoice
        to the customer as soon as it is made
      </label>
      {errors.fields.autoSend ? (
        <p className="bo-field-error" role="alert" data-testid="field-error">
          {errors.fields.autoSend}
        </p>
      ) : null}
      <div className="bo-actions">
        <button type="submit" className="button button-primary" disabled={busy} data-testid="series-create">
          {busy ? 'Saving…' : 'Start series'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function SeriesRow({
  series: s,
  customerName: name,
  onChanged,
}: {
  series: InvoiceSeries;
  customerName: string;
  onChanged: (s: InvoiceSeries) => void;
}) {
  const api = useApi();
  const currency = useCurrency();
  const [busy, setBusy] = useState(false);
  const [confirmEnd, setConfirmEnd] = useState(false);
  const [message, setMessage] = useState<string | undefined>();
  const perInvoice = s.customLines.reduce((a, l) => a + l.amountCents * l.quantity, 0);

  const move = async (action: 'pause' | 'resume' | 'end') => {
    setBusy(true);
    setMessage(undefined);
    try {
      onChanged(await api.moveSeries(s.id, action));
    } catch (err) {
      setMessage(errorMessage(err));
    } finally {
      setBusy(false);
      setConfirmEnd(false);
    }
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
