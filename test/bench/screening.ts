/**
 * Sanctions screening bench (issue 14): the latency of one screening (modules/sanctions/matching.ts `screenName`:
 * Jaro-Winkler on the full name and the parts, Soundex on the parts, over the candidate names and aliases) against a list of the
 * full SDN list's size — SCREEN_ENTRIES entries (default 18 000) and SCREEN_ALIASES aliases (default 20 000),
 * generated in the published files' format (sdn.csv, alt.csv) and read by the same parser as an upload — as p50 and
 * p99 over SCREEN_QUERIES names (default 300: listed names written differently, and unrelated names), beside a plain
 * exact-match lookup of the same names in a Map of the normalised listed names, measured right before and after in the
 * same process. Pure, in process: no database. Also: parsing and compiling the list once (ms).
 */
import { performance } from 'node:perf_hooks';
import { compileList, nameTokens, screenName } from '../../sync-server/src/modules/sanctions/matching.ts';
import { listedNames, parseSdnFiles } from '../../sync-server/src/modules/sanctions/list.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import { startTestServer } from '../support/server.ts';
import { fmt, median, percentile, printTable } from './report.ts';

/** One screening bench run. */
export interface ScreeningBenchResult {
  entries: number;
  aliases: number;
  names: number;
  queries: number;
  rounds: number;
  parseMs: number;
  compileMs: number;
  /** Per round: p50 and p99 of one screening, ms. */
  screen: { p50: number; p99: number }[];
  /** Per baseline (before and after each round): p50 and p99 of one Map lookup, µs. */
  lookup: { p50: number; p99: number }[];
  /** Share of the listed-name variants found at or above 0.85 (sanity: the bench screens what the tests screen). */
  found: number;
  /** Through the API on each database: the upload of the list (ms), POST /api/pos/screenings and GET of one screening (p50/p99 ms). */
  api: { engine: string; uploadMs: number; firstScreenMs: number; post: { p50: number; p99: number }; get: { p50: number; p99: number } }[];
}

const SYLLABLES = ['al', 'an', 'ar', 'ba', 'be', 'da', 'di', 'el', 'fa', 'ga', 'ha', 'ib', 'ka', 'ko', 'la', 'li', 'ma', 'mo', 'na', 'ni', 'or', 'pa', 'ra', 're', 'ri', 'sa', 'se', 'sh', 'ta', 'to', 'va', 'vi', 'ya', 'za', 'zu', 'ov', 'ez', 'in'];
const ENTITY_WORDS = ['TRADING', 'SHIPPING', 'GROUP', 'INTERNATIONAL', 'INDUSTRIES', 'HOLDING', 'PETROCHEMICAL', 'EXCHANGE', 'MARINE', 'AVIATION', 'BANK', 'FOUNDATION', 'TECHNOLOGIES', 'ENERGY', 'STEEL'];
const FORMS = ['LLC', 'LTD.', 'S.A.', 'JSC', 'CO.', 'FZE', 'GMBH'];
const UNRELATED = ['John Smith', 'Maria Garcia', 'Robert Johnson', 'Jennifer Lee', 'Wei Zhang', 'Mohammed Ali', 'Emily Davis', 'Acme Hardware Supply', 'Olivia Brown', 'Lucas Martin'];

function rng(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
}

function word(r: (n: number) => number, min = 2, max = 4): string {
  let w = '';
  for (let i = min + r(max - min + 1); i > 0; i--) w += SYLLABLES[r(SYLLABLES.length)];
  return w;
}
const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
const quote = (v: string) => `"${v}"`;
const NULLS = Array.from({ length: 7 }, () => '-0- ').join(',');

/** sdn.csv and alt.csv of `entries` entries (6 in 10 individuals "LAST, First Middle", 3 entities, 1 vessel) and `aliases` aliases. */
export function generateSdnFiles(entries: number, aliases: number, seed = 7): { sdnCsv: string; altCsv: string; individuals: string[] } {
  const r = rng(seed);
  const sdn: string[] = [];
  const individuals: string[] = [];
  const types: (string | null)[] = [];
  for (let i = 0; i < entries; i++) {
    const kind = r(10);
    let name: string;
    let type: string | null;
    if (kind < 6) {
      name = `${word(r).toUpperCase()}, ${cap(word(r))} ${cap(word(r))}`;
      type = 'individual';
      individuals.push(name);
    } else if (kind < 9) {
      name = `${word(r).toUpperCase()} ${ENTITY_WORDS[r(ENTITY_WORDS.length)]} ${FORMS[r(FORMS.length)]}`;
      type = null;
    } else {
      name = word(r, 2, 3).toUpperCase();
      type = 'vessel';
    }
    types.push(type);
    sdn.push(`${10000 + i},${quote(name)},${type ? quote(type) : '-0- '},"SDGT",${NULLS},-0- ,-0- ,-0- ,-0- `);
  }
  const alt: string[] = [];
  for (let i = 0; i < aliases; i++) {
    const ent = r(entries);
    const name = types[ent] === 'individual' ? `${word(r).toUpperCase()}, ${cap(word(r))}` : `${word(r).toUpperCase()} ${ENTITY_WORDS[r(ENTITY_WORDS.length)]}`;
    alt.push(`${10000 + ent},${50000 + i},"aka",${quote(name)},-0- `);
  }
  return { sdnCsv: `${sdn.join('\r\n')}\r\n`, altCsv: `${alt.join('\r\n')}\r\n`, individuals };
}

/** A listed individual's name written as a customer would: order swapped, or one letter changed. */
function variant(listed: string, i: number): string {
  const [last, given] = listed.split(', ') as [string, string];
  if (i % 2 === 0) return `${given} ${last.toLowerCase()}`;
  const chars = [...`${given} ${last}`];
  const at = Math.max(1, chars.length - 2 - (i % 3));
  chars[at] = chars[at] === 'e' ? 'a' : 'e';
  return chars.join('');
}


/**
 * Through the API (Fastify inject, a real database): the owner uploads the list (the new current version), then
 * `requests` screenings are POSTed one at a time (score + row + audit entry in one transaction), beside GETs of one
 * stored screening through the same stack.
 */
async function benchApi(target: DatabaseTarget, files: { sdnCsv: string; altCsv: string }, queries: readonly string[], requests: number): Promise<ScreeningBenchResult['api'][number]> {
  const server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false }, recurringInvoices: { enabled: false } });
  try {
    const headers = { authorization: `Bearer ${server.credentials.staffToken}`, 'content-type': 'application/json' };
    let t = performance.now();
    const up = await server.app.inject({ method: 'POST', url: '/api/pos/sanctions-lists', headers, payload: JSON.stringify({ ...files, version: 'bench' }) });
    if (up.statusCode !== 201) throw new Error(`upload: ${up.statusCode} ${up.body}`);
    const uploadMs = performance.now() - t;
    const post = async (name: string) => {
      const res = await server.app.inject({ method: 'POST', url: '/api/pos/screenings', headers, payload: JSON.stringify({ name }) });
      if (res.statusCode !== 201) throw new Error(`screen: ${res.statusCode} ${res.body}`);
      return res.json<{ id: string }>().id;
    };
    t = performance.now();
    const id = await post(queries[0]!); // compiles the new version once
    const firstScreenMs = performance.now() - t;
    const posts: number[] = [];
    const gets: number[] = [];
    for (let i = 0; i < requests; i++) {
      t = performance.now();
      await post(queries[i % queries.length]!);
      posts.push(performance.now() - t);
      t = performance.now();
      const res = await server.app.inject({ method: 'GET', url: `/api/pos/screenings/${id}`, headers: { authorization: headers.authorization } });
      if (res.statusCode !== 200) throw new Error(`get: ${res.statusCode}`);
      gets.push(performance.now() - t);
    }
    posts.sort((a, b) => a - b);
    gets.sort((a, b) => a - b);
    return { engine: target.name, uploadMs, firstScreenMs, post: { p50: percentile(posts, 50), p99: percentile(posts, 99) }, get: { p50: percentile(gets, 50), p99: percentile(gets, 99) } };
  } finally {
    await server.close();
  }
}

/** Runs the screening bench (in process, then through the API on each of `targets`). */
export async function benchScreening(options: { entries: number; aliases: number; queries: number; rounds: number; targets?: readonly DatabaseTarget[]; apiRequests?: number }): Promise<ScreeningBenchResult> {
  const files = generateSdnFiles(options.entries, options.aliases);
  let t = performance.now();
  const parsed = parseSdnFiles(files);
  const parseMs = performance.now() - t;
  t = performance.now();
  const names = listedNames(parsed.entries, parsed.aliases);
  const list = compileList(names);
  const compileMs = performance.now() - t;
  const exact = new Map<string, number[]>();
  for (const n of names) {
    const key = nameTokens(n.name, n.sdnType === 'individual' || n.nameType !== 'primary').sort().join(' ');
    exact.set(key, [...(exact.get(key) ?? []), n.entNum]);
  }
  const r = rng(11);
  const queries = Array.from({ length: options.queries }, (_, i) => (i % 3 === 2 ? UNRELATED[i % UNRELATED.length]! : variant(files.individuals[r(files.individuals.length)]!, i)));

  let sink = 0;
  const lookupRound = (): { p50: number; p99: number } => {
    const times: number[] = [];
    for (let k = 0; k < 5; k++) {
      for (const q of queries) {
        const started = process.hrtime.bigint();
        sink += exact.get(nameTokens(q).sort().join(' '))?.length ?? 0;
        times.push(Number(process.hrtime.bigint() - started) / 1000);
      }
    }
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 50), p99: percentile(times, 99) };
  };
  let found = 0;
  let variants = 0;
  const screenRound = (): { p50: number; p99: number } => {
    const times: number[] = [];
    found = 0;
    variants = 0;
    queries.forEach((q, i) => {
      const started = performance.now();
      const top = screenName(list, q);
      times.push(performance.now() - started);
      if (i % 3 !== 2) {
        variants++;
        if ((top[0]?.score ?? 0) >= 0.85) found++;
      }
    });
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 50), p99: percentile(times, 99) };
  };
  screenName(list, queries[0]!); // warm-up
  lookupRound();
  const screen: ScreeningBenchResult['screen'] = [];
  const lookup: ScreeningBenchResult['lookup'] = [lookupRound()];
  for (let round = 0; round < options.rounds; round++) {
    screen.push(screenRound());
    lookup.push(lookupRound());
  }
  if (sink === -1) console.log(sink);
  const api: ScreeningBenchResult['api'] = [];
  for (const target of options.targets ?? []) api.push(await benchApi(target, { sdnCsv: files.sdnCsv, altCsv: files.altCsv }, queries, options.apiRequests ?? 100));
  return { entries: options.entries, aliases: options.aliases, names: list.names.length, queries: options.queries, rounds: options.rounds, parseMs, compileMs, screen, lookup, found: variants ? found / variants : 0, api };
}

/** Prints the screening table. */
export function printScreeningBench(res: ScreeningBenchResult): void {
  const mid = (xs: { p50: number; p99: number }[], k: 'p50' | 'p99') => median(xs.map((x) => x[k]));
  printTable(
    `Sanctions screening — ${fmt(res.entries)} entries + ${fmt(res.aliases)} aliases (${fmt(res.names)} names), ${fmt(res.queries)} names screened, median of ${res.rounds} rounds`,
    ['in process'],
    [
      { label: 'one screening (Jaro-Winkler + Soundex over the names and aliases), p50 ms', values: [fmt(mid(res.screen, 'p50'), 2)] },
      { label: 'one screening, p99 ms', values: [fmt(mid(res.screen, 'p99'), 2)] },
      { label: '  baseline: exact-match Map lookup of the normalised name, p50 µs', values: [fmt(mid(res.lookup, 'p50'), 2)] },
      { label: '  baseline: exact-match Map lookup, p99 µs', values: [fmt(mid(res.lookup, 'p99'), 2)] },
      { label: 'listed names written differently found at ≥ 0.85', values: [`${(res.found * 100).toFixed(0)} %`] },
      { label: 'parse the list files once, ms', values: [fmt(res.parseMs)] },
      { label: 'compile the names for screening once per version, ms', values: [fmt(res.compileMs)] },
    ],
  );
  if (res.api.length === 0) return;
  printTable(
    `Sanctions screening through the API (Fastify inject), same list, one request at a time`,
    res.api.map((a) => a.engine),
    [
      { label: 'upload of the list (POST /api/pos/sanctions-lists: parse + store), ms', values: res.api.map((a) => fmt(a.uploadMs)) },
      { label: 'first screening of the new version (loads + compiles it), ms', values: res.api.map((a) => fmt(a.firstScreenMs)) },
      { label: 'POST /api/pos/screenings (score + row + audit), p50 ms', values: res.api.map((a) => fmt(a.post.p50, 2)) },
      { label: 'POST /api/pos/screenings, p99 ms', values: res.api.map((a) => fmt(a.post.p99, 2)) },
      { label: '  baseline: GET /api/pos/screenings/{id} (one stored row), p50 ms', values: res.api.map((a) => fmt(a.get.p50, 2)) },
      { label: '  baseline: GET /api/pos/screenings/{id}, p99 ms', values: res.api.map((a) => fmt(a.get.p99, 2)) },
    ],
  );
}
