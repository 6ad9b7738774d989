-- Platform folder: the deployment's own credentials (the mail server's SMTP_URL, the DKIM key, the SMS provider's
-- tokens), kept only sealed with the key-encryption key (platform/secrets.ts; AAD `deployment_secrets:<name>`), and
-- their trail (docs/decisions/0093-deployment-secrets-sealed.md). Written by platform/deployment-secrets.ts only, from
-- `npm run platform-admin -- secrets …`; the server opens them at start. No merchant: not in audit_log's chains.
CREATE TABLE deployment_secrets (
  name          TEXT PRIMARY KEY,
  value_sealed  TEXT NOT NULL,
  updated_at    TIMESTAMPTZ NOT NULL
);

-- One row per change, never the value: who set or unset which secret, when.
CREATE TABLE deployment_secret_events (
  seq          BIGSERIAL PRIMARY KEY,
  name         TEXT NOT NULL,
  action       TEXT NOT NULL CHECK (action IN ('set', 'unset')),
  actor        TEXT NOT NULL,
  occurred_at  TIMESTAMPTZ NOT NULL
);
