-- Returns and exchanges at the register (core/returns.ts). Register-authored, append-only, pushed through
-- sync like the shifts; each stored return names the refund the server recorded for it (order_refunds).
CREATE TABLE register_returns (
  id            TEXT PRIMARY KEY,
  merchant_id   TEXT NOT NULL REFERENCES merchants (id),
  register_id   TEXT NOT NULL REFERENCES registers (id),
  order_id      TEXT NOT NULL,
  refund_id     TEXT NOT NULL,
  amount_cents  BIGINT NOT NULL CHECK (amount_cents > 0),
  tender        TEXT NOT NULL,
  created_at    TIMESTAMPTZ NOT NULL,
  data          JSONB NOT NULL,
  sync_seq      BIGINT NOT NULL,
  updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX register_returns_seq ON register_returns (merchant_id, sync_seq);
CREATE INDEX register_returns_order ON register_returns (order_id);

CREATE OR REPLACE FUNCTION register_returns_immutable() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'register_returns rows are append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER register_returns_immutable BEFORE UPDATE OR DELETE ON register_returns FOR EACH ROW EXECUTE FUNCTION register_returns_immutable();
