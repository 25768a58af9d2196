-- A partial index serves queries whose WHERE clause implies its predicate
-- (the seed 003 job queue: an index on run_at of the pending jobs only).
CREATE TABLE jobs (id bigint PRIMARY KEY, run_at int, status text, payload text);
INSERT INTO jobs SELECT g, g % 5000, CASE WHEN g % 50 = 0 THEN 'pending' ELSE 'done' END, 'p'
  FROM generate_series(1, 20000) g;
CREATE INDEX jobs_pending ON jobs (run_at) WHERE status = 'pending';
ANALYZE jobs;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT id FROM jobs WHERE status = 'pending' ORDER BY run_at LIMIT 10;
SELECT id, run_at FROM jobs WHERE status = 'pending' ORDER BY run_at LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id FROM jobs WHERE status = 'pending' AND run_at < 100;
SELECT count(*) FROM jobs WHERE status = 'pending' AND run_at < 100;
-- without the predicate's condition the index cannot answer
EXPLAIN (COSTS OFF) SELECT id FROM jobs WHERE run_at < 100;
EXPLAIN (COSTS OFF) SELECT id FROM jobs WHERE status = 'done' ORDER BY run_at LIMIT 10;
-- rows leaving the predicate leave the index's answers
UPDATE jobs SET status = 'done' WHERE id IN (50, 100, 150);
DELETE FROM jobs WHERE id = 200;
SELECT id, run_at FROM jobs WHERE status = 'pending' ORDER BY run_at LIMIT 5;
-- the queue's worker query, without statistics: the partial index is priced
-- by the rows it holds (its predicate's selectivity), so it beats a sort of
-- the whole table; locking the rows keeps the predicate as a filter for the
-- re-check of newer row versions
CREATE TABLE queue (id bigserial PRIMARY KEY, run_at timestamptz DEFAULT now(),
  status text DEFAULT 'pending', payload jsonb);
CREATE INDEX queue_pending ON queue (run_at) WHERE status = 'pending';
INSERT INTO queue (payload) SELECT '{}' FROM generate_series(1, 5000);
EXPLAIN (COSTS OFF) SELECT id FROM queue WHERE status = 'pending' ORDER BY run_at LIMIT 1;
EXPLAIN (COSTS OFF) SELECT id FROM queue WHERE status = 'pending'
  ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM queue
  WHERE status = 'pending' ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED;
