-- Sanctions screening (docs/decisions/0054-sanctions-screening-at-full-list.md). Each store keeps every
-- version of the OFAC SDN list it loaded (sdn.csv, alt.csv, add.csv as published): the list rows are append-only, a
-- newer upload is a new version and the newest is the one screenings use. Every screening decision is a row here and
-- an audit entry; a potential match is `held` until a manager clears or refuses it.

CREATE TABLE sanctions_lists (
  id             TEXT PRIMARY KEY,                    -- sls_<ULID>
  merchant_id    TEXT NOT NULL REFERENCES merchants (id),
  version        TEXT NOT NULL,                       -- the uploader's label, e.g. the list's publish date
  published_on   DATE,                                -- OFAC's publish date when known
  source         TEXT NOT NULL CHECK (source IN ('sample', 'upload')),
  sha256         TEXT NOT NULL,                       -- of sdn.csv + alt.csv + add.csv as received
  entry_count    INTEGER NOT NULL,
  alias_count    INTEGER NOT NULL,
  address_count  INTEGER NOT NULL,
  loaded_by      TEXT NOT NULL,                       -- audit actor
  created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX sanctions_lists_merchant ON sanctions_lists (merchant_id, created_at DESC, id DESC);

CREATE TABLE sanctions_entries (                      -- sdn.csv
  list_id   TEXT NOT NULL REFERENCES sanctions_lists (id),
  ent_num   INTEGER NOT NULL,
  name      TEXT NOT NULL,
  sdn_type  TEXT,                                     -- individual / vessel / aircraft; NULL for entities
  programs  TEXT,
  remarks   TEXT,
  PRIMARY KEY (list_id, ent_num)
);

CREATE TABLE sanctions_aliases (                      -- alt.csv
  list_id   TEXT NOT NULL REFERENCES sanctions_lists (id),
  ent_num   INTEGER NOT NULL,
  alt_num   INTEGER NOT NULL,
  alt_type  TEXT,                                     -- aka / fka / nka
  name      TEXT NOT NULL,
  remarks   TEXT,
  PRIMARY KEY (list_id, alt_num)
);

CREATE TABLE sanctions_addresses (                    -- add.csv
  list_id   TEXT NOT NULL REFERENCES sanctions_lists (id),
  ent_num   INTEGER NOT NULL,
  add_num   INTEGER NOT NULL,
  address   TEXT,
  city      TEXT,
  country   TEXT,
  remarks   TEXT,
  PRIMARY KEY (list_id, add_num)
);

-- Every version is kept as loaded.
CREATE TRIGGER sanctions_lists_immutable BEFORE UPDATE OR DELETE ON sanctions_lists FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER sanctions_entries_immutable BEFORE UPDATE OR DELETE ON sanctions_entries FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER sanctions_aliases_immutable BEFORE UPDATE OR DELETE ON sanctions_aliases FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER sanctions_addresses_immutable BEFORE UPDATE OR DELETE ON sanctions_addresses FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();

-- The store's screening settings; no row = the defaults (modules/sanctions/settings.ts).
CREATE TABLE screening_settings (
  merchant_id      TEXT PRIMARY KEY REFERENCES merchants (id),
  match_threshold  DOUBLE PRECISION NOT NULL CHECK (match_threshold > 0 AND match_threshold <= 1),
  block_threshold  DOUBLE PRECISION NOT NULL CHECK (block_threshold > 0 AND block_threshold <= 1.01),
  updated_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE screenings (
  id               TEXT PRIMARY KEY,                  -- scr_<ULID>
  merchant_id      TEXT NOT NULL REFERENCES merchants (id),
  list_id          TEXT NOT NULL REFERENCES sanctions_lists (id),
  name             TEXT NOT NULL,
  role             TEXT NOT NULL,
  subject_ref      TEXT,
  outcome          TEXT NOT NULL CHECK (outcome IN ('clear', 'potential_match', 'blocked')),
  status           TEXT NOT NULL CHECK (status IN ('clear', 'held', 'cleared', 'refused', 'blocked')),
  score            DOUBLE PRECISION NOT NULL,
  threshold        DOUBLE PRECISION NOT NULL,
  block_threshold  DOUBLE PRECISION NOT NULL,
  top_matches      JSONB NOT NULL,
  screened_by      TEXT NOT NULL,
  created_at       TIMESTAMPTZ NOT NULL,
  decided_by       TEXT,
  decided_at       TIMESTAMPTZ,
  decision_reason  TEXT
);
CREATE INDEX screenings_merchant ON screenings (merchant_id, created_at DESC, id DESC);
CREATE INDEX screenings_held ON screenings (merchant_id, status) WHERE status = 'held';
