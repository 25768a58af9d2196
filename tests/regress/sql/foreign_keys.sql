-- FOREIGN KEY constraints: checks on the referencing side, actions on the
-- referenced side, deferral, ALTER TABLE and DROP.
CREATE TABLE pk (id int PRIMARY KEY, code text UNIQUE, v text);
CREATE TABLE fk (id int PRIMARY KEY, pid int REFERENCES pk, note text);
INSERT INTO pk VALUES (1, 'a', 'one'), (2, 'b', 'two'), (3, 'c', 'three');
INSERT INTO fk VALUES (10, 1, 'x'), (11, NULL, 'no parent');
INSERT INTO fk VALUES (12, 4, 'y');
UPDATE fk SET pid = 5 WHERE id = 10;
UPDATE fk SET pid = 2 WHERE id = 10;
UPDATE fk SET note = 'changed' WHERE id = 10;
DELETE FROM pk WHERE id = 2;
UPDATE pk SET id = 20 WHERE id = 2;
UPDATE pk SET v = 'deux' WHERE id = 2;
DELETE FROM pk WHERE id = 1;
SELECT conname, contype, confupdtype, confdeltype, confmatchtype, condeferrable,
       pg_get_constraintdef(oid)
  FROM pg_constraint WHERE conrelid = 'fk'::regclass ORDER BY conname;
\d fk
\d pk
-- actions
CREATE TABLE casc (id int PRIMARY KEY,
                   pid int REFERENCES pk ON DELETE CASCADE ON UPDATE CASCADE);
CREATE TABLE setn (id int, pid int REFERENCES pk ON DELETE SET NULL);
CREATE TABLE setd (id int, pid int DEFAULT 3 REFERENCES pk ON DELETE SET DEFAULT);
CREATE TABLE restr (id int, pid int REFERENCES pk ON DELETE RESTRICT);
INSERT INTO pk VALUES (4, 'd', 'four'), (5, 'e', 'five');
INSERT INTO casc VALUES (1, 4), (2, 4), (3, 5);
INSERT INTO setn VALUES (1, 4), (2, 5);
INSERT INTO setd VALUES (1, 4), (2, 3);
UPDATE pk SET id = 40 WHERE id = 4;
SELECT * FROM casc ORDER BY id;
DELETE FROM pk WHERE id = 40;
SELECT * FROM casc ORDER BY id;
SELECT * FROM setn ORDER BY id;
SELECT * FROM setd ORDER BY id;
INSERT INTO setd VALUES (3, 5);
DELETE FROM pk WHERE id = 3;
INSERT INTO restr VALUES (1, 5);
DELETE FROM pk WHERE id = 5;
DROP TABLE restr;
-- multi-column keys and MATCH FULL
CREATE TABLE pk2 (a int, b int, PRIMARY KEY (a, b));
CREATE TABLE simple (a int, b int, FOREIGN KEY (a, b) REFERENCES pk2);
CREATE TABLE full_ (a int, b int, FOREIGN KEY (a, b) REFERENCES pk2 (a, b) MATCH FULL);
INSERT INTO pk2 VALUES (1, 1);
INSERT INTO simple VALUES (1, NULL), (9, NULL), (1, 1);
INSERT INTO simple VALUES (1, 2);
INSERT INTO full_ VALUES (NULL, NULL), (1, 1);
INSERT INTO full_ VALUES (1, NULL);
SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'full_'::regclass;
-- deferrable constraints
CREATE TABLE dfk (id int, pid int REFERENCES pk DEFERRABLE INITIALLY DEFERRED);
BEGIN;
INSERT INTO dfk VALUES (1, 100);
SELECT count(*) FROM dfk;
INSERT INTO pk VALUES (100, 'z', 'late');
COMMIT;
BEGIN;
INSERT INTO dfk VALUES (2, 101);
COMMIT;
SELECT * FROM dfk;
BEGIN;
SET CONSTRAINTS ALL IMMEDIATE;
INSERT INTO dfk VALUES (3, 102);
ROLLBACK;
BEGIN;
INSERT INTO dfk VALUES (3, 102);
SET CONSTRAINTS dfk_pid_fkey IMMEDIATE;
ROLLBACK;
BEGIN;
SAVEPOINT s;
INSERT INTO dfk VALUES (4, 103);
ROLLBACK TO s;
COMMIT;
SET CONSTRAINTS fk_pid_fkey DEFERRED;
BEGIN;
SET CONSTRAINTS fk_pid_fkey DEFERRED;
SET CONSTRAINTS no_such_constraint DEFERRED;
ROLLBACK;
-- ALTER TABLE ... ADD FOREIGN KEY checks existing rows
CREATE TABLE later (id int, pid int);
INSERT INTO later VALUES (1, 100), (2, 999);
ALTER TABLE later ADD FOREIGN KEY (pid) REFERENCES pk;
ALTER TABLE later ADD CONSTRAINT later_pid_fkey FOREIGN KEY (pid) REFERENCES pk NOT VALID;
SELECT convalidated FROM pg_constraint WHERE conname = 'later_pid_fkey';
INSERT INTO later VALUES (3, 998);
ALTER TABLE later VALIDATE CONSTRAINT later_pid_fkey;
DELETE FROM later WHERE id = 2;
ALTER TABLE later VALIDATE CONSTRAINT later_pid_fkey;
SELECT convalidated FROM pg_constraint WHERE conname = 'later_pid_fkey';
ALTER TABLE later DROP CONSTRAINT later_pid_fkey;
INSERT INTO later VALUES (4, 997);
-- errors when defining keys
CREATE TABLE bad (a text REFERENCES pk);
CREATE TABLE bad (a int REFERENCES pk (v));
CREATE TABLE bad (a int REFERENCES nosuch);
CREATE TABLE bad (a int REFERENCES pk (nosuch));
CREATE TABLE bad (a int, FOREIGN KEY (a, a) REFERENCES pk);
CREATE TABLE bad (a int REFERENCES pk2);
CREATE TABLE byname (c text REFERENCES pk (code));
INSERT INTO byname VALUES ('b'), ('zz');
-- a table referencing itself
CREATE TABLE tree (id int PRIMARY KEY, parent int REFERENCES tree ON DELETE CASCADE);
INSERT INTO tree VALUES (1, NULL), (2, 1), (3, 2), (4, 1);
INSERT INTO tree VALUES (5, 6);
DELETE FROM tree WHERE id = 2;
SELECT * FROM tree ORDER BY id;
-- truncating a referenced table
TRUNCATE pk;
TRUNCATE pk CASCADE;
SELECT count(*) FROM fk;
-- dropping a referenced table
DROP TABLE pk2;
DROP TABLE pk2 CASCADE;
INSERT INTO simple VALUES (7, 7);
DROP TABLE tree;
DROP TABLE fk, casc, setn, setd, dfk, later, byname, simple, full_, pk;
