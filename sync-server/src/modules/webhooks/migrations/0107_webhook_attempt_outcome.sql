-- Every webhook attempt is recorded before it is sent (outcome 'unknown', no duration yet) and completed after: a
-- worker that dies between sending and recording leaves an attempt whose outcome is unknown, never none, and the
-- retry counts as the next attempt.
ALTER TABLE webhook_attempts ADD COLUMN outcome TEXT NOT NULL DEFAULT 'unknown' CHECK (outcome IN ('unknown', 'succeeded', 'failed'));
UPDATE webhook_attempts SET outcome = CASE WHEN error IS NULL THEN 'succeeded' ELSE 'failed' END;
ALTER TABLE webhook_attempts ALTER COLUMN duration_ms DROP NOT NULL;
