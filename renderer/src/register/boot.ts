/**
 * Start-up of the register: the stored session (or a first pairing), the local database and the replication.
 * Runs once per page (not per React render), so StrictMode's double effects never open two databases.
 */
import { BehaviorSubject } from 'rxjs';
import { openRegisterDatabase, type RegisterDatabase } from './db/database.ts';
import { HttpError, loadSession, pairRegister, storeSession, type RegisterSession } from './session.ts';
import { startSync, type SyncEngine } from './sync/replication.ts';

export interface BootedRegister {
  db: RegisterDatabase;
  session$: BehaviorSubject<RegisterSession>;
  sync: SyncEngine;
}

/** Thrown when a register that was never paired starts without a connection to the server. */
export class FirstStartOfflineError extends Error {
  override name = 'FirstStartOfflineError';
}

let booting: Promise<BootedRegister> | undefined;

export function bootRegister(): Promise<BootedRegister> {
  booting ??= boot().catch((err: unknown) => {
    booting = undefined; // allow "Try again"
    throw err;
  });
  return booting;
}

async function boot(): Promise<BootedRegister> {
  let session = loadSession();
  if (!session) {
    try {
      session = await pairRegister();
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new FirstStartOfflineError('This register has never been paired: connect it to the network once to start.');
    }
    storeSession(session);
  }
  const session$ = new BehaviorSubject(session);
  const db = await openRegisterDatabase();

  let refreshing: Promise<void> | undefined;
  const refresh = () => {
    refreshing ??= pairRegister(session$.value.registerId)
      .then((fresh) => {
        const current = session$.value;
        // Keep the highest receipt sequence either side knows.
        const next = { ...fresh, lastReceiptSequence: Math.max(fresh.lastReceiptSequence, current.lastReceiptSequence) };
        storeSession(next);
        session$.next(next);
        sync.resync();
      })
      .catch(() => {
        // Offline or server down: keep selling with the stored session; the next online event tries again.
      })
      .finally(() => {
        refreshing = undefined;
      });
  };

  const sync = startSync(db, {
    getToken: () => session$.value.staffToken,
    merchantId: session.merchantId,
    onUnauthorized: refresh,
  });
  window.addEventListener('online', refresh);
  if (navigator.onLine) refresh();
  return { db, session$, sync };
}
