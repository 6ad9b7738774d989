-- Main owner: the orders module; also adds the back-office register kind to the merchants module's registers.
-- Orders through the staff API: payments and refunds as their own append-mostly records linked to the
-- order (a paid order is never edited; refunds are new rows). Register-pushed orders keep their tenders inside the
-- order document; their payments appear here the first time one of them is refunded.

-- API orders belong to a per-merchant "back office" register (its own receipt sequence and cash drawer), so they
-- never take a receipt number a real register could hand out offline.
ALTER TABLE registers ADD COLUMN kind TEXT NOT NULL DEFAULT 'terminal' CHECK (kind IN ('terminal', 'back_office'));
CREATE UNIQUE INDEX registers_one_back_office ON registers (merchant_id) WHERE kind = 'back_office';

ALTER TABLE orders ADD COLUMN source TEXT NOT NULL DEFAULT 'register' CHECK (source IN ('register', 'api'));
ALTER TABLE orders ADD COLUMN refunded_cents BIGINT NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0);
CREATE INDEX orders_customer ON orders (merchant_id, (data->>'customerId'), created_at DESC, id DESC);
CREATE INDEX orders_state ON orders (merchant_id, state, created_at DESC, id DESC);

CREATE TABLE order_payments (
  id                     TEXT PRIMARY KEY,                 -- pmt_<ULID>; for a register tender pmt_<tender ULID>
  merchant_id            TEXT NOT NULL REFERENCES merchants (id),
  order_id               TEXT NOT NULL REFERENCES orders (id),
  line_no                INTEGER NOT NULL,                 -- order of payment within the order
  method                 TEXT NOT NULL CHECK (method IN ('cash', 'card', 'check', 'other')),
  rail                   TEXT NOT NULL,
  state                  TEXT NOT NULL CHECK (state IN ('pending', 'authorized', 'captured', 'declined', 'voided', 'partially_refunded', 'refunded')),
  amount_cents           BIGINT NOT NULL CHECK (amount_cents >= 0),
  tip_cents              BIGINT NOT NULL CHECK (tip_cents >= 0 AND tip_cents <= amount_cents),
  tendered_cents         BIGINT,
  change_cents           BIGINT,
  refunded_cents         BIGINT NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0 AND refunded_cents <= amount_cents),
  card_brand             TEXT,
  last4                  TEXT,
  auth_code              TEXT,
  reference              TEXT,
  account_code           TEXT NOT NULL,
  journal_transaction_id TEXT,
  created_by             TEXT NOT NULL,
  created_at             TIMESTAMPTZ NOT NULL,
  authorized_at          TIMESTAMPTZ,
  captured_at            TIMESTAMPTZ,
  updated_at             TIMESTAMPTZ NOT NULL,
  UNIQUE (order_id, line_no)
);
CREATE INDEX order_payments_merchant ON order_payments (merchant_id, created_at DESC, id DESC);

CREATE TABLE order_refunds (
  id                     TEXT PRIMARY KEY,                 -- rfd_<ULID>
  merchant_id            TEXT NOT NULL REFERENCES merchants (id),
  order_id               TEXT NOT NULL REFERENCES orders (id),
  kind                   TEXT NOT NULL CHECK (kind IN ('refund', 'cancellation')),
  amount_cents           BIGINT NOT NULL CHECK (amount_cents > 0),
  goods_cents            BIGINT NOT NULL CHECK (goods_cents >= 0),
  tax_cents              BIGINT NOT NULL CHECK (tax_cents >= 0),
  tip_cents              BIGINT NOT NULL CHECK (tip_cents >= 0),
  lines                  JSONB NOT NULL,                   -- [{ lineId, quantity, amountCents, taxCents }]
  allocations            JSONB NOT NULL,                   -- [{ paymentId, amountCents, accountCode }]
  restock                BOOLEAN NOT NULL,
  reason                 TEXT,
  journal_transaction_id TEXT NOT NULL REFERENCES journal_transactions (id),
  created_by             TEXT NOT NULL,
  created_at             TIMESTAMPTZ NOT NULL
);
CREATE INDEX order_refunds_order ON order_refunds (order_id, created_at, id);
CREATE INDEX order_refunds_merchant ON order_refunds (merchant_id, created_at DESC, id DESC);

-- Refund records are immutable, like the ledger they post to.
CREATE TRIGGER order_refunds_immutable BEFORE UPDATE OR DELETE ON order_refunds
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
