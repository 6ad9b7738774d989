/**
 * What the floor shows of the check book: each open check's state (the colour of its table), the tables' open checks,
 * the named tabs, and a check's lines grouped by seat and course. Pure.
 */
import { linesOfCheck, sumCents, type CheckBook, type CheckHeader, type CheckLine } from '../../../../core/index.ts';

/**
 * A table's state, in the order service goes: `free` (no open check), `seated` (a check, nothing ordered), `ordered`
 * (lines on it), `printed` (its pre-bill printed), `paying` (a payment taken, not yet closed).
 */
export type TableState = 'free' | 'seated' | 'ordered' | 'printed' | 'paying';

/** The names the floor gives the states (shown beside the colour, never colour alone). */
export const TABLE_STATE_NAMES: Record<TableState, string> = {
  free: 'Free',
  seated: 'Seated',
  ordered: 'Ordered',
  printed: 'Check printed',
  paying: 'Paying',
};

/** The course names a server picks from (course 1 = first). */
export const COURSE_NAMES = ['Starters', 'Mains', 'Desserts', 'Drinks'] as const;

/** "Starters", "Mains", …; "Course 5" beyond the named ones. */
export function courseName(course: number): string {
  return COURSE_NAMES[course - 1] ?? `Course ${course}`;
}

/** The open (not closed) checks of the book, oldest first. */
export function openChecks(book: CheckBook): CheckHeader[] {
  return Object.values(book.checks)
    .filter((c) => !c.closed)
    .sort((a, b) => Date.parse(a.opened.at) - Date.parse(b.opened.at) || (a.id < b.id ? -1 : 1));
}

/** The state of open check `check` (see {@link TableState}). */
export function checkState(book: CheckBook, check: CheckHeader): TableState {
  if (check.closed) return 'free';
  if (Object.values(book.payments).some((p) => p.checkId === check.id)) return 'paying';
  if (check.preBill) return 'printed';
  return linesOfCheck(book, check.id).length > 0 ? 'ordered' : 'seated';
}

/** The open check of each table (by table id): the oldest when two registers apart seated the same table. */
export function checksByTable(book: CheckBook): Map<string, CheckHeader[]> {
  const out = new Map<string, CheckHeader[]>();
  for (const check of openChecks(book)) {
    if (check.kind !== 'table' || !check.tableId) continue;
    out.set(check.tableId, [...(out.get(check.tableId) ?? []), check]);
  }
  return out;
}

/** The open named tabs (bar tabs), by name. */
export function openTabs(book: CheckBook): CheckHeader[] {
  return openChecks(book)
    .filter((c) => c.kind === 'tab')
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The gross of a check's live lines (minor units): what the floor shows; the tender prices the check whole. */
export function checkGrossCents(book: CheckBook, checkId: string): number {
  return sumCents(linesOfCheck(book, checkId).map((l) => l.line.grossCents));
}

/** One group of a check's lines: a seat (null: the table, shared) and a course. */
export interface LineGroup {
  seat: number | null;
  course: number;
  lines: (CheckLine & { id: string })[];
}

/** A check's live lines grouped by seat (the table's shared lines first), then course; lines in the order added. */
export function groupLines(book: CheckBook, checkId: string): LineGroup[] {
  const groups = new Map<string, LineGroup>();
  for (const line of linesOfCheck(book, checkId)) {
    const key = `${line.place.seat ?? 0}:${line.place.course}`;
    const group = groups.get(key) ?? { seat: line.place.seat, course: line.place.course, lines: [] };
    group.lines.push({ ...line, id: line.line.id });
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => (a.seat ?? 0) - (b.seat ?? 0) || a.course - b.course);
}
