-- Platform folder: creates the tables of three modules (check-cashing, transfers, bill-payments).
-- Financial services: check cashing, money transfers, bill payments. Each row is written by
-- its module (modules/check-cashing, modules/transfers, modules/bill-payments). No full bank account number is
-- stored: the account is masked (last four) and a check's identity is kept as a SHA-256 of its MICR fields.

CREATE TABLE check_cashings (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  -- SHA-256 hex of core micrKey(routing|account|serial): the duplicate guard (one check is cashed once).
  micr_hash TEXT NOT NULL,
  routing_number TEXT NOT NULL,
  account_masked TEXT NOT NULL,
  check_number TEXT,
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  fee_cents BIGINT NOT NULL CHECK (fee_cents >= 0),
  payout_cents BIGINT NOT NULL CHECK (payout_cents >= 0),
  currency TEXT NOT NULL,
  customer_name TEXT NOT NULL,
  -- SHA-256 hex of the customer's document (jurisdiction + number): the per-customer daily limit's key.
  customer_ref TEXT NOT NULL,
  id_verification_id TEXT,
  screening_id TEXT,
  has_image BOOLEAN NOT NULL DEFAULT false,
  status TEXT NOT NULL CHECK (status IN ('held', 'paid', 'refused')),
  cash_account TEXT NOT NULL,
  journal_transaction_id TEXT,
  register_id TEXT,
  created_by TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  completed_at TIMESTAMPTZ,
  UNIQUE (merchant_id, micr_hash)
);
CREATE INDEX check_cashings_customer ON check_cashings (merchant_id, customer_ref, created_at);
CREATE INDEX check_cashings_list ON check_cashings (merchant_id, created_at DESC, id DESC);

CREATE TABLE money_transfers (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  sender_name TEXT NOT NULL,
  sender_ref TEXT NOT NULL,
  receiver_name TEXT NOT NULL,
  country TEXT NOT NULL,
  payout_method TEXT NOT NULL,
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  fee_cents BIGINT NOT NULL CHECK (fee_cents >= 0),
  currency TEXT NOT NULL,
  rate TEXT NOT NULL,
  receive_amount_minor BIGINT NOT NULL,
  receive_currency TEXT NOT NULL,
  available_on TEXT NOT NULL,
  partner TEXT NOT NULL,
  partner_reference TEXT,
  status TEXT NOT NULL CHECK (status IN ('held', 'submitted', 'sent', 'available', 'paid', 'canceled', 'refunded', 'refused')),
  id_verification_id TEXT,
  sender_screening_id TEXT,
  receiver_screening_id TEXT,
  cash_account TEXT NOT NULL,
  journal_transaction_id TEXT,
  reversal_journal_transaction_id TEXT,
  paid_at TIMESTAMPTZ,
  cancel_until TIMESTAMPTZ,
  register_id TEXT,
  created_by TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX money_transfers_sender ON money_transfers (merchant_id, sender_ref, created_at);
CREATE INDEX money_transfers_list ON money_transfers (merchant_id, created_at DESC, id DESC);

-- Every status a transfer went through (append-only).
CREATE TABLE money_transfer_events (
  id TEXT PRIMARY KEY,
  -- Insertion order: several steps of one transfer can share a millisecond (ids are not monotonic).
  seq BIGSERIAL NOT NULL,
  transfer_id TEXT NOT NULL REFERENCES money_transfers (id),
  status TEXT NOT NULL,
  note TEXT,
  occurred_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX money_transfer_events_transfer ON money_transfer_events (transfer_id, occurred_at);
CREATE TRIGGER money_transfer_events_immutable BEFORE UPDATE OR DELETE ON money_transfer_events
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();

CREATE TABLE bill_payments (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  biller_id TEXT NOT NULL,
  biller_name TEXT NOT NULL,
  account_masked TEXT NOT NULL,
  customer_name TEXT NOT NULL,
  customer_ref TEXT NOT NULL,
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  fee_cents BIGINT NOT NULL CHECK (fee_cents >= 0),
  currency TEXT NOT NULL,
  partner TEXT NOT NULL,
  confirmation_number TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('accepted', 'posted', 'rejected')),
  reject_reason TEXT,
  cash_account TEXT NOT NULL,
  journal_transaction_id TEXT NOT NULL,
  reversal_journal_transaction_id TEXT,
  register_id TEXT,
  created_by TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX bill_payments_customer ON bill_payments (merchant_id, customer_ref, created_at);
CREATE INDEX bill_payments_list ON bill_payments (merchant_id, created_at DESC, id DESC);
