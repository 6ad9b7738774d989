-- E-mail delivery over SMTP (docs/decisions/0090-email-over-smtp.md): the worker of platform/messaging/smtp.ts drains
-- email_outbox. States: queued → sending → sent; a temporary failure goes back to queued with a later next_attempt_at;
-- bounced (the recipient was refused for good), suppressed (an address that bounced before: never sent), failed
-- (attempts spent, or the message itself refused).
ALTER TABLE email_outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'notice' CHECK (kind IN ('receipt', 'invoice', 'notice'));
ALTER TABLE email_outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0);
ALTER TABLE email_outbox ADD COLUMN next_attempt_at TIMESTAMPTZ;          -- NULL: due at once
ALTER TABLE email_outbox ADD COLUMN locked_until TIMESTAMPTZ;             -- lease of the worker sending it
ALTER TABLE email_outbox ADD COLUMN last_error TEXT;
ALTER TABLE email_outbox ADD COLUMN sent_at TIMESTAMPTZ;
ALTER TABLE email_outbox ADD COLUMN message_id TEXT;                      -- the Message-ID header sent, <…@…>
ALTER TABLE email_outbox ADD COLUMN attachment_kind TEXT;                 -- e.g. invoice_pdf, rendered at send time
ALTER TABLE email_outbox ADD COLUMN attachment_ref TEXT;                  -- e.g. the invoice id
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_status CHECK (status IN ('queued', 'sending', 'sent', 'bounced', 'suppressed', 'failed'));
CREATE INDEX email_outbox_due ON email_outbox (next_attempt_at, id) WHERE status IN ('queued', 'sending');

-- Addresses a store's mail was refused for with a permanent (5xx) answer: later messages to them are not sent.
CREATE TABLE email_suppressions (
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  address     TEXT NOT NULL,                    -- lower case
  reason      TEXT NOT NULL,                    -- the SMTP answer
  email_id    TEXT NOT NULL,                    -- the message that bounced
  created_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (merchant_id, address)
);

-- The store's own address for answers (Reply-To of its e-mails); optional.
ALTER TABLE merchants ADD COLUMN email_reply_to TEXT;
