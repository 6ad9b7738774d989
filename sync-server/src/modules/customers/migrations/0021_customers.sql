-- Customers (staff only). Unique per merchant by E.164 phone and by normalised (trimmed, lower-cased) e-mail among
-- customers not deleted; deletion is soft so their orders keep pointing at them.
CREATE TABLE customers (
  id                   TEXT PRIMARY KEY,                   -- cus_<ULID>
  merchant_id          TEXT NOT NULL REFERENCES merchants (id),
  given_name           TEXT,
  family_name          TEXT,
  email                TEXT,
  email_normalized     TEXT,
  phone                TEXT,                               -- E.164
  marketing_consent    BOOLEAN NOT NULL DEFAULT false,
  marketing_consent_at TIMESTAMPTZ,                        -- when consent was last given
  note                 TEXT,
  created_at           TIMESTAMPTZ NOT NULL,
  updated_at           TIMESTAMPTZ NOT NULL,
  deleted_at           TIMESTAMPTZ
);
CREATE UNIQUE INDEX customers_unique_phone ON customers (merchant_id, phone) WHERE phone IS NOT NULL AND deleted_at IS NULL;
CREATE UNIQUE INDEX customers_unique_email ON customers (merchant_id, email_normalized) WHERE email_normalized IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX customers_by_id ON customers (merchant_id, id) WHERE deleted_at IS NULL;
