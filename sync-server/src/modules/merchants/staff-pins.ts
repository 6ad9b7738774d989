/**
 * Staff PINs and register sign-in: a staff member signs in on a paired register with a 4–8 digit PIN and
 * receives a staff token for the shift ({@link SHIFT_TOKEN_TTL_SECONDS}). PINs are stored as scrypt hashes
 * (RFC 7914, `node:crypto`; N = 2^15, r = 8, p = 1, 16-byte salt, 32-byte key) in `staff.pin_hash` and compared in
 * constant time. Table `staff` is this module's.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { randomInt } from 'node:crypto';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { mutation, type Mutation } from '../../kernel/mutation.ts';
import { NO_FEED } from '../../platform/change-feed.ts';
import { PIN_PATTERN } from '../../../../core/index.ts';

/** A shift: staff tokens from a PIN sign-in live 12 hours. */
export const SHIFT_TOKEN_TTL_SECONDS = 12 * 3600;
const SCRYPT = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function scrypt(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(secret, salt, KEY_LENGTH, { ...options, maxmem: 128 * options.N! * options.r! * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** The stored form of `pin`: `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPin(pin: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(pin, salt, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `pin` matches `stored` (constant-time comparison); false for a malformed stored value. */
export async function verifyPin(pin: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await scrypt(pin, Buffer.from(parts[4]!, 'base64url'), { N, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Sets a staff member's PIN (hashed), audited `staff.pin_set` without the PIN. @throws Error for a PIN not of 4–8 digits. */
export async function setStaffPin(m: Mutation, staffId: string, pin: string): Promise<void> {
  if (!PIN_PATTERN.test(pin)) throw new Error('a PIN is 4 to 8 digits');
  await m.tx.query('UPDATE staff SET pin_hash = $3, pin_set_at = $4 WHERE id = $1 AND merchant_id = $2', [
    staffId,
    m.merchantId,
    await hashPin(pin),
    m.now,
  ]);
  await m.audit({ action: 'staff.pin_set', entityType: 'staff', entityId: staffId, data: {} });
}

/**
 * A staff member as a register's sign-in screen lists them. `pinSetAt` (ISO 8601) changes whenever their PIN is set:
 * a register drops its offline verifier of an older PIN (docs/decisions/0046-offline-staff-sign-in.md).
 */
export interface SignInStaff {
  id: string;
  name: string;
  role: 'owner' | 'manager' | 'cashier';
  pinSetAt: string;
}

type SignInRow = { id: string; name: string; role: SignInStaff['role']; pin_set_at: Date | string | null; created_at: Date | string };
const toSignInStaff = (r: SignInRow): SignInStaff => ({
  id: r.id,
  name: r.name,
  role: r.role,
  pinSetAt: new Date(r.pin_set_at ?? r.created_at).toISOString(),
});

/** The merchant's staff who can sign in on a register (a PIN set, not disabled), by name. */
export async function listSignInStaff(db: Queryable, merchantId: string): Promise<SignInStaff[]> {
  const { rows } = await db.query<SignInRow>(
    'SELECT id, name, role, pin_set_at, created_at FROM staff WHERE merchant_id = $1 AND pin_hash IS NOT NULL AND disabled_at IS NULL ORDER BY name, id',
    [merchantId],
  );
  return rows.map(toSignInStaff);
}

/**
 * The staff member `staffId` of the merchant when `pin` is theirs, else undefined (unknown staff, no PIN, disabled,
 * wrong PIN).
 */
export async function checkStaffPin(db: Queryable, merchantId: string, staffId: string, pin: string): Promise<SignInStaff | undefined> {
  const row = (
    await db.query<SignInRow & { pin_hash: string | null }>(
      'SELECT id, name, role, pin_hash, pin_set_at, created_at FROM staff WHERE id = $1 AND merchant_id = $2 AND disabled_at IS NULL',
      [staffId, merchantId],
    )
  ).rows[0];
  if (!row?.pin_hash || !(await verifyPin(pin, row.pin_hash))) return undefined;
  return toSignInStaff(row);
}

/**
 * Gives the staff member a new random 6-digit PIN (or `pin`) as the system, and returns it: `npm start` prints the demo
 * owner's on every start, the test server keeps it in its credentials.
 */
export async function resetStaffPin(
  db: Db,
  merchantId: string,
  staffId: string,
  pin: string = String(randomInt(0, 1_000_000)).padStart(6, '0'),
): Promise<string> {
  await mutation({ db, clock: () => new Date(), feed: NO_FEED }, { merchantId, actor: 'system' }, (m) => setStaffPin(m, staffId, pin));
  return pin;
}
