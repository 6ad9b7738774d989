-- Platform folder: bill-payments' table (created in 0175).
-- A bill payer who shows an ID under another name than the one the cashier typed is screened under both names
-- (docs/decisions/0058-bill-payment-screening-and-refunds-owed.md): `screening_id` stays the ID holder's (or the typed
-- name's, without an ID), `name_screening_id` is the typed name's when it differs. A held payment waits for both.
ALTER TABLE bill_payments ADD COLUMN name_screening_id TEXT;
