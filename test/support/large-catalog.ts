/**
 * A large catalog for the scale tests and the register benchmark: `count` generated items inserted into
 * the server's `catalog_items` in one SQL statement per 10,000 rows (a replication sequence each, as the catalog module
 * stores them), so 50,000 items take seconds, not the import's minutes.
 *
 * Item `n` (1-based): id `itm_bulk_<n>`, name `Bulk item <n> <word>`, category `Aisle <n % 20>`, one variation
 * `var_bulk_<n>` at 100 + n % 900 cents, SKU `BULK-<n>`, GTIN `2<n, 12 digits>` (13 digits), taxed `tax_sales`.
 */
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
