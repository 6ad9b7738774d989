-- Selling past zero (issue 13): whether the register asks once before a sale takes an item's stock below zero.
-- true (default): the register asks the cashier once per item per sale; false: it sells without asking.
ALTER TABLE merchants ADD COLUMN confirm_sell_past_zero BOOLEAN NOT NULL DEFAULT true;
