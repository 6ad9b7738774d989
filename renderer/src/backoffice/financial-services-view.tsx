/**
 * Back office → Financial services: the store's check cashings, money transfers and bill payments, newest
 * first, with filters (status, name), and on a held check or transfer the manager's "Refuse" (clearing is done on the
 * screening, Back office → Screenings). Online, managers and owners (`GET /api/pos/check-cashings`,
 * `/api/pos/transfers`, `/api/pos/bill-payments`). A row opens its detail: the receipt lines and, for a check, the
 * stored check image (`GET /api/pos/check-cashings/{id}/image`). "Fees and limits" shows the store's fee schedule and
 * limits; the owner changes them (`PATCH /api/pos/financial-services/settings`).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { formatMoney, type FinancialServiceSettings } from '../../../core/index.ts';
import { errorMessage, type BackOfficeApi } from '../common/back-office-api.ts';
import { useApi } from '../common/back-office-kit.tsx';

type Kind = 'checks' | 'transfers' | 'bills';

const KINDS: [Kind, string, string, string[]][] = [
  ['checks', 'Check cashing', '/api/pos/check-cashings', ['held', 'paid', 'refused']],
  ['transfers', 'Money transfers', '/api/pos/transfers', ['held', 'sent', 'available', 'paid', 'canceled', 'refunded', 'refused']],
  ['bills', 'Bill payments', '/api/pos/bill-payments', ['held', 'accepted', 'posted', 'rejected', 'refused']],
];

type Row = Record<string, unknown> & { id: string; status: string; createdAt: string };

function describe(kind: Kind, r: Row): { who: string; amount: string; detail: string } {
  const money = (c: unknown) => formatMoney(Number(c ?? 0));
  if (kind === 'checks')
    return {
      who: String(r.customerName),
      amount: money(r.amountCents),
      detail: `fee ${money(r.feeCents)}, ${String(r.routingNumber)} ${String(r.accountMasked)}`,
    };
  if (kind === 'transfers') {
    const q = (r.quote ?? {}) as {
      sendAmountCents?: number;
      feeCents?: number;
      country?: string;
      receiveAmountMinor?: number;
      receiveCurrency?: string;
    };
    return {
      who: `${String(r.senderName)} → ${String(r.receiverName)}`,
      amount: money(q.sendAmountCents),
      detail: `${q.country ?? ''}, fee ${money(q.feeCents)}, receives ${((q.receiveAmountMinor ?? 0) / 100).toFixed(2)} ${q.receiveCurrency ?? ''}`,
    };
  }
  return {
    who: String(r.customerName),
    amount: money(r.amountCents),
    detail: `${String(r.billerName)} ${String(r.accountMasked)} · ${r.confirmationNumber ? String(r.confirmationNumber) : 'not sent'}`,
  };
}

/** The detail of one record: its receipt lines and, for a check with a stored image, the image. */
function RecordDetail({ api, kind, row }: { api: BackOfficeApi; kind: Kind; row: Row }) {
  const [imageUrl, setImageUrl] = useState<string | undefined>();
  const [imageError, setImageError] = useState<string | undefined>();
  useEffect(() => {
    if (kind !== 'checks' || !row.hasImage) return undefined;
    let url: string | undefined;
    let stop = false;
    api.raw('GET', `/api/pos/check-cashings/${encodeURIComponent(row.id)}/image`).then(
      async (res) => {
        const blob = await res.blob();
        if (stop) return;
        url = URL.createObjectURL(blob);
        setImageUrl(url);
      },
      (err: unknown) => setImageError(errorMessage(err)),
    );
    return () => {
      stop = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [api, kind, row.id, row.hasImage]);
  const receipt = Array.isArray(row.receipt) ? (row.receipt as string[]) : ((row.receipt as { lines?: string[] } | null)?.lines ?? []);
  return (
    <div className="fs-detail" data-testid="fs-detail">
      <p className="muted">Reference {row.id}</p>
      {receipt.length > 0 ? <pre className="service-receipt">{receipt.join('\n')}</pre> : null}
      {kind === 'checks' ? (
        imageUrl ? (
          <img
            src={imageUrl}
            alt={`Image of check ${String(row.checkNumber ?? row.id)}`}
            className="fs-check-image"
            data-testid="fs-check-image"
            style={{ maxWidth: '100%' }}
          />
        ) : imageError ? (
          <p className="form-error" role="alert">
            The check image could not be loaded: {imageError}
          </p>
        ) : (
          <p className="muted" data-testid="fs-check-no-image">
            {row.hasImage ? 'Loading the check image…' : 'No check image was stored (the scanner sent none).'}
          </p>
        )
      ) : null}
    </div>
  );
}

const dollars = (cents: number) => (cents / 100).toFixed(2);
const toCents = (text: string): number | undefined => {
  const m = /^\s*\$?(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(text);
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0')) : undefined;
};

/** The money fields of the settings form: label, test id, how to read it from / write it to the settings. */
const SETTING_FIELDS: {
  id: string;
  label: string;
  get: (s: FinancialServiceSettings) => number;
  set: (s: FinancialServiceSettings, v: number) => void;
  percent?: true;
}[] = [
  { id: 'check-fee-percent', label: 'Check fee (%)', get: (s) => s.checkFee.basisPoints, set: (s, v) => (s.checkFee.basisPoints = v), percent: true },
  { id: 'check-fee-fixed', label: 'Check fee, fixed ($)', get: (s) => s.checkFee.fixedCents, set: (s, v) => (s.checkFee.fixedCents = v) },
  { id: 'check-fee-minimum', label: 'Check fee, minimum ($)', get: (s) => s.checkFee.minimumCents, set: (s, v) => (s.checkFee.minimumCents = v) },
  {
    id: 'check-limit-each',
    label: 'Most per check ($)',
    get: (s) => s.checkLimits.perTransactionCents,
    set: (s, v) => (s.checkLimits.perTransactionCents = v),
  },
  {
    id: 'check-limit-day',
    label: 'Checks per customer per day ($)',
    get: (s) => s.checkLimits.perCustomerPerDayCents,
    set: (s, v) => (s.checkLimits.perCustomerPerDayCents = v),
  },
  {
    id: 'transfer-limit-each',
    label: 'Most per transfer ($)',
    get: (s) => s.transferLimits.perTransactionCents,
    set: (s, v) => (s.transferLimits.perTransactionCents = v),
  },
  {
    id: 'transfer-limit-day',
    label: 'Transfers per sender per day ($)',
    get: (s) => s.transferLimits.perCustomerPerDayCents,
    set: (s, v) => (s.transferLimits.perCustomerPerDayCents = v),
  },
  { id: 'bill-fee', label: 'Bill payment fee ($)', get: (s) => s.billPaymentFeeCents, set: (s, v) => (s.billPaymentFeeCents = v) },
  {
    id: 'bill-limit-each',
    label: 'Most per bill payment ($)',
    get: (s) => s.billPaymentLimits.perTransactionCents,
    set: (s, v) => (s.billPaymentLimits.perTransactionCents = v),
  },
  {
    id: 'bill-limit-day',
    label: 'Bill payments per customer per day ($)',
    get: (s) => s.billPaymentLimits.perCustomerPerDayCents,
    set: (s, v) => (s.billPaymentLimits.perCustomerPerDayCents = v),
  },
];

/** "Fees and limits": the store's settings, read by everyone here, changed by the owner (the server refuses others). */
function FeesAndLimits({ api }: { api: BackOfficeApi }) {
  const [settings, setSettings] = useState<FinancialServiceSettings | undefined>();
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ error: boolean; text: string } | undefined>();
  const fill = (s: FinancialServiceSettings) => {
    setSettings(s);
    setDraft(Object.fromEntries(SETTING_FIELDS.map((f) => [f.id, f.percent ? (f.get(s) / 100).toFixed(2) : dollars(f.get(s))])));
  };
  useEffect(() => {
    api.request<{ settings: FinancialServiceSettings }>('GET', '/api/pos/financial-services').then(
      (o) => fill(o.settings),
      (err: unknown) => setMessage({ error: true, text: errorMessage(err) }),
    );
  }, [api]);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!settings) return;
    const next: FinancialServiceSettings = structuredClone(settings);
    for (const f of SETTING_FIELDS) {
      const cents = toCents(draft[f.id] ?? '');
      if (cents === undefined) {
        setMessage({ error: true, text: `${f.label}: enter an amount such as 12.50.` });
        return;
      }
      f.set(next, cents);
    }
    try {
      fill(await api.request<FinancialServiceSettings>('PATCH', '/api/pos/financial-services/settings', next));
      setMessage({ error: false, text: 'Saved: the register uses these fees and limits from the next service.' });
    } catch (err) {
      setMessage({ error: true, text: errorMessage(err) });
    }
  };
  if (!settings)
    return message ? (
      <p className="form-error" role="alert">
        {message.text}
      </p>
    ) : null;
  return (
    <form className="bo-form" onSubmit={(e) => void save(e)} aria-label="Fees and limits" data-testid="fs-settings">
      <h3>Fees and limits</h3>
      <p className="muted">
        Check fee = percent of the check + fixed, at least the minimum. Limits are per transaction and per customer per day. Only the owner can change
        them.
      </p>
      {SETTING_FIELDS.map((f) => (
        <label key={f.id} className="bo-field">
          {f.label}
          <input
            className="bo-input"
            inputMode="decimal"
            value={draft[f.id] ?? ''}
            onChange={(e) => setDraft((d) => ({ ...d, [f.id]: e.target.value }))}
            data-testid={`fs-setting-${f.id}`}
          />
        </label>
      ))}
      <button type="submit" className="button button-primary" data-testid="fs-settings-save">
        Save fees and limits
      </button>
      {message ? (
        <p className={message.error ? 'form-error' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="fs-settings-message">
          {message.text}
        </p>
      ) : null}
    </form>
  );
}

export function FinancialServicesView() {
  const api = useApi();
  const [kind, setKind] = useState<Kind>('checks');
  const [status, setStatus] = useState('');
  const [name, setName] = useState('');
  // The rows with the service they belong to: a page of one service is never drawn as another's.
  const [loaded, setLoaded] = useState<{ kind: Kind; rows: Row[] } | undefined>();
  const rows = loaded?.kind === kind ? loaded.rows : undefined;
  const [error, setError] = useState<string | undefined>();
  const [tick, setTick] = useState(0);
  const [open, setOpen] = useState<string | undefined>();
  const [, , path, statuses] = KINDS.find(([k]) => k === kind)!;

  useEffect(() => {
    const q = new URLSearchParams({ limit: '100' });
    if (status) q.set('status', status);
    if (name.trim()) q.set(kind === 'transfers' ? 'name' : 'customerName', name.trim());
    setError(undefined);
    api.request<{ data: Row[] }>('GET', `${path}?${q.toString()}`).then(
      (page) => setLoaded({ kind, rows: page.data }),
      (err: unknown) => setError(errorMessage(err)),
    );
  }, [api, kind, path, status, name, tick]);

  const refuse = async (r: Row) => {
    const reason = window.prompt('Reason for refusing (kept in the audit trail)');
    if (!reason || reason.trim().length < 3) return;
    try {
      await api.request('POST', `${path}/${r.id}/refuse`, { reason });
      setTick((t) => t + 1);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <section className="bo-section" data-testid="financial-services-lists">
      <h2>Financial services</h2>
      <div className="bo-actions" role="tablist" aria-label="Service">
        {KINDS.map(([k, label]) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={k === kind}
            className={k === kind ? 'bo-nav-link bo-nav-link-active' : 'bo-nav-link'}
            onClick={() => {
              setKind(k);
              setStatus('');
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="bo-form">
        <label>
          Status{' '}
          <select className="bo-input" value={status} onChange={(e) => setStatus(e.target.value)} data-testid="fs-status">
            <option value="">All</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name <input className="bo-input" value={name} onChange={(e) => setName(e.target.value)} data-testid="fs-name" />
        </label>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {rows ? (
        <table className="bo-table" data-testid="fs-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Amount</th>
              <th scope="col">Details</th>
              <th scope="col">Status</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={6} className="muted">
                  Nothing yet.
                </td>
              </tr>
            ) : (
              rows.map((r) => {
                const d = describe(kind, r);
                return [
                  <tr key={r.id} data-testid="fs-row" data-status={r.status}>
                    <td>{new Date(r.createdAt).toLocaleString()}</td>
                    <td>{d.who}</td>
                    <td>{d.amount}</td>
                    <td>{d.detail}</td>
                    <td>{r.status}</td>
                    <td>
                      <button
                        type="button"
                        className="button"
                        aria-expanded={open === r.id}
                        onClick={() => setOpen((o) => (o === r.id ? undefined : r.id))}
                        data-testid="fs-open"
                      >
                        {open === r.id ? 'Hide' : 'Details'}
                      </button>
                      {r.status === 'held' ? (
                        <button type="button" className="button" onClick={() => void refuse(r)}>
                          Refuse
                        </button>
                      ) : null}
                    </td>
                  </tr>,
                  open === r.id ? (
                    <tr key={`${r.id}-detail`}>
                      <td colSpan={6}>
                        <RecordDetail api={api} kind={kind} row={r} />
                      </td>
                    </tr>
                  ) : null,
                ];
              })
            )}
          </tbody>
        </table>
      ) : null}
      <FeesAndLimits api={api} />
    </section>
  );
}
