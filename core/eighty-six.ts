/**
 * 86'ing: items a restaurant has run out of, shown greyed on every register and kitchen display. Pure.
 *
 * An item is 86'd by hand ("out of the sea bass") or counted down from a par quantity set at the start of service
 * ("12 portions of the special"): each register counts what it sells, and the item is out once the sales counted by
 * every register reach the par. Registers apart from each other keep counting; their boards are joined with
 * {@link mergeEightySixBoards} (commutative, associative, idempotent), so when they meet they agree on what is left:
 * - the par (and who set it, when) is last-writer-wins by stamp; setting a new par starts a new count;
 * - the count of each register for the current par only grows (a grow-only counter per register), so nothing sold
 *   while apart is lost or counted twice;
 * - the hand mark (out / back) is last-writer-wins by stamp.
 */
import { compareStamps, type Stamp } from './checks.ts';

/** One item's state on the board. */
export interface EightySixEntry {
  /** Marked out by hand (true) or back (false), and when; absent: never marked. */
  mark?: { out: boolean; stamp: Stamp };
  /** The par set for this service, and when (its stamp names the count); absent: not counted down. */
  par?: { quantity: number; stamp: Stamp };
  /** Portions sold since the par was set, per register (only for the par with this stamp). */
  sold: Readonly<Record<string, number>>;
}

/** What every register and display holds: entries by catalog item id. */
export type EightySixBoard = Readonly<Record<string, EightySixEntry>>;

/** Thrown for a par or a count that is not a whole number in range. */
export class EightySixError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EightySixError';
  }
}

const EMPTY: EightySixEntry = { sold: {} };

/** Marks `itemId` out (86'd) or back, by hand. */
export function markEightySix(board: EightySixBoard, itemId: string, out: boolean, stamp: Stamp): EightySixBoard {
  const entry = board[itemId] ?? EMPTY;
  return { ...board, [itemId]: { ...entry, mark: { out, stamp } } };
}

/**
 * Sets the par of `itemId` (0–9999 portions) for a count-down; the count starts again from zero.
 * @throws EightySixError for a quantity that is not a whole number from 0 to 9999.
 */
export function setEightySixPar(board: EightySixBoard, itemId: string, quantity: number, stamp: Stamp): EightySixBoard {
  if (!Number.isInteger(quantity) || quantity < 0 || quantity > 9999)
    throw new EightySixError(`par must be a whole number from 0 to 9999, got ${quantity}`);
  const entry = board[itemId] ?? EMPTY;
  return { ...board, [itemId]: { ...entry, par: { quantity, stamp }, sold: {} } };
}

/**
 * Counts `quantity` portions of `itemId` sold on register `registerId` (a no-op for an item without a par).
 * @throws EightySixError for a quantity that is not a positive whole number.
 */
export function countEightySixSale(board: EightySixBoard, itemId: string, registerId: string, quantity: number): EightySixBoard {
  if (!Number.isInteger(quantity) || quantity < 1) throw new EightySixError(`a sale counts a positive whole number of portions, got ${quantity}`);
  const entry = board[itemId];
  if (!entry?.par) return board;
  return { ...board, [itemId]: { ...entry, sold: { ...entry.sold, [registerId]: (entry.sold[registerId] ?? 0) + quantity } } };
}

/**
 * What the registers show for an item: out (by hand, or its par sold) and the portions left of its par (null when it
 * is not counted down). A hand mark "back" after the par ran out does not bring portions back: set a new par.
 */
export function eightySixStatus(board: EightySixBoard, itemId: string): { out: boolean; left: number | null } {
  const entry = board[itemId];
  if (!entry) return { out: false, left: null };
  const left = entry.par ? Math.max(0, entry.par.quantity - Object.values(entry.sold).reduce((s, n) => s + n, 0)) : null;
  return { out: entry.mark?.out === true || left === 0, left };
}

function mergeEntry(a: EightySixEntry, b: EightySixEntry): EightySixEntry {
  const mark = !a.mark ? b.mark : !b.mark ? a.mark : compareStamps(b.mark.stamp, a.mark.stamp) > 0 ? b.mark : a.mark;
  const aPar = a.par ? a.par.stamp : undefined;
  const bPar = b.par ? b.par.stamp : undefined;
  let par = a.par;
  let sold: Record<string, number> = { ...a.sold };
  if (bPar && (!aPar || compareStamps(bPar, aPar) > 0)) {
    par = b.par;
    sold = { ...b.sold };
  } else if (aPar && bPar && compareStamps(aPar, bPar) === 0) {
    for (const [register, n] of Object.entries(b.sold)) sold[register] = Math.max(sold[register] ?? 0, n);
  }
  const sortedSold = Object.fromEntries(Object.entries(sold).sort(([x], [y]) => (x < y ? -1 : 1)));
  return { ...(mark ? { mark } : {}), ...(par ? { par } : {}), sold: sortedSold };
}

/** Joins two boards: the state both registers hold once each has heard of the other's changes. */
export function mergeEightySixBoards(a: EightySixBoard, b: EightySixBoard): EightySixBoard {
  const items = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return Object.fromEntries(items.map((item) => [item, mergeEntry(a[item] ?? EMPTY, b[item] ?? EMPTY)]));
}
