/**
 * Catalog import at scale and Shopify fidelity, driven over HTTP as the back office does: import jobs with
 * progress, cancel and a safe re-run; every kept column of real Shopify exports comes back on export; columns the
 * catalog cannot hold are reported per row; taxable products get the store's default rate only.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidGtin, type CatalogItem, type ImportJob } from '../../core/index.ts';
import { KEPT_COLUMNS } from '../../sync-server/src/modules/catalog/csv.ts';
import type { Db, Queryable } from '../../sync-server/src/platform/db/db.ts';
import { databaseTargets, type DatabaseTarget } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/catalog');
const sample = (name: string) => readFileSync(resolve(SAMPLES, name), 'utf8');
const FILES = ['shopify-product_template.csv', 'shopify-partners-apparel.csv', 'shopify-partners-home-and-garden.csv'];
const PRICE_COLUMNS = new Set(['Variant Price', 'Variant Compare At Price', 'Cost per item']);

type Item = CatalogItem & { updatedAt: string };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `target` whose databases record the statements of each transaction (in place on the transaction handle, whose
 * identity keys the server's per-transaction memos), into `transactions`.
 */
function recordingTransactions(target: DatabaseTarget, transactions: string[][]): DatabaseTarget {
  const wrap = (db: Db): Db => ({
    ...db,
    transaction: (fn) =>
      db.transaction((tx: Queryable) => {
        const statements: string[] = [];
        transactions.push(statements);
        const query = tx.query.bind(tx);
        tx.query = ((sql: string, params?: unknown[]) => {
          statements.push(sql);
          return query(sql, params);
        }) as Queryable['query'];
        return fn(tx);
      }),
  });
  return {
    name: target.name,
    open: async () => wrap(await target.open()),
    openMigrated: async () => wrap(await (target.openMigrated ? target.openMigrated() : target.open())),
  };
}

/** Records of a CSV as header-keyed objects, cells trimmed (as the import reads them). */
function records(csv: string): Record<string, string>[] {
  const [header, ...rows] = parse(csv, { bom: true, relax_column_count: true }) as string[][];
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h.trim(), (r[i] ?? '').trim()])));
}

describe.each(databaseTargets())('catalog import jobs on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
  });
  afterAll(async () => {
    await server?.close();
  });
  const staff = (on: TestServer) => ({ authorization: `Bearer ${on.credentials.staffToken}` });

  const startJob = async (on: TestServer, csv: string, query = '') => {
    const res = await on.app.inject({
      method: 'POST',
      url: `/api/pos/catalog/import-jobs${query}`,
      headers: { ...staff(on), 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(202);
    return res.json<ImportJob>();
  };
  const getJob = async (on: TestServer, id: string) => {
    const res = await on.app.inject({ method: 'GET', url: `/api/pos/catalog/import-jobs/${id}`, headers: staff(on) });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    return res.json<ImportJob>();
  };
  /** Polls the job until it ends; returns it and every progress figure seen on the way. */
  const untilEnded = async (on: TestServer, id: string) => {
    const seen: number[] = [];
    for (;;) {
      const job = await getJob(on, id);
      seen.push(job.rowsDone);
      if (job.status !== 'running' && job.status !== 'cancelling') return { job, seen };
      await sleep(25);
    }
  };
  const importJob = async (on: TestServer, csv: string, query = '') => (await untilEnded(on, (await startJob(on, csv, query)).id)).job;
  const exportCsv = async (on: TestServer) => {
    const res = await on.app.inject({ method: 'GET', url: '/api/pos/catalog/export', headers: staff(on) });
    expect(res.statusCode).toBe(200);
    return res.body;
  };
  const item = async (on: TestServer, id: string) =>
    (await on.app.inject({ method: 'GET', url: `/api/pos/catalog/items/${id}`, headers: staff(on) })).json<Item>();

  it.each(FILES)(
    'round trip of the real export %s: every kept column comes back with its values, row by row',
    async (file) => {
      const on = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
      try {
        const csv = sample(file);
        const job = await importJob(on, csv);
        expect({ ...job, report: null }).toMatchObject({ status: 'done', rowsDone: job.rowsTotal, error: null });
        const report = job.report!;
        expect(report.importedRows + report.rejected.length).toBe(report.rows);
        const rejected = new Set(report.rejected.map((r) => r.handle));
        const source = records(csv).filter((r) => !rejected.has(r.Handle!));
        const exported = records(await exportCsv(on));
        const byHandle = (rows: Record<string, string>[]) => {
          const out = new Map<string, Record<string, string>[]>();
          for (const r of rows) out.set(r.Handle!, [...(out.get(r.Handle!) ?? []), r]);
          return out;
        };
        const want = byHandle(source);
        const got = byHandle(exported);
        const header = Object.keys(records(csv)[0]!);
        const kept = header.filter((c) => KEPT_COLUMNS.has(c));
        // The fields the issue names are among them (where the file has them).
        for (const c of ['Vendor', 'Tags', 'Option1 Name', 'Body (HTML)', 'Image Src']) expect(kept).toContain(c);
        for (const [handle, rows] of want) {
          const out = got.get(handle);
          expect(out, handle).toBeDefined();
          expect(out!.length, handle).toBe(rows.length);
          rows.forEach((row, i) => {
            for (const c of kept) {
              let a = row[c]!;
              let b = out![i]![c]!;
              if (c === 'Variant Barcode' && !isValidGtin(a.replace(/^'/, ''))) continue; // reported, not kept (Excel-mangled)
              if (PRICE_COLUMNS.has(c) && a !== '') [a, b] = [String(Number(a)), String(Number(b))];
              expect(`${handle} line ${i} ${c}: ${b}`).toBe(`${handle} line ${i} ${c}: ${a}`);
            }
          });
        }
        // And a re-import of the export changes nothing.
        const again = await importJob(on, await exportCsv(on));
        expect(again.report).toMatchObject({ rejected: [], stockMovements: 0, items: { created: 0, updated: 0 } });
      } finally {
        await on.close();
      }
    },
    120_000,
  );

  it("keeps Shopify's option names, compare-at prices, vendor, tags, variant images and every image; reports the columns it cannot hold per row", async () => {
    const on = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    try {
      const job = await importJob(on, sample('shopify-product_template.csv'));
      const report = job.report!;
      // Google Shopping and market columns have no place in the catalog: each row that fills them says which.
      const title = report.warnings.find((w) => w.line === 2 && w.message.startsWith('not kept'));
      expect(title?.message).toContain('Google Shopping / Gender');
      expect(title?.message).toContain('Included / United States');
      expect(title?.message).not.toContain('Vendor');
      const exported = records(await exportCsv(on));
      const shirt = exported.filter((r) => r.Handle === 'example-shirt');
      expect([shirt[0]!['Option1 Name'], shirt[0]!['Option2 Name'], shirt[0]!.Vendor, shirt[0]!.Tags]).toEqual([
        'Color',
        'Size',
        'Acme',
        'Made to Order, Shirt Tag',
      ]);
      expect(shirt[0]!['Body (HTML)']).toMatch(/^<p>This t-shirt/);
      const pants = exported.filter((r) => r.Handle === 'example-pants');
      expect(pants.map((r) => r['Variant Compare At Price'])).toEqual(['64.95', '64.95', '64.95', '']);
      expect(pants.map((r) => r['Image Position'])).toEqual(['1', '2', '3', '4']);
      expect(pants[1]!['Variant Image']).toBe('https://burst.shopifycdn.com/photos/woman-puts-hand-in-pocket.jpg?width=1500');
    } finally {
      await on.close();
    }
  }, 120_000);

  it('takes a whole export past the one-request limit as a job (17 MiB of long descriptions); a file over 64 MiB is a 413 naming the limit', async () => {
    // 300 products, each with ~60 KB of description HTML (Shopify keeps up to 64 KB): ~17.6 MiB, more than the
    // one-transaction import takes (16 MiB), as a real export of a large store with descriptions is.
    const paragraph = `<p>${'Heavy-duty, weather-proof, made to last for years of daily use. '.repeat(15)}</p>`;
    const body = paragraph.repeat(Math.floor(60_000 / paragraph.length));
    const rows = Array.from({ length: 300 }, (_, i) => `long-${i},Long product ${i},"${body}",${(i % 90) + 10}.00`);
    const csv = ['Handle,Title,Body (HTML),Variant Price', ...rows].join('\n');
    expect(Buffer.byteLength(csv)).toBeGreaterThan(16 * 1024 * 1024);
    const tooBigForOne = await server.app.inject({
      method: 'POST',
      url: '/api/pos/catalog/import?dryRun=true',
      headers: { ...staff(server), 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(tooBigForOne.statusCode).toBe(413);
    const job = await importJob(server, csv);
    expect(job).toMatchObject({ status: 'done', rowsTotal: 300, rowsDone: 300 });
    expect(job.report!.rejected).toEqual([]);
    const stored = await item(server, 'itm_long-299');
    expect(stored).toMatchObject({ name: 'Long product 299' });
    expect(stored.description).toHaveLength(2000);

    const huge = await server.app.inject({
      method: 'POST',
      url: '/api/pos/catalog/import-jobs',
      headers: { ...staff(server), 'content-type': 'text/csv' },
      payload: 'x'.repeat(65 * 1024 * 1024),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().detail).toContain('64 MiB');
  }, 180_000);

  it("gives taxable products the store's default rate only, never every rate stacked; taxRateId chooses another", async () => {
    const on = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    try {
      const created = await on.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/tax-rates',
        headers: staff(on),
        payload: { name: 'City tax', basisPoints: 100, inclusive: false },
      });
      expect(created.statusCode, created.body).toBe(201);
      const city = created.json<{ id: string }>().id;
      await importJob(on, sample('shopify-partners-apparel.csv'));
      expect((await item(on, 'itm_classic-varsity-top')).taxRateIds).toEqual(['tax_sales']);
      await importJob(
        on,
        'Handle,Title,Variant Price,Variant Taxable\ncity-thing,City thing,3,true\nfree-thing,Free thing,3,false\n',
        `?taxRateId=${city}`,
      );
      expect((await item(on, 'itm_city-thing')).taxRateIds).toEqual([city]);
      expect((await item(on, 'itm_free-thing')).taxRateIds).toEqual([]);
      const bad = await on.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import-jobs?taxRateId=tax_nope',
        headers: { ...staff(on), 'content-type': 'text/csv' },
        payload: 'Handle,Title,Variant Price\nx,X,1\n',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].path).toBe('taxRateId');
    } finally {
      await on.close();
    }
  }, 120_000);

  it("imports each chunk in the same few statements whatever its rows and the catalog's size (set-based, never per row)", async () => {
    const transactions: string[][] = [];
    const on = await startTestServer({ target: recordingTransactions(target, transactions), staticDir: null, webhooks: { enabled: false } });
    try {
      const [header, first] = parse(sample('shopify-partners-apparel.csv'), { relax_column_count: true }) as string[][];
      const file = (from: number, n: number) =>
        stringify([
          header!,
          ...Array.from({ length: n }, (_, k) =>
            Object.assign([...first!], { 0: `sized-${from + k}`, 1: `Sized ${from + k}`, 13: `SIZED-${from + k}`, 16: String(k % 7) }),
          ),
        ]);
      const chunksOf = async (csv: string) => {
        transactions.length = 0;
        const job = await importJob(on, csv);
        expect(job).toMatchObject({ status: 'done', rejectedRows: 0 });
        // The chunks' transactions are those that append a part of the job's report.
        return transactions.filter((t) => t.some((sql) => sql.startsWith('INSERT INTO catalog_import_job_chunks'))).map((t) => t.length);
      };
      // 10 rows into a store of a few items, 1,000 rows (two chunks of 500) into it, then 1,000 more into 1,010 items:
      // every chunk the same number of statements.
      const small = await chunksOf(file(0, 10));
      const large = await chunksOf(file(10, 1_000));
      const later = await chunksOf(file(1_010, 1_000));
      expect(small).toHaveLength(1);
      expect(large).toHaveLength(2);
      expect(later).toHaveLength(2);
      expect(new Set([...small, ...large, ...later]).size, JSON.stringify({ small, large, later })).toBe(1);
      expect(small[0]).toBeLessThan(30);
      // A re-run changes nothing and still reads set-based.
      const again = await chunksOf(file(1_010, 1_000));
      expect(Math.max(...again)).toBeLessThan(30);
    } finally {
      await on.close();
    }
  }, 600_000);

  it('reports progress chunk by chunk, cancels after the current chunk, and a re-run of the same file completes it without duplicates', async () => {
    const on = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    try {
      const [header, first] = parse(sample('shopify-partners-apparel.csv'), { relax_column_count: true }) as string[][];
      const rows = Array.from({ length: 1600 }, (_, i) => {
        const row = [...first!];
        row[0] = `bulk-${i}`;
        row[1] = `Bulk ${i}`;
        row[13] = `BULK-${i}`;
        return row;
      });
      const csv = stringify([header!, ...rows]);

      // Cancel at once: the job stops after its current chunk; what it committed stays, counted in rowsDone.
      const started = await startJob(on, csv);
      expect(started).toMatchObject({ status: 'running', rowsTotal: 1600, rowsDone: 0, report: null });
      const cancel = await on.app.inject({ method: 'POST', url: `/api/pos/catalog/import-jobs/${started.id}/cancel`, headers: staff(on) });
      expect(cancel.statusCode, cancel.body).toBe(200);
      const { job: cancelled } = await untilEnded(on, started.id);
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.rowsDone).toBeLessThan(1600);
      expect(cancelled.report!.results).toHaveLength(cancelled.items.created);
      const catalogCount = async () => {
        const res = await on.app.inject({ method: 'GET', url: '/api/pos/catalog?limit=200&q=Bulk', headers: staff(on) });
        let n = res.json().data.length;
        let cursor = res.json().nextCursor;
        while (cursor) {
          const page = await on.app.inject({
            method: 'GET',
            url: `/api/pos/catalog?limit=200&q=Bulk&cursor=${encodeURIComponent(cursor)}`,
            headers: staff(on),
          });
          n += page.json().data.length;
          cursor = page.json().nextCursor;
        }
        return n;
      };
      expect(await catalogCount()).toBe(cancelled.items.created);

      // The same file again: progress climbs chunk by chunk to the total; only the missing products are created.
      const rerun = await startJob(on, csv);
      const { job: done, seen } = await untilEnded(on, rerun.id);
      expect(done).toMatchObject({ status: 'done', rowsTotal: 1600, rowsDone: 1600 });
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen.some((n) => n > 0 && n < 1600)).toBe(true);
      expect(done.items).toEqual({ created: 1600 - cancelled.items.created, updated: 0, unchanged: cancelled.items.created });
      expect(done.report!.rejected).toEqual([]);
      expect(await catalogCount()).toBe(1600);
      // A cancel of a job that has ended answers it as it is.
      const late = await on.app.inject({ method: 'POST', url: `/api/pos/catalog/import-jobs/${rerun.id}/cancel`, headers: staff(on) });
      expect(late.json().status).toBe('done');
      const unknown = await on.app.inject({ method: 'GET', url: '/api/pos/catalog/import-jobs/imp_nope', headers: staff(on) });
      expect(unknown.statusCode).toBe(404);
    } finally {
      await on.close();
    }
  }, 600_000);
});
