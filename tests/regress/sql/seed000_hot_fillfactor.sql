-- Seed 000 (../shared/scenarios/seed000_hot_fillfactor.sql) at 1/50 scale:
-- write amplification is decided by free space on the page, not by the
-- number of indexes. At fillfactor 100 every update of the unindexed column
-- must move to another page and insert into all five indexes; at fillfactor 70
-- each one stays on its page as a HOT update and touches no index.
CREATE TABLE h1 (id bigint PRIMARY KEY, a text, b text, c text, d text, last_seen timestamptz) WITH (autovacuum_enabled = off);
CREATE TABLE h2 (LIKE h1 INCLUDING ALL) WITH (autovacuum_enabled = off, fillfactor = 70);
INSERT INTO h1 SELECT i, md5(i::text), md5(i::text), md5(i::text), md5(i::text), now() FROM generate_series(1, 20000) i;
INSERT INTO h2 SELECT * FROM h1;
CREATE INDEX ON h1 (a); CREATE INDEX ON h1 (b); CREATE INDEX ON h1 (c); CREATE INDEX ON h1 (d);
CREATE INDEX ON h2 (a); CREATE INDEX ON h2 (b); CREATE INDEX ON h2 (c); CREATE INDEX ON h2 (d);
VACUUM h1; VACUUM h2;
CHECKPOINT;
SELECT pg_relation_size('h1') AS h1_before, pg_relation_size('h2') AS h2_before \gset
SELECT pg_indexes_size('h2') AS h2_idx_before \gset
UPDATE h1 SET last_seen = now() WHERE id % 10 = 0;
UPDATE h2 SET last_seen = now() WHERE id % 10 = 0;
SELECT pg_stat_force_next_flush();
SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname IN ('h1', 'h2') ORDER BY relname;
-- PostgreSQL 15: h1 grows from 445 to 489 pages, h2 stays at 646.
SELECT pg_relation_size('h1') / 8192 BETWEEN 489 * 0.9 AND 489 * 1.1 AS h1_like_pg15,
       pg_relation_size('h2') / 8192 BETWEEN 646 * 0.9 AND 646 * 1.1 AS h2_like_pg15,
       pg_relation_size('h1') > :h1_before AS h1_grew, pg_relation_size('h2') = :h2_before AS h2_same,
       pg_indexes_size('h2') = :h2_idx_before AS h2_indexes_same;
