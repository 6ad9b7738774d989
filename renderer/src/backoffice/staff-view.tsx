/**
 * Back office → Staff: the store's staff (name, role, whether a PIN is set), adding a staff member with a
 * PIN, and — owners — changing a role or setting a new PIN. The server enforces who may do what (403
 * `role_not_allowed` shown as the error). `GET`/`POST /api/pos/staff`, `PATCH /api/pos/staff/{id}`,
 * `POST /api/pos/staff/{id}/pin`.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { errorMessage } from '../common/back-office-api.ts';
import { LoadError, useApi } from '../common/back-office-kit.tsx';

type Role = 'owner' | 'manager' | 'cashier';
interface StaffRow {
  id: string;
  name: string;
  role: Role;
  hasPin: boolean;
}
const ROLES: Role[] = ['cashier', 'manager', 'owner'];

export function StaffView() {
  const api = useApi();
  const [rows, setRows] = useState<StaffRow[] | undefined>();
  const [loadError, setLoadError] = useState<unknown>();
  const [error, setError] = useState<string | undefined>();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('cashier');
  const [pin, setPin] = useState('');

  const load = useCallback(() => {
    api.request<{ data: StaffRow[] }>('GET', '/api/pos/staff?limit=200').then((page) => setRows(page.data), setLoadError);
  }, [api]);
  useEffect(load, [load]);

  if (loadError) return <LoadError error={loadError} what="Staff" />;
  if (!rows) return <p className="muted">Loading staff…</p>;

  const run = async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
      load();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const add = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api.request('POST', '/api/pos/staff', { name, role, ...(pin ? { pin } : {}) });
      setName('');
      setPin('');
    });
  };
  const changeRole = (row: StaffRow, next: Role) =>
    void run(() => api.request('PATCH', `/api/pos/staff/${encodeURIComponent(row.id)}`, { role: next }));
  const newPin = (row: StaffRow) => {
    const typed = window.prompt(`New PIN for ${row.name} (4 to 8 digits)`);
    if (typed) void run(() => api.request('POST', `/api/pos/staff/${encodeURIComponent(row.id)}/pin`, { pin: typed }));
  };

  return (
    <section className="bo-section" data-testid="staff">
      <div className="bo-panel">
        <div className="bo-panel-header">
          <h2>Staff</h2>
        </div>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <table className="bo-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">PIN</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-testid="staff-row">
                <td>{row.name}</td>
                <td>
                  <select
                    className="bo-input"
                    aria-label={`Role of ${row.name}`}
                    value={row.role}
                    onChange={(e) => changeRole(row, e.target.value as Role)}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                </td>
                <td>{row.hasPin ? 'Set' : 'None'}</td>
                <td>
                  <button type="button" className="button" onClick={() => newPin(row)}>
                    New PIN
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form className="bo-form" onSubmit={add} aria-label="Add a staff member">
          <label>
            Name <input className="bo-input" value={name} onChange={(e) => setName(e.target.value)} required />
          </label>
          <label>
            Role{' '}
            <select className="bo-input" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label>
            PIN{' '}
            <input
              className="bo-input"
              value={pin}
              onChange={(e) => setPin(e.target.value)}
              inputMode="numeric"
              pattern="\d{4,8}"
              autoComplete="off"
            />
          </label>
          <button type="submit" className="button button-primary">
            Add staff member
          </button>
        </form>
      </div>
    </section>
  );
}
