-- CREATE TABLE (LIKE source [INCLUDING | EXCLUDING ...]): columns always,
-- defaults and indexes when asked for, storage parameters never.
CREATE TABLE src (id bigserial PRIMARY KEY, a int NOT NULL DEFAULT 0, b int, c varchar(10));
CREATE UNIQUE INDEX src_b ON src (b);
CREATE INDEX ON src (c DESC) WHERE b > 0;
CREATE TABLE l1 (LIKE src);
\d l1
CREATE TABLE l2 (LIKE src INCLUDING ALL) WITH (fillfactor = 70);
\d l2
CREATE TABLE l3 (z int, LIKE src INCLUDING DEFAULTS EXCLUDING INDEXES, q text);
\d l3
CREATE TABLE l4 (LIKE src INCLUDING INDEXES);
\d l4
CREATE TABLE l5 (a int, LIKE src);
CREATE TABLE l6 (LIKE nosuch);
CREATE TABLE l7 (LIKE src_b);
INSERT INTO l2 (b) VALUES (1);
SELECT * FROM l2;
