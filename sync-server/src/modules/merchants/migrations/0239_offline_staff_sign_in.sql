-- Offline staff sign-in on a register (docs/decisions/0046-offline-staff-sign-in.md).
-- The store's window: a staff member who signed in on a register within this many days may sign in there while it is
-- offline (0 = never offline). A staff member disabled by an owner cannot sign in, online or (once the register is
-- back online) offline. pin_set_at tells a register that a PIN changed, so it drops what it derived from the old one.
ALTER TABLE merchants ADD COLUMN offline_sign_in_days INTEGER NOT NULL DEFAULT 7 CHECK (offline_sign_in_days BETWEEN 0 AND 30);
ALTER TABLE staff ADD COLUMN disabled_at TIMESTAMPTZ;
ALTER TABLE staff ADD COLUMN pin_set_at TIMESTAMPTZ;
UPDATE staff SET pin_set_at = created_at WHERE pin_hash IS NOT NULL;
