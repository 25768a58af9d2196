-- CREATE TABLE ... AS and SELECT ... INTO: the table takes the query's
-- column names and types (typmods included), then its rows.
CREATE TABLE src (id int PRIMARY KEY, name varchar(10), price numeric(8,2), at timestamp);
INSERT INTO src VALUES (1, 'a', 1.50, '2024-01-01'), (2, 'b', 2.25, '2024-01-02'), (3, 'c', NULL, NULL);
CREATE TABLE copy1 AS SELECT * FROM src;
\d copy1
SELECT * FROM copy1 ORDER BY id;
CREATE TABLE copy2 (k, label) AS SELECT id * 10, upper(name) FROM src WHERE id < 3;
\d copy2
SELECT * FROM copy2 ORDER BY k;
CREATE TABLE copy3 AS SELECT 1 AS one, 'x' AS lit, now() IS NOT NULL AS b, count(*) FROM src;
\d copy3
CREATE TABLE copy4 AS SELECT id FROM src WITH NO DATA;
SELECT count(*) FROM copy4;
CREATE TABLE copy1 AS SELECT 1;
CREATE TABLE IF NOT EXISTS copy1 AS SELECT 1;
CREATE TABLE copy5 (a, b, c) AS SELECT 1, 2;
CREATE TABLE copy5 (a) AS SELECT 1 AS x, 2 AS y;
\d copy5
CREATE TABLE copy6 AS SELECT * FROM nosuch;
CREATE TABLE copy7 WITH (fillfactor = 70) AS SELECT id FROM src;
SELECT reloptions FROM pg_class WHERE relname = 'copy7';
CREATE TABLE copy9 AS VALUES (1, 'one'), (2, 'two');
SELECT * FROM copy9;
-- SELECT INTO
SELECT id, name INTO copy10 FROM src WHERE id > 1;
SELECT * FROM copy10 ORDER BY id;
SELECT * INTO TABLE copy11 FROM src ORDER BY id DESC LIMIT 1;
SELECT * FROM copy11;
-- In a schema, and rolled back.
CREATE SCHEMA s;
CREATE TABLE s.copy AS SELECT id FROM src;
SELECT count(*) FROM s.copy;
BEGIN;
CREATE TABLE gone AS SELECT id FROM src;
SELECT count(*) FROM gone;
ROLLBACK;
SELECT count(*) FROM gone;
