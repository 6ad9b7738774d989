/**
 * Shifts and the daily closeout (core/shifts.ts). Spans modules: the closeout module's tables, the
 * orders the register pushed, the ledger.
 *
 *     storeShiftDocuments(m, collection, documents) → outcomes       (sync push of shifts, cash-movements, shift-closeouts)
 *     shiftReport(db, merchantId, record)           → server Z/X-report + the register's differences
 *     dayStatus(db, merchantId, day)                → shifts of the business day, missing registers, roll-up
 *     closeStoreDay(ctx, who, day, closeWithMissing) → the store closeout (409 while registers are missing) + checkpoint
 *
 * A paid in / paid out posts its journal transaction (drawer ↔ `cash_paid_in_out`) in the push's transaction; a shift
 * closeout posts its over/short (drawer ↔ `cash_over_short`) in the same transaction as the closeout record. The server
 * recomputes each shift's figures from the sales it holds, the drawer account's postings of those sales read from the
 * ledger, and flags what differs from the register's report (never rewriting the register's figures).
 */
import {
  businessDayOf,
  buildCashMovementJournalTransaction,
  buildOverShortJournalTransaction,
  canonicalJson,
  cashDrawerAccount,
  cashMovementSchema,
  computeZReport,
  diffZReports,
  nextDay,
  rollUpReports,
  shiftCloseoutSchema,
  shiftJournalTransactionId,
  shiftSchema,
  type JournalTransaction,
  type Order,
  type ReportDifference,
  type ServiceCash,
  type ZReport,
} from '../../../core/index.ts';
import type { z } from 'zod';
import { writeCheckpoint } from '../kernel/checkpoints.ts';
import { mutation, type Mutation, type MutationActor } from '../kernel/mutation.ts';
import {
  activeRegisters,
  closedDays,
  findShiftDocuments,
  firstOpenDay,
  getStoreCloseout,
  insertCashMovement,
  insertShift,
  insertShiftCloseout,
  insertStoreCloseout,
  shiftsOfDay,
  type ShiftCollection,
  type ShiftRecord,
  type StoredShiftDocument,
} from '../modules/closeout/index.ts';
import { billCashOfShift } from '../modules/bill-payments/index.ts';
import { checkCashOfShift } from '../modules/check-cashing/index.ts';
import { transferCashOfShift } from '../modules/transfers/index.ts';
import type { AppContext } from '../platform/context.ts';
import type { Queryable } from '../platform/db/db.ts';
import { findUnstorable, isStorableTimestamp } from '../platform/http/input-guard.ts';
import { ProblemError } from '../platform/http/problem.ts';

/** What became of one pushed shift document (like a register sale's outcome). */
export type ShiftDocumentOutcome =
  | { kind: 'stored' }
  | { kind: 'unchanged' }
  | { kind: 'master'; stored: StoredShiftDocument }
  | { kind: 'rejected'; reason: string; registerId: string | null };

/** The store's day settings: currency, IANA time zone and the local hour the business day ends. */
export interface StoreDay {
  currency: string;
  timeZone: string;
  cutoffHour: number;
}

/** Reads the store's currency, time zone and day cut-off hour. */
export async function storeDayOf(db: Queryable, merchantId: string): Promise<StoreDay> {
  const { rows } = await db.query<{ currency: string; time_zone: string; day_cutoff_hour: number }>(
    'SELECT currency, time_zone, day_cutoff_hour FROM merchants WHERE id = $1',
    [merchantId],
  );
  const r = rows[0];
  if (!r) throw new ProblemError(404, 'merchant_not_found', `Merchant ${merchantId} does not exist.`);
  return { currency: r.currency, timeZone: r.time_zone, cutoffHour: Number(r.day_cutoff_hour) };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`)
    .join('; ');
}

/** The business day a shift stored in `shifts` belongs to, by id (only the merchant's). */
async function shiftDays(
  tx: Queryable,
  merchantId: string,
  ids: readonly string[],
): Promise<Map<string, { registerId: string; businessDay: string; closedBy: string | null; closedAt: string | null }>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<{ id: string; register_id: string; business_day: string; closeout_id: string | null; closed_at: Date | null }>(
    `SELECT s.id, s.register_id, s.business_day, c.id AS closeout_id, c.closed_at FROM shifts s LEFT JOIN shift_closeouts c ON c.shift_id = s.id AND c.merchant_id = s.merchant_id
      WHERE s.merchant_id = $1 AND s.id = ANY($2::text[])`,
    [merchantId, [...new Set(ids)]],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        registerId: r.register_id,
        businessDay: r.business_day,
        closedBy: r.closeout_id,
        closedAt: r.closed_at ? new Date(r.closed_at).toISOString() : null,
      },
    ]),
  );
}

/**
 * Stores pushed documents of one shift collection for `m`'s merchant in `m.tx` (each in its own savepoint, so a row
 * the database refuses rejects that document alone). Checks: the core schema, a plausible time, the store's currency,
 * a register of this store with its number; a movement or closeout of a stored shift must be of the same register,
 * not after that shift's closeout, and not of a closed business day (`business day D is closed`). A shift whose own
 * business day is closed falls into the next open day. Documents may arrive before their shift (each collection syncs
 * on its own): they are stored and the shift's report counts them once it is there.
 * @returns one outcome per document, in order; never throws for a document's content
 */
export async function storeShiftDocuments(
  m: Mutation,
  collection: ShiftCollection,
  documents: readonly Record<string, unknown>[],
): Promise<ShiftDocumentOutcome[]> {
  const store = await storeDayOf(m.tx, m.merchantId);
  const ids = documents.map((d) => d.id).filter((v): v is string => typeof v === 'string' && v.length <= 200 && findUnstorable(v) === undefined);
  const stored = await findShiftDocuments(m.tx, m.merchantId, collection, ids);
  const registers = new Map(
    (await m.tx.query<{ id: string; number: number }>('SELECT id, number FROM registers WHERE merchant_id = $1', [m.merchantId])).rows.map((r) => [
      r.id,
      Number(r.number),
    ]),
  );
  const shiftIds = documents
    .map((d) => d.shiftId)
    .filter((v): v is string => typeof v === 'string' && v.length <= 200 && findUnstorable(v) === undefined);
  const shifts = await shiftDays(m.tx, m.merchantId, shiftIds);
  const closed = await closedDays(
    m.tx,
    m.merchantId,
    [...shifts.values()].map((s) => s.businessDay),
  );
  const outcomes: ShiftDocumentOutcome[] = [];
  const seen = new Map<string, string>();
  for (const doc of documents) {
    const registerId = typeof doc.registerId === 'string' ? doc.registerId.slice(0, 64) : null;
    const reject = (reason: string): ShiftDocumentOutcome => ({ kind: 'rejected', reason, registerId });
    const unstorable = findUnstorable(doc);
    if (unstorable) {
      outcomes.push(reject(`invalid document: ${unstorable.path} ${unstorable.message}`));
      continue;
    }
    const id = typeof doc.id === 'string' ? doc.id : '';
    const master =
      stored.get(id) ??
      (seen.has(id)
        ? { merchantId: m.merchantId, data: JSON.parse(seen.get(id)!) as Record<string, unknown>, syncSeq: 0, updatedAt: m.now.toISOString() }
        : undefined);
    if (master && master.merchantId === m.merchantId) {
      outcomes.push(canonicalJson(master.data) === canonicalJson(doc) ? { kind: 'unchanged' } : { kind: 'master', stored: master });
      continue;
    }
    if (master) {
      outcomes.push(reject(`id conflict: ${id} is taken by another document; record it again under a new id`));
      continue;
    }
    const outcome = await checkAndStore(m, collection, doc, { store, registers, shifts, closed, reject });
    if (outcome.kind === 'stored') seen.set(id, canonicalJson(doc));
    outcomes.push(outcome);
  }
  if (outcomes.some((o) => o.kind === 'stored')) {
    m.changed(collection);
  }
  return outcomes;
}

interface CheckContext {
  store: StoreDay;
  registers: Map<string, number>;
  shifts: Map<string, { registerId: string; businessDay: string; closedBy: string | null; closedAt: string | null }>;
  closed: Set<string>;
  reject: (reason: string) => ShiftDocumentOutcome;
}

async function checkAndStore(m: Mutation, collection: ShiftCollection, doc: Record<string, unknown>, c: CheckContext): Promise<ShiftDocumentOutcome> {
  const schema = collection === 'shifts' ? shiftSchema : collection === 'cash-movements' ? cashMovementSchema : shiftCloseoutSchema;
  const result = schema.safeParse(doc);
  if (!result.success)
    return c.reject(
      `invalid ${collection === 'shifts' ? 'shift' : collection === 'cash-movements' ? 'cash movement' : 'closeout'}: ${describeIssues(result.error)}`,
    );
  const value = result.data as { registerId: string; registerNumber: number; currency?: string };
  const number = c.registers.get(value.registerId);
  if (number === undefined) return c.reject(`register ${value.registerId} is not a register of this store`);
  if (number !== value.registerNumber)
    return c.reject(`registerNumber ${value.registerNumber} does not match register ${value.registerId} (number ${number})`);
  if (value.currency !== undefined && value.currency !== c.store.currency)
    return c.reject(`currency ${value.currency} is not the store's currency ${c.store.currency}`);

  const write = async (fn: () => Promise<void>): Promise<ShiftDocumentOutcome> => {
    await m.savepoint('shift_document');
    try {
      await fn();
      await m.releaseSavepoint('shift_document');
      return { kind: 'stored' };
    } catch (err) {
      await m.rollbackToSavepoint('shift_document');
      await m.releaseSavepoint('shift_document');
      return c.reject(`the document could not be stored: ${(err instanceof Error ? err.message : String(err)).slice(0, 300)}`);
    }
  };
  const post = async (jt: JournalTransaction | undefined) => {
    if (!jt) return null;
    const [outcome] = await m.postJournalTransactions([jt]);
    if (outcome!.status === 'conflict' || outcome!.status === 'invalid') throw new Error(outcome!.message);
    await m.tx.exec(
      'SET CONSTRAINTS postings_balanced, journal_transactions_balanced IMMEDIATE; SET CONSTRAINTS postings_balanced, journal_transactions_balanced DEFERRED',
    );
    m.changed('journal-transactions');
    return jt.id;
  };

  if (collection === 'shifts') {
    const shift = shiftSchema.parse(doc);
    if (!isStorableTimestamp(shift.openedAt)) return c.reject('invalid shift: openedAt is not a plausible time');
    if (shift.openingCount && shift.openingCount.reduce((a, l) => a + l.valueCents * l.count, 0) !== shift.openingFloatCents) {
      return c.reject('invalid shift: openingFloatCents must be the total of openingCount');
    }
    const day = await firstOpenDay(m.tx, m.merchantId, businessDayOf(shift.openedAt, c.store.timeZone, c.store.cutoffHour), nextDay);
    return write(async () => {
      await insertShift(m.tx, m.merchantId, shift, day, m.now);
      await m.audit({
        action: 'shift.opened',
        entityType: 'shift',
        entityId: shift.id,
        registerId: shift.registerId,
        data: { businessDay: day, openingFloatCents: shift.openingFloatCents },
      });
    });
  }

  const child = result.data as { id: string; shiftId: string; registerId: string };
  const shift = c.shifts.get(child.shiftId);
  if (shift) {
    if (shift.registerId !== child.registerId) return c.reject(`shift ${child.shiftId} belongs to another register`);
    if (c.closed.has(shift.businessDay)) return c.reject(`business day ${shift.businessDay} is closed: its shifts take no more records`);
  }

  if (collection === 'cash-movements') {
    const movement = cashMovementSchema.parse(doc);
    if (!isStorableTimestamp(movement.createdAt)) return c.reject('invalid cash movement: createdAt is not a plausible time');
    if (shift?.closedAt && Date.parse(movement.createdAt) > Date.parse(shift.closedAt))
      return c.reject(`shift ${movement.shiftId} was closed at ${shift.closedAt}`);
    return write(async () => {
      await post(buildCashMovementJournalTransaction(movement, c.store.currency));
      await insertCashMovement(m.tx, m.merchantId, movement, m.now);
      await m.audit({
        action: `cash.${movement.kind}`,
        entityType: 'cash_movement',
        entityId: movement.id,
        registerId: movement.registerId,
        data: { shiftId: movement.shiftId, amountCents: movement.amountCents, reason: movement.reason ?? null },
      });
    });
  }

  const closeout = shiftCloseoutSchema.parse(doc);
  if (!isStorableTimestamp(closeout.closedAt)) return c.reject('invalid closeout: closedAt is not a plausible time');
  if (shift?.closedBy) return c.reject(`shift ${closeout.shiftId} is already closed by ${shift.closedBy}`);
  const r = closeout.report;
  if (
    r.kind !== 'z' ||
    r.shiftId !== closeout.shiftId ||
    r.countedCashCents !== closeout.countedCashCents ||
    r.overShortCents !== closeout.countedCashCents - r.expectedCashCents
  ) {
    return c.reject(
      'invalid closeout: report must be the Z-report of this shift with this count (kind z, shiftId, countedCashCents, overShortCents = counted − expected)',
    );
  }
  const overShortCents = r.overShortCents;
  return write(async () => {
    const jtId = await post(buildOverShortJournalTransaction(closeout, overShortCents));
    await insertShiftCloseout(m.tx, m.merchantId, closeout, overShortCents, jtId, m.now);
    await m.audit({
      action: 'shift.closed',
      entityType: 'shift',
      entityId: closeout.shiftId,
      registerId: closeout.registerId,
      data: {
        closeoutId: closeout.id,
        countedCashCents: closeout.countedCashCents,
        expectedCashCents: r.expectedCashCents,
        overShortCents,
        journalTransactionId: jtId,
      },
    });
  });
}

/** 409 `day_closed` naming the business day (problem errors: `day`). */
export function dayClosedProblem(day: string): ProblemError {
  return new ProblemError(409, 'day_closed', `Business day ${day} is closed: it cannot be changed.`, [
    { path: 'day', message: `business day ${day} is closed` },
  ]);
}

/* ───────────────────────────── reports ───────────────────────────── */

/** A shift as the API shows it: the register's documents, the server's report and what differs from the register's. */
export interface ShiftView {
  shift: ShiftRecord['shift'];
  businessDay: string;
  status: 'open' | 'closed';
  closeout: ShiftRecord['closeout'];
  movements: ShiftRecord['movements'];
  /** The server's figures, recomputed now from the sales and ledger postings it holds (X-report while open). */
  report: ZReport;
  /** Figures of the register's closeout report that differ from the server's (empty: they agree; open: empty). */
  differences: ReportDifference[];
}

/**
 * Recomputes a shift's report on the server and compares it with the register's closeout report:
 *
 * - the sales: the register's orders from the shift's opening — or, reaching back, from just after the close of this
 *   register's previous shift (the start of the business day for its first), since a sale rung up with no shift open
 *   belongs to the shift that follows ({@link salesStartOf}) — to its close (now while open);
 * - the refunds: the returns made on the register in this shift (as the register counts them);
 * - the drawer, from the ledger: the postings to the register's drawer account of those sales' journal transactions,
 *   of this shift's returns' refunds and of its paid in / paid out, plus the financial services' cash of the shift
 *   ({@link serviceCashOfShift}) — so the expected cash is what the ledger says the drawer got, and a register report
 *   that disagrees with the ledger is flagged (`expectedCashCents`, `overShortCents`), never shown as agreeing.
 */
export async function shiftView(db: Queryable, merchantId: string, record: ShiftRecord, at: Date): Promise<ShiftView> {
  const { shift, closeout, movements } = record;
  const until = closeout?.closedAt ?? at.toISOString();
  const salesAfter = await salesStartOf(db, merchantId, record);
  const from = salesAfter ? new Date(Date.parse(salesAfter) + 1).toISOString() : shift.openedAt;
  const movementTransactions = movements.filter((mv) => mv.shiftId === shift.id).map((mv) => shiftJournalTransactionId(mv.id));
  const { rows } = await db.query<{
    orders: Order[] | string | null;
    refunded: number | string | null;
    drawer: number | string | null;
    moved: number | string | null;
  }>(
    // Returns made at a register move cash in the shift they were made in, not in the sale's: their refunds'
    // postings count where the return's shiftId says, as the register's own report counts them.
    `WITH o AS (SELECT id, data FROM orders WHERE merchant_id = $1 AND register_id = $2 AND created_at >= $3 AND created_at <= $4),
          rr AS (SELECT r.journal_transaction_id, x.data->>'shiftId' AS shift_id FROM register_returns x JOIN order_refunds r ON r.id = x.refund_id WHERE x.merchant_id = $1 AND r.journal_transaction_id IS NOT NULL),
          drawer AS (SELECT jt.id, jt.source_type, jt.source_id, p.amount_cents FROM journal_transactions jt JOIN postings p ON p.journal_transaction_id = jt.id JOIN accounts a ON a.id = p.account_id
                      WHERE jt.merchant_id = $1 AND a.code = $5)
     SELECT (SELECT json_agg(data) FROM o) AS orders,
            (SELECT SUM(x.amount_cents) FROM register_returns x WHERE x.merchant_id = $1 AND x.data->>'shiftId' = $6) AS refunded,
            (SELECT SUM(d.amount_cents) FROM drawer d
              WHERE (d.source_type = 'order' AND d.source_id IN (SELECT id FROM o) AND d.id NOT IN (SELECT journal_transaction_id FROM rr))
                 OR d.id IN (SELECT journal_transaction_id FROM rr WHERE shift_id = $6)) AS drawer,
            (SELECT SUM(d.amount_cents) FROM drawer d WHERE d.id = ANY($7::text[])) AS moved`,
    [merchantId, shift.registerId, from, until, cashDrawerAccount(shift.registerNumber), shift.id, movementTransactions],
  );
  const row = rows[0]!;
  const orders = (typeof row.orders === 'string' ? (JSON.parse(row.orders) as Order[]) : row.orders) ?? [];
  const drawerCents = Number(row.drawer ?? 0);
  const report = computeZReport(shift, orders, movements, {
    drawerCents,
    ledgerDrawerCents: drawerCents + Number(row.moved ?? 0),
    refundsCents: Number(row.refunded ?? 0),
    ...(salesAfter ? { salesAfter } : {}),
    services: await serviceCashOfShift(db, merchantId, shift.id),
    ...(closeout ? { count: { closedAt: closeout.closedAt, countedCashCents: closeout.countedCashCents } } : {}),
  });
  return {
    shift,
    businessDay: record.businessDay,
    status: closeout ? 'closed' : 'open',
    closeout,
    movements,
    report,
    differences: closeout ? diffZReports(closeout.report, report) : [],
  };
}

/**
 * Where the server's count of a shift's sales starts when it reaches before the shift's opening (exclusive, ISO):
 * just after the close of this register's previous shift — or, for the register's first shift, the start of the
 * shift's business day — when that is before `openedAt`. The register opens a shift for a sale rung up with none open,
 * so sales in that gap belong to the shift that follows (the drawer holds their cash). Undefined when the previous
 * shift is still open (or its closeout not synced yet): the shift starts at its opening.
 */
async function salesStartOf(db: Queryable, merchantId: string, record: ShiftRecord): Promise<string | undefined> {
  const { shift, businessDay } = record;
  const { rows } = await db.query<{ closed_at: Date | string | null }>(
    `SELECT c.closed_at FROM shifts s LEFT JOIN shift_closeouts c ON c.shift_id = s.id AND c.merchant_id = s.merchant_id
      WHERE s.merchant_id = $1 AND s.register_id = $2 AND s.id <> $3 AND s.opened_at <= $4 ORDER BY s.opened_at DESC LIMIT 1`,
    [merchantId, shift.registerId, shift.id, shift.openedAt],
  );
  const dayStart = dayEnd(previousDay(businessDay), await storeDayOf(db, merchantId)).getTime();
  let start: number;
  if (rows.length === 0) start = dayStart;
  else if (rows[0]!.closed_at === null) return undefined;
  else start = Math.max(new Date(rows[0]!.closed_at).getTime(), dayStart);
  return start < Date.parse(shift.openedAt) ? new Date(start).toISOString() : undefined;
}

/** The calendar day before `day` (`YYYY-MM-DD`). */
function previousDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/**
 * The financial services' drawer side of a shift from the server's own records: the checks, transfers and
 * bill payments whose request named the shift (`shiftId`), transfers canceled at the counter in it. The register
 * computes the same from the service answers it stored as cash movements; a difference is flagged like any figure.
 */
export async function serviceCashOfShift(db: Queryable, merchantId: string, shiftId: string): Promise<ServiceCash> {
  // In turn, not Promise.all: `db` may be one transaction's client, which runs one query at a time (node-postgres
  // queues concurrent ones and warns that it will stop doing so).
  const checks = await checkCashOfShift(db, merchantId, shiftId);
  const transfers = await transferCashOfShift(db, merchantId, shiftId);
  const bills = await billCashOfShift(db, merchantId, shiftId);
  return {
    checksCashed: { count: checks.count, amountCents: checks.payoutCents },
    transfersIn: { count: transfers.in.count, amountCents: transfers.in.amountCents },
    billPaymentsIn: { count: bills.count, amountCents: bills.amountCents },
    transfersCanceled: { count: transfers.canceled.count, amountCents: transfers.canceled.amountCents },
    feesCents: checks.feeCents + transfers.in.feeCents + bills.feeCents - transfers.canceled.feeCents,
  };
}

/** A register the store closeout waits for: an open shift of the day, or nothing synced from it since the day ended. */
export interface MissingRegister {
  registerId: string;
  registerNumber: number;
  name: string;
  reason: 'open_shift' | 'not_synced';
  shiftId?: string;
  lastSeenAt: string | null;
}

/** A business day of the store: its shifts (server figures), the registers missing, the roll-up, and whether closed. */
export interface DayStatus {
  businessDay: string;
  timeZone: string;
  cutoffHour: number;
  closed: boolean;
  closedAt: string | null;
  shifts: ShiftView[];
  missing: MissingRegister[];
  totals: ReturnType<typeof rollUpReports>;
}

/** The instant (ISO) a business day ends: the cut-off hour of the next calendar day, local time, found by search. */
function dayEnd(day: string, store: StoreDay): Date {
  // The first whole hour from 12 h before the UTC guess whose business day is after `day`.
  let t = Date.parse(`${nextDay(day)}T00:00:00Z`) + (store.cutoffHour - 14) * 3_600_000;
  for (let i = 0; i < 30 * 4 && businessDayOf(new Date(t), store.timeZone, store.cutoffHour) <= day; i++) t += 15 * 60_000;
  return new Date(t);
}

/**
 * The status of business day `day` (`YYYY-MM-DD`): its shifts with the server's figures, the registers missing — a
 * shift of the day still open, or an active register with no shift of the day that has not been seen since the day
 * ended (it may hold an unsynced shift) — and the roll-up of the shifts' reports (a closed day: the stored one).
 */
export async function dayStatus(db: Queryable, merchantId: string, day: string, now: Date): Promise<DayStatus> {
  const store = await storeDayOf(db, merchantId);
  const closedRow = await getStoreCloseout(db, merchantId, day);
  const records = await shiftsOfDay(db, merchantId, day);
  const shifts: Awaited<ReturnType<typeof shiftView>>[] = [];
  for (const r of records) shifts.push(await shiftView(db, merchantId, r, now));
  const missing: MissingRegister[] = [];
  const end = dayEnd(day, store);
  const registers = await activeRegisters(db, merchantId);
  for (const reg of registers) {
    const own = shifts.filter((s) => s.shift.registerId === reg.id);
    const open = own.find((s) => s.status === 'open');
    if (open)
      missing.push({
        registerId: reg.id,
        registerNumber: reg.number,
        name: reg.name,
        reason: 'open_shift',
        shiftId: open.shift.id,
        lastSeenAt: reg.lastSeenAt,
      });
    else if (own.length === 0 && (reg.lastSeenAt === null || Date.parse(reg.lastSeenAt) < end.getTime())) {
      missing.push({ registerId: reg.id, registerNumber: reg.number, name: reg.name, reason: 'not_synced', lastSeenAt: reg.lastSeenAt });
    }
  }
  return {
    businessDay: day,
    timeZone: store.timeZone,
    cutoffHour: store.cutoffHour,
    closed: closedRow !== undefined,
    closedAt: closedRow?.closedAt ?? null,
    shifts,
    missing: closedRow ? (closedRow.missing as MissingRegister[]) : missing,
    totals: closedRow
      ? (closedRow.report as DayStatus['totals'])
      : rollUpReports(
          store.currency,
          shifts.map((s) => s.report),
        ),
  };
}

/**
 * Closes the store's business day `day`: rolls up every shift's server report, records the store closeout (the day is
 * locked from then on) with the registers missing, audits it (`store.closed`) and signs a checkpoint of the audit
 * head (kernel `writeCheckpoint`, reason `closeout`).
 * @throws ProblemError 409 `day_closed` naming the day when it is closed already; 409 `registers_missing` naming the
 *   registers (problem `missing`) while some are missing and `closeWithMissing` is not true.
 */
export async function closeStoreDay(
  ctx: Pick<AppContext, 'db' | 'clock' | 'feed' | 'auditSigner' | 'auditWitness'>,
  who: MutationActor,
  day: string,
  closeWithMissing: boolean,
): Promise<DayStatus & { checkpoint: { seq: number; headHash: string; signedAt: string } | null }> {
  const status = await mutation(ctx, who, async (m) => {
    const current = await dayStatus(m.tx, m.merchantId, day, m.now);
    if (current.closed) throw dayClosedProblem(day);
    if (current.missing.length > 0 && !closeWithMissing) {
      throw new ProblemError(
        409,
        'registers_missing',
        `Business day ${day} waits for ${current.missing.map((r) => `R${r.registerNumber} (${r.reason === 'open_shift' ? 'shift still open' : 'nothing synced since the day ended'})`).join(', ')}; close their shifts and sync, or close with missing.`,
        current.missing.map((r) => ({
          path: `registers.${r.registerId}`,
          message: `R${r.registerNumber} ${r.name}: ${r.reason}${r.shiftId ? ` (${r.shiftId})` : ''}`,
        })),
      );
    }
    await insertStoreCloseout(m.tx, m.merchantId, {
      businessDay: day,
      closedAt: m.now.toISOString(),
      closedBy: m.actor,
      missing: current.missing,
      report: current.totals,
    });
    await m.audit({
      action: 'store.closed',
      entityType: 'business_day',
      entityId: day,
      data: { missing: current.missing.map((r) => r.registerId), shifts: current.shifts.length, netSalesCents: current.totals.netSalesCents },
    });
    return { ...current, closed: true, closedAt: m.now.toISOString() };
  });
  // After the commit, so the signed head is the store closeout's own audit entry.
  const checkpoint = await writeCheckpoint(ctx.db, ctx.auditSigner, who.merchantId, 'closeout', ctx.clock(), ctx.auditWitness);
  return { ...status, checkpoint: checkpoint ? { seq: checkpoint.seq, headHash: checkpoint.headHash, signedAt: checkpoint.signedAt } : null };
}
