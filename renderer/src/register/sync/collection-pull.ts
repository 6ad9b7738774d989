/**
 * A hand-written pull (server → register) of one collection, rather than an RxDB replication: the orders, the
 * catalog, the journal transactions, and the other collections the register pushes and pulls back (shifts, cash
 * movements, closeouts, returns, customers: replication.ts `CollectionPlan`).
 *
 * Orders: it writes the server's stamped copies (`syncSeq`, `updatedAt`) over the local orders as soon as the server
 * has committed them, which is what turns a sale "synced" for the cashier. RxDB's replication holds a replication's
 * pulls back while its upstream is busy, and a pull-only replication's upstream still walks every local document at
 * start and after each RESYNC; with a backlog of 1,000 offline sales the stamped copies came back a median 35 s after
 * the server committed them (test/renderer/sync-backlog.test.ts).
 *
 * Catalog: the same upstream walk read all 50,000 stored items at every start (~1 s of the register's main
 * thread after a reload), and RxDB's replication kept a second document per item (its meta data: the assumed master
 * state) — two reads and two writes per pulled item. Here a page is one `bulkUpsert` (and one `bulkRemove` for the
 * items the server deleted).
 *
 * Open checks (`checks`, `check-lines`, `check-payments`): each pulled copy is joined with the one held here
 * (`join`, checks/check-join.ts), never written over it.
 *
 * The pull reads from its checkpoint only — never the local documents — one catch-up at a time (while a full page is
 * written, the next is already asked for), again at once when asked meanwhile: after each push answer (orders), on
 * each change-stream message, when back online.
 *
 * The checkpoint (the server's sequence) is kept in localStorage beside the database's storage token, so
 * it is only trusted for the database it was taken from; without it (first start, storage cleared, an older version)
 * it is the highest stamp among the local documents.
 */
import { BehaviorSubject, type Observable, type Subscription } from 'rxjs';
import type { RxCollection } from 'rxdb';
import type { RegisterDatabase } from '../db/database.ts';

/** Orders per pull request (the server answers at most 1,000). */
export const ORDERS_PULL_PAGE = 500;
/** Catalog items per pull request: the server's most (a first download of 50,000 items is 50 requests). */
export const CATALOG_PULL_PAGE = 1_000;

export interface CollectionPullOptions {
  db: RegisterDatabase;
  /** The local collection written. */
  // Orders or catalog items: written as the server sent them.
  collection: RxCollection<any>;
  /** The server's collection name in the URL (`/api/sync/{remote}/pull`). */
  remote: string;
  /** Documents per request (the server answers at most 1,000). */
  pageSize: number;
  /** The localStorage key of the checkpoint. */
  checkpointKey: string;
  /**
   * True when the server deletes documents (`_deleted: true`, the catalog): they are removed locally. Otherwise
   * (append-only orders) `_deleted` is always false and dropped.
   */
  hasDeletions?: boolean;
  /** Hears each page written: its documents and whether it was the last of this catch-up (fewer than a page). */
  onPage?: (documents: number, isLast: boolean) => void;
  /** GETs a same-origin path and answers the parsed JSON body; throws on a network error or an HTTP error status. */
  request: (path: string) => Promise<unknown>;
  /** The collection's change stream: any item (a batch, or RESYNC) asks for a pull. */
  stream$: Observable<unknown>;
  /** Resolves when this tab may replicate (only the leader tab does). */
  waitForLeadership: () => Promise<unknown>;
  /** Pause before pulling again after a failed request, ms. */
  retryMs: number;
  /**
   * Without a kept checkpoint, start from the server's first document (true) rather than from the highest stamp among
   * the local documents (false, the default: right when every stamp below it was pulled too).
   */
  fromFirstDocument?: boolean;
  /**
   * Documents edited on several replicas (open checks): the document to keep when the server's copy meets the one
   * held here (undefined: none), instead of the server's copy (checks/check-join.ts).
   */
  join?: (held: Record<string, unknown> | undefined, pulled: Record<string, unknown>) => Record<string, unknown>;
}

export interface CollectionPull {
  /** Catch up from the checkpoint now: one pull runs at a time; asked while it runs, it runs once more after. */
  pullNow(): void;
  /** True while a catch-up runs. */
  active$: BehaviorSubject<boolean>;
  /** Resolves after the first catch-up that reached the server's last document. */
  firstCatchUp: Promise<void>;
  stop(): void;
}

interface PullPage {
  documents: (Record<string, unknown> & { _deleted?: boolean })[];
  checkpoint: { seq: number } | null;
}

/** Starts pulling the merchant's `remote` documents into `collection`; see the file's comment. */
export function startCollectionPull({
  db,
  collection,
  remote,
  pageSize,
  checkpointKey: key,
  hasDeletions = false,
  onPage,
  request,
  stream$,
  waitForLeadership,
  retryMs,
  fromFirstDocument = false,
  join,
}: CollectionPullOptions): CollectionPull {
  const active$ = new BehaviorSubject(false);
  let resolveFirst: () => void = () => {};
  const firstCatchUp = new Promise<void>((resolve) => (resolveFirst = resolve));
  let seq: number | undefined;
  let running = false;
  let again = false;
  let stopped = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const loadCheckpoint = async (token: string): Promise<number> => {
    try {
      const saved = JSON.parse(localStorage.getItem(key) ?? 'null') as { token?: unknown; seq?: unknown } | null;
      if (saved?.token === token && Number.isSafeInteger(saved.seq) && (saved.seq as number) >= 0) return saved.seq as number;
    } catch {
      // Unreadable: derived from the local documents below.
    }
    if (fromFirstDocument) return 0;
    const stamped = await collection.find({ selector: { syncSeq: { $exists: true } } } as never).exec();
    return stamped.reduce((max: number, doc: { toJSON(): unknown }) => Math.max(max, (doc.toJSON() as { syncSeq?: number }).syncSeq ?? 0), 0);
  };

  const catchUp = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    active$.next(true);
    try {
      await waitForLeadership();
      const token = await db.storageToken;
      seq ??= await loadCheckpoint(token);
      do {
        again = false;
        const pageAfter = (after: number) => {
          const asked = request(`/api/sync/${remote}/pull?seq=${after}&limit=${pageSize}`) as Promise<PullPage>;
          asked.catch(() => undefined); // awaited below; never an unhandled rejection if the loop ended first
          return asked;
        };
        let next = pageAfter(seq);
        for (;;) {
          const page = await next;
          if (stopped) return;
          // A full page: the next one is asked for now, and arrives while this one is written (a download).
          if (page.documents.length >= pageSize) next = pageAfter(page.checkpoint?.seq ?? seq);
          // The server's copy replaces the local one (orders: the stamped copy; append-only, `_deleted` always false).
          let live = page.documents.filter((doc) => !(hasDeletions && doc._deleted === true)).map(({ _deleted: _d, ...doc }) => doc as never);
          if (join && live.length > 0) {
            const held = await collection.findByIds(live.map((doc: { id: string }) => doc.id)).exec();
            live = live.map((doc: { id: string }) => join(held.get(doc.id)?.toJSON(), doc) as never);
          }
          if (live.length > 0) await collection.bulkUpsert(live);
          if (live.length < page.documents.length) {
            const gone = page.documents.filter((doc) => doc._deleted === true).map((doc) => String(doc.id));
            const present = await collection.findByIds(gone).exec();
            if (present.size > 0) await collection.bulkRemove([...present.keys()]);
          }
          seq = page.checkpoint?.seq ?? seq;
          localStorage.setItem(key, JSON.stringify({ token, seq }));
          const isLast = page.documents.length < pageSize;
          onPage?.(page.documents.length, isLast);
          if (isLast) break;
        }
      } while (again && !stopped);
      resolveFirst();
    } catch {
      onPage?.(0, true);
      // Unreachable or refused (the request has told the badge): try again after a pause; a push answer, the change
      // stream reconnecting or the browser coming back online ask sooner.
      if (!stopped && retryTimer === undefined) {
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          pullNow();
        }, retryMs);
      }
    } finally {
      running = false;
      active$.next(false);
    }
  };
  const pullNow = () => {
    if (!stopped) void catchUp();
  };

  // The change stream is opened by the leader tab only: every tab's streams share the browser's six connections per
  // host, and two tabs each holding the orders' and the catalog's streams left none for the requests (a push or a
  // pull then waited for ever). A follower's pulls wait for leadership anyway.
  let subscription: Subscription | undefined;
  void waitForLeadership().then(() => {
    if (!stopped) subscription = stream$.subscribe(() => pullNow());
  });
  pullNow();
  return {
    pullNow,
    active$,
    firstCatchUp,
    stop: () => {
      stopped = true;
      subscription?.unsubscribe();
      if (retryTimer !== undefined) clearTimeout(retryTimer);
    },
  };
}
