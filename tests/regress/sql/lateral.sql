-- LATERAL: FROM items that read the columns of the items to their left and
-- are run again for every row of those; functions in FROM may do so too.
CREATE TABLE lat_o (id int, n int);
INSERT INTO lat_o VALUES (1, 2), (2, 0), (3, 3);
CREATE TABLE lat_i (ref int, v text);
INSERT INTO lat_i VALUES (1, 'a'), (1, 'bb'), (1, 'ccc'), (3, 'dddd'), (4, 'e');
-- A subquery reading the row to its left.
SELECT o.id, s.doubled FROM lat_o o, LATERAL (SELECT o.n * 2 AS doubled) s ORDER BY o.id;
SELECT * FROM lat_o o CROSS JOIN LATERAL (SELECT o.id + o.n, o.id * o.n) s(plus, times) ORDER BY 1;
-- A function in FROM reads the row to its left, with or without LATERAL.
SELECT o.id, g FROM lat_o o CROSS JOIN LATERAL generate_series(1, o.n) g ORDER BY 1, 2;
SELECT o.id, g FROM lat_o o, generate_series(o.n, 3) g ORDER BY 1, 2;
-- Correlated aggregates and top-N per row.
SELECT o.id, s.cnt FROM lat_o o JOIN LATERAL
  (SELECT count(*) AS cnt FROM lat_i i WHERE i.ref = o.id) s ON true ORDER BY 1;
SELECT o.id, s.v FROM lat_o o, LATERAL
  (SELECT v FROM lat_i i WHERE i.ref = o.id ORDER BY v DESC LIMIT 2) s ORDER BY 1, 2;
-- LEFT JOIN LATERAL keeps rows for which the subquery is empty.
SELECT o.id, s.v FROM lat_o o LEFT JOIN LATERAL
  (SELECT v FROM lat_i i WHERE i.ref = o.id ORDER BY v LIMIT 1) s ON true ORDER BY 1;
SELECT o.id, s.v FROM lat_o o LEFT JOIN LATERAL
  (SELECT v FROM lat_i i WHERE i.ref = o.id) s ON s.v LIKE '%c%' ORDER BY 1, 2;
SELECT o.id, count(g) FROM lat_o o LEFT JOIN LATERAL generate_series(1, o.n) g ON true
  GROUP BY o.id ORDER BY o.id;
-- Several items to the left, and items inside a join.
SELECT a.id, b.id, s.x FROM lat_o a, lat_o b, LATERAL (SELECT a.n + b.n AS x) s
  WHERE a.id < b.id ORDER BY 1, 2;
SELECT a.id, s.x FROM lat_o a, (lat_o b JOIN LATERAL (SELECT a.n * 10 + b.n AS x) s ON true)
  WHERE a.id = b.id ORDER BY 1;
SELECT a.id, b.id, s.x FROM lat_o a JOIN lat_o b ON a.id <= b.id
  JOIN LATERAL (SELECT a.n * 10 + b.n AS x) s ON s.x > 0 ORDER BY 1, 2;
-- LATERAL inside LATERAL, reading both levels.
SELECT a.id, t.y FROM lat_o a, LATERAL
  (SELECT s.x + 1 AS y FROM lat_o b, LATERAL (SELECT a.n * 100 + b.n AS x) s WHERE b.id >= a.id) t
  ORDER BY 1, 2;
-- Subqueries and WITH queries inside the item see the row too.
SELECT o.id, s.m FROM lat_o o, LATERAL
  (SELECT (SELECT max(i.v) FROM lat_i i WHERE i.ref = o.id) AS m) s ORDER BY 1;
SELECT o.id, s.w FROM lat_o o, LATERAL
  (WITH c AS (SELECT o.n + 100 AS w) SELECT w FROM c) s ORDER BY 1;
SELECT o.id, s.x FROM lat_o o, LATERAL
  (SELECT i.v AS x FROM lat_i i WHERE i.ref IN (SELECT o2.id FROM lat_o o2 WHERE o2.id = o.id)) s
  ORDER BY 1, 2;
-- A LATERAL item in a subquery that reads the enclosing query as well.
SELECT o.id, (SELECT sum(s.x) FROM lat_i i, LATERAL (SELECT length(i.v) + o.n AS x) s
              WHERE i.ref = o.id) AS total
  FROM lat_o o ORDER BY 1;
SELECT o.id, (SELECT max(s.w) FROM lat_i i, LATERAL
               (WITH c AS (SELECT o.n * 10 + length(i.v) AS w) SELECT w FROM c) s) AS m
  FROM lat_o o ORDER BY 1;
SELECT o.id, (SELECT max(s.w + length(i.v)) FROM lat_i i, LATERAL
               (WITH c AS (SELECT o.n * 10 AS w) SELECT w FROM c) s) AS m
  FROM lat_o o ORDER BY 1;
SELECT o.id FROM lat_o o WHERE EXISTS
  (SELECT 1 FROM lat_i i, LATERAL (SELECT i.v || o.n AS tag) s WHERE s.tag = 'a2') ORDER BY 1;
-- Without a reference to its left, LATERAL changes nothing.
SELECT count(*) FROM lat_o o, LATERAL (SELECT * FROM lat_i) s;
-- pgbench's start-up query (which table is pgbench_accounts, is it partitioned).
SELECT current_schemas(true), current_schemas(false);
SELECT array_position(current_schemas(true), 'public'), array_position('{1,2,1}'::int[], 1, 2);
CREATE TABLE pgbench_accounts (aid int not null, bid int, abalance int, filler char(84))
  WITH (fillfactor=100);
select o.n, p.partstrat, pg_catalog.count(i.inhparent) from pg_catalog.pg_class as c join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) where c.relname = 'pgbench_accounts' and o.n is not null group by 1, 2 order by 1 asc limit 1;
SELECT count(*) FROM pg_partitioned_table;
SELECT count(*) FROM pg_inherits;
DROP TABLE lat_o, lat_i, pgbench_accounts;
