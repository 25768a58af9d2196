-- Grouping strategies by cost (HashAggregate against GroupAggregate over a
-- Sort), enable_hashagg and enable_sort, and EXPLAIN with costs.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE sales (id int, region int, amount int, note text);
INSERT INTO sales SELECT i, i % 10, i % 97, CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || (i % 5) END FROM generate_series(1, 3000) i;
ANALYZE sales;
EXPLAIN (COSTS OFF) SELECT region, count(*) FROM sales GROUP BY region;
SELECT region, count(*), sum(amount) FROM sales GROUP BY region ORDER BY region;
EXPLAIN (COSTS OFF) SELECT note, max(amount) FROM sales GROUP BY note ORDER BY note;
SELECT note, max(amount) FROM sales GROUP BY note ORDER BY note;
EXPLAIN (COSTS OFF) SELECT region, count(*) FROM sales GROUP BY region HAVING count(*) > 299;
SELECT region, count(*) FROM sales GROUP BY region HAVING count(*) > 299 ORDER BY 1;
-- DISTINCT inside an aggregate needs sorted input
EXPLAIN (COSTS OFF) SELECT region, count(DISTINCT amount) FROM sales GROUP BY region;
SELECT region, count(DISTINCT amount) FROM sales GROUP BY region ORDER BY 1;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT region, count(*) FROM sales GROUP BY region;
SELECT region, count(*) FROM sales GROUP BY region;
RESET enable_hashagg;
-- grouping the result of a join
CREATE TABLE regions (id int, name text);
INSERT INTO regions SELECT i, 'r' || i FROM generate_series(0, 9) i;
ANALYZE regions;
EXPLAIN (COSTS OFF) SELECT r.name, sum(s.amount) FROM sales s JOIN regions r ON r.id = s.region GROUP BY r.name ORDER BY 1;
SELECT r.name, sum(s.amount) FROM sales s JOIN regions r ON r.id = s.region GROUP BY r.name ORDER BY 1;
-- EXPLAIN with costs (a table of one page in both systems)
CREATE TABLE small (a int, b int);
INSERT INTO small SELECT i, i % 4 FROM generate_series(1, 100) i;
ANALYZE small;
EXPLAIN SELECT * FROM small;
EXPLAIN SELECT * FROM small WHERE b < 2;
EXPLAIN SELECT count(*) FROM small;
EXPLAIN SELECT b, count(*) FROM small GROUP BY b;
EXPLAIN SELECT * FROM small ORDER BY a;
EXPLAIN SELECT * FROM small ORDER BY a LIMIT 3;
EXPLAIN SELECT * FROM small s1 JOIN small s2 ON s1.a = s2.a;
