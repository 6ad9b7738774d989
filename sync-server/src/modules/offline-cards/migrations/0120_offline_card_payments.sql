-- Main owner: the offline-cards module; also widens the kernel's event_outbox types.
-- Offline card payments, store and forward (docs/decisions/0021-offline-card-payments-store-and-forward.md). A register sale
-- whose card tender the terminal approved offline arrives with the terminal's store-and-forward token; the server
-- records it here once (the tender id is the key, so a re-push never records it twice) and forwards the token to the
-- processor exactly once (forward_attempts can never exceed 1). A forward declined leaves the customer a balance due.
CREATE TABLE offline_card_payments (
  id                     TEXT PRIMARY KEY,                 -- the tender id of the register sale (tnd_<ULID>)
  merchant_id            TEXT NOT NULL REFERENCES merchants (id),
  order_id               TEXT NOT NULL REFERENCES orders (id),
  register_id            TEXT NOT NULL,
  receipt_number         TEXT NOT NULL,
  currency               TEXT NOT NULL,
  amount_cents           BIGINT NOT NULL CHECK (amount_cents > 0),
  token                  TEXT NOT NULL,                    -- the terminal's store-and-forward token, never a card number
  card_brand             TEXT,
  last4                  TEXT CHECK (last4 IS NULL OR last4 ~ '^[0-9]{4}$'),
  approved_at            TIMESTAMPTZ NOT NULL,
  state                  TEXT NOT NULL CHECK (state IN ('pending_forward', 'captured', 'declined')),
  forward_attempts       INTEGER NOT NULL DEFAULT 0 CHECK (forward_attempts BETWEEN 0 AND 1),
  forwarded_at           TIMESTAMPTZ,
  decline_code           TEXT,
  processor_reference    TEXT,
  journal_transaction_id TEXT,
  created_at             TIMESTAMPTZ NOT NULL
);
CREATE INDEX offline_card_payments_merchant ON offline_card_payments (merchant_id, state, approved_at DESC, id DESC);

-- The store's offline card limits (GET/PATCH /api/pos/offline-cards/limits): per payment, outstanding per register,
-- and the forward window. No row: the defaults, 100.00, 1,000.00 and 24 hours (core DEFAULT_OFFLINE_CARD_LIMITS).
CREATE TABLE offline_card_limits (
  merchant_id           TEXT PRIMARY KEY REFERENCES merchants (id),
  max_payment_cents     BIGINT NOT NULL CHECK (max_payment_cents BETWEEN 0 AND 99999999),
  max_outstanding_cents BIGINT NOT NULL CHECK (max_outstanding_cents BETWEEN 0 AND 99999999),
  forward_within_hours  INTEGER NOT NULL CHECK (forward_within_hours BETWEEN 1 AND 168),
  updated_at            TIMESTAMPTZ NOT NULL
);

-- The forward's outcome is an event (core EVENT_TYPES): payment.forwarded, payment.forward_declined.
ALTER TABLE event_outbox DROP CONSTRAINT event_outbox_type_check;
ALTER TABLE event_outbox ADD CONSTRAINT event_outbox_type_check
  CHECK (type IN ('order.created', 'order.paid', 'payment.refunded', 'catalog.updated', 'payment.forwarded', 'payment.forward_declined'));
