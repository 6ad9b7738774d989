-- Routing of staff-API card payments: a card tender taken through POST /api/pos/orders/{id}/payments
-- is routed on the merchant's rails like the pay page's (core routePayment); the decision (candidates with fees, reason)
-- and the processing fee posted for it (Dr processing_fees, Cr the clearing account) are kept on the payment. Adding
-- columns does not touch the captured amounts the 0100 trigger guards.
ALTER TABLE order_payments ADD COLUMN routing JSONB;
ALTER TABLE order_payments ADD COLUMN fee_cents BIGINT NOT NULL DEFAULT 0 CHECK (fee_cents >= 0);
