-- Main owner: the invoices module; also adds the invoice columns of the pay-links module's pay_requests.
-- Invoices, recurring invoice series, invoice payments, and the rest of the Text-to-Pay life cycle.
-- Money is integer minor units. States: see core/invoices.ts. Calendar dates are TEXT 'YYYY-MM-DD' (UTC days): they
-- compare correctly as text and come back from both drivers unchanged (a DATE would be turned into a local Date).

/* ───────────── recurring series (RFC 5545 RRULE) ───────────── */

CREATE TABLE invoice_series (
  id              TEXT PRIMARY KEY,                    -- isr_<ULID>
  merchant_id     TEXT NOT NULL REFERENCES merchants (id),
  status          TEXT NOT NULL CHECK (status IN ('active', 'paused', 'ended')),
  customer_id     TEXT NOT NULL,
  rrule           TEXT NOT NULL,                       -- RRULE without DTSTART; occurrences are UTC days from start_date
  start_date      TEXT NOT NULL CHECK (start_date ~ '^\d{4}-\d{2}-\d{2}$'),
  days_until_due  INTEGER NOT NULL CHECK (days_until_due BETWEEN 0 AND 365),
  auto_send       BOOLEAN NOT NULL,
  channels        TEXT[],
  memo            TEXT,
  line_items      JSONB NOT NULL,                      -- catalog references (priced at each occurrence)
  custom_lines    JSONB NOT NULL,
  -- Occurrences before this date have been dealt with (generated, or skipped while paused).
  cursor_date     TEXT NOT NULL CHECK (cursor_date ~ '^\d{4}-\d{2}-\d{2}$'),
  created_by      TEXT NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL,
  updated_at      TIMESTAMPTZ NOT NULL,
  ended_at        TIMESTAMPTZ
);
CREATE INDEX invoice_series_newest ON invoice_series (merchant_id, created_at DESC, id DESC);
CREATE INDEX invoice_series_active ON invoice_series (status) WHERE status = 'active';

/* ───────────── invoices ───────────── */

CREATE TABLE invoices (
  id                   TEXT PRIMARY KEY,               -- inv_<ULID>
  merchant_id          TEXT NOT NULL REFERENCES merchants (id),
  number_seq           INTEGER NOT NULL,                -- INV-000042
  status               TEXT NOT NULL CHECK (status IN ('draft', 'sent', 'partially_paid', 'overdue', 'paid', 'void')),
  customer_id          TEXT NOT NULL,
  bill_to              JSONB NOT NULL,
  currency             TEXT NOT NULL,
  lines                JSONB NOT NULL,
  tax_lines            JSONB NOT NULL,
  subtotal_cents       BIGINT NOT NULL CHECK (subtotal_cents >= 0),
  tax_cents            BIGINT NOT NULL CHECK (tax_cents >= 0),
  total_cents          BIGINT NOT NULL CHECK (total_cents BETWEEN 1 AND 99999999),
  paid_cents           BIGINT NOT NULL DEFAULT 0 CHECK (paid_cents >= 0 AND paid_cents <= total_cents),
  due_date             TEXT NOT NULL CHECK (due_date ~ '^\d{4}-\d{2}-\d{2}$'),
  memo                 TEXT,
  series_id            TEXT REFERENCES invoice_series (id),
  occurrence_date      TEXT CHECK (occurrence_date ~ '^\d{4}-\d{2}-\d{2}$'),
  channels             TEXT[],                          -- the channels of the last send
  issue_jtx_id         TEXT,
  sent_at              TIMESTAMPTZ,
  paid_at              TIMESTAMPTZ,
  voided_at            TIMESTAMPTZ,
  void_reason          TEXT,
  created_by           TEXT NOT NULL,
  created_at           TIMESTAMPTZ NOT NULL,
  updated_at           TIMESTAMPTZ NOT NULL,
  UNIQUE (merchant_id, number_seq)
);
-- A series makes at most one invoice per occurrence date, whatever restarts or concurrent schedulers do.
CREATE UNIQUE INDEX invoices_series_occurrence ON invoices (series_id, occurrence_date) WHERE series_id IS NOT NULL;
CREATE INDEX invoices_newest ON invoices (merchant_id, created_at DESC, id DESC);
CREATE INDEX invoices_due ON invoices (status, due_date) WHERE status = 'sent';

CREATE TABLE invoice_payments (
  id              TEXT PRIMARY KEY,                     -- ipm_<ULID>
  merchant_id     TEXT NOT NULL REFERENCES merchants (id),
  invoice_id      TEXT NOT NULL REFERENCES invoices (id),
  amount_cents    BIGINT NOT NULL CHECK (amount_cents BETWEEN 1 AND 99999999),
  method          TEXT NOT NULL,
  rail            TEXT NOT NULL,
  channel         TEXT NOT NULL CHECK (channel IN ('api', 'pay_page')),
  account_code    TEXT NOT NULL,
  card_brand      TEXT,
  last4           TEXT,
  reference       TEXT,
  pay_request_id  TEXT,
  register_id     TEXT,
  jtx_id          TEXT NOT NULL,
  created_by      TEXT NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX invoice_payments_invoice ON invoice_payments (invoice_id, created_at, id);

/* ───────────── Text-to-Pay: links, cancellation, the payment ───────────── */

ALTER TABLE pay_requests ALTER COLUMN phone DROP NOT NULL;       -- an invoice's link may go by e-mail only
ALTER TABLE pay_requests ADD COLUMN invoice_id TEXT REFERENCES invoices (id);
ALTER TABLE pay_requests ADD COLUMN canceled_at TIMESTAMPTZ;
ALTER TABLE pay_requests ADD COLUMN cancel_reason TEXT;
ALTER TABLE pay_requests ADD COLUMN superseded_by TEXT;
ALTER TABLE pay_requests ADD COLUMN payment JSONB;               -- { method, rail, brand, last4, processorReference, journalTransactionId }
CREATE INDEX pay_requests_invoice ON pay_requests (invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX pay_requests_pending_expiry ON pay_requests (expires_at) WHERE status = 'pending';
