-- Declined invoice card payments are kept as payments in state `declined` (like orders', 0032),
-- and paid invoices can be refunded. invoice_payments stays immutable (0100): a declined attempt is a row of its own
-- (no journal transaction), and a refund is a new record in invoice_refunds, never an update of the payment.
ALTER TABLE invoice_payments ADD COLUMN state TEXT NOT NULL DEFAULT 'captured' CHECK (state IN ('captured', 'declined'));
ALTER TABLE invoice_payments ADD COLUMN decline_code TEXT;
ALTER TABLE invoice_payments ALTER COLUMN jtx_id DROP NOT NULL;
-- Routing: an invoice card payment taken through the API is routed like the pay page's (core routePayment);
-- the decision (candidates with fees, reason) and the processing fee posted for it are kept on the payment.
ALTER TABLE invoice_payments ADD COLUMN routing JSONB;
ALTER TABLE invoice_payments ADD COLUMN fee_cents BIGINT NOT NULL DEFAULT 0 CHECK (fee_cents >= 0);
ALTER TABLE invoice_payments ADD CONSTRAINT invoice_payments_jtx_when_captured CHECK (state = 'declined' OR jtx_id IS NOT NULL);

-- A refund of an invoice: the amount given back, its tax part, the payments it came from ({paymentId, amountCents,
-- accountCode}[]) and its journal transaction (Dr refunds and sales tax, Cr the payments' accounts). Append-only.
CREATE TABLE invoice_refunds (
  id            TEXT PRIMARY KEY,                      -- irf_<ULID>
  merchant_id   TEXT NOT NULL REFERENCES merchants (id),
  invoice_id    TEXT NOT NULL REFERENCES invoices (id),
  amount_cents  BIGINT NOT NULL CHECK (amount_cents BETWEEN 1 AND 99999999),
  tax_cents     BIGINT NOT NULL CHECK (tax_cents >= 0),
  allocations   JSONB NOT NULL,
  reason        TEXT,
  jtx_id        TEXT NOT NULL,
  created_by    TEXT NOT NULL,
  created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX invoice_refunds_invoice ON invoice_refunds (invoice_id, created_at, id);
CREATE TRIGGER invoice_refunds_immutable BEFORE UPDATE OR DELETE ON invoice_refunds
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();

ALTER TABLE invoices ADD COLUMN refunded_cents BIGINT NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0);
