-- CHECK constraints: column and table ones, names chosen as PostgreSQL
-- chooses them, enforced by INSERT, UPDATE, COPY and ON CONFLICT DO UPDATE,
-- added to a table with rows, NOT VALID and VALIDATE, dropped and renamed.
CREATE TABLE items (
    id int PRIMARY KEY,
    price numeric CHECK (price > 0),
    qty int CONSTRAINT qty_nonneg CHECK (qty >= 0),
    lo int, hi int,
    CHECK (lo <= hi),
    CHECK (lo > -100)
);
\d items
SELECT conname, contype, convalidated, conkey, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true)
  FROM pg_constraint WHERE conrelid = 'items'::regclass ORDER BY conname;
SELECT relchecks FROM pg_class WHERE relname = 'items';
INSERT INTO items VALUES (1, 10, 1, 1, 2);
INSERT INTO items VALUES (2, 0, 1, 1, 2);
INSERT INTO items VALUES (3, 10, -1, 1, 2);
INSERT INTO items VALUES (4, 10, 1, 5, 2);
INSERT INTO items VALUES (5, 10, 1, -200, 2);
-- NULL passes a CHECK.
INSERT INTO items VALUES (6, NULL, NULL, NULL, NULL);
UPDATE items SET qty = qty - 5 WHERE id = 1;
UPDATE items SET price = price * 2 WHERE id = 1;
INSERT INTO items VALUES (1, 5, 1, 1, 2) ON CONFLICT (id) DO UPDATE SET price = -excluded.price;
COPY items FROM stdin;
7	3	3	1	1
8	-3	3	1	1
\.
SELECT * FROM items ORDER BY id;
-- Several violated: the first by name is reported.
INSERT INTO items VALUES (9, -1, -1, 1, 2);

-- Duplicate names.
CREATE TABLE dup (a int CONSTRAINT c CHECK (a > 0), b int CONSTRAINT c CHECK (b > 0));
ALTER TABLE items ADD CONSTRAINT qty_nonneg CHECK (qty < 100);
-- Names taken in the schema are skipped.
CREATE TABLE t1 (a int CHECK (a > 0));
CREATE TABLE t2 (a int, CONSTRAINT t1_a_check CHECK (a > 0));
ALTER TABLE t1 ADD CHECK (a < 10);
ALTER TABLE t1 ADD CHECK (a < 20);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
  WHERE conrelid IN ('t1'::regclass, 't2'::regclass) ORDER BY conname;

-- Adding to a table with rows proves them; NOT VALID does not.
ALTER TABLE items ADD CONSTRAINT id_small CHECK (id < 5);
ALTER TABLE items ADD CONSTRAINT id_small CHECK (id < 5) NOT VALID;
SELECT conname, convalidated FROM pg_constraint WHERE conname = 'id_small';
INSERT INTO items VALUES (10, 1, 1, 1, 2);
ALTER TABLE items VALIDATE CONSTRAINT id_small;
DELETE FROM items WHERE id >= 5;
ALTER TABLE items VALIDATE CONSTRAINT id_small;
SELECT conname, convalidated FROM pg_constraint WHERE conname = 'id_small';
ALTER TABLE items VALIDATE CONSTRAINT no_such;
ALTER TABLE items VALIDATE CONSTRAINT items_pkey;

-- Bad expressions.
CREATE TABLE bad (a int CHECK (a + 1));
CREATE TABLE bad (a int CHECK (b > 0));
CREATE TABLE bad (a int CHECK (a > (SELECT 1)));
CREATE TABLE bad (a int CHECK (sum(a) > 0));

-- Rename and drop.
ALTER TABLE items RENAME CONSTRAINT qty_nonneg TO qty_ok;
ALTER TABLE items RENAME CONSTRAINT no_such TO x;
ALTER TABLE items RENAME CONSTRAINT qty_ok TO items_pkey;
ALTER TABLE items RENAME COLUMN qty TO quantity;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
  WHERE conrelid = 'items'::regclass ORDER BY conname;
INSERT INTO items VALUES (4, 1, -1, 1, 2);
ALTER TABLE items DROP CONSTRAINT qty_ok;
ALTER TABLE items DROP CONSTRAINT qty_ok;
ALTER TABLE items DROP CONSTRAINT IF EXISTS qty_ok;
INSERT INTO items VALUES (4, 1, -1, 1, 2);
SELECT relchecks FROM pg_class WHERE relname = 'items';
-- Dropping an index-backed constraint drops its index.
ALTER TABLE items DROP CONSTRAINT items_pkey;
SELECT count(*) FROM pg_class WHERE relname = 'items_pkey';

-- DDL is transactional.
BEGIN;
ALTER TABLE items ADD CONSTRAINT tmp CHECK (price < 1000);
INSERT INTO items VALUES (3, 5000, 1, 1, 2);
ROLLBACK;
INSERT INTO items VALUES (3, 5000, 1, 1, 2);

-- LIKE ... INCLUDING CONSTRAINTS copies them.
CREATE TABLE items_copy (LIKE items INCLUDING CONSTRAINTS);
\d items_copy
CREATE TABLE items_nocopy (LIKE items);
SELECT relchecks FROM pg_class WHERE relname = 'items_nocopy';
DROP TABLE items, items_copy, items_nocopy, t1, t2;
SELECT count(*) FROM pg_constraint WHERE contype = 'c' AND conrelid <> 0;
