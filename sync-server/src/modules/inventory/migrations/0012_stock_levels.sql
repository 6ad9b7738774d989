-- Running balance of stock per (merchant, location, variation). Stock movements stay the source of truth
-- (inventory is the sum of stock movements); this table is that sum kept up to date by a trigger in the same
-- transaction as each movement, so reading stock on hand no longer scans a variation's whole history on every sale.
CREATE TABLE stock_levels (
  merchant_id  TEXT NOT NULL,
  location_id  TEXT NOT NULL,
  variation_id TEXT NOT NULL,
  on_hand      BIGINT NOT NULL,
  PRIMARY KEY (merchant_id, location_id, variation_id)
);

INSERT INTO stock_levels (merchant_id, location_id, variation_id, on_hand)
SELECT merchant_id, location_id, variation_id, SUM(quantity) FROM stock_movements GROUP BY merchant_id, location_id, variation_id;

CREATE FUNCTION add_stock_movement_to_level() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO stock_levels (merchant_id, location_id, variation_id, on_hand)
  VALUES (NEW.merchant_id, NEW.location_id, NEW.variation_id, NEW.quantity)
  ON CONFLICT (merchant_id, location_id, variation_id) DO UPDATE SET on_hand = stock_levels.on_hand + EXCLUDED.on_hand;
  RETURN NEW;
END $$;

CREATE TRIGGER stock_movements_level AFTER INSERT ON stock_movements
  FOR EACH ROW EXECUTE FUNCTION add_stock_movement_to_level();
