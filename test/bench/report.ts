/**
 * Small helpers the bench files share: medians, the "baseline before and after each figure" schedule, and a plain
 * text table (one line per measure, one column per database engine).
 */

/** Median of `values` (mean of the two middle ones for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile `p` (0–100) of `values` (any order); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A percentile and its 95 % confidence interval, in the samples' unit. */
export interface QuantileInterval {
  value: number;
  low: number;
  high: number;
  /** Samples it was taken from. */
  n: number;
}

/**
 * Nearest-rank percentile `p` (0–100) of `values` with a distribution-free 95 % confidence interval: the order
 * statistics at ranks n·q ∓ 1.96·√(n·q·(1 − q)) (q = p / 100, the binomial's normal approximation), clamped to the
 * samples. Makes no assumption on the distribution's shape; it takes the samples as independent.
 */
export function quantileInterval(values: readonly number[], p: number): QuantileInterval {
  const n = values.length;
  if (n === 0) return { value: Number.NaN, low: Number.NaN, high: Number.NaN, n };
  const sorted = [...values].sort((a, b) => a - b);
  const q = p / 100;
  const half = 1.96 * Math.sqrt(n * q * (1 - q));
  const at = (rank: number) => sorted[Math.min(n - 1, Math.max(0, rank - 1))]!;
  return { value: percentile(sorted, p), low: at(Math.floor(n * q - half)), high: at(Math.ceil(n * q + half)), n };
}

/** A {@link QuantileInterval} as `value (low–high)` with `decimals`. */
export function fmtInterval(x: QuantileInterval, decimals = 2): string {
  return `${fmt(x.value, decimals)} (${fmt(x.low, decimals)}–${fmt(x.high, decimals)})`;
}

/** Figures of `rounds` runs, each with the baseline measured just before and just after it. */
export interface Bracketed<F, B> {
  figures: F[];
  /** `rounds + 1` baseline measurements: baselines[r] before figures[r], baselines[r + 1] after it. */
  baselines: B[];
}

/**
 * Runs baseline, figure, baseline, figure, …, baseline: every figure has a baseline measured right before and right
 * after it on the same machine, so a change of load during the figure shows as a before/after gap.
 */
export async function bracketed<F, B>(rounds: number, figure: (round: number) => Promise<F>, baseline: () => Promise<B>): Promise<Bracketed<F, B>> {
  const baselines: B[] = [await baseline()];
  const figures: F[] = [];
  for (let r = 0; r < rounds; r += 1) {
    figures.push(await figure(r));
    baselines.push(await baseline());
  }
  return { figures, baselines };
}

/**
 * A rate's median over rounds where each round's value is the mean of the baseline before and after its figure;
 * `spread` is the largest before/after gap relative to the round's value (0.05 = the machine's speed moved 5 %).
 */
export function anchoredRate(baselines: readonly number[]): { median: number; spread: number } {
  const rounds = baselines.slice(1).map((after, r) => ({ before: baselines[r]!, after }));
  const values = rounds.map((x) => (x.before + x.after) / 2);
  const spread = Math.max(0, ...rounds.map((x, r) => Math.abs(x.after - x.before) / values[r]!));
  return { median: median(values), spread };
}

/** A median over rounds with its distribution-free confidence interval. */
export interface MedianInterval {
  median: number;
  low: number;
  high: number;
  /** Rounds it was taken from. */
  n: number;
  /**
   * The interval's exact coverage (0.95 or a little more; less only when there are too few rounds for 95 %: with n
   * rounds the widest interval, min–max, covers 1 − 2·0.5ⁿ — 94 % at 5 rounds, 97 % at 6).
   */
  coverage: number;
}

/** P(X ≤ k) for X ~ Binomial(n, 1/2). */
function binomialHalfCdf(n: number, k: number): number {
  let term = 0.5 ** n; // P(X = 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
}

/**
 * The median of `values` with its 95 % confidence interval from order statistics: [x₍ₖ₎, x₍ₙ₊₁₋ₖ₎] with the largest
 * k whose exact binomial coverage 1 − 2·P(Binomial(n, ½) ≤ k − 1) is still ≥ 95 % (k = 1, min–max, when n is too small
 * for 95 %; `coverage` then says how much it covers). No assumption on the distribution's shape; the rounds are taken as
 * independent. NaN fields when `values` is empty.
 */
export function medianInterval(values: readonly number[]): MedianInterval {
  const n = values.length;
  if (n === 0) return { median: Number.NaN, low: Number.NaN, high: Number.NaN, n, coverage: Number.NaN };
  const sorted = [...values].sort((a, b) => a - b);
  let k = 1;
  while (k + 1 <= Math.ceil(n / 2) && 1 - 2 * binomialHalfCdf(n, k) >= 0.95) k++;
  return { median: median(sorted), low: sorted[k - 1]!, high: sorted[n - k]!, n, coverage: 1 - 2 * binomialHalfCdf(n, k - 1) };
}

/**
 * Per round, the figure over the baseline measured around it: `figures[r] / mean(baselines[r], baselines[r + 1])`
 * (report.ts {@link bracketed}: baseline, figure, baseline, …), as a median with its interval. Both sides must be in
 * the same unit and direction (rates over rates, or times over times).
 */
export function bracketedRatio(figures: readonly number[], baselines: readonly number[]): MedianInterval {
  return medianInterval(figures.map((f, r) => f / ((baselines[r]! + baselines[r + 1]!) / 2)));
}

/**
 * Each round's baseline, the mean of the measurement just before and just after its figure (`baselines` as
 * {@link bracketed} returns them: rounds + 1 values), as a median with its interval; in the baselines' unit.
 */
export function bracketedBaseline(baselines: readonly number[]): MedianInterval {
  return medianInterval(baselines.slice(1).map((after, r) => (baselines[r]! + after) / 2));
}

/**
 * Per round, the figure minus the baseline measured around it: `figures[r] − mean(baselines[r], baselines[r + 1])`,
 * as a median with its interval, in the figures' unit (e.g. µs per request a feature adds over the bare request).
 */
export function bracketedDifference(figures: readonly number[], baselines: readonly number[]): MedianInterval {
  return medianInterval(figures.map((f, r) => f - (baselines[r]! + baselines[r + 1]!) / 2));
}

/**
 * Calls `task(0)`, `task(1)`, …, `task(count − 1)` with at most `concurrency` calls in flight (a new one starts as
 * soon as one settles) and resolves with their results in index order. Rejects with the first error; calls already
 * in flight then still run to their end, and no new one starts. `concurrency` below 1 counts as 1.
 */
export async function pool<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < count) {
      const index = next++;
      try {
        results[index] = await task(index);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, Math.max(1, concurrency)) }, worker));
  return results;
}

/** A {@link MedianInterval} as `median (low–high)`, each number through `format`; `*` marks an interval short of 95 %. */
export function fmtMedianInterval(x: MedianInterval, format: (n: number) => string = (n) => fmt(n)): string {
  return `${format(x.median)} (${format(x.low)}–${format(x.high)})${x.coverage < 0.95 ? '*' : ''}`;
}

/** A ratio's {@link MedianInterval} in per cent: `64 % (58–70 %)`. */
export function fmtRatioInterval(x: MedianInterval): string {
  if (!Number.isFinite(x.median)) return '—';
  const p = (n: number) => (n * 100).toFixed(0);
  return `${p(x.median)} % (${p(x.low)}–${p(x.high)} %)${x.coverage < 0.95 ? '*' : ''}`;
}

/** `n` with a fixed number of decimals and thin grouping of thousands. */
export function fmt(n: number, decimals = 0): string {
  if (!Number.isFinite(n)) return '—';
  return n.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

export const pct = (n: number): string => (Number.isFinite(n) ? `${(n * 100).toFixed(0)} %` : '—');

/**
 * Prints a table: a title line, then one line per row with the label left-aligned and each engine's value
 * right-aligned under its header; `aim` (optional last column) says what the figure should reach.
 */
export function printTable(
  title: string,
  engines: readonly string[],
  rows: readonly { label: string; values: readonly string[]; aim?: string }[],
): void {
  const labelWidth = Math.max(...rows.map((r) => r.label.length), 0);
  const widths = engines.map((e, i) => Math.max(e.length, ...rows.map((r) => (r.values[i] ?? '').length)));
  const line = (label: string, values: readonly string[], aim = '') =>
    `  ${label.padEnd(labelWidth)}  ${values.map((v, i) => v.padStart(widths[i]!)).join('  ')}${aim ? `  ${aim}` : ''}`.trimEnd();
  console.log(`\n${title}`);
  console.log(line('', engines, rows.some((r) => r.aim) ? 'aim' : ''));
  for (const r of rows) console.log(line(r.label, r.values, r.aim));
}
