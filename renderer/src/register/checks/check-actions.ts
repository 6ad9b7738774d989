/**
 * What a server does to open checks at the register, each one change of the check book (check-store.ts) stamped
 * with this register and the signed-in staff member: seat a table or open a named tab, add a priced line to a seat
 * and course, move a line, transfer a check to another table, merge two checks, send to the kitchen (all unsent lines,
 * or one course: "fire mains"), print the pre-bill and re-open the check after it.
 */
import {
  addCheckLine,
  closeCheck,
  kitchenTicketJobs,
  linesOfCheck,
  markPreBill,
  moveCheckLine,
  openCheck,
  sendCheckLines,
  updateCheckHeader,
  CheckError,
  type CheckBook,
  type OrderLine,
} from '../../../../core/index.ts';
import type { RegisterDatabase } from '../db/database.ts';
import { getDeviceClient } from '../../platform/devices/index.ts';
import { changeCheckBook, stampOf, type CheckActor } from './check-store.ts';
import { sendKitchenJobs } from './kitchen-send.ts';
import { currentKitchenRouting } from './kitchen-routing.ts';
import { preBillPrintJob } from './pre-bill-job.ts';

const same = <T>(book: CheckBook, result: T) => ({ book, result });

/**
 * Seats a table (`tableId`, named as the plan names it) or opens a named tab (`tableId` null): a new check served by
 * the signed-in staff member. @returns the check's id. @throws CheckError `invalid_place` for guests outside 1–99.
 */
export function seatCheck(db: RegisterDatabase, actor: CheckActor, seat: { tableId: string | null; name: string; guests: number }): Promise<string> {
  return changeCheckBook(db, (book) => {
    const opened = openCheck(
      book,
      { kind: seat.tableId ? 'table' : 'tab', tableId: seat.tableId, name: seat.name, guests: seat.guests, serverStaffId: actor.staffId },
      stampOf(actor),
    );
    return { book: opened.book, result: opened.checkId };
  });
}

/** Adds a priced line (sale/cart.ts `priceCartLine`) to a seat (null: the table) and course. @throws CheckError as core. */
export function addLine(
  db: RegisterDatabase,
  actor: CheckActor,
  checkId: string,
  line: OrderLine,
  seat: number | null,
  course: number,
): Promise<void> {
  return changeCheckBook(db, (book) => same(addCheckLine(book, checkId, line, { seat, course }, stampOf(actor)), undefined));
}

/** Moves a line to another check, seat or course. @throws CheckError as core `moveCheckLine`. */
export function moveLine(
  db: RegisterDatabase,
  actor: CheckActor,
  lineId: string,
  to: { checkId?: string; seat?: number | null; course?: number },
): Promise<void> {
  return changeCheckBook(db, (book) => same(moveCheckLine(book, lineId, to, stampOf(actor)), undefined));
}

/** Transfers a table's check to another table (its id and name). @throws CheckError as core `updateCheckHeader`. */
export function transferCheck(db: RegisterDatabase, actor: CheckActor, checkId: string, table: { id: string; name: string }): Promise<void> {
  return changeCheckBook(db, (book) => same(updateCheckHeader(book, checkId, { tableId: table.id, name: table.name }, stampOf(actor)), undefined));
}

/**
 * Merges check `fromId` into `intoId`: its lines move over (seats and courses kept), the guests add up, and the emptied
 * check is closed. @throws CheckError `invalid_split` when `fromId` has payments (pay or refund them first), else as core.
 */
export function mergeChecks(db: RegisterDatabase, actor: CheckActor, fromId: string, intoId: string): Promise<void> {
  return changeCheckBook(db, (book) => {
    if (Object.values(book.payments).some((p) => p.checkId === fromId)) {
      throw new CheckError('invalid_split', 'a check with payments cannot be merged into another');
    }
    const stamp = stampOf(actor);
    let next = book;
    for (const line of linesOfCheck(book, fromId)) next = moveCheckLine(next, line.line.id, { checkId: intoId }, stamp);
    const guests = Math.min(99, book.checks[intoId]!.guests + book.checks[fromId]!.guests);
    next = updateCheckHeader(next, intoId, { guests }, stamp);
    return same(closeCheck(next, fromId, stamp), undefined);
  });
}

/**
 * Sends to the kitchen the check's lines not sent yet — all, or those of `course` — under one send id, and hands the
 * kitchen tickets (core/kitchen.ts) to the printers (kitchen-send.ts).
 * @returns how many lines were sent and whether the tickets reached the print queue (`printError` else)
 */
export async function sendToKitchen(
  db: RegisterDatabase,
  actor: CheckActor,
  checkId: string,
  options: { course?: number; serverName: string; categoryOf?: (catalogItemId: string) => string | undefined },
): Promise<{ sent: number; printError?: string }> {
  const stamp = stampOf(actor);
  const { lines, check } = await changeCheckBook(db, (book) => {
    const sent = sendCheckLines(book, checkId, stamp, options.course === undefined ? {} : { course: options.course });
    return {
      book: sent.book,
      result: { lines: sent.lineIds.map((id) => sent.book.lines[id]!), check: sent.book.checks[checkId]!, sendId: sent.sendId },
    };
  });
  if (lines.length === 0) return { sent: 0 };
  try {
    const routing = currentKitchenRouting();
    const jobs = kitchenTicketJobs(
      {
        kind: 'send',
        id: lines[0]!.sent!.sendId,
        check,
        serverName: options.serverName,
        lines,
        at: stamp.at,
        timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      },
      routing,
      options.categoryOf,
    );
    await sendKitchenJobs(jobs, routing);
    return { sent: lines.length };
  } catch (err) {
    return { sent: lines.length, printError: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Prints the check's pre-bill on the receipt printer and marks it printed (the check stays open).
 * @returns `printError` when the print queue refused it (the mark is kept: the floor shows the check as printed)
 */
export async function printPreBill(
  db: RegisterDatabase,
  actor: CheckActor,
  checkId: string,
  merchant: { name: string; currency: string },
): Promise<{ printError?: string }> {
  const stamp = stampOf(actor);
  const job = await changeCheckBook(db, (book) => {
    const marked = markPreBill(book, checkId, true, stamp);
    return { book: marked, result: preBillPrintJob(marked, marked.checks[checkId]!, merchant.name, merchant.currency, stamp.at) };
  });
  try {
    await getDeviceClient().print(job);
    return {};
  } catch (err) {
    return { printError: err instanceof Error ? err.message : String(err) };
  }
}

/** Re-opens a check after its pre-bill, for more orders (recorded in the check's history). */
export function reopenCheck(db: RegisterDatabase, actor: CheckActor, checkId: string): Promise<void> {
  return changeCheckBook(db, (book) => same(markPreBill(book, checkId, false, stampOf(actor)), undefined));
}
