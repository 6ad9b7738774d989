import type { EventType, WebhookEvent } from '../../../core/index.ts';
import { callerOf, type Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { lockMerchant, type Queryable } from '../platform/db/db.ts';
import { appendAudit, flushJournalHashes, markMutation, type AuditEntry } from './audit.ts';
import { emitEvent } from './outbox.ts';

/** A replicated collection whose registers must hear of a committed write (the change feed's channel names). */
export type ChangedCollection =
  'catalog-items' | 'tax-rates' | 'orders' | 'journal-transactions' | 'shifts' | 'cash-movements' | 'shift-closeouts' | 'returns' | 'customers';

/** Who makes a change: the merchant whose books it touches and the actor recorded in the audit trail. */
export interface MutationActor {
  merchantId: string;
  /** `staff:<id>`, `app:<id>`, `register:<id>` or `system` (platform/auth/identity.ts `callerOf`). */
  actor: string;
  registerId?: string | null;
  appId?: string | null;
}

/**
 * The {@link MutationActor} of an authenticated caller: staff, app (the app's id is kept on its audit entries) or
 * register (its id kept likewise).
 */
export function actorOf(principal: Principal): MutationActor {
  if (principal.kind === 'app') return { merchantId: principal.merchantId, actor: callerOf(principal), appId: principal.appId };
  if (principal.kind === 'register') return { merchantId: principal.merchantId, actor: callerOf(principal), registerId: principal.registerId };
  return { merchantId: principal.merchantId, actor: callerOf(principal) };
}

/**
 * The {@link MutationActor} of an audit actor string (`staff:<id>`, `app:<id>` — its app kept —, `register:<id>` — its
 * register kept — or `system`), for code that is handed the actor as a string.
 */
export function actorFromString(merchantId: string, actor: string): MutationActor {
  return {
    merchantId,
    actor,
    ...(actor.startsWith('app:') ? { appId: actor.slice(4) } : {}),
    ...(actor.startsWith('register:') ? { registerId: actor.slice(9) } : {}),
  };
}

/**
 * What a write sees inside {@link mutation}: the open transaction with the merchant's write lock held, the time of
 * the change (one `now` for every row it writes) and the concerns every write shares — the audit entry, the outbox
 * event, the change-feed notice — so no module repeats them by hand.
 */
export interface Mutation extends MutationActor {
  tx: Queryable;
  now: Date;
  /**
   * Appends one hash-chained audit entry for this change; merchant, actor, register, app and time are this
   * mutation's unless given. Returns the entry's sequence number.
   */
  audit(entry: Omit<AuditEntry, 'merchantId' | 'actor' | 'occurredAt'> & Partial<Pick<AuditEntry, 'actor' | 'occurredAt'>>): Promise<number>;
  /** Writes one webhook event to the transactional outbox: it exists exactly when this change commits. */
  emit(type: EventType, object: Record<string, unknown>): Promise<WebhookEvent>;
  /** Notes that `collection` changed: its registers are told after the commit (never for a rolled-back change). */
  changed(...collections: ChangedCollection[]): void;
}

/**
 * The one way to write (docs/architecture.md, "kernel/"): opens a transaction, takes the merchant's write lock (so the audit
 * chain has one tail and sync sequences follow commit order), runs `fn` with a {@link Mutation}, commits, and only
 * then notifies the change feed of the collections `fn` marked as changed. Anything `fn` throws rolls back every row
 * it wrote — business record, postings, audit entry and outbox event alike — and notifies nobody.
 *
 * @param app the database, the clock and the change feed
 * @param who the merchant and the actor of the change
 * @param fn the change; its result is returned after the commit
 * @throws whatever `fn` throws (nothing is written then)
 */
export async function mutation<T>(app: Pick<AppContext, 'db' | 'clock' | 'feed'>, who: MutationActor, fn: (m: Mutation) => Promise<T>): Promise<T> {
  const changed = new Set<ChangedCollection>();
  const now = app.clock();
  // The merchant's lock is taken as the transaction begins (one round trip with BEGIN on PostgreSQL); openMutation's
  // lockMerchant then finds it held.
  const result = await app.db.transaction(
    async (tx) => {
      const value = await fn(await openMutation(tx, who, now, changed));
      await flushJournalHashes(tx, who.merchantId);
      return value;
    },
    { lockMerchant: who.merchantId },
  );
  app.feed.notify(who.merchantId, ...changed);
  return result;
}

/**
 * A {@link Mutation} over a transaction someone else opened and will commit (a workflow step, a housekeeping tick).
 * Takes the merchant's lock; the caller notifies `changed` after its commit, and calls kernel/audit.ts
 * `flushJournalHashes` before it when the change may post journal transactions no audit entry names.
 */
export async function openMutation(tx: Queryable, who: MutationActor, now: Date, changed: Set<ChangedCollection> = new Set()): Promise<Mutation> {
  await lockMerchant(tx, who.merchantId);
  // Journal transactions posted from here on wait for the audit entry of this change to carry their hashes.
  markMutation(tx, who.merchantId, { actor: who.actor, registerId: who.registerId ?? null, appId: who.appId ?? null, occurredAt: now });
  return {
    ...who,
    tx,
    now,
    audit: (entry) =>
      appendAudit(tx, {
        registerId: who.registerId ?? null,
        appId: who.appId ?? null,
        ...entry,
        merchantId: who.merchantId,
        actor: entry.actor ?? who.actor,
        occurredAt: entry.occurredAt ?? now,
      }),
    emit: (type, object) => emitEvent(tx, { merchantId: who.merchantId, type, object, occurredAt: now }),
    changed: (...collections) => {
      for (const c of collections) changed.add(c);
    },
  };
}
