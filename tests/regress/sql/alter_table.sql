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
