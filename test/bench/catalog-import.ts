/**
 * Catalog import bench: a Shopify product CSV of N rows (CATALOG_IMPORT_SIZES, default "5000,50000"; one
 * product per row, SKU, quantity and a long description, shaped after the real apparel export in test/fixtures) imported
 * as a job through the HTTP API (several jobs in turn when the file passes a job's 64 MiB limit; 50,000 rows are
 * ~19 MiB), progress polled as the back office does; rows/s over the first 10 % and the last 10 % of the rows (linear
 * import: the two are alike; timed from the first job's answer — reading and checking a file, reported on its own, is
 * paid before any row is imported), beside a baseline — the same rows inserted raw (catalog_items, 500 per statement)
 * into a fresh store of the same database, measured right before and right after each import (report.ts `bracketed`,
 * BENCH_ROUNDS rounds, default 6). All rates are wall clock (a CPU-second figure would count only this process's CPU,
 * not PostgreSQL's). Printed as median (low–high) over the rounds with the distribution-free 95 % interval (report.ts
 * `medianInterval`; `*` when the rounds are too few for 95 %): the import's first and last 10 %, their ratio last /
 * first per round, the import overall and its job requests, the raw insert overall (each round's the mean of before
 * and after; the largest gap as a diagnostic) and its first / last 10 %, and import ÷ raw insert per round (overall
 * rates, report.ts `bracketedRatio`).
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
import {
  anchoredRate,
  bracketed,
  bracketedBaseline,
  bracketedRatio,
  fmt,
  fmtMedianInterval,
  fmtRatioInterval,
  median,
  medianInterval,
  pct,
  printTable,
} from './report.ts';

/** One import job's figures (rows per second, wall clock). */
export interface ImportRun {
  firstTenth: number;
  lastTenth: number;
  /** All rows over the time from the first job request to the last row (job requests included). */
  overall: number;
  /** Seconds the job requests took to answer (the file read and checked, the job created), summed over the files. */
  startSeconds: number;
}

/** One raw insert's figures (rows per second, wall clock). */
export interface RawRun {
  firstTenth: number;
  lastTenth: number;
  overall: number;
}

/** Figures of one engine and size: every round's import and the raw inserts around them. */
export interface CatalogImportBenchResult {
  engine: string;
  rows: number;
  rounds: number;
  imports: ImportRun[];
  /** `rounds + 1` raw inserts: raws[r] just before imports[r], raws[r + 1] just after. */
  raws: RawRun[];
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
async function rawInsert(target: DatabaseTarget, n: number): Promise<RawRun> {
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
    return {
      firstTenth: rateBetween(samples, 0, n / 10),
      lastTenth: rateBetween(samples, n - n / 10, n),
      overall: n / ((samples.at(-1)!.t - samples[0]!.t) / 1000),
    };
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

/** Imports `n` rows as jobs (see {@link filesOf}) on a fresh store; rows/s of the first and last 10 % and overall. */
async function importJob(target: DatabaseTarget, n: number): Promise<ImportRun> {
  const server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
  try {
    const staff = { authorization: `Bearer ${server.credentials.staffToken}` };
    const parts = filesOf(n);
    const t0 = performance.now();
    // The rates are of rows imported: the clocks start when the first job has answered (its file read and checked,
    // startSeconds); a later file's start falls between two samples, inside the rates of the rows around it.
    const samples: { t: number; rows: number }[] = [];
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
      if (samples.length === 0) samples.push({ t: performance.now(), rows: 0 });
      let job = res.json<ImportJob>();
      while (job.status === 'running' || job.status === 'cancelling') {
        await new Promise((r) => setTimeout(r, 100));
        job = (await server.app.inject({ method: 'GET', url: `/api/pos/catalog/import-jobs/${job.id}`, headers: staff })).json<ImportJob>();
        if (part.from + job.rowsDone > samples.at(-1)!.rows) {
          const tenth = Math.floor((samples.at(-1)!.rows * 10) / n);
          samples.push({ t: performance.now(), rows: part.from + job.rowsDone });
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
      startSeconds,
    };
  } finally {
    await server.close();
  }
}

/**
 * Runs the catalog import bench on one engine for one size: `rounds` import jobs, each with a raw insert of the same
 * rows just before and just after it (report.ts `bracketed`), each on a fresh store.
 */
export async function benchCatalogImport(target: DatabaseTarget, rows: number, rounds: number): Promise<CatalogImportBenchResult> {
  const run = await bracketed(
    rounds,
    async (r) => {
      const job = await importJob(target, rows);
      console.error(`catalog import ${target.name} ${rows}: round ${r + 1} of ${rounds}, overall ${fmt(job.overall)} rows/s`);
      return job;
    },
    () => rawInsert(target, rows),
  );
  return { engine: target.name, rows, rounds, imports: run.figures, raws: run.baselines };
}

/** Prints the table: per size, import rows/s first and last 10 %, their ratio, and import ÷ raw insert, per round. */
export function printCatalogImportBench(results: readonly CatalogImportBenchResult[]): void {
  const engines = [...new Set(results.map((r) => r.engine))];
  const sizes = [...new Set(results.map((r) => r.rows))];
  const cell = (engine: string, rows: number, f: (r: CatalogImportBenchResult) => string) => {
    const r = results.find((x) => x.engine === engine && x.rows === rows);
    return r ? f(r) : '—';
  };
  const rate = (values: number[]) => fmtMedianInterval(medianInterval(values));
  printTable(
    `Catalog import — Shopify CSV as an import job over HTTP, rows/s (wall clock), median (95 % interval) of ${results[0]?.rounds ?? 0} rounds; ` +
      'baseline: the same rows inserted raw just before and after each import',
    engines,
    sizes.flatMap((n) => [
      { label: `${fmt(n)} rows: import, first 10 %`, values: engines.map((e) => cell(e, n, (r) => rate(r.imports.map((x) => x.firstTenth)))) },
      {
        label: `${fmt(n)} rows: import, last 10 %`,
        values: engines.map((e) => cell(e, n, (r) => rate(r.imports.map((x) => x.lastTenth)))),
        aim: 'about the first 10 % (linear)',
      },
      {
        label: `${fmt(n)} rows: import, last / first, per round`,
        values: engines.map((e) =>
          cell(e, n, (r) => fmtMedianInterval(medianInterval(r.imports.map((x) => x.lastTenth / x.firstTenth)), (v) => v.toFixed(2))),
        ),
        aim: '≈ 1',
      },
      {
        label: `${fmt(n)} rows: import, overall (job requests included)`,
        values: engines.map((e) => cell(e, n, (r) => rate(r.imports.map((x) => x.overall)))),
      },
      {
        label: `${fmt(n)} rows: job requests (file read, checked; s)`,
        values: engines.map((e) => cell(e, n, (r) => fmtMedianInterval(medianInterval(r.imports.map((x) => x.startSeconds)), (v) => v.toFixed(1)))),
      },
      {
        label: `${fmt(n)} rows: baseline: raw insert, overall`,
        values: engines.map((e) => cell(e, n, (r) => fmtMedianInterval(bracketedBaseline(r.raws.map((x) => x.overall))))),
      },
      {
        label: `${fmt(n)} rows:   before/after gap`,
        values: engines.map((e) => cell(e, n, (r) => pct(anchoredRate(r.raws.map((x) => x.overall)).spread))),
      },
      {
        label: `${fmt(n)} rows: raw insert, first / last 10 %`,
        values: engines.map((e) =>
          cell(e, n, (r) => `${fmt(median(r.raws.map((x) => x.firstTenth)))} / ${fmt(median(r.raws.map((x) => x.lastTenth)))}`),
        ),
      },
      {
        label: `${fmt(n)} rows: import ÷ raw insert (overall), per round`,
        values: engines.map((e) =>
          cell(e, n, (r) =>
            fmtRatioInterval(
              bracketedRatio(
                r.imports.map((x) => x.overall),
                r.raws.map((x) => x.overall),
              ),
            ),
          ),
        ),
      },
    ]),
  );
}
