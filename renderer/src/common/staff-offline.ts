/**
 * Offline staff sign-in on this register (docs/decisions/0046-offline-staff-sign-in.md). After an online sign-in the register
 * keeps, per staff member, a slow verifier of their PIN bound to this register — PBKDF2-SHA256 (WebCrypto,
 * {@link OFFLINE_PIN_ITERATIONS} iterations) over the PIN, salted with the register id, the staff id and 16 random
 * bytes — with their name, role, when their PIN was set and when the server last checked it. While the server cannot
 * be reached, a staff member verified online here within the store's `offlineSignInDays` may sign in with their PIN;
 * {@link OFFLINE_MAX_TRIES} wrong PINs in a row lock offline sign-in on this register for a while (doubling, at most
 * an hour). Once online, the server's list of who may sign in (`GET /api/register/staff`) drops the verifiers of staff
 * disabled, without a PIN or with a new PIN, and signs such a staff member out (staff-session.ts).
 *
 * Everything lives in the `staff_sign_in` collection of the local database (IndexedDB), never replicated: the
 * verifiers, the signed-in session (written, and the write awaited, before the register shows anyone signed in) and
 * the lockout. Never the PIN, never a staff token.
 */
import type { RxCollection, RxJsonSchema } from 'rxdb';

/** PBKDF2-SHA256 iterations of an offline verifier (~0.3–0.6 s on a register-class CPU). */
export const OFFLINE_PIN_ITERATIONS = 600_000;
/** Wrong offline PINs in a row before offline sign-in locks on this register. */
export const OFFLINE_MAX_TRIES = 5;
/** The first lockout, in ms (5 minutes); each further lockout doubles it, up to {@link OFFLINE_MAX_LOCKOUT_MS}. */
export const OFFLINE_LOCKOUT_MS = 5 * 60_000;
export const OFFLINE_MAX_LOCKOUT_MS = 60 * 60_000;
/** The store's window when the register has never heard it (the server's default). */
export const DEFAULT_OFFLINE_SIGN_IN_DAYS = 7;
/** How far the register's clock may stand before a verifier's online check (ms) before offline sign-in refuses it. */
const CLOCK_SKEW_MS = 5 * 60_000;
const DAY_MS = 24 * 3600_000;

export type StaffRole = 'owner' | 'manager' | 'cashier';

/** A staff member as the sign-in screen lists them; `pinSetAt` (ISO 8601) from the server when known. */
export interface OfflineStaff {
  id: string;
  name: string;
  role: StaffRole;
  pinSetAt?: string;
}

/** A stored verifier (document `verifier:<staffId>`). */
export interface StoredVerifier {
  staff: OfflineStaff;
  /** base64 of the 16 random salt bytes (the register and staff ids are the rest of the salt). */
  salt: string;
  /** base64 of the 32-byte PBKDF2 output. */
  hash: string;
  iterations: number;
  /** When the server last accepted this PIN on this register (ISO 8601). */
  verifiedAt: string;
}

/** The signed-in session as stored (document `session`): who sells and until when; `offline` when the register checked the PIN. */
export interface StoredStaffSession {
  staff: OfflineStaff;
  expiresAt: string;
  offline?: boolean;
}

interface StoredLockout {
  failures: number;
  lockouts: number;
  lockedUntil?: string;
}

interface StaffSignInDoc {
  id: string;
  value: Record<string, unknown>;
}

/** The `staff_sign_in` collection: `{ id, value }` documents (`session`, `lockout`, `window`, `verifier:<staffId>`). */
export const staffSignInRxSchema: RxJsonSchema<StaffSignInDoc> = {
  title: 'staff sign-in on this register',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 80 },
    value: { type: 'object' },
  },
  required: ['id', 'value'],
};

/** The part of the register's local database that staff sign-in uses: its `staff_sign_in` collection. */
export interface StaffSignInDatabase {
  staff_sign_in: RxCollection<StaffSignInDoc>;
}

/** Why an offline sign-in was refused; `message` is for the cashier. */
export class OfflineSignInError extends Error {
  override name = 'OfflineSignInError';
  constructor(
    readonly reason: 'locked' | 'not-known' | 'wrong-pin' | 'clock',
    message: string,
  ) {
    super(message);
  }
}

async function read<T>(db: StaffSignInDatabase, id: string): Promise<T | undefined> {
  const doc = await db.staff_sign_in.findOne(id).exec();
  return doc ? (doc.toJSON().value as unknown as T) : undefined;
}

async function write(db: StaffSignInDatabase, id: string, value: object): Promise<void> {
  await db.staff_sign_in.upsert({ id, value: JSON.parse(JSON.stringify(value)) as Record<string, unknown> });
}

async function remove(db: StaffSignInDatabase, id: string): Promise<void> {
  const doc = await db.staff_sign_in.findOne(id).exec();
  if (doc) await doc.remove();
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** PBKDF2-SHA256 of `pin` with a salt of this register, this staff member and `random` (16 bytes): 32 bytes. */
async function derive(pin: string, registerId: string, staffId: string, random: Uint8Array, iterations: number): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const bound = encoder.encode(`register-pos/offline-pin/v1\u0000${registerId}\u0000${staffId}\u0000`);
  const salt = new Uint8Array(bound.length + random.length);
  salt.set(bound);
  salt.set(random, bound.length);
  const key = await crypto.subtle.importKey('raw', encoder.encode(pin), 'PBKDF2', false, ['deriveBits']);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, 256));
}

/** Constant-time comparison of two byte strings of equal length (false when lengths differ). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * The verifier of `pin` for `staff` on `registerId`, checked online at `verifiedAt` (PBKDF2 takes a fraction of a
 * second). `iterations` is for tests only.
 */
export async function makeVerifier(
  registerId: string,
  staff: OfflineStaff,
  pin: string,
  verifiedAt: Date,
  iterations = OFFLINE_PIN_ITERATIONS,
): Promise<StoredVerifier> {
  const random = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(pin, registerId, staff.id, random, iterations);
  return { staff: { ...staff }, salt: toBase64(random), hash: toBase64(hash), iterations, verifiedAt: verifiedAt.toISOString() };
}

/** The store's window as the register last heard it (days; {@link DEFAULT_OFFLINE_SIGN_IN_DAYS} until then). */
export async function offlineWindowDays(db: StaffSignInDatabase): Promise<number> {
  return (await read<{ days: number }>(db, 'window'))?.days ?? DEFAULT_OFFLINE_SIGN_IN_DAYS;
}

const withinWindow = (v: StoredVerifier, days: number, now: Date) => days > 0 && now.getTime() - new Date(v.verifiedAt).getTime() <= days * DAY_MS;

/**
 * After an online sign-in: stores `verifier` (unless the store's window `days` is 0, which drops it), the window, a
 * clean lockout and — when given — the signed-in `session`, in one awaited write each, before the caller says anyone
 * is signed in.
 */
export async function rememberOnlineSignIn(
  db: StaffSignInDatabase,
  verifier: StoredVerifier,
  days: number,
  session?: StoredStaffSession,
): Promise<void> {
  const docs: StaffSignInDoc[] = [
    { id: 'window', value: { days } },
    { id: 'lockout', value: { failures: 0, lockouts: 0 } },
    ...(session ? [{ id: 'session', value: JSON.parse(JSON.stringify(session)) as Record<string, unknown> }] : []),
  ];
  if (days > 0) docs.push({ id: `verifier:${verifier.staff.id}`, value: JSON.parse(JSON.stringify(verifier)) as Record<string, unknown> });
  else await remove(db, `verifier:${verifier.staff.id}`);
  const { error } = await db.staff_sign_in.bulkUpsert(docs);
  if (error.length > 0) throw new Error(`could not store the sign-in: ${String(error[0]?.status)}`);
}

/** The staff who may sign in offline here at `now` (verified online within the window), by name. */
export async function offlineSignInStaff(db: StaffSignInDatabase, now: Date = new Date()): Promise<OfflineStaff[]> {
  const days = await offlineWindowDays(db);
  const docs = await db.staff_sign_in.find({ selector: { id: { $regex: '^verifier:' } } }).exec();
  return docs
    .map((d) => d.toJSON().value as unknown as StoredVerifier)
    .filter((v) => withinWindow(v, days, now))
    .map((v) => v.staff)
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/**
 * Checks `pin` for `staffId` against the stored verifier, offline. A success resets the wrong-PIN count; a failure
 * counts (stored before it answers), and the {@link OFFLINE_MAX_TRIES}th in a row locks offline sign-in here.
 * @returns the staff member
 * @throws OfflineSignInError `locked`, `not-known` (no verifier, or older than the window), `clock` (the register's
 *   clock is before the verifier's online check), `wrong-pin`
 */
export async function checkOfflinePin(
  db: StaffSignInDatabase,
  registerId: string,
  staffId: string,
  pin: string,
  now: Date = new Date(),
): Promise<OfflineStaff> {
  const lockout = (await read<StoredLockout>(db, 'lockout')) ?? { failures: 0, lockouts: 0 };
  if (lockout.lockedUntil && new Date(lockout.lockedUntil).getTime() > now.getTime()) {
    const minutes = Math.ceil((new Date(lockout.lockedUntil).getTime() - now.getTime()) / 60_000);
    throw new OfflineSignInError('locked', `Too many wrong PINs: signing in without a connection is locked on this register for ${minutes} min.`);
  }
  const days = await offlineWindowDays(db);
  const verifier = await read<StoredVerifier>(db, `verifier:${staffId}`);
  if (!verifier || !withinWindow(verifier, days, now)) {
    throw new OfflineSignInError(
      'not-known',
      `Without a connection, only staff who signed in on this register in the last ${days} days can sign in.`,
    );
  }
  if (now.getTime() < new Date(verifier.verifiedAt).getTime() - CLOCK_SKEW_MS) {
    throw new OfflineSignInError('clock', "This register's clock is behind: signing in needs a connection to the server.");
  }
  const hash = await derive(pin, registerId, staffId, fromBase64(verifier.salt), verifier.iterations);
  if (sameBytes(hash, fromBase64(verifier.hash))) {
    await write(db, 'lockout', { failures: 0, lockouts: lockout.lockouts });
    return verifier.staff;
  }
  const failures = lockout.failures + 1;
  if (failures >= OFFLINE_MAX_TRIES) {
    const ms = Math.min(OFFLINE_LOCKOUT_MS * 2 ** lockout.lockouts, OFFLINE_MAX_LOCKOUT_MS);
    await write(db, 'lockout', { failures: 0, lockouts: lockout.lockouts + 1, lockedUntil: new Date(now.getTime() + ms).toISOString() });
    throw new OfflineSignInError(
      'locked',
      `Too many wrong PINs: signing in without a connection is locked on this register for ${Math.ceil(ms / 60_000)} min.`,
    );
  }
  await write(db, 'lockout', { ...lockout, failures });
  throw new OfflineSignInError(
    'wrong-pin',
    `Wrong PIN (${OFFLINE_MAX_TRIES - failures} ${OFFLINE_MAX_TRIES - failures === 1 ? 'try' : 'tries'} left without a connection).`,
  );
}

/** The signed-in session stored on this register, if any. */
export function loadStaffSession(db: StaffSignInDatabase): Promise<StoredStaffSession | undefined> {
  return read<StoredStaffSession>(db, 'session');
}

/** Stores (`session`) or clears (undefined) the signed-in session; resolves once IndexedDB has committed it. */
export async function storeStaffSession(db: StaffSignInDatabase, session: StoredStaffSession | undefined): Promise<void> {
  if (session) await write(db, 'session', session);
  else await remove(db, 'session');
}

/**
 * What the server says now (`GET /api/register/staff`): who may sign in, with `pinSetAt`, and the window. Drops the
 * verifiers of staff missing from it or whose PIN was set since (all of them when the window is 0), renames and
 * re-roles the others, and stores the window.
 * @returns whether `session`'s staff member must be signed out: missing from the list, or signed in offline with a
 *   PIN set since.
 */
export async function reconcileWithServer(
  db: StaffSignInDatabase,
  list: OfflineStaff[],
  days: number,
  session: StoredStaffSession | undefined,
): Promise<boolean> {
  await write(db, 'window', { days });
  const byId = new Map(list.map((s) => [s.id, s]));
  const docs = await db.staff_sign_in.find({ selector: { id: { $regex: '^verifier:' } } }).exec();
  for (const doc of docs) {
    const verifier = doc.toJSON().value as unknown as StoredVerifier;
    const now = byId.get(verifier.staff.id);
    if (!now || days === 0 || (now.pinSetAt && verifier.staff.pinSetAt && now.pinSetAt !== verifier.staff.pinSetAt)) {
      await doc.remove();
    } else if (now.name !== verifier.staff.name || now.role !== verifier.staff.role) {
      await write(db, doc.id, { ...verifier, staff: { ...verifier.staff, name: now.name, role: now.role } });
    }
  }
  if (!session) return false;
  const current = byId.get(session.staff.id);
  if (!current) return true;
  return Boolean(session.offline && current.pinSetAt && session.staff.pinSetAt && current.pinSetAt !== session.staff.pinSetAt);
}
