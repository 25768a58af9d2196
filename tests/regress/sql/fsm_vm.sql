-- The visibility map and the free space map: their forks appear with
-- VACUUM, changes clear the all-visible bits, VACUUM FREEZE and
-- DISABLE_PAGE_SKIPPING are accepted, and space freed by DELETE + VACUUM is
-- reused by inserts instead of growing the table. Sizes of the map forks
-- differ from PostgreSQL's tree-shaped FSM, so only their presence shows.
CREATE TABLE fv (id int, pad text);
INSERT INTO fv SELECT g, repeat('x', 100) FROM generate_series(1, 10000) g;
-- Inserts that find a page full record it in the FSM; only VACUUM makes a VM.
SELECT pg_relation_size('fv', 'vm') AS vm, pg_relation_size('fv', 'fsm') > 0 AS has_fsm;
VACUUM fv;
SELECT pg_relation_size('fv', 'vm') > 0 AS has_vm, pg_relation_size('fv', 'fsm') > 0 AS has_fsm;
SELECT pg_relation_size('fv', 'init') AS init;
SELECT pg_relation_size('fv', 'main') = pg_relation_size('fv') AS main_is_default;
SELECT pg_relation_size('fv', 'bogus');
SELECT pg_relation_size('fv') AS heap \gset
-- 90% deleted, VACUUM, and as many rows inserted again: same size.
DELETE FROM fv WHERE id % 10 <> 0;
VACUUM fv;
INSERT INTO fv SELECT g, repeat('y', 100) FROM generate_series(10001, 19000) g;
SELECT pg_relation_size('fv') = :heap AS same_size, count(*) FROM fv;
-- Without VACUUM the space is not known: the table grows.
DELETE FROM fv WHERE id > 10000;
INSERT INTO fv SELECT g, repeat('z', 100) FROM generate_series(20001, 29000) g;
SELECT pg_relation_size('fv') > :heap AS grew, count(*) FROM fv;
-- Fillfactor leaves room on every page inserts fill.
CREATE TABLE ff50 (id int, pad text) WITH (fillfactor = 50);
INSERT INTO ff50 SELECT g, repeat('x', 100) FROM generate_series(1, 10000) g;
SELECT pg_relation_size('ff50') > 1.8 * pg_relation_size('fv') / (29000.0 / 10000) AS roomier;
SELECT reloptions FROM pg_class WHERE relname = 'ff50';
-- The page skipping options.
VACUUM (FREEZE) fv;
VACUUM (DISABLE_PAGE_SKIPPING) fv;
VACUUM (FREEZE, DISABLE_PAGE_SKIPPING) fv;
VACUUM FREEZE fv;
SELECT count(*), sum(id) FROM fv;
-- After TRUNCATE the maps are gone with the old file.
TRUNCATE fv;
SELECT pg_relation_size('fv', 'vm') AS vm, pg_relation_size('fv', 'fsm') AS fsm;
DROP TABLE fv, ff50;
