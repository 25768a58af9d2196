-- Expressions, aggregates, sorting and limits without tables.
SELECT 1 + 2 AS three, 'a' || 'b' AS ab, 10 / 3 AS int_div, 10.0 / 4 AS num_div;
SELECT repeat('x', 3), length('hello'), upper('abc'), lower('ABC'), md5('a');
SELECT count(*) FROM generate_series(1, 1000);
SELECT i % 3 AS k, count(*) FROM generate_series(1, 10) i GROUP BY k ORDER BY k;
SELECT sum(i), avg(i), min(i), max(i) FROM generate_series(1, 100) i;
SELECT 1 WHERE false;
SELECT i FROM generate_series(1, 10) i ORDER BY i DESC LIMIT 3 OFFSET 2;
SELECT DISTINCT i % 2 AS parity FROM generate_series(1, 10) i ORDER BY 1;
SELECT nocol FROM generate_series(1, 2) i;
SELECT 'abc'::int;
SELECT 2147483647 + 1;
SELECT pg_size_pretty(149::bigint * 1024 * 1024), pg_size_pretty(8192::bigint);
SELECT coalesce(NULL, 'x'), NULL IS NULL AS is_null, 3 BETWEEN 1 AND 5 AS between_;
SELECT count(*), max(i) FROM generate_series(1, 3) i WHERE i > 5;
