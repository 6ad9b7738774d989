/**
 * Staff management: list, add, rename / change the role of a staff member and set their PIN. Who may do
 * what beyond the route's role (permission table, `platform/auth/permissions.ts`): a manager adds cashiers only; the
 * store keeps at least one owner. Table `staff` is this module's.
 */
import { newId } from '../../../../core/index.ts';
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { setStaffPin } from './staff-pins.ts';

/** A staff member as the back office lists them (never the PIN or its hash). */
export interface StaffMember {
  id: string;
  name: string;
  email: string | null;
  role: 'owner' | 'manager' | 'cashier';
  /** Whether a PIN is set (with `disabled` false they can sign in on a register). */
  hasPin: boolean;
  /** Disabled by an owner: cannot sign in on any register, and registers sign them out once online. */
  disabled: boolean;
  /** ISO 8601. */
  createdAt: string;
}

type Row = {
  id: string;
  name: string;
  email: string | null;
  role: StaffMember['role'];
  has_pin: boolean;
  disabled: boolean;
  created_at: Date | string;
};
const toMember = (r: Row): StaffMember => ({
  id: r.id,
  name: r.name,
  email: r.email,
  role: r.role,
  hasPin: r.has_pin,
  disabled: r.disabled,
  createdAt: new Date(r.created_at).toISOString(),
});
const COLUMNS = 'id, name, email, role, pin_hash IS NOT NULL AS has_pin, disabled_at IS NOT NULL AS disabled, created_at';

/** The merchant's staff ordered by id, after `afterId` when given, at most `limit`. */
export async function listStaff(db: Queryable, merchantId: string, options: { afterId?: string; limit: number }): Promise<StaffMember[]> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM staff WHERE merchant_id = $1 AND id > $2 ORDER BY id LIMIT $3`, [
    merchantId,
    options.afterId ?? '',
    options.limit,
  ]);
  return rows.map(toMember);
}

async function getStaff(db: Queryable, merchantId: string, id: string): Promise<StaffMember | undefined> {
  const row = (await db.query<Row>(`SELECT ${COLUMNS} FROM staff WHERE merchant_id = $1 AND id = $2`, [merchantId, id])).rows[0];
  return row && toMember(row);
}

/**
 * Adds a staff member (and their PIN when given), audited `staff.created`. `byRole` is the caller's role.
 * @throws ProblemError 403 `role_not_allowed` when a manager adds anyone but a cashier.
 */
export async function createStaff(
  m: Mutation,
  byRole: string,
  input: { name: string; email?: string; role: StaffMember['role']; pin?: string },
): Promise<StaffMember> {
  if (byRole !== 'owner' && input.role !== 'cashier') {
    throw new ProblemError(403, 'role_not_allowed', `Only an owner adds a ${input.role}; a manager adds cashiers.`, [
      { path: 'role', message: 'needs the role owner' },
    ]);
  }
  const id = newId('staff');
  await m.tx.query('INSERT INTO staff (id, merchant_id, name, email, role) VALUES ($1, $2, $3, $4, $5)', [
    id,
    m.merchantId,
    input.name,
    input.email ?? null,
    input.role,
  ]);
  await m.audit({ action: 'staff.created', entityType: 'staff', entityId: id, data: { role: input.role } });
  if (input.pin !== undefined) await setStaffPin(m, id, input.pin);
  return (await getStaff(m.tx, m.merchantId, id))!;
}

/**
 * Renames a staff member, changes their role or disables / enables them, audited `staff.updated`.
 * @throws ProblemError 404 `not_found`; 409 `last_owner` when the store's only (enabled) owner would stop being one.
 */
export async function updateStaff(
  m: Mutation,
  id: string,
  patch: { name?: string; email?: string | null; role?: StaffMember['role']; disabled?: boolean },
): Promise<StaffMember> {
  const before = (
    await m.tx.query<{ role: string; disabled: boolean }>(
      'SELECT role, disabled_at IS NOT NULL AS disabled FROM staff WHERE merchant_id = $1 AND id = $2 FOR UPDATE',
      [m.merchantId, id],
    )
  ).rows[0];
  if (!before) throw new ProblemError(404, 'not_found', `No staff member ${id}.`);
  const losesOwner = before.role === 'owner' && !before.disabled && ((patch.role !== undefined && patch.role !== 'owner') || patch.disabled === true);
  if (losesOwner) {
    const owners = Number(
      (
        await m.tx.query<{ n: number | string }>(
          `SELECT count(*) AS n FROM staff WHERE merchant_id = $1 AND role = 'owner' AND disabled_at IS NULL`,
          [m.merchantId],
        )
      ).rows[0]!.n,
    );
    if (owners <= 1) {
      const path = patch.disabled === true ? 'disabled' : 'role';
      throw new ProblemError(409, 'last_owner', 'The store keeps at least one owner: make another staff member owner first.', [
        { path, message: 'the last owner stays an enabled owner' },
      ]);
    }
  }
  if (patch.disabled !== undefined && patch.disabled !== before.disabled) {
    await m.tx.query('UPDATE staff SET disabled_at = $3 WHERE merchant_id = $1 AND id = $2', [m.merchantId, id, patch.disabled ? m.now : null]);
  }
  await m.tx.query(
    `UPDATE staff SET name = COALESCE($3, name), email = CASE WHEN $4::boolean THEN $5 ELSE email END, role = COALESCE($6, role) WHERE merchant_id = $1 AND id = $2`,
    [m.merchantId, id, patch.name ?? null, patch.email !== undefined, patch.email ?? null, patch.role ?? null],
  );
  await m.audit({
    action: 'staff.updated',
    entityType: 'staff',
    entityId: id,
    data: {
      ...(patch.role ? { role: patch.role, previousRole: before.role } : {}),
      ...(patch.disabled !== undefined ? { disabled: patch.disabled } : {}),
      fields: Object.keys(patch).sort(),
    },
  });
  return (await getStaff(m.tx, m.merchantId, id))!;
}

/** Sets (or resets) a staff member's PIN (scrypt, staff-pins.ts), audited `staff.pin_set`. @throws ProblemError 404 `not_found`. */
export async function changeStaffPin(m: Mutation, id: string, pin: string): Promise<StaffMember> {
  if (!(await getStaff(m.tx, m.merchantId, id))) throw new ProblemError(404, 'not_found', `No staff member ${id}.`);
  await setStaffPin(m, id, pin);
  return (await getStaff(m.tx, m.merchantId, id))!;
}
