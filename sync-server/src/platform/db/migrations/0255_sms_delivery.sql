-- Platform folder: the SMS outbox (0001) gets its delivery through a carrier's HTTP API and its opt-outs
-- (docs/decisions/0091-sms-through-a-provider-api.md). Status: queued → sending → sent → delivered, or failed (with
-- the carrier's code), or opted_out (never sent). A row is claimed with FOR UPDATE SKIP LOCKED and a lease.
ALTER TABLE sms_outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sms_outbox ADD COLUMN next_attempt_at TIMESTAMPTZ;
ALTER TABLE sms_outbox ADD COLUMN locked_until TIMESTAMPTZ;
ALTER TABLE sms_outbox ADD COLUMN provider_message_id TEXT;
ALTER TABLE sms_outbox ADD COLUMN provider_code TEXT;
ALTER TABLE sms_outbox ADD COLUMN last_error TEXT;
ALTER TABLE sms_outbox ADD COLUMN updated_at TIMESTAMPTZ;
CREATE INDEX sms_outbox_due ON sms_outbox (next_attempt_at, id) WHERE status IN ('queued', 'sending');
CREATE INDEX sms_outbox_provider_message ON sms_outbox (provider_message_id) WHERE provider_message_id IS NOT NULL;
-- The inbound reply's store: the newest message sent to that phone.
CREATE INDEX sms_outbox_to_phone ON sms_outbox (to_phone, created_at DESC);

-- A phone that answered STOP (or STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT) to a store's text; START, UNSTOP or YES
-- removes the row. No SMS of that store is sent to it while the row exists.
CREATE TABLE sms_opt_outs (
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  phone        TEXT NOT NULL,
  keyword      TEXT NOT NULL,
  opted_out_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, phone)
);
