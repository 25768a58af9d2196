-- SELECT ... FOR UPDATE / FOR SHARE: what may be locked, error messages,
-- and the LockRows plan node.
CREATE TABLE jobs (id int PRIMARY KEY, run_at int NOT NULL, status text NOT NULL);
INSERT INTO jobs SELECT g, 100 - g, 'pending' FROM generate_series(1, 10) g;
CREATE TABLE other (id int, note text);
INSERT INTO other VALUES (1, 'one'), (2, 'two');

-- rows are returned as by a plain SELECT
SELECT id, status FROM jobs WHERE id <= 3 ORDER BY id FOR UPDATE;
SELECT * FROM jobs WHERE id = 4 FOR NO KEY UPDATE;
SELECT id FROM jobs WHERE id = 5 FOR SHARE;
SELECT id FROM jobs WHERE id = 6 FOR KEY SHARE NOWAIT;
SELECT id FROM jobs ORDER BY run_at LIMIT 2 FOR UPDATE SKIP LOCKED;
SELECT j.id, o.note FROM jobs j JOIN other o ON o.id = j.id ORDER BY j.id FOR UPDATE OF j;
SELECT j.id, o.note FROM jobs j, other o WHERE o.id = j.id ORDER BY j.id FOR SHARE OF o FOR UPDATE OF j;
SELECT * FROM (SELECT id FROM jobs WHERE id < 3) s ORDER BY id FOR UPDATE;
SELECT 1 AS one FOR UPDATE;
-- a row locked by this transaction can be locked again and updated
BEGIN;
SELECT id FROM jobs WHERE id = 1 FOR SHARE;
SELECT id FROM jobs WHERE id = 1 FOR UPDATE;
UPDATE jobs SET status = 'done' WHERE id = 1;
SELECT id, status FROM jobs WHERE id = 1 FOR UPDATE;
COMMIT;
-- a queue worker's statements: the subquery locks, the outer statement changes
DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id;
UPDATE jobs SET status = 'running'
  WHERE id IN (SELECT id FROM jobs WHERE status = 'pending' ORDER BY run_at LIMIT 2 FOR UPDATE SKIP LOCKED)
  RETURNING id, status;

-- what cannot be locked
SELECT count(*) FROM jobs FOR UPDATE;
SELECT status FROM jobs GROUP BY status FOR UPDATE;
SELECT DISTINCT status FROM jobs FOR SHARE;
SELECT status FROM jobs GROUP BY status HAVING count(*) > 1 FOR NO KEY UPDATE;
SELECT id FROM jobs UNION SELECT id FROM other FOR UPDATE;
SELECT id FROM jobs INTERSECT SELECT id FROM other FOR KEY SHARE;
SELECT id FROM jobs FOR UPDATE OF x;
SELECT id FROM jobs j FOR UPDATE OF jobs;
SELECT id FROM jobs FOR SHARE OF jobs, nosuch;
SELECT * FROM generate_series(1, 2) g FOR UPDATE OF g;
WITH w AS (SELECT 1 AS a) SELECT * FROM w FOR UPDATE OF w;
WITH w AS (SELECT 1 AS a) SELECT * FROM w FOR UPDATE;

-- LockRows sits under the LIMIT, above the sort
EXPLAIN (COSTS OFF) SELECT id FROM jobs ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED;
EXPLAIN (COSTS OFF) SELECT * FROM jobs WHERE status = 'pending' FOR SHARE;
EXPLAIN (COSTS OFF) SELECT id FROM jobs WHERE id = 3 FOR UPDATE NOWAIT;

DROP TABLE jobs;
DROP TABLE other;
