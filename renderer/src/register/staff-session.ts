/**
 * Staff sign-in on this register (issue 11): a staff member picks their name and types their PIN; the server checks it
 * (scrypt) and answers a staff token for the shift (12 h), kept in memory only — a reload, "Sign out" or the end of the
 * shift asks for the PIN again. The back office calls the server with it; selling and syncing use the register's
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

/** Signs `staffId` in with `pin`; the session becomes {@link staffSession$}. @throws TypeError offline; HttpError (401 wrong PIN, 429 too many tries). */
export async function signIn(registerToken: string, staffId: string, pin: string): Promise<StaffSession> {
  const session = await call<StaffSession>(registerToken, 'POST', '/api/register/sign-in', { staffId, pin });
  staffSession$.next(session);
  return session;
}

/** Ends the shift on this register. */
export function signOut(): void {
  staffSession$.next(undefined);
}
