-- Platform folder: touches bill-payments' and transfers' tables and the kernel's accounts.
-- Bill payments screen their payer (docs/decisions/0058-bill-payment-screening-and-refunds-owed.md): a payer who is a potential sanctions
-- match holds the payment (`held`: nothing taken, nothing sent to the biller) until a manager clears the screening
-- and the cashier completes it, or refuses it (`refused`). The payer's screening and, when the customer showed one,
-- the ID verification are kept on the payment. A held payment has no confirmation and no journal transaction yet.
ALTER TABLE bill_payments ADD COLUMN screening_id TEXT;
ALTER TABLE bill_payments ADD COLUMN id_verification_id TEXT;
ALTER TABLE bill_payments ALTER COLUMN confirmation_number DROP NOT NULL;
ALTER TABLE bill_payments ALTER COLUMN journal_transaction_id DROP NOT NULL;
ALTER TABLE bill_payments DROP CONSTRAINT bill_payments_status_check;
ALTER TABLE bill_payments ADD CONSTRAINT bill_payments_status_check CHECK (status IN ('held', 'accepted', 'posted', 'rejected', 'refused'));
ALTER TABLE bill_payments ADD CONSTRAINT bill_payments_paid_has_journal CHECK (status IN ('held', 'refused') OR (journal_transaction_id IS NOT NULL AND confirmation_number IS NOT NULL));

-- A bill the biller rejects and a transfer the partner refunds move no cash at the counter: the refund is owed to the
-- customer (core CHART_OF_ACCOUNTS `refunds_payable`, per service `refunds_payable:<service>`) until it is handed back.
-- Existing stores get the base account here.
INSERT INTO accounts (id, merchant_id, code, name, type)
SELECT 'acc_rfpy_' || id, id, 'refunds_payable', 'Refunds owed to customers', 'liability' FROM merchants
ON CONFLICT (merchant_id, code) DO NOTHING;

-- The transfer receipt names the provider and its contact, the store (agent), the recipient and the State regulator
-- (12 CFR 1005.31(b)(2)): kept as the receipt showed them when the cash was taken (core RemittanceReceiptParties).
ALTER TABLE money_transfers ADD COLUMN receipt_parties JSONB;
