-- Seed 001 (scaled down to 100k rows for CI): after a 90% DELETE the count
-- reads the primary key's bitmap; VACUUM marks the pages all-visible in the
-- visibility map, and the same count becomes an Index Only Scan that never
-- visits the heap (Heap Fetches: 0).
CREATE TABLE sparse (id bigint PRIMARY KEY, memo text) WITH (autovacuum_enabled = off);
INSERT INTO sparse SELECT i, repeat('x', 100) FROM generate_series(1, 100000) i;
DELETE FROM sparse WHERE id % 10 <> 0;
SET max_parallel_workers_per_gather = 0;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sparse;
VACUUM sparse;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sparse;
SELECT count(*) FROM sparse;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM sparse;
-- a write clears its page's bit: that page's entries are checked in the heap
UPDATE sparse SET memo = 'y' WHERE id = 50000;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM sparse WHERE id > 49990 AND id < 50010;
SELECT relallvisible > 0 AS some_all_visible FROM pg_class WHERE relname = 'sparse';
-- VACUUM FULL writes a new file without a visibility map: the count reads
-- the heap again (a bitmap scan), as in PostgreSQL.
VACUUM FULL sparse;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sparse;
SELECT count(*) FROM sparse;
