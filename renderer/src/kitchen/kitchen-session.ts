/**
 * The kitchen display's identity and its calls to the server. A display at `/kitchen/<station>` is paired like a
 * register (common/session.ts: a one-time code, or by itself in demo mode on this machine) and holds a register
 * credential (`rrc_…`), kept in localStorage under its own key so a display never takes a register's identity.
 *
 * Live: the display listens to the replication stream of `check-lines` (`/api/sync/check-lines/stream`, a single-use
 * ticket from `POST /api/sync/stream-tickets`) and reads its tickets again on each change; it also reads them every
 * {@link KITCHEN_POLL_MS}, which brings bumps made on another screen of the station and covers a dropped stream.
 */
import { HttpError, isRegisterCredential, pairWithCode, registerApiCall, selfPairRegister, type RegisterSession } from '../common/session.ts';
import type { KitchenTicketEvent, StationTickets } from '../../../core/index.ts';

const KEY = 'kitchen.session.v1';
/** How often a display reads its tickets without a change heard on the stream (ms). */
export const KITCHEN_POLL_MS = 5_000;

/** Thrown when the display needs a pairing code (not in demo mode on this machine, or its credential was revoked). */
export class KitchenPairingRequired extends Error {
  override name = 'KitchenPairingRequired';
}

function stored(): RegisterSession | undefined {
  try {
    const raw = localStorage.getItem(KEY);
    const session = raw ? (JSON.parse(raw) as RegisterSession) : undefined;
    return session && typeof session.registerToken === 'string' && isRegisterCredential(session.registerToken) ? session : undefined;
  } catch {
    return undefined;
  }
}

/**
 * This display's session: the stored one, else a pairing by itself (demo mode on this machine).
 * @throws KitchenPairingRequired when a code is needed; TypeError when the server cannot be reached.
 */
export async function kitchenSession(): Promise<RegisterSession> {
  const known = stored();
  if (known) return known;
  try {
    const session = await selfPairRegister();
    localStorage.setItem(KEY, JSON.stringify(session));
    return session;
  } catch (err) {
    if (err instanceof HttpError) throw new KitchenPairingRequired('Pair this kitchen display with a code from Back office → Registers.');
    throw err;
  }
}

/** Pairs this display with a one-time code and stores it. @throws as common/session.ts `pairWithCode`. */
export async function pairKitchenDisplay(code: string): Promise<RegisterSession> {
  const session = await pairWithCode(code, stored()?.registerId);
  localStorage.setItem(KEY, JSON.stringify(session));
  return session;
}

/** Forgets the stored credential (the server refused it): the display asks to pair again. */
export function forgetKitchenSession(): void {
  localStorage.removeItem(KEY);
}

/** `GET /api/pos/kitchen/stations/{station}/tickets`. @throws HttpError (404: no such station; 401: revoked). */
export function readStationTickets(session: RegisterSession, station: string): Promise<StationTickets> {
  return registerApiCall<StationTickets>(session, 'GET', `/api/pos/kitchen/stations/${encodeURIComponent(station)}/tickets`);
}

/** Bumps or recalls a ticket. @throws HttpError (409: someone else did it first). */
export function markTicket(session: RegisterSession, station: string, sendId: string, action: 'bump' | 'recall'): Promise<KitchenTicketEvent> {
  return registerApiCall<KitchenTicketEvent>(
    session,
    'POST',
    `/api/pos/kitchen/stations/${encodeURIComponent(station)}/tickets/${encodeURIComponent(sendId)}/${action}`,
    {},
  );
}

/**
 * Calls `onChange` whenever a check line is stored on the server (the `check-lines` stream), reconnecting after an
 * error with a new ticket; returns the function that stops listening.
 */
export function onCheckLineChanges(session: RegisterSession, onChange: () => void): () => void {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let isClosed = false;
  const connect = () => {
    timer = undefined;
    if (isClosed) return;
    registerApiCall<{ ticket: string }>(session, 'POST', '/api/sync/stream-tickets', {}).then(
      ({ ticket }) => {
        if (isClosed) return;
        const current = new EventSource(`/api/sync/check-lines/stream?ticket=${encodeURIComponent(ticket)}`);
        source = current;
        current.onmessage = () => onChange();
        current.onerror = () => {
          current.close();
          if (source === current) source = undefined;
          if (!isClosed) timer = setTimeout(connect, KITCHEN_POLL_MS);
        };
      },
      () => {
        if (!isClosed) timer = setTimeout(connect, KITCHEN_POLL_MS);
      },
    );
  };
  connect();
  return () => {
    isClosed = true;
    if (timer !== undefined) clearTimeout(timer);
    source?.close();
  };
}
