-- WITH queries (plain and recursive) and set operations.
-- Set operations: duplicates, ALL, precedence, type resolution, ORDER BY/LIMIT.
SELECT 1 AS n UNION SELECT 2 UNION SELECT 1 ORDER BY n;
SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 1;
SELECT x FROM (VALUES (1), (1), (2), (3), (NULL), (NULL)) v(x)
INTERSECT SELECT x FROM (VALUES (1), (1), (3), (NULL)) w(x) ORDER BY 1;
SELECT x FROM (VALUES (1), (1), (2), (3), (NULL), (NULL)) v(x)
INTERSECT ALL SELECT x FROM (VALUES (1), (1), (3), (NULL)) w(x) ORDER BY 1;
SELECT x FROM (VALUES (1), (1), (2), (3), (NULL), (NULL)) v(x)
EXCEPT SELECT x FROM (VALUES (1), (3)) w(x) ORDER BY 1;
SELECT x FROM (VALUES (1), (1), (1), (2), (NULL), (NULL)) v(x)
EXCEPT ALL SELECT x FROM (VALUES (1), (NULL)) w(x) ORDER BY 1;
SELECT 1 UNION SELECT 2 INTERSECT SELECT 2 ORDER BY 1;
(SELECT 1 UNION SELECT 2) INTERSECT SELECT 2;
SELECT 1 AS a, 'one' AS b UNION ALL SELECT 2.5, 'two' ORDER BY a DESC;
SELECT 1 UNION SELECT '2' ORDER BY 1;
SELECT 'a' AS t UNION SELECT 'b' ORDER BY t DESC LIMIT 1;
SELECT NULL UNION SELECT NULL;
SELECT 1::bigint AS x UNION SELECT 2::int UNION SELECT 3.5 ORDER BY 1;
SELECT i FROM generate_series(1, 5) i EXCEPT SELECT i FROM generate_series(2, 3) i ORDER BY i DESC LIMIT 2 OFFSET 1;
(SELECT 3 AS x ORDER BY 1 LIMIT 1) UNION ALL (SELECT 1 ORDER BY 1) ORDER BY x;
SELECT 1 UNION SELECT 'a';
SELECT 1 UNION SELECT 1, 2;
SELECT 1 INTERSECT SELECT true;
SELECT 1 AS x UNION SELECT 2 ORDER BY y;
SELECT 1 AS x UNION SELECT 2 ORDER BY x + 1;
SELECT 1 AS x UNION SELECT 2 ORDER BY 2;
-- WITH: several queries, column lists, one reading another.
WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT * FROM a, b;
WITH t(a, b) AS (SELECT 1, 2) SELECT b, a FROM t;
WITH t(a) AS (SELECT 1, 2) SELECT * FROM t;
WITH t(a, b) AS (SELECT 1) SELECT * FROM t;
WITH w AS (SELECT i FROM generate_series(1, 3) i) SELECT w1.i, w2.i FROM w w1, w w2 WHERE w1.i < w2.i ORDER BY 1, 2;
WITH w AS (SELECT 1 AS x) SELECT (SELECT x FROM w) + (SELECT count(*) FROM w WHERE x > 0);
WITH w AS (SELECT 1 / 0 AS boom) SELECT 'never read';
WITH x AS (SELECT 1), x AS (SELECT 2) SELECT * FROM x;
WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a;
WITH a AS (SELECT * FROM a) SELECT * FROM a;
WITH t AS (SELECT 1 AS x) SELECT t.y FROM t;
WITH a AS (SELECT 1 AS v) SELECT * FROM (WITH a AS (SELECT 2 AS v) SELECT * FROM a) s, a;
SELECT (WITH w AS (SELECT 5 AS v) SELECT v FROM w) AS nested;
CREATE TABLE with_shadow (v int);
INSERT INTO with_shadow VALUES (100);
WITH with_shadow AS (SELECT 1 AS v) SELECT v FROM with_shadow;
SELECT v FROM with_shadow;
DROP TABLE with_shadow;
-- WITH RECURSIVE: counting, sums, fibonacci, and stopping by LIMIT.
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 100)
SELECT count(*), sum(n), min(n), max(n) FROM t;
WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t;
WITH RECURSIVE fib(i, a, b) AS (
  SELECT 1, 0::numeric, 1::numeric
  UNION ALL
  SELECT i + 1, b, a + b FROM fib WHERE i < 15)
SELECT i, a AS fib FROM fib ORDER BY i;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 5;
WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n % 3 + 1 FROM t) SELECT * FROM t ORDER BY n;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n % 3 + 1 FROM t) SELECT * FROM t LIMIT 7;
WITH RECURSIVE t(s) AS (SELECT 'a' UNION ALL SELECT s || 'a' FROM t WHERE length(s) < 4) SELECT s FROM t;
WITH RECURSIVE a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a;
-- A tree walk over a parent/child table.
CREATE TABLE with_tree (id int, parent int, name text);
INSERT INTO with_tree VALUES (1, NULL, 'root'), (2, 1, 'usr'), (3, 1, 'etc'), (4, 2, 'bin'),
  (5, 2, 'lib'), (6, 4, 'ls'), (7, 3, 'hosts'), (8, NULL, 'other');
WITH RECURSIVE walk(id, path, depth) AS (
  SELECT id, name, 0 FROM with_tree WHERE parent IS NULL AND name = 'root'
  UNION ALL
  SELECT c.id, w.path || '/' || c.name, w.depth + 1
  FROM with_tree c JOIN walk w ON c.parent = w.id)
SELECT depth, path FROM walk ORDER BY path;
WITH RECURSIVE up(id, name) AS (
  SELECT id, name FROM with_tree WHERE name = 'ls'
  UNION ALL
  SELECT t.id, t.name FROM with_tree t, up WHERE t.id = (SELECT parent FROM with_tree WHERE id = up.id))
SELECT name FROM up;
SELECT name, (WITH RECURSIVE anc(id, n) AS (SELECT t.parent, 0 UNION ALL
              SELECT w.parent, n + 1 FROM with_tree w, anc WHERE w.id = anc.id)
              SELECT max(n) FROM anc) AS depth
FROM with_tree t ORDER BY id;
DROP TABLE with_tree;
-- Recursive queries PostgreSQL refuses.
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1::bigint FROM t WHERE n < 3) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT 2.5 FROM t) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT n FROM t UNION SELECT 1) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT t.n + 1 FROM t, t t2 WHERE t.n < 3) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n IN (SELECT n FROM t)) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 INTERSECT SELECT n + 1 FROM t) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT n FROM t) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t LIMIT 3) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT 'a') SELECT * FROM t;
