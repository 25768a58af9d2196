-- ALTER TABLE's column and naming subcommands, several in one statement,
-- each under the lock PostgreSQL takes for it.
CREATE TABLE acct (id serial PRIMARY KEY, owner text, balance int, note text);
INSERT INTO acct (owner, balance) VALUES ('ann', 10), ('bob', NULL);

-- Defaults.
ALTER TABLE acct ALTER COLUMN balance SET DEFAULT 0;
INSERT INTO acct (owner) VALUES ('cy');
ALTER TABLE acct ALTER balance SET DEFAULT 7 * 6, ALTER COLUMN note SET DEFAULT 'none'::text;
INSERT INTO acct (owner) VALUES ('di');
SELECT * FROM acct ORDER BY id;
\d acct
ALTER TABLE acct ALTER COLUMN balance DROP DEFAULT;
ALTER TABLE acct ALTER COLUMN balance DROP DEFAULT;
INSERT INTO acct (owner) VALUES ('ed');
ALTER TABLE acct ALTER COLUMN nosuch SET DEFAULT 1;
ALTER TABLE acct ALTER COLUMN balance SET DEFAULT nosuchfunc();
ALTER TABLE acct ALTER COLUMN balance SET DEFAULT 'x';
SELECT adnum, pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'acct'::regclass ORDER BY 1;

-- NOT NULL.
ALTER TABLE acct ALTER COLUMN balance SET NOT NULL;
UPDATE acct SET balance = 0 WHERE balance IS NULL;
ALTER TABLE acct ALTER COLUMN balance SET NOT NULL;
INSERT INTO acct (owner, balance) VALUES ('fy', NULL);
ALTER TABLE acct ALTER COLUMN balance DROP NOT NULL;
INSERT INTO acct (owner, balance) VALUES ('fy', NULL);
ALTER TABLE acct ALTER COLUMN id DROP NOT NULL;
SELECT attname, attnotnull, atthasdef FROM pg_attribute
  WHERE attrelid = 'acct'::regclass AND attnum > 0 ORDER BY attnum;

-- One statement, several subcommands: all or nothing.
ALTER TABLE acct ALTER COLUMN note SET NOT NULL, ALTER COLUMN owner SET NOT NULL;
SELECT attname, attnotnull FROM pg_attribute
  WHERE attrelid = 'acct'::regclass AND attname IN ('note', 'owner') ORDER BY attname;
ALTER TABLE acct ALTER COLUMN owner SET NOT NULL, ADD CONSTRAINT positive CHECK (balance > 0);
SELECT attname, attnotnull FROM pg_attribute
  WHERE attrelid = 'acct'::regclass AND attname = 'owner';

-- Renames.
ALTER TABLE acct RENAME TO account;
SELECT count(*) FROM account;
SELECT count(*) FROM acct;
ALTER TABLE account RENAME COLUMN owner TO holder;
ALTER TABLE account RENAME holder TO holder2;
ALTER TABLE account RENAME COLUMN nosuch TO x;
ALTER TABLE account RENAME COLUMN holder2 TO balance;
ALTER INDEX acct_pkey RENAME TO account_pkey;
-- ALTER INDEX renames any relation, ALTER SEQUENCE only sequences.
ALTER INDEX account RENAME TO x;
ALTER TABLE x RENAME TO account;
ALTER SEQUENCE account RENAME TO x;
ALTER SEQUENCE acct_id_seq RENAME TO x;
ALTER TABLE IF EXISTS nosuch RENAME TO x;
ALTER TABLE nosuch RENAME TO x;
CREATE TABLE other (a int);
ALTER TABLE other RENAME TO account;
CREATE INDEX other_a ON other (a) WHERE a > 0;
ALTER TABLE other RENAME a TO b;
SELECT pg_get_indexdef('other_a'::regclass);
\d account
INSERT INTO account (holder2) VALUES ('gus') RETURNING id, holder2, balance;
ALTER TABLE IF EXISTS nosuch ALTER COLUMN a SET NOT NULL;

-- Lock levels.
BEGIN;
ALTER TABLE account SET (fillfactor = 90);
SELECT mode FROM pg_locks WHERE relation = 'account'::regclass AND granted ORDER BY mode;
ROLLBACK;
BEGIN;
ALTER TABLE account ADD CONSTRAINT chk CHECK (balance > -1000) NOT VALID;
SELECT mode FROM pg_locks WHERE relation = 'account'::regclass AND granted ORDER BY mode;
COMMIT;
BEGIN;
ALTER TABLE account VALIDATE CONSTRAINT chk;
SELECT mode FROM pg_locks WHERE relation = 'account'::regclass AND granted ORDER BY mode;
COMMIT;
BEGIN;
ALTER TABLE account VALIDATE CONSTRAINT chk, ALTER COLUMN note DROP DEFAULT;
SELECT mode FROM pg_locks WHERE relation = 'account'::regclass AND granted ORDER BY mode;
COMMIT;
BEGIN;
ALTER INDEX account_pkey RENAME TO account_pkey2;
SELECT c.relname, l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
  WHERE c.relname LIKE 'account%' AND granted ORDER BY 1, 2;
ROLLBACK;
DROP TABLE account, other;

-- ADD COLUMN: rows already stored read the default evaluated when the
-- column was added; nothing is rewritten.
CREATE TABLE grow (id int PRIMARY KEY, a text);
INSERT INTO grow SELECT g, 'r' || g FROM generate_series(1, 5) g;
SELECT pg_relation_size('grow') AS before \gset
ALTER TABLE grow ADD COLUMN b int;
ALTER TABLE grow ADD COLUMN c int DEFAULT 40 + 2, ADD d text NOT NULL DEFAULT 'dflt'::text;
ALTER TABLE grow ADD COLUMN e numeric(6,2) DEFAULT 1.005 CHECK (e > 0);
SELECT pg_relation_size('grow') = :before AS not_rewritten;
SELECT attname, atthasmissing FROM pg_attribute
  WHERE attrelid = 'grow'::regclass AND attnum > 0 ORDER BY attnum;
INSERT INTO grow (id, a) VALUES (6, 'new');
INSERT INTO grow VALUES (7, 'all', 1, 2, 'x', 3.5);
UPDATE grow SET c = c + 1 WHERE id = 2;
SELECT * FROM grow ORDER BY id;
SELECT id FROM grow WHERE c = 42 ORDER BY id;
CREATE INDEX grow_c ON grow (c);
SET enable_seqscan = off;
SELECT id, c FROM grow WHERE c = 42 ORDER BY id;
RESET enable_seqscan;
VACUUM FULL grow;
SELECT * FROM grow WHERE id IN (1, 2) ORDER BY id;
\d grow
ALTER TABLE grow ADD COLUMN f int NOT NULL;
ALTER TABLE grow ADD COLUMN g int CHECK (g > 100) DEFAULT 5;
ALTER TABLE grow ADD COLUMN a int;
ALTER TABLE grow ADD COLUMN IF NOT EXISTS a int;
ALTER TABLE grow ADD COLUMN h int DEFAULT 'x';
-- An empty table takes any new column, serial and primary key included.
CREATE TABLE empty (x int);
ALTER TABLE empty ADD COLUMN id serial PRIMARY KEY, ADD COLUMN n int NOT NULL;
INSERT INTO empty (x, n) VALUES (1, 2) RETURNING *;
\d empty
-- Rolled back, the column is gone.
BEGIN;
ALTER TABLE grow ADD COLUMN tmp int DEFAULT 9;
SELECT tmp FROM grow WHERE id = 1;
ROLLBACK;
SELECT tmp FROM grow WHERE id = 1;
SELECT * FROM grow WHERE id = 1;
DROP TABLE grow, empty;

-- DROP COLUMN: the column disappears from every query and takes its
-- default, owned sequence, checks and indexes with it.
CREATE TABLE shrink (id serial PRIMARY KEY, a int DEFAULT 5 CHECK (a > 0),
                     b text, c int CHECK (c > a), d int UNIQUE);
CREATE INDEX shrink_b ON shrink (b);
CREATE INDEX shrink_part ON shrink (id) WHERE a > 1;
INSERT INTO shrink (a, b, c, d) VALUES (1, 'one', 2, 10), (2, 'two', 3, 20);
ALTER TABLE shrink DROP COLUMN a;
SELECT * FROM shrink ORDER BY id;
\d shrink
SELECT conname FROM pg_constraint WHERE conrelid = 'shrink'::regclass ORDER BY 1;
SELECT relchecks FROM pg_class WHERE relname = 'shrink';
INSERT INTO shrink (b, c, d) VALUES ('three', 4, 30);
INSERT INTO shrink VALUES (10, 'ten', 11, 100);
INSERT INTO shrink (a) VALUES (1);
SELECT a FROM shrink;
SELECT shrink FROM shrink ORDER BY id;
SELECT * FROM shrink s(x, y) ORDER BY x;
SELECT * FROM shrink s(x, y, z, w, v);
COPY shrink TO stdout;
COPY shrink FROM stdin;
11	eleven	12	110
\.
UPDATE shrink SET c = c + 1 WHERE id = 1 RETURNING *;
ALTER TABLE shrink DROP COLUMN a;
ALTER TABLE shrink DROP COLUMN IF EXISTS a;
ALTER TABLE shrink DROP d, DROP COLUMN id;
SELECT count(*) FROM pg_class WHERE relname IN ('shrink_id_seq', 'shrink_pkey', 'shrink_d_key', 'shrink_part');
\d shrink
ALTER TABLE shrink ADD COLUMN a int DEFAULT 7;
SELECT * FROM shrink ORDER BY c;
SELECT attnum, attname, attisdropped FROM pg_attribute
  WHERE attrelid = 'shrink'::regclass AND attnum > 0 ORDER BY attnum;
ANALYZE shrink;
SELECT attname FROM pg_stats WHERE tablename = 'shrink' ORDER BY 1;
VACUUM FULL shrink;
SELECT * FROM shrink ORDER BY c;
CREATE TABLE shrink_like (LIKE shrink);
\d shrink_like
DROP TABLE shrink, shrink_like;

-- System catalogs and system column names are refused.
ALTER TABLE pg_class DROP COLUMN relname;
ALTER TABLE pg_class ALTER COLUMN relname DROP NOT NULL;
ALTER TABLE pg_class RENAME TO my_class;
ALTER TABLE pg_class RENAME COLUMN relname TO name;
CREATE TABLE sys (ctid int);
CREATE TABLE sys (a int);
ALTER TABLE sys ADD COLUMN xmin int;
ALTER TABLE sys RENAME COLUMN a TO tableoid;
ALTER TABLE sys RENAME COLUMN xmax TO b;
SELECT count(*) FROM pg_attribute WHERE attrelid = 'pg_class'::regclass AND attname = 'relname';
DROP TABLE sys;

-- Row locks on a table with a dropped column.
CREATE TABLE locked (a int, b int, c int);
INSERT INTO locked VALUES (1, 2, 3);
ALTER TABLE locked DROP COLUMN b;
SELECT * FROM locked FOR UPDATE;
SELECT l.* FROM locked l JOIN locked m ON l.a = m.a FOR SHARE OF l;
DROP TABLE locked;
