-- Cumulative statistics: pg_stat_user_tables and friends. Every read of the
-- views follows pg_stat_force_next_flush() in a transaction of its own, so
-- PostgreSQL 15 (which flushes at most once a second) shows the same as
-- sluice (which flushes at every transaction end).
CREATE TABLE st (id int PRIMARY KEY, v int, w text);
CREATE TABLE noidx (a int);
INSERT INTO st SELECT g, g, 'x' FROM generate_series(1, 10) g;
-- v is not indexed: heap-only updates
UPDATE st SET v = v + 1 WHERE id <= 3;
-- id is: a new index entry
UPDATE st SET id = 100 WHERE id = 10;
DELETE FROM st WHERE id = 9;
SELECT pg_stat_force_next_flush();
SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, n_tup_hot_upd, n_live_tup, n_dead_tup,
       n_mod_since_analyze, n_ins_since_vacuum
  FROM pg_stat_user_tables WHERE relname = 'st';
-- a rolled-back insert leaves dead rows
BEGIN;
INSERT INTO st SELECT g, g, 'y' FROM generate_series(20, 24) g;
ROLLBACK;
-- so does a rolled-back savepoint; the rest commits
BEGIN;
INSERT INTO st VALUES (50, 50, 'z');
SAVEPOINT s;
INSERT INTO st VALUES (51, 51, 'z'), (52, 52, 'z');
ROLLBACK TO s;
COMMIT;
-- an error inside a savepoint, then RELEASE of another one
BEGIN;
SAVEPOINT a;
INSERT INTO st VALUES (60, 60, 'e'), (1, 1, 'duplicate');
ROLLBACK TO a;
SAVEPOINT b;
DELETE FROM st WHERE id = 50;
RELEASE b;
COMMIT;
SELECT pg_stat_force_next_flush();
SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, n_live_tup, n_dead_tup,
       n_mod_since_analyze, n_ins_since_vacuum
  FROM pg_stat_user_tables WHERE relname = 'st';
SELECT pg_stat_get_live_tuples('st'::regclass), pg_stat_get_dead_tuples('st'::regclass),
       pg_stat_get_tuples_hot_updated('st'::regclass);
-- VACUUM sets the estimates from what it found
VACUUM st;
SELECT relname, n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'st';
SELECT n_ins_since_vacuum, vacuum_count, last_vacuum IS NOT NULL AS vacuumed,
       last_autovacuum IS NULL AS no_autovacuum, analyze_count, last_analyze IS NULL AS not_analyzed
  FROM pg_stat_user_tables WHERE relname = 'st';
-- ANALYZE too, and starts counting modifications again
ANALYZE st;
SELECT n_live_tup, n_dead_tup, n_mod_since_analyze, analyze_count,
       last_analyze IS NOT NULL AS analyzed
  FROM pg_stat_user_tables WHERE relname = 'st';
-- scans
SELECT pg_stat_reset_single_table_counters('st'::regclass);
SELECT pg_stat_reset_single_table_counters(indexrelid) FROM pg_index
  WHERE indrelid = 'st'::regclass;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM st;
SET enable_indexscan = on;
SET enable_seqscan = off;
SELECT v FROM st WHERE id = 5;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_seqscan;
SELECT pg_stat_force_next_flush();
SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_live_tup
  FROM pg_stat_user_tables WHERE relname = 'st';
SELECT relname, indexrelname, idx_scan, idx_tup_read, idx_tup_fetch
  FROM pg_stat_user_indexes WHERE relname = 'st';
SELECT relname, idx_scan, idx_tup_fetch FROM pg_stat_user_tables WHERE relname = 'noidx';
SELECT relname, heap_blks_read, idx_blks_read FROM pg_statio_user_tables
  WHERE relname = 'noidx';
SELECT count(*) FROM pg_stat_sys_tables WHERE relname = 'st';
SELECT count(*) > 0 AS has_catalogs FROM pg_stat_all_tables WHERE schemaname = 'pg_catalog';
-- TRUNCATE starts the estimates again; rolled back, it never happened
INSERT INTO noidx SELECT g FROM generate_series(1, 5) g;
BEGIN;
INSERT INTO noidx VALUES (6);
TRUNCATE noidx;
INSERT INTO noidx VALUES (7), (8);
COMMIT;
SELECT pg_stat_force_next_flush();
SELECT relname, n_tup_ins, n_live_tup, n_dead_tup, n_ins_since_vacuum
  FROM pg_stat_user_tables WHERE relname = 'noidx';
BEGIN;
INSERT INTO noidx VALUES (9);
TRUNCATE noidx;
ROLLBACK;
SELECT pg_stat_force_next_flush();
SELECT relname, n_tup_ins, n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'noidx';
-- pg_stat_reset forgets everything
SELECT pg_stat_reset();
SELECT relname, n_tup_ins, n_live_tup, n_dead_tup, vacuum_count, last_vacuum
  FROM pg_stat_user_tables ORDER BY relname;
DROP TABLE st;
DROP TABLE noidx;
