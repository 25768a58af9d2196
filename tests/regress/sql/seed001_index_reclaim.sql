-- Seed 001 (../shared/scenarios/seed001_index_reclaim.sql) at 1/50 scale:
-- VACUUM empties index entries but a scattered delete frees no leaf page
-- (density drops to ~9%); REINDEX shrinks the index about 10x; a
-- contiguous delete empties whole leaf pages, which VACUUM deletes.
CREATE EXTENSION IF NOT EXISTS pgstattuple;
CREATE TABLE t (id bigint PRIMARY KEY, name text, memo text) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, 20000) i;
CREATE INDEX idx_t_name ON t (name);
-- (sluice pages have an 8-byte longer header, for the 64-bit prune xid:
-- 89.52% dense where PostgreSQL 15 is 89.48%.)
SELECT index_size, leaf_pages, deleted_pages, avg_leaf_density BETWEEN 89 AND 91 AS density_about_90 FROM pgstatindex('idx_t_name');
DELETE FROM t WHERE id % 10 <> 0;
VACUUM t;
SELECT index_size, leaf_pages, deleted_pages, round(avg_leaf_density::numeric, 0) AS density FROM pgstatindex('idx_t_name');
REINDEX INDEX CONCURRENTLY idx_t_name;
SELECT pg_relation_size('idx_t_name') / 8192 AS idx_pages_after_reindex;
CREATE TABLE t2 (id bigint PRIMARY KEY, name text, memo text) WITH (autovacuum_enabled = off);
INSERT INTO t2 SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, 20000) i;
DELETE FROM t2 WHERE id <= 18000;
VACUUM t2;
SELECT leaf_pages, deleted_pages FROM pgstatindex('t2_pkey');
