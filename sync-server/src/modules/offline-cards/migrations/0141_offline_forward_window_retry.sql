-- Offline card payments (docs/decisions/0021-offline-card-payments-store-and-forward.md):
-- * the forward window (offline_card_limits.forward_within_hours, default 24) is enforced: a payment still
--   `pending_forward` when its window has passed is never sent to the processor; it becomes `expired` (the customer's
--   balance due, like a decline, code `forward_window_expired`);
-- * a forward released for a transient reason (processor unreachable) is retried by the housekeeping tick with
--   exponential backoff (`next_forward_at`, `forward_failures`, the last error kept), and claimed once as before.
ALTER TABLE offline_card_payments DROP CONSTRAINT offline_card_payments_state_check;
ALTER TABLE offline_card_payments ADD CONSTRAINT offline_card_payments_state_check CHECK (state IN ('pending_forward', 'captured', 'declined', 'expired'));
ALTER TABLE offline_card_payments ADD COLUMN forward_failures INTEGER NOT NULL DEFAULT 0 CHECK (forward_failures >= 0);
ALTER TABLE offline_card_payments ADD COLUMN next_forward_at TIMESTAMPTZ;
ALTER TABLE offline_card_payments ADD COLUMN last_forward_error TEXT;
CREATE INDEX offline_card_payments_pending ON offline_card_payments (next_forward_at, approved_at) WHERE state = 'pending_forward';
