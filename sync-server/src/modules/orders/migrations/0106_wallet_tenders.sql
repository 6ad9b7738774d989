-- Wallet payments on an order (Apple Pay, Google Pay through its pay link) are recorded as themselves, not as "card",
-- so the tender report shows them as their own tenders.
ALTER TABLE order_payments DROP CONSTRAINT order_payments_method_check;
ALTER TABLE order_payments ADD CONSTRAINT order_payments_method_check CHECK (method IN ('cash', 'card', 'check', 'other', 'apple_pay', 'google_pay'));
