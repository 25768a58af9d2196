-- The pgstattuple extension: CREATE/DROP EXTENSION, pg_extension, and
-- pgstattuple()/pgstatindex() computed from the pages. sluice's heap tuple
-- header is 8 bytes and its page header 4 bytes larger than PostgreSQL's
-- (64-bit xids), so tuple_len, free_space and the percentages of pgstattuple
-- differ from PostgreSQL's: only table_len (rows wide enough that both fit
-- 7 on a page) and the tuple counts are compared. Index entries have
-- PostgreSQL's layout, so pgstatindex's page counts agree, but its leaf
-- density is compared rounded to a whole percent (4 bytes less room per
-- page).
SELECT * FROM pgstattuple('pg_class');
\set VERBOSITY terse
CREATE EXTENSION no_such_extension;
\set VERBOSITY default
DROP EXTENSION no_such_extension;
DROP EXTENSION IF EXISTS no_such_extension;
CREATE EXTENSION pgstattuple;
CREATE EXTENSION pgstattuple;
CREATE EXTENSION IF NOT EXISTS pgstattuple;
SELECT e.extname, e.extversion, e.extrelocatable, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgstattuple';
CREATE TABLE st (id int PRIMARY KEY, v text);
INSERT INTO st SELECT g, repeat('x', 1000) FROM generate_series(1, 1000) g;
SELECT table_len, tuple_count, dead_tuple_count FROM pgstattuple('st');
DELETE FROM st WHERE id <= 300 OR id % 7 = 0;
SELECT table_len, tuple_count, dead_tuple_count FROM pgstattuple('st');
SELECT (pgstattuple('st')).dead_tuple_count, (pgstattuple('st')).tuple_count;
SELECT version, tree_level, index_size, root_block_no, internal_pages, leaf_pages, empty_pages,
  deleted_pages, round(avg_leaf_density::numeric) AS density, leaf_fragmentation
  FROM pgstatindex('st_pkey');
SELECT index_size, leaf_pages, deleted_pages FROM pgstatindex('st_pkey') AS s;
VACUUM st;
SELECT table_len, tuple_count, dead_tuple_count FROM pgstattuple('st');
SELECT (pgstatindex('st_pkey')).leaf_pages;
SELECT * FROM pgstatindex('st');
SELECT * FROM pgstattuple('no_such_table');
-- An empty table and an empty index.
CREATE TABLE empty_t (a int);
CREATE INDEX empty_i ON empty_t (a);
SELECT * FROM pgstattuple('empty_t');
SELECT * FROM pgstatindex('empty_i');
DROP EXTENSION pgstattuple;
SELECT * FROM pgstatindex('st_pkey');
DROP EXTENSION pgstattuple;
CREATE EXTENSION pgstattuple;
SELECT count(*) FROM pg_extension WHERE extname = 'pgstattuple';
