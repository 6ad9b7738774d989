-- Main owner: the orders module; also indexes the payments module's settlements.
-- Balance due on the order itself (last gaps; docs/decisions/0052-balance-due-and-card-settlement.md): a paid order a
-- payment of which failed after the sale — an offline card declined or expired on forward, a bank payment returned —
-- moves to the state `balance_due` with what the customer owes (`balance_due_cents`), the receivable it sits in
-- (`balance_due_account`) and why. Collecting it (a new payment, Cr that receivable) brings it back to `paid` (or
-- `partially_refunded`). A returned bank payment's row becomes `returned` (captured → returned, final).
ALTER TABLE orders ADD COLUMN balance_due_cents BIGINT NOT NULL DEFAULT 0 CHECK (balance_due_cents >= 0);
ALTER TABLE orders ADD COLUMN balance_due_account TEXT;
ALTER TABLE orders ADD COLUMN balance_due_reason TEXT
  CHECK (balance_due_reason IS NULL OR balance_due_reason IN ('offline_card_declined', 'offline_card_expired', 'bank_payment_returned'));

ALTER TABLE order_payments DROP CONSTRAINT order_payments_state_check;
ALTER TABLE order_payments ADD CONSTRAINT order_payments_state_check
  CHECK (state IN ('pending', 'authorized', 'captured', 'declined', 'voided', 'partially_refunded', 'refunded', 'returned'));

-- The 0100 guard, with the balance-due moves; everything else as before: amounts frozen once the order leaves `open`,
-- states only move forward, and the balance due changes only while the order is (or becomes, or leaves) `balance_due`.
CREATE OR REPLACE FUNCTION guard_order_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.state <> 'open' THEN
      RAISE EXCEPTION 'order % is %: it cannot be deleted', OLD.id, OLD.state USING ERRCODE = '55000';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.state = 'open' THEN RETURN NEW; END IF;
  IF NOT (
       (OLD.state = 'paid' AND NEW.state IN ('paid', 'partially_refunded', 'refunded', 'canceled', 'balance_due'))
    OR (OLD.state = 'partially_refunded' AND NEW.state IN ('partially_refunded', 'refunded', 'balance_due'))
    OR (OLD.state = 'balance_due' AND NEW.state IN ('balance_due', 'paid', 'partially_refunded'))
    OR (OLD.state = NEW.state)
  ) THEN
    RAISE EXCEPTION 'order % is %: it cannot become %', OLD.id, OLD.state, NEW.state USING ERRCODE = '55000';
  END IF;
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.register_id <> OLD.register_id
     OR NEW.receipt_number <> OLD.receipt_number OR NEW.total_cents <> OLD.total_cents
     OR NEW.refunded_cents < OLD.refunded_cents
     OR (NEW.data -> 'totalCents') IS DISTINCT FROM (OLD.data -> 'totalCents')
     OR (NEW.data -> 'subtotalCents') IS DISTINCT FROM (OLD.data -> 'subtotalCents')
     OR (NEW.data -> 'discountCents') IS DISTINCT FROM (OLD.data -> 'discountCents')
     OR (NEW.data -> 'taxCents') IS DISTINCT FROM (OLD.data -> 'taxCents')
     OR (NEW.data -> 'tipCents') IS DISTINCT FROM (OLD.data -> 'tipCents')
     OR (NEW.data -> 'journalTransactionId') IS DISTINCT FROM (OLD.data -> 'journalTransactionId') THEN
    RAISE EXCEPTION 'order % is %: its amounts cannot change', OLD.id, OLD.state USING ERRCODE = '55000';
  END IF;
  IF (NEW.balance_due_cents <> OLD.balance_due_cents OR NEW.balance_due_account IS DISTINCT FROM OLD.balance_due_account
      OR NEW.balance_due_reason IS DISTINCT FROM OLD.balance_due_reason)
     AND OLD.state <> 'balance_due' AND NEW.state <> 'balance_due' THEN
    RAISE EXCEPTION 'order % is %: its balance due changes only in state balance_due', OLD.id, OLD.state USING ERRCODE = '55000';
  END IF;
  RETURN NEW;
END $$;

-- Payments: captured → returned (a bank return) joins the moves the 0100 guard allows; amounts stay frozen.
CREATE OR REPLACE FUNCTION guard_payment_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.state NOT IN ('captured', 'partially_refunded', 'refunded', 'returned') THEN
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'payment % is %: it cannot be deleted', OLD.id, OLD.state USING ERRCODE = '55000';
  END IF;
  IF NOT (
       (OLD.state = 'captured' AND NEW.state IN ('captured', 'partially_refunded', 'refunded', 'returned'))
    OR (OLD.state = 'partially_refunded' AND NEW.state IN ('partially_refunded', 'refunded'))
    OR (OLD.state = 'refunded' AND NEW.state = 'refunded')
    OR (OLD.state = 'returned' AND NEW.state = 'returned')
  ) THEN
    RAISE EXCEPTION 'payment % is %: it cannot become %', OLD.id, OLD.state, NEW.state USING ERRCODE = '55000';
  END IF;
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.order_id <> OLD.order_id
     OR NEW.amount_cents <> OLD.amount_cents OR NEW.tip_cents <> OLD.tip_cents
     OR NEW.tendered_cents IS DISTINCT FROM OLD.tendered_cents OR NEW.change_cents IS DISTINCT FROM OLD.change_cents
     OR NEW.method <> OLD.method OR NEW.rail <> OLD.rail OR NEW.account_code <> OLD.account_code
     OR NEW.journal_transaction_id IS DISTINCT FROM OLD.journal_transaction_id
     OR NEW.refunded_cents < OLD.refunded_cents THEN
    RAISE EXCEPTION 'payment % is %: its amounts cannot change', OLD.id, OLD.state USING ERRCODE = '55000';
  END IF;
  RETURN NEW;
END $$;

-- Settlements of card payments too (cards settle in 2 days on the sandbox's schedule): an order payment, an invoice
-- payment or a forwarded offline card is a settlement source beside the pay page's requests.
CREATE INDEX settlements_source ON settlements (merchant_id, source_id);
