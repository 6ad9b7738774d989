-- Message templates per store and language (docs/decisions/0094-message-templates-per-store-and-language.md).
-- The store's language: its e-mails and texts to customers are written in it (built-in defaults in core/message-templates.ts).
ALTER TABLE merchants ADD COLUMN language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'fr'));

-- A store's own template for one kind of message in one language; without a row the built-in default is sent.
-- subject is NULL for SMS kinds. Checked before saving (core templateProblems), never when sending.
CREATE TABLE message_templates (
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  kind        TEXT NOT NULL,
  language    TEXT NOT NULL CHECK (language IN ('en', 'es', 'fr')),
  subject     TEXT,
  body        TEXT NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL,
  updated_by  TEXT NOT NULL,
  PRIMARY KEY (merchant_id, kind, language)
);
