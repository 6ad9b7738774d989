-- A declined card attempt on an API order is kept (payment state `declined`): no money, no journal
-- transaction, but the cashier and the owner see it. The rail's reason code is kept beside it.
ALTER TABLE order_payments ADD COLUMN decline_code TEXT;
