-- ALTER COLUMN ... TYPE (with and without USING) and ADD COLUMN with a
-- value per row: both rewrite the table, rebuilding its indexes and
-- checking its constraints on the way. Identity sequences follow the new
-- type; views over the column, defaults that cannot be cast and
-- constraints the new values break refuse the change.
CREATE TABLE idt (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v varchar(5) DEFAULT 'abc', n numeric(5,2) CHECK (n < 100), g int GENERATED ALWAYS AS (id * 2) STORED);
INSERT INTO idt (v, n) VALUES ('1', 1.25), ('22', 2.5), (NULL, NULL), ('4', 99.99);
CREATE INDEX ON idt (v);
CREATE INDEX ON idt (n);
ALTER TABLE idt ALTER COLUMN id TYPE bigint;
SELECT seqtypid::regtype, seqmax FROM pg_sequence WHERE seqrelid = 'idt_id_seq'::regclass;
ALTER TABLE idt ALTER COLUMN v TYPE varchar(10);
ALTER TABLE idt ALTER COLUMN v TYPE int;
ALTER TABLE idt ALTER COLUMN v DROP DEFAULT, ALTER COLUMN v TYPE int USING v::int;
SELECT * FROM idt ORDER BY id;
ALTER TABLE idt ALTER COLUMN n TYPE int USING n::int;
SELECT * FROM idt ORDER BY id;
ALTER TABLE idt ALTER COLUMN n TYPE numeric(3,1) USING n * 10;
ALTER TABLE idt ALTER COLUMN n TYPE numeric(4,1) USING n * 10;
ALTER TABLE idt ALTER COLUMN n TYPE text;
SELECT * FROM idt WHERE v = 22;
SELECT * FROM idt WHERE n = '99';
SET enable_seqscan = off;
SELECT * FROM idt WHERE v = 22;
RESET enable_seqscan;
ALTER TABLE idt ALTER COLUMN id TYPE int;
INSERT INTO idt (v, n) VALUES (5, '5') RETURNING *;
ALTER TABLE idt ALTER COLUMN nope TYPE int;
ALTER TABLE idt ALTER COLUMN n TYPE nosuchtype;
ALTER TABLE idt ALTER COLUMN n TYPE int USING (SELECT 1);
ALTER TABLE idt ALTER COLUMN n TYPE int USING max(v);
ALTER TABLE idt ALTER COLUMN v TYPE bool USING v;
ALTER TABLE idt ALTER COLUMN v TYPE int USING v / 0;
ALTER TABLE idt ALTER COLUMN v TYPE smallint, ALTER COLUMN n SET NOT NULL;
CREATE VIEW idv AS SELECT id, v FROM idt;
ALTER TABLE idt ALTER COLUMN v TYPE bigint;
ALTER TABLE idt ALTER COLUMN n TYPE varchar(20);
BEGIN;
ALTER TABLE idt ALTER COLUMN n TYPE varchar(40);
ROLLBACK;
SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute WHERE attrelid = 'idt'::regclass AND attnum > 0 ORDER BY attnum;
SELECT * FROM idt ORDER BY id;
CREATE TABLE ac (a int);
INSERT INTO ac VALUES (1), (2), (3);
ALTER TABLE ac ADD COLUMN id serial;
ALTER TABLE ac ADD COLUMN ident int GENERATED ALWAYS AS IDENTITY;
ALTER TABLE ac ADD COLUMN g int GENERATED ALWAYS AS (a * 10) STORED;
ALTER TABLE ac ADD COLUMN bad int GENERATED ALWAYS AS (nope * 10) STORED;
ALTER TABLE ac ADD COLUMN r float8 DEFAULT random();
ALTER TABLE ac ADD COLUMN nn int NOT NULL;
ALTER TABLE ac ADD COLUMN c int DEFAULT 7 NOT NULL;
SELECT a, id, ident, g, r BETWEEN 0 AND 1 AS r_ok, c FROM ac ORDER BY a;
INSERT INTO ac (a) VALUES (4) RETURNING a, id, ident, g, c;
\d ac
-- A rewrite keeps every row a committed transaction left, and rolls back.
CREATE TABLE rw (a int PRIMARY KEY, b text);
INSERT INTO rw SELECT i, 'row ' || i FROM generate_series(1, 500) i;
DELETE FROM rw WHERE a % 3 = 0;
BEGIN;
ALTER TABLE rw ALTER COLUMN a TYPE bigint;
SELECT count(*), sum(a) FROM rw;
ROLLBACK;
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'rw'::regclass AND attname = 'a';
ALTER TABLE rw ALTER COLUMN a TYPE bigint, ALTER COLUMN b TYPE varchar(10);
SELECT count(*), sum(a), max(b) FROM rw;
SET enable_seqscan = off;
SELECT * FROM rw WHERE a = 499;
RESET enable_seqscan;
INSERT INTO rw VALUES (1, 'again');
