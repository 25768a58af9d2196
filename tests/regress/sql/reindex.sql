-- REINDEX INDEX and REINDEX TABLE: each index gets a new file built from
-- the heap (the old one goes at commit, or stays on rollback); the rows
-- found through the index are the same; errors are PostgreSQL's.
-- VERBOSE's DETAIL carries CPU timings, so VERBOSITY terse leaves it out.
CREATE TABLE ri (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off);
CREATE INDEX ri_v ON ri (v);
INSERT INTO ri SELECT i, 'v' || i FROM generate_series(1, 5000) i;
DELETE FROM ri WHERE id % 2 = 0;
SELECT relfilenode AS pkey_file, pg_relation_size('ri_pkey') AS pkey_size
  FROM pg_class WHERE relname = 'ri_pkey' \gset
SELECT relfilenode AS v_file FROM pg_class WHERE relname = 'ri_v' \gset
REINDEX INDEX ri_pkey;
SELECT relfilenode <> :pkey_file AS new_file, pg_relation_size('ri_pkey') < :pkey_size AS smaller
  FROM pg_class WHERE relname = 'ri_pkey';
SELECT relfilenode = :v_file AS other_index_kept FROM pg_class WHERE relname = 'ri_v';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM ri WHERE id > 0;
SELECT id FROM ri WHERE id BETWEEN 100 AND 106;
-- REINDEX TABLE rebuilds every index; in a block, a rollback keeps the old files.
SELECT relfilenode AS pkey_file FROM pg_class WHERE relname = 'ri_pkey' \gset
BEGIN;
REINDEX TABLE ri;
SELECT count(*) FROM ri WHERE v > 'v';
ROLLBACK;
SELECT relfilenode = :pkey_file AS rolled_back FROM pg_class WHERE relname = 'ri_pkey';
SELECT count(*) FROM ri WHERE id > 0;
REINDEX TABLE ri;
SELECT relfilenode <> :pkey_file AS new_file FROM pg_class WHERE relname = 'ri_pkey';
SELECT relfilenode <> :v_file AS new_file FROM pg_class WHERE relname = 'ri_v';
SELECT v FROM ri WHERE v = 'v4001';
SELECT reltuples FROM pg_class WHERE relname IN ('ri_pkey', 'ri_v');
-- Writes after it use the new files; a unique index still checks.
INSERT INTO ri VALUES (2, 'two');
INSERT INTO ri VALUES (3, 'three');
SELECT id, v FROM ri WHERE id <= 4 ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- (A table without TOAST-able columns: PostgreSQL also reindexes its TOAST index.)
CREATE TABLE ri_ints (a int PRIMARY KEY, b int);
CREATE INDEX ri_ints_b ON ri_ints (b);
\set VERBOSITY terse
REINDEX (VERBOSE) TABLE ri_ints;
REINDEX (VERBOSE) INDEX ri_v;
\set VERBOSITY default
CREATE TABLE ri_none (x int);
REINDEX TABLE ri_none;
-- CONCURRENTLY: a copy of each index is built beside the writers and takes
-- the index's place; no _ccnew index is left, the constraint still holds.
SELECT relfilenode AS pkey_file FROM pg_class WHERE relname = 'ri_pkey' \gset
CREATE INDEX ri_partial ON ri (v) WHERE id < 100;
REINDEX INDEX CONCURRENTLY ri_pkey;
SELECT relfilenode <> :pkey_file AS new_file FROM pg_class WHERE relname = 'ri_pkey';
REINDEX TABLE CONCURRENTLY ri;
REINDEX (VERBOSE) TABLE CONCURRENTLY ri_none;
SELECT c.relname, i.indisvalid, i.indisready, i.indisunique, i.indisprimary
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = 'ri'::regclass ORDER BY c.relname;
SELECT count(*) FROM pg_class WHERE relname LIKE '%ccnew%';
SELECT conname, contype FROM pg_constraint WHERE conrelid = 'ri'::regclass;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM ri WHERE id > 0;
SELECT id FROM ri WHERE v = 'v51' AND id < 100;
INSERT INTO ri VALUES (5, 'five');
RESET enable_seqscan;
RESET enable_bitmapscan;
-- An index left invalid by a failed CREATE INDEX CONCURRENTLY: skipped by
-- REINDEX TABLE CONCURRENTLY, made valid by a REINDEX that succeeds.
INSERT INTO ri_ints VALUES (1, 7), (2, 7);
CREATE UNIQUE INDEX CONCURRENTLY ri_ints_dup ON ri_ints (b);
REINDEX TABLE CONCURRENTLY ri_ints;
REINDEX INDEX ri_ints_dup;
DELETE FROM ri_ints WHERE a = 2;
REINDEX INDEX ri_ints_dup;
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'ri_ints_dup'::regclass;
INSERT INTO ri_ints VALUES (3, 7);
-- Errors.
REINDEX INDEX nosuch;
REINDEX TABLE nosuch;
REINDEX INDEX ri;
REINDEX TABLE ri_v;
REINDEX (nonsense) TABLE ri;
BEGIN;
REINDEX TABLE CONCURRENTLY ri;
ROLLBACK;
BEGIN;
REINDEX INDEX CONCURRENTLY ri_v;
ROLLBACK;
