-- psql's describe meta-commands (\d, \dt, \di and their + forms) run the
-- catalog queries psql 15 sends; the output must be PostgreSQL 15's.
CREATE TABLE t (
  id serial PRIMARY KEY,
  a integer NOT NULL,
  b text,
  c varchar(20) UNIQUE,
  d numeric(10,2) DEFAULT 0,
  e timestamptz DEFAULT now()
);
CREATE INDEX t_a_idx ON t (a);
CREATE INDEX t_b_partial ON t (b) WHERE a > 0;
CREATE INDEX t_desc ON t (a DESC NULLS LAST, d);
CREATE UNIQUE INDEX t_ab ON t (a, b);
CREATE INDEX t_nf ON t (e NULLS FIRST) WITH (fillfactor = 70);
CREATE TABLE "Mixed Case" ("Col" int PRIMARY KEY, x bigint);
CREATE TABLE nums (n integer, m bigint);
CREATE INDEX nums_n ON nums (n);
\d
\dt
\di
\dt t*
\di t_*
\d t
\d t_pkey
\d t_b_partial
\d t_desc
\d t_c_key
\d t_ab
\d "Mixed Case"
\ds
\d t_id_seq
\d nosuch
\du postgres
\dn
\dt+ nums
\di+ nums_n
-- The functions behind them.
SELECT pg_get_indexdef('t_nf'::regclass);
SELECT pg_get_indexdef('t_desc'::regclass, 1, true), pg_get_indexdef('t_desc'::regclass, 2, false);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
  WHERE conrelid = 't'::regclass ORDER BY conname;
SELECT 't'::regclass::text, 'public.t'::regclass = 't'::regclass, '"Mixed Case"'::regclass::text;
SELECT 'nosuch'::regclass;
SELECT relname ~ '^t_', relname !~* 'PKEY$', relname ~* '^T_P' FROM pg_class WHERE relname = 't_pkey';
SELECT 'abc' ~ '(';
SELECT format_type('varchar'::regtype, 24), format_type(1042, NULL), format_type(1042, -1);
SELECT array(SELECT attname FROM pg_attribute
  WHERE attrelid = 't'::regclass AND attnum > 0 ORDER BY attnum DESC);
SELECT array_to_string(array(SELECT x FROM (VALUES ('a'), (NULL), ('b')) v(x)), ',', '*');
SELECT string_agg(relname, ', ') FROM (SELECT relname FROM pg_class
  WHERE relname LIKE 'nums%' ORDER BY relname) s;
SELECT 2 = ANY ('{1,2,3}'::int[]), 4 > ALL ('{1,2,3}'), ('{10,20}'::int[])[2];
DROP TABLE t, "Mixed Case", nums;
\d
-- \l lists databases (the test database and a template, whose ACL initdb set)
\l regress_expected
\l template1
-- functions (none but the built-in ones, which \df leaves out) and the
-- access privileges of the tables above
\df
\dp
