/**
 * Catalog import and export in Shopify's product CSV format (help.shopify.com, "Using CSV files to import and export
 * products"): first row = headers; rows sharing a `Handle` are one product; continuation rows leave Title etc. blank;
 * a product without options uses `Option1 Name=Title`, `Option1 Value=Default Title`.
 *
 * Import maps (every data row is accounted for: imported as a variant row or an image row, or rejected with its line
 * number and reason; lost details are reported as warnings):
 * - Handle → the item (matched to an earlier import's handle, else to the item `itm_<handle>`, else a new item);
 * - Title → name (required for a new product), Body (HTML) → description (tags stripped), Type → category (else the
 *   last segment of Product Category, else "Uncategorized"), Status `archived` → rejected (not imported);
 * - Option1..3 Value → the variation name (values joined with " / "; "Default Title" → "Regular");
 * - Variant Price → priceCents (decimal string, exact), Variant SKU → sku, Variant Barcode → gtin when it is a valid
 *   GTIN (else a warning), Variant Inventory Tracker `shopify` or a Variant Inventory Qty → trackStock, Variant
 *   Inventory Qty → a `count` stock movement at the default location, Variant Requires Shipping all false → kind
 *   `service`, Variant Taxable false → no tax rates (else the store's exclusive rates), Image Src → imageUrl (an item
 *   has one image: further images are warnings).
 * An existing item is updated: fields present in the CSV replace the stored ones, variations are matched by name
 * (others are kept), modifier lists are kept (the format has none).
 *
 * Export writes the live catalog in the same format, so it re-imports to the same catalog (test: round trip).
 *
 * The stock side of an import (the counts) belongs to the inventory module: the import asks for it through the
 * {@link ImportStockCounts} step its caller passes (workflows/catalog-import.ts).
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import {
  cardNumberRule,
  CARD_NUMBER_REFUSED_MESSAGE,
  maskCardNumbers,
  defaultTaxRateId,
  isHttpUrl,
  isValidGtin,
  minorUnitExponent,
  newId,
  MAX_AMOUNT_CENTS,
  type CatalogItem,
  type CatalogItemCreate,
  unsafeTextProblem,
  type CatalogItemUpdate,
  type ImportReport,
  type TaxRate,
} from '../../../../core/index.ts';
import { prepared, type Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import {
  invalidReferences,
  itemsBySku,
  liveTaxRates,
  newItemOf,
  onHandAtDefaultLocation,
  patchedItem,
  referenceErrors,
  refreshStockOnHand,
  sameItem,
  storeItems,
  withStockOf,
  type ItemWrite,
} from './service.ts';

/**
 * The stock step of an import, run once per chunk after its items are stored: record a `count` movement at the default
 * location for each of these variations (keyed by `source.sourceId`, with `source.note`), bringing its units on hand
 * to `counted` — the import has already stored their items with `stockOnHand` = `counted`, and passes only the
 * variations whose units on hand (read in the same mutation) differ. Returns the variation ids it recorded a movement
 * for; the import re-stamps the items of any other from the stock.
 */
export type ImportStockCounts = (
  counts: readonly { variationId: string; counted: number }[],
  source: { sourceId: string; note: string },
) => Promise<string[]>;

/** The import report (core `importReportSchema`). */
export type { ImportReport };

/** A data row of a catalog CSV: its line number in the file and its cells by header name. */
export interface CatalogCsvRow {
  line: number;
  get(column: string): string;
  /** The columns whose cell is not blank, in header order. */
  filled(): string[];
}
type Row = CatalogCsvRow;

const HANDLE_ID = /^[A-Za-z0-9_-]{1,40}$/;

/** Decimal price text ("9.99", "50") → integer minor units, exactly; undefined when not a price. */
export function parsePrice(text: string, exponent: number): number | undefined {
  const m = /^(\d{1,9})(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const fraction = m[2] ?? '';
  if (fraction.length > exponent && /[1-9]/.test(fraction.slice(exponent))) return undefined;
  const cents = Number(m[1]) * 10 ** exponent + Number((fraction.slice(0, exponent) || '0').padEnd(exponent, '0'));
  return Number.isSafeInteger(cents) && cents <= MAX_AMOUNT_CENTS ? cents : undefined;
}

/** Integer minor units → decimal price text ("9.99"). */
export function formatPrice(cents: number, exponent: number): string {
  if (exponent === 0) return String(cents);
  const whole = Math.trunc(cents / 10 ** exponent);
  return `${whole}.${String(cents % 10 ** exponent).padStart(exponent, '0')}`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** HTML → plain text: block ends become line breaks, tags are dropped, common entities decoded, spaces tidied. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<\s*br\s*\/?>/gi, '\n')
    .replace(/<\/\s*(p|div|li|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+\d*);/gi, (all, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#') && name !== '#39') return String.fromCodePoint(Number(name.slice(1)));
      return ENTITIES[name.toLowerCase()] ?? all;
    });
  return text
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function textToHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The boundary's field name of a Shopify column, where it is not the column's own (core/card-number-guard.ts). */
const CSV_COLUMN_FIELDS: Readonly<Record<string, string>> = { 'Body (HTML)': 'description', 'Variant Barcode': 'barcode' };

/**
 * Reads a Shopify product CSV (UTF-8, BOM allowed) into its header and data rows.
 * @throws ProblemError 400 `invalid_csv` when the text is not a CSV with a Handle column.
 */
export function readCatalogCsv(csv: string): { header: string[]; rows: CatalogCsvRow[] } {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(csv, { bom: true, info: true, relax_column_count: true, skip_empty_lines: false }) as unknown as typeof records;
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new ProblemError(400, 'invalid_csv', `The CSV cannot be read${e.lines ? ` (line ${e.lines})` : ''}: ${e.message}`, [
      { path: 'csv', message: e.message },
    ]);
  }
  const first = records[0];
  if (!first)
    throw new ProblemError(400, 'invalid_csv', 'The CSV is empty: send a header row and product rows.', [{ path: 'csv', message: 'is empty' }]);
  const header = first.record.map((h) => h.trim());
  const missing = ['Handle'].filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new ProblemError(400, 'invalid_csv', `The CSV header lacks ${missing.join(', ')}: this is not a Shopify product CSV.`, [
      { path: 'csv', message: `header lacks ${missing.join(', ')}` },
    ]);
  }
  // Card numbers (core/card-number-guard.ts, the boundary's rule, per cell): masked in the description column,
  // refused (400 naming the line and column) anywhere else; a barcode with a right GS1 check digit passes.
  for (const [i, h] of header.entries()) {
    if (cardNumberRule(undefined, h) === 'refuse')
      throw new ProblemError(400, 'validation_error', `Invalid csv: a column name ${CARD_NUMBER_REFUSED_MESSAGE}.`, [
        { path: 'csv', message: `column ${i + 1} ${CARD_NUMBER_REFUSED_MESSAGE}` },
      ]);
  }
  for (const { record, info } of records.slice(1)) {
    for (let i = 0; i < record.length; i++) {
      const column = header[i] ?? '';
      const rule = cardNumberRule(CSV_COLUMN_FIELDS[column] ?? column, record[i]!);
      if (rule === 'mask') record[i] = maskCardNumbers(record[i]!);
      else if (rule === 'refuse') {
        throw new ProblemError(
          400,
          'validation_error',
          `Invalid csv: line ${info.lines}, column ${column || i + 1} ${CARD_NUMBER_REFUSED_MESSAGE}.`,
          [{ path: 'csv', message: `line ${info.lines}, column ${column || i + 1} ${CARD_NUMBER_REFUSED_MESSAGE}` }],
        );
      }
    }
  }
  const index = new Map(header.map((h, i) => [h, i]));
  const rows = records.slice(1).map(({ record, info }) => {
    const newlines = record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0);
    return {
      line: info.lines - newlines,
      get: (column: string) => (index.has(column) ? (record[index.get(column)!] ?? '').trim() : ''),
      filled: () => header.filter((h, i) => h !== '' && (record[i] ?? '').trim() !== ''),
    };
  });
  return { header, rows };
}

const isFalse = (v: string) => /^(false|no|0)$/i.test(v);

/** A new, empty import report (core `importReportSchema`) for `rows` data rows. */
export function newImportReport(importId: string, dryRun: boolean, rows: number): ImportReport {
  return {
    importId,
    dryRun,
    rows,
    importedRows: 0,
    variantRows: 0,
    imageRows: 0,
    items: { created: 0, updated: 0, unchanged: 0 },
    stockMovements: 0,
    rejected: [],
    warnings: [],
    results: [],
  };
}

/** The rows of one product (one `Handle`), in file order. */
export interface ProductRows {
  handle: string;
  rows: CatalogCsvRow[];
}

/**
 * Groups the data rows by `Handle` (file order of first appearance); rows without a usable handle are rejected into
 * `report` here. Pure and linear (one map).
 */
export function groupProducts(rows: readonly CatalogCsvRow[], report: ImportReport): ProductRows[] {
  const groups = new Map<string, ProductRows>();
  for (const row of rows) {
    const handle = row.get('Handle');
    if (handle === '') {
      const blank = ['Title', 'Option1 Value', 'Variant Price', 'Image Src'].every((c) => row.get(c) === '');
      report.rejected.push({ line: row.line, handle: null, reason: blank ? 'empty row' : 'Handle is required' });
      continue;
    }
    if (handle.length > 255) {
      report.rejected.push({ line: row.line, handle: handle.slice(0, 40), reason: 'Handle is longer than 255 characters' });
      continue;
    }
    const group = groups.get(handle);
    if (group) group.rows.push(row);
    else groups.set(handle, { handle, rows: [row] });
  }
  return [...groups.values()];
}

/**
 * What an import needs across its chunks: the currency exponent, the store's default tax rate (one id, or none), the
 * stock step and the SKUs already taken by earlier rows of the file.
 */
export interface ImportContext {
  exponent: number;
  /** The rate a taxable product gets: `[defaultRateId]`, or `[]` in a store without tax rates. */
  defaultTaxRateIds: string[];
  countStock: ImportStockCounts;
  skusInFile: Map<string, { line: number; handle: string }>;
  importId: string;
}

/**
 * The store's default tax rate for imported taxable products: `taxRateId` when given (it must be a live rate, else
 * 400 naming `taxRateId`), else the live rate the most live items carry (ties: the lowest id), else — no item taxed
 * yet — the first exclusive rate by id, else the first rate. Never several rates stacked.
 * @throws ProblemError 400 `validation_error` for an unknown `taxRateId`.
 */
export async function defaultImportTaxRate(db: Queryable, merchantId: string, taxRateId?: string): Promise<string | undefined> {
  const rates = (
    await db.query<{ data: TaxRate }>('SELECT data FROM tax_rates WHERE merchant_id = $1 AND NOT deleted ORDER BY id', [merchantId])
  ).rows.map((r) => r.data);
  if (taxRateId !== undefined) {
    if (!rates.some((r) => r.id === taxRateId))
      throw new ProblemError(400, 'validation_error', `Invalid taxRateId: tax rate ${taxRateId} does not exist.`, [
        { path: 'taxRateId', message: 'is not a tax rate of this store' },
      ]);
    return taxRateId;
  }
  if (rates.length === 0) return undefined;
  const { rows } = await db.query<{ rate: string; n: number | string }>(
    `SELECT r AS rate, COUNT(*) AS n FROM catalog_items ci, jsonb_array_elements_text(ci.data->'taxRateIds') r
      WHERE ci.merchant_id = $1 AND NOT ci.deleted GROUP BY r ORDER BY COUNT(*) DESC, r LIMIT 5`,
    [merchantId],
  );
  return defaultTaxRateId(rates, new Map(rows.map((r) => [r.rate, Number(r.n)])));
}

/** The {@link ImportContext} of a new import (currency exponent, default tax rate, no SKU seen yet). */
export async function prepareImport(
  db: Queryable,
  merchantId: string,
  options: { importId: string; countStock: ImportStockCounts; taxRateId?: string | undefined },
): Promise<ImportContext> {
  const currency = (await db.query<{ currency: string }>('SELECT currency FROM merchants WHERE id = $1', [merchantId])).rows[0]?.currency ?? 'USD';
  const rate = await defaultImportTaxRate(db, merchantId, options.taxRateId);
  return {
    exponent: minorUnitExponent(currency),
    defaultTaxRateIds: rate ? [rate] : [],
    countStock: options.countStock,
    skusInFile: new Map(),
    importId: options.importId,
  };
}

/**
 * Imports the rows of a Shopify product CSV ({@link readCatalogCsv}) into the merchant's catalog inside `m` (see the
 * top of this file) in one go: {@link importProducts} over every product, one `catalog.imported` audit entry.
 * `dryRun` only marks the report: the caller rolls the mutation back to write nothing.
 */
export async function importCatalogRows(
  m: Mutation,
  rows: readonly CatalogCsvRow[],
  options: { dryRun: boolean; countStock: ImportStockCounts; taxRateId?: string },
): Promise<ImportReport> {
  const report = newImportReport(newId('catalogImport'), options.dryRun, rows.length);
  const ictx = await prepareImport(m.tx, m.merchantId, { importId: report.importId, countStock: options.countStock, taxRateId: options.taxRateId });
  const products = groupProducts(rows, report);
  // In slices of 1,000 products: the statements of a slice stay a bounded size whatever the file's.
  for (let i = 0; i < products.length; i += 1_000) await importProducts(m, products.slice(i, i + 1_000), ictx, report);
  finishReport(report);
  await m.audit({
    action: 'catalog.imported',
    entityType: 'catalog_import',
    entityId: report.importId,
    appId: null,
    data: {
      rows: report.rows,
      importedRows: report.importedRows,
      rejected: report.rejected.length,
      items: report.items,
      stockMovements: report.stockMovements,
    },
  });
  m.changed('catalog-items');
  return report;
}

/** Sorts rejections and warnings by line and sets `importedRows` (= rows − rejected). */
export function finishReport(report: ImportReport): void {
  report.rejected.sort((a, b) => a.line - b.line);
  report.warnings.sort((a, b) => a.line - b.line);
  report.importedRows = report.rows - report.rejected.length;
}

/** What one chunk knows before its products are planned: read set-based, once per chunk (never per row). */
interface ChunkLookups {
  /** handle → item id (catalog_handles). */
  handles: Map<string, string>;
  /** Items by id: those the handles map to and the `itm_<handle>` candidates. */
  items: Map<string, { item: CatalogItem; deleted: boolean }>;
  /** Item ids some handle already maps to. */
  handled: Set<string>;
  /** SKU → the live items carrying it: the file's SKUs and those of the chunk's existing items. */
  skuOwners: Map<string, string[]>;
  /** Stored Shopify details by item id. */
  details: Map<string, ShopifyDetails>;
  /** The store's live tax rates (the reference check of every item the chunk writes). */
  rates: Map<string, TaxRate>;
}

async function lookupChunk(tx: Queryable, merchantId: string, products: readonly ProductRows[]): Promise<ChunkLookups> {
  const handleList = products.map((p) => p.handle);
  const handles = new Map<string, string>();
  for (const r of (
    await tx.query<{ handle: string; item_id: string }>(
      'SELECT handle, item_id FROM catalog_handles WHERE merchant_id = $1 AND handle = ANY($2::text[])',
      [merchantId, handleList],
    )
  ).rows) {
    handles.set(r.handle, r.item_id);
  }
  const candidates = handleList.filter((h) => HANDLE_ID.test(h)).map((h) => `itm_${h}`);
  const ids = [...new Set([...handles.values(), ...candidates])];
  const items = new Map<string, { item: CatalogItem; deleted: boolean }>();
  for (const r of (
    await tx.query<{ id: string; data: CatalogItem; updated_at: Date; deleted: boolean }>(
      'SELECT id, data, updated_at, deleted FROM catalog_items WHERE merchant_id = $1 AND id = ANY($2::text[])',
      [merchantId, ids],
    )
  ).rows) {
    items.set(r.id, { item: r.data, deleted: r.deleted });
  }
  const handled = new Set(
    (
      await tx.query<{ item_id: string }>('SELECT item_id FROM catalog_handles WHERE merchant_id = $1 AND item_id = ANY($2::text[])', [
        merchantId,
        candidates,
      ])
    ).rows.map((r) => r.item_id),
  );
  // The file's SKUs (taken by another item?) and the SKUs the existing items keep (still theirs alone?).
  const skus = new Set(products.flatMap((p) => p.rows.map((r) => r.get('Variant SKU')).filter((s) => s !== '' && s.length <= 64)));
  for (const { item, deleted } of items.values()) if (!deleted) for (const v of item.variations) if (v.sku !== undefined) skus.add(v.sku);
  const skuOwners = await itemsBySku(tx, merchantId, [...skus]);
  const details = new Map<string, ShopifyDetails>();
  for (const r of (
    await tx.query<{ item_id: string; data: ShopifyDetails }>(
      'SELECT item_id, data FROM catalog_item_shopify WHERE merchant_id = $1 AND item_id = ANY($2::text[])',
      [merchantId, ids],
    )
  ).rows) {
    details.set(r.item_id, r.data);
  }
  return { handles, items, handled, skuOwners, details, rates: await liveTaxRates(tx, merchantId) };
}

/**
 * Imports `products` (one chunk: whole products) inside `m`, adding to `report`, in a fixed number of set-based
 * statements whatever the chunk's size:
 * 1. the chunk's existing items, handles, SKU owners, Shopify details and the store's tax rates are read (lookupChunk);
 * 2. each product is planned in memory — its rows checked, the item built and its references checked as the catalog
 *    API would (a refused product rejects its rows with the reason; the others go on);
 * 3. the units on hand of the existing items' tracked variations are read once: an item is stored with its
 *    `stockOnHand` already at the file's quantity (the count recorded in step 5), so it is written once;
 * 4. the items that changed are stored in one upsert with their audit entries and `catalog.updated` events
 *    (catalog `storeItems`), the handles and Shopify details in one upsert each;
 * 5. the counts that differ from what is on hand go to `ictx.countStock` in one call; an item whose count was not
 *    recorded after all (already recorded under this import's id) is re-stamped from the stock.
 * Per-row cost does not depend on the catalog's size: every lookup is by key through an index.
 */
export async function importProducts(m: Mutation, products: readonly ProductRows[], ictx: ImportContext, report: ImportReport): Promise<void> {
  const { tx, merchantId } = m;
  const lookups = await lookupChunk(tx, merchantId, products);
  const plans: ProductPlan[] = [];
  for (const { handle, rows: group } of products) {
    const mark = { rejected: report.rejected.length, warnings: report.warnings.length };
    try {
      const plan = planProduct(handle, group, ictx, lookups, report);
      if (plan) plans.push(plan);
    } catch (err) {
      if (!(err instanceof ProblemError) || err.status !== 400) throw err;
      // The product as a whole was refused (e.g. a name too long): every row of it is rejected with the reason.
      const reason = err.errors?.map((e) => `${e.path} ${e.message}`).join('; ') ?? err.message;
      const already = new Set(report.rejected.slice(mark.rejected).map((r) => r.line));
      for (const row of group) if (!already.has(row.line)) report.rejected.push({ line: row.line, handle, reason });
      report.warnings.length = mark.warnings;
      for (const row of group)
        if (row.get('Variant SKU') !== '' && ictx.skusInFile.get(row.get('Variant SKU'))?.line === row.line)
          ictx.skusInFile.delete(row.get('Variant SKU'));
    }
  }

  const onHand = await onHandAtDefaultLocation(
    tx,
    merchantId,
    plans.flatMap((p) => (p.existing ? p.item.variations.filter((v) => v.trackStock).map((v) => v.id) : [])),
  );
  const writes: ItemWrite[] = [];
  const handleRows: { handle: string; itemId: string }[] = [];
  const detailRows: { itemId: string; details: ShopifyDetails }[] = [];
  const counts: { variationId: string; counted: number }[] = [];
  const itemOfVariation = new Map<string, string>();
  for (const p of plans) {
    const itemId = p.item.id;
    const counted = new Map(p.counts.map((c) => [c.variationId, c.counted]));
    const stored = withStockOf(p.item, new Map(p.item.variations.map((v) => [v.id, counted.get(v.id) ?? onHand.get(v.id) ?? 0])));
    for (const c of p.counts) {
      if ((onHand.get(c.variationId) ?? 0) === c.counted) continue;
      counts.push(c);
      itemOfVariation.set(c.variationId, itemId);
    }
    let status: 'created' | 'updated' | 'unchanged';
    if (!p.existing) {
      status = 'created';
      writes.push({ item: stored, audit: { action: 'catalog_item.imported' } });
    } else if (sameItem(stored, p.existing)) {
      status = 'unchanged';
    } else {
      status = 'updated';
      // Audited as the catalog API audits an update: when more than the stock changed (the count is audited itself).
      const fieldsChanged = !sameItem(withStockOf(p.item, onHand), p.existing);
      writes.push({ item: stored, ...(fieldsChanged ? { audit: { action: 'catalog_item.imported', data: { fields: p.patchFields } } } : {}) });
    }
    if (lookups.handles.get(p.handle) !== itemId) handleRows.push({ handle: p.handle, itemId });
    const before = lookups.details.get(itemId);
    if (before === undefined || JSON.stringify(canonical(p.details)) !== JSON.stringify(canonical(before))) {
      detailRows.push({ itemId, details: p.details });
      // Details first written for an item made elsewhere (an export re-imported) describe it as it was: unchanged.
      if (status === 'unchanged' && before !== undefined) status = 'updated';
    }
    report.variantRows += p.variantRows;
    report.imageRows += p.imageRows;
    report.items[status] += 1;
    report.results.push({ handle: p.handle, itemId, status });
  }

  await storeItems(m, writes);
  if (handleRows.length > 0) {
    await tx.query(
      prepared(
        'catalog_handles_store_many',
        `INSERT INTO catalog_handles (merchant_id, handle, item_id) SELECT $1, handle, item_id FROM unnest($2::text[], $3::text[]) AS t(handle, item_id)
       ON CONFLICT (merchant_id, item_id) DO UPDATE SET handle = EXCLUDED.handle`,
      ),
      [merchantId, handleRows.map((r) => r.handle), handleRows.map((r) => r.itemId)],
    );
  }
  if (detailRows.length > 0) {
    await tx.query(
      prepared(
        'catalog_item_shopify_store_many',
        `INSERT INTO catalog_item_shopify (merchant_id, item_id, data, updated_at)
       SELECT $1, t.item_id, d.data, $4 FROM unnest($2::text[]) WITH ORDINALITY AS t(item_id, n) JOIN jsonb_array_elements($3::jsonb) WITH ORDINALITY AS d(data, n) USING (n)
       ON CONFLICT (merchant_id, item_id) DO UPDATE SET data = EXCLUDED.data, updated_at = EXCLUDED.updated_at`,
      ),
      [merchantId, detailRows.map((r) => r.itemId), JSON.stringify(detailRows.map((r) => r.details)), m.now.toISOString()],
    );
  }
  if (counts.length > 0) {
    const recorded = new Set(await ictx.countStock(counts, { sourceId: ictx.importId, note: 'CSV import' }));
    report.stockMovements += recorded.size;
    const stale = new Set(counts.filter((c) => !recorded.has(c.variationId)).map((c) => itemOfVariation.get(c.variationId)!));
    if (stale.size > 0) await refreshStockOnHand(m, [...stale], true);
  }
}

interface VariantRow {
  row: Row;
  name: string;
  priceCents: number;
  sku?: string;
  gtin?: string;
  trackStock: boolean;
  quantity?: number;
  requiresShipping: boolean;
  taxable: boolean;
  details: VariantDetails;
}

/** The item an import row group updates: an earlier import's handle, else the live unclaimed `itm_<handle>`. */
function existingItemFor(lookups: ChunkLookups, handle: string): string | undefined {
  const mapped = lookups.handles.get(handle);
  if (mapped) return lookups.items.has(mapped) ? mapped : undefined;
  if (!HANDLE_ID.test(handle)) return undefined;
  const found = lookups.items.get(`itm_${handle}`);
  if (!found || found.deleted) return undefined;
  return lookups.handled.has(found.item.id) ? undefined : found.item.id;
}

/**
 * The Shopify product CSV details a catalog item keeps beside its register shape (table `catalog_item_shopify`,
 * migration 0150): written by the import, written back by the export, never sent to registers. Text is kept as the
 * file spelled it (e.g. `Published` `TRUE`); prices in minor units.
 */
export interface ShopifyDetails {
  bodyHtml?: string;
  vendor?: string;
  productCategory?: string;
  /** `Type` as written ('' when blank: the category then came from Product Category or is "Uncategorized"). */
  type?: string;
  /** `Tags` as written (comma-separated). */
  tags?: string;
  published?: string;
  giftCard?: string;
  seoTitle?: string;
  seoDescription?: string;
  status?: string;
  /** Option1..3 Name (e.g. ["Color", "Size"]); ["Title"] for a product without options. */
  optionNames: string[];
  /** The product's images in file order (`Image Src`, `Image Position`, `Image Alt Text`). */
  images: { src: string; position?: string; alt?: string }[];
  /** Per variation id. */
  variants: Record<string, VariantDetails>;
}

/** A variant's Shopify details (see {@link ShopifyDetails}). */
export interface VariantDetails {
  /** Option1..3 Value as written (["Default Title"] for a product without options). */
  options: string[];
  grams?: string;
  inventoryTracker?: string;
  inventoryPolicy?: string;
  fulfillmentService?: string;
  compareAtCents?: number;
  requiresShipping?: string;
  taxable?: string;
  image?: string;
  weightUnit?: string;
  taxCode?: string;
  costCents?: number;
}

/** The Shopify product CSV columns the catalog understands, in Shopify's order. */
const SHOPIFY_COLUMNS = [
  'Handle',
  'Title',
  'Body (HTML)',
  'Vendor',
  'Product Category',
  'Type',
  'Tags',
  'Published',
  'Option1 Name',
  'Option1 Value',
  'Option2 Name',
  'Option2 Value',
  'Option3 Name',
  'Option3 Value',
  'Variant SKU',
  'Variant Grams',
  'Variant Inventory Tracker',
  'Variant Inventory Qty',
  'Variant Inventory Policy',
  'Variant Fulfillment Service',
  'Variant Price',
  'Variant Compare At Price',
  'Variant Requires Shipping',
  'Variant Taxable',
  'Variant Barcode',
  'Image Src',
  'Image Position',
  'Image Alt Text',
  'Gift Card',
  'SEO Title',
  'SEO Description',
  'Variant Image',
  'Variant Weight Unit',
  'Variant Tax Code',
  'Cost per item',
  'Status',
] as const;

/**
 * The Shopify product CSV columns the catalog keeps (on the item or in its {@link ShopifyDetails}) and exports back;
 * a non-empty cell of any other column is reported per row as not kept.
 */
export const KEPT_COLUMNS: ReadonlySet<string> = new Set<string>(SHOPIFY_COLUMNS);

const text = (value: string, max: number) => (value !== '' ? value.slice(0, max) : undefined);
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function variantDetails(row: Row, options: string[], exponent: number, warn: (row: Row, message: string) => void): VariantDetails {
  const money = (column: string) => {
    const raw = row.get(column);
    if (raw === '') return undefined;
    const cents = parsePrice(raw, exponent);
    if (cents === undefined) warn(row, `${column} "${raw.slice(0, 40)}" is not a price: not kept`);
    return cents;
  };
  const image = row.get('Variant Image');
  const imageOk = image !== '' && isHttpUrl(image) && image.length <= 2000;
  if (image !== '' && !imageOk) warn(row, `Variant Image "${image.slice(0, 60)}" is not an http(s) URL: not kept`);
  return compact({
    options: options.length > 0 ? options : ['Default Title'],
    grams: text(row.get('Variant Grams'), 40),
    inventoryTracker: text(row.get('Variant Inventory Tracker'), 40),
    inventoryPolicy: text(row.get('Variant Inventory Policy'), 40),
    fulfillmentService: text(row.get('Variant Fulfillment Service'), 100),
    compareAtCents: money('Variant Compare At Price'),
    requiresShipping: text(row.get('Variant Requires Shipping'), 10),
    taxable: text(row.get('Variant Taxable'), 10),
    image: imageOk ? image : undefined,
    weightUnit: text(row.get('Variant Weight Unit'), 10),
    taxCode: text(row.get('Variant Tax Code'), 100),
    costCents: money('Cost per item'),
  });
}

/** One product planned in memory (importProducts step 2): the item as it is to be stored (stock aside) and its parts. */
interface ProductPlan {
  handle: string;
  /** The item to store, ids assigned; `stockOnHand` is set when it is stored. */
  item: CatalogItem;
  /** The item as stored now (without its stamps); undefined for a new one. */
  existing?: CatalogItem;
  /** The fields the file gave an existing item (its audit entry's `fields`). */
  patchFields: string[];
  details: ShopifyDetails;
  /** The file's quantities of tracked variations, by variation id. */
  counts: { variationId: string; counted: number }[];
  variantRows: number;
  imageRows: number;
}

/**
 * Plans one product (pure; see importProducts): reports its row problems into `report` and returns what to store, or
 * undefined when none of it can be imported.
 * @throws ProblemError 400 when the item as a whole is refused (shape, tax rates, a SKU another item carries): the
 *   caller rejects its rows with the reason.
 */
function planProduct(handle: string, group: Row[], ictx: ImportContext, lookups: ChunkLookups, report: ImportReport): ProductPlan | undefined {
  const reject = (row: Row, reason: string) => report.rejected.push({ line: row.line, handle, reason });
  const warn = (row: Row, message: string) => report.warnings.push({ line: row.line, handle, message });
  const titleRow = group.find((r) => r.get('Title') !== '');
  const productStatus = (titleRow ?? group[0]!).get('Status').toLowerCase();
  if (productStatus === 'archived') {
    for (const row of group) reject(row, 'Status is archived: archived products are not imported');
    return undefined;
  }
  const existingId = existingItemFor(lookups, handle);
  const existing = existingId ? lookups.items.get(existingId)!.item : undefined;
  if (!titleRow && !existing) {
    for (const row of group) reject(row, 'no row of this handle has a Title, which a new product needs');
    return undefined;
  }
  if (productStatus === 'draft' && titleRow) warn(titleRow, 'Status is draft: imported as a sellable catalog item');
  // Names people will read: the same refusals as the catalog API's (core nonBlankText).
  const unsafe =
    titleRow && (['Title', 'Type'] as const).map((c) => [c, unsafeTextProblem(titleRow.get(c))] as const).find(([, p]) => p !== undefined);
  if (unsafe) {
    for (const row of group) reject(row, `${unsafe[0]} ${unsafe[1]}`);
    return undefined;
  }
  // Columns the catalog has no place for: reported on each row that fills them.
  for (const row of group) {
    const dropped = row.filled().filter((c) => !KEPT_COLUMNS.has(c));
    if (dropped.length > 0) warn(row, `not kept (the catalog has no place for them): ${dropped.join(', ')}`);
  }

  const variants: VariantRow[] = [];
  const imageRows: Row[] = [];
  const isVariantRow = (row: Row) =>
    ['Option1 Value', 'Option2 Value', 'Option3 Value', 'Variant Price', 'Variant SKU', 'Variant Barcode'].some((c) => row.get(c) !== '');
  for (const row of group) {
    if (!isVariantRow(row)) {
      if (row.get('Image Src') !== '') imageRows.push(row);
      else if (row !== titleRow) reject(row, 'the row has neither a variant (option values, price) nor an image');
      else reject(row, 'Variant Price is required');
      continue;
    }
    const values = ['Option1 Value', 'Option2 Value', 'Option3 Value'].map((c) => row.get(c)).filter((v) => v !== '');
    const variantCount = group.filter(isVariantRow).length;
    if (values.length === 0 && variantCount > 1) {
      reject(row, 'Option1 Value is required when a product has several variants');
      continue;
    }
    const name = values.length === 0 || (values.length === 1 && values[0] === 'Default Title') ? 'Regular' : values.join(' / ');
    if (name.length > 100) {
      reject(row, 'the option values are longer than 100 characters');
      continue;
    }
    const unsafeName = unsafeTextProblem(name);
    if (unsafeName) {
      reject(row, `the option values ${unsafeName}`);
      continue;
    }
    const priceText = row.get('Variant Price');
    if (priceText === '') {
      reject(row, 'Variant Price is required');
      continue;
    }
    const priceCents = parsePrice(priceText, ictx.exponent);
    if (priceCents === undefined) {
      reject(
        row,
        `Variant Price "${priceText.slice(0, 40)}" is not a price (a decimal number with at most ${ictx.exponent} decimals, at most ${formatPrice(MAX_AMOUNT_CENTS, ictx.exponent)})`,
      );
      continue;
    }
    const duplicate = variants.find((v) => v.name.toLowerCase() === name.toLowerCase());
    if (duplicate) {
      reject(row, `duplicate variant: line ${duplicate.row.line} has the same option values (${name})`);
      continue;
    }
    const sku = row.get('Variant SKU');
    if (sku.length > 64) {
      reject(row, 'Variant SKU is longer than 64 characters');
      continue;
    }
    if (sku !== '') {
      const seen = ictx.skusInFile.get(sku);
      if (seen) {
        reject(row, `Variant SKU ${sku} is already used on line ${seen.line}`);
        continue;
      }
      const elsewhere = lookups.skuOwners.get(sku)?.find((id) => id !== existingId);
      if (elsewhere) {
        reject(row, `Variant SKU ${sku} is already used by catalog item ${elsewhere}`);
        continue;
      }
    }
    const barcode = row.get('Variant Barcode').replace(/^'/, '');
    let gtin: string | undefined;
    if (barcode !== '') {
      if (isValidGtin(barcode)) gtin = barcode;
      else
        warn(
          row,
          `Variant Barcode "${barcode.slice(0, 40)}" is not a valid GTIN (8, 12, 13 or 14 digits with a check digit): imported without a barcode`,
        );
    }
    const qtyText = row.get('Variant Inventory Qty');
    let quantity: number | undefined;
    if (qtyText !== '') {
      if (!/^-?\d{1,7}$/.test(qtyText)) {
        reject(row, `Variant Inventory Qty "${qtyText.slice(0, 40)}" is not a whole number`);
        continue;
      }
      quantity = Number(qtyText);
    }
    const tracker = row.get('Variant Inventory Tracker').toLowerCase();
    if (tracker !== '' && tracker !== 'shopify')
      warn(row, `Variant Inventory Tracker "${tracker.slice(0, 40)}" is tracked by another service: stock is tracked here from the given quantity`);
    variants.push({
      row,
      name,
      priceCents,
      ...(sku !== '' ? { sku } : {}),
      ...(gtin ? { gtin } : {}),
      trackStock: tracker !== '' || quantity !== undefined,
      ...(quantity !== undefined ? { quantity } : {}),
      requiresShipping: !isFalse(row.get('Variant Requires Shipping')),
      taxable: !isFalse(row.get('Variant Taxable')),
      details: variantDetails(row, values, ictx.exponent, warn),
    });
    if (sku !== '') ictx.skusInFile.set(sku, { line: row.line, handle });
  }
  if (variants.length > 100) {
    for (const v of variants.splice(100)) {
      reject(v.row, 'an item has at most 100 variations');
      if (v.sku) ictx.skusInFile.delete(v.sku);
    }
  }
  if (variants.length === 0 && !existing) {
    for (const row of imageRows) reject(row, 'no variant of this product could be imported');
    return undefined;
  }

  // Images: every valid Image Src in file order; the item's own image (the register's tile) is the first.
  const images: ShopifyDetails['images'] = [];
  for (const row of group) {
    const src = row.get('Image Src');
    if (src === '') continue;
    if (!isHttpUrl(src) || src.length > 2000) {
      warn(row, `Image Src "${src.slice(0, 60)}" is not an http(s) URL: not kept`);
      continue;
    }
    images.push(compact({ src, position: text(row.get('Image Position'), 10), alt: text(row.get('Image Alt Text'), 512) }));
  }
  const imageUrl = images[0]?.src;

  const fields: Partial<Pick<CatalogItem, 'name' | 'description' | 'category'>> = {};
  if (titleRow) {
    fields.name = titleRow.get('Title');
    const description = htmlToText(titleRow.get('Body (HTML)'));
    if (description.length > 2000)
      warn(titleRow, 'Body (HTML) is longer than 2000 characters as text: cut to 2000 on the register (the HTML is kept)');
    if (description !== '') fields.description = description.slice(0, 2000);
    const type = titleRow.get('Type');
    const productCategory = titleRow
      .get('Product Category')
      .split('>')
      .map((s) => s.trim())
      .filter(Boolean)
      .at(-1);
    const category = (type || productCategory || (existing ? '' : 'Uncategorized')).slice(0, 100);
    if (category !== '') fields.category = category;
  }
  const kind = variants.length > 0 && variants.every((v) => !v.requiresShipping) ? 'service' : 'product';
  const taxable = variants.length === 0 ? undefined : variants.some((v) => v.taxable);

  let item: CatalogItem;
  let patchFields: string[] = [];
  const variationInputs = variants.map((v) => ({ name: v.name, priceCents: v.priceCents, sku: v.sku, gtin: v.gtin, trackStock: v.trackStock }));
  if (existing) {
    // A handle maps to a live item only (deleting an item deletes its handle): as the catalog API, no update of a deleted one.
    if (lookups.items.get(existing.id)!.deleted) throw new ProblemError(404, 'not_found', `Catalog item ${existing.id} does not exist.`);
    const patch: CatalogItemUpdate = {
      ...fields,
      ...(titleRow && !fields.description && existing.description !== undefined ? { description: null } : {}),
      ...(imageUrl !== undefined ? { imageUrl } : {}),
      ...(variants.length > 0
        ? {
            kind,
            variations: [
              ...existing.variations.map((e) => {
                const v = variants.find((x) => x.name.toLowerCase() === e.name.toLowerCase());
                return v
                  ? { id: e.id, name: v.name, priceCents: v.priceCents, sku: v.sku, gtin: v.gtin, trackStock: v.trackStock }
                  : { id: e.id, name: e.name, priceCents: e.priceCents, sku: e.sku, gtin: e.gtin, trackStock: e.trackStock };
              }),
              ...variationInputs.filter((v) => !existing.variations.some((e) => e.name.toLowerCase() === v.name.toLowerCase())),
            ].map((v) => compact(v)) as CatalogItemUpdate['variations'],
          }
        : {}),
      ...(taxable === false ? { taxRateIds: [] } : taxable && existing.taxRateIds.length === 0 ? { taxRateIds: ictx.defaultTaxRateIds } : {}),
    };
    item = patchedItem(existing, patch);
    patchFields = Object.keys(patch);
  } else {
    const candidate = HANDLE_ID.test(handle) && !lookups.items.has(`itm_${handle}`) ? `itm_${handle}` : newId('catalogItem');
    item = newItemOf(
      {
        name: fields.name!,
        ...(fields.description !== undefined ? { description: fields.description } : {}),
        category: fields.category ?? 'Uncategorized',
        kind,
        variations: variationInputs.map((v) => compact(v)) as CatalogItemCreate['variations'],
        modifierLists: [],
        taxRateIds: taxable ? ictx.defaultTaxRateIds : [],
        ...(imageUrl !== undefined ? { imageUrl } : {}),
      },
      candidate,
    );
  }
  // The references, as the catalog API checks them (tax rates live and well mixed, SKUs carried by no other item).
  const problems = referenceErrors(item, lookups.rates, lookups.skuOwners);
  if (problems.length > 0) throw invalidReferences(problems);
  const itemId = item.id;

  // The Shopify details: product fields from the Title row, variants by their variation id, images when given.
  const before = lookups.details.get(itemId);
  const variationIdOf = (name: string) => item.variations.find((x) => x.name.toLowerCase() === name.toLowerCase())!.id;
  const optionNames = titleRow
    ? ['Option1 Name', 'Option2 Name', 'Option3 Name']
        .map((c) => titleRow.get(c))
        .filter((v) => v !== '')
        .map((v) => v.slice(0, 255))
    : undefined;
  const productFields = titleRow
    ? compact({
        bodyHtml: text(titleRow.get('Body (HTML)'), 65_536),
        vendor: text(titleRow.get('Vendor'), 255),
        productCategory: text(titleRow.get('Product Category'), 512),
        type: titleRow.get('Type').slice(0, 100),
        tags: text(titleRow.get('Tags'), 4096),
        published: text(titleRow.get('Published'), 10),
        giftCard: text(titleRow.get('Gift Card'), 10),
        seoTitle: text(titleRow.get('SEO Title'), 255),
        seoDescription: text(titleRow.get('SEO Description'), 1024),
        status: text(titleRow.get('Status'), 20),
      })
    : before
      ? (({ optionNames: _o, images: _i, variants: _v, ...rest }) => rest)(before)
      : {};
  const keptVariants = { ...(before?.variants ?? {}), ...Object.fromEntries(variants.map((v) => [variationIdOf(v.name), v.details])) };
  const details: ShopifyDetails = {
    ...productFields,
    optionNames: optionNames ?? before?.optionNames ?? [],
    images: images.length > 0 ? images : (before?.images ?? []),
    // Only variations the item still has.
    variants: Object.fromEntries(Object.entries(keptVariants).filter(([id]) => item.variations.some((x) => x.id === id))),
  };
  // Stock: a count to the CSV's quantity (recorded by the chunk, only where it differs from what is on hand).
  const counts = variants
    .filter((v) => v.quantity !== undefined && v.trackStock)
    .map((v) => ({ variationId: variationIdOf(v.name), counted: v.quantity! }));
  return {
    handle,
    item,
    ...(existing ? { existing } : {}),
    patchFields,
    details,
    counts,
    variantRows: variants.length,
    imageRows: imageRows.length,
  };
}

function canonical(v: unknown): unknown {
  return Array.isArray(v)
    ? v.map(canonical)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, x]) => [k, canonical(x)]),
        )
      : v;
}

/** The columns export writes (the {@link KEPT_COLUMNS}, in Shopify's order). */
export const EXPORT_COLUMNS = SHOPIFY_COLUMNS;
type ExportColumn = (typeof EXPORT_COLUMNS)[number];

const isTrue = (v: string) => !isFalse(v);

/**
 * The Shopify rows of one item: one per variation and one per further image (image n on row n, as Shopify writes
 * them), with the item's {@link ShopifyDetails} where they still describe it (option values that still spell the
 * variation's name, the body HTML whose text is still the description, booleans that still match the item).
 */
function exportItem(item: CatalogItem, handle: string, details: ShopifyDetails | null, exponent: number): string[][] {
  const single = item.variations.length === 1 && item.variations[0]!.name === 'Regular';
  const images: ShopifyDetails['images'] =
    details && details.images.length > 0 && details.images[0]!.src === item.imageUrl
      ? details.images
      : item.imageUrl
        ? [{ src: item.imageUrl, position: '1' }]
        : [];
  const bodyHtml =
    details?.bodyHtml !== undefined && htmlToText(details.bodyHtml).slice(0, 2000) === (item.description ?? '')
      ? details.bodyHtml
      : textToHtml(item.description ?? '');
  const optionsOf = (v: CatalogItem['variations'][number]): string[] => {
    const kept = details?.variants[v.id]?.options;
    if (kept && (kept.join(' / ') === v.name || (v.name === 'Regular' && kept.length === 1 && kept[0] === 'Default Title'))) return kept;
    return single ? ['Default Title'] : [v.name];
  };
  const allOptions = item.variations.map(optionsOf);
  const width = Math.max(...allOptions.map((o) => o.length));
  const names =
    details && details.optionNames.length === width
      ? details.optionNames
      : single
        ? ['Title']
        : width === 1
          ? ['Option']
          : Array.from({ length: width }, (_, i) => `Option${i + 1}`);
  const taxable = item.taxRateIds.length > 0;
  const shipping = item.kind === 'product';
  const out: string[][] = [];
  const rows = Math.max(item.variations.length, images.length);
  for (let i = 0; i < rows; i++) {
    const first = i === 0;
    const v = item.variations[i];
    const d = v ? details?.variants[v.id] : undefined;
    const image = images[i];
    const record: Partial<Record<ExportColumn, string>> = { Handle: handle };
    if (first) {
      Object.assign(record, {
        Title: item.name,
        'Body (HTML)': bodyHtml,
        Vendor: details?.vendor ?? '',
        'Product Category': details?.productCategory ?? '',
        Type:
          details?.type !== undefined &&
          (details.type ||
            details.productCategory
              ?.split('>')
              .map((x) => x.trim())
              .filter(Boolean)
              .at(-1) ||
            'Uncategorized') === item.category
            ? details.type
            : item.category,
        Tags: details?.tags ?? '',
        Published: details ? (details.published ?? '') : 'true',
        'Option1 Name': names[0] ?? '',
        'Option2 Name': names[1] ?? '',
        'Option3 Name': names[2] ?? '',
        'Gift Card': details ? (details.giftCard ?? '') : 'false',
        'SEO Title': details?.seoTitle ?? '',
        'SEO Description': details?.seoDescription ?? '',
        Status: details ? (details.status ?? '') : 'active',
      });
    }
    if (v) {
      const options = allOptions[i]!;
      Object.assign(record, {
        'Option1 Value': options[0] ?? '',
        'Option2 Value': options[1] ?? '',
        'Option3 Value': options[2] ?? '',
        'Variant SKU': v.sku ?? '',
        'Variant Grams': d ? (d.grams ?? '') : '0',
        'Variant Inventory Tracker': v.trackStock ? (d ? (d.inventoryTracker ?? '') : 'shopify') : '',
        'Variant Inventory Qty': v.trackStock ? String(v.stockOnHand ?? 0) : '',
        'Variant Inventory Policy': d ? (d.inventoryPolicy ?? '') : 'deny',
        'Variant Fulfillment Service': d ? (d.fulfillmentService ?? '') : 'manual',
        'Variant Price': formatPrice(v.priceCents, exponent),
        'Variant Compare At Price': d?.compareAtCents !== undefined ? formatPrice(d.compareAtCents, exponent) : '',
        'Variant Requires Shipping': d && isTrue(d.requiresShipping ?? '') === shipping ? (d.requiresShipping ?? '') : String(shipping),
        'Variant Taxable': d && isTrue(d.taxable ?? '') === taxable ? (d.taxable ?? '') : String(taxable),
        'Variant Barcode': v.gtin ?? '',
        'Variant Image': d?.image ?? '',
        'Variant Weight Unit': d?.weightUnit ?? '',
        'Variant Tax Code': d?.taxCode ?? '',
        'Cost per item': d?.costCents !== undefined ? formatPrice(d.costCents, exponent) : '',
      });
    }
    if (image) Object.assign(record, { 'Image Src': image.src, 'Image Position': image.position ?? '', 'Image Alt Text': image.alt ?? '' });
    out.push(EXPORT_COLUMNS.map((c) => record[c] ?? ''));
  }
  return out;
}

/**
 * The merchant's live catalog as a Shopify product CSV (UTF-8, CRLF line ends as Shopify writes them), with the
 * Shopify details an import kept ({@link ShopifyDetails}). Handles are those of an earlier import, else the item id
 * without `itm_`. Modifier lists are not part of the format. Read in pages of 1,000 items (memory stays flat).
 */
export async function exportCatalogCsv(db: Queryable, merchantId: string): Promise<string> {
  const currency = (await db.query<{ currency: string }>('SELECT currency FROM merchants WHERE id = $1', [merchantId])).rows[0]?.currency ?? 'USD';
  const exponent = minorUnitExponent(currency);
  const parts = [stringify([EXPORT_COLUMNS as unknown as string[]], { record_delimiter: '\r\n' })];
  let after = '';
  for (;;) {
    const { rows } = await db.query<{ id: string; data: CatalogItem; handle: string | null; details: ShopifyDetails | null }>(
      `SELECT ci.id, ci.data, h.handle, s.data AS details FROM catalog_items ci
         LEFT JOIN catalog_handles h ON h.merchant_id = ci.merchant_id AND h.item_id = ci.id
         LEFT JOIN catalog_item_shopify s ON s.merchant_id = ci.merchant_id AND s.item_id = ci.id
        WHERE ci.merchant_id = $1 AND NOT ci.deleted AND ci.id > $2 ORDER BY ci.id LIMIT 1000`,
      [merchantId, after],
    );
    if (rows.length === 0) break;
    const records = rows.flatMap((r) => exportItem(r.data, r.handle ?? r.data.id.replace(/^itm_/, ''), r.details, exponent));
    parts.push(stringify(records, { record_delimiter: '\r\n' }));
    after = rows.at(-1)!.id;
  }
  return parts.join('');
}
