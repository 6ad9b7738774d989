/**
 * Staff sign-in on this register: a staff member picks their name and types their PIN; the server checks it (scrypt)
 * and answers a staff token for the shift (12 h), kept in memory only — a reload asks for the PIN again before the
 * back office opens. The register sells only with someone signed in: who that is (id, name, role, shift expiry —
 * never the PIN nor the token) is stored in the local database, the write awaited before the register shows them
 * signed in (a crash right after signing in keeps them), with a copy in localStorage; they stay signed in across a
 * reload, online or offline, until "Sign out", the end of the 12 h shift, or — once online — the server no longer
 * lists them (disabled, PIN removed). While the server cannot be reached, staff verified online on this register
 * recently sign in against a verifier kept here (staff-offline.ts; docs/decisions/0046-offline-staff-sign-in.md).
 * Selling and syncing use the register's own credential (session.ts).
 */
import { BehaviorSubject } from 'rxjs';
import { HttpError, REGISTER_SCHEMA_VERSION } from './session.ts';
import {
  checkOfflinePin,
  DEFAULT_OFFLINE_SIGN_IN_DAYS,
  loadStaffSession,
  makeVerifier,
  offlineSignInStaff,
  offlineWindowDays,
  reconcileWithServer,
  rememberOnlineSignIn,
  storeStaffSession,
  type StaffSignInDatabase,
} from './staff-offline.ts';

/** A staff member as the sign-in screen lists them; `pinSetAt` (ISO 8601) when the server said it. */
export interface SignInStaff {
  id: string;
  name: string;
  role: 'owner' | 'manager' | 'cashier';
  pinSetAt?: string;
}

/** A signed-in staff member: their token for the shift, its expiry (ISO 8601) and who they are. */
export interface StaffSession {
  staffToken: string;
  expiresAt: string;
  staff: SignInStaff;
}

/** The staff member signed in on this register, if any (memory only). */
export const staffSession$ = new BehaviorSubject<StaffSession | undefined>(undefined);

/**
 * Who sells on this register for the shift: the staff member and the shift's end (ISO 8601); `offline` when the
 * register checked the PIN itself (no server at the time). No secret.
 */
export interface RegisterStaff {
  staff: SignInStaff;
  expiresAt: string;
  offline?: boolean;
}

const REGISTER_STAFF_KEY = 'register.signedInStaff';

function readRegisterStaff(): RegisterStaff | undefined {
  try {
    const raw = typeof localStorage === 'undefined' ? null : localStorage.getItem(REGISTER_STAFF_KEY);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as RegisterStaff;
    return typeof parsed?.staff?.id === 'string' && typeof parsed.expiresAt === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The staff member selling on this register (kept across reloads, offline too, until sign-out or shift expiry). */
export const registerStaff$ = new BehaviorSubject<RegisterStaff | undefined>(readRegisterStaff());

/** The staff member selling on this register, undefined when none or when the 12 h shift has ended. */
export function currentRegisterStaff(now: Date = new Date()): RegisterStaff | undefined {
  const signedIn = registerStaff$.value;
  return signedIn && new Date(signedIn.expiresAt).getTime() > now.getTime() ? signedIn : undefined;
}

/** The signed-in staff session, undefined when none or when its shift token has expired. */
export function currentStaffSession(now: Date = new Date()): StaffSession | undefined {
  const session = staffSession$.value;
  return session && new Date(session.expiresAt).getTime() > now.getTime() ? session : undefined;
}

async function call<T>(registerToken: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${registerToken}`,
      'x-register-schema-version': REGISTER_SCHEMA_VERSION,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new HttpError(
      response.status,
      response.status === 429 ? 'Too many attempts: wait a minute and try again.' : (problem.detail ?? `HTTP ${response.status}`),
    );
  }
  return (await response.json()) as T;
}

/** A shift is 12 hours, online or offline (the server's staff token lives as long). */
const SHIFT_MS = 12 * 3600_000;

/** The local database and this register's id, once the register has booted ({@link attachStaffSignIn}). */
let attached: { db: StaffSignInDatabase; registerId: string } | undefined;

/** True when `err` means the server could not be reached (network down, or a proxy's 502/503/504). */
export function isUnreachable(err: unknown): boolean {
  return err instanceof TypeError || (err instanceof HttpError && (err.status === 502 || err.status === 503 || err.status === 504));
}

/**
 * At boot: sign-in from now on stores into `db` (this register `registerId`), and who was signed in there is
 * restored (the database is where the session is durable; an older version's localStorage copy moves in).
 */
export async function attachStaffSignIn(db: StaffSignInDatabase, registerId: string): Promise<void> {
  attached = { db, registerId };
  const stored = await loadStaffSession(db);
  if (stored) {
    const restored: RegisterStaff = { staff: stored.staff, expiresAt: stored.expiresAt, ...(stored.offline ? { offline: true } : {}) };
    localStorage.setItem(REGISTER_STAFF_KEY, JSON.stringify(restored));
    registerStaff$.next(restored);
  } else if (registerStaff$.value) {
    await storeStaffSession(db, registerStaff$.value);
  }
}

/**
 * Who can sign in on this register, from the server; what it answers also re-checks this register's offline
 * sign-ins (verifiers of staff no longer listed or with a new PIN are dropped) and signs out a staff member it no
 * longer lists. @throws TypeError offline; HttpError when refused.
 */
export async function listSignInStaff(registerToken: string): Promise<SignInStaff[]> {
  const answer = await call<{ data: SignInStaff[]; offlineSignInDays?: number }>(registerToken, 'GET', '/api/register/staff');
  if (attached) {
    const signedIn = registerStaff$.value;
    const mustSignOut = await reconcileWithServer(attached.db, answer.data, answer.offlineSignInDays ?? DEFAULT_OFFLINE_SIGN_IN_DAYS, signedIn);
    if (mustSignOut && registerStaff$.value?.staff.id === signedIn?.staff.id) await signOut();
    const listed = new Set(answer.data.map((s) => s.id));
    const backOffice = staffSession$.value;
    if (backOffice && !listed.has(backOffice.staff.id)) staffSession$.next(undefined);
  }
  return answer.data;
}

/** Staff who may sign in here while offline (verified online within the store's window), and that window in days. */
export async function listOfflineSignInStaff(): Promise<{ staff: SignInStaff[]; days: number }> {
  if (!attached) return { staff: [], days: DEFAULT_OFFLINE_SIGN_IN_DAYS };
  return { staff: await offlineSignInStaff(attached.db), days: await offlineWindowDays(attached.db) };
}

/** Makes `signedIn` who sells: stored (awaited) in the database, then the localStorage copy, then shown. */
async function becomeRegisterStaff(signedIn: RegisterStaff): Promise<void> {
  if (attached) await storeStaffSession(attached.db, signedIn);
  localStorage.setItem(REGISTER_STAFF_KEY, JSON.stringify(signedIn));
  registerStaff$.next(signedIn);
}

/**
 * Signs `staffId` in with `pin` for `purpose`. Online, the server checks the PIN and the register keeps an offline
 * verifier of it (staff-offline.ts). `backoffice` makes the session {@link staffSession$} (its token calls the
 * server); `register` makes them who sells, {@link registerStaff$} — stored before it is shown — and opens the back
 * office for them too (the same person at the same register is not asked their PIN twice). A back-office sign-in
 * never changes who sells, so a manager signing in there on a cashier's register does not take over their sales.
 * When the server cannot be reached, a `register` sign-in is checked against this register's verifier.
 * @returns the server's session, or undefined for an offline sign-in (no staff token)
 * @throws TypeError offline (back office, or no offline sign-in possible); HttpError (401 wrong PIN, 429 too many
 *   tries); OfflineSignInError (staff-offline.ts) when refused offline.
 */
export async function signIn(
  registerToken: string,
  staffId: string,
  pin: string,
  purpose: 'backoffice' | 'register' = 'backoffice',
): Promise<StaffSession | undefined> {
  let session: (StaffSession & { offlineSignInDays?: number }) | undefined;
  try {
    session = await call<StaffSession & { offlineSignInDays?: number }>(registerToken, 'POST', '/api/register/sign-in', { staffId, pin });
  } catch (err) {
    if (purpose !== 'register' || !attached || !isUnreachable(err)) throw err;
    const staff = await checkOfflinePin(attached.db, attached.registerId, staffId, pin);
    await becomeRegisterStaff({ staff, expiresAt: new Date(Date.now() + SHIFT_MS).toISOString(), offline: true });
    return undefined;
  }
  const { offlineSignInDays, ...shift } = session;
  const signedIn: RegisterStaff = { staff: shift.staff, expiresAt: shift.expiresAt };
  if (attached) {
    const verifier = await makeVerifier(attached.registerId, shift.staff, pin, new Date());
    await rememberOnlineSignIn(
      attached.db,
      verifier,
      offlineSignInDays ?? DEFAULT_OFFLINE_SIGN_IN_DAYS,
      purpose === 'register' ? signedIn : undefined,
    );
  }
  if (purpose === 'register') {
    localStorage.setItem(REGISTER_STAFF_KEY, JSON.stringify(signedIn));
    registerStaff$.next(signedIn);
  }
  staffSession$.next(shift);
  return shift;
}

/**
 * Ends the shift on this register (the header's and the back office's Sign out): both ask for a PIN again at once;
 * resolves once the database no longer holds the session.
 */
export async function signOut(): Promise<void> {
  localStorage.removeItem(REGISTER_STAFF_KEY);
  staffSession$.next(undefined);
  registerStaff$.next(undefined);
  if (attached) await storeStaffSession(attached.db, undefined);
}
