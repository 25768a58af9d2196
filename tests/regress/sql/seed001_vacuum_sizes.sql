-- Seed 001 (../shared/scenarios/seed001_vacuum_sizes.sql) at 1/50 scale: a
-- 90% DELETE leaves heap and indexes as large as before; VACUUM makes the
-- space reusable (the statistics see the dead rows go) without shrinking the
-- files, so re-inserting half the original rows fits in the same heap; VACUUM
-- FULL rewrites it compactly. Sizes are compared with PostgreSQL 15's pages.
CREATE TABLE t (id bigint PRIMARY KEY, name text, memo text) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, 20000) i;
CREATE INDEX idx_t_name ON t (name);
-- PostgreSQL 15: heap 364 pages, indexes 136, total 504 (sluice's heap is
-- larger by its 64-bit xids in the tuple header).
SELECT pg_relation_size('t') / 8192 BETWEEN 364 * 0.9 AND 364 * 1.1 AS heap_like_pg15,
       pg_indexes_size('t') / 8192 BETWEEN 136 * 0.9 AND 136 * 1.1 AS indexes_like_pg15,
       pg_total_relation_size('t') / 8192 BETWEEN 504 * 0.9 AND 504 * 1.1 AS total_like_pg15,
       (SELECT count(*) FROM t) AS rows;
SELECT pg_relation_size('t') AS heap0, pg_indexes_size('t') AS idx0 \gset
DELETE FROM t WHERE id % 10 <> 0;
-- PostgreSQL sends a session's counts to the shared statistics at most once a
-- second; force it so that VACUUM's own report is the last word below.
SELECT pg_stat_force_next_flush();
SELECT pg_relation_size('t') = :heap0 AS heap_unchanged, pg_indexes_size('t') = :idx0 AS indexes_unchanged,
       (SELECT count(*) FROM t) AS rows;
VACUUM t;
SELECT n_live_tup, n_dead_tup, vacuum_count FROM pg_stat_user_tables WHERE relname = 't';
SELECT pg_relation_size('t') = :heap0 AS heap_unchanged, pg_indexes_size('t') = :idx0 AS indexes_unchanged;
INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(20001, 30000) i;
SELECT pg_relation_size('t') = :heap0 AS heap_reused, round(pg_indexes_size('t')::numeric / :idx0, 1) AS index_growth;
VACUUM FULL t;
SELECT round(pg_relation_size('t')::numeric / :heap0, 2) AS heap_after_full,
       round(pg_indexes_size('t')::numeric / :idx0, 2) AS indexes_after_full;
