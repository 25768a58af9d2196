-- Sequences: CREATE/ALTER/DROP SEQUENCE, nextval/currval/setval/lastval,
-- serial columns, and what is (not) transactional.
CREATE SEQUENCE s;
SELECT currval('s');
SELECT lastval();
SELECT nextval('s'), nextval('s'), currval('s'), lastval();
SELECT * FROM s;
SELECT relkind, relnatts FROM pg_class WHERE relname = 's';
SELECT seqtypid, seqstart, seqincrement, seqmax, seqmin, seqcache, seqcycle
  FROM pg_sequence JOIN pg_class ON pg_class.oid = seqrelid WHERE relname = 's';
CREATE SEQUENCE s;
CREATE SEQUENCE IF NOT EXISTS s;
SELECT nextval('S'), nextval('public.s'), nextval('"s"');
SELECT setval('s', 100);
SELECT nextval('s');
SELECT setval('s', 200, false);
SELECT nextval('s'), currval('s');
SELECT setval('s', 0);
-- nextval is not transactional.
BEGIN;
SELECT nextval('s');
ROLLBACK;
SELECT nextval('s'), currval('s');
-- Options.
CREATE SEQUENCE s2 AS integer INCREMENT BY 10 MINVALUE 5 MAXVALUE 30 START WITH 7 CACHE 1;
SELECT nextval('s2'), nextval('s2'), nextval('s2');
SELECT nextval('s2');
SELECT nextval('s2');
ALTER SEQUENCE s2 RESTART;
SELECT nextval('s2');
ALTER SEQUENCE s2 RESTART WITH 25 CYCLE;
SELECT nextval('s2'), nextval('s2'), nextval('s2');
ALTER SEQUENCE s2 NO MAXVALUE;
SELECT seqmax FROM pg_sequence JOIN pg_class ON pg_class.oid = seqrelid WHERE relname = 's2';
-- A rolled-back ALTER leaves the sequence as it was.
BEGIN;
ALTER SEQUENCE s2 RESTART WITH 1000;
SELECT nextval('s2');
ROLLBACK;
SELECT nextval('s2');
CREATE SEQUENCE down INCREMENT BY -1 MINVALUE -3 MAXVALUE -1;
SELECT nextval('down'), nextval('down'), nextval('down');
SELECT nextval('down');
CREATE SEQUENCE big START WITH 9223372036854775806;
SELECT nextval('big'), nextval('big');
SELECT nextval('big');
CREATE SEQUENCE cached CACHE 10;
SELECT nextval('cached'), nextval('cached');
SELECT last_value, is_called FROM cached;
-- Errors.
CREATE SEQUENCE bad INCREMENT BY 0;
CREATE SEQUENCE bad AS text;
CREATE SEQUENCE bad AS smallint MAXVALUE 40000;
CREATE SEQUENCE bad MINVALUE 10 MAXVALUE 5;
CREATE SEQUENCE bad START WITH 0;
CREATE SEQUENCE bad CACHE 0;
CREATE SEQUENCE bad CACHE 1 CACHE 2;
SELECT setval('s2', 999);
ALTER SEQUENCE nosuch RESTART;
ALTER SEQUENCE IF EXISTS nosuch RESTART;
CREATE TABLE plain (a int);
ALTER SEQUENCE plain RESTART;
CREATE TABLE names (n text);
INSERT INTO names VALUES ('nosuch');
SELECT nextval(n) FROM names;
UPDATE names SET n = 'plain';
SELECT nextval(n) FROM names;
SELECT currval(n) FROM names;
DROP TABLE s;
DROP SEQUENCE plain;
-- Serial columns.
CREATE TABLE t (id serial, big bigserial, small smallserial, v text);
INSERT INTO t (v) VALUES ('a'), ('b');
INSERT INTO t VALUES (DEFAULT, DEFAULT, DEFAULT, 'c') RETURNING id, big, small;
INSERT INTO t (id, v) VALUES (100, 'd') RETURNING *;
INSERT INTO t (v) VALUES ('e') RETURNING id;
SELECT * FROM t ORDER BY id;
SELECT currval('t_id_seq'), lastval();
SELECT relname, relkind FROM pg_class WHERE relname LIKE 't\_%' ORDER BY relname;
SELECT a.attname, pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d
  JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
  JOIN pg_class c ON c.oid = d.adrelid WHERE c.relname = 't' ORDER BY a.attnum;
SELECT attname, attnotnull FROM pg_attribute JOIN pg_class ON pg_class.oid = attrelid
  WHERE relname = 't' AND attnum > 0 ORDER BY attnum;
SELECT seqtypid, seqmax FROM pg_sequence JOIN pg_class ON pg_class.oid = seqrelid
  WHERE relname = 't_small_seq';
INSERT INTO t (id, v) VALUES (NULL, 'f');
CREATE TABLE t2 (id serial DEFAULT 5);
CREATE TABLE t2 (id serial NULL);
DROP SEQUENCE t_id_seq;
-- A name that is taken makes the next one numbered.
CREATE SEQUENCE u_id_seq;
CREATE TABLE u (id serial);
SELECT relname FROM pg_class WHERE relname LIKE 'u\_id\_seq%' ORDER BY relname;
DROP SEQUENCE u_id_seq1 CASCADE;
SELECT count(*) FROM pg_attrdef JOIN pg_class ON pg_class.oid = adrelid WHERE relname = 'u';
INSERT INTO u VALUES (DEFAULT);
-- OWNED BY.
CREATE SEQUENCE owned OWNED BY t.v;
ALTER SEQUENCE s OWNED BY t;
ALTER SEQUENCE s OWNED BY t.nosuch;
ALTER SEQUENCE s OWNED BY s.last_value;
SELECT pg_get_serial_sequence('t', 'id'), pg_get_serial_sequence('public.T', 'big'),
  pg_get_serial_sequence('t', 'v'), pg_get_serial_sequence('u', 'id');
SELECT pg_get_serial_sequence('t', 'nosuch');
SELECT pg_get_serial_sequence('nosuch', 'id');
-- Dropping the table drops the sequences its columns own.
DROP TABLE t;
SELECT relname FROM pg_class WHERE relname IN ('t_id_seq', 't_big_seq', 't_small_seq', 'owned');
SELECT lastval();
DROP SEQUENCE s, s2, down, big, cached, u_id_seq;
DROP SEQUENCE nosuch;
DROP SEQUENCE IF EXISTS nosuch;
DROP TABLE plain, names, u;
