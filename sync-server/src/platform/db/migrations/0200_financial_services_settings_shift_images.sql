-- Platform folder: touches the tables of financial-services, check-cashing, transfers, bill-payments and closeout.
-- Financial services settings, shift cash and check images (docs/decisions/0056-check-cashing-transfers-and-bill-payments.md,
-- docs/decisions/0057-check-images-and-service-status.md).
--
-- 1. Per-store fee schedule and limits of the financial services, written only by modules/financial-services
--    (`PATCH /api/pos/financial-services/settings`). A store without a row uses core's defaults.
CREATE TABLE financial_service_settings (
  merchant_id TEXT PRIMARY KEY REFERENCES merchants (id),
  settings JSONB NOT NULL,
  updated_by TEXT NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);

-- 2. The shift whose drawer a service's cash went through (sent by the register; NULL when the caller named none):
--    the server's shift report counts the services of the shift. A transfer canceled at the counter hands the cash
--    back from the drawer of the shift that canceled it.
ALTER TABLE check_cashings ADD COLUMN shift_id TEXT;
ALTER TABLE money_transfers ADD COLUMN shift_id TEXT;
ALTER TABLE money_transfers ADD COLUMN cancel_shift_id TEXT;
ALTER TABLE bill_payments ADD COLUMN shift_id TEXT;
CREATE INDEX check_cashings_shift ON check_cashings (merchant_id, shift_id) WHERE shift_id IS NOT NULL;
CREATE INDEX money_transfers_shift ON money_transfers (merchant_id, shift_id) WHERE shift_id IS NOT NULL;
CREATE INDEX money_transfers_cancel_shift ON money_transfers (merchant_id, cancel_shift_id) WHERE cancel_shift_id IS NOT NULL;
CREATE INDEX bill_payments_shift ON bill_payments (merchant_id, shift_id) WHERE shift_id IS NOT NULL;

--    The register records the drawer side of each service as a cash movement (core SERVICE_CASH_KINDS); the service
--    posted its own journal transaction, the movement posts none.
ALTER TABLE cash_movements DROP CONSTRAINT cash_movements_kind_check;
ALTER TABLE cash_movements ADD CONSTRAINT cash_movements_kind_check
  CHECK (kind IN ('paid_in', 'paid_out', 'no_sale', 'check_cashed', 'transfer_in', 'bill_payment_in', 'transfer_canceled'));

-- 3. The check image the scanner delivered, one per check cashing (written by modules/check-cashing, never changed).
--    Base64 text rather than BYTEA: the same value through node-postgres and PGlite; never in the audit log.
CREATE TABLE check_images (
  check_cashing_id TEXT PRIMARY KEY REFERENCES check_cashings (id),
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/tiff')),
  byte_length INTEGER NOT NULL CHECK (byte_length > 0),
  sha256 TEXT NOT NULL,
  data_base64 TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE TRIGGER check_images_immutable BEFORE UPDATE OR DELETE ON check_images
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_change();
