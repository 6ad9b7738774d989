-- Catalog import at scale (docs/decisions/0031-catalog-import-at-scale.md): SKU and variation-id lookups through GIN indexes instead of expanding every
-- item's variations (the import checked each SKU against the whole catalog: quadratic), the Shopify product CSV
-- columns the catalog keeps beside an item (vendor, tags, option names, compare-at prices, images, body HTML…), and
-- import jobs (progress, cancel).

-- The SKUs / variation ids of an item as a JSON array of strings, indexed (GIN, `?|` any of these strings). Built-in
-- immutable C functions, so a sequential scan of a small catalog stays as cheap as before.
CREATE INDEX catalog_items_skus ON catalog_items USING gin (jsonb_path_query_array(data, '$.variations[*].sku'));
CREATE INDEX catalog_items_variation_ids ON catalog_items USING gin (jsonb_path_query_array(data, '$.variations[*].id'));

-- Shopify product CSV details of an item that its register shape does not carry (modules/catalog/csv.ts
-- `ShopifyDetails`): written by the import, read by the export. Never replicated to registers.
CREATE TABLE catalog_item_shopify (
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  item_id     TEXT NOT NULL,
  data        JSONB NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, item_id)
);

-- A catalog import run as a job: chunks of whole products, each committed with its progress.
CREATE TABLE catalog_import_jobs (
  id           TEXT PRIMARY KEY,
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  actor        TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('running', 'cancelling', 'cancelled', 'done', 'failed')),
  rows_total   INTEGER NOT NULL CHECK (rows_total >= 0),
  rows_done    INTEGER NOT NULL DEFAULT 0 CHECK (rows_done >= 0),
  report       JSONB NOT NULL,
  error        TEXT,
  created_at   TIMESTAMPTZ NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL,
  finished_at  TIMESTAMPTZ
);
CREATE INDEX catalog_import_jobs_merchant ON catalog_import_jobs (merchant_id, created_at DESC);

-- Each committed chunk's part of the job's report (rejected lines, warnings, item results): appended once per chunk,
-- so the job's progress row stays small and the full report is the union of its chunks.
CREATE TABLE catalog_import_job_chunks (
  job_id   TEXT NOT NULL REFERENCES catalog_import_jobs (id),
  chunk    INTEGER NOT NULL,
  part     JSONB NOT NULL,
  PRIMARY KEY (job_id, chunk)
);
