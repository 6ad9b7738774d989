/**
 * The orders' pull (server → register), written by hand rather than as an RxDB replication: it writes the server's
 * stamped copies (`syncSeq`, `updatedAt`) over the local orders as soon as the server has committed them, which is
 * what turns a sale "synced" for the cashier.
 *
 * RxDB's replication holds a replication's pulls back while its upstream is busy, and a pull-only replication's
 * upstream still walks every local document at start and after each RESYNC; with a backlog of 1,000 offline sales the
 * stamped copies came back a median 35 s after the server committed them (test/renderer/sync-backlog.test.ts). This
 * pull reads from its checkpoint only — never the local backlog — one request at a time, again at once when asked
 * meanwhile: after each push answer, on each change-stream message, when back online.
 *
 * The checkpoint (the server's sequence, DESIGN §15) is kept in localStorage beside the database's storage token, so
 * it is only trusted for the database it was taken from; without it (first start, storage cleared, an older version)
 * it is the highest stamp among the local orders.
 */
import { BehaviorSubject, type Observable, type Subscription } from 'rxjs';
import type { RegisterDatabase, StoredOrder } from '../db/database.ts';

/** Orders per pull request (the server answers at most 1,000). */
export const ORDERS_PULL_PAGE = 500;

export interface OrdersPullOptions {
  db: RegisterDatabase;
  merchantId: string;
  /** GETs a same-origin path and answers the parsed JSON body; throws on a network error or an HTTP error status. */
  request: (path: string) => Promise<unknown>;
  /** The orders' change stream: any item (a batch, or RESYNC) asks for a pull. */
  stream$: Observable<unknown>;
  /** Resolves when this tab may replicate (only the leader tab does). */
  waitForLeadership: () => Promise<unknown>;
  /** Pause before pulling again after a failed request, ms. */
  retryMs: number;
}

export interface OrdersPull {
  /** Catch up from the checkpoint now: one pull runs at a time; asked while it runs, it runs once more after. */
  pullNow(): void;
  /** True while a catch-up runs. */
  active$: BehaviorSubject<boolean>;
  /** Resolves after the first catch-up that reached the server's last order. */
  firstCatchUp: Promise<void>;
  stop(): void;
}

interface PullPage {
  documents: (Record<string, unknown> & { _deleted?: boolean })[];
  checkpoint: { seq: number } | null;
}

/** Starts pulling the merchant's orders into `db.orders`; see the file's comment. */
export function startOrdersPull({ db, merchantId, request, stream$, waitForLeadership, retryMs }: OrdersPullOptions): OrdersPull {
  const key = `register.ordersPull:${merchantId}`;
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
      // Unreadable: derived from the local orders below.
    }
    const stamped = await db.orders.find({ selector: { syncSeq: { $exists: true } } }).exec();
    return stamped.reduce((max, doc) => Math.max(max, doc.syncSeq ?? 0), 0);
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
        for (;;) {
          const page = (await request(`/api/sync/orders/pull?seq=${seq}&limit=${ORDERS_PULL_PAGE}`)) as PullPage;
          if (stopped) return;
          if (page.documents.length > 0) {
            // Orders are append-only on the server: `_deleted` is always false; the stamped copy replaces the local one.
            await db.orders.bulkUpsert(page.documents.map(({ _deleted: _d, ...doc }) => doc as unknown as StoredOrder));
          }
          seq = page.checkpoint?.seq ?? seq;
          localStorage.setItem(key, JSON.stringify({ token, seq }));
          if (page.documents.length < ORDERS_PULL_PAGE) break;
        }
      } while (again && !stopped);
      resolveFirst();
    } catch {
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

  const subscription: Subscription = stream$.subscribe(() => pullNow());
  pullNow();
  return {
    pullNow,
    active$,
    firstCatchUp,
    stop: () => {
      stopped = true;
      subscription.unsubscribe();
      if (retryTimer !== undefined) clearTimeout(retryTimer);
    },
  };
}
