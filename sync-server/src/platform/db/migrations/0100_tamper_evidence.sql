-- Platform folder: touches the kernel's audit tables and the orders and invoices modules' payment tables.
-- Tamper evidence: the audit trail is append-only in the database itself, captured money cannot
-- be edited in place, and signed checkpoints anchor the audit chain outside the database.

/* ───────────── audit_log: append-only ───────────── */

CREATE TRIGGER audit_log_immutable BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION reject_ledger_change();

/* ───────────── orders: amounts frozen once the order leaves `open` ───────────── */

-- A paid (or refunded, or canceled) order changes only through its state transitions: its amounts stay
-- as captured and its state only moves forward. SQLSTATE 55000 (object_not_in_prerequisite_state), naming the state.
CREATE FUNCTION guard_order_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.state <> 'open' THEN
      RAISE EXCEPTION 'order % is %: it cannot be deleted', OLD.id, OLD.state USING ERRCODE = '55000';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.state = 'open' THEN RETURN NEW; END IF;
  IF NOT (
       (OLD.state = 'paid' AND NEW.state IN ('paid', 'partially_refunded', 'refunded', 'canceled'))
    OR (OLD.state = 'partially_refunded' AND NEW.state IN ('partially_refunded', 'refunded'))
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
  RETURN NEW;
END $$;

CREATE TRIGGER orders_amounts_frozen BEFORE UPDATE OR DELETE ON orders
  FOR EACH ROW EXECUTE FUNCTION guard_order_change();

/* ───────────── order_payments: captured amounts frozen ───────────── */

CREATE FUNCTION guard_payment_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.state NOT IN ('captured', 'partially_refunded', 'refunded') THEN
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'payment % is %: it cannot be deleted', OLD.id, OLD.state USING ERRCODE = '55000';
  END IF;
  IF NOT (
       (OLD.state = 'captured' AND NEW.state IN ('captured', 'partially_refunded', 'refunded'))
    OR (OLD.state = 'partially_refunded' AND NEW.state IN ('partially_refunded', 'refunded'))
    OR (OLD.state = 'refunded' AND NEW.state = 'refunded')
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

CREATE TRIGGER order_payments_amounts_frozen BEFORE UPDATE OR DELETE ON order_payments
  FOR EACH ROW EXECUTE FUNCTION guard_payment_change();

/* ───────────── invoice_payments: immutable (a payment is given back by a new record) ───────────── */

CREATE TRIGGER invoice_payments_immutable BEFORE UPDATE OR DELETE ON invoice_payments
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();

/* ───────────── signed checkpoints of the audit chain ───────────── */

-- A checkpoint states "the merchant's audit chain had head `head_hash` at entry `seq`", signed with Ed25519 by a key
-- the database does not hold (kernel/checkpoints.ts). Kept here for export; registers keep their own copies.
CREATE TABLE audit_checkpoints (
  merchant_id TEXT NOT NULL,
  seq         BIGINT NOT NULL,
  head_hash   TEXT NOT NULL,
  signed_at   TIMESTAMPTZ NOT NULL,
  key_id      TEXT NOT NULL,
  signature   TEXT NOT NULL,
  reason      TEXT NOT NULL,
  PRIMARY KEY (merchant_id, seq)
);

CREATE TRIGGER audit_checkpoints_immutable BEFORE UPDATE OR DELETE ON audit_checkpoints
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();

/* ───────────── audit entries carry the hashes of the journal transactions they record ───────────── */

-- { "<journal transaction id>": "<SHA-256 of its canonical content, postings included>" }, inside the chained hash
-- (kernel/audit.ts); null for entries that record none (and for every entry written before this migration).
ALTER TABLE audit_log ADD COLUMN journal_hashes JSONB;
