-- Main owner: the app-installations module; also adds apps.launch_url (apps module) and the platform's app_tokens columns.
-- App installations (docs/decisions/0062-app-installations-and-oauth.md; workflows/app-installation.ts, modules/app-installations).
-- An app's launch/connect URL: for in-platform apps the page framed inside the register, for external integrations
-- the page that starts the OAuth 2.0 connection.
ALTER TABLE apps ADD COLUMN launch_url TEXT;

-- A merchant's installation of a listed app with the scopes its owner approved (a subset of the app's approved
-- scopes at install time; a later scope change of the app never widens it).
CREATE TABLE app_installations (
  id              TEXT PRIMARY KEY,                   -- ins_<ULID>
  merchant_id     TEXT NOT NULL REFERENCES merchants (id),
  app_id          TEXT NOT NULL REFERENCES apps (id),
  granted_scopes  TEXT[] NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('installed', 'uninstalled', 'suspended')),
  installed_by    TEXT NOT NULL,
  installed_at    TIMESTAMPTZ NOT NULL,
  uninstalled_at  TIMESTAMPTZ,
  updated_at      TIMESTAMPTZ NOT NULL
);
-- One live installation of an app per merchant (installing it again is a 409 until it is uninstalled).
CREATE UNIQUE INDEX app_installations_live ON app_installations (merchant_id, app_id) WHERE status <> 'uninstalled';
CREATE INDEX app_installations_merchant ON app_installations (merchant_id, installed_at DESC, id DESC);

-- One-time tickets that let an external integration start the OAuth flow for one installation: 10 minutes, single
-- use, stored only as SHA-256.
CREATE TABLE app_install_tickets (
  ticket_hash      TEXT PRIMARY KEY,
  installation_id  TEXT NOT NULL REFERENCES app_installations (id),
  merchant_id      TEXT NOT NULL REFERENCES merchants (id),
  expires_at       TIMESTAMPTZ NOT NULL,
  consumed_at      TIMESTAMPTZ
);

-- App tokens bound to an installation (launch tokens of in-platform apps): valid while the installation is
-- installed and until expires_at.
ALTER TABLE app_tokens ADD COLUMN installation_id TEXT REFERENCES app_installations (id);
ALTER TABLE app_tokens ADD COLUMN expires_at TIMESTAMPTZ;
CREATE INDEX app_tokens_installation ON app_tokens (installation_id) WHERE installation_id IS NOT NULL;

-- oidc-provider's models (the OAuth 2.0 authorization server of external integrations), shared by every instance.
-- `id` is the SHA-256 of the model's id for tokens and codes (their ids are the bearer values), the id itself for the
-- rest. installation_id / merchant_id are set on grants and the tokens of an installation so uninstalling revokes them.
CREATE TABLE oauth_models (
  model            TEXT NOT NULL,
  id               TEXT NOT NULL,
  payload          JSONB NOT NULL,
  grant_id         TEXT,
  uid              TEXT,
  installation_id  TEXT,
  expires_at       TIMESTAMPTZ,
  consumed_at      TIMESTAMPTZ,
  PRIMARY KEY (model, id)
);
CREATE INDEX oauth_models_grant ON oauth_models (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_models_uid ON oauth_models (uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_models_installation ON oauth_models (installation_id) WHERE installation_id IS NOT NULL;
