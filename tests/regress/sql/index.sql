-- B-tree indexes: CREATE/DROP INDEX, PRIMARY KEY and UNIQUE constraints,
-- unique violations, partial and multi-column indexes, catalog rows.
CREATE TABLE t (id bigint PRIMARY KEY, name text, memo text);
INSERT INTO t SELECT i, 'name-' || i, repeat('x', i % 7) FROM generate_series(1, 5000) i;
CREATE INDEX t_name_idx ON t (name);
CREATE INDEX IF NOT EXISTS t_name_idx ON t (name);
CREATE INDEX t_name_idx ON t (name);
INSERT INTO t VALUES (5, 'dup', 'x');
INSERT INTO t VALUES (5001, 'n', 'x'), (5002, 'n', 'y');
CREATE UNIQUE INDEX t_name_u ON t (name);
DELETE FROM t WHERE id = 5002;
CREATE UNIQUE INDEX t_name_u ON t (name);
INSERT INTO t VALUES (5003, 'n', 'x');
UPDATE t SET id = 6 WHERE id = 7;
UPDATE t SET id = id + 100000 WHERE id < 100;
UPDATE t SET name = 'n' WHERE id = 200;
SELECT count(*), min(id), max(id) FROM t;
INSERT INTO t VALUES (NULL, 'x', 'y');
-- NULLs never conflict in a unique index
INSERT INTO t VALUES (9001, NULL, 'a'), (9002, NULL, 'b');
SELECT c.relname, c.relkind, c.relhasindex, c.relnatts, am.amname
  FROM pg_class c LEFT JOIN pg_am am ON am.oid = c.relam
 WHERE c.relname IN ('t', 't_pkey', 't_name_idx', 't_name_u') ORDER BY 1;
SELECT c.relname, i.indnatts, i.indisunique, i.indisprimary, i.indisvalid, i.indisready
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_class r ON r.oid = i.indrelid WHERE r.relname = 't' ORDER BY 1;
SELECT conname, contype, c.relname FROM pg_constraint
  JOIN pg_class c ON c.oid = conindid WHERE conname LIKE 't%';
DROP INDEX t_pkey;
DROP INDEX t_name_idx;
DROP INDEX IF EXISTS t_name_idx;
DROP INDEX t;
-- table constraints, multi-column keys, ALTER TABLE ADD PRIMARY KEY
CREATE TABLE u (a int, b text, UNIQUE (a, b), CONSTRAINT u_pk PRIMARY KEY (b));
INSERT INTO u VALUES (1, 'x'), (1, 'y');
INSERT INTO u VALUES (1, 'x');
INSERT INTO u VALUES (2, NULL);
SELECT conname, contype FROM pg_constraint WHERE conname LIKE 'u%' ORDER BY 1;
ALTER TABLE t ADD PRIMARY KEY (name);
CREATE TABLE p (a int, b int);
INSERT INTO p VALUES (1, 1), (1, 2), (NULL, 3);
ALTER TABLE p ADD PRIMARY KEY (a);
CREATE UNIQUE INDEX ON p (a);
DELETE FROM p WHERE b = 2;
ALTER TABLE p ADD PRIMARY KEY (a);
DELETE FROM p WHERE b = 3;
ALTER TABLE p ADD PRIMARY KEY (a);
INSERT INTO p VALUES (NULL, 4);
CREATE TABLE p2 (a int PRIMARY KEY, b int PRIMARY KEY);
-- partial and DESC indexes
CREATE INDEX ON p (b DESC NULLS LAST) WHERE b > 0;
CREATE UNIQUE INDEX p_b_small ON p (b) WHERE b < 10;
INSERT INTO p VALUES (2, 1);
INSERT INTO p VALUES (3, 11), (4, 11);
SELECT c.relname, i.indisunique, pg_get_expr(i.indpred, i.indrelid)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_class r ON r.oid = i.indrelid WHERE r.relname = 'p' ORDER BY 1;
CREATE INDEX ON p (nosuch);
CREATE INDEX ON nosuch (a);
-- rolled back index creation leaves nothing
BEGIN;
CREATE INDEX p_rolled_back ON p (b);
ROLLBACK;
SELECT count(*) FROM pg_class WHERE relname = 'p_rolled_back';
-- dropping a table drops its indexes
DROP TABLE t, u;
SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'public') ORDER BY 1;
