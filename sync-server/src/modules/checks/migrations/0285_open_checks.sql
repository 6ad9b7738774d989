-- Main owner: the checks module. A restaurant's open checks as registers replicate them (core/check-documents.ts):
-- one row per check header, per line (its check is in data.place.checkId: a moved line stays one row) and per
-- payment (keyed by the paying order). A pushed document is joined with the stored one by the check book's merge,
-- never overwritten, so registers that edited a check apart converge. Each row's sync_seq orders the pull.
CREATE TABLE checks (
  id           TEXT NOT NULL,
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  data         JSONB NOT NULL,
  sync_seq     BIGINT NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, id)
);
CREATE INDEX checks_seq ON checks (merchant_id, sync_seq);

CREATE TABLE check_lines (
  id           TEXT NOT NULL,
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  check_id     TEXT NOT NULL,
  data         JSONB NOT NULL,
  sync_seq     BIGINT NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, id)
);
CREATE INDEX check_lines_seq ON check_lines (merchant_id, sync_seq);
CREATE INDEX check_lines_check ON check_lines (merchant_id, check_id);

CREATE TABLE check_payments (
  id           TEXT NOT NULL,
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  check_id     TEXT NOT NULL,
  data         JSONB NOT NULL,
  sync_seq     BIGINT NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, id)
);
CREATE INDEX check_payments_seq ON check_payments (merchant_id, sync_seq);
