-- Catalog import at scale (docs/decisions/0031-catalog-import-at-scale.md): the GIN indexes of the SKUs and variation ids (migration
-- 0150) write straight into the index tree instead of GIN's pending list. With fastupdate on, every new entry went to
-- the pending list, which each search reads in full until a VACUUM (or 4 MB of entries) merges it; PGlite never runs
-- autovacuum, so an import's SKU checks read every item imported so far: 3.5 ms a lookup at 50,000 items, against
-- 0.03 ms from the tree.
ALTER INDEX catalog_items_skus SET (fastupdate = off);
ALTER INDEX catalog_items_variation_ids SET (fastupdate = off);
-- What is already pending is merged now.
SELECT gin_clean_pending_list('catalog_items_skus'::regclass), gin_clean_pending_list('catalog_items_variation_ids'::regclass);
