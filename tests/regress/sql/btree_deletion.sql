-- B-tree page deletion and recycling (a scaled-down
-- scenarios/seed001_index_reclaim.sql): VACUUM deletes the leaves a
-- contiguous DELETE emptied and leaves a scattered DELETE's half-empty ones
-- in place; a later VACUUM, when no snapshot from before the deletion is
-- left, makes the deleted pages reusable, and inserts take them instead of
-- growing the index. Leaf density is compared rounded to a whole percent
-- (sluice's page header is 4 bytes larger than PostgreSQL's).
CREATE EXTENSION pgstattuple;
CREATE TABLE t (id bigint PRIMARY KEY, name text) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT i, 'name-' || i FROM generate_series(1, 20000) i;
SELECT index_size, tree_level, internal_pages, leaf_pages, deleted_pages FROM pgstatindex('t_pkey');
-- Scattered: every leaf keeps some entries, density drops, no page goes.
DELETE FROM t WHERE id > 10000 AND id % 10 <> 0;
VACUUM t;
SELECT leaf_pages, empty_pages, deleted_pages, round(avg_leaf_density::numeric) AS density FROM pgstatindex('t_pkey');
-- Contiguous: the leaves holding ids up to 8000 are emptied and deleted.
DELETE FROM t WHERE id <= 8000;
VACUUM t;
SELECT leaf_pages, empty_pages, deleted_pages FROM pgstatindex('t_pkey');
SELECT pg_relation_size('t_pkey') / 8192 AS index_pages;
SELECT count(*), min(id), max(id) FROM t;
SELECT count(*) FROM t WHERE id BETWEEN 7990 AND 8100;
-- Scans in both directions cross the deleted range.
SELECT id FROM t WHERE id < 8030 ORDER BY id DESC LIMIT 3;
SELECT id FROM t WHERE id > 7000 ORDER BY id LIMIT 3;
-- Later (other transactions have come and gone), VACUUM finds the deleted
-- pages reusable.
DELETE FROM t WHERE id > 19990;
VACUUM t;
SELECT leaf_pages, deleted_pages FROM pgstatindex('t_pkey');
-- New keys below every other key split the first leaf again and again: the
-- new pages are the deleted ones, and the file does not grow. (How many
-- splits that takes differs: PostgreSQL notices the ascending inserts in
-- the middle of the index and splits fuller pages than sluice's halves.)
INSERT INTO t SELECT i, 'name' || i FROM generate_series(-3000, -1) i;
SELECT leaf_pages + deleted_pages AS pages, deleted_pages < 21 AS reused FROM pgstatindex('t_pkey');
SELECT pg_relation_size('t_pkey') / 8192 AS index_pages;
SELECT count(*) FROM t WHERE id < 0;
SELECT id FROM t WHERE id > -5 ORDER BY id LIMIT 6;
