/**
 * Open checks of a restaurant, as every register of the store holds them — also while registers are cut off from each
 * other — and how a check is split for paying. Pure: no I/O.
 *
 * **Replicas that converge.** A register keeps a {@link CheckBook}: the store's open checks and their lines. Two books
 * are joined with {@link mergeCheckBooks}, which is commutative, associative and idempotent (a state-based CRDT), so
 * registers that exchanged their books in any order, any number of times, hold the same checks. The rules:
 * - a line has its own id and is priced once, when it is added; nothing about what was ordered changes after that;
 * - where a line is (its check, seat and course) is last-writer-wins per line, by {@link Stamp};
 * - a void is a tombstone and wins over any move: a voided line stays voided whatever a register that had not heard
 *   of the void did with it; of two voids, the earlier one (its reason and who) is kept;
 * - a line sent to the kitchen stays sent; the earliest send is kept (tickets are idempotent by send id);
 * - a check's header (table, name, guests, server) is last-writer-wins; a closed check stays closed.
 *
 * **Splitting.** {@link splitCheck} divides a check's priced totals into parts — by seat, evenly N ways, or by item,
 * an item shared by several parts in equal parts — with the largest-remainder rule per line and per tax rate, so that
 * the parts add up exactly to the whole on every figure and each part is a sale whose journal transaction balances.
 */
import { newId } from './ids.ts';
import { allocateProRata, sumCents, type Cents } from './money.ts';
import type { OrderTotals } from './pricing.ts';
import type { LineTax, OrderLine } from './schemas.ts';

/**
 * When and where a change was made: an ISO-8601 instant and the register (replica) that made it. Stamps are totally
 * ordered — instant first, then register id — so two registers always agree on which of two changes is the later.
 */
export interface Stamp {
  at: string;
  by: string;
  /** The staff member signed in on that register, for the audit trail (not part of the order of stamps). */
  staffId?: string;
}

/** Orders two stamps: negative when `a` is earlier, positive when later, 0 when the same change. */
export function compareStamps(a: Stamp, b: Stamp): number {
  const at = Date.parse(a.at) - Date.parse(b.at);
  if (at !== 0) return at;
  return a.by < b.by ? -1 : a.by > b.by ? 1 : 0;
}

/** The later of two stamped values (the first on a tie, which is then the same change). */
function later<T extends { stamp: Stamp }>(a: T, b: T): T {
  return compareStamps(b.stamp, a.stamp) > 0 ? b : a;
}

/** The earlier of two optional stamped values. */
function earlier<T extends { stamp: Stamp }>(a: T | undefined, b: T | undefined): T | undefined {
  if (!a) return b;
  if (!b) return a;
  return compareStamps(b.stamp, a.stamp) < 0 ? b : a;
}

/** Where a line is: its check, the guest's seat (1…; null for the table, shared) and its course (1 = first). */
export interface LinePlace {
  checkId: string;
  seat: number | null;
  course: number;
  stamp: Stamp;
}

/** One line of an open check. `line` is priced when the line is added and never changes. */
export interface CheckLine {
  line: OrderLine;
  /** The server's note to the kitchen ("no onions"), as given when the line was added. */
  note?: string;
  added: Stamp;
  place: LinePlace;
  /** First sent to the kitchen: which send (a ticket is printed once per send id) and when. */
  sent?: { sendId: string; stamp: Stamp };
  /** Voided: why, and who voided it when (a tombstone: the line is kept, never counted). */
  voided?: { reason: string; staffId: string; stamp: Stamp };
}

/** A check's header: a table's check or a named tab, the guests, the server; closed once paid. */
export interface CheckHeader {
  id: string;
  opened: Stamp;
  kind: 'table' | 'tab';
  /** The table (its floor-plan id) for a table's check. */
  tableId: string | null;
  name: string;
  guests: number;
  serverStaffId: string;
  stamp: Stamp;
  /**
   * The pre-bill (the check printed for the guests to read) was printed: when and by whom. It does not close the
   * check; re-opening it for more orders removes it (a header change, last writer wins, kept in the audit trail).
   */
  preBill?: { stamp: Stamp };
  closed?: { stamp: Stamp };
}

/**
 * A payment taken for a check (or a part of it): the sale (order) that paid it and the amount it paid toward the
 * check, tips excluded. Immutable once taken.
 */
export interface CheckPayment {
  orderId: string;
  checkId: string;
  amountCents: Cents;
  stamp: Stamp;
  /**
   * Set by the server only, once, when this payment went past the check's total ({@link overpaymentsOf}): what it owes
   * back, and when the server flagged it (`flagged.by` is `server`). Kept by every merge: the earliest flag wins.
   */
  refund?: { refundCents: Cents; flagged: Stamp };
}

/**
 * What a register holds: checks by id, lines by id (a line names its check in `place.checkId`) and the payments taken
 * for them by order id.
 */
export interface CheckBook {
  checks: Readonly<Record<string, CheckHeader>>;
  lines: Readonly<Record<string, CheckLine>>;
  payments: Readonly<Record<string, CheckPayment>>;
}

/** An empty book. */
export const EMPTY_CHECK_BOOK: CheckBook = { checks: {}, lines: {}, payments: {} };

/** Thrown for an operation the book cannot take (an unknown check or line, a closed check, bad seat or course). */
export class CheckError extends Error {
  constructor(
    readonly code: 'unknown_check' | 'unknown_line' | 'check_closed' | 'line_voided' | 'invalid_place' | 'invalid_split',
    message: string,
  ) {
    super(message);
    this.name = 'CheckError';
  }
}

/**
 * Opens a check (`chk_<ULID>` unless `id` is given) on `book`.
 * @throws CheckError `invalid_place` when `guests` is not an integer from 1 to 99.
 */
export function openCheck(
  book: CheckBook,
  header: { kind: 'table' | 'tab'; tableId?: string | null; name: string; guests: number; serverStaffId: string; id?: string },
  stamp: Stamp,
): { book: CheckBook; checkId: string } {
  if (!Number.isInteger(header.guests) || header.guests < 1 || header.guests > 99) {
    throw new CheckError('invalid_place', `guests must be a whole number from 1 to 99, got ${header.guests}`);
  }
  const id = header.id ?? newId('check');
  const check: CheckHeader = {
    id,
    opened: stamp,
    kind: header.kind,
    tableId: header.tableId ?? null,
    name: header.name,
    guests: header.guests,
    serverStaffId: header.serverStaffId,
    stamp,
  };
  return { book: { ...book, checks: { ...book.checks, [id]: check } }, checkId: id };
}

function openHeader(book: CheckBook, checkId: string): CheckHeader {
  const check = book.checks[checkId];
  if (!check) throw new CheckError('unknown_check', `check ${checkId} is not in this book`);
  if (check.closed) throw new CheckError('check_closed', `check ${checkId} is closed`);
  return check;
}

function assertPlace(seat: number | null, course: number): void {
  if (seat !== null && (!Number.isInteger(seat) || seat < 1 || seat > 99)) {
    throw new CheckError('invalid_place', `seat must be null or a whole number from 1 to 99, got ${seat}`);
  }
  if (!Number.isInteger(course) || course < 1 || course > 9) {
    throw new CheckError('invalid_place', `course must be a whole number from 1 to 9, got ${course}`);
  }
}

/**
 * Adds a priced line (from core/pricing.ts `priceLine`; its `id` is the line's id) to open check `checkId`.
 * @throws CheckError `unknown_check`, `check_closed`, or `invalid_place` for a seat outside 1–99, a course outside 1–9
 *   or a note over 200 characters.
 */
export function addCheckLine(
  book: CheckBook,
  checkId: string,
  line: OrderLine,
  place: { seat: number | null; course: number; note?: string },
  stamp: Stamp,
): CheckBook {
  openHeader(book, checkId);
  assertPlace(place.seat, place.course);
  if (place.note !== undefined && place.note.length > 200) throw new CheckError('invalid_place', 'a note to the kitchen is at most 200 characters');
  const added: CheckLine = {
    line,
    ...(place.note ? { note: place.note } : {}),
    added: stamp,
    place: { checkId, seat: place.seat, course: place.course, stamp },
  };
  return { ...book, lines: { ...book.lines, [line.id]: added } };
}

function liveLine(book: CheckBook, lineId: string): CheckLine {
  const line = book.lines[lineId];
  if (!line) throw new CheckError('unknown_line', `line ${lineId} is not in this book`);
  if (line.voided) throw new CheckError('line_voided', `line ${lineId} is voided`);
  return line;
}

/**
 * Moves a line: to another open check (a transfer, or a merge of two tables line by line), another seat or course.
 * @throws CheckError `unknown_line`, `line_voided`, `unknown_check` / `check_closed` for the target, `invalid_place`.
 */
export function moveCheckLine(book: CheckBook, lineId: string, to: Partial<Pick<LinePlace, 'checkId' | 'seat' | 'course'>>, stamp: Stamp): CheckBook {
  const current = liveLine(book, lineId);
  const place: LinePlace = {
    checkId: to.checkId ?? current.place.checkId,
    seat: to.seat === undefined ? current.place.seat : to.seat,
    course: to.course ?? current.place.course,
    stamp,
  };
  openHeader(book, place.checkId);
  assertPlace(place.seat, place.course);
  return { ...book, lines: { ...book.lines, [lineId]: { ...current, place } } };
}

/**
 * Voids a line with its reason (a tombstone: kept, shown struck through, never counted).
 * @throws CheckError `unknown_line`, `line_voided`.
 */
export function voidCheckLine(book: CheckBook, lineId: string, reason: string, staffId: string, stamp: Stamp): CheckBook {
  const current = liveLine(book, lineId);
  return { ...book, lines: { ...book.lines, [lineId]: { ...current, voided: { reason, staffId, stamp } } } };
}

/**
 * Sends to the kitchen the live lines of `checkId` not sent yet — all of them, or only those of `course` ("fire
 * mains") — under one send id (`snd_<ULID>` unless given), and answers which lines it sent.
 * @throws CheckError `unknown_check`, `check_closed`.
 */
export function sendCheckLines(
  book: CheckBook,
  checkId: string,
  stamp: Stamp,
  options: { course?: number; sendId?: string } = {},
): { book: CheckBook; sendId: string; lineIds: string[] } {
  openHeader(book, checkId);
  const sendId = options.sendId ?? newId('kitchenSend');
  const lines = { ...book.lines };
  const lineIds: string[] = [];
  for (const [id, l] of Object.entries(book.lines)) {
    if (l.place.checkId !== checkId || l.voided || l.sent) continue;
    if (options.course !== undefined && l.place.course !== options.course) continue;
    lines[id] = { ...l, sent: { sendId, stamp } };
    lineIds.push(id);
  }
  return { book: { ...book, lines }, sendId, lineIds };
}

/** Closes a check (paid). @throws CheckError `unknown_check`, `check_closed`. */
export function closeCheck(book: CheckBook, checkId: string, stamp: Stamp): CheckBook {
  const check = openHeader(book, checkId);
  return { ...book, checks: { ...book.checks, [checkId]: { ...check, closed: { stamp } } } };
}

/** Changes a check's guests, name or server (last writer wins). @throws CheckError `unknown_check`, `check_closed`, `invalid_place`. */
export function updateCheckHeader(
  book: CheckBook,
  checkId: string,
  change: Partial<Pick<CheckHeader, 'name' | 'guests' | 'serverStaffId' | 'tableId'>>,
  stamp: Stamp,
): CheckBook {
  const check = openHeader(book, checkId);
  if (change.guests !== undefined && (!Number.isInteger(change.guests) || change.guests < 1 || change.guests > 99)) {
    throw new CheckError('invalid_place', `guests must be a whole number from 1 to 99, got ${change.guests}`);
  }
  return { ...book, checks: { ...book.checks, [checkId]: { ...check, ...change, stamp } } };
}

/**
 * Marks a check's pre-bill printed (`preBill`), or with `printed: false` re-opens it for more orders (removes the mark).
 * A header change: last writer wins. @throws CheckError `unknown_check`, `check_closed`.
 */
export function markPreBill(book: CheckBook, checkId: string, printed: boolean, stamp: Stamp): CheckBook {
  const { preBill: _was, ...check } = openHeader(book, checkId);
  return { ...book, checks: { ...book.checks, [checkId]: { ...check, ...(printed ? { preBill: { stamp } } : {}), stamp } } };
}

function mergeHeader(a: CheckHeader, b: CheckHeader): CheckHeader {
  const base = later(a, b);
  const closed = earlier(a.closed, b.closed);
  const opened = compareStamps(b.opened, a.opened) < 0 ? b.opened : a.opened;
  const { closed: _drop, ...rest } = base;
  return { ...rest, opened, ...(closed ? { closed } : {}) };
}

function mergeLine(a: CheckLine, b: CheckLine): CheckLine {
  // What was ordered never changes: both replicas hold the line as added (the earlier add wins should a bug differ).
  const origin = compareStamps(b.added, a.added) < 0 ? b : a;
  const sent = earlier(a.sent, b.sent);
  const voided = earlier(a.voided, b.voided);
  return {
    line: origin.line,
    ...(origin.note !== undefined ? { note: origin.note } : {}),
    added: origin.added,
    place: later(a.place, b.place),
    ...(sent ? { sent } : {}),
    ...(voided ? { voided } : {}),
  };
}

/**
 * Joins two registers' books into the book both hold once they have heard of each other's changes. Commutative,
 * associative and idempotent, so any exchange order converges; no line is ever lost (every line of either book is in
 * the result).
 */
export function mergeCheckBooks(a: CheckBook, b: CheckBook): CheckBook {
  const checks: Record<string, CheckHeader> = { ...a.checks };
  for (const [id, h] of Object.entries(b.checks)) checks[id] = checks[id] ? mergeHeader(checks[id], h) : h;
  const lines: Record<string, CheckLine> = { ...a.lines };
  for (const [id, l] of Object.entries(b.lines)) lines[id] = lines[id] ? mergeLine(lines[id], l) : l;
  // A payment is taken once, on one register, and never changes: the union. Its refund flag, once raised, stays.
  const payments: Record<string, CheckPayment> = { ...a.payments };
  for (const [id, p] of Object.entries(b.payments)) {
    const held = payments[id];
    if (!held) {
      payments[id] = p;
      continue;
    }
    const { refund: _kept, ...taken } = compareStamps(held.stamp, p.stamp) <= 0 ? held : p;
    const flags = [held.refund, p.refund].filter((r): r is NonNullable<CheckPayment['refund']> => r !== undefined);
    const refund = flags.sort((x, y) => compareStamps(x.flagged, y.flagged) || x.refundCents - y.refundCents)[0];
    payments[id] = { ...taken, ...(refund ? { refund } : {}) };
  }
  return { checks: sortedRecord(checks), lines: sortedRecord(lines), payments: sortedRecord(payments) };
}

function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/**
 * Records a payment taken for open check `checkId` (it stays open until {@link closeCheck}: a part may be paid).
 * @throws CheckError `unknown_check`, `check_closed`, or `invalid_split` for an amount that is not a positive integer.
 */
export function recordCheckPayment(book: CheckBook, payment: CheckPayment): CheckBook {
  openHeader(book, payment.checkId);
  if (!Number.isSafeInteger(payment.amountCents) || payment.amountCents <= 0) {
    throw new CheckError('invalid_split', `a payment is a positive whole number of cents, got ${payment.amountCents}`);
  }
  return { ...book, payments: { ...book.payments, [payment.orderId]: payment } };
}

/**
 * The payments of `checkId` that take what was paid above `totalCents` (the check's total, tips excluded) — as when
 * two registers apart from each other both took the check's payment. Payments count in stamp order; a payment that
 * goes past the total owes back the part above it (all of it when the check was already paid). Each is to be flagged
 * for refund, shown on the check and to a manager, never kept silently.
 * @returns `{ orderId, refundCents }` per payment that owes something back, in stamp order
 */
export function overpaymentsOf(book: CheckBook, checkId: string, totalCents: Cents): { orderId: string; refundCents: Cents }[] {
  const payments = Object.values(book.payments)
    .filter((p) => p.checkId === checkId)
    .sort((x, y) => compareStamps(x.stamp, y.stamp) || (x.orderId < y.orderId ? -1 : 1));
  const out: { orderId: string; refundCents: Cents }[] = [];
  let paid = 0;
  for (const p of payments) {
    const before = paid;
    paid += p.amountCents;
    const above = paid - Math.max(before, totalCents);
    if (paid > totalCents) out.push({ orderId: p.orderId, refundCents: Math.min(p.amountCents, above) });
  }
  return out;
}

/** The live (not voided) lines of a check, in the order they were added. */
export function linesOfCheck(book: CheckBook, checkId: string): CheckLine[] {
  return Object.values(book.lines)
    .filter((l) => l.place.checkId === checkId && !l.voided)
    .sort((x, y) => compareStamps(x.added, y.added) || (x.line.id < y.line.id ? -1 : 1));
}

/** How to split a check for paying. */
export type SplitPlan =
  /** Every line shared by `parts` parts equally. */
  | { kind: 'even'; parts: number }
  /** One part per seat that has lines (in seat order); the table's shared lines (seat null) shared by all of them. */
  | { kind: 'seats' }
  /** `parts` parts; each line in the parts listed for it (0-based), shared equally when more than one. */
  | { kind: 'items'; parts: number; assignment: Readonly<Record<string, readonly number[]>> };

/** One line's share of a part. */
export interface PartLine {
  lineId: string;
  kind: OrderLine['kind'];
  name: string;
  /** How many parts share the line (1 when it is this part's alone). */
  sharedBy: number;
  grossCents: Cents;
  discountCents: Cents;
  netCents: Cents;
  taxCents: Cents;
  taxes: LineTax[];
}

/** One part of a split check: its lines' shares, its tax per rate and its totals (as an order's). */
export interface CheckPart {
  /** For a split by seat, the seat; else null. */
  seat: number | null;
  lines: PartLine[];
  taxLines: { taxRateId: string; name: string; basisPoints: number; inclusive: boolean; taxCents: Cents }[];
  subtotalCents: Cents;
  discountCents: Cents;
  taxCents: Cents;
  inclusiveTaxCents: Cents;
  totalCents: Cents;
}

const MAX_PARTS = 50;

/**
 * Which parts each line goes to, for `plan`: one array per line of `lines` (in order) listing part indexes.
 * @returns the parts' seats (for a split by seat) and the assignment
 * @throws CheckError `invalid_split` for a part count outside 1–50, a line with no part or an unknown part, or a split
 *   by seat of a check where no line has a seat.
 */
export function splitAssignment(
  lines: readonly { id: string; seat: number | null }[],
  plan: SplitPlan,
): { seats: (number | null)[]; parts: number[][] } {
  if (plan.kind === 'seats') {
    const seats = [...new Set(lines.map((l) => l.seat).filter((s): s is number => s !== null))].sort((x, y) => x - y);
    if (seats.length === 0) throw new CheckError('invalid_split', 'no line has a seat: split evenly or by item instead');
    const all = seats.map((_, i) => i);
    return { seats, parts: lines.map((l) => (l.seat === null ? all : [seats.indexOf(l.seat)])) };
  }
  if (!Number.isInteger(plan.parts) || plan.parts < 1 || plan.parts > MAX_PARTS) {
    throw new CheckError('invalid_split', `parts must be a whole number from 1 to ${MAX_PARTS}, got ${plan.parts}`);
  }
  const seats = Array.from({ length: plan.parts }, () => null);
  if (plan.kind === 'even') return { seats, parts: lines.map(() => seats.map((_, i) => i)) };
  return {
    seats,
    parts: lines.map((l) => {
      const listed = [...new Set(plan.assignment[l.id] ?? [])];
      if (listed.length === 0) throw new CheckError('invalid_split', `line ${l.id} is in no part`);
      for (const p of listed) {
        if (!Number.isInteger(p) || p < 0 || p >= plan.parts)
          throw new CheckError('invalid_split', `line ${l.id} names part ${p}, not one of 0–${plan.parts - 1}`);
      }
      return listed.sort((x, y) => x - y);
    }),
  };
}

/** `amount` (≥ 0) in `n` equal parts; the extra cents go one each to parts `start`, `start + 1`, … (wrapping round). */
function shareEqually(amount: Cents, n: number, start: number): Cents[] {
  const base = Math.floor(amount / n);
  const extra = amount - base * n;
  return Array.from({ length: n }, (_, k) => base + ((k - start + n) % n < extra ? 1 : 0));
}

/**
 * Splits a check's priced totals (core/pricing.ts `computeOrderTotals` over its live lines, in the same order as
 * `lines`) into parts. Each line's gross, net and tax of each rate are divided among the parts that share it in equal
 * parts (the largest-remainder rule with equal weights: whole cents, the extra ones one to a part, going round the
 * parts from line to line so that no part collects them all), and its discount is gross − net, so:
 * - the parts add up exactly to the whole: subtotal, discount, tax per rate, total;
 * - each part's total is its subtotal − discount + exclusive tax; no share is negative and no part's inclusive tax
 *   exceeds its net, so each part is paid as a
 *   sale of its own whose journal transaction balances (core/ledger.ts `saleCreditPostings`).
 * @param lines the check's live lines with their seats, in the order of `totals.lines`
 * @throws CheckError `invalid_split` (see {@link splitAssignment}), or when `lines` and `totals.lines` differ.
 */
export function splitCheck(totals: OrderTotals, lines: readonly { id: string; seat: number | null }[], plan: SplitPlan): CheckPart[] {
  if (lines.length !== totals.lines.length || lines.some((l, i) => l.id !== totals.lines[i]!.id)) {
    throw new CheckError('invalid_split', 'the lines to split are not the priced lines of the check');
  }
  const { seats, parts: assignment } = splitAssignment(lines, plan);
  // Each line's tax per rate, as computeOrderTotals allocated it (the same allocation of each tax line over the nets).
  const rateShares = totals.taxLines.map((rate) =>
    allocateProRata(
      rate.taxCents,
      totals.lines.map((l) => (l.taxes.some((t) => t.taxRateId === rate.taxRateId) ? l.netCents : 0)),
    ),
  );
  const partLines: PartLine[][] = seats.map(() => []);
  const partRates: number[][] = seats.map(() => totals.taxLines.map(() => 0));
  // Where the next line's extra cents start, so that they go round the parts instead of always to the first.
  let cursor = 0;
  totals.lines.forEach((line, i) => {
    const members = assignment[i]!;
    const start = cursor % members.length;
    cursor += line.grossCents % members.length;
    const gross = shareEqually(line.grossCents, members.length, start);
    // Net rather than discount is divided, so a part's inclusive tax never exceeds its net: every figure of one line
    // gives its extra cents to the parts in the same order.
    const net = shareEqually(line.netCents, members.length, start);
    const taxByRate = rateShares.map((shares) => shareEqually(shares[i] ?? 0, members.length, start));
    members.forEach((part, k) => {
      const taxCents = sumCents(taxByRate.map((r) => r[k]!));
      taxByRate.forEach((r, t) => (partRates[part]![t]! += r[k]!));
      partLines[part]!.push({
        lineId: line.id,
        kind: line.kind,
        name: line.name,
        sharedBy: members.length,
        grossCents: gross[k]!,
        discountCents: gross[k]! - net[k]!,
        netCents: net[k]!,
        taxCents,
        taxes: line.taxes,
      });
    });
  });
  return seats.map((seat, p) => {
    const taxLines = totals.taxLines.map((rate, t) => ({
      taxRateId: rate.taxRateId,
      name: rate.name,
      basisPoints: rate.basisPoints,
      inclusive: rate.inclusive,
      taxCents: partRates[p]![t]!,
    }));
    const subtotalCents = sumCents(partLines[p]!.map((l) => l.grossCents));
    const discountCents = sumCents(partLines[p]!.map((l) => l.discountCents));
    const taxCents = sumCents(taxLines.map((t) => t.taxCents));
    const inclusiveTaxCents = sumCents(taxLines.filter((t) => t.inclusive).map((t) => t.taxCents));
    return {
      seat,
      lines: partLines[p]!,
      taxLines,
      subtotalCents,
      discountCents,
      taxCents,
      inclusiveTaxCents,
      totalCents: subtotalCents - discountCents + taxCents - inclusiveTaxCents,
    };
  });
}
