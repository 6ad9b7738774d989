/**
 * Offline card payments on the register (store and forward): the store's limits as last pulled (kept in
 * localStorage so they hold offline; the defaults until the first pull), the offline card payments this register holds
 * that the server has not received yet (local orders without a `syncSeq`), and what is left to approve offline — the
 * figure the cashier sees in the card tender while offline.
 */
import { useEffect, useMemo, useState } from 'react';
import {
  DEFAULT_OFFLINE_CARD_LIMITS,
  offlineCardLimitsSchema,
  offlineLimitLeftCents,
  type OfflineCardLimits,
  type Order,
} from '../../../../core/index.ts';
import type { RegisterDatabase } from '../db/database.ts';
import { REGISTER_SCHEMA_VERSION, type RegisterSession } from '../../common/session.ts';
import type { SyncEngine } from '../sync/replication.ts';
import { useObservable } from '../../ui/hooks.ts';

const LIMITS_KEY = 'register.offlineCardLimits.v1';

/** The limits pulled last (the defaults when never pulled or unreadable). */
export function loadOfflineCardLimits(): OfflineCardLimits {
  try {
    const parsed = offlineCardLimitsSchema.safeParse(JSON.parse(localStorage.getItem(LIMITS_KEY) ?? 'null'));
    return parsed.success ? parsed.data : { ...DEFAULT_OFFLINE_CARD_LIMITS };
  } catch {
    return { ...DEFAULT_OFFLINE_CARD_LIMITS };
  }
}

/** Pulls the store's limits (`GET /api/pos/offline-cards/limits`) and keeps them; resolves with the old ones when unreachable. */
export async function refreshOfflineCardLimits(session: RegisterSession): Promise<OfflineCardLimits> {
  try {
    const response = await fetch('/api/pos/offline-cards/limits', {
      headers: { authorization: `Bearer ${session.registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
    });
    if (!response.ok) return loadOfflineCardLimits();
    const parsed = offlineCardLimitsSchema.safeParse(await response.json());
    if (!parsed.success) return loadOfflineCardLimits();
    localStorage.setItem(LIMITS_KEY, JSON.stringify(parsed.data));
    return parsed.data;
  } catch {
    return loadOfflineCardLimits();
  }
}

/** Minor units of offline card tenders in `orders` (the register's orders the server has not stamped yet). */
export function outstandingOfflineCents(orders: readonly Pick<Order, 'tenders'>[]): number {
  return orders.reduce((sum, order) => sum + order.tenders.reduce((s, t) => s + (t.offline ? t.amountCents : 0), 0), 0);
}

/** What the card tender needs to approve offline. */
export interface OfflineCardState {
  /** The register cannot reach the server: card sales go to the terminal marked offline. */
  isOffline: boolean;
  limits: OfflineCardLimits;
  /** Offline card payments held on this register, not yet received by the server (minor units). */
  outstandingCents: number;
  /** The largest card payment that may be approved offline now (minor units). */
  limitLeftCents: number;
}

/** The register's offline card state, live: reachability from the sync engine, outstanding from the local orders. */
export function useOfflineCards(db: RegisterDatabase, session: RegisterSession, sync: SyncEngine): OfflineCardState {
  const status = useObservable(sync.status$, sync.status$.value);
  const isOffline = !status.isOnline;
  const [limits, setLimits] = useState(loadOfflineCardLimits);
  useEffect(() => {
    if (!isOffline) void refreshOfflineCardLimits(session).then(setLimits);
  }, [isOffline, session]);
  const pending$ = useMemo(() => db.orders.find({ selector: { syncSeq: { $exists: false }, rejection: { $exists: false } } }).$, [db]);
  const pending = useObservable(pending$, []);
  const outstandingCents = outstandingOfflineCents(pending.map((d) => d.toJSON() as unknown as Order));
  return { isOffline, limits, outstandingCents, limitLeftCents: offlineLimitLeftCents(limits, outstandingCents) };
}
