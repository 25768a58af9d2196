-- TRUNCATE: a new empty file per table, transactional like any DDL; several
-- tables at once, RESTART IDENTITY, COPY FREEZE after it, and the errors.
CREATE TABLE trunc_a (id serial, v text);
CREATE TABLE trunc_b (x int);
INSERT INTO trunc_a (v) VALUES ('one'), ('two'), ('three');
INSERT INTO trunc_b SELECT g FROM generate_series(1, 10) g;
-- A rolled-back TRUNCATE keeps the rows, and what was inserted after it goes.
BEGIN;
TRUNCATE trunc_a;
SELECT count(*) FROM trunc_a;
INSERT INTO trunc_a (v) VALUES ('during');
SELECT id, v FROM trunc_a;
ROLLBACK;
SELECT id, v FROM trunc_a ORDER BY id;
-- The table gets a new relfilenode and the statistics of an empty table.
SELECT relfilenode AS before_truncate FROM pg_class WHERE relname = 'trunc_b' \gset
TRUNCATE trunc_b;
SELECT relfilenode <> :before_truncate AS new_file, relpages, reltuples
  FROM pg_class WHERE relname = 'trunc_b';
INSERT INTO trunc_b SELECT g FROM generate_series(1, 10) g;
-- Several tables at once; a table named twice is truncated once.
TRUNCATE TABLE trunc_a, trunc_b, trunc_a;
SELECT (SELECT count(*) FROM trunc_a) AS a, (SELECT count(*) FROM trunc_b) AS b;
-- CONTINUE IDENTITY (the default) leaves the sequences alone ...
INSERT INTO trunc_a (v) VALUES ('four');
TRUNCATE ONLY trunc_a CONTINUE IDENTITY RESTRICT;
INSERT INTO trunc_a (v) VALUES ('five');
SELECT id, v FROM trunc_a;
-- ... RESTART IDENTITY starts owned sequences again, and a rollback undoes
-- that too; currval keeps the session's last value.
BEGIN;
TRUNCATE trunc_a RESTART IDENTITY CASCADE;
SELECT currval('trunc_a_id_seq');
INSERT INTO trunc_a (v) VALUES ('restarted') RETURNING id;
ROLLBACK;
INSERT INTO trunc_a (v) VALUES ('after rollback') RETURNING id;
TRUNCATE trunc_a RESTART IDENTITY;
SELECT last_value, is_called FROM trunc_a_id_seq;
INSERT INTO trunc_a (v) VALUES ('restarted') RETURNING id;
-- Truncated twice in one transaction, then committed.
BEGIN;
INSERT INTO trunc_b VALUES (1);
TRUNCATE trunc_b;
INSERT INTO trunc_b VALUES (2);
TRUNCATE trunc_b;
INSERT INTO trunc_b VALUES (3);
COMMIT;
SELECT * FROM trunc_b;
-- COPY FREEZE is allowed for a table truncated (or created) in the same
-- transaction, as pgbench -i does ...
BEGIN;
TRUNCATE trunc_b;
COPY trunc_b FROM STDIN WITH (FREEZE);
7
8
\.
COMMIT;
SELECT * FROM trunc_b ORDER BY x;
BEGIN;
CREATE TABLE trunc_new (x int);
COPY trunc_new FROM STDIN WITH (FREEZE on);
1
\.
ROLLBACK;
-- ... and nowhere else.
COPY trunc_b FROM STDIN (FREEZE);
9
\.
BEGIN;
INSERT INTO trunc_b VALUES (10);
COPY trunc_b FROM STDIN (FREEZE true);
9
\.
ROLLBACK;
COPY trunc_b FROM STDIN (FREEZE false);
9
\.
SELECT * FROM trunc_b ORDER BY x;
-- Errors: nothing is truncated when one of the names is bad.
TRUNCATE trunc_missing;
TRUNCATE trunc_b, trunc_missing;
SELECT count(*) FROM trunc_b;
CREATE SEQUENCE trunc_s;
TRUNCATE trunc_s;
TRUNCATE trunc_b, trunc_s;
TRUNCATE pg_class;
TRUNCATE nosuchschema.trunc_b;
TRUNCATE public.trunc_b;
SELECT count(*) FROM trunc_b;
BEGIN;
TRUNCATE trunc_missing;
SELECT 1;
ROLLBACK;
DROP TABLE trunc_a, trunc_b;
DROP SEQUENCE trunc_s;
