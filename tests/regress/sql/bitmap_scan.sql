-- Bitmap heap scans and index-only scans, chosen by cost as PostgreSQL 15
-- chooses them for the same data: an uncorrelated column (v) read through
-- its index for a middle-sized range, a correlated one (id) read in index
-- order, and an index that holds every column the query reads.
CREATE TABLE bt (id int PRIMARY KEY, v int, pad text);
INSERT INTO bt SELECT i, (i * 7919) % 20000, 'x' FROM generate_series(1, 20000) i;
CREATE INDEX bt_v ON bt (v);
ANALYZE bt;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT * FROM bt WHERE v < 500;
EXPLAIN (COSTS OFF) SELECT * FROM bt WHERE v < 500 AND pad = 'x';
EXPLAIN (COSTS OFF) SELECT * FROM bt WHERE v = 42;
EXPLAIN (COSTS OFF) SELECT * FROM bt WHERE id < 500;
EXPLAIN (COSTS OFF) SELECT * FROM bt WHERE v < 15000;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bt WHERE v < 500;
EXPLAIN (COSTS OFF) SELECT v FROM bt WHERE v BETWEEN 10 AND 12 ORDER BY v;
EXPLAIN (COSTS OFF) DELETE FROM bt WHERE v < 100;
SELECT count(*), min(id), max(id) FROM bt WHERE v < 500;
SELECT count(*) FROM bt WHERE v < 500 AND pad = 'x';
SELECT id, v FROM bt WHERE v BETWEEN 10 AND 12 ORDER BY v;
-- the same rows through every method
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM bt WHERE v < 500;
SELECT count(*), min(id), max(id) FROM bt WHERE v < 500;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM bt WHERE v < 500;
RESET enable_bitmapscan;
RESET enable_indexscan;
-- an index holding every column read is read without the heap
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bt;
EXPLAIN (COSTS OFF) SELECT id FROM bt WHERE id > 19990;
SELECT id FROM bt WHERE id > 19990;
EXPLAIN (COSTS OFF) SELECT id FROM bt ORDER BY id DESC LIMIT 2;
SELECT id FROM bt ORDER BY id DESC LIMIT 2;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM bt WHERE id > 19990;
RESET enable_indexonlyscan;
RESET enable_seqscan;
-- rows changed after the index was read are judged by the snapshot
UPDATE bt SET v = v + 1 WHERE v < 5;
DELETE FROM bt WHERE v BETWEEN 100 AND 110;
SET enable_seqscan = off;
SET enable_indexscan = off;
SELECT count(*) FROM bt WHERE v < 200;
SELECT id, v FROM bt WHERE v < 6 ORDER BY id;
