/**
 * What the register still has to get onto the server (the header's "unsynced" count): every
 * record kind it authors and pushes — sales (orders, which carry their offline card payments, `pending_forward` until
 * the server forwards them), returns and exchanges (their refunds), shifts, cash movements (paid in / out, no sale), shift closeouts
 * and customers created here. A record is unsynced
 * until the server's stamped copy (`syncSeq`) has been pulled back; one the server or this register refused
 * (`rejection`) is not waiting any more and is shown apart.
 */
import { combineLatest, map, type Observable } from 'rxjs';
import type { RegisterDatabase } from '../db/database.ts';

/** The local collections the register pushes, in the order the header's detail lists them. */
export const UNSYNCED_KINDS = ['orders', 'returns', 'shifts', 'cash_movements', 'closeouts', 'customers'] as const;
export type UnsyncedKind = (typeof UNSYNCED_KINDS)[number];

/** Unsynced records per kind and in all. */
export interface UnsyncedCounts {
  total: number;
  byKind: Record<UnsyncedKind, number>;
}

const PENDING = { syncSeq: { $exists: false }, rejection: { $exists: false } };

/** Live counts of unsynced records (see the module comment); emits on every change of any of the collections. */
export function unsyncedCounts$(db: RegisterDatabase): Observable<UnsyncedCounts> {
  return combineLatest(
    UNSYNCED_KINDS.map((kind) => (db[kind].find({ selector: PENDING } as never).$ as Observable<unknown[]>).pipe(map((docs) => docs.length))),
  ).pipe(
    map((counts) => {
      const byKind = Object.fromEntries(UNSYNCED_KINDS.map((kind, i) => [kind, counts[i]!])) as Record<UnsyncedKind, number>;
      return { total: counts.reduce((a, b) => a + b, 0), byKind };
    }),
  );
}

/** The same counts once, now. */
export async function unsyncedCounts(db: RegisterDatabase): Promise<UnsyncedCounts> {
  const counts = await Promise.all(
    UNSYNCED_KINDS.map((kind) => (db[kind].find({ selector: PENDING } as never).exec() as Promise<unknown[]>).then((docs) => docs.length)),
  );
  const byKind = Object.fromEntries(UNSYNCED_KINDS.map((kind, i) => [kind, counts[i]!])) as Record<UnsyncedKind, number>;
  return { total: counts.reduce((a, b) => a + b, 0), byKind };
}
