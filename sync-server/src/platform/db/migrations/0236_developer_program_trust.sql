-- Platform folder: touches the tables of the apps and app-billing modules.
-- The developer program cannot be used to take the platform's money (modules/apps, modules/app-billing,
-- core/apps.ts, core/app-billing.ts; docs/decisions/0061-app-versions-under-review.md and
-- docs/decisions/0065-developer-earnings-hold.md).

-- 1. The approved version of an app. Scopes were already kept apart (`approved_scopes`); the other fields that decide
-- what an app may take or where it sends a store — price, redirect URIs, launch URL and form — now are too. The
-- directory, installs, the OAuth server and launches read only `approved_*`; the plain columns are the developer's
-- working copy, which goes back to review when it differs from the approved version.
ALTER TABLE apps ADD COLUMN approved_form TEXT CHECK (approved_form IN ('in_platform', 'external'));
ALTER TABLE apps ADD COLUMN approved_redirect_uris JSONB;
ALTER TABLE apps ADD COLUMN approved_launch_url TEXT;
ALTER TABLE apps ADD COLUMN approved_price_cents BIGINT CHECK (approved_price_cents >= 0);
ALTER TABLE apps ADD COLUMN approved_currency TEXT;
-- Apps approved before versions existed: what they serve now is their approved version.
UPDATE apps SET approved_form = form, approved_redirect_uris = redirect_uris, approved_launch_url = launch_url,
                approved_price_cents = price_cents, approved_currency = currency
 WHERE approved_scopes IS NOT NULL;

-- 2. Where each paid charge's developer share went: `held` (developer_pending, released at `earnings_available_at`),
-- `demo` (developer_demo_earnings: the demo store's, never paid out) or `available` — charges made before the hold
-- existed, credited straight to developer_payable. ADD COLUMN with a default fills existing rows without an UPDATE
-- (the table is append-only by trigger); new rows always name their account.
ALTER TABLE app_charges ADD COLUMN earnings TEXT NOT NULL DEFAULT 'available' CHECK (earnings IN ('available', 'held', 'demo'));
ALTER TABLE app_charges ALTER COLUMN earnings DROP DEFAULT;
ALTER TABLE app_charges ADD COLUMN earnings_available_at TIMESTAMPTZ;
ALTER TABLE app_charges ADD CONSTRAINT app_charges_hold CHECK ((earnings = 'held' AND status = 'paid') = (earnings_available_at IS NOT NULL));
CREATE INDEX app_charges_held ON app_charges (earnings_available_at) WHERE earnings = 'held';

-- How the developer's part of each refund was taken: pending first, then available, then a receivable (what the
-- developer owes). Refunds made before this migration took it all from developer_payable (0, 0, 0 here).
ALTER TABLE app_charge_refunds ADD COLUMN from_pending_cents BIGINT NOT NULL DEFAULT 0 CHECK (from_pending_cents >= 0);
ALTER TABLE app_charge_refunds ADD COLUMN from_available_cents BIGINT NOT NULL DEFAULT 0 CHECK (from_available_cents >= 0);
ALTER TABLE app_charge_refunds ADD COLUMN to_receivable_cents BIGINT NOT NULL DEFAULT 0 CHECK (to_receivable_cents >= 0);

-- 3. The release of a held charge's share once its hold has ended: one row per charge (never twice), naming the
-- journal transaction of the batch it was released in (Dr developer_pending, Cr developer_receivable what repaid the
-- developer's debt, Cr developer_payable the rest). `released_cents` is below `held_cents` only when a refund of an
-- older, already released charge took held money first.
CREATE TABLE developer_earnings_releases (
  charge_id               TEXT PRIMARY KEY REFERENCES app_charges (id),
  developer_id            TEXT NOT NULL REFERENCES developers (id),
  currency                TEXT NOT NULL,
  held_cents              BIGINT NOT NULL CHECK (held_cents >= 0),
  released_cents          BIGINT NOT NULL CHECK (released_cents >= 0 AND released_cents <= held_cents),
  recovered_cents         BIGINT NOT NULL CHECK (recovered_cents >= 0 AND recovered_cents <= released_cents),
  journal_transaction_id  TEXT REFERENCES journal_transactions (id),
  released_at             TIMESTAMPTZ NOT NULL,
  CHECK (released_cents = 0 OR journal_transaction_id IS NOT NULL)
);
CREATE INDEX developer_earnings_releases_developer ON developer_earnings_releases (developer_id, currency, released_at);
CREATE TRIGGER developer_earnings_releases_immutable BEFORE UPDATE OR DELETE ON developer_earnings_releases FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER developer_earnings_releases_no_truncate BEFORE TRUNCATE ON developer_earnings_releases FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();
