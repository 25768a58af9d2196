-- EXPLAIN (ANALYZE, BUFFERS): each node's "Buffers:" line sits after its
-- other details and counts the pages it and the nodes below it touched.
-- The counts are piped through sed to "N": sluice's heap pages hold fewer
-- rows (64-bit xids), its B-tree metapage is read per scan rather than
-- cached, and its planner touches other catalog pages, so only which
-- counters appear, and where, is compared; the "Planning:" buffers (and
-- with them psql's row count) are dropped for the same reason. Seed 001: an index-only scan visits the
-- heap for every entry until VACUUM sets the visibility map (Heap Fetches).
CREATE TABLE b (id int PRIMARY KEY, t text) WITH (autovacuum_enabled = off);
INSERT INTO b SELECT i, repeat('x', 100) || i FROM generate_series(1, 5000) i;
SELECT count(*) FROM b;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM b WHERE id < 100 \g | sed -E '/^ *Planning:/{N;d;}; s/=[0-9]+/=N/g; s/^\([0-9]+ rows?\)$/(rows)/'
VACUUM b;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM b WHERE id < 100 \g | sed -E '/^ *Planning:/{N;d;}; s/=[0-9]+/=N/g; s/^\([0-9]+ rows?\)$/(rows)/'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM b WHERE t LIKE '%9' \g | sed -E '/^ *Planning:/{N;d;}; s/=[0-9]+/=N/g; s/^\([0-9]+ rows?\)$/(rows)/'
UPDATE b SET t = 'changed' WHERE id <= 10;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(t) FROM b \g | sed -E '/^ *Planning:/{N;d;}; s/=[0-9]+/=N/g; s/^\([0-9]+ rows?\)$/(rows)/'
SET enable_indexscan = off;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM b WHERE id < 300 \g | sed -E '/^ *Planning:/{N;d;}; s/=[0-9]+/=N/g; s/^\([0-9]+ rows?\)$/(rows)/'
