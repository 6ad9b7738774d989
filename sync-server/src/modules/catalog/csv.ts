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
import type { Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { createItem, findItem, updateItem } from './service.ts';

/**
 * The stock step of an import, run inside the product's savepoint: bring the units on hand of these variations at the
 * default location to `counted` (a `count` movement keyed by `source.sourceId`, with `source.note`, only where it
 * differs). Returns how many movements it recorded.
 */
export type ImportStockCounts = (counts: readonly { variationId: string; counted: number }[], source: { sourceId: string; note: string }) => Promise<number>;

/** The import report (core `importReportSchema`). */
export type { ImportReport };

/** A data row of a catalog CSV: its line number in the file and its cells by header name. */
export interface CatalogCsvRow {
  line: number;
  get(column: string): string;
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
    throw new ProblemError(400, 'invalid_csv', `The CSV cannot be read${e.lines ? ` (line ${e.lines})` : ''}: ${e.message}`, [{ path: 'csv', message: e.message }]);
  }
  const first = records[0];
  if (!first) throw new ProblemError(400, 'invalid_csv', 'The CSV is empty: send a header row and product rows.', [{ path: 'csv', message: 'is empty' }]);
  const header = first.record.map((h) => h.trim());
  const missing = ['Handle'].filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new ProblemError(400, 'invalid_csv', `The CSV header lacks ${missing.join(', ')}: this is not a Shopify product CSV.`, [
      { path: 'csv', message: `header lacks ${missing.join(', ')}` },
    ]);
  }
  const index = new Map(header.map((h, i) => [h, i]));
  const rows = records.slice(1).map(({ record, info }) => {
    const newlines = record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0);
    return { line: info.lines - newlines, get: (column: string) => (index.has(column) ? (record[index.get(column)!] ?? '').trim() : '') };
  });
  return { header, rows };
}

const isFalse = (v: string) => /^(false|no|0)$/i.test(v);

/**
 * Imports the rows of a Shopify product CSV ({@link readCatalogCsv}) into the merchant's catalog inside `m` (see the
 * top of this file): each product in a savepoint of its own (a refused product rejects its rows, the others are
 * imported), stock counts through `countStock`, one `catalog.imported` audit entry. `dryRun` only marks the report: the
 * caller rolls the mutation back to write nothing.
 */
export async function importCatalogRows(m: Mutation, rows: readonly CatalogCsvRow[], options: { dryRun: boolean; countStock: ImportStockCounts }): Promise<ImportReport> {
  const { dryRun } = options;
  const report: ImportReport = {
    importId: newId('catalogImport'),
    dryRun,
    rows: rows.length,
    importedRows: 0,
    variantRows: 0,
    imageRows: 0,
    items: { created: 0, updated: 0, unchanged: 0 },
    stockMovements: 0,
    rejected: [],
    warnings: [],
    results: [],
  };
  await importRows(m, rows, report, options.countStock);
  await m.audit({
    action: 'catalog.imported',
    entityType: 'catalog_import',
    entityId: report.importId,
    appId: null,
    data: { rows: report.rows, importedRows: report.importedRows, rejected: report.rejected.length, items: report.items, stockMovements: report.stockMovements },
  });
  m.changed('catalog-items');
  return report;
}

async function importRows(m: Mutation, rows: readonly Row[], report: ImportReport, countStock: ImportStockCounts): Promise<void> {
  const { tx, merchantId } = m;
  const currency = (await tx.query<{ currency: string }>('SELECT currency FROM merchants WHERE id = $1', [merchantId])).rows[0]?.currency ?? 'USD';
  const exponent = minorUnitExponent(currency);
  const rates = await tx.query<{ data: TaxRate }>('SELECT data FROM tax_rates WHERE merchant_id = $1 AND NOT deleted ORDER BY id', [merchantId]);
  const defaultTaxRateIds = rates.rows.filter((r) => !r.data.inclusive).map((r) => r.data.id);

  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const handle = row.get('Handle');
    if (handle === '') {
      const blank = [...['Title', 'Option1 Value', 'Variant Price', 'Image Src']].every((c) => row.get(c) === '');
      report.rejected.push({ line: row.line, handle: null, reason: blank ? 'empty row' : 'Handle is required' });
      continue;
    }
    if (handle.length > 255) {
      report.rejected.push({ line: row.line, handle: handle.slice(0, 40), reason: 'Handle is longer than 255 characters' });
      continue;
    }
    const group = groups.get(handle) ?? [];
    group.push(row);
    groups.set(handle, group);
  }
  const skusInFile = new Map<string, { line: number; handle: string }>();

  for (const [handle, group] of groups) {
    await tx.query('SAVEPOINT catalog_import_item');
    try {
      await importProduct(m, handle, group, { exponent, defaultTaxRateIds, skusInFile, countStock }, report);
      await tx.query('RELEASE SAVEPOINT catalog_import_item');
    } catch (err) {
      await tx.query('ROLLBACK TO SAVEPOINT catalog_import_item');
      if (!(err instanceof ProblemError) || err.status !== 400) throw err;
      // The product as a whole was refused (e.g. a name too long): every row of it is rejected with the reason.
      const reason = err.errors?.map((e) => `${e.path} ${e.message}`).join('; ') ?? err.message;
      for (const row of group) {
        if (!report.rejected.some((r) => r.line === row.line)) report.rejected.push({ line: row.line, handle, reason });
      }
      report.warnings = report.warnings.filter((w) => w.handle !== handle);
      report.results = report.results.filter((r) => r.handle !== handle);
    }
  }
  report.rejected.sort((a, b) => a.line - b.line);
  report.warnings.sort((a, b) => a.line - b.line);
  report.importedRows = report.rows - report.rejected.length;
}

interface ImportContext {
  exponent: number;
  defaultTaxRateIds: string[];
  countStock: ImportStockCounts;
  skusInFile: Map<string, { line: number; handle: string }>;
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
}

async function existingItemFor(tx: Queryable, merchantId: string, handle: string): Promise<string | undefined> {
  const mapped = await tx.query<{ item_id: string }>('SELECT item_id FROM catalog_handles WHERE merchant_id = $1 AND handle = $2', [merchantId, handle]);
  if (mapped.rows[0]) return mapped.rows[0].item_id;
  if (!HANDLE_ID.test(handle)) return undefined;
  const found = await findItem(tx, merchantId, `itm_${handle}`);
  if (!found || found.deleted) return undefined;
  const other = await tx.query('SELECT 1 FROM catalog_handles WHERE merchant_id = $1 AND item_id = $2', [merchantId, `itm_${handle}`]);
  return other.rows.length === 0 ? found.item.id : undefined;
}

async function importProduct(m: Mutation, handle: string, group: Row[], ictx: ImportContext, report: ImportReport): Promise<void> {
  const { tx, merchantId } = m;
  const reject = (row: Row, reason: string) => report.rejected.push({ line: row.line, handle, reason });
  const warn = (row: Row, message: string) => report.warnings.push({ line: row.line, handle, message });
  const titleRow = group.find((r) => r.get('Title') !== '');
  const productStatus = (titleRow ?? group[0]!).get('Status').toLowerCase();
  if (productStatus === 'archived') {
    for (const row of group) reject(row, 'Status is archived: archived products are not imported');
    return;
  }
  const existingId = await existingItemFor(tx, merchantId, handle);
  const existing = existingId ? (await findItem(tx, merchantId, existingId))!.item : undefined;
  if (!titleRow && !existing) {
    for (const row of group) reject(row, 'no row of this handle has a Title, which a new product needs');
    return;
  }
  if (productStatus === 'draft' && titleRow) warn(titleRow, 'Status is draft: imported as a sellable catalog item');
  // Names people will read: the same refusals as the catalog API's (core nonBlankText).
  const unsafe = titleRow && (['Title', 'Type'] as const).map((c) => [c, unsafeTextProblem(titleRow.get(c))] as const).find(([, p]) => p !== undefined);
  if (unsafe) {
    for (const row of group) reject(row, `${unsafe[0]} ${unsafe[1]}`);
    return;
  }

  const variants: VariantRow[] = [];
  const imageRows: Row[] = [];
  const isVariantRow = (row: Row) => ['Option1 Value', 'Option2 Value', 'Option3 Value', 'Variant Price', 'Variant SKU', 'Variant Barcode'].some((c) => row.get(c) !== '');
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
      reject(row, `Variant Price "${priceText.slice(0, 40)}" is not a price (a decimal number with at most ${ictx.exponent} decimals, at most ${formatPrice(MAX_AMOUNT_CENTS, ictx.exponent)})`);
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
      const elsewhere = await tx.query<{ id: string }>(
        `SELECT ci.id FROM catalog_items ci, jsonb_array_elements(ci.data->'variations') v
          WHERE ci.merchant_id = $1 AND NOT ci.deleted AND ci.id <> $2 AND v->>'sku' = $3 LIMIT 1`,
        [merchantId, existingId ?? '', sku],
      );
      if (elsewhere.rows[0]) {
        reject(row, `Variant SKU ${sku} is already used by catalog item ${elsewhere.rows[0].id}`);
        continue;
      }
    }
    const barcode = row.get('Variant Barcode').replace(/^'/, '');
    let gtin: string | undefined;
    if (barcode !== '') {
      if (isValidGtin(barcode)) gtin = barcode;
      else warn(row, `Variant Barcode "${barcode.slice(0, 40)}" is not a valid GTIN (8, 12, 13 or 14 digits with a check digit): imported without a barcode`);
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
    if (tracker !== '' && tracker !== 'shopify') warn(row, `Variant Inventory Tracker "${tracker.slice(0, 40)}" is tracked by another service: stock is tracked here from the given quantity`);
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
    return;
  }

  // One image per item: the first valid Image Src (the Title row's first).
  let imageUrl: string | undefined;
  const imageCandidates = [...(titleRow ? [titleRow] : []), ...group.filter((r) => r !== titleRow)].filter((r) => r.get('Image Src') !== '');
  for (const row of imageCandidates) {
    const src = row.get('Image Src');
    if (!isHttpUrl(src) || src.length > 2000) {
      warn(row, `Image Src "${src.slice(0, 60)}" is not an http(s) URL: not kept`);
      continue;
    }
    if (imageUrl === undefined) imageUrl = src;
    else if (src !== imageUrl) warn(row, `Image Src ${src.slice(0, 200)} not kept: a catalog item has one image`);
  }

  const fields: Partial<Pick<CatalogItem, 'name' | 'description' | 'category'>> = {};
  if (titleRow) {
    fields.name = titleRow.get('Title');
    const description = htmlToText(titleRow.get('Body (HTML)'));
    if (description.length > 2000) warn(titleRow, 'Body (HTML) is longer than 2000 characters as text: cut to 2000');
    if (description !== '') fields.description = description.slice(0, 2000);
    const type = titleRow.get('Type');
    const productCategory = titleRow.get('Product Category').split('>').map((s) => s.trim()).filter(Boolean).at(-1);
    const category = (type || productCategory || (existing ? '' : 'Uncategorized')).slice(0, 100);
    if (category !== '') fields.category = category;
  }
  const kind = variants.length > 0 && variants.every((v) => !v.requiresShipping) ? 'service' : 'product';
  const taxable = variants.length === 0 ? undefined : variants.some((v) => v.taxable);

  let itemId: string;
  let status: 'created' | 'updated' | 'unchanged';
  const variationInputs = variants.map((v) => ({ name: v.name, priceCents: v.priceCents, sku: v.sku, gtin: v.gtin, trackStock: v.trackStock }));
  if (existing) {
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
            ].map((v) => Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined))) as CatalogItemUpdate['variations'],
          }
        : {}),
      ...(taxable === false ? { taxRateIds: [] } : taxable && existing.taxRateIds.length === 0 ? { taxRateIds: ictx.defaultTaxRateIds } : {}),
    };
    const updated = await updateItem(m, existing.id, patch, { action: 'catalog_item.imported' });
    itemId = existing.id;
    status = updated.unchanged ? 'unchanged' : 'updated';
  } else {
    const candidate = HANDLE_ID.test(handle) && !(await findItem(tx, merchantId, `itm_${handle}`)) ? `itm_${handle}` : newId('catalogItem');
    const created = await createItem(
      m,
      {
        name: fields.name!,
        ...(fields.description !== undefined ? { description: fields.description } : {}),
        category: fields.category ?? 'Uncategorized',
        kind,
        variations: variationInputs.map((v) => Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined))) as CatalogItemCreate['variations'],
        modifierLists: [],
        taxRateIds: taxable ? ictx.defaultTaxRateIds : [],
        ...(imageUrl !== undefined ? { imageUrl } : {}),
      },
      { id: candidate, action: 'catalog_item.imported' },
    );
    itemId = created.id;
    status = 'created';
  }
  await tx.query(
    `INSERT INTO catalog_handles (merchant_id, handle, item_id) VALUES ($1, $2, $3)
     ON CONFLICT (merchant_id, item_id) DO UPDATE SET handle = EXCLUDED.handle`,
    [merchantId, handle, itemId],
  );

  // Stock: a count to the CSV's quantity, only where it differs from what is on hand.
  const stored = (await findItem(tx, merchantId, itemId))!.item;
  const counts = variants
    .filter((v) => v.quantity !== undefined && v.trackStock)
    .map((v) => ({ variationId: stored.variations.find((x) => x.name.toLowerCase() === v.name.toLowerCase())!.id, counted: v.quantity! }));
  if (counts.length > 0) {
    const recorded = await ictx.countStock(counts, { sourceId: report.importId, note: `CSV import, handle ${handle}` });
    report.stockMovements += recorded;
    if (status === 'unchanged' && recorded > 0) status = 'updated';
  }

  report.variantRows += variants.length;
  report.imageRows += imageRows.length;
  report.items[status] += 1;
  report.results.push({ handle, itemId, status });
}

/** The columns export writes (a subset of Shopify's product CSV, in Shopify's order). */
export const EXPORT_COLUMNS = [
  'Handle',
  'Title',
  'Body (HTML)',
  'Vendor',
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
  'Status',
] as const;

/**
 * The merchant's live catalog as a Shopify product CSV (UTF-8, CRLF line ends as Shopify writes them). Handles are
 * those of an earlier import, else the item id without `itm_`. Modifier lists are not part of the format.
 */
export async function exportCatalogCsv(db: Queryable, merchantId: string): Promise<string> {
  const currency = (await db.query<{ currency: string }>('SELECT currency FROM merchants WHERE id = $1', [merchantId])).rows[0]?.currency ?? 'USD';
  const exponent = minorUnitExponent(currency);
  const { rows } = await db.query<{ id: string; data: CatalogItem; handle: string | null }>(
    `SELECT ci.id, ci.data, h.handle FROM catalog_items ci LEFT JOIN catalog_handles h ON h.merchant_id = ci.merchant_id AND h.item_id = ci.id
      WHERE ci.merchant_id = $1 AND NOT ci.deleted ORDER BY ci.id`,
    [merchantId],
  );
  const records: string[][] = [];
  for (const { data: item, handle } of rows) {
    const single = item.variations.length === 1 && item.variations[0]!.name === 'Regular';
    item.variations.forEach((v, i) => {
      const first = i === 0;
      const record: Record<(typeof EXPORT_COLUMNS)[number], string> = {
        Handle: handle ?? item.id.replace(/^itm_/, ''),
        Title: first ? item.name : '',
        'Body (HTML)': first ? textToHtml(item.description ?? '') : '',
        Vendor: '',
        Type: first ? item.category : '',
        Tags: '',
        Published: first ? 'true' : '',
        'Option1 Name': first ? (single ? 'Title' : 'Option') : '',
        'Option1 Value': single ? 'Default Title' : v.name,
        'Option2 Name': '',
        'Option2 Value': '',
        'Option3 Name': '',
        'Option3 Value': '',
        'Variant SKU': v.sku ?? '',
        'Variant Grams': '0',
        'Variant Inventory Tracker': v.trackStock ? 'shopify' : '',
        'Variant Inventory Qty': v.trackStock ? String(v.stockOnHand ?? 0) : '',
        'Variant Inventory Policy': 'deny',
        'Variant Fulfillment Service': 'manual',
        'Variant Price': formatPrice(v.priceCents, exponent),
        'Variant Compare At Price': '',
        'Variant Requires Shipping': item.kind === 'product' ? 'true' : 'false',
        'Variant Taxable': item.taxRateIds.length > 0 ? 'true' : 'false',
        'Variant Barcode': v.gtin ?? '',
        'Image Src': first ? (item.imageUrl ?? '') : '',
        'Image Position': first && item.imageUrl ? '1' : '',
        'Image Alt Text': '',
        'Gift Card': first ? 'false' : '',
        Status: first ? 'active' : '',
      };
      records.push(EXPORT_COLUMNS.map((c) => record[c]));
    });
  }
  return stringify([EXPORT_COLUMNS as unknown as string[], ...records], { record_delimiter: '\r\n' });
}
