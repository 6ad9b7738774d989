/**
 * Staff sign-in on this register (issue 11): a staff member picks their name and types their PIN; the server checks it
 * (scrypt) and answers a staff token for the shift (12 h), kept in memory only — a reload asks for the PIN again before
 * the back office opens. The register sells only with someone signed in: who that is (id, name, role, shift expiry —
 * never the PIN nor the token) is kept in localStorage so the register keeps them signed in across a reload, online or
 * offline, until "Sign out" or the end of the 12 h shift (docs/decisions.md). Selling and syncing use the register's
 * own credential (session.ts).
 */
import { BehaviorSubject } from 'rxjs';
import { HttpError, REGISTER_SCHEMA_VERSION } from './session.ts';

/** A staff member as the sign-in screen lists them. */
export interface SignInStaff {
  id: string;
  name: string;
  role: 'owner' | 'manager' | 'cashier';
}

/** A signed-in staff member: their token for the shift, its expiry (ISO 8601) and who they are. */
export interface StaffSession {
  staffToken: string;
  expiresAt: string;
  staff: SignInStaff;
}

/** The staff member signed in on this register, if any (memory only). */
export const staffSession$ = new BehaviorSubject<StaffSession | undefined>(undefined);

/** Who sells on this register for the shift: the staff member and the shift token's expiry (ISO 8601); no secret. */
export interface RegisterStaff {
  staff: SignInStaff;
  expiresAt: string;
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
    headers: { authorization: `Bearer ${registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new HttpError(response.status, response.status === 429 ? 'Too many attempts: wait a minute and try again.' : problem.detail ?? `HTTP ${response.status}`);
  }
  return (await response.json()) as T;
}

/** Who can sign in on this register. @throws TypeError offline; HttpError when refused. */
export async function listSignInStaff(registerToken: string): Promise<SignInStaff[]> {
  return (await call<{ data: SignInStaff[] }>(registerToken, 'GET', '/api/register/staff')).data;
}

/**
 * Signs `staffId` in with `pin` for `purpose`: `backoffice` makes the session {@link staffSession$} (its token calls the
 * server); `register` makes them who sells, {@link registerStaff$} (the token is not kept). The two are apart so a
 * manager signing in to the back office on a cashier's register does not take over the cashier's sales.
 * @throws TypeError offline; HttpError (401 wrong PIN, 429 too many tries).
 */
export async function signIn(registerToken: string, staffId: string, pin: string, purpose: 'backoffice' | 'register' = 'backoffice'): Promise<StaffSession> {
  const session = await call<StaffSession>(registerToken, 'POST', '/api/register/sign-in', { staffId, pin });
  if (purpose === 'register') {
    const signedIn: RegisterStaff = { staff: session.staff, expiresAt: session.expiresAt };
    localStorage.setItem(REGISTER_STAFF_KEY, JSON.stringify(signedIn));
    registerStaff$.next(signedIn);
  } else {
    staffSession$.next(session);
  }
  return session;
}

/** Ends the shift on this register (the header's and the back office's Sign out): both ask for a PIN again. */
export function signOut(): void {
  localStorage.removeItem(REGISTER_STAFF_KEY);
  staffSession$.next(undefined);
  registerStaff$.next(undefined);
}
