-- Staff sign in on a paired register with a PIN per shift (modules/merchants/staff-pins.ts). The PIN is kept as a
-- scrypt hash (`scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>`), never in clear; NULL = cannot sign in on a register.
ALTER TABLE staff ADD COLUMN pin_hash TEXT;
