-- VACUUM FULL: the table is rewritten into a new file holding only the row
-- versions some snapshot may still need, packed (fillfactor honoured), its
-- indexes are rebuilt into new files, and nothing is all-visible afterwards.
-- VERBOSE's DETAIL carries CPU timings, so VERBOSITY terse leaves it out.
CREATE TABLE vf (id int PRIMARY KEY, name text, memo text) WITH (autovacuum_enabled = off);
INSERT INTO vf SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, 20000) i;
CREATE INDEX vf_name ON vf (name);
SELECT pg_relation_size('vf') AS heap_before, pg_relation_size('vf_name') AS index_before \gset
SELECT relfilenode AS heap_file FROM pg_class WHERE relname = 'vf' \gset
SELECT relfilenode AS index_file FROM pg_class WHERE relname = 'vf_name' \gset
DELETE FROM vf WHERE id % 10 <> 0;
UPDATE vf SET memo = 'updated' WHERE id % 100 = 0;
VACUUM FULL vf;
-- New files for the table and its indexes, about a tenth of the old size.
SELECT relfilenode <> :heap_file AS new_heap_file FROM pg_class WHERE relname = 'vf';
SELECT relfilenode <> :index_file AS new_index_file FROM pg_class WHERE relname = 'vf_name';
SELECT pg_relation_size('vf') * 100 / :heap_before BETWEEN 8 AND 12 AS heap_shrunk,
       pg_relation_size('vf_name') * 100 / :index_before BETWEEN 7 AND 14 AS index_shrunk;
-- pg_class has the new size, the rows, and no all-visible pages.
SELECT relpages = pg_relation_size('vf') / 8192 AS relpages_right, reltuples, relallvisible
  FROM pg_class WHERE relname = 'vf';
SELECT reltuples FROM pg_class WHERE relname = 'vf_name';
-- Every row is still there, through the heap and through each index.
SELECT count(*), sum(id), (SELECT count(*) FROM vf WHERE memo = 'updated') AS updated FROM vf;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, memo FROM vf WHERE name = 'name-500';
SELECT id, memo FROM vf WHERE id = 19990;
SELECT count(*) FROM vf WHERE id BETWEEN 1000 AND 2000;
RESET enable_bitmapscan;
-- The visibility map is empty: the count reads the heap (a bitmap scan),
-- until a lazy VACUUM marks the pages all-visible again.
EXPLAIN (COSTS OFF) SELECT count(*) FROM vf WHERE id < 1000;
VACUUM vf;
EXPLAIN (COSTS OFF) SELECT count(*) FROM vf WHERE id < 1000;
VACUUM FULL vf;
EXPLAIN (COSTS OFF) SELECT count(*) FROM vf WHERE id < 1000;
RESET enable_seqscan;
-- Writes after the rewrite find their way into the new files.
INSERT INTO vf VALUES (1, 'name-1', 'again');
UPDATE vf SET name = 'renamed' WHERE id = 10;
DELETE FROM vf WHERE id = 20;
SELECT id, name, memo FROM vf WHERE id <= 30 ORDER BY id;
-- fillfactor: pages are filled to it, so 50 takes about twice the pages.
CREATE TABLE vf_full (id int, pad text) WITH (autovacuum_enabled = off);
CREATE TABLE vf_half (id int, pad text) WITH (fillfactor = 50, autovacuum_enabled = off);
INSERT INTO vf_full SELECT i, repeat('p', 60) FROM generate_series(1, 5000) i;
INSERT INTO vf_half SELECT i, repeat('p', 60) FROM generate_series(1, 5000) i;
ALTER TABLE vf_full SET (fillfactor = 100);
VACUUM FULL vf_full, vf_half;
SELECT pg_relation_size('vf_half') * 10 / pg_relation_size('vf_full') BETWEEN 18 AND 22 AS twice_the_pages;
-- VERBOSE, and VACUUM (FULL, ANALYZE): the statistics describe the new file.
CREATE TABLE vf_small (id int, v text);
INSERT INTO vf_small SELECT i, 'v' || i FROM generate_series(1, 10) i;
DELETE FROM vf_small WHERE id > 6;
\set VERBOSITY terse
VACUUM FULL VERBOSE vf_small;
VACUUM (FULL, VERBOSE) vf_small;
\set VERBOSITY default
VACUUM (FULL, ANALYZE) vf_small;
SELECT relpages, reltuples FROM pg_class WHERE relname = 'vf_small';
SELECT * FROM vf_small ORDER BY id;
-- An empty table stays empty; a database-wide VACUUM FULL.
CREATE TABLE vf_empty (x int);
VACUUM FULL vf_empty;
SELECT pg_relation_size('vf_empty'), count(*) FROM vf_empty;
VACUUM FULL;
SELECT count(*) FROM vf;
-- Errors.
BEGIN;
VACUUM FULL vf;
ROLLBACK;
VACUUM FULL nosuch;
VACUUM (FULL, PARALLEL 2) vf;
VACUUM FULL vf_name;
