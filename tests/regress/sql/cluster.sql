-- CLUSTER: the table is rewritten in an index's order into a new file (dead
-- rows left behind, indexes rebuilt, nothing all-visible afterwards), the
-- index is marked indisclustered, and a later CLUSTER reuses it.
CREATE TABLE cl (id int PRIMARY KEY, k int, v text) WITH (autovacuum_enabled = off);
CREATE INDEX cl_k ON cl (k);
INSERT INTO cl SELECT i, (i * 7919) % 1000, 'v' || i FROM generate_series(1, 3000) i;
DELETE FROM cl WHERE id % 3 = 0;
SELECT relfilenode AS heap_file FROM pg_class WHERE relname = 'cl' \gset
SELECT pg_relation_size('cl') AS heap_before \gset
CLUSTER cl USING cl_k;
SELECT relfilenode <> :heap_file AS new_file, pg_relation_size('cl') < :heap_before AS smaller,
       reltuples, relallvisible
  FROM pg_class WHERE relname = 'cl';
SELECT c.relname, i.indisclustered FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = 'cl'::regclass ORDER BY c.relname;
-- The heap is in k order now: a sequential scan returns the rows sorted.
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT k FROM cl LIMIT 5;
SELECT k FROM cl OFFSET 1995;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT count(*), sum(id) FROM cl;
SET enable_seqscan = off;
SELECT id, k FROM cl WHERE id = 100;
SELECT count(*) FROM cl WHERE k = 17;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cl WHERE id < 100;
RESET enable_seqscan;
-- CLUSTER without USING reuses the marked index; USING another index moves
-- the mark.
UPDATE cl SET k = -k WHERE id < 10;
CLUSTER cl;
SELECT k FROM cl LIMIT 3;
CLUSTER cl USING cl_pkey;
SELECT c.relname, i.indisclustered FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = 'cl'::regclass ORDER BY c.relname;
SELECT id FROM cl LIMIT 3;
-- ALTER TABLE ... CLUSTER ON marks an index without rewriting; SET WITHOUT
-- CLUSTER clears the mark.
ALTER TABLE cl CLUSTER ON cl_k;
SELECT c.relname, i.indisclustered FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = 'cl'::regclass ORDER BY c.relname;
ALTER TABLE cl SET WITHOUT CLUSTER;
SELECT count(*) FROM pg_index WHERE indrelid = 'cl'::regclass AND indisclustered;
CLUSTER cl;
ALTER TABLE cl CLUSTER ON nosuch;
ALTER TABLE cl CLUSTER ON cl_pkey;
-- A CLUSTER in a block is rolled back with it.
SELECT relfilenode AS heap_file FROM pg_class WHERE relname = 'cl' \gset
BEGIN;
CLUSTER cl USING cl_k;
ROLLBACK;
SELECT relfilenode = :heap_file AS kept FROM pg_class WHERE relname = 'cl';
-- CLUSTER with no table: every table with a clustered index.
CREATE TABLE cl2 (a int, b int);
CREATE INDEX cl2_b ON cl2 (b);
INSERT INTO cl2 SELECT i, 100 - i FROM generate_series(1, 100) i;
CLUSTER cl2 USING cl2_b;
INSERT INTO cl2 VALUES (0, 1000), (-1, -1000);
CLUSTER;
SELECT b FROM cl2 LIMIT 3;
-- Errors.
CLUSTER nosuch;
CLUSTER cl2_b;
CLUSTER cl USING nosuch;
CLUSTER cl USING cl2_b;
CREATE TABLE cl3 (x int);
CLUSTER cl3;
CREATE INDEX cl_partial ON cl (k) WHERE k > 10;
CLUSTER cl USING cl_partial;
CLUSTER (nonsense) cl;
BEGIN;
CLUSTER;
ROLLBACK;
