-- ID verification: the AAMVA DL/ID barcode read at the register, checked for expiry and the
-- service's minimum age. The document number is stored masked only (last four characters).

CREATE TABLE id_verification_settings (
  merchant_id          TEXT PRIMARY KEY REFERENCES merchants (id),
  default_minimum_age  INTEGER NOT NULL CHECK (default_minimum_age BETWEEN 0 AND 125),
  minimum_ages         JSONB NOT NULL,                -- { "<service>": age }
  updated_at           TIMESTAMPTZ NOT NULL
);

CREATE TABLE id_verifications (
  id                       TEXT PRIMARY KEY,          -- idv_<ULID>
  merchant_id              TEXT NOT NULL REFERENCES merchants (id),
  service                  TEXT NOT NULL,
  source                   TEXT NOT NULL CHECK (source IN ('scanner', 'image')),
  ok                       BOOLEAN NOT NULL,
  problems                 JSONB NOT NULL,
  minimum_age              INTEGER NOT NULL,
  first_name               TEXT,
  middle_name              TEXT,
  last_name                TEXT,
  date_of_birth            DATE,
  age                      INTEGER,
  expiry                   DATE,
  sex                      TEXT,
  jurisdiction             TEXT,
  document_type            TEXT,
  document_number_masked   TEXT,
  address                  JSONB,
  iin                      TEXT NOT NULL,
  aamva_version            INTEGER NOT NULL,
  verified_by              TEXT NOT NULL,
  created_at               TIMESTAMPTZ NOT NULL
);
CREATE INDEX id_verifications_merchant ON id_verifications (merchant_id, created_at DESC, id DESC);
