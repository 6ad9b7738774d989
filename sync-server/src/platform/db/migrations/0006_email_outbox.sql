-- Outbound e-mail (receipts, invoices): queued in the caller's transaction like sms_outbox; no mail server here, a
-- real provider adapter would drain it. The back office shows it.
CREATE TABLE email_outbox (
  id          TEXT PRIMARY KEY,                 -- eml_<ULID>
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  to_address  TEXT NOT NULL,
  subject     TEXT NOT NULL,
  body        TEXT NOT NULL,                    -- plain text
  created_at  TIMESTAMPTZ NOT NULL,
  status      TEXT NOT NULL DEFAULT 'queued'
);
CREATE INDEX email_outbox_merchant ON email_outbox (merchant_id, created_at DESC, id DESC);
