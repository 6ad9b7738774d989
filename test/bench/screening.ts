/**
 * Sanctions screening bench at the full list: the OFAC SDN list of 15 January 2019 as published
 * (test/fixtures/sanctions/ofac-2019-full/: 7,379 entries, 9,682 aliases), read by the same parser as an upload and
 * compiled as the server compiles a stored version. Queries: the labelled set (test/fixtures/sanctions/
 * labelled-names.csv: 280 listed names written differently, 202 ordinary US names).
 *
 * - Latency of one screening (modules/sanctions/matching.ts `screenName`: candidate index, then alignment of the
 *   candidates), p50 and p95 with their 95 % confidence intervals (order statistics), beside a baseline doing the same
 *   essential work without the fuzziness: the query normalised the same way and looked up in a hash map of the listed
 *   names' exact keys. Measured interleaved round by round (SCREEN_ROUNDS, default 5): each round times every query
 *   once with the baseline and once with the screening, the order of the two passes alternating from round to round,
 *   so a change of machine load falls on both; beside them the screenings' process CPU time (what the scheduler of a
 *   loaded machine adds to the wall clock shows as the gap). Pure, in process: no database.
 * - Recall per variant kind and false holds of ordinary names at the default threshold (the figures
 *   test/server/sanctions-recall.test.ts asserts), and the false-hold rate over every pair of the 1990 Census's 200
 *   commonest first names and 200 commonest surnames (40,000 names; SCREEN_GRID=0 skips it).
 * - Through the API on each engine: the upload of the list (which compiles it), the first screening of the new
 *   version, and SCREEN_REQUESTS (default 100) POST /api/pos/screenings, each followed by a GET of one stored screening
 *   (baseline).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DEFAULT_MATCH_THRESHOLD } from '../../core/screening.ts';
import { listedNames, parseSdnFiles } from '../../sync-server/src/modules/sanctions/list.ts';
import { compileList, nameKey, screenName } from '../../sync-server/src/modules/sanctions/matching.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import { fullSdnFiles, labelledNames, measureLabelled, type KindFigures } from '../support/sanctions-labelled.ts';
import { startTestServer } from '../support/server.ts';
import { fmt, fmtInterval, pct, printTable, quantileInterval, type QuantileInterval } from './report.ts';

/** One screening bench run. */
export interface ScreeningBenchResult {
  entries: number;
  aliases: number;
  /** Names and aliases compiled (those with a word left after normalisation). */
  names: number;
  queries: number;
  rounds: number;
  parseMs: number;
  compileMs: number;
  /** One screening, ms, over every query of every round. */
  screen: { p50: QuantileInterval; p95: QuantileInterval };
  /** The same screenings' process CPU time (user + system), ms: what the machine's scheduler adds to the wall clock shows as the gap. */
  screenCpu: { p50: QuantileInterval; p95: QuantileInterval };
  /** Baseline: normalise + exact-key hash lookup, µs, over every query of every round. */
  lookup: { p50: QuantileInterval; p95: QuantileInterval };
  labelled: { kinds: KindFigures[]; recall: number; falseHoldRate: number; threshold: number };
  /** Ordinary Census names (first × surname), held at the default threshold; null when skipped. */
  grid: { names: number; held: number; examples: string[] } | null;
  /** Through the API on each database: upload (ms), first screening (ms), POST screening and GET one (ms). */
  api: {
    engine: string;
    uploadMs: number;
    firstScreenMs: number;
    post: { p50: QuantileInterval; p95: QuantileInterval };
    get: { p50: QuantileInterval; p95: QuantileInterval };
  }[];
}

/** Every first name × surname of the 1990 Census lists bundled for the labelled set, except exact listed names. */
function censusGrid(listedKeys: ReadonlySet<string>): string[] {
  const rows = readFileSync(new URL('../fixtures/names/census-1990-top.csv', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
  const of = (kind: string) => rows.filter((r) => r[0] === kind).map((r) => r[2]!);
  const names: string[] = [];
  for (const first of [...of('male_first'), ...of('female_first')]) for (const last of of('surname')) names.push(`${first} ${last}`);
  return names.filter((n) => !listedKeys.has(nameKey(n)));
}

/**
 * Through the API (Fastify inject, a real database): the owner uploads the list (the new current version), then
 * `requests` screenings are POSTed one at a time (candidates + score + row + audit entry in one transaction), each
 * followed by a GET of one stored screening through the same stack.
 */
async function benchApi(
  target: DatabaseTarget,
  files: ReturnType<typeof fullSdnFiles>,
  queries: readonly string[],
  requests: number,
): Promise<ScreeningBenchResult['api'][number]> {
  const server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, recurringInvoices: { enabled: false } });
  try {
    const headers = { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' };
    let t = performance.now();
    const up = await server.app.inject({
      method: 'POST',
      url: '/api/pos/sanctions-lists',
      headers,
      payload: JSON.stringify({ ...files, version: 'bench' }),
    });
    if (up.statusCode !== 201) throw new Error(`upload: ${up.statusCode} ${up.body}`);
    const uploadMs = performance.now() - t;
    const post = async (name: string) => {
      const res = await server.app.inject({ method: 'POST', url: '/api/pos/screenings', headers, payload: JSON.stringify({ name }) });
      if (res.statusCode !== 201) throw new Error(`screen: ${res.statusCode} ${res.body}`);
      return res.json<{ id: string }>().id;
    };
    t = performance.now();
    const id = await post(queries[0]!);
    const firstScreenMs = performance.now() - t;
    const posts: number[] = [];
    const gets: number[] = [];
    for (let i = 0; i < requests; i++) {
      t = performance.now();
      await post(queries[(i * 7) % queries.length]!);
      posts.push(performance.now() - t);
      t = performance.now();
      const res = await server.app.inject({ method: 'GET', url: `/api/pos/screenings/${id}`, headers: { authorization: headers.authorization } });
      if (res.statusCode !== 200) throw new Error(`get: ${res.statusCode}`);
      gets.push(performance.now() - t);
    }
    return {
      engine: target.name,
      uploadMs,
      firstScreenMs,
      post: { p50: quantileInterval(posts, 50), p95: quantileInterval(posts, 95) },
      get: { p50: quantileInterval(gets, 50), p95: quantileInterval(gets, 95) },
    };
  } finally {
    await server.close();
  }
}

/** Runs the screening bench (in process, then through the API on each of `targets`). */
export async function benchScreening(options: {
  rounds: number;
  grid: boolean;
  targets?: readonly DatabaseTarget[];
  apiRequests?: number;
}): Promise<ScreeningBenchResult> {
  const files = fullSdnFiles();
  let t = performance.now();
  const parsed = parseSdnFiles(files);
  const parseMs = performance.now() - t;
  t = performance.now();
  const names = listedNames(parsed.entries, parsed.aliases);
  const list = compileList(names);
  const compileMs = performance.now() - t;
  const exact = new Map<string, number[]>();
  for (const n of names) {
    const key = nameKey(n.name, n.sdnType === 'individual' || n.orphan === true);
    exact.set(key, [...(exact.get(key) ?? []), n.entNum]);
  }
  const labelled = labelledNames();
  const queries = labelled.map((n) => n.name);

  let sink = 0;
  const screenTimes: number[] = [];
  const screenCpu: number[] = [];
  const lookupTimes: number[] = [];
  const lookupPass = () => {
    for (const q of queries) {
      const started = process.hrtime.bigint();
      sink += exact.get(nameKey(q))?.length ?? 0;
      lookupTimes.push(Number(process.hrtime.bigint() - started) / 1000);
    }
  };
  const screenPass = () => {
    for (const q of queries) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      sink += screenName(list, q).length;
      screenTimes.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      screenCpu.push((used.user + used.system) / 1000);
    }
  };
  // Warm-up (JIT) of both, not counted.
  for (const q of queries.slice(0, 50)) sink += screenName(list, q).length + (exact.get(nameKey(q))?.length ?? 0);
  for (let round = 0; round < options.rounds; round++) {
    if (round % 2 === 0) {
      lookupPass();
      screenPass();
    } else {
      screenPass();
      lookupPass();
    }
  }
  if (sink === -1) console.log(sink);

  const measured = measureLabelled(list, labelled, DEFAULT_MATCH_THRESHOLD);
  let grid: ScreeningBenchResult['grid'] = null;
  if (options.grid) {
    const gridNames = censusGrid(new Set(exact.keys()));
    const held = gridNames.map((n) => ({ n, top: screenName(list, n, 1)[0] })).filter(({ top }) => (top?.score ?? 0) >= DEFAULT_MATCH_THRESHOLD);
    grid = { names: gridNames.length, held: held.length, examples: held.slice(0, 3).map(({ n, top }) => `${n} ~ ${top!.matchedName} ${top!.score}`) };
  }
  const api: ScreeningBenchResult['api'] = [];
  for (const target of options.targets ?? []) api.push(await benchApi(target, files, queries, options.apiRequests ?? 100));
  return {
    entries: parsed.entries.length,
    aliases: parsed.aliases.length,
    names: list.names.length,
    queries: queries.length,
    rounds: options.rounds,
    parseMs,
    compileMs,
    screen: { p50: quantileInterval(screenTimes, 50), p95: quantileInterval(screenTimes, 95) },
    screenCpu: { p50: quantileInterval(screenCpu, 50), p95: quantileInterval(screenCpu, 95) },
    lookup: { p50: quantileInterval(lookupTimes, 50), p95: quantileInterval(lookupTimes, 95) },
    labelled: { ...measured, threshold: DEFAULT_MATCH_THRESHOLD },
    grid,
    api,
  };
}

/** Prints the screening tables. */
export function printScreeningBench(res: ScreeningBenchResult): void {
  const kinds = res.labelled.kinds;
  printTable(
    `Sanctions screening at the full SDN list (2019-01-15: ${fmt(res.entries)} entries + ${fmt(res.aliases)} aliases = ${fmt(res.names)} names), ` +
      `${fmt(res.queries)} labelled names × ${res.rounds} rounds interleaved with the baseline; figure (95 % confidence interval)`,
    ['in process'],
    [
      { label: 'one screening (candidate index + alignment), p50 ms', values: [fmtInterval(res.screen.p50)], aim: '≤ 5 ms' },
      { label: 'one screening, p95 ms', values: [fmtInterval(res.screen.p95)], aim: '≤ 20 ms' },
      {
        label: '  the same screenings, process CPU time p50 / p95 ms',
        values: [`${fmt(res.screenCpu.p50.value, 3)} / ${fmt(res.screenCpu.p95.value, 3)}`],
      },
      { label: '  baseline: exact-name hash lookup (same normalisation), p50 µs', values: [fmtInterval(res.lookup.p50)] },
      { label: '  baseline: exact-name hash lookup, p95 µs', values: [fmtInterval(res.lookup.p95)] },
      ...kinds
        .filter((k) => k.kind !== 'ordinary')
        .map((k) => ({
          label: `found at ≥ ${res.labelled.threshold}: ${k.kind.replace('_', ' ')}`,
          values: [`${k.count}/${k.names} (${pct(k.rate)})`],
          aim: '≥ 95 %',
        })),
      ...kinds
        .filter((k) => k.kind === 'ordinary')
        .map((k) => ({
          label: `held at ≥ ${res.labelled.threshold}: ordinary US names (labelled set)`,
          values: [`${k.count}/${k.names} (${(k.rate * 100).toFixed(1)} %)`],
          aim: '≤ 1 %',
        })),
      ...(res.grid
        ? [
            {
              label: `held at ≥ ${res.labelled.threshold}: every Census first name × surname pair`,
              values: [`${fmt(res.grid.held)}/${fmt(res.grid.names)} (${((res.grid.held / res.grid.names) * 100).toFixed(2)} %)`],
              aim: '≤ 1 %',
            },
          ]
        : []),
      { label: 'parse the list files once, ms', values: [fmt(res.parseMs)] },
      { label: 'compile the names and the candidate index once per version, ms', values: [fmt(res.compileMs)] },
    ],
  );
  if (res.grid && res.grid.examples.length > 0) console.log(`  e.g. held: ${res.grid.examples.join('; ')}`);
  if (res.api.length === 0) return;
  printTable(
    'Sanctions screening through the API (Fastify inject), same list, one request at a time; figure (95 % confidence interval)',
    res.api.map((a) => a.engine),
    [
      { label: 'upload of the list (POST /api/pos/sanctions-lists: parse + store + compile), ms', values: res.api.map((a) => fmt(a.uploadMs)) },
      { label: 'first screening of the new version (compiled at its upload), ms', values: res.api.map((a) => fmt(a.firstScreenMs)) },
      { label: 'POST /api/pos/screenings (screen + row + audit), p50 ms', values: res.api.map((a) => fmtInterval(a.post.p50)) },
      { label: 'POST /api/pos/screenings, p95 ms', values: res.api.map((a) => fmtInterval(a.post.p95)) },
      { label: '  baseline: GET /api/pos/screenings/{id} (one stored row), p50 ms', values: res.api.map((a) => fmtInterval(a.get.p50)) },
      { label: '  baseline: GET /api/pos/screenings/{id}, p95 ms', values: res.api.map((a) => fmtInterval(a.get.p95)) },
    ],
  );
}
