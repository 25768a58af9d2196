-- Subqueries used as expressions: scalar, EXISTS, IN, NOT IN, ANY/ALL,
-- uncorrelated and correlated, in every clause and in INSERT/UPDATE/DELETE.
CREATE TABLE sub_dept (id int, name text);
CREATE TABLE sub_emp (id int, dept int, name text, salary numeric);
INSERT INTO sub_dept VALUES (1, 'eng'), (2, 'ops'), (3, 'empty');
INSERT INTO sub_emp VALUES (1, 1, 'ann', 120), (2, 1, 'bob', 100), (3, 2, 'cid', 90),
  (4, 2, 'dee', 95), (5, NULL, 'eve', 80);
-- Scalar subqueries.
SELECT (SELECT 1) AS one, (SELECT 'x') AS x, (SELECT 1 WHERE false) AS nothing;
SELECT name, salary, (SELECT max(salary) FROM sub_emp) AS top FROM sub_emp ORDER BY id;
SELECT name, salary - (SELECT avg(salary) FROM sub_emp) AS diff FROM sub_emp ORDER BY id;
SELECT (SELECT name FROM sub_emp WHERE salary > 100);
SELECT (SELECT name FROM sub_emp WHERE salary > 90);
SELECT (SELECT id, name FROM sub_emp);
SELECT (SELECT);
-- Correlated: one evaluation per outer row.
SELECT d.name, (SELECT count(*) FROM sub_emp e WHERE e.dept = d.id) AS staff,
       (SELECT max(e.salary) FROM sub_emp e WHERE e.dept = d.id) AS top
FROM sub_dept d ORDER BY d.id;
SELECT name FROM sub_emp e
WHERE salary > (SELECT avg(salary) FROM sub_emp e2 WHERE e2.dept = e.dept) ORDER BY name;
SELECT name, (SELECT name FROM sub_dept WHERE id = dept) AS dept_name FROM sub_emp ORDER BY id;
SELECT id, (SELECT (SELECT e.name || '@' || d.name) FROM sub_dept d WHERE d.id = e.dept) FROM sub_emp e ORDER BY id;
-- EXISTS.
SELECT name FROM sub_dept d WHERE EXISTS (SELECT 1 FROM sub_emp e WHERE e.dept = d.id) ORDER BY id;
SELECT name FROM sub_dept d WHERE NOT EXISTS (SELECT 1 FROM sub_emp e WHERE e.dept = d.id) ORDER BY id;
SELECT EXISTS (SELECT 1 WHERE false) AS f, EXISTS (SELECT) AS t;
-- IN and NOT IN, with SQL's NULL rules.
SELECT name FROM sub_emp WHERE dept IN (SELECT id FROM sub_dept WHERE name = 'ops') ORDER BY id;
SELECT name FROM sub_dept WHERE id NOT IN (SELECT dept FROM sub_emp) ORDER BY id;
SELECT name FROM sub_dept WHERE id NOT IN (SELECT dept FROM sub_emp WHERE dept IS NOT NULL) ORDER BY id;
SELECT 1 IN (SELECT 1 UNION ALL SELECT NULL) AS t, 2 IN (SELECT 1 UNION ALL SELECT NULL) AS null_,
       2 NOT IN (SELECT 1 UNION ALL SELECT NULL) AS null2, 2 NOT IN (SELECT 1) AS t2,
       NULL IN (SELECT 1) AS null3, NULL IN (SELECT 1 WHERE false) AS f, 1 NOT IN (SELECT 1 WHERE false) AS t3;
SELECT id, dept IN (SELECT id FROM sub_dept WHERE id < 2) AS in_1 FROM sub_emp ORDER BY id;
-- ANY / ALL.
SELECT name FROM sub_emp WHERE salary > ALL (SELECT salary FROM sub_emp WHERE dept = 2) ORDER BY id;
SELECT name FROM sub_emp WHERE salary < ANY (SELECT salary FROM sub_emp WHERE dept = 2) ORDER BY id;
SELECT 5 > ALL (SELECT 1 WHERE false) AS t, 5 > ANY (SELECT 1 WHERE false) AS f,
       5 > ALL (SELECT NULL::int) AS null_, 5 <> ALL (SELECT 5 UNION ALL SELECT NULL) AS f2;
SELECT 1.5 = ANY (SELECT 1 UNION ALL SELECT 2) AS numeric_vs_int, 'b' = SOME (SELECT 'a' UNION ALL SELECT 'b') AS text_;
SELECT 1 IN (SELECT id, name FROM sub_dept);
SELECT 1 IN (SELECT);
SELECT 1 IN (SELECT name FROM sub_dept);
SELECT 1 + ANY (SELECT 1);
-- Large uncorrelated IN / NOT IN lists (PostgreSQL hashes them).
SELECT count(*) FROM generate_series(1, 20000) i WHERE i NOT IN (SELECT j * 2 FROM generate_series(1, 20000) j);
SELECT count(*) FROM generate_series(1, 20000) i WHERE i IN (SELECT j * 3 FROM generate_series(1, 20000) j);
SELECT count(*) FROM generate_series(1, 2000) i
WHERE i NOT IN (SELECT CASE WHEN j = 7 THEN NULL ELSE j END FROM generate_series(5, 9) j);
SELECT count(*) FROM generate_series(1, 2000) i
WHERE (i NOT IN (SELECT CASE WHEN j = 7 THEN NULL ELSE j END FROM generate_series(5, 9) j)) IS NULL;
-- In GROUP BY queries, HAVING and ORDER BY.
SELECT dept, count(*) FROM sub_emp GROUP BY dept
HAVING count(*) > (SELECT count(*) FROM sub_dept WHERE name = 'eng') ORDER BY dept;
SELECT dept, sum(salary), (SELECT name FROM sub_dept WHERE id = dept) FROM sub_emp
GROUP BY dept ORDER BY dept;
SELECT name FROM sub_emp ORDER BY (SELECT name FROM sub_dept WHERE id = dept) NULLS FIRST, name;
SELECT id FROM sub_emp LIMIT (SELECT count(*) FROM sub_dept WHERE id < 3);
-- Subqueries in FROM.
SELECT * FROM (SELECT dept, count(*) AS n FROM sub_emp GROUP BY dept) AS s WHERE n > 1 ORDER BY dept;
SELECT s.* FROM (SELECT 1, 'two') AS s(a, b);
SELECT x, y FROM (SELECT 1, 2, 3) s(x, y);
SELECT * FROM (SELECT 1, 2) s(x, y, z);
SELECT * FROM (SELECT id FROM sub_dept) s, (SELECT id FROM sub_dept) t WHERE s.id = t.id + 1 ORDER BY 1;
SELECT a FROM (SELECT 1 AS a) s WHERE s.b = 1;
SELECT d.name, s.total FROM sub_dept d
  JOIN (SELECT dept, sum(salary) AS total FROM sub_emp GROUP BY dept) s ON s.dept = d.id ORDER BY 1;
-- Errors inside subqueries point into them.
SELECT (SELECT nosuch FROM sub_emp);
SELECT (SELECT id FROM nosuch);
SELECT * FROM sub_emp WHERE dept IN (SELECT x.id FROM sub_dept);
SELECT 1 WHERE 1 = (SELECT 1 / 0);
-- Outer references resolve in the nearest query that has the name.
SELECT id, (SELECT id FROM sub_dept WHERE sub_dept.id = e.id) AS d FROM sub_emp e ORDER BY 1;
SELECT (SELECT name) FROM sub_dept ORDER BY id;
-- INSERT, UPDATE and DELETE with subqueries.
INSERT INTO sub_emp VALUES ((SELECT max(id) + 1 FROM sub_emp), 3, 'fay', (SELECT min(salary) FROM sub_emp));
UPDATE sub_emp SET salary = salary + 1 WHERE dept = (SELECT id FROM sub_dept WHERE name = 'eng');
UPDATE sub_emp e SET salary = (SELECT max(salary) FROM sub_emp e2 WHERE e2.dept = e.dept)
  WHERE dept = 2 RETURNING id, salary;
DELETE FROM sub_emp WHERE dept NOT IN (SELECT id FROM sub_dept) OR dept IS NULL RETURNING name;
DELETE FROM sub_emp e WHERE EXISTS (SELECT 1 FROM sub_dept d WHERE d.id = e.dept AND d.name = 'empty');
SELECT * FROM sub_emp ORDER BY id;
DROP TABLE sub_emp;
DROP TABLE sub_dept;
