-- EVAL, first process: an issue tracker's export is imported from CSV files into a database in
-- WAL mode, with a trigger that keeps an audit trail of status changes and a full-text index of
-- the comments.
PRAGMA journal_mode = WAL;
CREATE TABLE users(
  id INTEGER PRIMARY KEY,
  login TEXT NOT NULL UNIQUE,
  email TEXT NOT NULL,
  team TEXT NOT NULL
);
CREATE TABLE issues(
  id INTEGER PRIMARY KEY,
  parent_id INTEGER REFERENCES issues(id),
  reporter INTEGER NOT NULL REFERENCES users(id),
  assignee INTEGER REFERENCES users(id),
  title TEXT NOT NULL,
  status TEXT NOT NULL,
  priority INTEGER NOT NULL,
  created TEXT NOT NULL,
  closed TEXT,
  labels TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE comments(
  id INTEGER PRIMARY KEY,
  issue_id INTEGER NOT NULL REFERENCES issues(id),
  author INTEGER NOT NULL REFERENCES users(id),
  created TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE TABLE audit(issue_id INTEGER, old_status TEXT, new_status TEXT, at TEXT);
CREATE TRIGGER issues_status AFTER UPDATE OF status ON issues
  WHEN old.status <> new.status
BEGIN
  INSERT INTO audit VALUES (old.id, old.status, new.status, coalesce(new.closed, old.created));
END;
.import --csv --skip 1 users.csv users
.import --csv --skip 1 issues.csv issues
.import --csv --skip 1 comments.csv comments
UPDATE issues SET assignee = NULL WHERE assignee = '';
UPDATE issues SET parent_id = NULL WHERE parent_id = '';
UPDATE issues SET closed = NULL WHERE closed = '';
CREATE INDEX comments_issue ON comments(issue_id);
CREATE INDEX issues_parent ON issues(parent_id);
CREATE VIRTUAL TABLE comment_text USING fts5(body, content = 'comments', content_rowid = 'id');
INSERT INTO comment_text(rowid, body) SELECT id, body FROM comments;
CREATE TRIGGER comments_deleted AFTER DELETE ON comments BEGIN
  INSERT INTO comment_text(comment_text, rowid, body) VALUES ('delete', old.id, old.body);
END;
SELECT 'check', (SELECT count(*) FROM users), (SELECT count(*) FROM issues),
  (SELECT sum(priority) FROM issues), count(*), sum(length(body)) FROM comments;
