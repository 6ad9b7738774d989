-- Platform folder: the initial schema creates the tables of the platform, the kernel, the sync protocol and several modules.
-- Register sync server: initial schema. PostgreSQL dialect; runs on PGlite and PostgreSQL.
-- Ids are prefixed ULIDs (text). Money is integer minor units (bigint).

-- One sequence orders every replicated write; per merchant, writes hold an advisory lock so sequence order is commit
-- order (a pull checkpoint never skips a row).
CREATE SEQUENCE sync_seq;

CREATE TABLE merchants (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  currency   TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  is_demo    BOOLEAN NOT NULL DEFAULT false,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE staff (
  id          TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  name        TEXT NOT NULL,
  email       TEXT,
  role        TEXT NOT NULL CHECK (role IN ('owner', 'manager', 'cashier')),
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE registers (
  id          TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  number      INTEGER NOT NULL CHECK (number >= 1),
  name        TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (merchant_id, number)
);

-- App tokens are opaque; only their SHA-256 is stored. The webhook secret is kept in clear (it keys HMACs).
CREATE TABLE app_tokens (
  id             TEXT PRIMARY KEY,
  merchant_id    TEXT NOT NULL REFERENCES merchants (id),
  app_name       TEXT NOT NULL,
  token_hash     TEXT NOT NULL UNIQUE,
  scopes         TEXT[] NOT NULL,
  webhook_secret TEXT,
  created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
  revoked_at     TIMESTAMPTZ
);

-- Keys of the built-in development identity provider, shared by every instance.
CREATE TABLE signing_keys (
  kid         TEXT PRIMARY KEY,
  alg         TEXT NOT NULL,
  private_jwk JSONB NOT NULL,
  public_jwk  JSONB NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE catalog_items (
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  id          TEXT NOT NULL,
  data        JSONB NOT NULL,
  sync_seq    BIGINT NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  deleted     BOOLEAN NOT NULL DEFAULT false,
  PRIMARY KEY (merchant_id, id)
);
CREATE INDEX catalog_items_seq ON catalog_items (merchant_id, sync_seq);

CREATE TABLE tax_rates (
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  id          TEXT NOT NULL,
  data        JSONB NOT NULL,
  sync_seq    BIGINT NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  deleted     BOOLEAN NOT NULL DEFAULT false,
  PRIMARY KEY (merchant_id, id)
);
CREATE INDEX tax_rates_seq ON tax_rates (merchant_id, sync_seq);

CREATE TABLE orders (
  id             TEXT PRIMARY KEY,
  merchant_id    TEXT NOT NULL REFERENCES merchants (id),
  register_id    TEXT NOT NULL REFERENCES registers (id),
  receipt_number TEXT NOT NULL,
  state          TEXT NOT NULL,
  total_cents    BIGINT NOT NULL,
  created_at     TIMESTAMPTZ NOT NULL,
  data           JSONB NOT NULL,
  sync_seq       BIGINT NOT NULL,
  updated_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (register_id, receipt_number)
);
CREATE INDEX orders_seq ON orders (merchant_id, sync_seq);
CREATE INDEX orders_newest ON orders (merchant_id, created_at DESC, id DESC);

/* ───────────── ledger: immutable, balanced ───────────── */

CREATE TABLE accounts (
  id          TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  code        TEXT NOT NULL,
  name        TEXT NOT NULL,
  type        TEXT NOT NULL CHECK (type IN ('asset', 'liability', 'revenue', 'contra_revenue', 'expense')),
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (merchant_id, code)
);

CREATE TABLE journal_transactions (
  id          TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  kind        TEXT NOT NULL,
  source_type TEXT NOT NULL,
  source_id   TEXT NOT NULL,
  register_id TEXT,
  occurred_at TIMESTAMPTZ NOT NULL,
  memo        TEXT NOT NULL,
  currency    TEXT NOT NULL,
  sync_seq    BIGINT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX journal_transactions_seq ON journal_transactions (merchant_id, sync_seq);
CREATE INDEX journal_transactions_source ON journal_transactions (merchant_id, source_id);

CREATE TABLE postings (
  id                     TEXT PRIMARY KEY,
  journal_transaction_id TEXT NOT NULL REFERENCES journal_transactions (id),
  line_no                INTEGER NOT NULL,
  account_id             TEXT NOT NULL REFERENCES accounts (id),
  amount_cents           BIGINT NOT NULL CHECK (amount_cents <> 0),
  UNIQUE (journal_transaction_id, line_no)
);
CREATE INDEX postings_account ON postings (account_id);

-- Checked at commit: every journal transaction touched has at least two postings that sum to zero.
CREATE FUNCTION check_journal_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  jt_id TEXT;
  total NUMERIC;
  n INTEGER;
BEGIN
  IF TG_TABLE_NAME = 'postings' THEN jt_id := NEW.journal_transaction_id; ELSE jt_id := NEW.id; END IF;
  SELECT COALESCE(SUM(amount_cents), 0), COUNT(*) INTO total, n FROM postings WHERE journal_transaction_id = jt_id;
  IF n < 2 OR total <> 0 THEN
    RAISE EXCEPTION 'journal transaction % is not balanced (% postings summing to %)', jt_id, n, total
      USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER postings_balanced AFTER INSERT ON postings
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION check_journal_balanced();
CREATE CONSTRAINT TRIGGER journal_transactions_balanced AFTER INSERT ON journal_transactions
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION check_journal_balanced();

-- Ledger rows are immutable: corrections are reversing transactions.
CREATE FUNCTION reject_ledger_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = '55000';
END $$;

CREATE TRIGGER journal_transactions_immutable BEFORE UPDATE OR DELETE ON journal_transactions
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER journal_transactions_no_truncate BEFORE TRUNCATE ON journal_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER postings_immutable BEFORE UPDATE OR DELETE ON postings
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER postings_no_truncate BEFORE TRUNCATE ON postings
  FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();

/* ───────────── audit: hash-chained per merchant ───────────── */

CREATE TABLE audit_log (
  seq         BIGSERIAL PRIMARY KEY,
  merchant_id TEXT NOT NULL,
  occurred_at TIMESTAMPTZ NOT NULL,
  actor       TEXT NOT NULL,
  register_id TEXT,
  app_id      TEXT,
  action      TEXT NOT NULL,
  entity_type TEXT NOT NULL,
  entity_id   TEXT NOT NULL,
  data        JSONB NOT NULL,
  prev_hash   TEXT NOT NULL,
  hash        TEXT NOT NULL
);
CREATE INDEX audit_log_merchant ON audit_log (merchant_id, seq);

/* ───────────── replication quarantine ───────────── */

CREATE TABLE quarantine (
  id          TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  collection  TEXT NOT NULL,
  doc_id      TEXT NOT NULL,
  data        JSONB NOT NULL,
  data_hash   TEXT NOT NULL,
  reason      TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (merchant_id, collection, doc_id, data_hash)
);

/* ───────────── Text-to-Pay ───────────── */

CREATE TABLE pay_requests (
  id           TEXT PRIMARY KEY,
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  status       TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'expired', 'canceled')),
  amount_cents BIGINT NOT NULL CHECK (amount_cents BETWEEN 1 AND 99999999),
  currency     TEXT NOT NULL,
  phone        TEXT NOT NULL,
  memo         TEXT,
  line_items   JSONB,
  url          TEXT NOT NULL,
  created_by   TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  expires_at   TIMESTAMPTZ NOT NULL,
  paid_at      TIMESTAMPTZ
);
CREATE INDEX pay_requests_newest ON pay_requests (merchant_id, created_at DESC, id DESC);

CREATE TABLE sms_outbox (
  id          TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  to_phone    TEXT NOT NULL,
  body        TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL,
  status      TEXT NOT NULL DEFAULT 'queued'
);
CREATE INDEX sms_outbox_newest ON sms_outbox (merchant_id, created_at DESC, id DESC);

/* ───────────── idempotency ───────────── */

CREATE TABLE idempotency_keys (
  merchant_id     TEXT NOT NULL,
  caller          TEXT NOT NULL,
  key             TEXT NOT NULL,
  request_hash    TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
  response_status INTEGER,
  response_body   JSONB,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, caller, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
