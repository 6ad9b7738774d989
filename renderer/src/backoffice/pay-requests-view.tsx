/**
 * Back office → Pay requests (Text-to-Pay): create one (amount in dollars → integer cents, phone, memo), list them
 * with their status, copy or open the link, cancel a pending one.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { parseCashInput } from '../common/cash.ts';
import { DataTable, type Column } from '../ui/data-table.tsx';
import { errorMessage, type PayRequest } from '../common/back-office-api.ts';
import { Field, formErrorsOf, LoadError, NO_ERRORS, useApi, useCurrency, useFocusFirstError, type FormErrors } from '../common/back-office-kit.tsx';

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

export function PayRequestsView() {
  const api = useApi();
  const currency = useCurrency();
  const formId = useId();
  const [status, setStatus] = useState('');
  const [list, setList] = useState<PayRequest[] | undefined>();
  const [loadError, setLoadError] = useState<unknown>();
  const [reload, setReload] = useState(0);
  const [amount, setAmount] = useState('');
  const [phone, setPhone] = useState('');
  const [memo, setMemo] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstError(formRef, errors);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();

  useEffect(() => {
    let current = true;
    setLoadError(undefined);
    api.listPayRequests(status ? { status } : {}).then(
      (page) => current && setList(page.data),
      (err: unknown) => current && setLoadError(err),
    );
    return () => {
      current = false;
    };
  }, [api, status, reload]);

  const onCreate = async (event: FormEvent) => {
    event.preventDefault();
    const cents = parseCashInput(amount, currency);
    if (cents === undefined || cents === 0) {
      setErrors({ fields: { amountCents: 'Enter an amount like 12.50' } });
      return;
    }
    setCreating(true);
    setErrors(NO_ERRORS);
    try {
      const created = await api.createPayRequest({ amountCents: cents, phone: phone.trim(), ...(memo.trim() ? { memo: memo.trim() } : {}) });
      setNotice(`Pay request for ${formatMoney(created.amountCents, created.currency)} texted to ${created.phone ?? ''}.`);
      setAmount('');
      setMemo('');
      setList((l) => (l ? [created, ...l.filter((p) => p.id !== created.id)] : [created]));
    } catch (err) {
      setErrors(formErrorsOf(err, (p) => p === 'amountCents' || p === 'phone' || p === 'memo'));
    } finally {
      setCreating(false);
    }
  };

  return (
    <section className="bo-section" aria-labelledby={`${formId}-title`}>
      <h2 id={`${formId}-title`}>Pay requests</h2>
      <div className="bo-panel">
        <h3>New Text-to-Pay request</h3>
        <form ref={formRef} className="bo-form" onSubmit={onCreate} noValidate>
          {errors.form ? (
            <p className="form-error" role="alert">
              {errors.form}
            </p>
          ) : null}
          <div className="bo-row">
            <Field id={`${formId}-amount`} label={`Amount (${currency})`} error={errors.fields.amountCents}>
              {(p) => (
                <input
                  {...p}
                  className="bo-input bo-money"
                  inputMode="decimal"
                  placeholder="0.00"
                  value={amount}
                  onChange={(e) => setAmount(e.target.value)}
                  data-testid="pay-request-amount"
                />
              )}
            </Field>
            <Field id={`${formId}-phone`} label="Customer phone" error={errors.fields.phone} hint="With the country code, e.g. +1 415 555 0123">
              {(p) => (
                <input
                  {...p}
                  className="bo-input"
                  type="tel"
                  value={phone}
                  onChange={(e) => setPhone(e.target.value)}
                  data-testid="pay-request-phone"
                />
              )}
            </Field>
            <Field id={`${formId}-memo`} label="Memo (optional)" error={errors.fields.memo}>
              {(p) => <input {...p} className="bo-input" value={memo} onChange={(e) => setMemo(e.target.value)} data-testid="pay-request-memo" />}
            </Field>
          </div>
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
        <button type="button" className="button" onClick={() => setReload((r) => r + 1)}>
          Refresh
        </button>
      </div>
      {loadError ? <LoadError error={loadError} what="Pay requests" /> : null}
      {!list && !loadError ? <p className="muted">Loading…</p> : null}
      {list ? (
        <DataTable
          caption="Pay requests"
          captionHidden
          columns={PAY_REQUEST_COLUMNS}
          rows={list}
          rowKey={(pr) => pr.id}
          renderRow={(pr) => (
            <PayRequestRow payRequest={pr} onChanged={(updated) => setList((l) => l?.map((p) => (p.id === updated.id ? updated : p)))} />
          )}
          emptyText={status ? 'No pay request with this status.' : 'No pay requests yet: text a pay link above.'}
        />
      ) : null}
    </section>
  );
}

function PayRequestRow({ payRequest: pr, onChanged }: { payRequest: PayRequest; onChanged: (pr: PayRequest) => void }) {
  const api = useApi();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | undefined>();

  const cancel = async () => {
    setBusy(true);
    try {
      onChanged(await api.cancelPayRequest(pr.id));
      setMessage(undefined);
    } catch (err) {
      setMessage(errorMessage(err));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
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
      </td>
      <td className="bo-actions">
        <button
          type="button"
          className="button button-ghost"
          onClick={async () => setMessage((await copyText(pr.url)) ? 'Link copied' : 'Copy failed: select the link')}
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
