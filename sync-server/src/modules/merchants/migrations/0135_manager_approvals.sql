-- Main owner: the merchants module (manager approvals); also adds the orders module's order_refunds.approved_by.
-- Manager approvals (docs/decisions/0047-manager-approvals.md). A cashier's refund above the store's limit
-- needs a manager's (or owner's) approval: the manager types their PIN on the register or back office
-- (POST /api/register/approvals) and the server answers a short-lived, single-use token bound to the action, order and
-- amount. Only the token's SHA-256 is stored; used_at is set when a refund consumes it.
ALTER TABLE merchants ADD COLUMN cashier_refund_limit_cents BIGINT NOT NULL DEFAULT 5000 CHECK (cashier_refund_limit_cents >= 0);

CREATE TABLE manager_approvals (
  id           TEXT PRIMARY KEY,                    -- apv_<ULID>
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  token_hash   TEXT NOT NULL UNIQUE,                -- SHA-256 (hex) of the token
  action       TEXT NOT NULL CHECK (action IN ('refund', 'price_override')),
  order_id     TEXT,
  amount_cents BIGINT CHECK (amount_cents IS NULL OR amount_cents >= 0),
  approved_by  TEXT NOT NULL,                       -- the manager's or owner's staff id
  expires_at   TIMESTAMPTZ NOT NULL,
  used_at      TIMESTAMPTZ,
  created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX manager_approvals_merchant ON manager_approvals (merchant_id, created_at);

ALTER TABLE order_refunds ADD COLUMN approved_by TEXT;
