-- Developers and apps (docs/decisions/0060-developers-and-apps.md; modules/apps, core/apps.ts). Platform-wide tables: no merchant_id —
-- developers and platform admins are not any merchant's staff. Tokens are stored only as their SHA-256.
CREATE TABLE developers (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  email       TEXT NOT NULL UNIQUE,
  token_hash  TEXT NOT NULL UNIQUE,
  created_at  TIMESTAMPTZ NOT NULL
);

-- Reviewers: platform staff, seeded per deployment (modules/apps/platform-admins.ts addPlatformAdmin).
CREATE TABLE platform_admins (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  email       TEXT NOT NULL UNIQUE,
  token_hash  TEXT NOT NULL UNIQUE,
  created_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE apps (
  id                   TEXT PRIMARY KEY,
  developer_id         TEXT NOT NULL REFERENCES developers (id),
  name                 TEXT NOT NULL,
  description          TEXT NOT NULL,
  form                 TEXT NOT NULL CHECK (form IN ('in_platform', 'external')),
  redirect_uris        JSONB NOT NULL DEFAULT '[]',
  webhook_url          TEXT,
  scopes               JSONB NOT NULL,          -- requested now
  approved_scopes      JSONB,                   -- approved by the last approval (what an install may grant)
  price_cents          BIGINT NOT NULL DEFAULT 0 CHECK (price_cents >= 0), -- monthly, minor units; 0 = free
  currency             TEXT,
  icon_url             TEXT,
  category             TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('draft', 'submitted', 'in_review', 'approved', 'rejected', 'listed')),
  listed_at            TIMESTAMPTZ,             -- set once listed; the app stays in the directory while re-reviewed
  rejection_reasons    JSONB,
  created_at           TIMESTAMPTZ NOT NULL,
  updated_at           TIMESTAMPTZ NOT NULL
);
CREATE INDEX apps_developer ON apps (developer_id, created_at);
CREATE INDEX apps_status ON apps (status, updated_at);

-- Every review transition and edit, append-only (the platform's audit of apps; merchants' audit_log is per merchant).
CREATE TABLE app_review_events (
  seq          BIGSERIAL PRIMARY KEY,
  app_id       TEXT NOT NULL REFERENCES apps (id),
  actor        TEXT NOT NULL,                  -- developer:<id> or platform_admin:<id>
  action       TEXT NOT NULL,                  -- created, edited, submit, start_review, approve, reject, list
  from_status  TEXT,
  to_status    TEXT NOT NULL,
  data         JSONB NOT NULL DEFAULT '{}',
  occurred_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX app_review_events_app ON app_review_events (app_id, seq);
CREATE TRIGGER app_review_events_immutable BEFORE UPDATE OR DELETE ON app_review_events
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER app_review_events_no_truncate BEFORE TRUNCATE ON app_review_events
  FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();
