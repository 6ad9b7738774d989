/**
 * Replication with the sync server: RxDB's `replicateRxCollection` with our own HTTP pull/push handlers
 * and a server-sent-events pull stream per collection. The catalog, tax rates and journal transactions are pulled
 * only (the server is authoritative; it derives each sale's journal transaction from the pushed order); orders are
 * pushed by RxDB and pulled by `collection-pull.ts` (register-authored, append-only), and so are the catalog (up to
 * 50,000 items, see that file) and the journal transactions; only the tax rates are pulled by RxDB. Shifts, cash
 * movements, closeouts, returns and customers are pushed by RxDB and pulled back by `collection-pull.ts` too (see
 * {@link CollectionPlan} `both`).
 *
 * The header's badge shows whether the server is reachable: the change streams' state (EventSource open / error) and
 * the outcome of every request. Pushes are cut by bytes as well as rows, so no request reaches the server's body
 * limit; a single order too large to send is kept and marked as refused by this register (`rejection.by`).
 */
import { refreshHeldCheckpoints } from './held-checkpoints.ts';
import type { CheckCollection } from '../../../../core/index.ts';
import { joinPulled } from '../checks/check-join.ts';
import { serviceStyle$ } from '../checks/service-style.ts';
import { BehaviorSubject, NEVER, Observable, combineLatest, distinctUntilChanged, map, share, switchMap, type Subscription } from 'rxjs';
import { type RxCollection, type RxReplicationPullStreamItem, type RxReplicationWriteToMasterRow, type WithDeleted } from 'rxdb';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import type { RegisterDatabase } from '../db/database.ts';
import { HttpError, REGISTER_SCHEMA_VERSION } from '../../common/session.ts';
import { CATALOG_PULL_PAGE, ORDERS_PULL_PAGE, startCollectionPull, type CollectionPull, type CollectionPullOptions } from './collection-pull.ts';
import { unsyncedCounts$ } from './unsynced.ts';
import { chunkPushRows, MAX_PUSH_BATCH_BYTES, MAX_PUSH_DOCUMENT_BYTES, formatBytes } from './push-batches.ts';
import { initialSyncStatus, type SyncStatus } from '../../common/sync-status.ts';

/** The server's pull checkpoint: its monotonically increasing sequence. */
export interface SyncCheckpoint {
  seq: number;
}

/**
 * One RxDB replication: a pull (server → register, with the server's change stream) or a push (register → server) of
 * one collection. Orders are pushed by RxDB and pulled by {@link startCollectionPull}, not by a second RxDB replication:
 * RxDB holds a replication's pulls back while its upstream is busy, and a pull-only replication's upstream still walks
 * every local document at start and after each RESYNC, so with a backlog of 1,000 sales the stamped copies came back
 * a median 35 s after the server committed them. The push replication sends only documents without the server's
 * stamp, so the stamped copy the orders pull writes is never sent again.
 */
interface CollectionPlan {
  /** Server-side collection name in the URL. */
  remote: string;
  local: keyof RegisterDatabase['collections'] & string;
  /**
   * `pull`: an RxDB pull replication with the server's change stream. `push`: pushed by RxDB (pulled by a hand-written
   * pull set up apart: the orders). `both`: pushed by RxDB and pulled back — the server's stamp, and what the server
   * or other registers wrote — by a hand-written pull ({@link startCollectionPull}), never by RxDB's downstream: that
   * one skips a pulled document while the same document's push is still waiting for its answer (the local write is
   * "not upstream-replicated" yet), and moves its checkpoint past it, so a shift pushed as the register came back
   * online could stay without its stamp — counted unsynced — for ever.
   */
  direction: 'pull' | 'push' | 'both';
  /** Documents per pull request (default 100; the server allows up to 1,000). */
  pullBatchSize?: number;
  /** `both`: the server deletes documents (a customer erased), removed here too. */
  hasDeletions?: boolean;
  /** `both`: open checks, joined with the held document rather than overwritten (checks/check-join.ts). */
  join?: CheckCollection;
}

// The catalog and the journal transactions are not here: they are pulled by startCollectionPull (collection-pull.ts),
// like the orders.
const PLANS: readonly CollectionPlan[] = [
  { remote: 'tax-rates', local: 'tax_rates', direction: 'pull' },
  { remote: 'orders', local: 'orders', direction: 'push' },
  // Shifts: born here, append-only, pushed like orders, and pulled back for the server's stamp (`syncSeq`),
  // which is how the header's unsynced count knows they are on the server. The closeout is pulled back too, so the
  // shift screen can also show the server's check of its figures.
  { remote: 'shifts', local: 'shifts', direction: 'both' },
  { remote: 'cash-movements', local: 'cash_movements', direction: 'both' },
  { remote: 'shift-closeouts', local: 'closeouts', direction: 'both' },
  // Returns: born here, pushed, pulled back for the server's stamp (refund id) like a closeout.
  { remote: 'returns', local: 'returns', direction: 'both' },
  // Customers: the store's, pulled 1,000 at a time like the catalog (at start, on reconnect, after a push
  // and when the cashier opens the customer search: no change stream — the browser's 6 connections per host are spent
  // on the four streams and the requests); customers created here are pushed, and one the server merged into an
  // existing customer comes back as its alias.
  { remote: 'customers', local: 'customers', direction: 'both', pullBatchSize: 1000, hasDeletions: true },
  // A restaurant's open checks: edited here and on every register of the store, pushed, and pulled back joined with
  // what is held (never overwritten). One change stream for the three, opened only when the store serves at tables.
  { remote: 'checks', local: 'checks', direction: 'both', pullBatchSize: 500, join: 'checks' },
  { remote: 'check-lines', local: 'check_lines', direction: 'both', pullBatchSize: 1000, join: 'check-lines' },
  { remote: 'check-payments', local: 'check_payments', direction: 'both', pullBatchSize: 500, join: 'check-payments' },
];

const LAST_SYNC_KEY = 'register.lastSyncAt';
/** Reopening a change stream: at once after the first error (a server restart), then after this pause. */
const STREAM_RETRY_MS = 3_000;
const STREAM_FIRST_RETRY_MS = 500;
/** After a push, the orders' stamped copies and the derived journal transactions are pulled this soon (coalesced). */
const CATCH_UP_AFTER_PUSH_MS = 20;
/** Journal transactions per pull request (the server answers at most 1,000). */
const JOURNAL_PULL_PAGE = 500;

export interface SyncEngine {
  status$: BehaviorSubject<SyncStatus>;
  /** Ask every replication to pull now (e.g. after coming back online). */
  resync(): void;
  /** Pull one collection now (e.g. `customers` when the cashier opens the customer search). Optional: test doubles. */
  pullNow?(remote: string): void;
  stop(): Promise<void>;
}

/**
 * Starts replicating every collection. `getToken` is read on each request, so a renewed register credential applies at
 * once. Only the leader tab replicates (RxDB `waitForLeadership`); other tabs still see the status of the shared
 * database, and the leader's view of the server's reachability through a BroadcastChannel.
 */
export interface SyncOptions {
  getToken: () => string;
  merchantId: string;
  /** Called when the server refuses the staff token (401), so the session can be refreshed. */
  onUnauthorized?: () => void;
}

/** The reason kept on an order too large to push (shown to the cashier). */
export function tooLargeReason(bytes: number): string {
  return `Too large to send to the server (${formatBytes(bytes)}; the limit is ${formatBytes(MAX_PUSH_DOCUMENT_BYTES)}): kept on this register only`;
}

export function startSync(db: RegisterDatabase, { getToken, merchantId, onUnauthorized }: SyncOptions): SyncEngine {
  const status$ = new BehaviorSubject<SyncStatus>({
    ...initialSyncStatus,
    isOnline: navigator.onLine,
    lastSyncAt: localStorage.getItem(LAST_SYNC_KEY) ?? undefined,
  });
  const patch = (change: Partial<SyncStatus>) => status$.next({ ...status$.value, ...change });
  /** Whether the server answered last: a change stream opened or a request got an HTTP answer (true), or not. */
  let isServerReachable = true;
  let isLeader = false;
  const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(`register-sync-status:${merchantId}`);
  const reachability = () => ({ isOnline: navigator.onLine && isServerReachable, isServerUnreachable: navigator.onLine && !isServerReachable });
  const publish = () => {
    if (isLeader) channel?.postMessage({ kind: 'status', ...reachability(), lastSyncAt: status$.value.lastSyncAt, error: status$.value.error });
  };
  const setReachable = (reachable: boolean) => {
    isServerReachable = reachable;
    patch(reachability());
    publish();
  };
  if (channel) {
    channel.onmessage = (
      event: MessageEvent<{ kind: string; isOnline?: boolean; isServerUnreachable?: boolean; lastSyncAt?: string; error?: string }>,
    ) => {
      const message = event.data;
      if (message.kind === 'ask') publish();
      else if (message.kind === 'status' && !isLeader) {
        patch({
          isOnline: navigator.onLine && message.isOnline === true,
          isServerUnreachable: navigator.onLine && message.isServerUnreachable === true,
          lastSyncAt: message.lastSyncAt,
          error: message.error,
        });
      }
    };
    channel.postMessage({ kind: 'ask' });
  }

  const recordSuccess = () => {
    const now = new Date().toISOString();
    localStorage.setItem(LAST_SYNC_KEY, now);
    isServerReachable = true;
    patch({ ...reachability(), error: undefined, lastSyncAt: now });
    publish();
  };
  const recordFailure = (err: unknown) => {
    if (err instanceof HttpError) {
      if (err.status === 401) onUnauthorized?.();
      isServerReachable = true;
      patch({ ...reachability(), error: err.message, isOutdated: status$.value.isOutdated || err.status === 426 });
      publish();
    } else {
      // fetch rejects with a TypeError when the network or the server is unreachable.
      setReachable(false);
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
      // A 413 is this register's own doing (the push is split and retried), not a sync problem to show.
      if (response.status === 413) isServerReachable = true;
      else recordFailure(error);
      throw error;
    }
    const body: unknown = await response.json();
    recordSuccess();
    return body;
  };

  /** A single-use stream ticket (`POST /api/sync/stream-tickets`): no token ever goes into a stream's URL. */
  const streamTicket = async (): Promise<string> =>
    ((await request('/api/sync/stream-tickets', { method: 'POST', body: '{}' })) as { ticket: string }).ticket;

  /** Catalog items received by the pull round running now; back to 0 when it caught up or failed. */
  let catalogReceived = 0;
  const countCatalogPage = (documents: number, isLast: boolean): void => {
    catalogReceived = isLast ? 0 : catalogReceived + documents;
    if (status$.value.catalogReceived !== catalogReceived) patch({ catalogReceived });
  };

  const replications: RxReplicationState<unknown, SyncCheckpoint>[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  /** Per remote collection: pull it again shortly (after a push, the orders' stamps and derived journal transactions). */
  const catchUps = new Map<string, (delay: number) => void>();
  /** The hand-written pulls: orders, catalog, journal transactions, and the collections pushed and pulled back (`both`). */
  const pulls: CollectionPull[] = [];
  /** Starts a hand-written pull (collection-pull.ts) over this engine's requests, by the leader tab; kept in `pulls`. */
  const startPull = (options: Omit<CollectionPullOptions, 'db' | 'request' | 'waitForLeadership' | 'retryMs'>): CollectionPull => {
    const pull = startCollectionPull({
      db,
      request: (path) => request(path),
      waitForLeadership: () => db.waitForLeadership(),
      retryMs: STREAM_RETRY_MS,
      ...options,
    });
    pulls.push(pull);
    return pull;
  };
  const ordersPull = startPull({
    collection: db.orders,
    remote: 'orders',
    pageSize: ORDERS_PULL_PAGE,
    checkpointKey: `register.ordersPull:${merchantId}`,
    stream$: serverEvents('/api/sync/orders/stream', streamTicket, setReachable),
  });
  startPull({
    collection: db.catalog_items,
    remote: 'catalog-items',
    pageSize: CATALOG_PULL_PAGE,
    checkpointKey: `register.catalogPull:${merchantId}`,
    hasDeletions: true,
    // The download's progress: items of this catch-up, until a page that is not full (caught up) or a failure.
    onPage: countCatalogPage,
    stream$: serverEvents('/api/sync/catalog-items/stream', streamTicket, setReachable),
  });
  // The register keeps its own journal transactions for offline figures, but the server derives the sale's journal
  // transaction from the pushed order (checkRegisterSale): pushing a second copy would be redundant. The server's
  // stamped copy (same id) replaces the local one when pulled — by this pull, not RxDB's downstream, which skips a
  // pulled document whose local write its upstream has not recorded yet (see CollectionPlan), and whose upstream
  // walked every local journal transaction (the store's whole ledger) at each start.
  const journalPull = startPull({
    collection: db.journal_transactions,
    remote: 'journal-transactions',
    pageSize: JOURNAL_PULL_PAGE,
    checkpointKey: `register.pull.journal-transactions:${merchantId}`,
    stream$: serverEvents('/api/sync/journal-transactions/stream', streamTicket, setReachable),
  });
  catchUps.set('journal-transactions', () => journalPull.pullNow());
  // After a push answer: at once (the stamped copies are what the cashier waits for).
  catchUps.set('orders', () => ordersPull.pullNow());
  // The open checks' one change stream (the server's `checks` stream also wakes for lines and payments): any message
  // pulls the three collections. Opened while the store serves at tables only — a retail register keeps its streams.
  const checksStream$ = serviceStyle$.pipe(
    map((style) => style !== 'retail'),
    distinctUntilChanged(),
    switchMap((atTables) => (atTables ? serverEvents('/api/sync/checks/stream', streamTicket, setReachable) : NEVER)),
    share(),
  );
  for (const plan of PLANS) {
    const collection = db.collections[plan.local] as unknown as RxCollection<unknown>;
    let replication: RxReplicationState<unknown, SyncCheckpoint> | undefined;
    let catchUpTimer: ReturnType<typeof setTimeout> | undefined;
    if (plan.direction === 'both') {
      // Pulled at start, on reconnect, right after its own push (its stamp) and when asked (`pullNow`): no change
      // stream — browsers open 6 connections per host and the 4 streams are enough. Without a kept checkpoint it
      // starts from the first document (a register upgraded from the RxDB pull may hold a document whose stamp that
      // pull skipped, below the highest stamp it holds).
      const join = plan.join;
      const pull = startPull({
        collection,
        remote: plan.remote,
        pageSize: plan.pullBatchSize ?? 100,
        checkpointKey: `register.pull.${plan.remote}:${merchantId}`,
        hasDeletions: plan.hasDeletions ?? false,
        fromFirstDocument: true,
        stream$: join ? checksStream$ : NEVER,
        ...(join ? { join: (held: Record<string, unknown> | undefined, pulled: Record<string, unknown>) => joinPulled(join, held, pulled) } : {}),
      });
      catchUps.set(plan.remote, () => pull.pullNow());
    } else if (plan.direction === 'pull') {
      /** Pull again shortly (a push just finished). */
      catchUps.set(plan.remote, (delay: number) => {
        if (catchUpTimer !== undefined) return;
        catchUpTimer = setTimeout(() => {
          if (catchUpTimer !== undefined) timers.delete(catchUpTimer);
          catchUpTimer = undefined;
          replication?.reSync();
        }, delay);
        timers.add(catchUpTimer);
      });
    }

    /** Marks an order that can never be pushed (too large) as refused by this register; it stays local. */
    const refuseLocally = (row: RxReplicationWriteToMasterRow<unknown>, bytes: number) => {
      const id = (row.newDocumentState as { id?: string }).id;
      if (typeof id !== 'string') return;
      // After the push handler returns (RxDB then records this state as handled); the marked state that follows
      // carries a rejection and is never sent.
      setTimeout(() => {
        void (async () => {
          const doc = await collection.findOne(id).exec();
          await doc?.incrementalPatch({ rejection: { reason: tooLargeReason(bytes), at: new Date().toISOString(), by: 'register' } } as never);
        })().catch((err: unknown) => console.error('could not mark an oversized order', err));
      }, 0);
    };

    /** Pushes `rows` in requests cut by rows and bytes; answers the conflicts (master states, quarantined orders). */
    const pushRows = async (rows: RxReplicationWriteToMasterRow<unknown>[]): Promise<WithDeleted<unknown>[]> => {
      // Only what the server has not stamped: a document with the server's `syncSeq` is the server's own copy (written
      // here by the pull), one with a `rejection` was refused (by the server, or as too large here) — never resent.
      const toSend = rows.filter((row) => {
        const doc = row.newDocumentState as { syncSeq?: number; rejection?: unknown };
        return doc.syncSeq === undefined && doc.rejection === undefined;
      });
      const { chunks, oversized } = chunkPushRows(toSend, { maxBytes: MAX_PUSH_BATCH_BYTES });
      for (const { row, bytes } of oversized) refuseLocally(row, bytes);
      const conflicts: WithDeleted<unknown>[] = [];
      const queue = [...chunks];
      while (queue.length > 0) {
        const chunk = queue.shift()!;
        try {
          conflicts.push(...((await request(`/api/sync/${plan.remote}/push`, { method: 'POST', body: chunk.body })) as WithDeleted<unknown>[]));
        } catch (err) {
          // The server's limit is lower than we thought: split the request, and refuse a lone row locally.
          if (!(err instanceof HttpError) || err.status !== 413) throw err;
          if (chunk.rows.length === 1) {
            refuseLocally(chunk.rows[0]!, chunk.bytes);
            continue;
          }
          const half = Math.ceil(chunk.rows.length / 2);
          queue.unshift(
            ...[chunk.rows.slice(0, half), chunk.rows.slice(half)].flatMap(
              (part) => chunkPushRows(part, { maxBytes: Math.floor(chunk.bytes / 2) + 1 }).chunks,
            ),
          );
          continue;
        }
        // The server's stamped copies of what it just committed, and the journal transactions it derived from them.
        catchUps.get(plan.remote)?.(CATCH_UP_AFTER_PUSH_MS);
        catchUps.get('journal-transactions')?.(CATCH_UP_AFTER_PUSH_MS);
        // A customer merged into an existing one re-points the sales already on the server: pull them back.
        if (plan.remote === 'customers') catchUps.get('orders')?.(CATCH_UP_AFTER_PUSH_MS);
      }
      return conflicts;
    };

    replication = replicateRxCollection<unknown, SyncCheckpoint>({
      collection,
      replicationIdentifier: `register-sync-v1:${location.origin}:${merchantId}:${plan.remote}`,
      live: true,
      retryTime: 3_000,
      waitForLeadership: true,
      ...(plan.direction === 'pull'
        ? {
            pull: {
              batchSize: plan.pullBatchSize ?? 100,
              handler: async (checkpoint: SyncCheckpoint | undefined, batchSize: number) => {
                const seq = checkpoint?.seq ?? 0;
                const body = (await request(`/api/sync/${plan.remote}/pull?seq=${seq}&limit=${batchSize}`)) as {
                  documents: WithDeleted<unknown>[];
                  checkpoint: SyncCheckpoint | null;
                };
                return { documents: body.documents, checkpoint: body.checkpoint ?? { seq } };
              },
              stream$: serverEvents(`/api/sync/${plan.remote}/stream`, streamTicket, setReachable),
            },
          }
        : {}),
      ...(plan.direction !== 'pull' ? { push: { batchSize: 100, handler: pushRows } } : {}),
    });
    replications.push(replication);
  }

  const subscriptions: Subscription[] = [];
  // One entry per replication, then one per hand-written pull (orders, catalog).
  const initialDone = [...replications.map(() => false), ...pulls.map(() => false)];
  const active = [...replications.map(() => false), ...pulls.map(() => false)];
  const updateInSync = () => patch({ isInSync: initialDone.every(Boolean) && !active.some(Boolean) });
  pulls.forEach((pull, k) => {
    const i = replications.length + k;
    subscriptions.push(
      pull.active$.subscribe((isActive) => {
        active[i] = isActive;
        updateInSync();
      }),
    );
    void pull.firstCatchUp.then(() => {
      initialDone[i] = true;
      updateInSync();
    });
  });
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

  void db.waitForLeadership().then(() => {
    isLeader = true;
    patch({ isLeader: true, ...reachability() });
    publish();
  });

  // Unsynced = every record kind authored here without the server's sequence (sync/unsynced.ts: orders — with their
  // offline card payments —, shifts, cash movements, closeouts); refused orders (by the server or, too large, by this
  // register) are counted apart. Journal transactions are not pushed (the server derives them), so nothing waits on them.
  subscriptions.push(
    combineLatest([unsyncedCounts$(db), db.orders.find({ selector: { rejection: { $exists: true } } }).$]).subscribe(([unsynced, rejected]) => {
      const refused = rejected.filter((d) => (d.toJSON() as { rejection?: { by?: string } }).rejection?.by === 'register').length;
      patch({ unsyncedCount: unsynced.total, rejectedCount: rejected.length - refused, refusedCount: refused });
    }),
  );

  // Keep a copy of the store's signed audit checkpoints outside the server (held-checkpoints.ts): now and when back online.
  // A head older than the one held is reported to the server and shown to the manager (components/audit-head-banner.tsx).
  const holdCheckpoints = () =>
    void refreshHeldCheckpoints(
      (path) => request(path),
      (body) => request('/api/sync/audit/head-reports', { method: 'POST', body: JSON.stringify(body) }),
    ).catch(() => undefined);
  holdCheckpoints();
  const onOnline = () => {
    patch(reachability());
    for (const r of replications) r.reSync();
    for (const pull of pulls) pull.pullNow();
    holdCheckpoints();
  };
  const onOffline = () => patch(reachability());
  window.addEventListener('online', onOnline);
  window.addEventListener('offline', onOffline);

  return {
    status$,
    resync: () => {
      replications.forEach((r) => r.reSync());
      pulls.forEach((pull) => pull.pullNow());
    },
    pullNow: (remote: string) => catchUps.get(remote)?.(0),
    stop: async () => {
      window.removeEventListener('online', onOnline);
      window.removeEventListener('offline', onOffline);
      channel?.close();
      subscriptions.forEach((s) => s.unsubscribe());
      timers.forEach((t) => clearTimeout(t));
      pulls.forEach((pull) => pull.stop());
      await Promise.all(replications.map((r) => r.cancel()));
    },
  };
}

/**
 * The pull stream of one collection from the server's server-sent events. The server sends `RESYNC` on every
 * (re)connect; we also emit it ourselves on open so RxDB pulls whatever it missed while disconnected. A broken or
 * refused connection is closed and reopened after a pause (or as soon as the browser is online again) with a new
 * single-use ticket (`getTicket`: the stream URL never carries a token). `onReachable` hears the stream's state: true when it opens, false on an error (the server went away,
 * or refused the stream) — what the header's badge shows.
 */
function serverEvents(
  path: string,
  getTicket: () => Promise<string>,
  onReachable: (reachable: boolean) => void,
): Observable<RxReplicationPullStreamItem<unknown, SyncCheckpoint>> {
  return new Observable((subscriber) => {
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let isClosed = false;
    let failures = 0;

    let isOpening = false;
    const retry = () => {
      onReachable(false);
      failures += 1;
      if (timer === undefined) timer = setTimeout(connect, failures === 1 ? STREAM_FIRST_RETRY_MS : STREAM_RETRY_MS);
    };
    const connect = () => {
      timer = undefined;
      if (isClosed || source || isOpening || !navigator.onLine) return;
      isOpening = true;
      getTicket().then(
        (ticket) => {
          isOpening = false;
          if (!isClosed && !source) open(ticket);
        },
        () => {
          isOpening = false;
          if (!isClosed) retry();
        },
      );
    };
    const open = (ticket: string) => {
      const current = new EventSource(`${path}?ticket=${encodeURIComponent(ticket)}`);
      source = current;
      current.onopen = () => {
        failures = 0;
        onReachable(true);
        subscriber.next('RESYNC');
      };
      current.onmessage = (event: MessageEvent<string>) => {
        const item = parseStreamItem(event.data);
        if (item) subscriber.next(item);
      };
      current.onerror = () => {
        current.close();
        if (source === current) source = undefined;
        if (isClosed) return;
        retry();
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
