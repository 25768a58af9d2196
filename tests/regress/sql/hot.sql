-- HOT: an update that changes no indexed column stays on its page as a
-- heap-only tuple and adds no index entries; index scans follow the chain
-- from the root line pointer; VACUUM and later updates prune the chain and
-- reuse its space. (sluice has no ctid column yet, so sizes show it.)
CREATE TABLE hot_t (id int PRIMARY KEY, v int, w text) WITH (fillfactor = 50);
INSERT INTO hot_t SELECT g, g, 'w' || g FROM generate_series(1, 1000) g;
VACUUM hot_t;
SELECT pg_relation_size('hot_t') AS heap, pg_relation_size('hot_t_pkey') AS idx \gset
-- Not indexed: every version stays on its page and the index does not grow.
UPDATE hot_t SET v = v + 100000;
UPDATE hot_t SET w = w || '!';
SELECT pg_relation_size('hot_t') = :heap AS heap_same,
       pg_relation_size('hot_t_pkey') = :idx AS index_same;
-- Through the index: the chain leads from the root to the live member.
SET enable_seqscan = off;
SELECT id, v, w FROM hot_t WHERE id = 1;
SELECT count(*), sum(v) FROM hot_t WHERE id BETWEEN 1 AND 1000;
RESET enable_seqscan;
-- The unique index still sees the row behind its chain.
INSERT INTO hot_t VALUES (1, 0, 'dup');
-- An indexed column changes: a new index entry for every row.
UPDATE hot_t SET id = id + 1000;
SELECT pg_relation_size('hot_t_pkey') > :idx AS index_grew;
SET enable_seqscan = off;
SELECT id, v, w FROM hot_t WHERE id = 1001;
SELECT count(*) FROM hot_t WHERE id <= 1000;
RESET enable_seqscan;
-- VACUUM prunes the chains (roots become redirects); the next updates are
-- heap-only again.
VACUUM hot_t;
SELECT pg_relation_size('hot_t_pkey') AS idx \gset
UPDATE hot_t SET w = 'again';
UPDATE hot_t SET w = 'and again';
SELECT pg_relation_size('hot_t_pkey') = :idx AS index_same;
-- An index created after HOT updates points at the chain roots.
CREATE INDEX hot_t_v ON hot_t (v);
SET enable_seqscan = off;
SELECT id, v, w FROM hot_t WHERE v = 100001;
RESET enable_seqscan;
-- Now v is indexed: updating it is no longer HOT, updating w still is.
SELECT pg_relation_size('hot_t_v') AS vidx \gset
UPDATE hot_t SET w = 'hot' WHERE id <= 1500;
SELECT pg_relation_size('hot_t_v') = :vidx AS v_index_same;
UPDATE hot_t SET v = -v WHERE id <= 1500;
SELECT pg_relation_size('hot_t_v') > :vidx AS v_index_grew;
SET enable_seqscan = off;
SELECT id, v, w FROM hot_t WHERE v = -100001;
SELECT count(*) FROM hot_t WHERE v = 100001;
RESET enable_seqscan;
-- Many updates of one row stay on its page: pruning on update and on
-- access keeps reusing the space.
CREATE TABLE hot_one (id int PRIMARY KEY, n int);
INSERT INTO hot_one VALUES (1, 0);
\set ECHO none
\set QUIET 1
SELECT 'UPDATE hot_one SET n = n + 1 WHERE id = 1' FROM generate_series(1, 500)
\gexec
\set QUIET 0
\set ECHO all
SELECT * FROM hot_one;
SELECT pg_relation_size('hot_one') / 8192 AS pages;
SELECT pg_relation_size('hot_one_pkey') / 8192 AS index_pages;
DROP TABLE hot_t, hot_one;
