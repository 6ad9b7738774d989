/**
 * Catalog editing and inventory inputs. The stored shapes are `catalogItemSchema` / `taxRateSchema`
 * in schemas.ts; these are what staff send to create or change them. Ids of items, variations, modifier lists and
 * modifiers are assigned by the server; on update an `id` keeps an existing variation / list / modifier of that item.
 * `stockOnHand` is never sent: it is the sum of stock movements, computed by the server.
 *
 * Every object is strict: unknown fields are rejected. Pure: no I/O (bundled into the register).
 */
import { z } from 'zod';
import {
  catalogItemSchema,
  freeText,
  itemKind,
  MAX_AMOUNT_CENTS,
  MAX_MEMO_LENGTH,
  nonBlankText,
  patchBody,
  taxRateSchema,
  uniqueList,
} from './schemas.ts';

const catalogId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,40}$`), `must be an id starting with ${prefix}_`);

/**
 * True when `code` is a GTIN-8/12/13/14 (UPC-A = GTIN-12, EAN-13 = GTIN-13) whose last digit is the GS1 mod-10 check
 * digit of the others (weights 3,1,3,… from the right, excluding the check digit).
 */
export function isValidGtin(code: string): boolean {
  if (!/^(\d{8}|\d{12}|\d{13}|\d{14})$/.test(code)) return false;
  const digits = [...code].map(Number);
  const check = digits.pop()!;
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    const fromRight = digits.length - 1 - i;
    sum += digits[i]! * (fromRight % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10 === check;
}

/** True for an absolute `http:` or `https:` URL without credentials. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * An absolute http(s) URL without credentials, ≤ 2000 characters (images, webhook receivers). JSON Schema:
 * `format: uri`.
 */
export const httpUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http or https URL', abort: true })
  .max(2000)
  .refine(isHttpUrl, 'must be an absolute http or https URL without user name or password');

const gtinSchema = z.string().refine(isValidGtin, 'must be a GTIN of 8, 12, 13 or 14 digits with a valid check digit');

/** A variation as staff send it. `trackStock` defaults to false (services, made-to-order drinks). */
export const variationInputSchema = z.strictObject({
  id: catalogId('var').optional(),
  name: nonBlankText(100),
  priceCents: z.int().min(0).max(MAX_AMOUNT_CENTS),
  sku: nonBlankText(64).optional(),
  gtin: gtinSchema.optional(),
  trackStock: z.boolean().default(false),
});

export const modifierInputSchema = z.strictObject({
  id: catalogId('mod').optional(),
  name: nonBlankText(100),
  priceCents: z.int().min(0).max(MAX_AMOUNT_CENTS),
});

export const modifierListInputSchema = z
  .strictObject({
    id: catalogId('mdl').optional(),
    name: nonBlankText(100),
    minSelected: z.int().min(0).max(50).default(0),
    maxSelected: z.int().min(1).max(50).default(1),
    modifiers: z.array(modifierInputSchema).min(1).max(50),
  })
  .refine((l) => l.minSelected <= l.maxSelected, { message: 'minSelected must not exceed maxSelected', path: ['minSelected'] });

const variationsSchema = z
  .array(variationInputSchema)
  .min(1)
  .max(100)
  .superRefine((variations, ctx) => {
    const names = new Set<string>();
    const skus = new Set<string>();
    const ids = new Set<string>();
    variations.forEach((v, i) => {
      const name = v.name.toLowerCase();
      if (names.has(name)) ctx.addIssue({ code: 'custom', message: 'two variations of an item must not share a name', path: [i, 'name'] });
      names.add(name);
      if (v.sku !== undefined) {
        if (skus.has(v.sku)) ctx.addIssue({ code: 'custom', message: 'two variations must not share a SKU', path: [i, 'sku'] });
        skus.add(v.sku);
      }
      if (v.id !== undefined) {
        if (ids.has(v.id)) ctx.addIssue({ code: 'custom', message: 'a variation id appears twice', path: [i, 'id'] });
        ids.add(v.id);
      }
    });
  });

const itemFields = {
  name: nonBlankText(200),
  description: freeText(2000),
  category: nonBlankText(100),
  kind: itemKind,
  variations: variationsSchema,
  modifierLists: z.array(modifierListInputSchema).max(20),
  taxRateIds: uniqueList(catalogId('tax'), { max: 10, message: 'a tax rate may be listed once' }),
  imageUrl: httpUrlSchema,
};

/** `POST /api/pos/catalog/items` body. */
export const catalogItemCreateSchema = z.strictObject({
  name: itemFields.name,
  description: itemFields.description.optional(),
  category: itemFields.category,
  kind: itemFields.kind.default('product'),
  variations: itemFields.variations,
  modifierLists: itemFields.modifierLists.default([]),
  taxRateIds: itemFields.taxRateIds.default([]),
  imageUrl: itemFields.imageUrl.optional(),
});
export type CatalogItemCreate = z.output<typeof catalogItemCreateSchema>;

/** `PATCH /api/pos/catalog/categories/{name}` body: the category's new name (trimmed, 1 … 100 chars, as on items). */
export const categoryRenameSchema = z.strictObject({ name: itemFields.category });

/** A catalog item as the API answers it: the core shape plus the server's `updatedAt` (ISO 8601). */
export const apiCatalogItemSchema = catalogItemSchema.extend({ updatedAt: z.string() });
export type ApiCatalogItem = z.infer<typeof apiCatalogItemSchema>;
/** A tax rate as the API answers it, with the server's `updatedAt`. */
export const apiTaxRateSchema = taxRateSchema.extend({ updatedAt: z.string() });
export type ApiTaxRate = z.infer<typeof apiTaxRateSchema>;

/**
 * The store's default tax rate — what a new item and an imported taxable product get unless told otherwise: the live
 * rate the most items carry (`usage`: item count per rate id; ties: the lowest id), else — no item taxed yet — the
 * first exclusive rate by id, else the first rate; undefined for a store without rates. Never several rates stacked.
 * @param rates the store's live tax rates
 */
export function defaultTaxRateId(rates: readonly { id: string; inclusive: boolean }[], usage: ReadonlyMap<string, number>): string | undefined {
  if (rates.length === 0) return undefined;
  const byId = [...rates].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let best: { id: string; n: number } | undefined;
  for (const r of byId) {
    const n = usage.get(r.id) ?? 0;
    if (n > 0 && (!best || n > best.n)) best = { id: r.id, n };
  }
  return best?.id ?? (byId.find((r) => !r.inclusive) ?? byId[0]!).id;
}

/** `GET /api/pos/catalog` body: a page of items (`deleted` on items removed since `updatedSince`) and every tax rate. */
export const catalogPageSchema = z.strictObject({
  data: z.array(apiCatalogItemSchema.extend({ deleted: z.boolean().optional() })),
  taxRates: z.array(apiTaxRateSchema),
  nextCursor: z.string().nullable(),
});
export type CatalogPage = z.infer<typeof catalogPageSchema>;

/** A category of live items (the items' `category`, exact spelling) with how many live items carry it. */
export const categorySummarySchema = z.strictObject({ name: z.string(), itemCount: z.int().min(0) });
export type CategorySummary = z.infer<typeof categorySummarySchema>;

/**
 * `PATCH /api/pos/catalog/items/{id}` body: the fields to change (at least one). `variations`, `modifierLists` and
 * `taxRateIds` replace the whole list; `description: null` / `imageUrl: null` remove them.
 */
export const catalogItemUpdateSchema = patchBody({
  name: itemFields.name.optional(),
  description: itemFields.description.nullable().optional(),
  category: itemFields.category.optional(),
  kind: itemFields.kind.optional(),
  variations: itemFields.variations.optional(),
  modifierLists: itemFields.modifierLists.optional(),
  taxRateIds: itemFields.taxRateIds.optional(),
  imageUrl: itemFields.imageUrl.nullable().optional(),
});
export type CatalogItemUpdate = z.output<typeof catalogItemUpdateSchema>;

/** `POST /api/pos/catalog/tax-rates` body (basis points: 875 = 8.75 %). */
export const taxRateCreateSchema = z.strictObject({
  name: nonBlankText(100),
  basisPoints: z.int().min(0).max(100_000),
  inclusive: z.boolean().default(false),
});
/**
 * `PATCH /api/pos/catalog/tax-rates/{id}` body: at least one field. No defaults: a field not sent keeps its value
 * (renaming an inclusive rate leaves it inclusive).
 */
export const taxRateUpdateSchema = patchBody({
  name: nonBlankText(100).optional(),
  basisPoints: z.int().min(0).max(100_000).optional(),
  inclusive: z.boolean().optional(),
});

/* ───────────────────────────── inventory ───────────────────────────── */

/**
 * Kinds of stock movement. `sale` (negative) and `return` (positive) come from orders and refunds; `receive`
 * (positive) from deliveries; `adjust` (signed) for damage, theft, corrections; `count` sets the units on hand to a
 * counted number (its quantity is the difference).
 */
export const STOCK_MOVEMENT_KINDS = ['sale', 'return', 'receive', 'adjust', 'count'] as const;
export type StockMovementKind = (typeof STOCK_MOVEMENT_KINDS)[number];

const locationId = z.string().regex(/^loc_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an id starting with loc_');
const quantityBound = 1_000_000;
const uniqueVariations = <T extends { variationId: string }>(lines: T[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  lines.forEach((l, i) => {
    if (seen.has(l.variationId)) ctx.addIssue({ code: 'custom', message: 'a variation may appear once per request', path: [i, 'variationId'] });
    seen.add(l.variationId);
  });
};

/** `POST /api/pos/catalog/inventory/receive` — units received (positive). */
export const stockReceiveSchema = z.strictObject({
  locationId: locationId.optional(),
  note: freeText(MAX_MEMO_LENGTH).optional(),
  lines: z
    .array(z.strictObject({ variationId: catalogId('var'), quantity: z.int().min(1).max(quantityBound) }))
    .min(1)
    .max(500)
    .superRefine(uniqueVariations),
});
/** `POST /api/pos/catalog/inventory/adjust` — signed corrections (damage, theft, found stock); never zero. */
export const stockAdjustSchema = z.strictObject({
  locationId: locationId.optional(),
  note: freeText(MAX_MEMO_LENGTH).optional(),
  lines: z
    .array(
      z.strictObject({
        variationId: catalogId('var'),
        quantity: z
          .int()
          .min(-quantityBound)
          .max(quantityBound)
          .refine((q) => q !== 0, 'must not be zero'),
      }),
    )
    .min(1)
    .max(500)
    .superRefine(uniqueVariations),
});
/** `POST /api/pos/catalog/inventory/count` — the units counted; the movement is the difference to what was on hand. */
export const stockCountSchema = z.strictObject({
  locationId: locationId.optional(),
  note: freeText(MAX_MEMO_LENGTH).optional(),
  lines: z
    .array(z.strictObject({ variationId: catalogId('var'), counted: z.int().min(0).max(quantityBound) }))
    .min(1)
    .max(500)
    .superRefine(uniqueVariations),
});
/** `POST /api/pos/catalog/inventory/thresholds` — low-stock thresholds; `null` removes one. */
export const stockThresholdsSchema = z.strictObject({
  locationId: locationId.optional(),
  thresholds: z
    .array(z.strictObject({ variationId: catalogId('var'), lowStockThreshold: z.int().min(0).max(quantityBound).nullable() }))
    .min(1)
    .max(500)
    .superRefine(uniqueVariations),
});
/** `POST /api/pos/catalog/locations` body. */
export const locationCreateSchema = z.strictObject({ name: nonBlankText(100) });

/**
 * The largest Shopify product CSV the one-transaction import and its dry run take, in bytes (16 MiB: tens of thousands
 * of rows without long descriptions). Import jobs take larger files (CATALOG_IMPORT_JOB_MAX_BYTES, core/catalog-import.ts).
 */
export const CATALOG_CSV_MAX_BYTES = 16 * 1024 * 1024;

/**
 * `POST /api/pos/catalog/import` JSON body: the Shopify product CSV as text; `dryRun` reports without writing. (The
 * same route takes the file itself as `Content-Type: text/csv`, with `?dryRun=true`.)
 */
export const catalogImportRequestSchema = z.strictObject({
  csv: z.string().min(1).max(CATALOG_CSV_MAX_BYTES),
  dryRun: z.boolean().default(false),
});
