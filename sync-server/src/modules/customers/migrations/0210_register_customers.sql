-- Customers at the register: the store's customers replicate to its registers (pulled by sync sequence,
-- like the catalog), and a customer created at a register (offline too) is pushed. A pushed customer whose E.164
-- phone or normalised e-mail another customer already has is merged into that one: the existing customer survives and
-- the register's id becomes an alias of it (docs/decisions/0016-customers-created-at-the-register.md).

-- Every insert and update of a customer takes the next sync sequence (registers pull by it).
ALTER TABLE customers ADD COLUMN sync_seq BIGINT;
UPDATE customers SET sync_seq = nextval('sync_seq');
ALTER TABLE customers ALTER COLUMN sync_seq SET NOT NULL;
ALTER TABLE customers ALTER COLUMN sync_seq SET DEFAULT nextval('sync_seq');
-- The register that created the customer (null: the back office or the API).
ALTER TABLE customers ADD COLUMN register_id TEXT;
CREATE INDEX customers_seq ON customers (merchant_id, sync_seq);

-- A register's id for a customer that was merged into an existing one: offline id → surviving id. One writer: the
-- customers module. Append-only: an alias is history (orders and receipts named the offline id).
CREATE TABLE customer_aliases (
  alias_id     TEXT PRIMARY KEY,                      -- cus_<ULID> the register made
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  customer_id  TEXT NOT NULL REFERENCES customers (id), -- the surviving customer
  matched_on   TEXT NOT NULL CHECK (matched_on IN ('phone', 'email')),
  register_id  TEXT,
  created_at   TIMESTAMPTZ NOT NULL,
  sync_seq     BIGINT NOT NULL DEFAULT nextval('sync_seq')
);
CREATE INDEX customer_aliases_seq ON customer_aliases (merchant_id, sync_seq);
CREATE INDEX customer_aliases_customer ON customer_aliases (merchant_id, customer_id);

CREATE TRIGGER customer_aliases_immutable BEFORE UPDATE OR DELETE ON customer_aliases
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER customer_aliases_no_truncate BEFORE TRUNCATE ON customer_aliases
  FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();
