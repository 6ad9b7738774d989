-- Payment rails (core/rails.ts): a merchant's own settings of a rail. A rail with no row here runs on
-- core's DEFAULT_RAILS; `config` is a core RailConfig (validated by the API before it is stored).
CREATE TABLE merchant_rails (
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  rail TEXT NOT NULL CHECK (rail IN ('card_present', 'card_not_present', 'apple_pay', 'google_pay', 'ach', 'instant_bank', 'cash', 'check')),
  config JSONB NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, rail)
);

-- Payouts of the settled card clearing balance to the store's bank (POST /api/pos/payouts). Refused in the demo store
-- (403 money_movement_disabled): no row is ever written for it.
CREATE TABLE payouts (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  currency TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('paid')),
  processor TEXT NOT NULL,
  journal_transaction_id TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX payouts_merchant_created ON payouts (merchant_id, created_at DESC, id DESC);
