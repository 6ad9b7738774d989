/**
 * Pairing with the sync server and the register session. The session (the register's identity) lives in the local
 * database with the sales (db/identity.ts), so the register opens and sells offline with what it last knew.
 * A register pairs with a one-time code a manager made (`POST /api/register/pair`) or, in demo mode on this machine
 * only, by itself (`POST /api/dev/pair-register`); either way it holds a register credential (`rrc_…`) that syncs and
 * sells, never a staff token — staff sign in with their PIN for the back office (staff-session.ts). A register paired
 * again keeps its register id, so receipts keep their register number.
 * localStorage keeps a copy (`register.session.v1`): read once to move an older version's pairing into the
 * database, and a witness of this register when the database is lost.
 */

export interface RegisterSession {
  /** The register credential (`rrc_…`); an older version's stored staff token is not one (see {@link isRegisterCredential}). */
  registerToken: string;
  merchantId: string;
  merchantName: string;
  currency: string;
  registerId: string;
  registerNumber: number;
  /** The name the register was given at enrollment (pairing code's `name`, e.g. "Front counter"); absent in older sessions. */
  registerName?: string;
  /** Highest receipt sequence the server has seen from this register when the session was last refreshed. */
  lastReceiptSequence: number;
  pairedAt: string;
}

const SESSION_KEY = 'register.session.v1';

/** Sent on every sync request: the server answers 426 to a register older than its schema. */
export const REGISTER_SCHEMA_VERSION = '1';

/** The copy of the session in localStorage, if any (see the module comment). */
export function loadSession(): RegisterSession | undefined {
  const raw = localStorage.getItem(SESSION_KEY);
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<RegisterSession> & { staffToken?: unknown };
    // Older versions stored a staff token as `staffToken`: kept as the token, it is recognised as no credential.
    const registerToken = parsed.registerToken ?? parsed.staffToken;
    if (typeof registerToken !== 'string' || typeof parsed.registerId !== 'string' || typeof parsed.registerNumber !== 'number') {
      return undefined;
    }
    const { staffToken: _legacy, ...rest } = parsed;
    return { ...(rest as RegisterSession), registerToken };
  } catch {
    return undefined;
  }
}

/** Writes the localStorage copy of the session (Chromium commits it to disk seconds later: never the only copy). */
export function storeSession(session: RegisterSession): void {
  localStorage.setItem(SESSION_KEY, JSON.stringify(session));
}

/** Thrown when the server answers with an HTTP error (as opposed to the network being down). */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    /** The RFC 9457 problem's `code`, when the server sent one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * Calls the server as this register (its bearer credential and schema version), with a JSON body when given.
 * @returns the parsed JSON answer of a 2xx
 * @throws HttpError with the status, the problem's `detail` (else `HTTP <status>`) and its `code`; TypeError when the
 *   network is down
 */
export async function registerApiCall<T>(session: RegisterSession, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${session.registerToken}`,
      'x-register-schema-version': REGISTER_SCHEMA_VERSION,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string; code?: string };
    throw new HttpError(response.status, problem.detail ?? `HTTP ${response.status}`, problem.code);
  }
  return (await response.json()) as T;
}

/** True for a register credential (`rrc_…`); false for what an older version stored (a staff token). */
export function isRegisterCredential(token: string): boolean {
  return token.startsWith('rrc_');
}

/** Thrown when this register needs a pairing code: never paired, revoked, or not in demo mode on this machine. */
export class PairingRequiredError extends Error {
  override name = 'PairingRequiredError';
  constructor(
    /** The register id this browser had, if any: pairing with a code keeps it (and its receipt numbers). */
    readonly registerId: string | undefined,
    message = 'This register is not paired: enter a pairing code from the back office (Registers) or printed by the server.',
  ) {
    super(message);
  }
}

async function pairVia(path: string, body: Record<string, string>): Promise<RegisterSession> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new HttpError(response.status, problem.detail ?? `pairing failed: HTTP ${response.status}`);
  }
  const paired = (await response.json()) as Omit<RegisterSession, 'pairedAt'>;
  return {
    registerToken: paired.registerToken,
    merchantId: paired.merchantId,
    merchantName: paired.merchantName,
    currency: paired.currency,
    registerId: paired.registerId,
    registerNumber: paired.registerNumber,
    ...(typeof paired.registerName === 'string' && paired.registerName ? { registerName: paired.registerName } : {}),
    lastReceiptSequence: paired.lastReceiptSequence ?? 0,
    pairedAt: new Date().toISOString(),
  };
}

/**
 * Demo mode on this machine: pairs this browser as a register of the demo store by itself (or again, as
 * `registerId`). @throws TypeError when the network is down; HttpError when the server refuses (403 not loopback,
 * 404 not demo mode, 409 revoked).
 */
export function selfPairRegister(registerId?: string): Promise<RegisterSession> {
  return pairVia('/api/dev/pair-register', registerId ? { registerId } : {});
}

/**
 * Pairs this browser with a one-time code (`XXXX-XXXX`, any case, dash optional), as `registerId` when it had one.
 * @throws TypeError when the network is down; HttpError (400 with the server's reason) when the code is refused.
 */
export function pairWithCode(code: string, registerId?: string): Promise<RegisterSession> {
  return pairVia('/api/register/pair', { code: code.trim(), ...(registerId ? { registerId } : {}) });
}
