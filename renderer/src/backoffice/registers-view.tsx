/**
 * Back office → Registers: the store's registers (name, number, location, last seen, revoked), a one-time pairing code
 * for a new register (valid 10 minutes, shown once), revocation (the register is refused from its next request), and
 * retiring in one step the registers never used to sell (each browser profile a demo opened on this machine paired
 * itself as one). `GET /api/pos/registers`, `POST /api/pos/registers/pairing-codes`, `POST /api/pos/registers/{id}/revoke`,
 * `POST /api/pos/registers/retire-unused`.
 */
import { useState } from 'react';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { useRegisterSession } from '../common/session-context.ts';
import { LoadError } from '../common/back-office-kit.tsx';

interface RegisterRow {
  id: string;
  number: number;
  name: string;
  kind: 'terminal' | 'back_office';
  locationName: string | null;
  lastSeenAt: string | null;
  revokedAt: string | null;
  hasSold: boolean;
}

/** Not seen for this long, never sold: offered for retiring (the server applies the same rule). */
const QUIET_MS = 10 * 60 * 1000;

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : 'never';
}

export function RegistersView() {
  const registers = useBackOfficeData('registers', [], (api) => api.request<{ data: RegisterRow[] }>('GET', '/api/pos/registers?limit=200'));
  const [code, setCode] = useState<{ code: string; expiresAt: string } | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const thisRegisterId = useRegisterSession().session.registerId;
  const actions = useBackOfficeActions(['registers']);

  if (registers.error) return <LoadError error={registers.error} what="Registers" />;
  const rows = registers.data?.data;
  if (!rows) return <p className="muted">Loading registers…</p>;
  const error = actions.error;

  const newCode = async () => {
    const made = await actions.run((api) => api.request<{ code: string; expiresAt: string }>('POST', '/api/pos/registers/pairing-codes', {}));
    if (made) setCode(made);
  };
  const revoke = async (row: RegisterRow) => {
    if (!window.confirm(`Revoke ${row.name}? It stops syncing at once and must be paired again with a new code.`)) return;
    await actions.run((api) => api.request('POST', `/api/pos/registers/${encodeURIComponent(row.id)}/revoke`, {}));
  };

  const unused = rows.filter(
    (r) =>
      r.kind === 'terminal' &&
      !r.revokedAt &&
      !r.hasSold &&
      r.id !== thisRegisterId &&
      (r.lastSeenAt === null || Date.now() - Date.parse(r.lastSeenAt) > QUIET_MS),
  );
  const retireUnused = async () => {
    const names = unused.map((r) => `${r.name} (R${r.number})`).join(', ');
    if (
      !window.confirm(
        `Retire ${unused.length} register${unused.length === 1 ? '' : 's'} never used to sell? ${names}. Each stops syncing at once and pairs again only with a new code.`,
      )
    )
      return;
    const done = await actions.run((api) =>
      api.request<{ retired: RegisterRow[] }>('POST', '/api/pos/registers/retire-unused', { keepRegisterId: thisRegisterId }),
    );
    if (done) setNotice(done.retired.length === 0 ? 'No register to retire.' : `Retired ${done.retired.map((r) => `R${r.number}`).join(', ')}.`);
  };

  return (
    <section className="bo-section" data-testid="registers">
      <div className="bo-panel">
        <div className="bo-panel-header">
          <h2>Registers</h2>
          <div className="bo-panel-actions">
            {unused.length > 0 ? (
              <button type="button" className="button" data-testid="retire-unused" onClick={() => void retireUnused()}>
                Retire {unused.length} unused
              </button>
            ) : null}
            <button type="button" className="button button-primary" onClick={() => void newCode()}>
              New pairing code
            </button>
          </div>
        </div>
        {unused.length > 0 ? (
          <p className="muted">
            {unused.length} register{unused.length === 1 ? ' was' : 's were'} paired but never used to sell (each browser that opens the register on
            this machine pairs itself as one). Until retired, each waits in the day&apos;s closeout as a missing register.
          </p>
        ) : null}
        {notice ? (
          <p role="status" data-testid="registers-notice">
            {notice}
          </p>
        ) : null}
        {code ? (
          <p role="status" data-testid="pairing-code">
            Pairing code <strong className="pairing-code">{code.code}</strong> — type it on the new register before{' '}
            {new Date(code.expiresAt).toLocaleTimeString()} (valid 10 minutes, once).
          </p>
        ) : null}
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <table className="bo-table">
          <thead>
            <tr>
              <th scope="col">Register</th>
              <th scope="col">Location</th>
              <th scope="col">Last seen</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-testid="register-row">
                <td>
                  {row.name} (R{row.number})
                </td>
                <td>{row.locationName ?? '—'}</td>
                <td>{row.kind === 'back_office' ? 'API orders' : when(row.lastSeenAt)}</td>
                <td>
                  {row.revokedAt ? `Revoked ${when(row.revokedAt)}` : row.kind === 'terminal' && !row.hasSold ? 'Active, never sold' : 'Active'}
                  {row.id === thisRegisterId ? ' (this register)' : ''}
                </td>
                <td>
                  {row.kind === 'terminal' && !row.revokedAt ? (
                    <button type="button" className="button" onClick={() => void revoke(row)}>
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
