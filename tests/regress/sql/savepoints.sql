-- Savepoints: SAVEPOINT, RELEASE, ROLLBACK TO, nesting, the failed state.
CREATE TABLE sp (id int, note text);
BEGIN;
INSERT INTO sp VALUES (1, 'top');
SAVEPOINT a;
INSERT INTO sp VALUES (2, 'in a');
SAVEPOINT b;
INSERT INTO sp VALUES (3, 'in b');
ROLLBACK TO SAVEPOINT b;
SELECT * FROM sp ORDER BY id;
INSERT INTO sp VALUES (4, 'in b again');
RELEASE SAVEPOINT a;
SELECT * FROM sp ORDER BY id;
COMMIT;
SELECT * FROM sp ORDER BY id;
-- ROLLBACK TO an outer savepoint undoes released inner ones too.
BEGIN;
SAVEPOINT a;
UPDATE sp SET note = 'changed' WHERE id = 1;
SAVEPOINT b;
DELETE FROM sp WHERE id = 2;
RELEASE b;
ROLLBACK TO a;
SELECT * FROM sp ORDER BY id;
-- The savepoint survives ROLLBACK TO and can be used again.
DELETE FROM sp WHERE id = 4;
ROLLBACK TO a;
SELECT count(*) FROM sp;
COMMIT;
-- Rows inserted before a savepoint and changed inside it.
BEGIN;
INSERT INTO sp VALUES (10, 'new');
SAVEPOINT s;
UPDATE sp SET note = 'newer' WHERE id = 10;
SELECT * FROM sp WHERE id = 10;
ROLLBACK TO s;
SELECT * FROM sp WHERE id = 10;
SAVEPOINT s;
DELETE FROM sp WHERE id = 10;
RELEASE s;
SELECT * FROM sp WHERE id = 10;
ROLLBACK;
-- An error inside a savepoint fails the block until ROLLBACK TO.
BEGIN;
INSERT INTO sp VALUES (20, 'before');
SAVEPOINT s;
INSERT INTO sp VALUES (21, 'lost');
SELECT 1 / 0;
SELECT * FROM sp;
SAVEPOINT t;
RELEASE s;
ROLLBACK TO nosuch;
ROLLBACK TO s;
INSERT INTO sp VALUES (22, 'after');
COMMIT;
SELECT * FROM sp WHERE id >= 20 ORDER BY id;
-- Errors in a block without savepoints: ROLLBACK TO does not help.
BEGIN;
SELECT 1 / 0;
ROLLBACK TO s;
COMMIT;
-- Savepoint errors.
SAVEPOINT x;
RELEASE SAVEPOINT x;
ROLLBACK TO SAVEPOINT x;
BEGIN;
RELEASE x;
SELECT 1;
ROLLBACK;
BEGIN;
SAVEPOINT x;
ROLLBACK TO y;
ROLLBACK TO x;
RELEASE x;
RELEASE x;
ROLLBACK;
-- Names may repeat: the innermost one is meant.
BEGIN;
SAVEPOINT p;
INSERT INTO sp VALUES (30, 'outer p');
SAVEPOINT p;
INSERT INTO sp VALUES (31, 'inner p');
ROLLBACK TO p;
RELEASE p;
SELECT * FROM sp WHERE id >= 30;
RELEASE p;
ROLLBACK TO p;
COMMIT;
SELECT * FROM sp WHERE id >= 30;
-- Settings follow savepoints.
BEGIN;
SET work_mem = '1MB';
SAVEPOINT a;
SET work_mem = '2MB';
SHOW work_mem;
ROLLBACK TO a;
SHOW work_mem;
SET work_mem = '3MB';
RELEASE a;
SHOW work_mem;
ROLLBACK;
SHOW work_mem;
-- A table created in a rolled-back savepoint is gone; one dropped there stays.
BEGIN;
SAVEPOINT a;
CREATE TABLE sp_gone (x int);
ROLLBACK TO a;
DROP TABLE sp;
ROLLBACK TO a;
COMMIT;
SELECT * FROM sp_gone;
SELECT count(*) FROM sp;
-- Many subtransactions with xids, each released or rolled back.
BEGIN;
SELECT 'SAVEPOINT s' || g || '; INSERT INTO sp VALUES (' || 1000 + g || ', ''many''); '
       || CASE WHEN g % 3 = 0 THEN 'ROLLBACK TO' ELSE 'RELEASE' END || ' s' || g
  FROM generate_series(1, 150) g \gexec
SELECT count(*) FROM sp WHERE note = 'many';
COMMIT;
SELECT count(*) FROM sp WHERE note = 'many';
-- psql's ON_ERROR_ROLLBACK wraps each statement in a savepoint.
\set ON_ERROR_ROLLBACK on
BEGIN;
INSERT INTO sp VALUES (40, 'kept');
INSERT INTO sp VALUES (41, 1 / 0);
INSERT INTO sp VALUES (42, 'kept too');
COMMIT;
\set ON_ERROR_ROLLBACK off
SELECT * FROM sp WHERE id BETWEEN 40 AND 49 ORDER BY id;
DROP TABLE sp;
