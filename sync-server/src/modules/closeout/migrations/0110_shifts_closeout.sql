-- Main owner: the closeout module; also adds merchants.day_cutoff_hour and the kernel's cash accounts of existing stores.
-- Shifts and the daily closeout (core/shifts.ts). Shifts, cash movements and shift closeouts are
-- register-authored and append-only (pushed through sync like orders); store closeouts lock a business day.

-- The store's business day ends at this local hour (0–23) in its time zone (docs/decisions/0010-shifts-and-the-daily-closeout.md).
ALTER TABLE merchants ADD COLUMN day_cutoff_hour INTEGER NOT NULL DEFAULT 4 CHECK (day_cutoff_hour BETWEEN 0 AND 23);

CREATE TABLE shifts (
  id            TEXT PRIMARY KEY,
  merchant_id   TEXT NOT NULL REFERENCES merchants (id),
  register_id   TEXT NOT NULL REFERENCES registers (id),
  opened_at     TIMESTAMPTZ NOT NULL,
  business_day  TEXT NOT NULL,
  data          JSONB NOT NULL,
  sync_seq      BIGINT NOT NULL,
  updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX shifts_seq ON shifts (merchant_id, sync_seq);
CREATE INDEX shifts_day ON shifts (merchant_id, business_day);

CREATE TABLE cash_movements (
  id            TEXT PRIMARY KEY,
  merchant_id   TEXT NOT NULL REFERENCES merchants (id),
  shift_id      TEXT NOT NULL,                    -- may arrive before its shift (each collection syncs on its own)
  register_id   TEXT NOT NULL REFERENCES registers (id),
  kind          TEXT NOT NULL CHECK (kind IN ('paid_in', 'paid_out', 'no_sale')),
  amount_cents  BIGINT NOT NULL CHECK (amount_cents >= 0),
  created_at    TIMESTAMPTZ NOT NULL,
  data          JSONB NOT NULL,
  sync_seq      BIGINT NOT NULL,
  updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX cash_movements_seq ON cash_movements (merchant_id, sync_seq);
CREATE INDEX cash_movements_shift ON cash_movements (shift_id);

CREATE TABLE shift_closeouts (
  id                      TEXT PRIMARY KEY,
  merchant_id             TEXT NOT NULL REFERENCES merchants (id),
  shift_id                TEXT NOT NULL UNIQUE,   -- may arrive before its shift
  register_id             TEXT NOT NULL REFERENCES registers (id),
  closed_at               TIMESTAMPTZ NOT NULL,
  counted_cents           BIGINT NOT NULL,
  over_short_cents        BIGINT NOT NULL,
  journal_transaction_id  TEXT,
  data                    JSONB NOT NULL,
  sync_seq                BIGINT NOT NULL,
  updated_at              TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX shift_closeouts_seq ON shift_closeouts (merchant_id, sync_seq);

-- One row per closed business day: the day is locked from then on.
CREATE TABLE store_closeouts (
  merchant_id     TEXT NOT NULL REFERENCES merchants (id),
  business_day    TEXT NOT NULL,
  closed_at       TIMESTAMPTZ NOT NULL,
  closed_by       TEXT NOT NULL,
  missing         JSONB NOT NULL DEFAULT '[]',
  report          JSONB NOT NULL,
  PRIMARY KEY (merchant_id, business_day)
);

CREATE OR REPLACE FUNCTION closeout_rows_immutable() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION '% rows are append-only', TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER shifts_immutable BEFORE UPDATE OR DELETE ON shifts FOR EACH ROW EXECUTE FUNCTION closeout_rows_immutable();
CREATE TRIGGER cash_movements_immutable BEFORE UPDATE OR DELETE ON cash_movements FOR EACH ROW EXECUTE FUNCTION closeout_rows_immutable();
CREATE TRIGGER shift_closeouts_immutable BEFORE UPDATE OR DELETE ON shift_closeouts FOR EACH ROW EXECUTE FUNCTION closeout_rows_immutable();
CREATE TRIGGER store_closeouts_immutable BEFORE UPDATE OR DELETE ON store_closeouts FOR EACH ROW EXECUTE FUNCTION closeout_rows_immutable();

-- Cash paid in and out of a drawer posts against this account (core CHART_OF_ACCOUNTS); existing stores get it here.
INSERT INTO accounts (id, merchant_id, code, name, type)
SELECT 'acc_cpio_' || id, id, 'cash_paid_in_out', 'Cash paid in/out', 'expense' FROM merchants
ON CONFLICT (merchant_id, code) DO NOTHING;
