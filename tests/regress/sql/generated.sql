-- Generated columns: GENERATED ALWAYS AS (expr) STORED.
CREATE TABLE gt (a int PRIMARY KEY, b int, c numeric(8,2) GENERATED ALWAYS AS (b * 1.5) STORED,
                 d text GENERATED ALWAYS AS ('row ' || a) STORED);
SELECT attname, attgenerated, atthasdef FROM pg_attribute
  WHERE attrelid = 'gt'::regclass AND attnum > 0 ORDER BY attnum;
SELECT count(*) FROM pg_attrdef WHERE adrelid = 'gt'::regclass;
INSERT INTO gt (a, b) VALUES (1, 10), (2, NULL);
INSERT INTO gt VALUES (3, 4, DEFAULT, DEFAULT) RETURNING *;
INSERT INTO gt VALUES (4, 4);
SELECT * FROM gt ORDER BY a;
INSERT INTO gt (a, b, c) VALUES (5, 1, 2);
INSERT INTO gt VALUES (5, 1, 2);
INSERT INTO gt (a, c) SELECT 6, 1;
UPDATE gt SET b = b + 1 WHERE a = 1 RETURNING *;
UPDATE gt SET c = 1;
UPDATE gt SET c = DEFAULT, b = 0 WHERE a = 2 RETURNING *;
INSERT INTO gt (a, b) VALUES (1, 100) ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING *;
-- COPY leaves generated columns out and computes them.
COPY gt (a, b) FROM STDIN;
7	70
\.
COPY gt FROM STDIN;
8	80
\.
COPY gt (a, c) FROM STDIN;
COPY gt TO STDOUT;
SELECT * FROM gt WHERE a > 6 ORDER BY a;
-- Checks see the computed value.
CREATE TABLE gc (a int, twice int GENERATED ALWAYS AS (a * 2) STORED CHECK (twice < 10));
INSERT INTO gc (a) VALUES (4);
INSERT INTO gc (a) VALUES (5);
-- What a generation expression may not be.
CREATE TABLE bad1 (a int, b int GENERATED ALWAYS AS (c * 2) STORED, c int GENERATED ALWAYS AS (a) STORED);
CREATE TABLE bad2 (a int, b int GENERATED ALWAYS AS (random() * 10) STORED);
CREATE TABLE bad3 (a int, b int DEFAULT 1 GENERATED ALWAYS AS (a) STORED);
CREATE TABLE bad4 (a int, b int GENERATED ALWAYS AS (a) STORED GENERATED ALWAYS AS (a) STORED);
CREATE TABLE bad5 (a int, b int GENERATED ALWAYS AS (sum(a)) STORED);
CREATE TABLE bad6 (a int, b int GENERATED ALWAYS AS ((SELECT 1)) STORED);
CREATE TABLE bad7 (a int, b int GENERATED ALWAYS AS (nosuch) STORED);
-- Renaming and dropping the columns they read.
ALTER TABLE gt RENAME COLUMN b TO bb;
INSERT INTO gt (a, bb) VALUES (9, 2);
SELECT * FROM gt WHERE a = 9;
ALTER TABLE gt DROP COLUMN bb;
ALTER TABLE gt DROP COLUMN bb CASCADE;
SELECT attname FROM pg_attribute WHERE attrelid = 'gt'::regclass AND attnum > 0 AND NOT attisdropped;
ALTER TABLE gt DROP COLUMN d;
SELECT * FROM gt ORDER BY a;
-- LIKE copies them as plain columns unless INCLUDING GENERATED.
CREATE TABLE gl1 (LIKE gc);
CREATE TABLE gl2 (LIKE gc INCLUDING GENERATED);
SELECT attrelid::regclass, attname, attgenerated FROM pg_attribute
  WHERE attrelid IN ('gl1'::regclass, 'gl2'::regclass) AND attnum > 0 ORDER BY 1, attnum;
INSERT INTO gl2 (a) VALUES (3);
SELECT * FROM gl2;
