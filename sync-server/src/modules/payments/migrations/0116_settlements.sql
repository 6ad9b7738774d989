-- Settlement of delayed rails (modules/payments/settlements.ts): a bank payment captured on the pay page is
-- `pending` until its rail's settlement time has passed, then `settled` — or `returned` by the bank, with the reversal
-- of its journal transaction posted. The housekeeping tick runs them on the sandbox adapter's schedule.
CREATE TABLE settlements (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  source_type TEXT NOT NULL,
  source_id TEXT NOT NULL,
  rail TEXT NOT NULL,
  amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
  account_code TEXT NOT NULL,
  -- The bank account's last four digits (the sandbox decides returns by them; never a full account number).
  last4 TEXT,
  journal_transaction_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'settled', 'returned')),
  settles_at TIMESTAMPTZ NOT NULL,
  settled_at TIMESTAMPTZ,
  return_code TEXT,
  reversal_journal_transaction_id TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  UNIQUE (merchant_id, source_type, source_id)
);
CREATE INDEX settlements_due ON settlements (status, settles_at);
CREATE INDEX settlements_merchant_created ON settlements (merchant_id, created_at DESC, id DESC);
