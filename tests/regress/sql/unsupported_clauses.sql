-- sluice-only: PostgreSQL 15 accepts all of these; sluice refuses each clause it does not implement (0A000) instead of dropping it.
\set VERBOSITY verbose
CREATE TABLE base (a int);
-- CREATE TABLE
CREATE TABLE p (a int) PARTITION BY RANGE (a);
CREATE TABLE c PARTITION OF base FOR VALUES FROM (1) TO (10);
CREATE TABLE ch (b int) INHERITS (base);
CREATE TEMP TABLE tt (a int);
CREATE UNLOGGED TABLE ut (a int);
CREATE TEMP TABLE oc (a int) ON COMMIT DELETE ROWS;
CREATE TABLE ts (a int) TABLESPACE pg_global;
-- columns
CREATE TABLE coll (a text COLLATE "C");
CREATE TABLE idn_src (a int GENERATED ALWAYS AS IDENTITY);
CREATE TABLE idn (LIKE idn_src INCLUDING IDENTITY);
DROP TABLE idn_src;
CREATE TABLE comp (a text COMPRESSION pglz);
CREATE TABLE stor (a text STORAGE EXTERNAL);
CREATE TABLE chk (a int CHECK (a > 0) NO INHERIT);
CREATE TABLE fk (a int, b int, FOREIGN KEY (a, b) REFERENCES base ON DELETE SET NULL (a));
-- PRIMARY KEY and UNIQUE
CREATE TABLE inc (a int, b int, UNIQUE (a) INCLUDE (b));
CREATE TABLE nnd (a int, UNIQUE NULLS NOT DISTINCT (a));
CREATE TABLE dfr (a int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE ispc (a int, PRIMARY KEY (a) USING INDEX TABLESPACE pg_global);
-- CREATE INDEX
CREATE TABLE t (a int, b int, c text);
CREATE INDEX ON t (a) INCLUDE (b);
CREATE UNIQUE INDEX ON t (a) NULLS NOT DISTINCT;
CREATE INDEX ON t (c text_pattern_ops);
CREATE INDEX ON t (c COLLATE "C");
CREATE INDEX ON t (a) TABLESPACE pg_global;
-- SELECT
SELECT a FROM t WINDOW w AS (ORDER BY a);
SELECT a FROM t GROUP BY DISTINCT a;
SELECT * FROM t ORDER BY a FETCH FIRST 1 ROWS WITH TIES;
SELECT * FROM generate_series(1, 3) WITH ORDINALITY;
SELECT * FROM ROWS FROM (generate_series(1, 3));
-- INSERT, UPDATE, DELETE
WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x;
WITH x AS (SELECT 1) UPDATE t SET b = 1;
WITH x AS (SELECT 1) DELETE FROM t;
-- transaction modes: SERIALIZABLE runs as REPEATABLE READ (READ ONLY is
-- enforced, see read_only.sql)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SHOW transaction_isolation;
COMMIT;
-- none of the refused statements left anything behind; the session carries on
SELECT relname FROM pg_class WHERE relname IN ('p', 'c', 'ch', 'tt', 'ut', 'coll', 'inc') ORDER BY 1;
INSERT INTO t VALUES (1, 2, 'x');
SELECT * FROM t;
BEGIN; COMMIT AND CHAIN; ROLLBACK;
-- ALTER COLUMN TYPE of a foreign key's column.
CREATE TABLE fk_parent (id int PRIMARY KEY);
CREATE TABLE fk_child (pid int REFERENCES fk_parent);
ALTER TABLE fk_child ALTER COLUMN pid TYPE bigint;
ALTER TABLE fk_parent ALTER COLUMN id TYPE bigint;
DROP TABLE fk_child, fk_parent;
-- CREATE TABLE AS of what CREATE TABLE refuses.
CREATE UNLOGGED TABLE ctas_unlogged AS SELECT 1;
-- Temporary views.
CREATE TEMP VIEW tview AS SELECT a FROM t;
-- PostgreSQL 18's virtual generated columns (no STORED).
CREATE TABLE vgen (a int, b int GENERATED ALWAYS AS (a * 2) VIRTUAL);
CREATE TABLE vgen (a int, b int GENERATED ALWAYS AS (a * 2));
