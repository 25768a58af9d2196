-- EXPLAIN ANALYZE: rows and loops counted per node, rows removed by
-- filters and join filters (COSTS OFF, TIMING OFF, SUMMARY OFF keep the
-- output deterministic), as PostgreSQL 15 prints them.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE items (id int PRIMARY KEY, grp int, price int);
INSERT INTO items SELECT i, i % 7, i * 3 % 101 FROM generate_series(1, 2000) i;
CREATE TABLE colors (c int, name text);
INSERT INTO colors VALUES (1, 'red'), (2, 'green'), (3, 'blue');
ANALYZE items;
ANALYZE colors;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM items;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM items WHERE price < 10;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM items WHERE id < 40 AND grp = 2;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM items WHERE grp = 3;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM items LIMIT 5;
-- a nested loop reads its materialised inner side once per outer row
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM colors a, colors b WHERE a.c < b.c;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM colors a JOIN colors b ON a.c = b.c + 5;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- a node whose input is empty is never executed
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM colors a, colors b WHERE a.c > 5 AND a.c < b.c;
EXPLAIN (TIMING ON) SELECT 1;
