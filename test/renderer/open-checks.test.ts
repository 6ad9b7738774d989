/**
 * The register's open checks, pure parts: the floor's table states and line groups (checks/floor-state.ts), and how a
 * pulled copy or a push's answer is joined with the held document (checks/check-join.ts) — kept stamped when it adds
 * nothing, joined and left to push when the register holds changes the server has not heard of.
 */
import { describe, expect, it } from 'vitest';
import {
  addCheckLine,
  EMPTY_CHECK_BOOK,
  markPreBill,
  moveCheckLine,
  openCheck,
  recordCheckPayment,
  sendCheckLines,
  voidCheckLine,
  type CheckBook,
  type OrderLine,
  type Stamp,
} from '../../core/index.ts';
import { checkConflictHandler, joinPulled } from '../../renderer/src/register/checks/check-join.ts';
import { checksByTable, checkState, courseName, groupLines, openTabs } from '../../renderer/src/register/checks/floor-state.ts';

const TABLE = 'tbl_01HZY0000000000000000000T1';
const at = (minute: number, by = 'reg_a'): Stamp => ({ at: `2026-11-28T12:${String(minute).padStart(2, '0')}:00.000Z`, by, staffId: 'stf_1' });
const line = (id: string, grossCents = 500): OrderLine =>
  ({
    id,
    kind: 'item',
    catalogItemId: 'itm_x',
    variationId: 'var_x',
    name: `Item ${id}`,
    quantity: 1,
    unitPriceCents: grossCents,
    grossCents,
    discountCents: 0,
    netCents: grossCents,
    taxCents: 0,
    taxes: [],
    modifiers: [],
  }) as unknown as OrderLine;

function seated(): { book: CheckBook; checkId: string } {
  return openCheck(EMPTY_CHECK_BOOK, { kind: 'table', tableId: TABLE, name: 'Table 12', guests: 4, serverStaffId: 'stf_1' }, at(0));
}

describe('floor state', () => {
  it('colours a table seated, ordered, check printed, then paying, and frees it when closed', () => {
    const { book, checkId } = seated();
    expect(checkState(book, book.checks[checkId]!)).toBe('seated');
    const ordered = addCheckLine(book, checkId, line('l1'), { seat: 1, course: 1 }, at(1));
    expect(checkState(ordered, ordered.checks[checkId]!)).toBe('ordered');
    const printed = markPreBill(ordered, checkId, true, at(2));
    expect(checkState(printed, printed.checks[checkId]!)).toBe('printed');
    const reopened = markPreBill(printed, checkId, false, at(3));
    expect(checkState(reopened, reopened.checks[checkId]!)).toBe('ordered');
    const paying = recordCheckPayment(printed, { orderId: 'ord_1', checkId, amountCents: 100, stamp: at(4) });
    expect(checkState(paying, paying.checks[checkId]!)).toBe('paying');
    expect(
      checksByTable(paying)
        .get(TABLE)
        ?.map((c) => c.id),
    ).toEqual([checkId]);
  });

  it('a voided line does not make a table ordered; tabs are listed apart from tables, by name', () => {
    const { book, checkId } = seated();
    const voided = voidCheckLine(addCheckLine(book, checkId, line('l1'), { seat: 1, course: 1 }, at(1)), 'l1', 'wrong table', 'stf_1', at(2));
    expect(checkState(voided, voided.checks[checkId]!)).toBe('seated');
    const withTabs = openCheck(
      openCheck(voided, { kind: 'tab', name: 'Zoe', guests: 1, serverStaffId: 'stf_1' }, at(3)).book,
      { kind: 'tab', name: 'Adam', guests: 2, serverStaffId: 'stf_1' },
      at(4),
    ).book;
    expect(openTabs(withTabs).map((t) => t.name)).toEqual(['Adam', 'Zoe']);
    expect([...checksByTable(withTabs).keys()]).toEqual([TABLE]);
  });

  it('groups lines by seat (the table first) then course, and names courses', () => {
    const { book, checkId } = seated();
    let next = addCheckLine(book, checkId, line('l1'), { seat: 2, course: 2 }, at(1));
    next = addCheckLine(next, checkId, line('l2'), { seat: 1, course: 1 }, at(2));
    next = addCheckLine(next, checkId, line('l3'), { seat: null, course: 1 }, at(3));
    next = addCheckLine(next, checkId, line('l4'), { seat: 2, course: 2 }, at(4));
    expect(groupLines(next, checkId).map((g) => [g.seat, g.course, g.lines.map((l) => l.id)])).toEqual([
      [null, 1, ['l3']],
      [1, 1, ['l2']],
      [2, 2, ['l1', 'l4']],
    ]);
    expect([courseName(1), courseName(2), courseName(3), courseName(7)]).toEqual(['Starters', 'Mains', 'Desserts', 'Course 7']);
  });
});

describe('joining check documents', () => {
  const lineDoc = (book: CheckBook, id: string) => ({ id, ...book.lines[id]! }) as unknown as Record<string, unknown>;

  it('keeps the server copy (its stamp) when the held document adds nothing to it', () => {
    const { book, checkId } = seated();
    const added = addCheckLine(book, checkId, line('l1'), { seat: 1, course: 1 }, at(1));
    const server = { ...lineDoc(added, 'l1'), syncSeq: 7, updatedAt: '2026-11-28T12:01:01.000Z' };
    expect(joinPulled('check-lines', lineDoc(added, 'l1'), server)).toBe(server);
    expect(joinPulled('check-lines', undefined, server)).toBe(server);
  });

  it('keeps a change made here that the server has not heard of (no stamp: pushed again), and takes the server’s', () => {
    const { book, checkId } = seated();
    const added = addCheckLine(book, checkId, line('l1'), { seat: 1, course: 1 }, at(1));
    // Here: moved to seat 3 (later); on the server: sent to the kitchen by another register (earlier).
    const movedHere = moveCheckLine(added, 'l1', { seat: 3 }, at(5));
    const sentThere = sendCheckLines(added, checkId, at(4, 'reg_b'), { sendId: 'snd_01HZY000000000000000000001' }).book;
    const server = { ...lineDoc(sentThere, 'l1'), syncSeq: 9, updatedAt: '2026-11-28T12:04:01.000Z' };
    const joined = joinPulled('check-lines', lineDoc(movedHere, 'l1'), server) as { place: { seat: number }; sent?: unknown; syncSeq?: number };
    expect(joined.place.seat).toBe(3);
    expect(joined.sent).toEqual({ sendId: 'snd_01HZY000000000000000000001', stamp: at(4, 'reg_b') });
    expect(joined.syncSeq).toBeUndefined();
  });

  it('a push answered with the server’s copy is joined, never taken over the register’s own change', async () => {
    const { book, checkId } = seated();
    const added = addCheckLine(book, checkId, line('l1'), { seat: 1, course: 1 }, at(1));
    const voidedHere = voidCheckLine(added, 'l1', 'spilt', 'stf_1', at(6));
    const movedThere = moveCheckLine(added, 'l1', { course: 2 }, at(7, 'reg_b'));
    const handler = checkConflictHandler('check-lines');
    const resolved = (await handler.resolve(
      {
        newDocumentState: { ...lineDoc(voidedHere, 'l1'), _deleted: false },
        realMasterState: { ...lineDoc(movedThere, 'l1'), syncSeq: 3, _deleted: false },
      },
      'test',
    )) as { voided?: { reason: string }; place: { course: number } };
    expect(resolved.voided?.reason).toBe('spilt');
    expect(resolved.place.course).toBe(2);
    expect(handler.isEqual({ ...lineDoc(added, 'l1'), _deleted: false }, { ...lineDoc(added, 'l1'), syncSeq: 4, _deleted: false }, 'test')).toBe(
      true,
    );
  });
});
