-- Sorts, hash aggregates, hash joins, materialised inner sides, WITH
-- results and recursive work tables far above work_mem: each spills to
-- temporary files (base/pgsql_tmp) and must give the in-memory answer.
SET work_mem = '64kB';

-- Sort: an external merge of many runs.
SELECT x FROM generate_series(1, 100000) x ORDER BY x DESC OFFSET 49998 LIMIT 3;
SELECT x, md5(x::text) FROM generate_series(1, 50000) x ORDER BY md5(x::text) LIMIT 3;
SELECT x, md5(x::text) FROM generate_series(1, 50000) x ORDER BY md5(x::text) DESC LIMIT 3;
SELECT x % 7 AS r, x FROM generate_series(1, 100000) x ORDER BY 1, 2 DESC OFFSET 50000 LIMIT 3;
SELECT count(*), sum(x) FROM (SELECT x FROM generate_series(1, 100000) x ORDER BY x % 1000, x) s;

-- NULLs sort last ascending, first descending, and where asked.
SELECT n FROM (SELECT CASE WHEN x % 3 = 0 THEN NULL ELSE x END AS n
               FROM generate_series(1, 60000) x) s ORDER BY n LIMIT 2;
SELECT n FROM (SELECT CASE WHEN x % 3 = 0 THEN NULL ELSE x END AS n
               FROM generate_series(1, 60000) x) s ORDER BY n OFFSET 39999 LIMIT 3;
SELECT n FROM (SELECT CASE WHEN x % 3 = 0 THEN NULL ELSE x END AS n
               FROM generate_series(1, 60000) x) s ORDER BY n DESC LIMIT 2;
SELECT n FROM (SELECT CASE WHEN x % 3 = 0 THEN NULL ELSE x END AS n
               FROM generate_series(1, 60000) x) s ORDER BY n NULLS FIRST OFFSET 19999 LIMIT 2;

-- Hash aggregation (and, with hashing off, sorted grouping).
SELECT count(*), sum(c), min(k), max(k), sum(s) FROM (
  SELECT x % 30000 AS k, count(*) AS c, sum(x) AS s FROM generate_series(1, 100000) x GROUP BY 1) g;
SELECT count(*), sum(c), count(k) FROM (
  SELECT CASE WHEN x % 5 = 0 THEN NULL ELSE x % 20000 END AS k, count(*) AS c
  FROM generate_series(1, 100000) x GROUP BY 1) g;
SELECT k, c, s FROM (
  SELECT x % 30000 AS k, count(*) AS c, sum(x) AS s FROM generate_series(1, 100000) x GROUP BY 1) g
ORDER BY k DESC LIMIT 3;
SELECT count(*), sum(d) FROM (
  SELECT x % 2000 AS k, count(DISTINCT x % 37) AS d FROM generate_series(1, 100000) x GROUP BY 1) g;
SELECT count(*) FROM (SELECT DISTINCT x % 40000 FROM generate_series(1, 100000) x) d;
SET enable_hashagg = off;
SELECT count(*), sum(c), min(k), max(k), sum(s) FROM (
  SELECT x % 30000 AS k, count(*) AS c, sum(x) AS s FROM generate_series(1, 100000) x GROUP BY 1) g;
SELECT k, c FROM (
  SELECT CASE WHEN x % 5 = 0 THEN NULL ELSE x % 20000 END AS k, count(*) AS c
  FROM generate_series(1, 100000) x GROUP BY 1) g ORDER BY k NULLS FIRST LIMIT 3;
RESET enable_hashagg;

-- Hash joins in batches: inner, left and right, NULL keys on both sides.
SELECT count(*), sum(a.x::bigint + b.y) FROM generate_series(1, 100000) a(x)
  JOIN generate_series(1, 100000) b(y) ON a.x = b.y;
SELECT count(*), count(b.y), sum(b.y) FROM generate_series(1, 80000) a(x)
  LEFT JOIN (SELECT CASE WHEN y % 4 = 0 THEN NULL ELSE y * 2 END AS y
             FROM generate_series(1, 60000) y) b ON a.x = b.y;
-- (sluice hashes the smaller, preserved side: a Hash Right Join)
SELECT count(*), count(a.x), count(b.y), sum(b.y) FROM
  (SELECT CASE WHEN y % 7 = 0 THEN NULL ELSE y * 2 END AS y
   FROM generate_series(1, 100000) y WHERE y > 0) b
  LEFT JOIN (SELECT CASE WHEN x % 10 = 0 THEN NULL ELSE x END AS x
             FROM generate_series(1, 50000) x) a ON a.x = b.y;
SELECT count(*), count(a.x), count(b.y) FROM
  (SELECT CASE WHEN x % 10 = 0 THEN NULL ELSE x END AS x FROM generate_series(1, 100000) x) a
  LEFT JOIN (SELECT y FROM generate_series(1, 60000) y WHERE y % 3 <> 0) b ON a.x = b.y;
SELECT count(*), sum(a.x) FROM generate_series(1, 30000) a(x)
  JOIN (SELECT y % 3000 AS y FROM generate_series(1, 90000) y) b ON a.x = b.y;

-- A nested loop over a materialised inner side (the smaller one, wide).
SELECT count(*), sum(b.y), max(length(b.pad)) FROM generate_series(1, 300) a(x)
  JOIN (SELECT y, repeat('x', 200) AS pad FROM generate_series(1, 500) y WHERE y > 0) b
  ON b.y <= a.x;

-- WITH results read by several readers, and recursive work tables.
WITH t AS (SELECT x, md5(x::text) AS m FROM generate_series(1, 50000) x)
SELECT (SELECT count(*) FROM t), (SELECT max(m) FROM t), (SELECT sum(x) FROM t WHERE x % 2 = 0);
WITH t AS (SELECT x FROM generate_series(1, 40000) x)
SELECT count(*), sum(a.x) FROM t a JOIN t b ON a.x = b.x + 1;
WITH RECURSIVE r(n, lvl) AS (
  SELECT x, 0 FROM generate_series(1, 20000) x
  UNION ALL
  SELECT n + 1, lvl + 1 FROM r WHERE lvl < 4)
SELECT count(*), sum(n), max(lvl) FROM r;
WITH RECURSIVE r(n) AS (
  SELECT x FROM generate_series(1, 20000) x
  UNION
  SELECT n + 10000 FROM r WHERE n < 50000)
SELECT count(*), sum(n), max(n) FROM r;

-- Set operations.
SELECT count(*), sum(x) FROM (SELECT x FROM generate_series(1, 60000) x
  UNION SELECT x FROM generate_series(30000, 90000) x) s;
SELECT count(*), sum(x) FROM (SELECT x % 50000 AS x FROM generate_series(1, 100000) x
  INTERSECT SELECT x FROM generate_series(25000, 80000) x) s;
SELECT count(*), sum(x) FROM (SELECT x % 50000 AS x FROM generate_series(1, 100000) x
  INTERSECT ALL SELECT x % 30000 FROM generate_series(1, 90000) x) s;
SELECT count(*), sum(x) FROM (SELECT x % 50000 AS x FROM generate_series(1, 100000) x
  EXCEPT SELECT x FROM generate_series(1, 49990) x) s;
SELECT count(*), sum(x) FROM (SELECT x % 50000 AS x FROM generate_series(1, 100000) x
  EXCEPT ALL SELECT x FROM generate_series(1, 49990) x) s;

-- temp_file_limit caps what one statement writes.
SET temp_file_limit = '100kB';
SELECT x FROM generate_series(1, 200000) x ORDER BY x DESC LIMIT 1;
SELECT count(*) FROM (SELECT DISTINCT x FROM generate_series(1, 200000) x) d;
SET temp_file_limit = '100MB';
SELECT x FROM generate_series(1, 200000) x ORDER BY x DESC LIMIT 1;
RESET temp_file_limit;
RESET work_mem;
