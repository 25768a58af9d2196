-- HOT: an update that changes no indexed column stays on its page as a
-- heap-only tuple, index scans follow the chain from the root line pointer,
-- VACUUM turns the root into a redirect and frees the heap-only tuples, and
-- the freed line pointers are reused. ctids show where versions went.
CREATE TABLE hot_t (id int PRIMARY KEY, v int, w text) WITH (fillfactor = 70);
INSERT INTO hot_t SELECT g, g, 'w' || g FROM generate_series(1, 10) g;
SELECT ctid, id FROM hot_t WHERE id <= 2 ORDER BY id;
-- Not indexed: heap-only versions on the same page.
UPDATE hot_t SET v = v + 100 WHERE id = 1;
UPDATE hot_t SET w = 'changed' WHERE id = 1;
SELECT ctid, id, v, w FROM hot_t WHERE id = 1;
-- Through the index: the chain leads from the root to the live member.
SET enable_seqscan = off;
SELECT ctid, id, v, w FROM hot_t WHERE id = 1;
SELECT count(*) FROM hot_t WHERE id BETWEEN 1 AND 10;
RESET enable_seqscan;
-- The unique index still sees the row behind its chain.
INSERT INTO hot_t VALUES (1, 0, 'dup');
-- An indexed column changes: a new index entry, not HOT.
UPDATE hot_t SET id = 11 WHERE id = 2;
SELECT ctid, id FROM hot_t WHERE id IN (2, 11);
-- VACUUM prunes the chain: the root redirects, the heap-only line pointers
-- are free again and the next versions reuse them.
VACUUM hot_t;
UPDATE hot_t SET v = 0 WHERE id = 3;
SELECT ctid, id, v FROM hot_t WHERE id = 3;
SET enable_seqscan = off;
SELECT ctid, id, v, w FROM hot_t WHERE id IN (1, 3) ORDER BY id;
RESET enable_seqscan;
-- An index created after HOT updates points at the chain roots.
CREATE INDEX hot_t_v ON hot_t (v);
SET enable_seqscan = off;
SELECT id, v FROM hot_t WHERE v = 101;
SELECT id, v FROM hot_t WHERE v = 0;
RESET enable_seqscan;
-- Now v is indexed: updating it is no longer HOT, updating w still is.
UPDATE hot_t SET v = 5000 WHERE id = 4;
UPDATE hot_t SET w = 'hot again' WHERE id = 5;
SELECT ctid, id, v, w FROM hot_t WHERE id IN (4, 5) ORDER BY id;
SET enable_seqscan = off;
SELECT id FROM hot_t WHERE v = 5000;
SELECT id FROM hot_t WHERE v = 4;
RESET enable_seqscan;
-- Many updates of one row stay on its page: pruning on update and on
-- access keeps reusing the space.
\set QUIET 1
SELECT format('UPDATE hot_t SET w = %L WHERE id = 6', 'loop ' || g) FROM generate_series(1, 300) g
\gexec
\set QUIET 0
SELECT id, w FROM hot_t WHERE id = 6;
SELECT pg_relation_size('hot_t') / 8192 AS pages;
SELECT count(*), sum(id) FROM hot_t;
DROP TABLE hot_t;
