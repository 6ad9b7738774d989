/**
 * Back office → Pay requests (Text-to-Pay): create one (amount in dollars → integer cents, phone, memo), list them
 * with their status, copy or open the link, cancel a pending one. The list is held by TanStack Query
 * (common/back-office-query.ts); the form (React Hook Form) checks each field with the request body's own rule.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { formatMoney, payRequestCreateSchema } from '../../../core/index.ts';
import { parseCashInput } from '../common/cash.ts';
import { DataTable, type Column } from '../ui/data-table.tsx';
import type { PayRequest } from '../common/back-office-api.ts';
import { Field, LoadError, useCurrency } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem, typed } from '../common/forms.ts';
import { LatestMessage } from './message-state.tsx';
import { PayRequestTextPreview } from './pay-request-text-preview.tsx';

const STATUS_TEXT: Record<PayRequest['status'], string> = { pending: 'Pending', paid: 'Paid', expired: 'Expired', canceled: 'Canceled' };

/** The pay request list's header (each `PayRequestRow` draws its own cells: it keeps the state of its actions). */
const PAY_REQUEST_COLUMNS: Column<PayRequest>[] = [
  { key: 'created', header: 'Created' },
  { key: 'phone', header: 'Phone' },
  { key: 'memo', header: 'Memo' },
  { key: 'amount', header: 'Amount', numeric: true },
  { key: 'status', header: 'Status' },
  { key: 'actions', header: 'Actions', hideHeader: true },
];

/** Copies text to the clipboard; falls back to a selected textarea + execCommand where the Clipboard API is refused. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/**
 * The create form: what is typed (text) → the `POST /api/pos/pay-requests` body, each field checked by the body's own
 * rule (core `payRequestCreateSchema`): the amount read as money (0 is no amount), an empty memo left out.
 */
function payRequestForm(currency: string) {
  const f = payRequestCreateSchema.shape;
  return z.object({
    amountCents: typed((t) => parseCashInput(t, currency) || undefined, 'Enter an amount like 12.50', f.amountCents.unwrap()),
    phone: z.string().trim().pipe(f.phone),
    memo: z
      .string()
      .transform((t) => t.trim() || undefined)
      .pipe(f.memo),
  });
}
type PayRequestForm = ReturnType<typeof payRequestForm>;
type TypedPayRequest = z.input<PayRequestForm>;
const FIELDS = ['amountCents', 'phone', 'memo'] as const;
const EMPTY: TypedPayRequest = { amountCents: '', phone: '', memo: '' };

export function PayRequestsView() {
  const currency = useCurrency();
  const formId = useId();
  const [status, setStatus] = useState('');
  const list = useBackOfficeData('pay-requests', [status], (api) => api.listPayRequests(status ? { status } : {}));
  // A new request writes its text: the state lines read again.
  const actions = useBackOfficeActions(['pay-requests', 'latest-message']);
  const schema = useMemo(() => payRequestForm(currency), [currency]);
  const form = useForm<TypedPayRequest, unknown, z.output<PayRequestForm>>({ resolver: zodResolver(schema), defaultValues: EMPTY });
  const { register, handleSubmit, setError, reset, getValues, formState, watch } = form;
  const errors = formState.errors;
  const creating = formState.isSubmitting;
  const [notice, setNotice] = useState<string | undefined>();
  const rows = list.data?.data;
  const loadError = list.error;

  const onCreate = handleSubmit(async ({ amountCents, phone, memo }) => {
    const created = await actions.run(
      (api) => api.createPayRequest({ amountCents, phone, ...(memo ? { memo } : {}) }),
      (err) => showProblem(err, setError, FIELDS),
    );
    if (!created) return;
    // Queued, not yet texted: the row's message line follows its state.
    setNotice(
      `Pay request for ${formatMoney(created.amountCents, created.currency)} created; its text to ${created.phone ?? ''} is on its way (state on its row).`,
    );
    // The phone stays for another request to the same customer.
    reset({ ...EMPTY, phone: getValues('phone') });
  });

  return (
    <section className="bo-section" aria-labelledby={`${formId}-title`}>
      <h2 id={`${formId}-title`}>Pay requests</h2>
      <div className="bo-panel">
        <h3>New Text-to-Pay request</h3>
        <form className="bo-form" onSubmit={(event) => void onCreate(event)} noValidate>
          {actions.error ? (
            <p className="form-error" role="alert">
              {actions.error}
            </p>
          ) : null}
          <div className="bo-row">
            <Field id={`${formId}-amount`} label={`Amount (${currency})`} error={errors.amountCents?.message}>
              {(p) => (
                <input
                  {...p}
                  className="bo-input bo-money"
                  inputMode="decimal"
                  placeholder="0.00"
                  {...register('amountCents')}
                  data-testid="pay-request-amount"
                />
              )}
            </Field>
            <Field id={`${formId}-phone`} label="Customer phone" error={errors.phone?.message} hint="With the country code, e.g. +1 415 555 0123">
              {(p) => <input {...p} className="bo-input" type="tel" {...register('phone')} data-testid="pay-request-phone" />}
            </Field>
            <Field id={`${formId}-memo`} label="Memo (optional)" error={errors.memo?.message}>
              {(p) => <input {...p} className="bo-input" {...register('memo')} data-testid="pay-request-memo" />}
            </Field>
          </div>
          <PayRequestTextPreview amount={String(watch('amountCents') ?? '')} memo={String(watch('memo') ?? '')} currency={currency} />
          <div>
            <button type="submit" className="button button-primary" disabled={creating} data-testid="pay-request-create">
              {creating ? 'Sending…' : 'Text the pay link'}
            </button>
          </div>
        </form>
        {notice ? (
          <p role="status" className="bo-saved" data-testid="pay-request-notice">
            {notice}
          </p>
        ) : null}
      </div>

      <div className="bo-toolbar">
        <h3>Requests</h3>
        <label className="visually-hidden" htmlFor={`${formId}-status`}>
          Status
        </label>
        <select
          id={`${formId}-status`}
          className="bo-input"
          value={status}
          onChange={(e) => setStatus(e.target.value)}
          data-testid="pay-request-filter"
        >
          <option value="">Every status</option>
          {Object.entries(STATUS_TEXT).map(([k, v]) => (
            <option key={k} value={k}>
              {v}
            </option>
          ))}
        </select>
        <button type="button" className="button" onClick={() => void list.refresh()}>
          Refresh
        </button>
      </div>
      {loadError ? <LoadError error={loadError} what="Pay requests" /> : null}
      {!rows && !loadError ? <p className="muted">Loading…</p> : null}
      {rows ? (
        <DataTable
          caption="Pay requests"
          captionHidden
          columns={PAY_REQUEST_COLUMNS}
          rows={rows}
          rowKey={(pr) => pr.id}
          renderRow={(pr) => <PayRequestRow payRequest={pr} />}
          emptyText={status ? 'No pay request with this status.' : 'No pay requests yet: text a pay link above.'}
        />
      ) : null}
    </section>
  );
}

function PayRequestRow({ payRequest: pr }: { payRequest: PayRequest }) {
  const actions = useBackOfficeActions(['pay-requests']);
  const [confirming, setConfirming] = useState(false);
  const [copied, setCopied] = useState<string | undefined>();
  const busy = actions.pending;
  const message = actions.error ?? copied;

  const cancel = async () => {
    setCopied(undefined);
    await actions.run((api) => api.cancelPayRequest(pr.id));
    setConfirming(false);
  };

  return (
    <tr data-testid="pay-request-row" data-pay-request-id={pr.id} data-status={pr.status}>
      <td>{new Date(pr.createdAt).toLocaleString()}</td>
      <td>{pr.phone ?? '—'}</td>
      <td>{pr.memo ?? ''}</td>
      <td className="numeric">{formatMoney(pr.amountCents, pr.currency)}</td>
      <td>
        <span className={`bo-status bo-status-${pr.status}`} data-testid="pay-request-status">
          {STATUS_TEXT[pr.status]}
        </span>
        {pr.status === 'pending' ? <span className="muted bo-hint"> until {new Date(pr.expiresAt).toLocaleDateString()}</span> : null}
        <LatestMessage subjectRef={`pay_request:${pr.id}`} />
      </td>
      <td className="bo-actions">
        <button
          type="button"
          className="button button-ghost"
          onClick={async () => setCopied((await copyText(pr.url)) ? 'Link copied' : 'Copy failed: select the link')}
          aria-label={`Copy link of ${pr.id}`}
        >
          Copy link
        </button>
        <a className="button button-ghost" href={pr.url} target="_blank" rel="noreferrer">
          Open
        </a>
        {pr.status === 'pending' && !confirming ? (
          <button type="button" className="button button-ghost" onClick={() => setConfirming(true)} data-testid="pay-request-cancel">
            Cancel…
          </button>
        ) : null}
        {confirming ? (
          <>
            <button type="button" className="button bo-danger" onClick={cancel} disabled={busy} data-testid="pay-request-confirm-cancel">
              {busy ? 'Canceling…' : 'Cancel request'}
            </button>
            <button type="button" className="button button-ghost" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : null}
        {message ? (
          <span role="status" className="bo-hint">
            {message}
          </span>
        ) : null}
      </td>
    </tr>
  );
}
