import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countEightySixSale,
  EightySixError,
  eightySixStatus,
  markEightySix,
  mergeEightySixBoards,
  setEightySixPar,
  type EightySixBoard,
  type Stamp,
} from '../../core/index.ts';

/**
 * 86'ing (core/eighty-six.ts): an item marked out or counted down from a par shows out on every register once their
 * boards meet; portions sold on registers apart from each other are neither lost nor counted twice.
 */
const at = (minute: number, by: string): Stamp => ({ at: new Date(Date.UTC(2026, 10, 28, 18, minute)).toISOString(), by });

describe('86 board', () => {
  it('counts the special down from its par across two registers apart, and shows it out when the par is sold', () => {
    const start = setEightySixPar({}, 'itm_special', 12, at(0, 'reg_a'));
    let a = start;
    let b = start;
    a = countEightySixSale(a, 'itm_special', 'reg_a', 5);
    b = countEightySixSale(b, 'itm_special', 'reg_b', 4);
    expect(eightySixStatus(a, 'itm_special')).toEqual({ out: false, left: 7 });
    a = countEightySixSale(a, 'itm_special', 'reg_a', 3);
    const met = mergeEightySixBoards(a, b);
    expect(eightySixStatus(met, 'itm_special')).toEqual({ out: true, left: 0 });
    expect(mergeEightySixBoards(met, a)).toEqual(met);
    // A new par for the evening starts a new count.
    const evening = setEightySixPar(met, 'itm_special', 6, at(120, 'reg_b'));
    expect(eightySixStatus(mergeEightySixBoards(a, evening), 'itm_special')).toEqual({ out: false, left: 6 });
  });

  it('takes the later hand mark, and refuses a par or a count out of range', () => {
    const out = markEightySix({}, 'itm_bass', true, at(10, 'reg_a'));
    const back = markEightySix({}, 'itm_bass', false, at(12, 'reg_b'));
    expect(eightySixStatus(mergeEightySixBoards(out, back), 'itm_bass')).toEqual({ out: false, left: null });
    expect(eightySixStatus(mergeEightySixBoards(back, out), 'itm_bass')).toEqual({ out: false, left: null });
    expect(() => setEightySixPar({}, 'x', -1, at(0, 'r'))).toThrow(EightySixError);
    expect(() => setEightySixPar({}, 'x', 1.5, at(0, 'r'))).toThrow(EightySixError);
    expect(() => countEightySixSale({}, 'x', 'r', 0)).toThrow(EightySixError);
    expect(countEightySixSale({}, 'x', 'r', 2)).toEqual({});
  });

  type Op =
    | { kind: 'par'; replica: number; quantity: number }
    | { kind: 'sell'; replica: number; quantity: number }
    | { kind: 'mark'; replica: number; out: boolean }
    | { kind: 'sync'; from: number; to: number };
  const R = 3;
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('par' as const), replica: fc.nat(R - 1), quantity: fc.integer({ min: 0, max: 40 }) }),
    fc.record({ kind: fc.constant('sell' as const), replica: fc.nat(R - 1), quantity: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('sell' as const), replica: fc.nat(R - 1), quantity: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('mark' as const), replica: fc.nat(R - 1), out: fc.boolean() }),
    fc.record({ kind: fc.constant('sync' as const), from: fc.nat(R - 1), to: fc.nat(R - 1) }),
  );

  it('registers converge whatever order they meet in; every portion sold under the par that stands is counted once', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 80, size: 'max' }), (ops) => {
        const boards: EightySixBoard[] = Array.from({ length: R }, () => ({}));
        const clocks = boards.map(() => 0);
        // Portions each register sold, by the par (its stamp) it counted them under.
        const soldUnder = new Map<string, number>();
        for (const op of ops) {
          if (op.kind === 'sync') {
            boards[op.to] = mergeEightySixBoards(boards[op.to]!, boards[op.from]!);
            clocks[op.to] = Math.max(clocks[op.to]!, clocks[op.from]!);
            continue;
          }
          const r = op.replica;
          const stamp = at(++clocks[r]!, `reg_${r}`);
          if (op.kind === 'par') boards[r] = setEightySixPar(boards[r]!, 'itm', op.quantity, stamp);
          else if (op.kind === 'mark') boards[r] = markEightySix(boards[r]!, 'itm', op.out, stamp);
          else {
            const par = boards[r]!.itm?.par;
            boards[r] = countEightySixSale(boards[r]!, 'itm', `reg_${r}`, op.quantity);
            if (par) soldUnder.set(JSON.stringify(par.stamp), (soldUnder.get(JSON.stringify(par.stamp)) ?? 0) + op.quantity);
          }
        }
        const all = (first: number) => boards.reduce((acc, b, i) => (i === first ? acc : mergeEightySixBoards(acc, b)), boards[first]!);
        const finals = boards.map((_, i) => all(i));
        for (const f of finals) expect(f).toEqual(finals[0]);
        const final = finals[0]!;
        const par = final.itm?.par;
        if (par) {
          const sold = soldUnder.get(JSON.stringify(par.stamp)) ?? 0;
          expect(eightySixStatus(final, 'itm').left).toBe(Math.max(0, par.quantity - sold));
        }
      }),
      { numRuns: 400 },
    );
  });
});
