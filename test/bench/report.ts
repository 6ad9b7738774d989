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
