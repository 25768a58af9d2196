-- Seed 000 (../shared/scenarios/seed000_rollback_bloat.sql) at 1/50 scale:
-- a rollback leaves its dead versions at the end of the heap, where plain
-- VACUUM truncates them; committed updates leave holes VACUUM only makes
-- reusable, so the size settles at about twice the start.
CREATE TABLE r (id bigint PRIMARY KEY, a text, b text, c text, d text, last_seen timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO r SELECT i, md5(i::text), md5(i::text), 'c', 'd', now() FROM generate_series(1, 20000) i;
SELECT pg_relation_size('r') AS start \gset
-- PostgreSQL 15: 278 pages. sluice needs 308: its tuple header is 8 bytes
-- longer (64-bit xmin and xmax), 11% of these narrow rows.
SELECT pg_relation_size('r') / 8192 BETWEEN 278 * 0.9 AND 278 * 1.12 AS start_like_pg15;
BEGIN; UPDATE r SET last_seen = now(); ROLLBACK;
SELECT round(pg_relation_size('r')::numeric / :start, 1) AS after_rollback;
VACUUM r;
SELECT round(pg_relation_size('r')::numeric / :start, 1) AS rollback_then_vacuum;
UPDATE r SET last_seen = now();
VACUUM r;
SELECT round(pg_relation_size('r')::numeric / :start, 1) AS commit_then_vacuum;
UPDATE r SET last_seen = now();
VACUUM r;
UPDATE r SET last_seen = now();
VACUUM r;
SELECT round(pg_relation_size('r')::numeric / :start, 1) AS after_three_rounds;
SELECT count(*) FROM r;
