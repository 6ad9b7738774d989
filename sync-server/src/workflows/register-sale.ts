/**
 * The register sale: sales a register made — offline or not — arrive pushed as orders with their
 * tenders, and the server stores each one with everything it implies, in the caller's transaction. The push is
 * worked in rounds of distinct order ids (an id pushed twice is looked at again once its first copy is written), and
 * each round is a list of named steps:
 *
 *   {@link storeRegisterSales}: merge customers ({@link withSurvivingCustomers}) → each round ({@link storeRound}) →
 *     restamp the items sold ({@link restampSoldItems}) → announce the push's events ({@link announcePush});
 *   {@link storeRound}: check each sale alone ({@link checkAlone}: storable, order shape, plausible time, prices —
 *     core `checkRegisterSale`, which derives the sale's journal transaction, the server's, never one a register
 *     sends) → read what the round needs ({@link readRound}) → judge each sale against the store ({@link judgeSales}:
 *     already stored, currency, tip bound) → check registers, staff, price-override approvers and receipts
 *     ({@link admitSales}) → write the admitted sales ({@link writeOptimistically} or {@link writeIsolating});
 *   {@link writeSales}: post the journal transactions ({@link postSalesJournal}) → store the orders → take their stock
 *     off → audit them ({@link auditStoredOrders}, `order.stored`) → hold card-present tenders for settlement
 *     ({@link holdCardSettlements}) → forward the cards a terminal approved offline (offline-card-forward.ts) → check
 *     the ledger's balance ({@link checkLedgerBalance}) → hand back `order.created` / `order.paid`.
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
import {
  canonicalJson,
  checkRegisterSale,
  DEFAULT_TIP_LIMIT,
  orderSchema,
  priceOverrideProblem,
  tenderAccount,
  tipLimitProblem,
  type JournalTransaction,
  type Order,
  type RailConfig,
} from '../../../core/index.ts';
import type { z } from 'zod';
import { appendAuditBatch, auditReservationPart, type AuditReservation } from '../kernel/audit.ts';
import type { Mutation } from '../kernel/mutation.ts';
import { emitEvents } from '../kernel/outbox.ts';
import { ledgerReadPart, type LedgerRead } from '../kernel/ledger.ts';
import { restampStockOnHand } from '../modules/catalog/index.ts';
import { recordSalesStock, salesStockReadPart, ensureDefaultLocation, type VariationsOnHand } from '../modules/inventory/index.ts';
import {
  pushContextPart,
  receiptKey,
  registerOrderEvents,
  insertOrders,
  type PushContext,
  type StoredRegisterOrder,
} from '../modules/orders/index.ts';
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
 * @param order the sale's order id and journal transaction id, as pushed
 * @returns the reason, naming both ids and asking for the sale to be sold again under new ids
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
 * transaction is aborted, so the caller rolls it back and writes the push again `isolating`. `cause` is the refusal;
 * the message names it (`the database refused the batch write: <name>: <message>`, the refusal cut to 500 characters).
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

/** An event of the push: an order's `order.created` / `order.paid`, an item's `catalog.updated` (kernel/outbox.ts). */
type PushEvent = Parameters<typeof emitEvents>[1][number];

/** What the push has come to so far, filled in round by round. */
interface PushTally {
  /** One per document, at its index in the push (a hole until its round answers it). */
  outcomes: SaleOutcome[];
  /** Catalog items whose stock a written sale moved: each gets one new stamp at the end. */
  stockMoved: Set<string>;
  /** Events of the sales written, emitted once at the end with the catalog's (a failed batch's are never collected). */
  events: PushEvent[];
}

/** A refused document's outcome; `registerId` is kept when it is a string (cut to 64 characters). */
function rejected(reason: string, registerId: unknown): SaleOutcome {
  return { kind: 'rejected', reason, registerId: typeof registerId === 'string' ? registerId.slice(0, 64) : null };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`)
    .join('; ');
}

const messageOf = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 500);

/**
 * Stores the register sales among `pushed` for `m`'s merchant, in `m.tx`. Marks `orders`, `journal-transactions` and
 * `catalog-items` changed as they are written.
 * @param m the merchant's mutation (transaction, actor, clock `m.now`)
 * @param pushed core order shapes (client fields already stripped), in push order; an id may come more than once
 * @param mode how the sales that pass every check are written ({@link WriteMode}); `isolating` unless told
 * @returns one outcome per document, in the order given; never throws for a document's content
 * @throws {@link OptimisticWriteRefused} when an `optimistic` batch write is refused (roll back, push again
 *   `isolating`); a database error outside the batch write (a read, the restamp, the events) as it comes
 */
export async function storeRegisterSales(
  m: Mutation,
  pushed: readonly Record<string, unknown>[],
  mode: WriteMode = 'isolating',
): Promise<SaleOutcome[]> {
  const documents = await withSurvivingCustomers(m, pushed);
  const push: PushTally = { outcomes: new Array<SaleOutcome>(documents.length), stockMoved: new Set<string>(), events: [] };
  for (const round of roundsOfDistinctIds(documents)) await storeRound(m, documents, round, push, mode);
  await restampSoldItems(m, push);
  await announcePush(m, push);
  return push.outcomes;
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
  return documents.map((d) =>
    typeof d.customerId === 'string' && survivors.has(d.customerId) ? { ...d, customerId: survivors.get(d.customerId)! } : d,
  );
}

/**
 * The documents' indexes in rounds of distinct ids, in push order: a round takes the first copy not yet taken of each
 * id (and every document without a string id), so a later copy is looked at once the earlier one is written — as if
 * pushed after it.
 */
function* roundsOfDistinctIds(documents: readonly Record<string, unknown>[]): Generator<number[]> {
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
    yield round;
    pending = later;
  }
}

/** Each item sold in this push gets one new stamp (registers pull its stockOnHand) and one `catalog.updated` event. */
async function restampSoldItems(m: Mutation, push: PushTally): Promise<void> {
  if (push.stockMoved.size === 0) return;
  const location = await ensureDefaultLocation(m.tx, m.merchantId);
  push.events.push(...(await restampStockOnHand(m.tx, m.merchantId, [...push.stockMoved], location.id, m.now)));
  m.changed('catalog-items');
}

/**
 * The push's events — its orders' `order.created`/`order.paid`, then the items' `catalog.updated` — in one INSERT
 * into the outbox (webhooks deliver them from there).
 */
async function announcePush(m: Mutation, push: PushTally): Promise<void> {
  await emitEvents(m.tx, push.events);
}

/**
 * Checks and writes the documents at `indexes` (distinct ids), filling their outcomes in `push`: each document's own
 * checks (they need nothing read), one read for the round (the context of the store's checks and, for the sales that
 * passed their own, what the writes read first), the store's checks in their order, then the write.
 */
async function storeRound(
  m: Mutation,
  documents: readonly Record<string, unknown>[],
  indexes: readonly number[],
  push: PushTally,
  mode: WriteMode,
): Promise<void> {
  const alone = new Map(indexes.map((i) => [i, checkAlone(documents[i]!)]));
  const { context, before } = await readRound(
    m,
    indexes.map((i) => documents[i]!),
    passedAlone(indexes, alone),
  );
  const judged = judgeSales(m, documents, indexes, alone, context, push);
  const admitted = admitSales(judged, context, push);
  if (admitted.length === 0) return;
  if (mode === 'optimistic') await writeOptimistically(m, admitted, before, push);
  else await writeIsolating(m, admitted, push);
}

/**
 * What can be told of a document on its own, before anything is read (see {@link checkAlone}): each result is answered
 * at its turn in {@link judgeSale}, so a document is refused for the same first reason as when every check ran in order.
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

/** The sales whose own checks all passed: those the round's read prepares the writes for. */
function passedAlone(indexes: readonly number[], alone: ReadonlyMap<number, AloneChecks>): CheckedSale[] {
  return indexes.flatMap((i): CheckedSale[] => {
    const a = alone.get(i)!;
    return a.parsed?.success && a.checked && !a.checked.problems && !a.thrown
      ? [{ index: i, order: a.parsed.data, journalTransaction: a.checked.journalTransaction }]
      : [];
  });
}

/** What the writers read before writing, read with the push's context (see {@link writeSales}). */
interface BeforeWrite {
  ledger: LedgerRead;
  stock: VariationsOnHand;
  audit: AuditReservation;
  rails: RailConfig[];
}

/**
 * What a round reads, in one statement: the push's context ({@link contextAsk}) and, for the sales that passed their
 * own checks, what their writes read first (see {@link writeSales}; null when none did).
 */
async function readRound(
  m: Mutation,
  named: readonly Record<string, unknown>[],
  candidates: readonly CheckedSale[],
): Promise<{ context: PushContext; before: BeforeWrite | null }> {
  const contextPart = pushContextPart(m.merchantId, contextAsk(named));
  if (candidates.length === 0) {
    const [context] = await readTogether(m.tx, 'register_sales_context', [contextPart]);
    return { context, before: null };
  }
  const [context, ledger, stock, audit, rails] = await readTogether(m.tx, 'register_sales_context_before_write', [
    contextPart,
    ...beforeWriteParts(m, candidates),
  ] as const);
  return { context, before: { ledger, stock, audit, rails } };
}

/**
 * What the push's context is asked for: the store's currency and tip bound come with it; the orders already stored
 * under these ids, the registers, staff members (sellers and price-override approvers) and receipt numbers named —
 * from the documents as pushed (reading a few rows a refused document names costs nothing, a second round trip
 * would), strings of at most 200 storable characters only.
 */
function contextAsk(named: readonly Record<string, unknown>[]): Parameters<typeof pushContextPart>[1] {
  const text = (v: unknown): v is string => typeof v === 'string' && v.length <= 200 && findUnstorable(v) === undefined;
  const approvers = named.flatMap((d) =>
    Array.isArray(d.lines) ? d.lines.map((l: unknown) => (l as { priceOverride?: { approvedBy?: unknown } } | null)?.priceOverride?.approvedBy) : [],
  );
  return {
    ids: named.map((d) => d.id).filter(text),
    registerIds: named.map((d) => d.registerId).filter(text),
    staffIds: [...named.map((d) => d.staffId), ...approvers].filter(text),
    receipts: named.flatMap((d) =>
      text(d.registerId) && text(d.receiptNumber) ? [{ registerId: d.registerId, receiptNumber: d.receiptNumber }] : [],
    ),
  };
}

/**
 * The reads of {@link writeSales} for `sales` (or more sales than it writes): the ledger's stored ids and accounts, the
 * variations and units on hand, the audit chain's head and numbers for one row per sale and an oversell's row (a
 * number left unused is a gap in seq, never a break in the chain, which is linked by hash in seq order), the rails.
 */
function beforeWriteParts(m: Mutation, sales: readonly CheckedSale[]) {
  return [
    ledgerReadPart(m.merchantId, journalOf(sales)),
    salesStockReadPart(
      m.merchantId,
      sales.map((s) => s.order),
    ),
    auditReservationPart(m.merchantId, sales.length + 1),
    merchantRailsPart(m.merchantId),
  ] as const;
}

/** The journal transactions of `sales` that move money, in order. */
function journalOf(sales: readonly CheckedSale[]): JournalTransaction[] {
  return sales.flatMap((s) => (s.journalTransaction ? [s.journalTransaction] : []));
}

/** A document's verdict: answered now (refused, or already stored), or a sale for the store's checks. */
type Verdict = { outcome: SaleOutcome } | { sale: CheckedSale };

/**
 * Each document's verdict before the store's registers and staff are looked at, the checks in their order (a
 * document's own and the context's); anything a check threw rejects that document alone, at the check that threw.
 * The documents answered are answered in `push`; the sales left are returned, in push order.
 */
function judgeSales(
  m: Mutation,
  documents: readonly Record<string, unknown>[],
  indexes: readonly number[],
  alone: ReadonlyMap<number, AloneChecks>,
  context: PushContext,
  push: PushTally,
): CheckedSale[] {
  const judged: CheckedSale[] = [];
  for (const i of indexes) {
    const doc = documents[i]!;
    let verdict: Verdict;
    try {
      verdict = judgeSale(m, i, doc, alone.get(i)!, context);
    } catch (err) {
      verdict = { outcome: rejected(`inconsistent sale: it cannot be priced (${messageOf(err)})`, doc.registerId) };
    }
    if ('sale' in verdict) judged.push(verdict.sale);
    else push.outcomes[i] = verdict.outcome;
  }
  return judged;
}

/**
 * One document's verdict, in the order of checks: storable; already stored by this store (unchanged, or the stored
 * master wins); the order shape; then {@link judgeOrder}. Throws what its own checks threw, at the check that threw.
 */
function judgeSale(m: Mutation, index: number, doc: Record<string, unknown>, a: AloneChecks, context: PushContext): Verdict {
  if (a.thrown?.at === 'start') throw a.thrown.error;
  if (a.unstorable) return { outcome: rejected(a.unstorable, null) };
  const master = typeof doc.id === 'string' ? context.stored.get(doc.id) : undefined;
  // Another store's order: checked like a new sale, then refused as an id conflict (storeProblem), never answered apart.
  if (master && master.merchantId === m.merchantId) {
    return { outcome: canonicalJson(master.data) === canonicalJson(doc) ? { kind: 'unchanged' } : { kind: 'master', stored: master } };
  }
  if (a.thrown?.at === 'parse') throw a.thrown.error;
  const result = a.parsed!;
  if (!result.success) return { outcome: rejected(`invalid order: ${describeIssues(result.error)}`, doc.registerId) };
  return judgeOrder(index, result.data, a, context);
}

/** A well-shaped order's verdict: a plausible time, the store's currency, a tip within the store's bound, the prices. */
function judgeOrder(index: number, order: Order, a: AloneChecks, context: PushContext): Verdict {
  const refuse = (reason: string): Verdict => ({ outcome: rejected(reason, order.registerId) });
  if (a.implausible) return refuse('invalid order: createdAt is not a plausible time');
  const currency = context.currency ?? 'USD';
  if (order.currency !== currency) return refuse(`currency ${order.currency} is not the store's currency ${currency}`);
  const tipProblem = tipLimitProblem(order.totalCents, order.tipCents, context.tipLimit ?? DEFAULT_TIP_LIMIT);
  if (tipProblem) return refuse(`tip out of bounds: ${tipProblem}`);
  if (a.thrown?.at === 'check') throw a.thrown.error;
  const checked = a.checked!;
  if (checked.problems) return refuse(`inconsistent sale: ${checked.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
  return { sale: { index, order, journalTransaction: checked.journalTransaction } };
}

/**
 * The sales the store admits, in order ({@link storeProblem}); a receipt number an admitted sale takes is taken for
 * the rest of the round. The others are refused in `push`.
 */
function admitSales(judged: readonly CheckedSale[], context: PushContext, push: PushTally): CheckedSale[] {
  const admitted: CheckedSale[] = [];
  for (const sale of judged) {
    const { order } = sale;
    const problem = storeProblem(order, context);
    if (problem !== undefined) push.outcomes[sale.index] = rejected(problem, order.registerId);
    else {
      context.usedReceipts.add(receiptKey(order.registerId, order.receiptNumber));
      admitted.push(sale);
    }
  }
  return admitted;
}

/**
 * Why the store refuses `order`, the first of: not a register of this store, another register number, a staff member
 * of another store, a price override not approved by a manager or owner (core `priceOverrideProblem`), a receipt
 * number already used, an order id another store holds; undefined when it admits it.
 */
function storeProblem(order: Order, { registers, staff, usedReceipts, stored }: PushContext): string | undefined {
  const number = registers.get(order.registerId);
  const overrideProblem = priceOverrideProblem(order, staff);
  if (number === undefined) return `register ${order.registerId} is not a register of this store`;
  if (number !== order.registerNumber) return `registerNumber ${order.registerNumber} does not match register ${order.registerId} (number ${number})`;
  if (order.staffId !== undefined && !staff.has(order.staffId)) return `staffId ${order.staffId} is not a staff member of this store`;
  if (overrideProblem !== undefined) return overrideProblem;
  if (usedReceipts.has(receiptKey(order.registerId, order.receiptNumber)))
    return `receipt number ${order.receiptNumber} is already used by another order of this register`;
  // Held by another store (this store's own are answered by judgeSale): the same answer as a taken journal transaction id.
  if (stored.has(order.id)) return idConflictReason(order);
  return undefined;
}

/**
 * Writes the admitted sales in one go, without a savepoint, with what the round read first. A refusal by the database
 * aborts the transaction: thrown as {@link OptimisticWriteRefused}, and the caller pushes again isolating.
 */
async function writeOptimistically(m: Mutation, sales: readonly CheckedSale[], before: BeforeWrite | null, push: PushTally): Promise<void> {
  let written: Written;
  try {
    written = await writeSales(m, sales, false, before ?? undefined);
  } catch (err) {
    throw new OptimisticWriteRefused(err);
  }
  settle(written, push);
}

/**
 * Writes the admitted sales in a savepoint; should the database refuse any of it, each half again (in its own
 * savepoint) down to the single sale it refuses — a few batches for one bad sale among hundreds, never the whole push
 * failed.
 */
async function writeIsolating(m: Mutation, sales: readonly CheckedSale[], push: PushTally): Promise<void> {
  const attempt = await inSavepoint(m, 'register_sales', () => writeSales(m, sales, true));
  if (attempt.ok) settle(attempt.value, push);
  else if (sales.length === 1)
    push.outcomes[sales[0]!.index] = rejected(`the order could not be stored: ${messageOf(attempt.error)}`, sales[0]!.order.registerId);
  else {
    const half = Math.ceil(sales.length / 2);
    await writeIsolating(m, sales.slice(0, half), push);
    await writeIsolating(m, sales.slice(half), push);
  }
}

type Written = { stored: CheckedSale[]; refused: { sale: CheckedSale; reason: string }[]; changedItemIds: string[]; events: PushEvent[] };

/** A batch written: its outcomes, the items whose stock it moved and its events, into the push's tally. */
function settle(written: Written, push: PushTally): void {
  for (const sale of written.stored) push.outcomes[sale.index] = { kind: 'stored' };
  for (const { sale, reason } of written.refused) push.outcomes[sale.index] = rejected(reason, sale.order.registerId);
  for (const id of written.changedItemIds) push.stockMoved.add(id);
  push.events.push(...written.events);
}

/**
 * Runs `fn` inside a savepoint: rolled back (and the error returned) when it throws. A savepoint whose work succeeded
 * is left open rather than released — one round trip fewer per push; the commit ends it with the transaction, and a
 * later savepoint of the same name shadows it, so `ROLLBACK TO` always undoes the newest attempt only.
 */
async function inSavepoint<T>(m: Mutation, name: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  await m.savepoint(name);
  try {
    const value = await fn();
    return { ok: true, value };
  } catch (error) {
    await m.rollbackToSavepoint(name);
    await m.releaseSavepoint(name);
    return { ok: false, error };
  }
}

/**
 * Writes checked sales: their derived journal transactions first (a sale whose transaction id is already taken by other
 * content is refused and nothing of it is written), then the orders, stock, audit rows and pending card settlements,
 * each in one statement, and the offline card forwards; their events are handed back (the caller emits every event of
 * the push at once). What the writers read first is `read` by the caller with the push's context (an optimistic
 * write, the round's first write), or here in one statement ({@link readBeforeWrite}). With `checkBalanceNow`
 * (isolating writes) the ledger's balance is checked here ({@link checkLedgerBalance}); without it, at COMMIT.
 */
async function writeSales(m: Mutation, sales: readonly CheckedSale[], checkBalanceNow: boolean, read?: BeforeWrite): Promise<Written> {
  const before = read ?? (await readBeforeWrite(m, sales));
  const { stored, refused, created } = await postSalesJournal(m, sales, before.ledger);
  if (stored.length === 0) return { stored, refused, changedItemIds: [], events: [] };
  const orders = stored.map((s) => s.order);
  await insertOrders(
    m,
    orders.map((order) => ({ order, source: 'register' as const })),
  );
  // Stock of tracked variations goes down with the sale (an oversell is recorded, never refused).
  const stock = await recordSalesStock(m.tx, { merchantId: m.merchantId, actor: m.actor, occurredAt: m.now, orders, read: before.stock });
  await auditStoredOrders(m, orders, stock.audit, before.audit);
  await holdCardSettlements(m, orders, before.rails);
  // Cards the terminal approved offline: recorded and forwarded to the processor, exactly once each.
  await forwardOfflineCardPayments(m, orders);
  if (created) await checkLedgerBalance(m, checkBalanceNow);
  m.changed('orders');
  return {
    stored,
    refused,
    changedItemIds: stock.changedItemIds,
    events: orders.flatMap((order) => registerOrderEvents(m.merchantId, order, m.now)),
  };
}

/** What {@link writeSales} reads first, in one statement (platform/db `readTogether`, each part its owner's SQL). */
async function readBeforeWrite(m: Mutation, sales: readonly CheckedSale[]): Promise<BeforeWrite> {
  const [ledger, stock, audit, rails] = await readTogether(m.tx, 'register_sales_before_write', beforeWriteParts(m, sales));
  return { ledger, stock, audit, rails };
}

/**
 * Posts the sales' journal transactions (one statement; a sale that moves no money posts none) and sorts the sales:
 * `stored` (posted now, or already posted with this content), `refused` (the transaction id taken by other content,
 * or a transaction the ledger cannot post); `created` tells whether any transaction was posted now.
 */
async function postSalesJournal(
  m: Mutation,
  sales: readonly CheckedSale[],
  read: LedgerRead,
): Promise<{ stored: CheckedSale[]; refused: Written['refused']; created: boolean }> {
  const toPost = journalOf(sales);
  const posted = await m.postJournalTransactions(toPost, { read });
  const outcomes = new Map(toPost.map((jt, i) => [jt.id, posted[i]!]));
  const stored: CheckedSale[] = [];
  const refused: Written['refused'] = [];
  for (const sale of sales) {
    const outcome = sale.journalTransaction ? outcomes.get(sale.journalTransaction.id)! : ({ status: 'created' } as const);
    if (outcome.status === 'created' || outcome.status === 'unchanged') stored.push(sale);
    else if (outcome.status === 'conflict') refused.push({ sale, reason: idConflictReason(sale.order) });
    else refused.push({ sale, reason: `its journal transaction cannot be posted: ${outcome.message}` });
  }
  return { stored, refused, created: posted.some((p) => p.status === 'created') };
}

/** The audit rows of the stored orders, in one statement on the numbers read first: the stock's rows, then `order.stored` per order. */
async function auditStoredOrders(
  m: Mutation,
  orders: readonly Order[],
  stockAudit: Parameters<typeof appendAuditBatch>[1],
  reservation: AuditReservation,
): Promise<void> {
  const entries: Parameters<typeof appendAuditBatch>[1] = [
    ...stockAudit,
    ...orders.map((order) => ({
      merchantId: m.merchantId,
      actor: m.actor,
      registerId: order.registerId,
      action: 'order.stored',
      entityType: 'order',
      entityId: order.id,
      occurredAt: m.now,
      data: {
        receiptNumber: order.receiptNumber,
        totalCents: order.totalCents,
        tipCents: order.tipCents,
        state: order.state,
        journalTransactionId: order.journalTransactionId,
      },
    })),
  ];
  // Each entry records the journal transaction it names, posted by this mutation (postSalesJournal).
  await appendAuditBatch(
    m.tx,
    entries.map((entry) => ({ ...entry, journalHashes: m.journalHashesFor(entry) })),
    { reserved: reservation },
  );
}

/**
 * Card-present tenders approved online settle on the rail's schedule (the store's `card_present` rail's
 * `settlementHours`; cards: 2 days): each is a pending settlement of its amount in cents till then.
 */
async function holdCardSettlements(m: Mutation, orders: readonly Order[], rails: readonly RailConfig[]): Promise<void> {
  const cards = orders.flatMap((order) =>
    order.journalTransactionId
      ? order.tenders
          .filter((t) => !t.offline && tenderAccount(t.method, order.registerNumber) === CARD_PRESENT_ACCOUNT)
          .map((t) => ({
            sourceType: 'order_payment' as const,
            sourceId: `pmt_${t.id.replace(/^tnd_/, '')}`,
            rail: 'card_present',
            accountCode: CARD_PRESENT_ACCOUNT,
            amountCents: t.amountCents,
            last4: t.last4 ?? null,
            journalTransactionId: order.journalTransactionId!,
          }))
      : [],
  );
  if (cards.length > 0) await recordPendingSettlements(m, rails.find((r) => r.rail === 'card_present')?.settlementHours ?? 0, cards);
}

/**
 * Journal transactions were posted now: with `now` (isolating writes) the ledger's balance check, deferred to the
 * commit, is run here, so a refusal lands inside the savepoint; without it (optimistic writes) it runs at COMMIT.
 */
async function checkLedgerBalance(m: Mutation, now: boolean): Promise<void> {
  // Both in one round trip (simple query protocol): checked now, deferred again for the rest of the transaction.
  if (now)
    await m.tx.exec(
      'SET CONSTRAINTS postings_balanced, journal_transactions_balanced IMMEDIATE; SET CONSTRAINTS postings_balanced, journal_transactions_balanced DEFERRED',
    );
  m.changed('journal-transactions');
}
