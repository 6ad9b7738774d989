-- Platform folder: touches sms_outbox (modules/sms) and merchants (modules/merchants)
-- (docs/decisions/0092-vonage-and-quiet-hours.md).
-- What a text is: receipt and pay_request (asked for at the counter: sent at once), invoice and invoice_reminder (can
-- wait: held through the store's quiet hours), keyword_reply (the answer to STOP / START / HELP: sent even to a phone
-- that just opted out, never held). Rows written before this migration were all asked for at the counter or invoices;
-- they keep going at once.
ALTER TABLE sms_outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'pay_request'
  CHECK (kind IN ('receipt', 'pay_request', 'invoice', 'invoice_reminder', 'keyword_reply'));

-- The store's quiet hours for texts that can wait: local times of day HH:MM in merchants.time_zone, both set or both
-- NULL (none). The window contains its start and excludes its end; a start after the end crosses midnight.
ALTER TABLE merchants ADD COLUMN sms_quiet_start TEXT;
ALTER TABLE merchants ADD COLUMN sms_quiet_end TEXT;
ALTER TABLE merchants ADD CONSTRAINT merchants_sms_quiet_hours
  CHECK ((sms_quiet_start IS NULL) = (sms_quiet_end IS NULL));
