-- Selling past zero: whether the register asks once before a sale takes an item's stock below zero.
-- true: the register asks the cashier once per item per sale; false (default, the register's behaviour so far): it
-- sells without asking. Off by default so existing stores and unattended flows are unchanged until the owner opts in.
ALTER TABLE merchants ADD COLUMN confirm_sell_past_zero BOOLEAN NOT NULL DEFAULT false;
