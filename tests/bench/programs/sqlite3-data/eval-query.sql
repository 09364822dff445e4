-- EVAL, second process: a week's triage (updates and deletes in a transaction, firing the
-- trigger), then reports in several output modes: window functions, subqueries, a recursive CTE,
-- string functions, LIKE and GLOB, sorts on unindexed expressions, JSON and full-text search.
BEGIN;
UPDATE issues SET status = 'closed', closed = date(created, '+' || (id % 40) || ' days')
  WHERE status = 'open' AND priority = 4 AND created < '2025-03-01';
UPDATE issues SET priority = priority - 1
  WHERE priority > 1 AND id IN (SELECT issue_id FROM comments WHERE body LIKE '%crash%');
DELETE FROM comments WHERE author IN (SELECT id FROM users WHERE team = 'bots');
DELETE FROM issues WHERE status = 'duplicate'
  AND NOT EXISTS (SELECT 1 FROM comments WHERE issue_id = issues.id);
UPDATE issues SET labels = json_insert(labels, '$[#]', 'stale')
  WHERE status = 'open' AND created < '2025-01-15';
COMMIT;
.mode box
SELECT * FROM (
  SELECT team, login, open, rank() OVER (PARTITION BY team ORDER BY open DESC) AS rank
    FROM (SELECT u.team, u.login, count(*) AS open
            FROM issues i JOIN users u ON u.id = i.assignee
            WHERE i.status = 'open' GROUP BY u.id))
  WHERE rank <= 3 ORDER BY team, rank, login;
SELECT new_status, count(*) AS changes, min(at) AS first, max(at) AS last
  FROM audit GROUP BY new_status ORDER BY changes DESC;
.mode csv
.headers on
SELECT month, n, sum(n) OVER (ORDER BY month) AS total,
       n - lag(n, 1, 0) OVER (ORDER BY month) AS change,
       round(avg(n) OVER (ORDER BY month ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), 1) AS avg3
  FROM (SELECT strftime('%Y-%m', created) AS month, count(*) AS n FROM issues GROUP BY month);
WITH RECURSIVE tree(id, root, depth, path) AS (
  SELECT id, id, 0, printf('%d', id) FROM issues WHERE parent_id IS NULL
  UNION ALL
  SELECT i.id, t.root, t.depth + 1, t.path || '/' || i.id
    FROM issues i JOIN tree t ON i.parent_id = t.id
)
SELECT root, max(depth) AS depth, count(*) AS size, max(path) AS deepest
  FROM tree GROUP BY root HAVING count(*) > 2 ORDER BY size DESC, root LIMIT 25;
SELECT upper(substr(title, 1, 1)) || substr(title, 2) AS title, length(title) AS len,
       instr(title, 'cache') AS at, replace(title, ' ', '_') AS slug
  FROM issues WHERE title LIKE '%cache%' OR title GLOB '*[Tt]imeout*'
  ORDER BY len DESC, title LIMIT 30;
SELECT login, lower(email) AS email, substr(email, instr(email, '@') + 1) AS domain
  FROM users WHERE email NOT LIKE '%@example.org' ORDER BY domain, login;
SELECT priority, status, count(*) AS n,
       round(avg(julianday(closed) - julianday(created)), 2) AS days_open,
       group_concat(id, ' ') FILTER (WHERE id % 97 = 0) AS sample
  FROM issues GROUP BY priority, status ORDER BY priority, n DESC;
.mode json
SELECT i.id, i.title, json_group_array(DISTINCT u.login) AS commenters,
       (SELECT count(*) FROM comments c2 WHERE c2.issue_id = i.id) AS n
  FROM issues i JOIN comments c ON c.issue_id = i.id JOIN users u ON u.id = c.author
  WHERE i.priority = 1 GROUP BY i.id ORDER BY n DESC, i.id LIMIT 15;
SELECT label.value AS label, count(*) AS issues, sum(i.status = 'open') AS open
  FROM issues i, json_each(i.labels) AS label
  GROUP BY label.value ORDER BY issues DESC, label;
.mode list
.headers off
SELECT c.issue_id, c.id, snippet(comment_text, 0, '[', ']', '...', 6)
  FROM comment_text JOIN comments c ON c.id = comment_text.rowid
  WHERE comment_text MATCH 'crash NOT windows' ORDER BY rank, c.id LIMIT 12;
SELECT count(*) FROM comment_text WHERE comment_text MATCH '"memory leak" OR (slow AND query)';
PRAGMA integrity_check;
