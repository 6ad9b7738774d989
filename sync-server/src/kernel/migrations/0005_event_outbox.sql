-- Transactional outbox of webhook events: a row is written in the same database transaction as the change
-- it announces, so no event is lost and none is sent for a rolled-back change. Delivery (subscriptions, attempts,
-- retries) reads from here.
CREATE TABLE event_outbox (
  id          TEXT PRIMARY KEY,                 -- evt_<ULID>
  seq         BIGSERIAL UNIQUE,                 -- commit order per instance, for fan-out to subscriptions
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  type        TEXT NOT NULL CHECK (type IN ('order.created', 'order.paid', 'payment.refunded', 'catalog.updated')),
  payload     JSONB NOT NULL,                   -- the whole event exactly as delivered
  created_at  TIMESTAMPTZ NOT NULL,
  dispatched_at TIMESTAMPTZ                     -- set once delivery rows exist for every subscription
);
CREATE INDEX event_outbox_undispatched ON event_outbox (seq) WHERE dispatched_at IS NULL;
CREATE INDEX event_outbox_merchant ON event_outbox (merchant_id, created_at DESC);
