/**
 * Routing bench: the cost of one routing decision (core `routePayment`: candidates, fees, availability,
 * the reason) per payment, in µs, beside a baseline measured right before and after it in the same process — the
 * plain lookup of a method's first rail and its fee, which is what a payment cost before routing. Pure, in process:
 * no database, so one column. Figures are medians of BENCH_ROUNDS rounds (default 6), each printed as median (low–high)
 * with its distribution-free 95 % interval (report.ts `medianInterval`; `*` when the rounds are too few for 95 %): µs
 * per decision, µs per lookup (each round's the mean of the one before and after; the largest before/after gap as a
 * diagnostic), what routing adds per round (decision − that mean, µs; `bracketedDifference`) and the per-round ratio
 * decision / lookup (`bracketedRatio`).
 */
import { performance } from 'node:perf_hooks';
import { DEFAULT_RAILS, feeCents, railsForMethod, routePayment, type RailConfig, type RoutingMethod } from '../../core/index.ts';
import {
  anchoredRate,
  bracketed,
  bracketedBaseline,
  bracketedDifference,
  bracketedRatio,
  fmt,
  fmtMedianInterval,
  medianInterval,
  pct,
  printTable,
  type MedianInterval,
} from './report.ts';

/** One routing bench run. */
export interface RoutingBenchResult {
  rounds: number;
  payments: number;
  /** µs per routing decision, median over rounds with its interval. */
  routeMicros: MedianInterval;
  /** µs per plain first-rail lookup: per round the mean of before/after, median with its interval; the largest gap. */
  lookup: MedianInterval & { spread: number };
  /** Per round, µs per decision − mean(lookup before, after): median with its interval. */
  extraMicros: MedianInterval;
  /** Per round, µs per decision / mean(lookup before, after): median with its interval. */
  ratio: MedianInterval;
}

const METHODS: RoutingMethod[] = ['card', 'apple_pay', 'google_pay', 'bank', 'any_online', 'cash'];

/** A realistic mix: methods in turn, amounts from 1.00 to 25 000.00, every tenth offline, a rail down. */
function payments(count: number): { method: RoutingMethod; amountCents: number; present: boolean; online: boolean }[] {
  return Array.from({ length: count }, (_, i) => ({
    method: METHODS[i % METHODS.length]!,
    amountCents: 100 + ((i * 7919) % 2_500_000),
    present: i % 2 === 0,
    online: i % 10 !== 0,
  }));
}

let sink = 0;

function timeRouting(list: ReturnType<typeof payments>, rails: readonly RailConfig[]): number {
  const started = performance.now();
  for (const p of list) sink += routePayment({ ...p, funding: 'credit', rails }).feeCents;
  return ((performance.now() - started) * 1000) / list.length;
}

function timeLookup(list: ReturnType<typeof payments>, rails: readonly RailConfig[]): number {
  const started = performance.now();
  for (const p of list) {
    const first = rails.find((r) => r.rail === railsForMethod(p.method, p.present)[0]);
    sink += first ? feeCents(first.fee, p.amountCents) : 0;
  }
  return ((performance.now() - started) * 1000) / list.length;
}

/** Runs the routing bench: `payments` decisions per measurement, `rounds` rounds, each bracketed by the baseline. */
export async function benchRouting(options: { payments: number; rounds: number }): Promise<RoutingBenchResult> {
  const rails = DEFAULT_RAILS.map((r) => (r.rail === 'ach' ? { ...r, status: 'down' as const } : r));
  const list = payments(options.payments);
  timeRouting(list, rails); // warm-up
  timeLookup(list, rails);
  const run = await bracketed(
    options.rounds,
    async () => timeRouting(list, rails),
    async () => timeLookup(list, rails),
  );
  if (sink === -1) console.log(sink);
  return {
    rounds: options.rounds,
    payments: options.payments,
    routeMicros: medianInterval(run.figures),
    lookup: { ...bracketedBaseline(run.baselines), spread: anchoredRate(run.baselines).spread },
    extraMicros: bracketedDifference(run.figures, run.baselines),
    ratio: bracketedRatio(run.figures, run.baselines),
  };
}

/** Prints the routing table. */
export function printRoutingBench(result: RoutingBenchResult): void {
  const us = (x: MedianInterval) => fmtMedianInterval(x, (n) => fmt(n, 2));
  printTable(
    `Routing — one decision per payment (core routePayment), ${fmt(result.payments)} payments per measurement, median (95 % interval) of ${result.rounds} rounds`,
    ['in process'],
    [
      { label: 'routing decision (candidates, fees, reason), µs per payment', values: [us(result.routeMicros)] },
      { label: '  baseline: plain lookup of the first rail and its fee, µs', values: [us(result.lookup)] },
      { label: '    before/after gap', values: [pct(result.lookup.spread)] },
      { label: 'routing adds, µs per payment, per round', values: [us(result.extraMicros)] },
      { label: '  routing / lookup, per round', values: [fmtMedianInterval(result.ratio, (n) => `${fmt(n, 1)}×`)] },
    ],
  );
}
