-- TRAIN, second process: the shop's reports, in the default list mode with headers: indexed
-- lookups of customers and days, then joins and aggregates over the whole database.
.headers on
.read train-lookups.sql
SELECT p.category, count(DISTINCT o.id) AS orders, sum(i.qty) AS units,
       sum(i.qty * p.price_cents) / 100.0 AS revenue
  FROM order_items i JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id
  WHERE o.status <> 'cancelled'
  GROUP BY p.category ORDER BY revenue DESC;
SELECT c.id, c.name, c.city, sum(i.qty * p.price_cents) AS spent
  FROM customers c JOIN orders o ON o.customer_id = c.id
  JOIN order_items i ON i.order_id = o.id JOIN products p ON p.id = i.product_id
  WHERE o.status IN ('shipped', 'delivered')
  GROUP BY c.id ORDER BY spent DESC, c.id LIMIT 20;
SELECT substr(day, 1, 7) AS month, count(*) AS orders,
       sum(status = 'cancelled') AS cancelled, count(DISTINCT customer_id) AS customers
  FROM orders GROUP BY month ORDER BY month;
SELECT city, count(*) AS customers, min(joined) AS first FROM customers
  GROUP BY city HAVING count(*) > 10 ORDER BY customers DESC, city;
SELECT p.name, count(*) AS orders, avg(i.qty) AS avg_qty
  FROM products p JOIN order_items i ON i.product_id = p.id
  GROUP BY p.id ORDER BY orders DESC, p.name LIMIT 15;
SELECT c.name, c.joined FROM customers c
  WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)
  ORDER BY c.id;
SELECT o.day, count(*) AS orders, sum(i.qty * p.price_cents) AS takings
  FROM orders o JOIN order_items i ON i.order_id = o.id JOIN products p ON p.id = i.product_id
  WHERE o.day BETWEEN '2024-11-01' AND '2024-12-31'
  GROUP BY o.day ORDER BY takings DESC LIMIT 10;
