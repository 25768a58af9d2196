-- Seed 001 (../shared/scenarios/seed001_no_vacuum_growth.sql) at 1/50 scale:
-- without VACUUM the space of deleted rows is invisible to inserts, so the
-- heap grows by the whole insert (PostgreSQL 15: 364 → 546 pages, 1.5x).
CREATE TABLE t (id bigint PRIMARY KEY, name text, memo text) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, 20000) i;
CREATE INDEX idx_t_name ON t (name);
SELECT pg_relation_size('t') AS heap0, pg_indexes_size('t') AS idx0 \gset
DELETE FROM t WHERE id % 10 <> 0;
INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(20001, 30000) i;
SELECT round(pg_relation_size('t')::numeric / :heap0, 1) AS heap_growth,
       round(pg_indexes_size('t')::numeric / :idx0, 1) AS index_growth,
       pg_relation_size('t') / 8192 BETWEEN 546 * 0.9 AND 546 * 1.1 AS heap_like_pg15;
