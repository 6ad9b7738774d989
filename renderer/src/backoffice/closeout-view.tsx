/**
 * Back office → Closeout: a business day of the store (default: the current one; closed days listed), its shifts per
 * register with the server's figures and any difference from the register's, the registers missing, the day's
 * Z-report roll-up, PDF/CSV downloads (day and shift), and closing the day (owners and managers; with missing
 * registers only when asked). `GET /api/pos/closeouts`, `GET /api/pos/closeouts/{day}`, `POST /api/pos/closeouts`,
 * `GET /api/pos/closeouts/{day}/report`, `GET /api/pos/shifts/{id}/report`.
 */
import { useState } from 'react';
import { reportLines, type ReportTotals, type ZReport } from '../../../core/index.ts';
import { downloadBlob } from './download.ts';
import { LoadError, useApi } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';

interface ShiftRow {
  shift: { id: string; registerNumber: number; openedAt: string };
  status: 'open' | 'closed';
  report: ZReport;
  differences: { field: string; register: unknown; server: unknown }[];
}
interface DayStatus {
  businessDay: string;
  closed: boolean;
  closedAt: string | null;
  shifts: ShiftRow[];
  missing: { registerId: string; registerNumber: number; name: string; reason: 'open_shift' | 'not_synced'; lastSeenAt?: string | null }[];
  totals: ReportTotals & { receiptRanges: unknown[] };
}

function Lines({ title, report }: { title: string; report: Parameters<typeof reportLines>[1] }) {
  return (
    <table className="bo-table">
      <tbody>
        {reportLines(title, report).map((l, i) =>
          l.value === '' ? (
            <tr key={i}>
              <th colSpan={2}>{l.label}</th>
            </tr>
          ) : (
            <tr key={i}>
              <td>{l.label}</td>
              <td className="num">{l.value}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

/** When a missing register was last in touch with the server, as the closeout explains it. */
function lastSeenText(iso: string | null | undefined): string {
  if (!iso) return 'Never in touch since it was paired.';
  const minutes = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 60_000));
  const ago =
    minutes < 60 ? `${minutes} min ago` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} h ago` : `${Math.round(minutes / 1440)} days ago`;
  return `Last seen ${new Date(iso).toLocaleString()} (${ago}).`;
}

export function CloseoutView() {
  const days = useBackOfficeData('closeout-days', [], (api) =>
    api.request<{ today: string; days: { businessDay: string; closedAt: string; missingCount: number }[] }>('GET', '/api/pos/closeouts'),
  );
  // The day shown: the one picked, else the store's current business day.
  const [picked, setPicked] = useState<string | undefined>();
  const day = picked ?? days.data?.today;

  if (days.error) return <LoadError error={days.error} what="Closeout" />;
  if (!days.data || !day) return <p className="muted">Loading closeout…</p>;

  return (
    <section className="bo-section" data-testid="closeout">
      <div className="bo-panel">
        <label>
          Business day <input type="date" value={day} onChange={(e) => e.target.value && setPicked(e.target.value)} data-testid="closeout-day" />
        </label>{' '}
        <span className="muted">Closed days: {days.data.days.length === 0 ? 'none' : days.data.days.map((d) => d.businessDay).join(', ')}</span>
      </div>
      <CloseoutDay day={day} />
    </section>
  );
}

/** One business day of the closeout: its status, closing it, its downloads. */
function CloseoutDay({ day }: { day: string }) {
  const api = useApi();
  const dayStatus = useBackOfficeData('closeout-day', [day], (api) => api.request<DayStatus>('GET', `/api/pos/closeouts/${encodeURIComponent(day)}`));
  const actions = useBackOfficeActions(['closeout-days', 'closeout-day']);
  const downloads = useBackOfficeActions([]);

  if (dayStatus.error) return <LoadError error={dayStatus.error} what="Closeout" />;
  const status = dayStatus.data;
  const error = actions.error ?? downloads.error;

  const download = (path: string, name: string) => downloads.run(async () => downloadBlob(await (await api.raw('GET', path)).blob(), name));
  const close = async (closeWithMissing: boolean) => {
    if (
      closeWithMissing &&
      !window.confirm(`Close ${day} without the missing registers? They are recorded as missing and their later records go to the next day.`)
    )
      return;
    await actions.run((api) => api.request('POST', '/api/pos/closeouts', { businessDay: day, closeWithMissing }));
  };

  return (
    <>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {!status ? (
        <p className="muted">Loading {day}…</p>
      ) : (
        <>
          <div className="bo-panel">
            <h2>
              {status.businessDay} — {status.closed ? `closed ${new Date(status.closedAt!).toLocaleString()}` : 'open'}
            </h2>
            {status.missing.length > 0 ? (
              <div data-testid="closeout-missing">
                <strong>{status.closed ? 'Closed with missing registers:' : 'Missing registers (the closeout waits for them):'}</strong>
                <ul>
                  {status.missing.map((m) => (
                    <li key={m.registerId} data-testid="closeout-missing-register">
                      R{m.registerNumber} {m.name} —{' '}
                      {m.reason === 'open_shift'
                        ? 'its shift is still open: close the shift on that register (and let it sync)'
                        : 'no shift of this day has reached the server, and the register has not been in touch since the day ended: it may hold sales not synced yet'}
                      . <span className="muted">{lastSeenText(m.lastSeenAt)}</span>
                    </li>
                  ))}
                </ul>
                {status.missing.some((m) => m.reason === 'not_synced') ? (
                  <p className="muted">
                    A register that was paired but never used to sell (each browser that opens the register on this machine pairs itself as one) can
                    be retired in Back office → Registers, &ldquo;Retire unused&rdquo;; it then no longer holds up the closeout.
                  </p>
                ) : null}
              </div>
            ) : null}
            {!status.closed ? (
              <p>
                <button type="button" disabled={status.missing.length > 0} onClick={() => close(false)} data-testid="closeout-close">
                  Close the day
                </button>{' '}
                {status.missing.length > 0 ? (
                  <button type="button" onClick={() => close(true)} data-testid="closeout-close-missing">
                    Close with missing registers
                  </button>
                ) : null}
              </p>
            ) : null}
            <p>
              <button type="button" onClick={() => download(`/api/pos/closeouts/${day}/report?format=pdf`, `closeout-${day}.pdf`)}>
                Download PDF
              </button>{' '}
              <button type="button" onClick={() => download(`/api/pos/closeouts/${day}/report?format=csv`, `closeout-${day}.csv`)}>
                Download CSV
              </button>
            </p>
          </div>
          <div className="bo-panel">
            <h3>Shifts</h3>
            {status.shifts.length === 0 ? <p className="muted">No shift synced for this day.</p> : null}
            <table className="bo-table" data-testid="closeout-shifts">
              <thead>
                <tr>
                  <th>Register</th>
                  <th>Opened</th>
                  <th>Status</th>
                  <th>Sales</th>
                  <th>Over/short</th>
                  <th>Register vs server</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {status.shifts.map((s) => (
                  <tr key={s.shift.id}>
                    <td>R{s.shift.registerNumber}</td>
                    <td>{new Date(s.shift.openedAt).toLocaleString()}</td>
                    <td>{s.status}</td>
                    <td className="num">{s.report.salesCount}</td>
                    <td className="num">{reportLines('', s.report).find((l) => l.label === 'Over/short')?.value}</td>
                    <td>
                      {s.differences.length === 0
                        ? 'agree'
                        : `differ: ${s.differences.map((d) => `${d.field} ${JSON.stringify(d.register)} vs ${JSON.stringify(d.server)}`).join('; ')}`}
                    </td>
                    <td>
                      <button
                        type="button"
                        onClick={() => download(`/api/pos/shifts/${s.shift.id}/report?format=pdf`, `${s.report.kind}-report-${s.shift.id}.pdf`)}
                      >
                        PDF
                      </button>{' '}
                      <button
                        type="button"
                        onClick={() => download(`/api/pos/shifts/${s.shift.id}/report?format=csv`, `${s.report.kind}-report-${s.shift.id}.csv`)}
                      >
                        CSV
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="bo-panel" data-testid="closeout-report">
            <Lines title={`Z-report ${status.businessDay}`} report={status.totals} />
          </div>
        </>
      )}
    </>
  );
}
