-- Seed 001 (../shared/scenarios/seed001_truncate.sql) at 1/50 scale: plain
-- VACUUM gives back empty pages at the end of the heap, not holes in the
-- middle (PostgreSQL 15: head keeps all 364 pages, tail drops to 37).
CREATE TABLE head (id bigint PRIMARY KEY, name text, memo text) WITH (autovacuum_enabled = off);
CREATE TABLE tail (id bigint PRIMARY KEY, name text, memo text) WITH (autovacuum_enabled = off);
INSERT INTO head SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, 20000) i;
INSERT INTO tail SELECT i, 'name-' || i, repeat('x', 100) FROM generate_series(1, 20000) i;
SELECT pg_relation_size('head') AS head0 \gset
DELETE FROM head WHERE id <= 18000;
DELETE FROM tail WHERE id > 2000;
VACUUM head;
VACUUM tail;
SELECT pg_relation_size('head') = :head0 AS head_kept_its_pages,
       round(pg_relation_size('tail')::numeric / :head0, 1) AS tail_fraction_left,
       pg_relation_size('tail') / 8192 BETWEEN 37 * 0.9 AND 37 * 1.1 AS tail_like_pg15;
SELECT count(*) FROM head;
SELECT count(*) FROM tail;
