-- Main owner: the checks module.
-- Payments the server flagged for refund (data.refund: the check was paid past its total on two registers apart),
-- listed newest first for the back office (GET /api/pos/check-overpayments).
CREATE INDEX check_payments_refund ON check_payments (merchant_id, ((data->'refund'->'flagged'->>'at')) DESC) WHERE data ? 'refund';
-- Open checks by table: a floor plan save that removes a table with an open check is refused.
CREATE INDEX checks_open_table ON checks (merchant_id, ((data->>'tableId'))) WHERE NOT data ? 'closed';

-- A restaurant's service charge and automatic gratuity (core/service-charges.ts): each a rate in basis points of the
-- check's pre-tax net, the gratuity only for parties of gratuity_party_size or more; each taxable or not. One row per
-- store, written whole by PUT /api/pos/service-charges; no row: neither is charged.
CREATE TABLE service_charge_settings (
  merchant_id                  TEXT PRIMARY KEY REFERENCES merchants (id),
  service_charge_basis_points  INTEGER NOT NULL CHECK (service_charge_basis_points BETWEEN 0 AND 10000),
  service_charge_taxable       BOOLEAN NOT NULL,
  gratuity_basis_points        INTEGER NOT NULL CHECK (gratuity_basis_points BETWEEN 0 AND 10000),
  gratuity_party_size          INTEGER NOT NULL CHECK (gratuity_party_size BETWEEN 1 AND 99),
  gratuity_taxable             BOOLEAN NOT NULL,
  updated_at                   TIMESTAMPTZ NOT NULL
);
