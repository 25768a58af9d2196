-- PREPARE, EXECUTE and DEALLOCATE, sharing the prepared statements of the
-- protocol, as in PostgreSQL's prepare.sql.
CREATE TABLE things (id int PRIMARY KEY, name text);
INSERT INTO things VALUES (1, 'one'), (2, 'two'), (3, 'three');
PREPARE q1 AS SELECT name FROM things WHERE id = 1;
EXECUTE q1;
PREPARE q2(int) AS SELECT name FROM things WHERE id > $1 ORDER BY id;
EXECUTE q2(1);
EXECUTE q2('2');
PREPARE q3(int, text) AS INSERT INTO things VALUES ($1, $2) RETURNING *;
EXECUTE q3(4, 'four');
EXECUTE q3(5, 6);
PREPARE q4 AS UPDATE things SET name = upper(name) WHERE id = $1;
EXECUTE q4(2);
SELECT * FROM things ORDER BY id;
PREPARE q5(text) AS DELETE FROM things WHERE name = $1;
EXECUTE q5('three');
-- wrong numbers and types of parameters
EXECUTE q2;
EXECUTE q2(1, 2);
EXECUTE q2('x');
EXECUTE q2(true);
-- names
PREPARE q1 AS SELECT 2;
EXECUTE nosuch;
DEALLOCATE nosuch;
DEALLOCATE q1;
EXECUTE q1;
DEALLOCATE PREPARE q2;
DEALLOCATE ALL;
EXECUTE q3(6, 'six');
-- inside a transaction block, and after it rolled back
BEGIN;
PREPARE q6 AS SELECT count(*) FROM things;
EXECUTE q6;
ROLLBACK;
EXECUTE q6;
