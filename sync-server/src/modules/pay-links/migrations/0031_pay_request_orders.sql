-- A Text-to-Pay link may pay an open order ("paying it … where linked, pays the order or invoice").
ALTER TABLE pay_requests ADD COLUMN order_id TEXT REFERENCES orders (id);
CREATE INDEX pay_requests_order ON pay_requests (order_id) WHERE order_id IS NOT NULL;
