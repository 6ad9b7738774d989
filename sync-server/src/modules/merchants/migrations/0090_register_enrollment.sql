-- Main owner: the merchants module (pairing codes, registers); also creates the platform's register_credentials.
-- Register enrollment (modules/merchants/enrollment.ts).
-- A manager creates a one-time pairing code; a register exchanges it for its own register credential (opaque
-- `rrc_…`, only its SHA-256 stored), scoped to syncing and selling at one location. Revoking a register ends every
-- credential it holds on its next request. Credentials are the platform's rows (platform/auth/identity.ts), registers
-- and pairing codes the merchants module's.

CREATE TABLE pairing_codes (
  code_hash    TEXT PRIMARY KEY,                 -- SHA-256 (hex) of the normalised code (8 Crockford base32 characters)
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  location_id  TEXT NOT NULL REFERENCES locations (id),
  name         TEXT,                             -- name the new register takes (default `Register <n>`)
  created_by   TEXT NOT NULL,                    -- audit actor, e.g. staff:<id>
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at   TIMESTAMPTZ NOT NULL,
  used_at      TIMESTAMPTZ,
  register_id  TEXT REFERENCES registers (id)
);
CREATE INDEX pairing_codes_merchant ON pairing_codes (merchant_id, created_at);

ALTER TABLE registers ADD COLUMN location_id TEXT REFERENCES locations (id);
ALTER TABLE registers ADD COLUMN revoked_at TIMESTAMPTZ;

CREATE TABLE register_credentials (
  token_hash   TEXT PRIMARY KEY,                 -- SHA-256 (hex) of the `rrc_…` credential
  register_id  TEXT NOT NULL REFERENCES registers (id),
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_seen_at TIMESTAMPTZ,                      -- last authenticated request, at most a minute stale
  revoked_at   TIMESTAMPTZ
);
CREATE INDEX register_credentials_register ON register_credentials (register_id);
