/**
 * Catalog import bench: a Shopify product CSV of N rows (CATALOG_IMPORT_SIZES, default "5000,50000"; one
 * product per row, SKU, quantity and a long description, shaped after the real apparel export in test/fixtures) imported
 * as a job through the HTTP API (several jobs in turn when the file passes a job's 64 MiB limit; 50,000 rows are
 * ~19 MiB), progress polled as the back office does; rows/s over the first 10 % and the last 10 % of the rows (linear
 * import: the two are alike; timed from the first job's answer — reading and checking a file, reported on its own, is
 * paid before any row is imported), also per CPU-second of this process, beside a baseline — the same rows inserted raw (catalog_items,
 * 500 per statement) into a fresh store of the same database, its first and last 10 % likewise. Wall-clock rates on a
 * shared machine: read the ratio to the baseline, measured right before and right after the import.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { ulid } from 'ulid';
import { CATALOG_IMPORT_JOB_MAX_BYTES, type ImportJob } from '../../core/index.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import { startTestServer } from '../support/server.ts';
import { fmt, printTable } from './report.ts';

/** Figures of one engine and size (rows per second). */
export interface CatalogImportBenchResult {
  engine: string;
  rows: number;
  firstTenth: number;
  lastTenth: number;
  overall: number;
  /** The same two rates per CPU-second of this process (PGlite runs in it; on PostgreSQL the server's CPU is not counted). */
  cpuFirstTenth: number;
  cpuLastTenth: number;
  /** Seconds the job requests took to answer (the file read and checked, the job created), summed over the files. */
  startSeconds: number;
  baselineBefore: { firstTenth: number; lastTenth: number };
  baselineAfter: { firstTenth: number; lastTenth: number };
}

const APPAREL = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/catalog/shopify-partners-apparel.csv');

/** A Shopify product CSV of `n` single-variant products, numbered from `from`. */
export function benchCatalogCsv(n: number, from = 0): string {
  const [header, first] = parse(readFileSync(APPAREL, 'utf8'), { relax_column_count: true }) as string[][];
  const rows = Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const row = [...first!];
    row[0] = `bench-${i}`;
    row[1] = `Bench product ${i}`;
    row[2] = `<p>${'Soft cotton, relaxed fit, made to last. '.repeat(5)}</p>`;
    row[13] = `BENCH-${i}`;
    row[16] = String(i % 50);
    return row;
  });
  return stringify([header!, ...rows]);
}

/** Rows/s between the moments `rowsDone` passed `from` and `to` rows (linear interpolation between samples). */
function rateBetween(samples: readonly { t: number; rows: number }[], from: number, to: number): number {
  if (samples.length < 2) return Number.NaN;
  const at = (rows: number) => {
    const i = samples.findIndex((s) => s.rows >= rows);
    if (i <= 0) return samples[Math.max(0, i)]!.t;
    const a = samples[i - 1]!;
    const b = samples[i]!;
    return a.t + ((rows - a.rows) / (b.rows - a.rows)) * (b.t - a.t);
  };
  return (to - from) / ((at(to) - at(from)) / 1000);
}

/** The same rows inserted raw (500 per statement), timed per statement: rows/s of the first and last 10 %. */
async function rawInsert(target: DatabaseTarget, n: number): Promise<{ firstTenth: number; lastTenth: number }> {
  const server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
  try {
    const merchantId = server.credentials.merchantId;
    const samples = [{ t: performance.now(), rows: 0 }];
    for (let i = 0; i < n; i += 500) {
      const ids: string[] = [];
      const data: string[] = [];
      for (let j = i; j < Math.min(n, i + 500); j++) {
        const id = `itm_raw_${ulid()}`;
        ids.push(id);
        data.push(
          JSON.stringify({
            id,
            name: `Bench product ${j}`,
            description: 'Soft cotton, relaxed fit, made to last. '.repeat(5).trim(),
            category: 'Uncategorized',
            kind: 'product',
            variations: [{ id: `var_raw_${ulid()}`, name: 'Regular', priceCents: 5000, sku: `RAW-${j}`, trackStock: true, stockOnHand: j % 50 }],
            modifierLists: [],
            taxRateIds: ['tax_sales'],
          }),
        );
      }
      await server.db.query(
        `INSERT INTO catalog_items (merchant_id, id, data, sync_seq) SELECT $1, id, d::jsonb, nextval('sync_seq') FROM unnest($2::text[], $3::text[]) AS t(id, d)`,
        [merchantId, ids, data],
      );
      samples.push({ t: performance.now(), rows: Math.min(n, i + 500) });
    }
    return { firstTenth: rateBetween(samples, 0, n / 10), lastTenth: rateBetween(samples, n - n / 10, n) };
  } finally {
    await server.close();
  }
}

/**
 * The files `n` bench rows are imported as: one when the CSV fits an import job's limit (CATALOG_IMPORT_JOB_MAX_BYTES,
 * 64 MiB: 50,000 rows with their descriptions are ~19 MiB, one file), else the fewest equal files that each do.
 */
function filesOf(n: number): { from: number; rows: number }[] {
  const perRow = Buffer.byteLength(benchCatalogCsv(Math.min(n, 1_000), Math.max(0, n - 1_000))) / Math.min(n, 1_000);
  const count = Math.ceil((perRow * n * 1.02) / CATALOG_IMPORT_JOB_MAX_BYTES);
  const size = Math.ceil(n / count);
  return Array.from({ length: count }, (_, i) => ({ from: i * size, rows: Math.min(size, n - i * size) })).filter((p) => p.rows > 0);
}

/** CPU milliseconds of this process so far (user + system). */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Imports `n` rows as jobs (see {@link filesOf}) on a fresh store; rows/s of the first and last 10 % and overall. */
async function importJob(
  target: DatabaseTarget,
  n: number,
): Promise<Omit<CatalogImportBenchResult, 'engine' | 'rows' | 'baselineBefore' | 'baselineAfter'>> {
  const server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
  try {
    const staff = { authorization: `Bearer ${server.credentials.staffToken}` };
    const parts = filesOf(n);
    const t0 = performance.now();
    // The rates are of rows imported: the clocks start when the first job has answered (its file read and checked,
    // startSeconds); a later file's start falls between two samples, inside the rates of the rows around it.
    const samples: { t: number; rows: number }[] = [];
    const cpu: { t: number; rows: number }[] = [];
    let startSeconds = 0;
    // One job per file, in turn (a file is at most CATALOG_IMPORT_JOB_MAX_BYTES): rows counted across the files.
    for (const part of parts) {
      const csv = benchCatalogCsv(part.rows, part.from);
      const posted = performance.now();
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import-jobs',
        headers: { ...staff, 'content-type': 'text/csv' },
        payload: csv,
      });
      if (res.statusCode !== 202) throw new Error(`import-jobs answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
      startSeconds += (performance.now() - posted) / 1000;
      if (samples.length === 0) {
        samples.push({ t: performance.now(), rows: 0 });
        cpu.push({ t: cpuMs(), rows: 0 });
      }
      let job = res.json<ImportJob>();
      while (job.status === 'running' || job.status === 'cancelling') {
        await new Promise((r) => setTimeout(r, 100));
        job = (await server.app.inject({ method: 'GET', url: `/api/pos/catalog/import-jobs/${job.id}`, headers: staff })).json<ImportJob>();
        if (part.from + job.rowsDone > samples.at(-1)!.rows) {
          const tenth = Math.floor((samples.at(-1)!.rows * 10) / n);
          samples.push({ t: performance.now(), rows: part.from + job.rowsDone });
          cpu.push({ t: cpuMs(), rows: part.from + job.rowsDone });
          // Progress on stderr at each tenth (a long run on a loaded machine still tells its rate so far).
          if (Math.floor(((part.from + job.rowsDone) * 10) / n) > tenth) {
            console.error(
              `catalog import ${target.name} ${n}: ${part.from + job.rowsDone} rows after ${((performance.now() - t0) / 1000).toFixed(0)} s, last tenth ${fmt(rateBetween(samples, Math.max(0, samples.at(-1)!.rows - n / 10), samples.at(-1)!.rows))} rows/s`,
            );
          }
        }
      }
      if (job.status !== 'done' || job.rowsDone !== part.rows || job.rejectedRows !== 0)
        throw new Error(`import ended ${job.status} with ${job.rowsDone}/${part.rows} rows, ${job.rejectedRows} rejected: ${job.error}`);
    }
    return {
      firstTenth: rateBetween(samples, 0, n / 10),
      lastTenth: rateBetween(samples, n - n / 10, n),
      overall: n / ((samples.at(-1)!.t - t0) / 1000),
      cpuFirstTenth: rateBetween(cpu, 0, n / 10),
      cpuLastTenth: rateBetween(cpu, n - n / 10, n),
      startSeconds,
    };
  } finally {
    await server.close();
  }
}

/** Runs the catalog import bench on one engine for one size: raw baseline, import job, raw baseline. */
export async function benchCatalogImport(target: DatabaseTarget, rows: number): Promise<CatalogImportBenchResult> {
  const baselineBefore = await rawInsert(target, rows);
  console.error(
    `catalog import ${target.name} ${rows}: raw insert before, first / last 10 % ${fmt(baselineBefore.firstTenth)} / ${fmt(baselineBefore.lastTenth)} rows/s`,
  );
  const job = await importJob(target, rows);
  const baselineAfter = await rawInsert(target, rows);
  return { engine: target.name, rows, ...job, baselineBefore, baselineAfter };
}

/** Prints the table: per size, import rows/s first and last 10 % beside the raw-insert baseline's. */
export function printCatalogImportBench(results: readonly CatalogImportBenchResult[]): void {
  const engines = [...new Set(results.map((r) => r.engine))];
  const sizes = [...new Set(results.map((r) => r.rows))];
  const cell = (engine: string, rows: number, f: (r: CatalogImportBenchResult) => string) => {
    const r = results.find((x) => x.engine === engine && x.rows === rows);
    return r ? f(r) : '—';
  };
  printTable(
    'Catalog import — Shopify CSV as an import job over HTTP, rows/s; baseline: the same rows inserted raw (before / after)',
    engines,
    sizes.flatMap((n) => [
      { label: `${fmt(n)} rows: import, first 10 %`, values: engines.map((e) => cell(e, n, (r) => fmt(r.firstTenth))) },
      {
        label: `${fmt(n)} rows: import, last 10 %`,
        values: engines.map((e) => cell(e, n, (r) => fmt(r.lastTenth))),
        aim: 'about the first 10 % (linear)',
      },
      {
        label: `${fmt(n)} rows: import, last / first`,
        values: engines.map((e) => cell(e, n, (r) => (r.lastTenth / r.firstTenth).toFixed(2))),
        aim: '≈ 1',
      },
      {
        label: `${fmt(n)} rows: import per CPU-s, first / last 10 %`,
        values: engines.map((e) => cell(e, n, (r) => `${fmt(r.cpuFirstTenth)} / ${fmt(r.cpuLastTenth)}`)),
        aim: 'alike (load-independent on PGlite)',
      },
      { label: `${fmt(n)} rows: import, overall (job requests included)`, values: engines.map((e) => cell(e, n, (r) => fmt(r.overall))) },
      { label: `${fmt(n)} rows: job requests (file read, checked; s)`, values: engines.map((e) => cell(e, n, (r) => r.startSeconds.toFixed(1))) },
      {
        label: `${fmt(n)} rows: import / raw insert (overall / raw mean)`,
        values: engines.map((e) =>
          cell(
            e,
            n,
            (r) =>
              `${Math.round((100 * r.overall) / ((r.baselineBefore.firstTenth + r.baselineBefore.lastTenth + r.baselineAfter.firstTenth + r.baselineAfter.lastTenth) / 4))} %`,
          ),
        ),
      },
      {
        label: `${fmt(n)} rows: raw insert, first 10 % (before/after)`,
        values: engines.map((e) => cell(e, n, (r) => `${fmt(r.baselineBefore.firstTenth)} / ${fmt(r.baselineAfter.firstTenth)}`)),
      },
      {
        label: `${fmt(n)} rows: raw insert, last 10 % (before/after)`,
        values: engines.map((e) => cell(e, n, (r) => `${fmt(r.baselineBefore.lastTenth)} / ${fmt(r.baselineAfter.lastTenth)}`)),
      },
    ]),
  );
}
