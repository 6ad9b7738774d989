-- Receipt numbers in O(1) (modules/orders): one counter per register that takes receipt numbers from the server (the
-- back-office register of API orders), bumped with UPDATE … RETURNING under the merchant lock. Written by the orders
-- module only; a register without a row continues from its orders' highest sequence when it first needs one.
CREATE TABLE receipt_sequences (
  register_id TEXT PRIMARY KEY REFERENCES registers (id),
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  last_seq    BIGINT NOT NULL CHECK (last_seq >= 0)
);

-- Existing back-office registers continue where their receipts are (R<n>-<sequence>, core/receipt.ts).
INSERT INTO receipt_sequences (register_id, merchant_id, last_seq)
SELECT r.id, r.merchant_id, COALESCE(MAX(substring(o.receipt_number FROM '^R[0-9]{1,4}-([0-9]{6,})$')::bigint), 0)
  FROM registers r LEFT JOIN orders o ON o.register_id = r.id
 WHERE r.kind = 'back_office'
 GROUP BY r.id, r.merchant_id;
