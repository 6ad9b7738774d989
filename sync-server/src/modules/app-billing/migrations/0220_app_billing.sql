-- Main owner: the app-billing module; also inserts the platform ledger's row into the merchants module's merchants.
-- App billing and payouts (modules/app-billing, core/app-billing.ts;
-- docs/decisions/0064-app-billing-and-developer-payouts.md). Paid app subscriptions keyed on the installation (`installation_id`: no foreign key — the
-- installations table belongs to the app-installation work), their charges and refunds (append-only), each store's
-- billing method, and developer payouts.

-- The platform's own ledger lives under this row (core PLATFORM_LEDGER_MERCHANT_ID): no staff, registers or tokens
-- ever belong to it; its journal transactions are the 85/15 splits of app charges, their refunds and the payouts.
INSERT INTO merchants (id, name, currency, is_demo) VALUES ('mer_platform', 'Register platform (app billing ledger)', 'USD', false)
  ON CONFLICT (id) DO NOTHING;

-- The store's billing method at the billing processor (a reference, never a card number). No row: the sandbox
-- default `bref_sbx_visa_4242`.
CREATE TABLE app_billing_methods (
  merchant_id        TEXT PRIMARY KEY REFERENCES merchants (id),
  billing_reference  TEXT NOT NULL,
  updated_by         TEXT NOT NULL,
  updated_at         TIMESTAMPTZ NOT NULL
);

CREATE TABLE app_subscriptions (
  id                    TEXT PRIMARY KEY,                       -- asub_<ULID>
  installation_id       TEXT NOT NULL UNIQUE,                   -- ins_<ULID> of the app installation
  merchant_id           TEXT NOT NULL REFERENCES merchants (id),
  app_id                TEXT NOT NULL REFERENCES apps (id),
  developer_id          TEXT NOT NULL REFERENCES developers (id),
  price_cents           BIGINT NOT NULL CHECK (price_cents > 0), -- monthly price when subscribed, minor units
  currency              TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  status                TEXT NOT NULL CHECK (status IN ('active', 'past_due', 'suspended', 'canceled')),
  current_period_start  TIMESTAMPTZ NOT NULL,                   -- the period last billed (paid or not)
  current_period_end    TIMESTAMPTZ NOT NULL,                   -- exclusive: the next renewal is due then
  failed_attempts       INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  first_failed_at       TIMESTAMPTZ,
  next_retry_at         TIMESTAMPTZ,
  suspended_at          TIMESTAMPTZ,
  canceled_at           TIMESTAMPTZ,
  created_at            TIMESTAMPTZ NOT NULL,
  updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX app_subscriptions_merchant ON app_subscriptions (merchant_id, created_at DESC, id DESC);
CREATE INDEX app_subscriptions_due ON app_subscriptions (status, current_period_end);
CREATE INDEX app_subscriptions_retry ON app_subscriptions (status, next_retry_at);

-- Every charge attempt, paid or failed. A paid one names its journal transaction on the platform ledger.
CREATE TABLE app_charges (
  id                      TEXT PRIMARY KEY,                     -- ach_<ULID>: the billing processor's idempotency key
  subscription_id         TEXT NOT NULL REFERENCES app_subscriptions (id),
  installation_id         TEXT NOT NULL,
  merchant_id             TEXT NOT NULL REFERENCES merchants (id),
  app_id                  TEXT NOT NULL REFERENCES apps (id),
  developer_id            TEXT NOT NULL REFERENCES developers (id),
  kind                    TEXT NOT NULL CHECK (kind IN ('initial', 'renewal', 'retry', 'reactivation')),
  period_start            TIMESTAMPTZ NOT NULL,
  period_end              TIMESTAMPTZ NOT NULL,
  amount_cents            BIGINT NOT NULL CHECK (amount_cents > 0),
  developer_share_cents   BIGINT NOT NULL CHECK (developer_share_cents >= 0),
  platform_share_cents    BIGINT NOT NULL CHECK (platform_share_cents >= 0),
  currency                TEXT NOT NULL,
  status                  TEXT NOT NULL CHECK (status IN ('paid', 'failed')),
  decline_code            TEXT,
  processor               TEXT NOT NULL,
  processor_reference     TEXT,
  journal_transaction_id  TEXT REFERENCES journal_transactions (id),
  created_at              TIMESTAMPTZ NOT NULL,
  CHECK (developer_share_cents + platform_share_cents = amount_cents),
  CHECK ((status = 'paid') = (journal_transaction_id IS NOT NULL))
);
CREATE INDEX app_charges_subscription ON app_charges (subscription_id, created_at);
CREATE INDEX app_charges_merchant ON app_charges (merchant_id, created_at);
CREATE INDEX app_charges_developer ON app_charges (developer_id, currency, created_at);
CREATE TRIGGER app_charges_immutable BEFORE UPDATE OR DELETE ON app_charges FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER app_charges_no_truncate BEFORE TRUNCATE ON app_charges FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();

-- Unused whole days of a paid period refunded on uninstall (core uninstallRefund).
CREATE TABLE app_charge_refunds (
  id                      TEXT PRIMARY KEY,                     -- acr_<ULID>
  charge_id               TEXT NOT NULL UNIQUE REFERENCES app_charges (id),
  subscription_id         TEXT NOT NULL REFERENCES app_subscriptions (id),
  merchant_id             TEXT NOT NULL REFERENCES merchants (id),
  developer_id            TEXT NOT NULL REFERENCES developers (id),
  amount_cents            BIGINT NOT NULL CHECK (amount_cents > 0),
  developer_share_cents   BIGINT NOT NULL CHECK (developer_share_cents >= 0),
  platform_share_cents    BIGINT NOT NULL CHECK (platform_share_cents >= 0),
  currency                TEXT NOT NULL,
  unused_days             INTEGER NOT NULL,
  covered_days            INTEGER NOT NULL,
  processor_reference     TEXT NOT NULL,
  journal_transaction_id  TEXT NOT NULL REFERENCES journal_transactions (id),
  created_at              TIMESTAMPTZ NOT NULL,
  CHECK (developer_share_cents + platform_share_cents = amount_cents)
);
CREATE INDEX app_charge_refunds_developer ON app_charge_refunds (developer_id, currency, created_at);
CREATE TRIGGER app_charge_refunds_immutable BEFORE UPDATE OR DELETE ON app_charge_refunds FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER app_charge_refunds_no_truncate BEFORE TRUNCATE ON app_charge_refunds FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();

-- Payouts to developers through the payment-connect adapter (platform-wide: no merchant_id).
CREATE TABLE developer_payouts (
  id                      TEXT PRIMARY KEY,                     -- dpo_<ULID>: the adapter's idempotency key
  developer_id            TEXT NOT NULL REFERENCES developers (id),
  amount_cents            BIGINT NOT NULL CHECK (amount_cents > 0),
  currency                TEXT NOT NULL,
  status                  TEXT NOT NULL CHECK (status IN ('paid')),
  trigger                 TEXT NOT NULL CHECK (trigger IN ('manual', 'scheduled')),
  earnings_through        TIMESTAMPTZ NOT NULL,                 -- charges made before this were counted
  processor               TEXT NOT NULL,
  connect_account         TEXT NOT NULL,
  processor_reference     TEXT NOT NULL,
  journal_transaction_id  TEXT NOT NULL REFERENCES journal_transactions (id),
  created_at              TIMESTAMPTZ NOT NULL
);
CREATE INDEX developer_payouts_developer ON developer_payouts (developer_id, currency, created_at);
CREATE TRIGGER developer_payouts_immutable BEFORE UPDATE OR DELETE ON developer_payouts FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER developer_payouts_no_truncate BEFORE TRUNCATE ON developer_payouts FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();
