-- Idempotency keys gain the state `committed`: a request's transaction committed (marked inside that transaction)
-- but its answer is not stored yet. A retry of such a key is refused instead of carrying the work out twice.
ALTER TABLE idempotency_keys DROP CONSTRAINT IF EXISTS idempotency_keys_state_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_flight', 'committed', 'completed'));
