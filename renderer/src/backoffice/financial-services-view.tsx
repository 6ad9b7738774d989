/**
 * Back office → Financial services (issue 14): the store's check cashings, money transfers and bill payments, newest
 * first, with filters (status, name), and on a held check or transfer the manager's "Refuse" (clearing is done on the
 * screening, Back office → Screenings). Online, managers and owners (`GET /api/pos/check-cashings`,
 * `/api/pos/transfers`, `/api/pos/bill-payments`).
 */
import { useEffect, useState } from 'react';
import { formatMoney } from '../../../core/index.ts';
import { errorMessage } from './api.ts';
import { useApi } from './shared.tsx';

type Kind = 'checks' | 'transfers' | 'bills';

const KINDS: [Kind, string, string, string[]][] = [
  ['checks', 'Check cashing', '/api/pos/check-cashings', ['held', 'paid', 'refused']],
  ['transfers', 'Money transfers', '/api/pos/transfers', ['held', 'sent', 'available', 'paid', 'canceled', 'refunded', 'refused']],
  ['bills', 'Bill payments', '/api/pos/bill-payments', ['accepted', 'posted', 'rejected']],
];

type Row = Record<string, unknown> & { id: string; status: string; createdAt: string };

function describe(kind: Kind, r: Row): { who: string; amount: string; detail: string } {
  const money = (c: unknown) => formatMoney(Number(c ?? 0));
  if (kind === 'checks') return { who: String(r.customerName), amount: money(r.amountCents), detail: `fee ${money(r.feeCents)}, ${String(r.routingNumber)} ${String(r.accountMasked)}` };
  if (kind === 'transfers') {
    const q = (r.quote ?? {}) as { sendAmountCents?: number; feeCents?: number; country?: string; receiveAmountMinor?: number; receiveCurrency?: string };
    return { who: `${String(r.senderName)} → ${String(r.receiverName)}`, amount: money(q.sendAmountCents), detail: `${q.country ?? ''}, fee ${money(q.feeCents)}, receives ${((q.receiveAmountMinor ?? 0) / 100).toFixed(2)} ${q.receiveCurrency ?? ''}` };
  }
  return { who: String(r.customerName), amount: money(r.amountCents), detail: `${String(r.billerName)} ${String(r.accountMasked)} · ${String(r.confirmationNumber)}` };
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
  const [, , path, statuses] = KINDS.find(([k]) => k === kind)!;

  useEffect(() => {
    const q = new URLSearchParams({ limit: '100' });
    if (status) q.set('status', status);
    if (name.trim()) q.set(kind === 'transfers' ? 'name' : 'customerName', name.trim());
    setError(undefined);
    api.request<{ data: Row[] }>('GET', `${path}?${q.toString()}`).then((page) => setLoaded({ kind, rows: page.data }), (err: unknown) => setError(errorMessage(err)));
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
          <button key={k} type="button" role="tab" aria-selected={k === kind} className={k === kind ? 'bo-nav-link bo-nav-link-active' : 'bo-nav-link'} onClick={() => { setKind(k); setStatus(''); }}>
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
          Name{' '}
          <input className="bo-input" value={name} onChange={(e) => setName(e.target.value)} data-testid="fs-name" />
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
                return (
                  <tr key={r.id} data-testid="fs-row" data-status={r.status}>
                    <td>{new Date(r.createdAt).toLocaleString()}</td>
                    <td>{d.who}</td>
                    <td>{d.amount}</td>
                    <td>{d.detail}</td>
                    <td>{r.status}</td>
                    <td>
                      {r.status === 'held' && kind !== 'bills' ? (
                        <button type="button" className="button" onClick={() => void refuse(r)}>
                          Refuse
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })
            )}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
