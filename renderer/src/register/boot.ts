/**
 * Start-up of the register: the local database, the identity stored in it (or a first pairing, stored there before
 * the first sale) and the replication. Runs once per page (not per React render), so StrictMode's double effects
 * never open two databases.
 */
import { BehaviorSubject } from 'rxjs';
import { openRegisterDatabase, removeOrphanSaleJournalTransactions, type RegisterDatabase } from './db/database.ts';
import { loadIdentity, storeIdentity } from './db/identity.ts';
import { catalogFeed } from './sale/catalog-feed.ts';
import { rememberServiceStyle } from './checks/service-style.ts';
import { refreshKitchenRouting } from './checks/kitchen-routing.ts';
import { rememberSellPastZero } from './sale/stock.ts';
import {
  HttpError,
  isRegisterCredential,
  loadSession,
  PairingRequiredError,
  pairWithCode,
  REGISTER_SCHEMA_VERSION,
  selfPairRegister,
  storeSession,
  type RegisterSession,
} from '../common/session.ts';
import { attachStaffSignIn, listSignInStaff } from '../common/staff-session.ts';
import { startSync, type SyncEngine } from './sync/replication.ts';

export interface BootedRegister {
  db: RegisterDatabase;
  session$: BehaviorSubject<RegisterSession>;
  sync: SyncEngine;
  /** True once the server refused this register's credential (revoked) and it could not pair by itself. */
  pairingRequired$: BehaviorSubject<boolean>;
  /** Pairs this register again with a code (same register id); resolves once stored and syncing. @throws as pairWithCode. */
  pair(code: string): Promise<void>;
}

/** Thrown when a register that was never paired starts without a connection to the server. */
export class FirstStartOfflineError extends Error {
  override name = 'FirstStartOfflineError';
}

let booting: Promise<BootedRegister> | undefined;
let opening: Promise<RegisterDatabase> | undefined;

export function bootRegister(): Promise<BootedRegister> {
  booting ??= boot().catch((err: unknown) => {
    booting = undefined; // allow "Try again"
    throw err;
  });
  return booting;
}

/** Opens the local database once per page. */
function openDatabase(): Promise<RegisterDatabase> {
  opening ??= openRegisterDatabase().catch((err: unknown) => {
    opening = undefined;
    throw err;
  });
  return opening;
}

/** The stored session and a fresh one: the fresh credential, the highest receipt sequence either side knows. */
function merged(fresh: RegisterSession, known: RegisterSession | undefined): RegisterSession {
  return { ...fresh, lastReceiptSequence: Math.max(fresh.lastReceiptSequence, known?.lastReceiptSequence ?? 0) };
}

/**
 * This register's identity: the one in the local database (where its sales are); else the copy an older version
 * kept in localStorage (moved into the database); else — or when what is stored is no register credential (an older
 * version's staff token) — a pairing: by itself in demo mode on this machine, else {@link PairingRequiredError}.
 * Committed to the database before the register opens, so no sale can exist without it.
 * @throws FirstStartOfflineError when never paired and the server cannot be reached; PairingRequiredError when a
 * pairing code is needed.
 */
async function identityOf(db: RegisterDatabase): Promise<RegisterSession> {
  const known = (await loadIdentity(db)) ?? loadSession();
  let session = known && isRegisterCredential(known.registerToken) ? known : undefined;
  if (!session) {
    try {
      session = merged(await selfPairRegister(known?.registerId), known);
    } catch (err) {
      if (err instanceof HttpError) throw new PairingRequiredError(known?.registerId);
      if (known) return known; // an older version's pairing, offline: keep selling; it pairs when online
      throw new FirstStartOfflineError('This register has never been paired: connect it to the network once to start.');
    }
  }
  await storeIdentity(db, session);
  storeSession(session);
  return session;
}

/**
 * Pairs this register with a one-time code before it boots (the pairing screen), keeping the register id it had.
 * @throws TypeError when the network is down; HttpError when the code is refused.
 */
export async function pairThisRegister(code: string): Promise<void> {
  const db = await openDatabase();
  const known = (await loadIdentity(db)) ?? loadSession();
  const session = merged(await pairWithCode(code, known?.registerId), known);
  await storeIdentity(db, session);
  storeSession(session);
}

/** How often a register online asks the server who may still sign in (ms): a disabled staff member is signed out. */
const STAFF_CHECK_MS = 60_000;

async function boot(): Promise<BootedRegister> {
  const db = await openDatabase();
  const session = await identityOf(db);
  // Who was signed in (stored in the database before it was shown), before the register renders.
  await attachStaffSignIn(db, session.registerId);
  // A crash between a sale's two writes may have left the ledger line of a sale never stored: removed off the way.
  setTimeout(() => void removeOrphanSaleJournalTransactions(db).catch(() => undefined), 5_000);
  const session$ = new BehaviorSubject(session);
  const pairingRequired$ = new BehaviorSubject(false);

  const adopt = async (fresh: RegisterSession) => {
    const next = merged(fresh, session$.value);
    await storeIdentity(db, next);
    storeSession(next);
    session$.next(next);
    pairingRequired$.next(false);
    sync.resync();
  };

  // A refused credential (revoked in the back office): pair by itself in demo mode on this machine, else ask for a code.
  let refreshing: Promise<void> | undefined;
  const onUnauthorized = () => {
    refreshing ??= selfPairRegister(session$.value.registerId)
      .then(adopt)
      .catch((err: unknown) => {
        if (err instanceof HttpError) pairingRequired$.next(true);
        // Offline or server down: keep selling with the stored session; the next refusal tries again.
      })
      .finally(() => {
        refreshing = undefined;
      });
  };

  // What the server holds of this register's receipts, so a register whose database was lost never reuses a number.
  const refreshReceipts = async () => {
    try {
      const current = session$.value;
      const response = await fetch(`/api/sync/registers/${encodeURIComponent(current.registerId)}`, {
        headers: { authorization: `Bearer ${current.registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
      });
      if (response.status === 401) return onUnauthorized();
      if (!response.ok) return;
      const { lastReceiptSequence, confirmSellPastZero, serviceStyle } = (await response.json()) as {
        lastReceiptSequence: number;
        confirmSellPastZero?: boolean;
        serviceStyle?: unknown;
      };
      if (typeof confirmSellPastZero === 'boolean') rememberSellPastZero(current.registerId, confirmSellPastZero);
      rememberServiceStyle(serviceStyle);
      if (serviceStyle !== 'retail') void refreshKitchenRouting(current.registerToken);
      if (lastReceiptSequence > session$.value.lastReceiptSequence) {
        const next = { ...session$.value, lastReceiptSequence };
        await storeIdentity(db, next);
        storeSession(next);
        session$.next(next);
      }
    } catch {
      // Offline: the next online event tries again.
    }
  };

  const sync = startSync(db, {
    getToken: () => session$.value.registerToken,
    merchantId: session.merchantId,
    onUnauthorized,
  });
  window.addEventListener('online', () => void refreshReceipts());
  if (navigator.onLine) void refreshReceipts();
  // Offline sign-ins are re-checked with the server as soon as it answers: on start, back online, and every minute.
  const checkStaff = () => {
    if (!navigator.onLine) return;
    listSignInStaff(session$.value.registerToken).catch(() => {
      // Offline, or refused (the register's credential: onUnauthorized above deals with it).
    });
  };
  window.addEventListener('online', checkStaff);
  setInterval(checkStaff, STAFF_CHECK_MS);
  checkStaff();
  // The catalog's stored items are read and indexed from now on (sale/catalog-feed.ts), while the register renders
  // its remembered first tiles or signs in. Not earlier: IndexedDB answers an origin's requests in turn, so the
  // catalog's pages (50,000 items: ~0.7 s) would hold back the few small reads and writes of the start above.
  catalogFeed(db);
  return { db, session$, sync, pairingRequired$, pair: async (code) => adopt(await pairWithCode(code, session$.value.registerId)) };
}
