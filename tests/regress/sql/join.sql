-- Join methods and join order chosen by cost (hash, merge, nested loop),
-- with the plans PostgreSQL 15 picks for the same analysed data.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE dept (id int, name text);
CREATE TABLE emp (id int, dept_id int, salary int);
CREATE TABLE proj (id int, emp_id int, hours int);
CREATE TABLE tiny (k int, label text);
INSERT INTO dept SELECT i, 'dept' || i FROM generate_series(1, 1000) i;
INSERT INTO emp SELECT i, (i % 1000) + 1, 1000 + i % 37 FROM generate_series(1, 5000) i;
INSERT INTO emp VALUES (5001, NULL, 5);
INSERT INTO proj SELECT i, (i * 7) % 5000 + 1, i % 40 FROM generate_series(1, 300) i;
INSERT INTO tiny VALUES (1, 'one'), (2, 'two'), (3, 'three'), (NULL, 'null');
ANALYZE dept;
ANALYZE emp;
ANALYZE proj;
ANALYZE tiny;
-- hash join: the smaller side is hashed
EXPLAIN (COSTS OFF) SELECT * FROM dept d JOIN emp e ON d.id = e.dept_id;
EXPLAIN (COSTS OFF) SELECT d.name, e.salary FROM dept d, emp e WHERE d.id = e.dept_id AND e.salary = 1003;
EXPLAIN (COSTS OFF) SELECT * FROM dept d JOIN emp e ON d.id = e.dept_id AND d.id < e.salary - 900;
SELECT count(*), sum(e.salary) FROM dept d JOIN emp e ON d.id = e.dept_id;
SELECT d.name, e.id FROM dept d JOIN emp e ON d.id = e.dept_id WHERE e.salary = 1003 AND d.id < 50 ORDER BY e.id;
-- outer joins keep the unmatched rows of the preserved side
EXPLAIN (COSTS OFF) SELECT * FROM emp e LEFT JOIN dept d ON d.id = e.dept_id;
SELECT e.id, d.name FROM emp e LEFT JOIN dept d ON d.id = e.dept_id WHERE e.id > 4995 ORDER BY e.id;
SELECT t.k, t.label, p.id FROM tiny t LEFT JOIN proj p ON p.id = t.k ORDER BY t.label;
SELECT count(*) FROM dept d LEFT JOIN proj p ON p.emp_id = d.id;
-- three and four tables: the order comes from the costs, not the FROM list
EXPLAIN (COSTS OFF) SELECT * FROM emp e JOIN dept d ON d.id = e.dept_id JOIN proj p ON p.emp_id = e.id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM proj p, emp e, dept d, tiny t WHERE p.emp_id = e.id AND e.dept_id = d.id AND t.k = p.hours;
SELECT count(*), sum(p.hours) FROM emp e JOIN dept d ON d.id = e.dept_id JOIN proj p ON p.emp_id = e.id;
SELECT t.label, count(*) FROM proj p, emp e, dept d, tiny t WHERE p.emp_id = e.id AND e.dept_id = d.id AND t.k = p.hours GROUP BY t.label ORDER BY 1;
-- merge join when hashing is off; nested loop when both are off
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT * FROM dept d JOIN emp e ON d.id = e.dept_id;
SELECT count(*), sum(e.salary) FROM dept d JOIN emp e ON d.id = e.dept_id;
SELECT count(*) FROM emp e LEFT JOIN dept d ON d.id = e.dept_id;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT * FROM dept d JOIN emp e ON d.id = e.dept_id;
SELECT count(*) FROM dept d JOIN emp e ON d.id = e.dept_id;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- a cross join and a condition on no table at all
EXPLAIN (COSTS OFF) SELECT * FROM tiny a, tiny b WHERE a.k < b.k;
SELECT a.k, b.k FROM tiny a, tiny b WHERE a.k < b.k ORDER BY 1, 2;
-- NULL keys never match
SELECT count(*) FROM tiny a JOIN tiny b ON a.k = b.k;
-- the preserved side of a LEFT JOIN may be the hashed one (Hash Right Join)
EXPLAIN (COSTS OFF) SELECT * FROM dept d LEFT JOIN emp e ON d.id = e.dept_id;
EXPLAIN (COSTS OFF) SELECT * FROM dept d LEFT JOIN proj p ON p.emp_id = d.id AND p.hours > 5;
SELECT count(*), count(p.id) FROM dept d LEFT JOIN proj p ON p.emp_id = d.id AND p.hours > 5;
EXPLAIN (COSTS OFF) SELECT count(*) FROM emp e LEFT JOIN proj p ON p.emp_id = e.id WHERE p.id IS NULL;
SELECT count(*) FROM emp e LEFT JOIN proj p ON p.emp_id = e.id WHERE p.id IS NULL;
-- merge joins keep a left join's unmatched rows too (Merge Right Join:
-- the nullable side is the outer one)
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT * FROM emp e LEFT JOIN dept d ON d.id = e.dept_id;
SELECT count(*), count(d.id) FROM emp e LEFT JOIN dept d ON d.id = e.dept_id;
SELECT e.id, d.name FROM emp e LEFT JOIN dept d ON d.id = e.dept_id AND d.id < 3 WHERE e.id < 5 OR e.id > 4999 ORDER BY e.id;
SELECT t.k, p.id FROM tiny t LEFT JOIN proj p ON p.id = t.k AND p.hours > 1 ORDER BY t.label;
RESET enable_hashjoin;
