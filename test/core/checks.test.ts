import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addCheckLine,
  buildJournalTransaction,
  CheckError,
  closeCheck,
  computeOrderTotals,
  EMPTY_CHECK_BOOK,
  linesOfCheck,
  mergeCheckBooks,
  moveCheckLine,
  newId,
  openCheck,
  overpaymentsOf,
  recordCheckPayment,
  saleCreditPostings,
  sendCheckLines,
  splitCheck,
  updateCheckHeader,
  voidCheckLine,
  type CheckBook,
  type Discount,
  type OrderLine,
  type SplitPlan,
  type Stamp,
} from '../../core/index.ts';

/**
 * Restaurant checks (core/checks.ts): books held by registers apart from each other converge when joined, in any
 * order, without losing a line; a void wins; a check splits by seat, evenly or by item into parts that add up exactly
 * to the whole and each balance as a sale.
 */

/** A priced line (its shares filled by computeOrderTotals): `unit` × `quantity`, exclusive rates or one inclusive. */
function pricedLine(unit: number, quantity: number, taxes: { bp: number; inclusive: boolean }[], i: number): OrderLine {
  const inclusive = taxes.find((t) => t.inclusive);
  const rates = inclusive ? [inclusive] : taxes;
  return {
    id: newId('orderLine'),
    catalogItemId: `itm_${i}`,
    variationId: `var_${i}`,
    kind: i % 3 === 2 ? 'service' : 'product',
    name: `Dish ${i}`,
    variationName: 'Regular',
    modifiers: [],
    quantity,
    unitPriceCents: unit,
    grossCents: unit * quantity,
    discountCents: 0,
    netCents: unit * quantity,
    taxCents: 0,
    taxes: rates.map((t, k) => ({
      taxRateId: `tax_${t.inclusive ? 'inc' : 'ex'}${k}_${t.bp}`,
      name: `T${k}`,
      basisPoints: t.bp,
      inclusive: t.inclusive,
    })),
  };
}

const at = (minute: number, by: string): Stamp => ({ at: new Date(Date.UTC(2026, 10, 28, 19, minute)).toISOString(), by });

describe('a table of four, two courses', () => {
  it('fires starters, then mains, and voids a line after it was sent', () => {
    let book: CheckBook = EMPTY_CHECK_BOOK;
    const opened = openCheck(book, { kind: 'table', tableId: 'T12', name: 'Table 12', guests: 4, serverStaffId: 'stf_ana' }, at(0, 'reg_a'));
    book = opened.book;
    const soup = pricedLine(750, 1, [{ bp: 800, inclusive: false }], 0);
    const salad = pricedLine(900, 1, [{ bp: 800, inclusive: false }], 1);
    const steak = pricedLine(2800, 2, [{ bp: 800, inclusive: false }], 3);
    book = addCheckLine(book, opened.checkId, soup, { seat: 1, course: 1 }, at(1, 'reg_a'));
    book = addCheckLine(book, opened.checkId, salad, { seat: 2, course: 1 }, at(1, 'reg_a'));
    book = addCheckLine(book, opened.checkId, steak, { seat: 3, course: 2 }, at(2, 'reg_a'));

    const starters = sendCheckLines(book, opened.checkId, at(3, 'reg_a'), { course: 1 });
    expect(starters.lineIds.sort()).toEqual([soup.id, salad.id].sort());
    book = starters.book;
    // Sending again fires nothing twice.
    expect(sendCheckLines(book, opened.checkId, at(4, 'reg_a'), { course: 1 }).lineIds).toEqual([]);
    const mains = sendCheckLines(book, opened.checkId, at(20, 'reg_a'), { course: 2 });
    expect(mains.lineIds).toEqual([steak.id]);
    book = voidCheckLine(mains.book, salad.id, 'sent to the wrong table', 'stf_mgr', at(21, 'reg_a'));
    expect(linesOfCheck(book, opened.checkId).map((l) => l.line.id)).toEqual([soup.id, steak.id]);
    expect(() => moveCheckLine(book, salad.id, { seat: 1 }, at(22, 'reg_a'))).toThrow(CheckError);
    book = closeCheck(book, opened.checkId, at(60, 'reg_a'));
    expect(() => addCheckLine(book, opened.checkId, pricedLine(100, 1, [], 9), { seat: 1, course: 1 }, at(61, 'reg_a'))).toThrow(/closed/);
  });

  it('refuses a seat, course or guest count out of range', () => {
    const { book, checkId } = openCheck(EMPTY_CHECK_BOOK, { kind: 'tab', name: 'Sam at the bar', guests: 1, serverStaffId: 'stf_bo' }, at(0, 'r'));
    expect(() => addCheckLine(book, checkId, pricedLine(500, 1, [], 0), { seat: 0, course: 1 }, at(1, 'r'))).toThrow(/seat/);
    expect(() => addCheckLine(book, checkId, pricedLine(500, 1, [], 0), { seat: null, course: 10 }, at(1, 'r'))).toThrow(/course/);
    expect(() => openCheck(book, { kind: 'tab', name: 'x', guests: 0, serverStaffId: 's' }, at(0, 'r'))).toThrow(/guests/);
  });

  it('splits three ways evenly: every cent accounted for, the extra cents going round the parts', () => {
    const lines = [pricedLine(1000, 1, [{ bp: 825, inclusive: false }], 0), pricedLine(1001, 1, [{ bp: 825, inclusive: false }], 1)];
    const totals = computeOrderTotals(lines, []);
    expect(totals.totalCents).toBe(2166); // 2001 + 165 tax
    const parts = splitCheck(
      totals,
      lines.map((l) => ({ id: l.id, seat: null })),
      { kind: 'even', parts: 3 },
    );
    expect(parts.map((p) => p.totalCents)).toEqual([722, 722, 722]);
    expect(parts.reduce((s, p) => s + p.totalCents, 0)).toBe(totals.totalCents);
  });

  it('splits by seat, sharing the table’s bottle of wine among the seats', () => {
    const mains = [pricedLine(2400, 1, [], 0), pricedLine(1800, 1, [], 1)];
    const wine = pricedLine(3001, 1, [], 2);
    const totals = computeOrderTotals([...mains, wine], []);
    const parts = splitCheck(
      totals,
      [
        { id: mains[0]!.id, seat: 2 },
        { id: mains[1]!.id, seat: 1 },
        { id: wine.id, seat: null },
      ],
      { kind: 'seats' },
    );
    expect(parts.map((p) => [p.seat, p.totalCents])).toEqual([
      [1, 1800 + 1501],
      [2, 2400 + 1500],
    ]);
    expect(parts[0]!.lines.find((l) => l.lineId === wine.id)!.sharedBy).toBe(2);
  });

  it('refuses a split that leaves a line out or names a part that does not exist', () => {
    const lines = [pricedLine(1000, 1, [], 0), pricedLine(500, 1, [], 1)];
    const totals = computeOrderTotals(lines, []);
    const ids = lines.map((l) => ({ id: l.id, seat: null }));
    expect(() => splitCheck(totals, ids, { kind: 'items', parts: 2, assignment: { [lines[0]!.id]: [0] } })).toThrow(/in no part/);
    expect(() => splitCheck(totals, ids, { kind: 'items', parts: 2, assignment: { [lines[0]!.id]: [0], [lines[1]!.id]: [2] } })).toThrow(/part 2/);
    expect(() => splitCheck(totals, ids, { kind: 'seats' })).toThrow(/no line has a seat/);
    expect(() => splitCheck(totals, ids, { kind: 'even', parts: 0 })).toThrow(/parts/);
  });
});

/** Operations a register can make on its own book, chosen by the property test. */
type Op =
  | { kind: 'open'; replica: number; guests: number }
  | { kind: 'add'; replica: number; check: number; seat: number | null; course: number; unit: number }
  | { kind: 'move'; replica: number; line: number; check: number; seat: number | null; course: number }
  | { kind: 'void'; replica: number; line: number }
  | { kind: 'send'; replica: number; check: number; course: number | undefined }
  | { kind: 'guests'; replica: number; check: number; guests: number }
  | { kind: 'close'; replica: number; check: number }
  | { kind: 'pay'; replica: number; check: number; amount: number }
  | { kind: 'sync'; from: number; to: number };

const REPLICAS = 3;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('open' as const), replica: fc.nat(REPLICAS - 1), guests: fc.integer({ min: 1, max: 8 }) }),
  fc.record({
    kind: fc.constant('add' as const),
    replica: fc.nat(REPLICAS - 1),
    check: fc.nat(20),
    seat: fc.option(fc.integer({ min: 1, max: 6 })),
    course: fc.integer({ min: 1, max: 3 }),
    unit: fc.integer({ min: 1, max: 5000 }),
  }),
  fc.record({
    kind: fc.constant('move' as const),
    replica: fc.nat(REPLICAS - 1),
    line: fc.nat(40),
    check: fc.nat(20),
    seat: fc.option(fc.integer({ min: 1, max: 6 })),
    course: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ kind: fc.constant('void' as const), replica: fc.nat(REPLICAS - 1), line: fc.nat(40) }),
  fc.record({
    kind: fc.constant('send' as const),
    replica: fc.nat(REPLICAS - 1),
    check: fc.nat(20),
    course: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('guests' as const), replica: fc.nat(REPLICAS - 1), check: fc.nat(20), guests: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('close' as const), replica: fc.nat(REPLICAS - 1), check: fc.nat(20) }),
  fc.record({ kind: fc.constant('pay' as const), replica: fc.nat(REPLICAS - 1), check: fc.nat(20), amount: fc.integer({ min: 1, max: 20_000 }) }),
  fc.record({ kind: fc.constant('sync' as const), from: fc.nat(REPLICAS - 1), to: fc.nat(REPLICAS - 1) }),
);

/**
 * Plays `ops` on three registers, each with its own clock (minutes, sometimes equal across registers so that ties
 * are broken by register id), skipping what a register's own book refuses (a closed check, a voided line).
 */
function play(ops: Op[]): { books: CheckBook[]; added: Set<string>; voided: Set<string> } {
  const books: CheckBook[] = Array.from({ length: REPLICAS }, () => EMPTY_CHECK_BOOK);
  const added = new Set<string>();
  const voided = new Set<string>();
  const clocks = books.map(() => 0);
  const stamp = (r: number): Stamp => at(++clocks[r]!, `reg_${r}`);
  const pick = <T>(items: T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);
  for (const op of ops) {
    if (op.kind === 'sync') {
      books[op.to] = mergeCheckBooks(books[op.to]!, books[op.from]!);
      clocks[op.to] = Math.max(clocks[op.to]!, clocks[op.from]!);
      continue;
    }
    const r = op.replica;
    const book = books[r]!;
    const checks = Object.keys(book.checks);
    const lines = Object.keys(book.lines);
    try {
      if (op.kind === 'open') {
        books[r] = openCheck(
          book,
          { kind: 'table', tableId: `T${op.guests}`, name: 'Table', guests: op.guests, serverStaffId: 'stf_1' },
          stamp(r),
        ).book;
      } else if (op.kind === 'add') {
        const check = pick(checks, op.check);
        if (!check) continue;
        const line = pricedLine(op.unit, 1, [], added.size);
        books[r] = addCheckLine(book, check, line, { seat: op.seat, course: op.course }, stamp(r));
        added.add(line.id);
      } else if (op.kind === 'move') {
        const line = pick(lines, op.line);
        const check = pick(checks, op.check);
        if (!line || !check) continue;
        books[r] = moveCheckLine(book, line, { checkId: check, seat: op.seat, course: op.course }, stamp(r));
      } else if (op.kind === 'void') {
        const line = pick(lines, op.line);
        if (!line) continue;
        books[r] = voidCheckLine(book, line, 'guest changed their mind', 'stf_1', stamp(r));
        voided.add(line);
      } else if (op.kind === 'send') {
        const check = pick(checks, op.check);
        if (!check) continue;
        books[r] = sendCheckLines(book, check, stamp(r), op.course === undefined ? {} : { course: op.course }).book;
      } else if (op.kind === 'pay') {
        const check = pick(checks, op.check);
        if (!check) continue;
        books[r] = recordCheckPayment(book, { orderId: newId('order'), checkId: check, amountCents: op.amount, stamp: stamp(r) });
      } else if (op.kind === 'guests') {
        const check = pick(checks, op.check);
        if (!check) continue;
        books[r] = updateCheckHeader(book, check, { guests: op.guests }, stamp(r));
      } else {
        const check = pick(checks, op.check);
        if (!check) continue;
        books[r] = closeCheck(book, check, stamp(r));
      }
    } catch (err) {
      if (!(err instanceof CheckError)) throw err;
    }
  }
  return { books, added, voided };
}

describe('registers apart from each other', () => {
  it('converge to the same book whatever order they exchange in, losing no line; a void always wins', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 20, maxLength: 100, size: 'max' }),
        fc.array(fc.nat(REPLICAS - 1), { minLength: REPLICAS, maxLength: 8 }),
        (ops, order) => {
          const { books, added, voided } = play(ops);
          // Each register hears from the others in an order of its own; then all hold the same book.
          const heard = books.map((own, r) => [...order, ...books.keys()].reduce((b, from) => mergeCheckBooks(b, books[from]!), own) ?? books[r]!);
          for (const b of heard) expect(b).toEqual(heard[0]);
          const final = heard[0]!;
          expect(new Set(Object.keys(final.lines))).toEqual(added);
          for (const id of voided) expect(final.lines[id]!.voided).toBeDefined();
          // A sent line stays sent, with the earliest send.
          for (const b of books) for (const [id, l] of Object.entries(b.lines)) if (l.sent) expect(final.lines[id]!.sent).toBeDefined();
          // Every payment any register took is there; what is kept after the refunds owed is the total, never more.
          expect(Object.keys(final.payments).length).toBe(new Set(books.flatMap((b) => Object.keys(b.payments))).size);
          for (const checkId of Object.keys(final.checks)) {
            const total = linesOfCheck(final, checkId).reduce((t, l) => t + l.line.grossCents, 0);
            const paid = Object.values(final.payments)
              .filter((p) => p.checkId === checkId)
              .reduce((t, p) => t + p.amountCents, 0);
            const owed = overpaymentsOf(final, checkId, total).reduce((t, o) => t + o.refundCents, 0);
            expect(paid - owed).toBe(Math.min(paid, total));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('join is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 20, maxLength: 80, size: 'max' }), (ops) => {
        const [a, b, c] = play(ops).books as [CheckBook, CheckBook, CheckBook];
        expect(mergeCheckBooks(a, b)).toEqual(mergeCheckBooks(b, a));
        expect(mergeCheckBooks(mergeCheckBooks(a, b), c)).toEqual(mergeCheckBooks(a, mergeCheckBooks(b, c)));
        const ab = mergeCheckBooks(a, b);
        expect(mergeCheckBooks(ab, ab)).toEqual(ab);
        expect(mergeCheckBooks(ab, a)).toEqual(ab);
      }),
      { numRuns: 300 },
    );
  });

  it('the later move of a line wins on every register; a move made before a void it had not heard of loses to it', () => {
    const start = openCheck(EMPTY_CHECK_BOOK, { kind: 'table', tableId: 'T1', name: 'Table 1', guests: 2, serverStaffId: 's' }, at(0, 'reg_a'));
    const other = openCheck(start.book, { kind: 'table', tableId: 'T2', name: 'Table 2', guests: 2, serverStaffId: 's' }, at(0, 'reg_a'));
    const fries = pricedLine(450, 1, [], 0);
    const base = addCheckLine(other.book, start.checkId, fries, { seat: 1, course: 1 }, at(1, 'reg_a'));
    const a = moveCheckLine(base, fries.id, { seat: 2 }, at(5, 'reg_a'));
    const b = moveCheckLine(base, fries.id, { checkId: other.checkId }, at(6, 'reg_b'));
    for (const joined of [mergeCheckBooks(a, b), mergeCheckBooks(b, a)]) {
      expect(joined.lines[fries.id]!.place).toMatchObject({ checkId: other.checkId, seat: 1 });
    }
    const voidedEarlier = voidCheckLine(base, fries.id, 'dropped', 'stf_mgr', at(2, 'reg_c'));
    expect(mergeCheckBooks(b, voidedEarlier).lines[fries.id]!.voided).toMatchObject({ reason: 'dropped' });
    expect(linesOfCheck(mergeCheckBooks(b, voidedEarlier), other.checkId)).toEqual([]);
  });
});

describe('one check paid on two registers while apart', () => {
  it('is flagged when they meet: the later payment owes back what it took above the total, on both registers', () => {
    const opened = openCheck(EMPTY_CHECK_BOOK, { kind: 'table', tableId: 'T4', name: 'Table 4', guests: 2, serverStaffId: 's' }, at(0, 'reg_a'));
    const pasta = pricedLine(1850, 2, [], 0);
    const base = addCheckLine(opened.book, opened.checkId, pasta, { seat: null, course: 1 }, at(1, 'reg_a'));
    const onA = recordCheckPayment(base, { orderId: 'ord_a', checkId: opened.checkId, amountCents: 3700, stamp: at(30, 'reg_a') });
    const onB = recordCheckPayment(base, { orderId: 'ord_b', checkId: opened.checkId, amountCents: 3700, stamp: at(31, 'reg_b') });
    for (const met of [mergeCheckBooks(onA, onB), mergeCheckBooks(onB, onA)]) {
      expect(overpaymentsOf(met, opened.checkId, 3700)).toEqual([{ orderId: 'ord_b', refundCents: 3700 }]);
    }
    // A part paid on each register: 2000 + 2000 against 3700 → the later owes back 300.
    const partA = recordCheckPayment(base, { orderId: 'ord_c', checkId: opened.checkId, amountCents: 2000, stamp: at(30, 'reg_a') });
    const partB = recordCheckPayment(base, { orderId: 'ord_d', checkId: opened.checkId, amountCents: 2000, stamp: at(32, 'reg_b') });
    expect(overpaymentsOf(mergeCheckBooks(partA, partB), opened.checkId, 3700)).toEqual([{ orderId: 'ord_d', refundCents: 300 }]);
    expect(() =>
      recordCheckPayment(closeCheck(base, opened.checkId, at(40, 'reg_a')), {
        orderId: 'ord_e',
        checkId: opened.checkId,
        amountCents: 1,
        stamp: at(41, 'reg_a'),
      }),
    ).toThrow(/closed/);
  });
});

describe('splitting a check', () => {
  const taxArb = fc.record({ bp: fc.oneof(fc.integer({ min: 0, max: 2500 }), fc.integer({ min: 0, max: 100_000 })), inclusive: fc.boolean() });
  const checkArb = fc.record({
    lines: fc.array(
      fc.record({
        unit: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 200_000 })),
        quantity: fc.integer({ min: 1, max: 12 }),
        taxes: fc.array(taxArb, { maxLength: 2 }),
        seat: fc.option(fc.integer({ min: 1, max: 8 })),
        lineDiscountBp: fc.option(fc.integer({ min: 1, max: 10_000 })),
      }),
      { minLength: 1, maxLength: 12 },
    ),
    saleDiscountBp: fc.option(fc.integer({ min: 1, max: 5_000 })),
    plan: fc.oneof(
      fc.record({ kind: fc.constant('even' as const), parts: fc.integer({ min: 1, max: 12 }) }),
      fc.constant({ kind: 'seats' as const }),
      fc.record({
        kind: fc.constant('items' as const),
        parts: fc.integer({ min: 1, max: 6 }),
        picks: fc.array(fc.uniqueArray(fc.nat(5), { minLength: 1, maxLength: 6 }), { minLength: 12, maxLength: 12 }),
      }),
    ),
  });

  it('gives parts that add up exactly to the whole, each with no negative share and a balanced journal transaction', () => {
    fc.assert(
      fc.property(checkArb, (input) => {
        const lines = input.lines.map((l, i) => pricedLine(l.unit, l.quantity, l.taxes, i));
        const discounts: Discount[] = input.lines.flatMap((l, i) =>
          l.lineDiscountBp === null
            ? []
            : [{ id: newId('discount'), name: 'Comp', kind: 'percentage' as const, basisPoints: l.lineDiscountBp, lineId: lines[i]!.id }],
        );
        if (input.saleDiscountBp !== null)
          discounts.push({ id: newId('discount'), name: 'Happy hour', kind: 'percentage', basisPoints: input.saleDiscountBp });
        const totals = computeOrderTotals(lines, discounts);
        const seated = totals.lines.map((l, i) => ({ id: l.id, seat: input.lines[i]!.seat }));
        const plan: SplitPlan =
          input.plan.kind === 'items'
            ? {
                kind: 'items',
                parts: input.plan.parts,
                assignment: Object.fromEntries(
                  totals.lines.map((l, i) => {
                    const plan = input.plan as { parts: number; picks: number[][] };
                    return [l.id, [...new Set(plan.picks[i]!.map((p) => p % plan.parts))]];
                  }),
                ),
              }
            : input.plan;
        if (plan.kind === 'seats' && seated.every((l) => l.seat === null)) {
          expect(() => splitCheck(totals, seated, plan)).toThrow(CheckError);
          return;
        }
        const parts = splitCheck(totals, seated, plan);
        const sum = (f: (p: (typeof parts)[number]) => number) => parts.reduce((s, p) => s + f(p), 0);
        expect(sum((p) => p.subtotalCents)).toBe(totals.subtotalCents);
        expect(sum((p) => p.discountCents)).toBe(totals.discountCents);
        expect(sum((p) => p.taxCents)).toBe(totals.taxCents);
        expect(sum((p) => p.inclusiveTaxCents)).toBe(totals.inclusiveTaxCents);
        expect(sum((p) => p.totalCents)).toBe(totals.totalCents);
        totals.taxLines.forEach((rate, t) => expect(sum((p) => p.taxLines[t]!.taxCents)).toBe(rate.taxCents));
        for (const line of totals.lines) {
          const shares = parts.flatMap((p) => p.lines.filter((l) => l.lineId === line.id));
          expect(shares.reduce((s, l) => s + l.grossCents, 0)).toBe(line.grossCents);
          expect(shares.reduce((s, l) => s + l.netCents, 0)).toBe(line.netCents);
          expect(shares.reduce((s, l) => s + l.taxCents, 0)).toBe(line.taxCents);
        }
        for (const part of parts) {
          for (const l of part.lines) {
            expect(l.grossCents).toBeGreaterThanOrEqual(0);
            expect(l.netCents).toBeGreaterThanOrEqual(0);
            expect(l.discountCents).toBeGreaterThanOrEqual(0);
            if (l.taxes.some((t) => t.inclusive)) expect(l.taxCents).toBeLessThanOrEqual(l.netCents);
          }
          expect(part.totalCents).toBeGreaterThanOrEqual(0);
          if (part.lines.length === 0) continue;
          // Paid in cash as a sale of its own: the project's sale postings balance (buildJournalTransaction checks).
          const postings = [
            { accountCode: 'cash_drawer:R1', amountCents: part.totalCents },
            { accountCode: 'discounts', amountCents: part.discountCents },
            ...saleCreditPostings(part.lines, part.taxCents),
          ];
          if (postings.every((p) => p.amountCents === 0)) continue;
          expect(() =>
            buildJournalTransaction(
              { kind: 'sale', sourceType: 'order', sourceId: 'ord_x', registerId: 'reg_1', currency: 'USD', occurredAt: at(0, 'r').at, memo: 'part' },
              postings,
            ),
          ).not.toThrow();
        }
      }),
      { numRuns: 500 },
    );
  });
});
