-- Views: CREATE [OR REPLACE] VIEW, reading them, what they depend on,
-- DROP VIEW and DROP ... CASCADE, psql's \d, pg_views and pg_class.
CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(8,2), qty int);
INSERT INTO items VALUES (1, 'apple', 0.50, 10), (2, 'pear', 0.75, 0), (3, 'fig', 2.00, 5);
CREATE VIEW in_stock AS SELECT id, name, price FROM items WHERE qty > 0;
SELECT * FROM in_stock ORDER BY id;
SELECT name FROM in_stock WHERE price > 1;
SELECT s.id, i.qty FROM in_stock s JOIN items i ON i.id = s.id ORDER BY 1;
SELECT count(*) FROM in_stock AS x(a, b);
\d in_stock
SELECT relname, relkind, relnatts, relhasrules FROM pg_class WHERE relname = 'in_stock';
SELECT rulename, ev_type, is_instead FROM pg_rewrite WHERE ev_class = 'in_stock'::regclass;
SELECT schemaname, viewname, viewowner FROM pg_views WHERE viewname = 'in_stock';
SELECT attname, atttypid::regtype, attnum FROM pg_attribute
  WHERE attrelid = 'in_stock'::regclass ORDER BY attnum;
-- Column names, expressions and a star frozen at creation.
CREATE VIEW totals (item, total) AS SELECT name, price * qty FROM items;
SELECT * FROM totals ORDER BY item;
CREATE VIEW everything AS SELECT * FROM items;
ALTER TABLE items ADD COLUMN note text;
SELECT * FROM everything ORDER BY id;
CREATE VIEW too_many (a, b) AS SELECT 1;
CREATE VIEW dup AS SELECT 1 AS a, 2 AS a;
CREATE VIEW in_stock AS SELECT 1;
CREATE VIEW bad AS SELECT * FROM nosuch;
-- Views on views.
CREATE VIEW cheap AS SELECT name FROM in_stock WHERE price < 1;
SELECT * FROM cheap;
-- CREATE OR REPLACE keeps the columns and may add more.
CREATE OR REPLACE VIEW in_stock AS SELECT id, name, price, qty FROM items WHERE qty > 0;
SELECT * FROM in_stock ORDER BY id;
CREATE OR REPLACE VIEW in_stock AS SELECT id, name FROM items;
CREATE OR REPLACE VIEW in_stock AS SELECT id, upper(name) AS label, price, qty FROM items;
CREATE OR REPLACE VIEW in_stock AS SELECT id, name, price::float8, qty FROM items;
CREATE OR REPLACE VIEW items AS SELECT 1;
-- The search path of the reader does not change what a view reads.
CREATE SCHEMA other;
CREATE TABLE other.items (id int, name text, price numeric(8,2), qty int);
SET search_path = other, public;
SELECT count(*) FROM public.in_stock;
RESET search_path;
-- COPY reads tables, not views.
COPY in_stock TO STDOUT;
-- Dependencies.
DROP TABLE items;
DROP VIEW in_stock;
DROP TABLE in_stock;
DROP VIEW items;
DROP VIEW nosuch;
DROP VIEW IF EXISTS nosuch;
BEGIN;
DROP VIEW in_stock CASCADE;
SELECT relname FROM pg_class WHERE relname IN ('in_stock', 'cheap') ORDER BY 1;
ROLLBACK;
DROP TABLE items CASCADE;
SELECT relname FROM pg_class WHERE relkind = 'v' AND relnamespace = 'public'::regnamespace;
SELECT count(*) FROM pg_rewrite WHERE ev_class NOT IN (SELECT oid FROM pg_class);
-- A view in a schema goes with it.
CREATE VIEW other.v AS SELECT id FROM other.items;
DROP SCHEMA other CASCADE;
-- Views are transactional.
CREATE TABLE t (a int);
BEGIN;
CREATE VIEW tv AS SELECT a FROM t;
ROLLBACK;
SELECT count(*) FROM pg_class WHERE relname = 'tv';
CREATE VIEW tv AS SELECT a FROM t;
ALTER VIEW tv RENAME TO tv2;
SELECT * FROM tv2;
DROP VIEW tv2;
-- Renaming and moving what a view reads; dropping a column it needs.
CREATE TABLE base (a int, b text, c int);
INSERT INTO base VALUES (1, 'one', 10);
CREATE VIEW bv AS SELECT a, b AS label, base.c FROM base WHERE a > 0;
CREATE VIEW bv2 AS SELECT * FROM bv;
ALTER TABLE base RENAME TO base2;
SELECT * FROM bv2;
ALTER TABLE base2 RENAME COLUMN a TO a2;
ALTER TABLE base2 RENAME COLUMN c TO c2;
SELECT * FROM bv;
\d bv
CREATE SCHEMA moved;
ALTER TABLE base2 SET SCHEMA moved;
SELECT * FROM bv;
ALTER TABLE moved.base2 ADD COLUMN d int;
ALTER TABLE moved.base2 DROP COLUMN d;
ALTER TABLE moved.base2 DROP COLUMN b;
ALTER TABLE moved.base2 DROP COLUMN b CASCADE;
SELECT relname FROM pg_class WHERE relname IN ('bv', 'bv2');
SELECT * FROM moved.base2;
DROP SCHEMA moved CASCADE;
-- Views that read each other.
CREATE TABLE r (x int);
CREATE VIEW r1 AS SELECT x FROM r;
CREATE VIEW r2 AS SELECT x FROM r1;
CREATE OR REPLACE VIEW r1 AS SELECT x FROM r2;
SELECT * FROM r2;
DROP TABLE r CASCADE;
-- LOCK of a view locks what it reads, through other views.
CREATE TABLE lk1 (a int);
CREATE TABLE lk2 (b int);
CREATE VIEW lkv1 AS SELECT a FROM lk1;
CREATE VIEW lkv2 AS SELECT a, b FROM lkv1, lk2;
BEGIN;
LOCK TABLE lkv2 IN EXCLUSIVE MODE;
SELECT c.relname FROM pg_locks l JOIN pg_class c ON l.relation = c.oid
  WHERE l.mode = 'ExclusiveLock' AND c.relname LIKE 'lk%' ORDER BY 1;
ROLLBACK;
