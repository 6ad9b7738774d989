-- Bounces and complaints that arrive later by mail (docs/decisions/0096-bounces-and-complaints-by-mail.md): a message a
-- delivery status notification reports failed for good stays `bounced`; one a feedback loop reports as abuse becomes
-- `complained`. Both suppress the address for the store (email_suppressions.reason names the bounce or complaint).
ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_status;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_status
  CHECK (status IN ('queued', 'sending', 'sent', 'bounced', 'complained', 'suppressed', 'failed'));
