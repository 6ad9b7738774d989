/**
 * Where an interaction's time went, from a Chromium trace (CDP `Tracing`, Chrome's trace event format: `ts` and `dur`
 * in µs on the trace's clock). The page marks each measured repetition with `console.timeStamp('bench:start')` and
 * `console.timeStamp('bench:end')` (trace events named `TimeStamp`, `args.data.message` the label, on the renderer
 * main thread): that is each repetition's window in trace time, and the thread its phases are read on.
 */

/** One trace event, the fields used here (Chrome's trace event format). */
export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  /** µs, trace clock. */
  ts: number;
  /** µs, complete events (`ph` 'X') only. */
  dur?: number;
  args?: { data?: { message?: string } };
}

/** A measured repetition's window on the renderer main thread, µs of trace time. */
export interface TraceWindow {
  pid: number;
  tid: number;
  start: number;
  end: number;
}

/** Main-thread time of a window by phase, ms. */
export interface PhaseTimes {
  script: number;
  style: number;
  layout: number;
  paint: number;
  indexedDb: number;
  other: number;
}

/** The label the page's `console.timeStamp` gives a repetition's start and end. */
export const BENCH_START_MARK = 'bench:start';
export const BENCH_END_MARK = 'bench:end';

/**
 * The repetitions' windows, in the order they ran: each `bench:start` time stamp paired with the next `bench:end`
 * on the same thread. A start without an end is dropped.
 */
export function benchWindows(events: readonly TraceEvent[]): TraceWindow[] {
  const stamps = events
    .filter((e) => e.name === 'TimeStamp' && (e.args?.data?.message === BENCH_START_MARK || e.args?.data?.message === BENCH_END_MARK))
    .sort((a, b) => a.ts - b.ts);
  const out: TraceWindow[] = [];
  let open: TraceEvent | undefined;
  for (const s of stamps) {
    if (s.args?.data?.message === BENCH_START_MARK) open = s;
    else if (open && open.pid === s.pid && open.tid === s.tid) {
      out.push({ pid: s.pid, tid: s.tid, start: open.ts, end: s.ts });
      open = undefined;
    }
  }
  return out;
}

const SCRIPT = new Set([
  'FunctionCall',
  'EvaluateScript',
  'TimerFire',
  'EventDispatch',
  'FireAnimationFrame',
  'FireIdleCallback',
  'RunMicrotasks',
  'MinorGC',
  'MajorGC',
]);
const STYLE = new Set(['UpdateLayoutTree', 'RecalculateStyles', 'ScheduleStyleRecalculation']);
const PAINT = new Set(['Paint', 'PaintImage', 'PrePaint', 'Layerize', 'UpdateLayer', 'UpdateLayerTree', 'CompositeLayers', 'Commit']);

/** The phase an event's own name puts it in, or undefined (it then takes its parent's). */
function phaseOf(e: TraceEvent): keyof PhaseTimes | undefined {
  // Blink's IndexedDB events (category IndexedDB) are named after its classes: IDBObjectStore::putRequestSetup…
  if (e.name.includes('IndexedDB') || e.name.startsWith('IDB')) return 'indexedDb';
  if (SCRIPT.has(e.name) || /^v8\./i.test(e.name)) return 'script';
  if (STYLE.has(e.name)) return 'style';
  if (e.name === 'Layout') return 'layout';
  if (PAINT.has(e.name)) return 'paint';
  return undefined;
}

/**
 * Main-thread time inside `window` by phase, ms: every complete event (`ph` 'X') of the window's thread, clipped to
 * the window, counts its self time (its duration less its children's, so nested events are counted once) in the phase
 * its name gives — script (FunctionCall, EvaluateScript, TimerFire, EventDispatch, FireAnimationFrame, RunMicrotasks,
 * FireIdleCallback, GC, v8.*), style (UpdateLayoutTree, RecalculateStyles, ScheduleStyleRecalculation), layout
 * (Layout), paint (Paint, PaintImage, PrePaint, Layerize, UpdateLayer(Tree), CompositeLayers, Commit), IndexedDB (a
 * name containing IndexedDB or starting with IDB: Blink's own IndexedDB work, a request's setup, its result's
 * dispatch; the app's handlers inside are script) — else in its nearest named ancestor's, else in "other" (a task's
 * own time: input and message handling, the scheduler, the DevTools protocol). Idle time is in no phase.
 */
export function phaseTimes(events: readonly TraceEvent[], window: TraceWindow): PhaseTimes {
  const out: PhaseTimes = { script: 0, style: 0, layout: 0, paint: 0, indexedDb: 0, other: 0 };
  const mine = events
    .filter((e) => e.ph === 'X' && e.pid === window.pid && e.tid === window.tid && (e.dur ?? 0) > 0)
    .filter((e) => e.ts < window.end && e.ts + e.dur! > window.start)
    // Parents before their children: by start, the longer first.
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const clipped = (e: TraceEvent) => Math.min(e.ts + e.dur!, window.end) - Math.max(e.ts, window.start);
  // The open ancestors: each with its phase (own or inherited) and the self time left to it.
  const stack: { end: number; phase: keyof PhaseTimes; self: number }[] = [];
  const close = () => {
    const top = stack.pop()!;
    out[top.phase] += Math.max(0, top.self) / 1000;
  };
  for (const e of mine) {
    while (stack.length > 0 && stack.at(-1)!.end <= e.ts) close();
    const parent = stack.at(-1);
    const own = clipped(e);
    if (parent) parent.self -= own;
    stack.push({ end: e.ts + e.dur!, phase: phaseOf(e) ?? parent?.phase ?? 'other', self: own });
  }
  while (stack.length > 0) close();
  return out;
}

/**
 * The mean phase times of the repetitions at or above the p95 of `painted` (the repetitions' figures, ms, in the
 * order of `windows`); undefined when there are no windows or their count differs from the figures'.
 */
export function tailPhases(
  events: readonly TraceEvent[],
  windows: readonly TraceWindow[],
  painted: readonly number[],
  p95: number,
): PhaseTimes | undefined {
  if (windows.length === 0 || windows.length !== painted.length) return undefined;
  const tail = windows.filter((_, i) => painted[i]! >= p95);
  const sum: PhaseTimes = { script: 0, style: 0, layout: 0, paint: 0, indexedDb: 0, other: 0 };
  for (const w of tail) {
    const t = phaseTimes(events, w);
    for (const k of Object.keys(sum) as (keyof PhaseTimes)[]) sum[k] += t[k] / tail.length;
  }
  return sum;
}
