/**
 * Start-up of the register: the local database, the identity stored in it (or a first pairing, stored there before
 * the first sale) and the replication. Runs once per page (not per React render), so StrictMode's double effects
 * never open two databases.
 */
import { BehaviorSubject } from 'rxjs';
import { openRegisterDatabase, type RegisterDatabase } from './db/database.ts';
import { loadIdentity, storeIdentity } from './db/identity.ts';
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
let opening: Promise<RegisterDatabase> | undefined;

export function bootRegister(): Promise<BootedRegister> {
  booting ??= boot().catch((err: unknown) => {
    booting = undefined; // allow "Try again"
    throw err;
  });
  return booting;
}

/**
 * This register's identity: the one in the local database (where its sales are); else the copy an older version
 * kept in localStorage (moved into the database); else a first pairing — committed to the database before the
 * register opens, so no sale can exist without it. localStorage keeps a copy (session.ts).
 * @throws FirstStartOfflineError when never paired and the server cannot be reached; HttpError when it refuses.
 */
async function identityOf(db: RegisterDatabase): Promise<RegisterSession> {
  let session = (await loadIdentity(db)) ?? loadSession();
  if (!session) {
    try {
      session = await pairRegister();
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new FirstStartOfflineError('This register has never been paired: connect it to the network once to start.');
    }
  }
  await storeIdentity(db, session);
  storeSession(session);
  return session;
}

async function boot(): Promise<BootedRegister> {
  opening ??= openRegisterDatabase().catch((err: unknown) => {
    opening = undefined;
    throw err;
  });
  const db = await opening;
  const session = await identityOf(db);
  const session$ = new BehaviorSubject(session);

  let refreshing: Promise<void> | undefined;
  const refresh = () => {
    refreshing ??= pairRegister(session$.value.registerId)
      .then((fresh) => {
        const current = session$.value;
        // Keep the highest receipt sequence either side knows.
        const next = { ...fresh, lastReceiptSequence: Math.max(fresh.lastReceiptSequence, current.lastReceiptSequence) };
        return storeIdentity(db, next).then(() => {
          storeSession(next);
          session$.next(next);
          sync.resync();
        });
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
