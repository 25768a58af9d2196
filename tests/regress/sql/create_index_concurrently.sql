-- CREATE INDEX CONCURRENTLY: its restrictions, a build that fails leaving an
-- invalid index behind (ignored by queries, kept current by nobody, removed
-- by DROP INDEX), and a successful build used by queries.
CREATE TABLE cic (id int, v int, note text);
INSERT INTO cic SELECT g, g % 10, 'n' || g FROM generate_series(1, 1000) g;
BEGIN;
CREATE INDEX CONCURRENTLY cic_v ON cic (v);
ROLLBACK;
CREATE INDEX CONCURRENTLY cic_v ON cic (v); SELECT 1;
INSERT INTO cic VALUES (1001, 1, 'n5');
CREATE UNIQUE INDEX CONCURRENTLY cic_v_unique ON cic (note);
SELECT c.relname, i.indisvalid, i.indisready
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.indrelid = 'cic'::regclass ORDER BY 1;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM cic WHERE v = 3;
DROP INDEX cic_v_unique;
CREATE UNIQUE INDEX CONCURRENTLY cic_id ON cic (id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS cic_id ON cic (v);
CREATE INDEX CONCURRENTLY cic_note ON cic (note) WHERE id > 990;
SELECT c.relname, i.indisvalid, i.indisready
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.indrelid = 'cic'::regclass ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT note FROM cic WHERE id = 7;
SELECT note FROM cic WHERE id = 7;
INSERT INTO cic VALUES (7, 0, 'again');
SELECT id FROM cic WHERE note = 'n995' AND id > 990;
SELECT pg_get_indexdef('cic_note'::regclass);
