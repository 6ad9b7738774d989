-- What each message is about (docs/decisions/0095-messages-view-and-demo-outbox.md): `invoice:<id>`, `order:<id>` (a
-- receipt), `pay_request:<id>`, NULL for notices. Written by the sender in the same transaction as the message, so the
-- invoice, the order and the pay request can show the state of the latest message sent for them.
ALTER TABLE email_outbox ADD COLUMN subject_ref TEXT;
ALTER TABLE sms_outbox ADD COLUMN subject_ref TEXT;
CREATE INDEX email_outbox_subject ON email_outbox (merchant_id, subject_ref, created_at DESC) WHERE subject_ref IS NOT NULL;
CREATE INDEX sms_outbox_subject ON sms_outbox (merchant_id, subject_ref, created_at DESC) WHERE subject_ref IS NOT NULL;
