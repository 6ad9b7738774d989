-- Webhook subscriptions and deliveries (docs/api.md "Webhooks"). The worker fans each `event_outbox` row out to one
-- delivery per matching subscription, then POSTs it: first attempt at once, 3 retries with exponential backoff, then
-- `failed`. Rows are claimed with FOR UPDATE SKIP LOCKED plus a lease (`locked_until`), so several instances share
-- the work and no HTTP call runs inside a database transaction.

CREATE TABLE webhook_subscriptions (
  id          TEXT PRIMARY KEY,                 -- whs_<ULID>
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  app_id      TEXT,                             -- the app that owns it; NULL when staff created it
  url         TEXT NOT NULL,
  event_types TEXT[] NOT NULL,
  secret      TEXT NOT NULL,                    -- keys the HMAC-SHA256 signature; kept in clear (it signs)
  description TEXT,
  enabled     BOOLEAN NOT NULL DEFAULT true,
  created_by  TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL,
  deleted_at  TIMESTAMPTZ
);
CREATE INDEX webhook_subscriptions_merchant ON webhook_subscriptions (merchant_id, created_at DESC, id DESC);

CREATE TABLE webhook_deliveries (
  id               TEXT PRIMARY KEY,            -- whd_<ULID>
  merchant_id      TEXT NOT NULL REFERENCES merchants (id),
  subscription_id  TEXT NOT NULL REFERENCES webhook_subscriptions (id),
  event_id         TEXT NOT NULL REFERENCES event_outbox (id),
  event_type       TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TIMESTAMPTZ,
  locked_until     TIMESTAMPTZ,
  last_status_code INTEGER,
  last_error       TEXT,
  redelivery_of    TEXT REFERENCES webhook_deliveries (id),
  created_at       TIMESTAMPTZ NOT NULL,
  updated_at       TIMESTAMPTZ NOT NULL
);
-- One automatic delivery per (subscription, event); manual redeliveries are extra rows.
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (subscription_id, event_id) WHERE redelivery_of IS NULL;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (subscription_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  delivery_id  TEXT NOT NULL REFERENCES webhook_deliveries (id),
  attempt      INTEGER NOT NULL,
  started_at   TIMESTAMPTZ NOT NULL,
  duration_ms  INTEGER NOT NULL,
  status_code  INTEGER,
  error        TEXT,
  PRIMARY KEY (delivery_id, attempt)
);
