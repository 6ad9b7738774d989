/**
 * A large catalog for the scale tests and the register benchmark: `count` generated items inserted into
 * the server's `catalog_items` in one SQL statement per 10,000 rows (a replication sequence each, as the catalog module
 * stores them), so 50,000 items take seconds, not the import's minutes.
 *
 * Item `n` (1-based): id `itm_bulk_<n>`, name `Bulk item <n> <word>`, category `Aisle <n % 20>`, one variation
 * `var_bulk_<n>` at 100 + n % 900 cents, SKU `BULK-<n>`, GTIN `2<n, 12 digits>` (13 digits), taxed `tax_sales`.
 *
 * The same items as a Shopify product CSV ({@link largeCatalogCsv}), for the register bench's catalog imported the way a
 * merchant imports one (the import job API): same names, prices, SKUs and categories, GTINs with a GS1 check digit.
 */
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../../sync-server/src/platform/db/db.ts';

const WORDS = [
  'apple',
  'bolt',
  'cable',
  'drill',
  'eraser',
  'flour',
  'glue',
  'hinge',
  'ink',
  'jam',
  'kettle',
  'lamp',
  'nail',
  'oat',
  'paint',
  'rice',
  'soap',
  'tape',
  'valve',
  'wax',
];

/** The GTIN of generated item `n` (13 digits, starts with 2: an in-store number range). */
export const bulkGtin = (n: number): string => `2${String(n).padStart(12, '0')}`;
/** The name of generated item `n`. */
export const bulkName = (n: number): string => `Bulk item ${n} ${WORDS[n % WORDS.length]}`;
/** The price of generated item `n`, cents. */
export const bulkPriceCents = (n: number): number => 100 + (n % 900);

/**
 * The GS1 mod-10 check digit of `digits` (a GTIN without its last digit: weights 3, 1, 3, … from the right).
 * @throws Error when `digits` is not all decimal digits.
 */
export function gtinCheckDigit(digits: string): number {
  if (!/^\d+$/.test(digits)) throw new Error(`a GTIN's digits are decimal digits, got "${digits}"`);
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) sum += Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10;
}

/** The valid GTIN-13 of generated item `n` in {@link largeCatalogCsv}: `2`, n in 11 digits, the GS1 check digit. */
export const bulkValidGtin = (n: number): string => {
  const body = `2${String(n).padStart(11, '0')}`;
  return `${body}${gtinCheckDigit(body)}`;
};

/**
 * Items `from`..`from + count - 1` (1-based, as in the file's docstring) as a Shopify product CSV (header row, then one
 * single-variant product per row): Handle `bulk-item-<n>`, Title {@link bulkName}, Type `Aisle <n % 20>`, price
 * {@link bulkPriceCents} as a decimal string, SKU `BULK-<n>`, Variant Barcode {@link bulkValidGtin} (the importer
 * keeps only a barcode with a valid check digit), taxable (the store's default rate), no stock tracked, active.
 */
export function largeCatalogCsv(from: number, count: number): string {
  const header = [
    'Handle',
    'Title',
    'Type',
    'Option1 Name',
    'Option1 Value',
    'Variant SKU',
    'Variant Price',
    'Variant Requires Shipping',
    'Variant Taxable',
    'Variant Barcode',
    'Status',
  ];
  const rows = Array.from({ length: count }, (_, k) => {
    const n = from + k;
    return [
      `bulk-item-${n}`,
      bulkName(n),
      `Aisle ${String(n % 20).padStart(2, '0')}`,
      'Title',
      'Default Title',
      `BULK-${n}`,
      (bulkPriceCents(n) / 100).toFixed(2),
      'true',
      'true',
      bulkValidGtin(n),
      'active',
    ];
  });
  return stringify([header, ...rows]);
}

/** Inserts items 1..count (see the file's docstring) for `merchantId`; existing ids are left as they are. */
export async function seedLargeCatalog(db: Db, merchantId: string, count: number): Promise<void> {
  const chunk = 10_000;
  for (let first = 1; first <= count; first += chunk) {
    const last = Math.min(count, first + chunk - 1);
    await db.query(
      `INSERT INTO catalog_items (merchant_id, id, data, sync_seq)
       SELECT $1, 'itm_bulk_' || n, jsonb_build_object(
         'id', 'itm_bulk_' || n,
         'name', 'Bulk item ' || n || ' ' || ($4::text[])[(n % 20) + 1],
         'category', 'Aisle ' || lpad((n % 20)::text, 2, '0'),
         'kind', 'product',
         'variations', jsonb_build_array(jsonb_build_object(
           'id', 'var_bulk_' || n, 'name', 'Regular', 'priceCents', 100 + (n % 900), 'trackStock', false,
           'sku', 'BULK-' || n, 'gtin', '2' || lpad(n::text, 12, '0'))),
         'modifierLists', '[]'::jsonb,
         'taxRateIds', jsonb_build_array('tax_sales')), nextval('sync_seq')
       FROM generate_series($2::int, $3::int) AS n
       ON CONFLICT (merchant_id, id) DO NOTHING`,
      [merchantId, first, last, WORDS],
    );
  }
}
