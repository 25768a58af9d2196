-- VACUUM VERBOSE: PostgreSQL 15's report, line for line. The lines with
-- xids, timings and resource use (removable cutoff, new relfrozenxid, avg
-- read rate, buffer/WAL/system usage) are dropped by the harness on both
-- sides; the page, tuple and index page counts must agree. Rows are ~1 kB so
-- that both systems fit 7 on a heap page (sluice's headers are larger), and
-- PROCESS_TOAST false keeps PostgreSQL's TOAST table out of the report
-- (sluice has no TOAST).
CREATE TABLE vv (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = off);
INSERT INTO vv SELECT g, repeat('x', 990) FROM generate_series(1, 7000) g;
CREATE INDEX vv_id_desc ON vv (id DESC);
-- Nothing to do yet.
VACUUM (VERBOSE, PROCESS_TOAST false) vv;
-- Half the rows go: the heap pages holding them are emptied, and so are
-- the index leaves holding their keys, which VACUUM deletes.
DELETE FROM vv WHERE id <= 3500;
VACUUM (VERBOSE, PROCESS_TOAST false) vv;
-- Another transaction has come and gone: the deleted index pages are now
-- reusable, which VACUUM finds though it has no dead tuples to remove.
INSERT INTO vv VALUES (100000, 'x');
VACUUM (VERBOSE, PROCESS_TOAST false) vv;
-- A few dead tuples at the end: the index pass is bypassed, and the empty
-- tail is cut off.
DELETE FROM vv WHERE id > 6990;
VACUUM (VERBOSE, PROCESS_TOAST false) vv;
-- INDEX_CLEANUP off: dead items stay, no index is looked at.
DELETE FROM vv WHERE id BETWEEN 5000 AND 5500;
VACUUM (VERBOSE, PROCESS_TOAST false, INDEX_CLEANUP off) vv;
VACUUM (VERBOSE, PROCESS_TOAST false, INDEX_CLEANUP on) vv;
-- FREEZE makes VACUUM aggressive, and its report says so (a table of
-- fixed-width columns has no TOAST table in PostgreSQL to report on).
CREATE TABLE vf (a int, b bigint) WITH (autovacuum_enabled = off);
INSERT INTO vf SELECT g, g FROM generate_series(1, 150) g;
DELETE FROM vf WHERE a % 2 = 0;
VACUUM (FREEZE, VERBOSE) vf;
DROP TABLE vf;
