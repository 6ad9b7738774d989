import type { EventType, JournalTransaction, WebhookEvent } from '../../../core/index.ts';
import { callerOf, type Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { lockMerchant, type Queryable } from '../platform/db/db.ts';
import { appendAudit, journalPostedEntry, type AuditEntry } from './audit.ts';
import { postJournalTransaction, postJournalTransactions, type LedgerRead, type PostOutcome, type PostResult } from './ledger.ts';
import { emitEvent } from './outbox.ts';

/** A replicated collection whose registers must hear of a committed write (the change feed's channel names). */
export type ChangedCollection =
  | 'catalog-items'
  | 'tax-rates'
  | 'orders'
  | 'journal-transactions'
  | 'shifts'
  | 'cash-movements'
  | 'shift-closeouts'
  | 'returns'
  | 'customers'
  | 'checks'
  | 'check-lines'
  | 'check-payments';

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
   * mutation's unless given. The entry records the journal transaction it names in `data.journalTransactionId` when
   * this mutation posted it and no entry recorded it yet (unless it gives `journalHashes` itself: see
   * {@link Mutation.journalHashesFor}). Returns the entry's sequence number.
   */
  audit(entry: Omit<AuditEntry, 'merchantId' | 'actor' | 'occurredAt'> & Partial<Pick<AuditEntry, 'actor' | 'occurredAt'>>): Promise<number>;
  /**
   * Posts a journal transaction of this merchant (kernel/ledger.ts `postJournalTransaction`); its hash, when created,
   * waits in this mutation for the audit entry that names it.
   */
  postJournalTransaction(jt: JournalTransaction): Promise<PostResult>;
  /** Posts many (kernel/ledger.ts `postJournalTransactions`); the created ones' hashes wait as {@link Mutation.postJournalTransaction}'s. */
  postJournalTransactions(jts: readonly JournalTransaction[], options?: { read?: LedgerRead; tamperEvidence?: boolean }): Promise<PostOutcome[]>;
  /**
   * The `journalHashes` of an entry written by hand for this change (kernel/audit.ts `appendAudit`/`appendAuditBatch`
   * on `tx`): its own when given, else the hash of the journal transaction its `data.journalTransactionId` names when
   * this mutation posted it and no entry recorded it yet (it is recorded by this entry from then on); else none.
   * Call it once per entry, in the order the entries are written.
   */
  journalHashesFor(entry: Pick<AuditEntry, 'data' | 'journalHashes'>): Record<string, string> | undefined;
  /**
   * Records the journal transactions this mutation posted and no audit entry named, in one `journal_transaction.posted`
   * entry signed as this mutation; no-op when none are left. {@link mutation} calls it before the commit; users of
   * {@link openMutation} whose change may leave some call it before theirs.
   */
  flushJournalHashes(): Promise<void>;
  /** `SAVEPOINT name` on `tx`; the journal hashes this mutation holds for audit entries not yet written are noted with it. */
  savepoint(name: string): Promise<void>;
  /**
   * `ROLLBACK TO SAVEPOINT name` on `tx` (the newest savepoint of that name); the journal hashes this mutation holds
   * for audit entries not yet written become again those it held at that savepoint: a hash posted inside the savepoint
   * is dropped with its journal transaction, one posted before it is kept — also when an audit entry inside the
   * savepoint had recorded it, since that entry is rolled back too.
   */
  rollbackToSavepoint(name: string): Promise<void>;
  /** `RELEASE SAVEPOINT name` on `tx` (the newest of that name, and those opened after it): its work stays. */
  releaseSavepoint(name: string): Promise<void>;
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
      const m = await openMutation(tx, who, now, changed);
      const value = await fn(m);
      await m.flushJournalHashes();
      return value;
    },
    { lockMerchant: who.merchantId },
  );
  app.feed.notify(who.merchantId, ...changed);
  return result;
}

/**
 * A {@link Mutation} over a transaction someone else opened and will commit (a workflow step, a housekeeping tick).
 * Takes the merchant's lock; the caller notifies `changed` after its commit, and calls the mutation's
 * `flushJournalHashes` before it when the change may post journal transactions no audit entry names.
 */
export async function openMutation(tx: Queryable, who: MutationActor, now: Date, changed: Set<ChangedCollection> = new Set()): Promise<Mutation> {
  await lockMerchant(tx, who.merchantId);
  // Hashes of the journal transactions this mutation posted that no audit entry has recorded yet, by id.
  const pending = new Map<string, string>();
  // Open savepoints, oldest first, each with the pending hashes as they were when it was set.
  const savepoints: { name: string; pending: Map<string, string> }[] = [];
  const newestSavepoint = (name: string): number => {
    for (let i = savepoints.length - 1; i >= 0; i--) if (savepoints[i]!.name === name) return i;
    throw new Error(`no savepoint ${name} is open in this mutation`);
  };
  const journalHashesFor: Mutation['journalHashesFor'] = (entry) => {
    if (entry.journalHashes) return entry.journalHashes;
    const named = entry.data?.journalTransactionId;
    const hash = typeof named === 'string' ? pending.get(named) : undefined;
    if (hash === undefined) return undefined;
    pending.delete(named as string);
    return { [named as string]: hash };
  };
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
        journalHashes: journalHashesFor(entry),
      }),
    postJournalTransaction: async (jt) => {
      const result = await postJournalTransaction(tx, who.merchantId, jt, { hashes: 'caller' });
      if (result.created) pending.set(jt.id, result.hash);
      return result;
    },
    postJournalTransactions: async (jts, options = {}) => {
      const outcomes = await postJournalTransactions(tx, who.merchantId, jts, { ...options, hashes: 'caller' });
      jts.forEach((jt, i) => {
        const outcome = outcomes[i]!;
        if (outcome.status === 'created' && outcome.hash !== undefined) pending.set(jt.id, outcome.hash);
      });
      return outcomes;
    },
    journalHashesFor,
    flushJournalHashes: async () => {
      if (pending.size === 0) return;
      const hashes = Object.fromEntries(pending);
      pending.clear();
      await appendAudit(tx, {
        ...journalPostedEntry(who.merchantId, hashes),
        actor: who.actor,
        registerId: who.registerId ?? null,
        appId: who.appId ?? null,
        occurredAt: now,
      });
    },
    savepoint: async (name) => {
      await tx.query(`SAVEPOINT ${name}`);
      savepoints.push({ name, pending: new Map(pending) });
    },
    rollbackToSavepoint: async (name) => {
      const at = newestSavepoint(name);
      await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
      // PostgreSQL keeps the savepoint rolled back to and destroys the ones set after it.
      savepoints.length = at + 1;
      pending.clear();
      for (const [id, hash] of savepoints[at]!.pending) pending.set(id, hash);
    },
    releaseSavepoint: async (name) => {
      const at = newestSavepoint(name);
      await tx.query(`RELEASE SAVEPOINT ${name}`);
      savepoints.length = at;
    },
    emit: (type, object) => emitEvent(tx, { merchantId: who.merchantId, type, object, occurredAt: now }),
    changed: (...collections) => {
      for (const c of collections) changed.add(c);
    },
  };
}
