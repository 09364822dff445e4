-- TRAIN, first process: a shop's database is created and filled from an SQL script (one row per
-- INSERT for the small tables, batches of rows for the order lines), one transaction per table,
-- in the default rollback-journal mode.
CREATE TABLE customers(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  city TEXT NOT NULL,
  joined TEXT NOT NULL
);
CREATE TABLE products(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  category TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents > 0)
);
CREATE TABLE orders(
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  day TEXT NOT NULL,
  status TEXT NOT NULL
);
CREATE TABLE order_items(
  order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  qty INTEGER NOT NULL,
  PRIMARY KEY (order_id, product_id)
);
.read train-data.sql
CREATE INDEX orders_customer ON orders(customer_id);
CREATE INDEX orders_day ON orders(day);
CREATE INDEX items_product ON order_items(product_id);
ANALYZE;
SELECT 'check', (SELECT count(*) FROM customers), (SELECT count(*) FROM orders),
  count(*), sum(qty), sum(qty * price_cents)
  FROM order_items JOIN products ON products.id = product_id;
