import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogItem } from '../../core/index.ts';
import type { ImportReport } from '../../sync-server/src/modules/catalog/csv.ts';
import { databaseTargets } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** Real Shopify product CSVs (see SOURCE.md there); read in place, never copied. */
const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/catalog');
const sample = (name: string) => readFileSync(resolve(SAMPLES, name), 'utf8');
const APPAREL = 'shopify-partners-apparel.csv';
const HOME = 'shopify-partners-home-and-garden.csv';
const TEMPLATE = 'shopify-product_template.csv';
/** Data rows of a CSV (records after the header), counted by a CSV parser. */
const dataRows = (csv: string) => (parse(csv, { relax_column_count: true }) as string[][]).length - 1;

type Item = CatalogItem & { updatedAt: string };

describe.each(databaseTargets())('catalog CSV import and export on $name', (target) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const importCsv = async (on: TestServer, csv: string, extra: Record<string, unknown> = {}) => {
    const res = await on.app.inject({
      method: 'POST',
      url: '/api/pos/catalog/import',
      headers: { authorization: `Bearer ${on.credentials.staffToken}` },
      payload: { csv, ...extra },
    });
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json<ImportReport>();
    // Every row is accounted for.
    expect(report.importedRows + report.rejected.length).toBe(report.rows);
    expect(report.variantRows + report.imageRows).toBe(report.importedRows);
    return report;
  };
  const item = async (id: string, on = server) => {
    const res = await on.app.inject({
      method: 'GET',
      url: `/api/pos/catalog/items/${id}`,
      headers: { authorization: `Bearer ${on.credentials.staffToken}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Item>();
  };
  const catalog = async (on: TestServer) => {
    const res = await on.app.inject({
      method: 'GET',
      url: '/api/pos/catalog?limit=200',
      headers: { authorization: `Bearer ${on.credentials.staffToken}` },
    });
    return res.json<{ data: Item[] }>().data;
  };
  const exportCsv = async (on: TestServer) => {
    const res = await on.app.inject({
      method: 'GET',
      url: '/api/pos/catalog/export',
      headers: { authorization: `Bearer ${on.credentials.staffToken}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    return res.body;
  };

  it('imports the Shopify partners apparel export: 22 rows, 20 products, Size variants, prices in cents, images, stock', async () => {
    const csv = sample(APPAREL);
    const report = await importCsv(server, csv);
    expect(report).toMatchObject({
      rows: dataRows(csv),
      importedRows: 22,
      variantRows: 22,
      imageRows: 0,
      rejected: [],
      items: { created: 20, updated: 0, unchanged: 0 },
    });
    expect(report.stockMovements).toBe(22);
    const top = await item('itm_classic-varsity-top');
    expect(top).toMatchObject({
      name: 'Classic Varsity Top',
      category: 'Uncategorized',
      kind: 'product',
      taxRateIds: ['tax_sales'],
      imageUrl: 'https://burst.shopifycdn.com/photos/casual-fashion-woman_925x.jpg',
    });
    expect(top.description).toBe(
      'Womens casual varsity top, This grey and black buttoned top is a sport-inspired piece complete with an embroidered letter.',
    );
    expect(top.variations.map((v) => [v.name, v.priceCents, v.trackStock, v.stockOnHand])).toEqual([
      ['Small', 6000, true, 1],
      ['Medium', 6000, true, 1],
      ['Large', 6000, true, 1],
    ]);
    expect((await item('itm_ocean-blue-shirt')).variations.map((v) => [v.name, v.priceCents])).toEqual([['Regular', 5000]]);
  });

  it('imports home and garden: decimal prices, per-variant stock, the first image on the item (the others kept beside it)', async () => {
    const csv = sample(HOME);
    const report = await importCsv(server, csv);
    expect(report).toMatchObject({ rows: dataRows(csv), importedRows: 21, rejected: [], items: { created: 20 } });
    const pot = await item('itm_clay-plant-pot');
    expect(pot).toMatchObject({
      name: 'Clay Plant Pot',
      description: 'Classic blown clay pot for plants',
      category: 'Outdoor',
      imageUrl: 'https://burst.shopifycdn.com/photos/single-sprout-in-a-pot_925x.jpg',
    });
    expect(pot.variations.map((v) => [v.name, v.priceCents, v.stockOnHand])).toEqual(
      [
        ['Regular', 999],
        ['Large', 1599],
      ].map(([n, p], i) => [n, p, [1, 3][i]]),
    );
    // The further image is kept (beside the item, exported back), not reported as lost.
    expect(report.warnings.filter((w) => w.line === 3 && w.message.includes('Image Src'))).toEqual([]);
    const sofa = await item('itm_cream-sofa');
    expect(sofa.variations[0]).toMatchObject({ priceCents: 50000, stockOnHand: 4 });
  });

  it("imports Shopify's own template: options joined, SKUs, Excel-mangled barcodes reported, image row, archived product rejected", async () => {
    const csv = sample(TEMPLATE);
    const report = await importCsv(server, csv);
    expect(report).toMatchObject({ rows: 17, importedRows: 16, variantRows: 15, imageRows: 1, items: { created: 2 } });
    expect(report.rejected).toEqual([{ line: 18, handle: 'example-hat', reason: 'Status is archived: archived products are not imported' }]);
    const barcodeWarnings = report.warnings.filter((w) => w.message.includes('is not a valid GTIN'));
    expect(barcodeWarnings).toHaveLength(15);
    expect(barcodeWarnings[0]).toEqual({ line: 2, handle: 'example-shirt', message: expect.stringContaining('"3.65275E+11"') });
    expect(report.warnings).toContainEqual({ line: 14, handle: 'example-pants', message: 'Status is draft: imported as a sellable catalog item' });
    // Every image is kept now: the image-only row warns of nothing.
    expect(report.warnings.filter((w) => w.line === 17)).toEqual([]);

    const shirt = await item('itm_example-shirt');
    expect(shirt.category).toBe('Shirts');
    expect(shirt.variations).toHaveLength(12);
    expect(shirt.variations[0]).toMatchObject({ name: 'Green / S', priceCents: 2500, sku: 'SRT_COT_111', trackStock: true, stockOnHand: 0 });
    expect(shirt.variations.every((v) => v.gtin === undefined)).toBe(true);
    const pants = await item('itm_example-pants');
    expect(pants.variations.map((v) => [v.name, v.sku, v.priceCents, v.stockOnHand])).toEqual([
      ['28', 'PNT_DEN_285', 9500, 20],
      ['30', 'PNT_DEN_305', 9500, 15],
      ['40', 'PNT_DEN_405', 9500, 10],
    ]);
    const hat = await server.app.inject({
      method: 'GET',
      url: '/api/pos/catalog/items/itm_example-hat',
      headers: { authorization: `Bearer ${server.credentials.staffToken}` },
    });
    expect(hat.statusCode).toBe(404);
  });

  it('rejects each bad row with its line number and reason and imports the rest', async () => {
    const csv = [
      'Handle,Title,Body (HTML),Type,Option1 Name,Option1 Value,Variant SKU,Variant Price,Variant Inventory Qty,Variant Barcode,Image Src',
      'mug,Enamel mug,"<p>Holds 12 oz.</p>',
      '<p>Dishwasher safe &amp; tough.</p>",Kitchen,Color,Blue,MUG-BLUE,12.50,4,4006381333931,https://example.com/mug.png',
      'mug,,,,,Red,MUG-RED,12.999,1,,',
      'mug,,,,,Blue,MUG-BLUE2,12.50,1,,',
      'mug,,,,,Green,MUG-BLUE,13,1,,',
      'mug,,,,,White,MUG-WHITE,13,lots,,',
      ',Orphan,,,,,,1.00,,,',
      'tea-towel,,,,,Default Title,,5,,,',
      'apron,Apron,,,Title,Default Title,RTL-SNICKERS_BAR,20,,,',
      'apron,,,,,,,,,,',
      '',
      'cloth,Cloth,,,Title,Default Title,,,,,',
    ].join('\n');
    const report = await importCsv(server, csv);
    expect(report.rejected.map((r) => [r.line, r.handle, r.reason])).toEqual([
      [4, 'mug', expect.stringContaining('Variant Price "12.999" is not a price')],
      [5, 'mug', 'duplicate variant: line 2 has the same option values (Blue)'],
      [6, 'mug', 'Variant SKU MUG-BLUE is already used on line 2'],
      [7, 'mug', 'Variant Inventory Qty "lots" is not a whole number'],
      [8, null, 'Handle is required'],
      [9, 'tea-towel', 'no row of this handle has a Title, which a new product needs'],
      [10, 'apron', 'Variant SKU RTL-SNICKERS_BAR is already used by catalog item itm_snickers_bar'],
      [11, 'apron', 'the row has neither a variant (option values, price) nor an image'],
      [12, null, 'empty row'],
      [13, 'cloth', 'Variant Price is required'],
    ]);
    expect(report).toMatchObject({ rows: 11, importedRows: 1, items: { created: 1 } });
    const mug = await item('itm_mug');
    expect(mug).toMatchObject({
      description: 'Holds 12 oz.\n\nDishwasher safe & tough.',
      category: 'Kitchen',
      imageUrl: 'https://example.com/mug.png',
    });
    expect(mug.variations).toEqual([
      expect.objectContaining({ name: 'Blue', priceCents: 1250, sku: 'MUG-BLUE', gtin: '4006381333931', stockOnHand: 4 }),
    ]);
  });

  it('refuses what is not a product CSV, and a dry run writes nothing', async () => {
    const post = (payload: unknown) =>
      server.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import',
        headers: { authorization: `Bearer ${server.credentials.staffToken}` },
        payload: payload as object,
      });
    const unclosed = await post({ csv: 'Handle,Title\n"x,Y\n' });
    expect(unclosed.statusCode).toBe(400);
    expect(unclosed.json()).toMatchObject({ code: 'invalid_csv', errors: [{ path: 'csv' }] });
    const noHandle = await post({ csv: 'Name,Price\nx,1\n' });
    expect(noHandle.json()).toMatchObject({ code: 'invalid_csv' });
    expect((await post({ csv: '' })).json().errors[0].path).toBe('csv');
    expect((await post({ csv: 'Handle\n', extra: 1 })).json().errors[0].path).toBe('extra');
    const app = await server.app.inject({
      method: 'POST',
      url: '/api/pos/catalog/import',
      headers: { authorization: `Bearer ${server.credentials.appToken}` },
      payload: { csv: 'Handle\n' },
    });
    expect(app.statusCode).toBe(403);

    const before = await catalog(server);
    const dry = await importCsv(server, 'Handle,Title,Variant Price\nnew-thing,New thing,3\nmug,Enamel mug renamed,9\n', { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, items: { created: 1, updated: 1 } });
    expect(await catalog(server)).toEqual(before);
  });

  it('takes the CSV file itself (text/csv) beyond the 1 MiB JSON limit: a 3 MiB export of 1,000 products, every row accounted for', async () => {
    // A store of its own, so the other tests' catalog stays as they expect it.
    const server = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    try {
      const staff = { authorization: `Bearer ${server.credentials.staffToken}` };
      // 1,000 products shaped after the real apparel export, each with a long description (as real stores write them).
      const [header, first] = parse(sample(APPAREL), { relax_column_count: true }) as string[][];
      const rows = Array.from({ length: 1000 }, (_, i) => {
        const row = [...first!];
        row[0] = `bulk-shirt-${i}`;
        row[1] = `Bulk Shirt ${i}`;
        row[2] = `<p>${'Soft cotton, relaxed fit, made to last. '.repeat(80)}</p>`;
        row[13] = `BULK-${i}`;
        return row;
      });
      const big = stringify([header!, ...rows]);
      expect(Buffer.byteLength(big)).toBeGreaterThan(3 * 1024 * 1024);

      // As JSON it is over the 1 MiB body limit of every other route… but this route takes it as the file itself.
      const dry = await server.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import?dryRun=true',
        headers: { ...staff, 'content-type': 'text/csv; charset=utf-8' },
        payload: big,
      });
      expect(dry.statusCode, dry.body.slice(0, 300)).toBe(200);
      expect(dry.json()).toMatchObject({ dryRun: true, rows: 1000, importedRows: 1000, rejected: [] });
      expect((await catalog(server)).some((i) => i.name === 'Bulk Shirt 0')).toBe(false);

      const res = await server.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import',
        headers: { ...staff, 'content-type': 'text/csv', 'idempotency-key': 'bulk-1' },
        payload: big,
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const report = res.json<ImportReport>();
      expect(report).toMatchObject({ dryRun: false, rows: 1000, importedRows: 1000, rejected: [], items: { created: 1000 } });
      const found = await server.app.inject({ method: 'GET', url: '/api/pos/catalog?q=BULK-999', headers: staff });
      expect(found.json().data.map((i: Item) => i.name)).toEqual(['Bulk Shirt 999']);
      // A retry with the same key replays the report and imports nothing twice.
      const replay = await server.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import',
        headers: { ...staff, 'content-type': 'text/csv', 'idempotency-key': 'bulk-1' },
        payload: big,
      });
      expect(replay.headers['idempotent-replayed']).toBe('true');

      // Limits and refusals: over 16 MiB is a 413 saying so; an empty file a 400; dryRun in the query with JSON a 400;
      // text/csv to any other route is still a 415.
      const huge = await server.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import',
        headers: { ...staff, 'content-type': 'text/csv' },
        payload: 'x'.repeat(17 * 1024 * 1024),
      });
      expect(huge.statusCode).toBe(413);
      expect(huge.json().detail).toContain('16 MiB');
      const empty = await server.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import',
        headers: { ...staff, 'content-type': 'text/csv' },
        payload: ' ',
      });
      expect(empty.statusCode).toBe(400);
      const mixed = await server.app.inject({
        method: 'POST',
        url: '/api/pos/catalog/import?dryRun=true',
        headers: staff,
        payload: { csv: sample(TEMPLATE) },
      });
      expect(mixed.statusCode).toBe(400);
      expect(mixed.json().errors[0].path).toBe('dryRun');
      const elsewhere = await server.app.inject({
        method: 'POST',
        url: '/api/pos/customers',
        headers: { ...staff, 'content-type': 'text/csv' },
        payload: 'givenName\nAda',
      });
      expect(elsewhere.statusCode).toBe(415);
    } finally {
      await server.close();
    }
  }, 240_000);

  it('exports a Shopify CSV that re-imports to the same catalog', async () => {
    const exported = await exportCsv(server);
    const header = (parse(exported) as string[][])[0];
    expect(header?.slice(0, 3)).toEqual(['Handle', 'Title', 'Body (HTML)']);
    const original = await catalog(server);

    // Into the same store: nothing changes.
    const again = await importCsv(server, exported);
    expect(again.rejected).toEqual([]);
    expect(again.items).toEqual({ created: 0, updated: 0, unchanged: original.length });
    expect(again.stockMovements).toBe(0);
    expect(await catalog(server)).toEqual(original);

    // Into a fresh store (which has only the demo catalog): the same catalog comes out.
    const other = await startTestServer({ target, staticDir: null, webhooks: { enabled: false } });
    try {
      const report = await importCsv(other, exported);
      expect(report.rejected).toEqual([]);
      const normalize = (items: Item[]) =>
        items.map(({ updatedAt: _, variations, ...rest }) => ({ ...rest, variations: variations.map(({ id: _id, ...v }) => v) }));
      expect(normalize(await catalog(other))).toEqual(normalize(original));
    } finally {
      await other.close();
    }
  });
});
