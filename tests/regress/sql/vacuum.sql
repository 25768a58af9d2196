-- VACUUM: dead rows leave the heap and the indexes, the empty tail of the
-- table is truncated, pg_class learns the row count, and the options and
-- errors are PostgreSQL's. (VERBOSE output has timings, so it is checked in
-- the isolation and integration tests instead.)
CREATE TABLE vt (id int PRIMARY KEY, v text);
CREATE INDEX vt_v ON vt (v);
INSERT INTO vt SELECT g, 'x' || g FROM generate_series(1, 1000) g;
DELETE FROM vt WHERE id % 2 = 0;
VACUUM vt;
SELECT relname, reltuples FROM pg_class WHERE relname IN ('vt', 'vt_pkey', 'vt_v') ORDER BY relname;
SELECT count(*), sum(id) FROM vt;
-- The indexes agree with the heap.
SET enable_seqscan = off;
SELECT count(*), sum(id) FROM vt WHERE id > 0;
SELECT count(*) FROM vt WHERE v >= 'x';
SELECT id, v FROM vt WHERE id BETWEEN 10 AND 15 ORDER BY id;
RESET enable_seqscan;
-- Deleting the tail: VACUUM gives the empty pages back.
SELECT pg_relation_size('vt') AS before \gset
DELETE FROM vt WHERE id > 300;
VACUUM vt;
SELECT pg_relation_size('vt') < :before AS shrank;
SELECT count(*) FROM vt;
-- TRUNCATE false keeps them.
DELETE FROM vt WHERE id > 100;
SELECT pg_relation_size('vt') AS before \gset
VACUUM (TRUNCATE false) vt;
SELECT pg_relation_size('vt') = :before AS kept;
-- Everything deleted: the file becomes empty, and rows come back in it.
DELETE FROM vt;
VACUUM (INDEX_CLEANUP on, TRUNCATE true) vt;
SELECT pg_relation_size('vt') AS size, (SELECT count(*) FROM vt) AS rows;
INSERT INTO vt VALUES (1, 'one'), (2, 'two');
SELECT * FROM vt ORDER BY id;
SET enable_seqscan = off;
SELECT * FROM vt WHERE id = 2;
RESET enable_seqscan;
-- Rolled-back inserts are dead at once.
BEGIN;
INSERT INTO vt SELECT g, 'r' || g FROM generate_series(10, 500) g;
ROLLBACK;
VACUUM (ANALYZE) vt;
SELECT reltuples FROM pg_class WHERE relname = 'vt';
SELECT count(*) FROM vt;
-- ANALYZE with a column list, INDEX_CLEANUP off and the other options.
VACUUM (ANALYZE, VERBOSE false) vt (v);
SELECT attname FROM pg_stats WHERE tablename = 'vt' ORDER BY attname;
VACUUM (INDEX_CLEANUP off) vt;
VACUUM (INDEX_CLEANUP auto, SKIP_LOCKED, FREEZE, PARALLEL 2, DISABLE_PAGE_SKIPPING) vt;
VACUUM ANALYZE vt;
VACUUM FREEZE vt;
VACUUM vt, vt;
-- Not tables: skipped with a warning.
CREATE SEQUENCE vs;
VACUUM vt_v;
VACUUM vs;
-- Errors.
BEGIN;
VACUUM vt;
ROLLBACK;
VACUUM (bogus) vt;
VACUUM (PARALLEL -1) vt;
VACUUM (PARALLEL) vt;
VACUUM (FULL, PARALLEL 2) vt;
VACUUM (INDEX_CLEANUP maybe) vt;
VACUUM (TRUNCATE 'x') vt;
VACUUM vt (v);
VACUUM vt (nosuch);
VACUUM nosuch;
VACUUM (ANALYZE) vt (nosuch);
-- The whole database.
VACUUM;
SELECT count(*) FROM vt;
DROP TABLE vt;
DROP SEQUENCE vs;
