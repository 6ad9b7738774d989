/**
 * What the header shows at all times: online/offline, unsynced records, last sync time — and a single
 * badge state that is `synced` only when the server is reachable, replication has caught up and nothing is waiting.
 * Reachability is the change streams' state (EventSource open / error) and the outcome of the last request, never
 * the outcome of the last push alone.
 */

export type BadgeState = 'synced' | 'syncing' | 'offline' | 'error';

export interface SyncStatus {
  /** `navigator.onLine` and the server is reachable: its change streams are open and the last request got an answer. */
  isOnline: boolean;
  /** The browser is online but the server does not answer (a change stream failed, or a request could not connect). */
  isServerUnreachable: boolean;
  /** This tab runs the replication (one leader tab per register). */
  isLeader: boolean;
  /** Every replication finished its initial round and no round is running or waiting to retry. */
  isInSync: boolean;
  /** The last HTTP error of a sync request, cleared by the next success. */
  error: string | undefined;
  /** The server refused this register's schema version (HTTP 426). */
  isOutdated: boolean;
  /** ISO time of the last pull/push round that finished without error. */
  lastSyncAt: string | undefined;
  /** Orders authored here whose server copy has not arrived yet (journal transactions are derived by the server). */
  unsyncedCount: number;
  /** Orders the server quarantined (returned with `rejection`). */
  rejectedCount: number;
  /** Orders this register refused to send (too large for any push; kept locally, `rejection.by: 'register'`). */
  refusedCount: number;
  /** Catalog items received by the catalog's pull round running now (0 when none runs): a download's progress. */
  catalogReceived: number;
}

export const initialSyncStatus: SyncStatus = {
  isOnline: typeof navigator === 'undefined' ? true : navigator.onLine,
  isServerUnreachable: false,
  isLeader: false,
  isInSync: false,
  error: undefined,
  isOutdated: false,
  lastSyncAt: undefined,
  unsyncedCount: 0,
  rejectedCount: 0,
  refusedCount: 0,
  catalogReceived: 0,
};

export function badgeState(status: SyncStatus): BadgeState {
  if (!status.isOnline) return 'offline';
  if (status.error !== undefined || status.isOutdated) return 'error';
  // A follower tab does not replicate: it trusts the shared database's unsynced count.
  const isCaughtUp = status.isLeader ? status.isInSync : true;
  if (isCaughtUp && status.unsyncedCount === 0) return 'synced';
  return 'syncing';
}
