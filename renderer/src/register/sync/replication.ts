/**
 * Replication with the sync server (DESIGN §15): RxDB's `replicateRxCollection` with our own HTTP pull/push handlers
 * and a server-sent-events pull stream per collection. The catalog and tax rates are pulled only (the server is
 * authoritative); orders and journal transactions are pushed and pulled (register-authored, append-only).
 *
 * Every handler reports its outcome, which drives the header's online/offline badge and the last sync time.
 */
import { BehaviorSubject, Observable, combineLatest, type Subscription } from 'rxjs';
import type { RxCollection, RxReplicationPullStreamItem, RxReplicationWriteToMasterRow, WithDeleted } from 'rxdb';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import type { RegisterDatabase } from '../db/database.ts';
import { HttpError, REGISTER_SCHEMA_VERSION } from '../session.ts';
import { initialSyncStatus, type SyncStatus } from './sync-status.ts';

/** The server's pull checkpoint: its monotonically increasing sequence. */
export interface SyncCheckpoint {
  seq: number;
}

interface CollectionPlan {
  /** Server-side collection name in the URL. */
  remote: string;
  local: keyof RegisterDatabase['collections'] & string;
  push: boolean;
}

const PLANS: readonly CollectionPlan[] = [
  { remote: 'catalog-items', local: 'catalog_items', push: false },
  { remote: 'tax-rates', local: 'tax_rates', push: false },
  { remote: 'orders', local: 'orders', push: true },
  { remote: 'journal-transactions', local: 'journal_transactions', push: true },
];

const LAST_SYNC_KEY = 'register.lastSyncAt';
const STREAM_RETRY_MS = 3_000;
/** Catch-up pulls for stamped copies of pushed documents: first after this delay, doubling up to the maximum. */
const CATCH_UP_MIN_MS = 250;
const CATCH_UP_MAX_MS = 10_000;

export interface SyncEngine {
  status$: BehaviorSubject<SyncStatus>;
  /** Ask every replication to pull now (e.g. after coming back online). */
  resync(): void;
  stop(): Promise<void>;
}

/**
 * Starts replicating every collection. `getToken` is read on each request, so a refreshed staff token applies at
 * once. Only the leader tab replicates (RxDB `waitForLeadership`); other tabs still see the status of the shared
 * database.
 */
export interface SyncOptions {
  getToken: () => string;
  merchantId: string;
  /** Called when the server refuses the staff token (401), so the session can be refreshed. */
  onUnauthorized?: () => void;
}

export function startSync(db: RegisterDatabase, { getToken, merchantId, onUnauthorized }: SyncOptions): SyncEngine {
  const status$ = new BehaviorSubject<SyncStatus>({
    ...initialSyncStatus,
    isOnline: navigator.onLine,
    lastSyncAt: localStorage.getItem(LAST_SYNC_KEY) ?? undefined,
  });
  const patch = (change: Partial<SyncStatus>) => status$.next({ ...status$.value, ...change });
  let isNetworkDown = false;

  const recordSuccess = () => {
    isNetworkDown = false;
    const now = new Date().toISOString();
    localStorage.setItem(LAST_SYNC_KEY, now);
    patch({ isOnline: navigator.onLine, error: undefined, lastSyncAt: now });
  };
  const recordFailure = (err: unknown) => {
    if (err instanceof HttpError) {
      if (err.status === 401) onUnauthorized?.();
      patch({ error: err.message, isOutdated: status$.value.isOutdated || err.status === 426 });
    } else {
      // fetch rejects with a TypeError when the network or the server is unreachable.
      isNetworkDown = true;
      patch({ isOnline: false });
    }
  };

  const request = async (path: string, init: RequestInit = {}): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(path, {
        ...init,
        headers: {
          ...(init.body ? { 'content-type': 'application/json' } : {}),
          authorization: `Bearer ${getToken()}`,
          'x-register-schema-version': REGISTER_SCHEMA_VERSION,
        },
      });
    } catch (err) {
      recordFailure(err);
      throw err;
    }
    if (!response.ok) {
      const error = new HttpError(response.status, `${path.split('?')[0]}: HTTP ${response.status}`);
      recordFailure(error);
      throw error;
    }
    const body: unknown = await response.json();
    recordSuccess();
    return body;
  };

  const replications: RxReplicationState<unknown, SyncCheckpoint>[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  for (const plan of PLANS) {
    const collection = db.collections[plan.local] as unknown as RxCollection<unknown>;
    let replication: RxReplicationState<unknown, SyncCheckpoint> | undefined;
    let catchUpDelay = CATCH_UP_MIN_MS;
    let catchUpTimer: ReturnType<typeof setTimeout> | undefined;
    /** Pull again soon (backing off while a sale's server copy is still missing). */
    const scheduleCatchUp = (delay: number) => {
      if (catchUpTimer !== undefined) return;
      catchUpTimer = setTimeout(() => {
        if (catchUpTimer !== undefined) timers.delete(catchUpTimer);
        catchUpTimer = undefined;
        replication?.reSync();
      }, delay);
      timers.add(catchUpTimer);
    };

    replication = replicateRxCollection<unknown, SyncCheckpoint>({
      collection,
      replicationIdentifier: `register-sync-v1:${location.origin}:${merchantId}:${plan.remote}`,
      live: true,
      retryTime: 3_000,
      waitForLeadership: true,
      pull: {
        batchSize: 100,
        handler: async (checkpoint, batchSize) => {
          const seq = checkpoint?.seq ?? 0;
          const body = (await request(`/api/sync/${plan.remote}/pull?seq=${seq}&limit=${batchSize}`)) as {
            documents: (WithDeleted<unknown> & { id: string; syncSeq: number })[];
            checkpoint: SyncCheckpoint | null;
          };
          const next = body.checkpoint ?? { seq };
          if (!plan.push || body.documents.length === 0) return { documents: body.documents, checkpoint: next };
          // The server stamps what we push (updatedAt, syncSeq), so the stamped copy must reach this register even
          // when it is pulled while the push is still in flight — RxDB then keeps the local state and skips it.
          // Never move the checkpoint past a document whose local copy has not received its stamp yet: pull it
          // again shortly, until the stamped copy has landed.
          const local = await collection.findByIds(body.documents.map((d) => d.id)).exec();
          const pendingIndex = body.documents.findIndex((d) => {
            const mine = local.get(d.id)?.toJSON() as { syncSeq?: number; rejection?: unknown } | undefined;
            return mine !== undefined && mine.syncSeq === undefined && mine.rejection === undefined;
          });
          if (pendingIndex === -1) {
            catchUpDelay = CATCH_UP_MIN_MS;
            return { documents: body.documents, checkpoint: next };
          }
          scheduleCatchUp(catchUpDelay);
          catchUpDelay = Math.min(catchUpDelay * 2, CATCH_UP_MAX_MS);
          const before = body.documents[pendingIndex - 1];
          return { documents: body.documents.slice(0, pendingIndex + 1), checkpoint: before ? { seq: before.syncSeq } : { seq } };
        },
        // Register-authored collections always catch up through the pull handler (see above).
        stream$: serverEvents(`/api/sync/${plan.remote}/stream`, getToken, plan.push),
      },
      ...(plan.push
        ? {
            push: {
              batchSize: 50,
              handler: async (rows: RxReplicationWriteToMasterRow<unknown>[]) => {
                const conflicts = (await request(`/api/sync/${plan.remote}/push`, { method: 'POST', body: JSON.stringify(rows) })) as WithDeleted<unknown>[];
                // Fetch the server's stamped copies of what was just accepted.
                catchUpDelay = CATCH_UP_MIN_MS;
                scheduleCatchUp(CATCH_UP_MIN_MS);
                return conflicts;
              },
            },
          }
        : {}),
    });
    replications.push(replication);
  }

  const subscriptions: Subscription[] = [];
  const initialDone = replications.map(() => false);
  const active = replications.map(() => false);
  const updateInSync = () => patch({ isInSync: initialDone.every(Boolean) && !active.some(Boolean) });
  replications.forEach((replication, i) => {
    subscriptions.push(
      replication.active$.subscribe((isActive) => {
        active[i] = isActive;
        updateInSync();
      }),
    );
    void replication.awaitInitialReplication().then(() => {
      initialDone[i] = true;
      updateInSync();
    });
  });

  void db.waitForLeadership().then(() => patch({ isLeader: true }));

  // Unsynced = register-authored records without the server's sequence; quarantined ones are counted apart.
  const pending = { syncSeq: { $exists: false }, rejection: { $exists: false } };
  subscriptions.push(
    combineLatest([
      db.orders.find({ selector: pending }).$,
      db.journal_transactions.find({ selector: pending }).$,
      db.orders.find({ selector: { rejection: { $exists: true } } }).$,
    ]).subscribe(([orders, journal, rejected]) => patch({ unsyncedCount: orders.length + journal.length, rejectedCount: rejected.length })),
  );

  const onOnline = () => {
    patch({ isOnline: !isNetworkDown });
    for (const r of replications) r.reSync();
  };
  const onOffline = () => patch({ isOnline: false });
  window.addEventListener('online', onOnline);
  window.addEventListener('offline', onOffline);

  return {
    status$,
    resync: () => replications.forEach((r) => r.reSync()),
    stop: async () => {
      window.removeEventListener('online', onOnline);
      window.removeEventListener('offline', onOffline);
      subscriptions.forEach((s) => s.unsubscribe());
      timers.forEach((t) => clearTimeout(t));
      await Promise.all(replications.map((r) => r.cancel()));
    },
  };
}

/**
 * The pull stream of one collection from the server's server-sent events. The server sends `RESYNC` on every
 * (re)connect; we also emit it ourselves on open so RxDB pulls whatever it missed while disconnected. With
 * `resyncOnly`, every batch becomes a `RESYNC`, so documents always arrive through the pull handler. A broken or
 * refused connection is closed and reopened after a pause (or as soon as the browser is online again) with the
 * current token.
 */
function serverEvents(
  path: string,
  getToken: () => string,
  resyncOnly: boolean,
): Observable<RxReplicationPullStreamItem<unknown, SyncCheckpoint>> {
  return new Observable((subscriber) => {
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let isClosed = false;

    const connect = () => {
      timer = undefined;
      if (isClosed || source || !navigator.onLine) return;
      const current = new EventSource(`${path}?token=${encodeURIComponent(getToken())}`);
      source = current;
      current.onopen = () => subscriber.next('RESYNC');
      current.onmessage = (event: MessageEvent<string>) => {
        const item = parseStreamItem(event.data);
        if (item) subscriber.next(resyncOnly ? 'RESYNC' : item);
      };
      current.onerror = () => {
        current.close();
        if (source === current) source = undefined;
        if (!isClosed && timer === undefined) timer = setTimeout(connect, STREAM_RETRY_MS);
      };
    };
    const onOnline = () => {
      if (timer !== undefined) clearTimeout(timer);
      connect();
    };
    window.addEventListener('online', onOnline);
    connect();
    return () => {
      isClosed = true;
      window.removeEventListener('online', onOnline);
      if (timer !== undefined) clearTimeout(timer);
      source?.close();
    };
  });
}

function parseStreamItem(data: string): RxReplicationPullStreamItem<unknown, SyncCheckpoint> | undefined {
  if (data === 'RESYNC') return 'RESYNC';
  try {
    const parsed = JSON.parse(data) as unknown;
    if (parsed === 'RESYNC') return 'RESYNC';
    if (parsed && typeof parsed === 'object' && 'documents' in parsed) {
      const batch = parsed as { documents: WithDeleted<unknown>[]; checkpoint: SyncCheckpoint | null };
      // Without a checkpoint RxDB could not resume; a pull catches up instead.
      if (!batch.checkpoint) return 'RESYNC';
      return { documents: batch.documents, checkpoint: batch.checkpoint };
    }
  } catch {
    // Not JSON: ignore (comments and keep-alives never reach onmessage, anything else is unknown).
  }
  return undefined;
}
