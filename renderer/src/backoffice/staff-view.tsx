/**
 * Back office → Staff: the store's staff (name, role, whether a PIN is set), adding a staff member with a
 * PIN, and — owners — changing a role or setting a new PIN. The server enforces who may do what (403
 * `role_not_allowed` shown as the error). `GET`/`POST /api/pos/staff`, `PATCH /api/pos/staff/{id}`,
 * `POST /api/pos/staff/{id}/pin`. The add form checks each field with the create body's own rule (core
 * `staffCreateFields`) before sending; field errors of the server's problem show in place as well.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { staffCreateFields, type StaffRole as Role } from '../../../core/index.ts';
import { Field, LoadError } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { showProblem } from '../common/forms.ts';

interface StaffRow {
  id: string;
  name: string;
  role: Role;
  hasPin: boolean;
}
const ROLES: Role[] = ['cashier', 'manager', 'owner'];

/** The add form: what is typed → the create body's fields, each checked by the body's rule (an empty PIN sends none). */
const addForm = z.object({
  name: staffCreateFields.name,
  role: staffCreateFields.role,
  pin: z
    .string()
    .transform((text) => (text.trim() === '' ? undefined : text.trim()))
    .pipe(staffCreateFields.pin),
});
type AddTyped = z.input<typeof addForm>;
const ADD_FIELDS = Object.keys(addForm.shape) as (keyof AddTyped)[];
const EMPTY: AddTyped = { name: '', role: 'cashier', pin: '' };

export function StaffView() {
  const staff = useBackOfficeData('staff', [], (api) => api.request<{ data: StaffRow[] }>('GET', '/api/pos/staff?limit=200'));
  const actions = useBackOfficeActions(['staff']);
  const formId = useId();
  const { register, handleSubmit, setError, reset, formState } = useForm<AddTyped, unknown, z.output<typeof addForm>>({
    resolver: zodResolver(addForm),
    defaultValues: EMPTY,
  });
  const errors = formState.errors;

  if (staff.error) return <LoadError error={staff.error} what="Staff" />;
  const rows = staff.data?.data;
  if (!rows) return <p className="muted">Loading staff…</p>;
  const error = actions.error;

  const add = handleSubmit(async ({ name, role, pin }) => {
    const added = await actions.run(
      (api) => api.request<StaffRow>('POST', '/api/pos/staff', { name, role, ...(pin ? { pin } : {}) }),
      (err) => showProblem(err, setError, ADD_FIELDS),
    );
    if (added) reset({ ...EMPTY, role });
  });
  const changeRole = (row: StaffRow, next: Role) =>
    void actions.run((api) => api.request('PATCH', `/api/pos/staff/${encodeURIComponent(row.id)}`, { role: next }));
  const newPin = (row: StaffRow) => {
    const typed = window.prompt(`New PIN for ${row.name} (4 to 8 digits)`);
    if (typed) void actions.run((api) => api.request('POST', `/api/pos/staff/${encodeURIComponent(row.id)}/pin`, { pin: typed }));
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
        <form className="bo-form" onSubmit={(e) => void add(e)} aria-label="Add a staff member" noValidate>
          <div className="bo-row">
            <Field id={`${formId}-name`} label="Name" error={errors.name?.message}>
              {(props) => <input {...props} className="bo-input" {...register('name')} />}
            </Field>
            <Field id={`${formId}-role`} label="Role" error={errors.role?.message}>
              {(props) => (
                <select {...props} className="bo-input" {...register('role')}>
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field id={`${formId}-pin`} label="PIN" error={errors.pin?.message} hint="4 to 8 digits; empty for none">
              {(props) => <input {...props} className="bo-input" inputMode="numeric" autoComplete="off" {...register('pin')} />}
            </Field>
          </div>
          <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
            Add staff member
          </button>
        </form>
      </div>
    </section>
  );
}
