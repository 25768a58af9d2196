-- CREATE DATABASE and DROP DATABASE: templates, catalogs copied from the
-- template, sessions seeing only their own database, and the errors.
SELECT datname, datistemplate, datallowconn FROM pg_database
  WHERE datname IN ('postgres', 'template0', 'template1') ORDER BY datname;
DROP DATABASE IF EXISTS regress_db1;
DROP DATABASE IF EXISTS regress_db2;
DROP DATABASE IF EXISTS regress_db4;
CREATE DATABASE regress_db1;
CREATE DATABASE regress_db1;
CREATE DATABASE regress_db2 WITH OWNER postgres TEMPLATE template0 ENCODING 'UTF8'
  LC_COLLATE 'C' LC_CTYPE 'C' STRATEGY wal_log CONNECTION LIMIT 5 IS_TEMPLATE false;
SELECT datname, encoding, datistemplate, datallowconn, datconnlimit, datcollate, datctype
  FROM pg_database WHERE datname LIKE 'regress\_db%' ORDER BY datname;
BEGIN;
CREATE DATABASE regress_db3;
ROLLBACK;
CREATE DATABASE regress_db3 TEMPLATE nosuch;
CREATE DATABASE regress_db3 OWNER nosuch;
CREATE DATABASE regress_db3 ENCODING 'nosuch';
CREATE DATABASE regress_db3 ENCODING 'LATIN1';
CREATE DATABASE regress_db3 STRATEGY foo;
CREATE DATABASE regress_db3 FOO 1;
CREATE DATABASE regress_db3 CONNECTION LIMIT -5;
CREATE DATABASE regress_db3 TABLESPACE nosuch;
CREATE DATABASE regress_db3 OWNER postgres OWNER postgres;
CREATE DATABASE postgres TEMPLATE template0;
SELECT count(*) FROM pg_database WHERE datname = 'regress_db3';
-- Each database sees only its own tables.
\c regress_db2
SELECT current_database();
CREATE TABLE regress_here (a int);
INSERT INTO regress_here VALUES (1);
\c regress_db1
SELECT current_database();
SELECT * FROM regress_here;
CREATE TABLE regress_there (id serial, b text);
INSERT INTO regress_there (b) VALUES ('in db1');
SELECT count(*) FROM pg_class WHERE relname IN ('pg_class', 'pg_type', 'pg_database');
DROP DATABASE regress_db1;
-- A database made from regress_db1 starts with its tables and sequences,
-- which then go their own way.
CREATE DATABASE regress_db4 TEMPLATE regress_db1;
\c regress_db4
SELECT * FROM regress_there;
INSERT INTO regress_there (b) VALUES ('in db4') RETURNING id;
\c regress_db1
INSERT INTO regress_there (b) VALUES ('in db1 again') RETURNING id;
SELECT * FROM regress_there ORDER BY id;
\c regress_db2
SELECT * FROM regress_there;
SELECT * FROM regress_here;
-- Dropping.
DROP DATABASE regress_db1;
DROP DATABASE regress_db1;
DROP DATABASE IF EXISTS regress_db1;
DROP DATABASE regress_db4 WITH (FORCE);
DROP DATABASE regress_db2;
BEGIN;
DROP DATABASE regress_db4;
ROLLBACK;
DROP DATABASE regress_db4 WITH (NOSUCH);
DROP DATABASE template1;
\c postgres
DROP DATABASE postgres;
DROP DATABASE regress_db2;
SELECT datname FROM pg_database WHERE datname LIKE 'regress\_db%';
