/**
 * Pairing with the sync server and the register session. The session (the register's identity) lives in the local
 * database with the sales (db/identity.ts), so the register opens and sells offline with what it last knew; when
 * online it is refreshed (new staff token) with the same register id, so receipts keep their register number.
 * localStorage keeps a copy (`register.session.v1`): read once to move an older version's pairing into the
 * database, and a witness of this register when the database is lost.
 */

export interface RegisterSession {
  staffToken: string;
  merchantId: string;
  merchantName: string;
  currency: string;
  registerId: string;
  registerNumber: number;
  /** Highest receipt sequence the server has seen from this register when the session was last refreshed. */
  lastReceiptSequence: number;
  pairedAt: string;
}

const SESSION_KEY = 'register.session.v1';

/** Sent on every sync request: the server answers 426 to a register older than its schema (DESIGN §15). */
export const REGISTER_SCHEMA_VERSION = '1';

/** The copy of the session in localStorage, if any (see the module comment). */
export function loadSession(): RegisterSession | undefined {
  const raw = localStorage.getItem(SESSION_KEY);
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<RegisterSession>;
    if (typeof parsed.staffToken !== 'string' || typeof parsed.registerId !== 'string' || typeof parsed.registerNumber !== 'number') {
      return undefined;
    }
    return parsed as RegisterSession;
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
  ) {
    super(message);
  }
}

/**
 * Pairs this browser as a register of the demo store, or refreshes the token of the register it already is.
 * @throws TypeError when the network is down; HttpError when the server refuses.
 */
export async function pairRegister(registerId?: string): Promise<RegisterSession> {
  const response = await fetch('/api/dev/pair-register', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
    body: JSON.stringify(registerId ? { registerId } : {}),
  });
  if (!response.ok) throw new HttpError(response.status, `pairing failed: HTTP ${response.status}`);
  const body = (await response.json()) as Omit<RegisterSession, 'pairedAt'>;
  return {
    staffToken: body.staffToken,
    merchantId: body.merchantId,
    merchantName: body.merchantName,
    currency: body.currency,
    registerId: body.registerId,
    registerNumber: body.registerNumber,
    lastReceiptSequence: body.lastReceiptSequence ?? 0,
    pairedAt: new Date().toISOString(),
  };
}
