/**
 * The register sale: sales a register made — offline or not — arrive pushed as orders with their
 * tenders, and the server stores each one with everything it implies, in the caller's transaction:
 *
 *   1. validate: the document can be stored, has the core order shape, a plausible time, the store's currency, a
 *      register of this store with its number, an unused receipt number, a tip within the store's bound, a staff
 *      member of the store, and on a line whose price was overridden a manager or owner as approver (core
 *      `priceOverrideProblem`);
 *   2. price-check: the totals add up and the tenders pay them (core `checkRegisterSale`), which derives the sale's
 *      journal transaction — the server's, never one a register sends;
 *   3. store the orders, post their derived journal transactions, take their stock off, audit them (`order.stored`)
 *      and emit `order.created` / `order.paid`; forward the cards a terminal approved offline (offline-card-forward.ts).
 *
 * Every step works on the whole push at once (a fixed number of statements per push, not per sale). Any failure of
 * one document — a failed check, an exception while pricing it, a statement the database refuses — makes it
 * `rejected` with its reason and never fails the others. The checked sales are written in one of two {@link WriteMode}s:
 * `optimistic` (the first attempt: the whole batch, no savepoint, the ledger's balance checked at COMMIT; should the
 * database refuse anything, the attempt throws {@link OptimisticWriteRefused} and the caller rolls the whole
 * transaction back and pushes again `isolating`), or `isolating` (a failing batch write is rolled back to a savepoint
 * and written again in halves, each in its own savepoint, down to the sale the database refuses).
 *
 *     storeRegisterSales(m, documents, mode) → SaleOutcome[]   (one per document, in order)
 */
import { canonicalJson, checkRegisterSale, DEFAULT_TIP_LIMIT, orderSchema, priceOverrideProblem, tenderAccount, tipLimitProblem, type JournalTransaction, type Order, type RailConfig } from '../../../core/index.ts';
import type { z } from 'zod';
import { appendAuditBatch, auditReservationPart, type AuditReservation } from '../kernel/audit.ts';
import type { Mutation } from '../kernel/mutation.ts';
import { emitEvents } from '../kernel/outbox.ts';
import { ledgerReadPart, postJournalTransactions, type LedgerRead } from '../kernel/ledger.ts';
import { restampStockOnHand } from '../modules/catalog/index.ts';
import { recordSalesStock, salesStockReadPart, ensureDefaultLocation, type VariationsOnHand } from '../modules/inventory/index.ts';
import { pushContextPart, receiptKey, registerOrderEvents, insertOrders, type PushContext, type StoredRegisterOrder } from '../modules/orders/index.ts';
import { findUnstorable, isStorableTimestamp } from '../platform/http/input-guard.ts';
import { forwardOfflineCardPayments } from './offline-card-forward.ts';
import { resolveCustomerAliases } from '../modules/customers/index.ts';
import { merchantRailsPart, recordPendingSettlements } from '../modules/payments/index.ts';
import { readTogether } from '../platform/db/db.ts';

/** The clearing account of a card (or wallet) tapped on a register's terminal. */
const CARD_PRESENT_ACCOUNT = 'card_clearing:card_present';

/** What became of one pushed document. */
export type SaleOutcome =
  /** Stored now, with its journal transaction, stock movements, audit row and events. */
  | { kind: 'stored' }
  /** Already stored with this very content: nothing written. */
  | { kind: 'unchanged' }
  /** Already stored with other content: the stored one (the master state) wins; nothing written. */
  | { kind: 'master'; stored: StoredRegisterOrder }
  /** Refused: `reason` says why (the caller quarantines it); nothing of it written. */
  | { kind: 'rejected'; reason: string; registerId: string | null };

/**
 * The one reason given for a sale whose order id or journal transaction id is taken by a document this push cannot
 * overwrite — another store's order, or a journal transaction (this store's or another's) with other content. The
 * same words whoever holds the id, so a push never learns that an id exists in another store.
 */
export function idConflictReason(order: Pick<Order, 'id' | 'journalTransactionId'>): string {
  return `id conflict: order ${order.id} or its journal transaction ${order.journalTransactionId} is taken by another document; sell it again under new ids`;
}

/**
 * How {@link storeRegisterSales} writes the sales that passed every check. `optimistic`: all in one go, without a
 * savepoint (a subtransaction and two round trips fewer per push), the balance of the ledger checked by its deferred
 * constraint triggers at COMMIT as for any other write; a refusal by the database — at a statement or at COMMIT — fails
 * the attempt, and the caller writes the push again `isolating`. `isolating`: each batch in a savepoint with the balance
 * checked inside it, a refused batch written again in halves down to the sale the database refuses (quarantined).
 */
export type WriteMode = 'optimistic' | 'isolating';

/**
 * Thrown by an `optimistic` {@link storeRegisterSales} when the database refuses a statement of the batch write: the
 * transaction is aborted, so the caller rolls it back and writes the push again `isolating`. `cause` is the refusal.
 */
export class OptimisticWriteRefused extends Error {
  override name = 'OptimisticWriteRefused';
  constructor(cause: unknown) {
    super(`the database refused the batch write: ${messageOf(cause)}`, { cause });
  }
}

/** A sale that passed every check and waits to be written. */
interface CheckedSale {
  index: number;
  order: Order;
  /** Null for a sale that moves no money (core isZeroValueSale): nothing to post. */
  journalTransaction: JournalTransaction | null;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`)
    .join('; ');
}

const messageOf = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 500);

/**
 * Stores the register sales among `documents` (core order shapes, client fields already stripped) for `m`'s merchant,
 * in `m.tx`. Marks `orders`, `journal-transactions` and `catalog-items` changed as they are written.
 * @returns one outcome per document, in the order given; never throws for a document's content
 */
export async function storeRegisterSales(m: Mutation, pushed: readonly Record<string, unknown>[], mode: WriteMode = 'isolating'): Promise<SaleOutcome[]> {
  const documents = await withSurvivingCustomers(m, pushed);
  const outcomes: SaleOutcome[] = new Array(documents.length);
  const stockMoved = new Set<string>();
  // Events of the sales written, emitted once at the end with the catalog's (a failed batch's are never collected).
  const events: Parameters<typeof emitEvents>[1][number][] = [];
  // One id twice in a push: the later copy is looked at once the earlier one is written (as if pushed after it).
  let pending = documents.map((_, i) => i);
  while (pending.length > 0) {
    const seen = new Set<string>();
    const round: number[] = [];
    const later: number[] = [];
    for (const i of pending) {
      const id = documents[i]!.id;
      if (typeof id === 'string' && seen.has(id)) later.push(i);
      else {
        if (typeof id === 'string') seen.add(id);
        round.push(i);
      }
    }
    await storeRound(m, documents, round, outcomes, stockMoved, events, mode);
    pending = later;
  }
  // Each item sold in this push gets one new stamp (registers pull its stockOnHand) and one catalog.updated event.
  if (stockMoved.size > 0) {
    const location = await ensureDefaultLocation(m.tx, m.merchantId);
    events.push(...(await restampStockOnHand(m.tx, m.merchantId, [...stockMoved], location.id, m.now)));
    m.changed('catalog-items');
  }
  // The push's events — its orders' `order.created`/`order.paid`, then the items' `catalog.updated` — in one INSERT.
  await emitEvents(m.tx, events);
  return outcomes;
}

/**
 * The documents with every `customerId` that names a register customer merged into another
 * (workflows/register-customer.ts) replaced by the surviving customer's id: a sale made offline for a customer who
 * turned out to exist already is stored for that customer (and a second push of it compares equal to what is stored).
 */
async function withSurvivingCustomers(m: Mutation, documents: readonly Record<string, unknown>[]): Promise<readonly Record<string, unknown>[]> {
  const named = documents.map((d) => d.customerId).filter((id): id is string => typeof id === 'string' && id.startsWith('cus_') && id.length <= 64);
  if (named.length === 0) return documents;
  const survivors = await resolveCustomerAliases(m.tx, m.merchantId, named);
  if (survivors.size === 0) return documents;
  return documents.map((d) => (typeof d.customerId === 'string' && survivors.has(d.customerId) ? { ...d, customerId: survivors.get(d.customerId)! } : d));
}

/**
 * What can be told of a document on its own, before anything is read (see {@link checkAlone}): each result is answered
 * at its turn in {@link storeRound}, so a document is refused for the same first reason as when every check ran in order.
 */
interface AloneChecks {
  /** Why it cannot be stored at all (NUL, lone surrogate, nesting): refused first. */
  unstorable?: string;
  /** The order schema's verdict. */
  parsed?: ReturnType<typeof orderSchema.safeParse>;
  /** Its `createdAt` is not a plausible time. */
  implausible?: boolean;
  /** The price check's verdict (core `checkRegisterSale`), with the journal transaction it derives. */
  checked?: ReturnType<typeof checkRegisterSale>;
  /** What a step threw, and which: it is answered where that step stands in the order of checks. */
  thrown?: { at: 'start' | 'parse' | 'check'; error: unknown };
}

/** The checks of one document that need nothing from the database: storable, schema, plausible time, prices. */
function checkAlone(doc: Record<string, unknown>): AloneChecks {
  let at: 'start' | 'parse' | 'check' = 'start';
  const out: AloneChecks = {};
  try {
    const unstorable = findUnstorable(doc);
    if (unstorable) return { unstorable: `invalid order: ${unstorable.path} ${unstorable.message}` };
    at = 'parse';
    out.parsed = orderSchema.safeParse(doc);
    if (!out.parsed.success) return out;
    const order = out.parsed.data;
    if (!isStorableTimestamp(order.createdAt) || Number.isNaN(Date.parse(order.createdAt))) return { ...out, implausible: true };
    at = 'check';
    out.checked = checkRegisterSale(order);
    return out;
  } catch (error) {
    return { ...out, thrown: { at, error } };
  }
}

/** What the writers read before writing, read with the push's context (see {@link writeSales}). */
interface BeforeWrite {
  ledger: LedgerRead;
  stock: VariationsOnHand;
  audit: AuditReservation;
  rails: RailConfig[];
}

/**
 * What a round reads, in one statement: the push's context (the store's currency and tip bound, orders already stored
 * under these ids, the registers, staff members and receipt numbers named — from the documents as pushed: reading a
 * few rows a refused document names costs nothing, a second round trip would), and, for the sales that passed their
 * own checks, what their writes read first (see {@link writeSales}). The staff members pushed sales name
 * must be this store's; price overrides' approvers too.
 */
async function readRound(m: Mutation, named: readonly Record<string, unknown>[], candidates: readonly CheckedSale[]): Promise<{ context: PushContext; before: BeforeWrite | null }> {
  const text = (v: unknown): v is string => typeof v === 'string' && v.length <= 200 && findUnstorable(v) === undefined;
  const approvers = named.flatMap((d) => (Array.isArray(d.lines) ? d.lines.map((l: unknown) => (l as { priceOverride?: { approvedBy?: unknown } } | null)?.priceOverride?.approvedBy) : []));
  const contextPart = pushContextPart(m.merchantId, {
    ids: named.map((d) => d.id).filter(text),
    registerIds: named.map((d) => d.registerId).filter(text),
    staffIds: [...named.map((d) => d.staffId), ...approvers].filter(text),
    receipts: named.flatMap((d) => (text(d.registerId) && text(d.receiptNumber) ? [{ registerId: d.registerId, receiptNumber: d.receiptNumber }] : [])),
  });
  if (candidates.length === 0) {
    const [context] = await readTogether(m.tx, 'register_sales_context', [contextPart]);
    return { context, before: null };
  }
  const [context, ledger, stock, audit, rails] = await readTogether(m.tx, 'register_sales_context_before_write', [contextPart, ...beforeWriteParts(m, candidates)] as const);
  return { context, before: { ledger, stock, audit, rails } };
}

/**
 * The reads of {@link writeSales} for `sales` (or more sales than it writes): the ledger's stored ids and accounts, the
 * variations and units on hand, the audit chain's head and numbers for one row per sale and an oversell's row (a
 * number left unused is a gap in seq, never a break in the chain, which is linked by hash in seq order), the rails.
 */
function beforeWriteParts(m: Mutation, sales: readonly CheckedSale[]) {
  return [
    ledgerReadPart(m.merchantId, sales.flatMap((s) => (s.journalTransaction ? [s.journalTransaction] : []))),
    salesStockReadPart(m.merchantId, sales.map((s) => s.order)),
    auditReservationPart(m.merchantId, sales.length + 1),
    merchantRailsPart(m.merchantId),
  ] as const;
}

/** Checks and writes the documents at `indexes` (distinct ids), filling their `outcomes`. */
async function storeRound(
  m: Mutation,
  documents: readonly Record<string, unknown>[],
  indexes: readonly number[],
  outcomes: SaleOutcome[],
  stockMoved: Set<string>,
  events: Parameters<typeof emitEvents>[1][number][],
  mode: WriteMode,
): Promise<void> {
  const reject = (i: number, reason: string, registerId: unknown) => {
    outcomes[i] = { kind: 'rejected', reason, registerId: typeof registerId === 'string' ? registerId.slice(0, 64) : null };
  };
  // 1. Each document's own checks (storable, schema, time, prices: they need nothing read), then one read for the
  // round: the context of the checks below and, for the sales that passed their own, what the writes read first.
  const alone = new Map(indexes.map((i) => [i, checkAlone(documents[i]!)]));
  const candidates = indexes.flatMap((i): CheckedSale[] => {
    const a = alone.get(i)!;
    return a.parsed?.success && a.checked && !a.checked.problems && !a.thrown ? [{ index: i, order: a.parsed.data, journalTransaction: a.checked.journalTransaction }] : [];
  });
  const { context, before } = await readRound(m, indexes.map((i) => documents[i]!), candidates);
  const { stored, registers, usedReceipts: used, staff } = context;
  const currency = context.currency ?? 'USD';
  const tipLimit = context.tipLimit ?? DEFAULT_TIP_LIMIT;

  // 2. Each document's verdict, the checks in their order (a document's own and the context's); anything a check threw
  // rejects that document alone, at the check that threw.
  const parsed: CheckedSale[] = [];
  for (const i of indexes) {
    const doc = documents[i]!;
    const a = alone.get(i)!;
    try {
      if (a.thrown?.at === 'start') throw a.thrown.error;
      if (a.unstorable) {
        reject(i, a.unstorable, null);
        continue;
      }
      const master = typeof doc.id === 'string' ? stored.get(doc.id) : undefined;
      // Another store's order: checked like a new sale, then refused as an id conflict (below), never answered apart.
      if (master && master.merchantId === m.merchantId) {
        outcomes[i] = canonicalJson(master.data) === canonicalJson(doc) ? { kind: 'unchanged' } : { kind: 'master', stored: master };
        continue;
      }
      if (a.thrown?.at === 'parse') throw a.thrown.error;
      const result = a.parsed!;
      if (!result.success) {
        reject(i, `invalid order: ${describeIssues(result.error)}`, doc.registerId);
        continue;
      }
      const order = result.data;
      if (a.implausible) {
        reject(i, 'invalid order: createdAt is not a plausible time', order.registerId);
        continue;
      }
      if (order.currency !== currency) {
        reject(i, `currency ${order.currency} is not the store's currency ${currency}`, order.registerId);
        continue;
      }
      const tipProblem = tipLimitProblem(order.totalCents, order.tipCents, tipLimit);
      if (tipProblem) {
        reject(i, `tip out of bounds: ${tipProblem}`, order.registerId);
        continue;
      }
      if (a.thrown?.at === 'check') throw a.thrown.error;
      const checked = a.checked!;
      if (checked.problems) {
        reject(i, `inconsistent sale: ${checked.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, order.registerId);
        continue;
      }
      parsed.push({ index: i, order, journalTransaction: checked.journalTransaction });
    } catch (err) {
      reject(i, `inconsistent sale: it cannot be priced (${messageOf(err)})`, doc.registerId);
    }
  }

  const accepted: CheckedSale[] = [];
  for (const sale of parsed) {
    const { order } = sale;
    const number = registers.get(order.registerId);
    const overrideProblem = priceOverrideProblem(order, staff);
    if (number === undefined) reject(sale.index, `register ${order.registerId} is not a register of this store`, order.registerId);
    else if (number !== order.registerNumber) {
      reject(sale.index, `registerNumber ${order.registerNumber} does not match register ${order.registerId} (number ${number})`, order.registerId);
    } else if (order.staffId !== undefined && !staff.has(order.staffId)) {
      reject(sale.index, `staffId ${order.staffId} is not a staff member of this store`, order.registerId);
    } else if (overrideProblem !== undefined) {
      reject(sale.index, overrideProblem, order.registerId);
    } else if (used.has(receiptKey(order.registerId, order.receiptNumber))) {
      reject(sale.index, `receipt number ${order.receiptNumber} is already used by another order of this register`, order.registerId);
    } else if (stored.has(order.id)) {
      // Held by another store (this store's own are answered above): the same answer as a taken journal transaction id.
      reject(sale.index, idConflictReason(order), order.registerId);
    } else {
      used.add(receiptKey(order.registerId, order.receiptNumber));
      accepted.push(sale);
    }
  }
  if (accepted.length === 0) return;

  // 3. Write: the whole batch at once. Optimistic: no savepoint; a refusal aborts the transaction and the caller pushes
  // again isolating. Isolating: should the database refuse any of it, each half again (in its own savepoint) down to
  // the single sale it refuses — a few batches for one bad sale among hundreds, never the whole push failed.
  if (mode === 'optimistic') {
    let written: Written;
    try {
      written = await writeSales(m, accepted, false, before ?? undefined);
    } catch (err) {
      throw new OptimisticWriteRefused(err);
    }
    settle(written, outcomes, stockMoved, reject);
    events.push(...written.events);
    return;
  }
  const write = async (sales: readonly CheckedSale[]): Promise<void> => {
    const attempt = await inSavepoint(m, 'register_sales', () => writeSales(m, sales, true));
    if (attempt.ok) {
      settle(attempt.value, outcomes, stockMoved, reject);
      events.push(...attempt.value.events);
    }
    else if (sales.length === 1) reject(sales[0]!.index, `the order could not be stored: ${messageOf(attempt.error)}`, sales[0]!.order.registerId);
    else {
      const half = Math.ceil(sales.length / 2);
      await write(sales.slice(0, half));
      await write(sales.slice(half));
    }
  };
  await write(accepted);
}

type Written = { stored: CheckedSale[]; refused: { sale: CheckedSale; reason: string }[]; changedItemIds: string[]; events: Parameters<typeof emitEvents>[1][number][] };

function settle(written: Written, outcomes: SaleOutcome[], stockMoved: Set<string>, reject: (i: number, reason: string, registerId: unknown) => void): void {
  for (const sale of written.stored) outcomes[sale.index] = { kind: 'stored' };
  for (const { sale, reason } of written.refused) reject(sale.index, reason, sale.order.registerId);
  for (const id of written.changedItemIds) stockMoved.add(id);
}

/**
 * Runs `fn` inside a savepoint: rolled back (and the error returned) when it throws. A savepoint whose work succeeded
 * is left open rather than released — one round trip fewer per push; the commit ends it with the transaction, and a
 * later savepoint of the same name shadows it, so `ROLLBACK TO` always undoes the newest attempt only.
 */
async function inSavepoint<T>(m: Mutation, name: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  await m.tx.query(`SAVEPOINT ${name}`);
  try {
    const value = await fn();
    return { ok: true, value };
  } catch (error) {
    await m.tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    await m.tx.query(`RELEASE SAVEPOINT ${name}`);
    return { ok: false, error };
  }
}

/**
 * Writes checked sales: their derived journal transactions first (a sale whose transaction id is already taken by other
 * content is refused and nothing of it is written), then the orders, stock, audit rows and events, each in one
 * statement; their events are handed back (the caller emits every event of the push at once). What the writers read
 * first — the ledger's stored ids and accounts, the variations and units on hand, the audit chain's head and sequence
 * numbers, the store's rails — is `read` by the caller with the push's context (an optimistic write, the round's first
 * write), or here in one statement (platform/db `readTogether`, each part its owner's SQL; {@link beforeWriteParts}).
 * With `checkBalanceNow` (isolating writes) the ledger's balance check, deferred to the commit, is run here, so a
 * refusal lands inside the savepoint; without it (optimistic writes) it runs at COMMIT.
 */
async function writeSales(m: Mutation, sales: readonly CheckedSale[], checkBalanceNow: boolean, read?: BeforeWrite): Promise<Written> {
  const toPost = sales.flatMap((s) => (s.journalTransaction ? [s.journalTransaction] : []));
  let before = read;
  if (!before) {
    const [ledger, stock, audit, rails] = await readTogether(m.tx, 'register_sales_before_write', beforeWriteParts(m, sales));
    before = { ledger, stock, audit, rails };
  }
  const { ledger: ledgerRead, stock: stockRead, audit: reservation, rails } = before;
  const posted = await postJournalTransactions(m.tx, m.merchantId, toPost, { read: ledgerRead });
  const outcomes = new Map(toPost.map((jt, i) => [jt.id, posted[i]!]));
  const stored: CheckedSale[] = [];
  const refused: Written['refused'] = [];
  sales.forEach((sale) => {
    const outcome = sale.journalTransaction ? outcomes.get(sale.journalTransaction.id)! : ({ status: 'created' } as const);
    if (outcome.status === 'created' || outcome.status === 'unchanged') stored.push(sale);
    else if (outcome.status === 'conflict') refused.push({ sale, reason: idConflictReason(sale.order) });
    else refused.push({ sale, reason: `its journal transaction cannot be posted: ${outcome.message}` });
  });
  if (stored.length === 0) return { stored, refused, changedItemIds: [], events: [] };
  const orders = stored.map((s) => s.order);
  await insertOrders(m, orders.map((order) => ({ order, source: 'register' as const })));
  // Stock of tracked variations goes down with the sale (an oversell is recorded, never refused).
  const stock = await recordSalesStock(m.tx, { merchantId: m.merchantId, actor: m.actor, occurredAt: m.now, orders, read: stockRead });
  await appendAuditBatch(m.tx, [
    ...stock.audit,
    ...orders.map((order) => ({
      merchantId: m.merchantId,
      actor: m.actor,
      registerId: order.registerId,
      action: 'order.stored',
      entityType: 'order',
      entityId: order.id,
      occurredAt: m.now,
      data: { receiptNumber: order.receiptNumber, totalCents: order.totalCents, tipCents: order.tipCents, state: order.state, journalTransactionId: order.journalTransactionId },
    })),
  ], { reserved: reservation });
  // Card-present tenders approved online settle on the rail's schedule (cards: 2 days): pending settlement till then.
  const cards = orders.flatMap((order) =>
    order.journalTransactionId
      ? order.tenders
          .filter((t) => !t.offline && tenderAccount(t.method, order.registerNumber) === CARD_PRESENT_ACCOUNT)
          .map((t) => ({ sourceType: 'order_payment' as const, sourceId: `pmt_${t.id.replace(/^tnd_/, '')}`, rail: 'card_present', accountCode: CARD_PRESENT_ACCOUNT, amountCents: t.amountCents, last4: t.last4 ?? null, journalTransactionId: order.journalTransactionId! }))
      : [],
  );
  if (cards.length > 0) await recordPendingSettlements(m, rails.find((r) => r.rail === 'card_present')?.settlementHours ?? 0, cards);
  // Cards the terminal approved offline: recorded and forwarded to the processor, exactly once each.
  await forwardOfflineCardPayments(m, orders);
  if (posted.some((p) => p.status === 'created')) {
    // Both in one round trip (simple query protocol): checked now, deferred again for the rest of the transaction.
    if (checkBalanceNow) await m.tx.exec('SET CONSTRAINTS postings_balanced, journal_transactions_balanced IMMEDIATE; SET CONSTRAINTS postings_balanced, journal_transactions_balanced DEFERRED');
    m.changed('journal-transactions');
  }
  m.changed('orders');
  return { stored, refused, changedItemIds: stock.changedItemIds, events: orders.flatMap((order) => registerOrderEvents(m.merchantId, order, m.now)) };
}
