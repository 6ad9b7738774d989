-- Main owner: the inventory module (locations, stock movements, thresholds); also creates the catalog module's catalog_handles.
-- Catalog editing, inventory and CSV import. Inventory is the SUM of stock movements per location and
-- variation: movements are append-only, so two registers selling the last item offline both sync and the oversell is
-- reported, never lost.

CREATE TABLE locations (
  id          TEXT PRIMARY KEY,                 -- loc_<ULID>
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  name        TEXT NOT NULL,
  is_default  BOOLEAN NOT NULL DEFAULT false,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- One default location per merchant: the one a catalog variation's `stockOnHand` and register sales refer to.
CREATE UNIQUE INDEX locations_one_default ON locations (merchant_id) WHERE is_default;
CREATE UNIQUE INDEX locations_name ON locations (merchant_id, lower(name));

CREATE TABLE stock_movements (
  id           TEXT PRIMARY KEY,                -- stm_<ULID>
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  location_id  TEXT NOT NULL REFERENCES locations (id),
  item_id      TEXT NOT NULL,
  variation_id TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('sale', 'return', 'receive', 'adjust', 'count')),
  quantity     INTEGER NOT NULL,                -- signed change of the units on hand
  counted      INTEGER,                         -- for `count`: the units counted (quantity = counted − on hand before)
  source_id    TEXT NOT NULL,                   -- order id, import id, request id…: idempotency with variation and kind
  note         TEXT,
  actor        TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  UNIQUE (merchant_id, source_id, variation_id, kind)
);
CREATE INDEX stock_movements_level ON stock_movements (merchant_id, variation_id, location_id);
CREATE INDEX stock_movements_newest ON stock_movements (merchant_id, created_at DESC, id DESC);

CREATE FUNCTION reject_stock_movement_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'stock_movements is append-only: % refused', TG_OP USING ERRCODE = '55000';
END $$;
CREATE TRIGGER stock_movements_immutable BEFORE UPDATE OR DELETE ON stock_movements
  FOR EACH ROW EXECUTE FUNCTION reject_stock_movement_change();

-- Low-stock alert threshold per variation and location: listed when units on hand ≤ threshold.
CREATE TABLE stock_thresholds (
  merchant_id   TEXT NOT NULL REFERENCES merchants (id),
  location_id   TEXT NOT NULL REFERENCES locations (id),
  variation_id  TEXT NOT NULL,
  threshold     INTEGER NOT NULL CHECK (threshold >= 0),
  updated_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, location_id, variation_id)
);

-- Shopify product CSV handles of catalog items (import matches rows to items by handle; export writes it back).
CREATE TABLE catalog_handles (
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  handle      TEXT NOT NULL,
  item_id     TEXT NOT NULL,
  PRIMARY KEY (merchant_id, handle),
  UNIQUE (merchant_id, item_id)
);
