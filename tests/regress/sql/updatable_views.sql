-- Automatically updatable views: INSERT, UPDATE and DELETE through simple
-- views (onto their base table, nested views too), the views that cannot
-- be written through and why, columns that are not base columns, WITH
-- [LOCAL | CASCADED] CHECK OPTION, view options, and what
-- information_schema says about them. Adapted from PostgreSQL's
-- regression test updatable_views.sql.
CREATE TABLE base_tbl (a int PRIMARY KEY, b text DEFAULT 'Unspecified');
INSERT INTO base_tbl SELECT i, 'Row ' || i FROM generate_series(-2, 2) g(i);
CREATE VIEW ro_view1 AS SELECT DISTINCT a, b FROM base_tbl;
CREATE VIEW ro_view2 AS SELECT a, b FROM base_tbl GROUP BY a, b;
CREATE VIEW ro_view3 AS SELECT 1 FROM base_tbl HAVING max(a) > 0;
CREATE VIEW ro_view4 AS SELECT count(*) FROM base_tbl;
CREATE VIEW ro_view6 AS SELECT a, b FROM base_tbl UNION SELECT -a, b FROM base_tbl;
CREATE VIEW ro_view7 AS WITH t AS (SELECT a, b FROM base_tbl) SELECT * FROM t;
CREATE VIEW ro_view8 AS SELECT a, b FROM base_tbl ORDER BY a OFFSET 1;
CREATE VIEW ro_view9 AS SELECT a, b FROM base_tbl ORDER BY a LIMIT 1;
CREATE VIEW ro_view10 AS SELECT 1 AS a;
CREATE VIEW ro_view11 AS SELECT b1.a, b2.b FROM base_tbl b1, base_tbl b2;
CREATE VIEW ro_view12 AS SELECT * FROM (SELECT a, b FROM base_tbl) AS t;
CREATE VIEW ro_view13 AS SELECT a + 1 AS x, 'const'::text AS y FROM base_tbl;
CREATE VIEW rw_view14 AS SELECT tableoid, a, b FROM base_tbl;
CREATE VIEW rw_view15 AS SELECT a, upper(b) FROM base_tbl;
CREATE VIEW rw_view16 AS SELECT a, b, a AS aa FROM base_tbl;
SELECT table_name, is_insertable_into
  FROM information_schema.tables
 WHERE table_name LIKE E'r_\\_view%'
 ORDER BY table_name;
SELECT table_name, is_updatable, is_insertable_into
  FROM information_schema.views
 WHERE table_name LIKE E'r_\\_view%'
 ORDER BY table_name;
SELECT table_name, column_name, is_updatable
  FROM information_schema.columns
 WHERE table_name LIKE E'r_\\_view%'
 ORDER BY table_name, ordinal_position;
-- Each reason a view cannot be written through.
DELETE FROM ro_view1;
DELETE FROM ro_view2;
DELETE FROM ro_view3;
DELETE FROM ro_view4;
DELETE FROM ro_view6;
UPDATE ro_view7 SET a = a + 1;
UPDATE ro_view8 SET a = a + 1;
UPDATE ro_view9 SET a = a + 1;
UPDATE ro_view10 SET a = a + 1;
UPDATE ro_view11 SET a = a + 1;
UPDATE ro_view12 SET a = a + 1;
DELETE FROM ro_view13 WHERE x = 3;
UPDATE ro_view13 SET x = 4;
INSERT INTO ro_view13 VALUES (3, 'Row 3');
-- Views with some columns that are not base columns.
INSERT INTO rw_view14 VALUES (null, 3, 'Row 3');
INSERT INTO rw_view14 (a, b) VALUES (3, 'Row 3');
UPDATE rw_view14 SET tableoid = null WHERE a = 3;
UPDATE rw_view14 SET b = 'ROW 3' WHERE a = 3;
SELECT * FROM base_tbl ORDER BY a;
DELETE FROM rw_view14 WHERE a = 3;
INSERT INTO rw_view15 VALUES (3, 'ROW 3');
INSERT INTO rw_view15 (a) VALUES (3);
INSERT INTO rw_view15 (a) VALUES (3) RETURNING *;
UPDATE rw_view15 SET upper = 'ROW 3' WHERE a = 3;
UPDATE rw_view15 SET upper = DEFAULT WHERE a = 3;
UPDATE rw_view15 SET a = 4 WHERE a = 3 RETURNING *;
SELECT * FROM rw_view15;
DELETE FROM rw_view15 WHERE a = 4 RETURNING *;
-- A column appearing twice.
UPDATE rw_view16 SET a = 3, aa = -3 WHERE a = 3;
UPDATE rw_view16 SET aa = -3 WHERE a = 3;
SELECT * FROM rw_view16;
DELETE FROM rw_view16 WHERE a = -3;
DROP TABLE base_tbl CASCADE;
-- Simple updatable views, a view over a view, renamed columns.
CREATE TABLE base_tbl (a int PRIMARY KEY, b text DEFAULT 'Unspecified');
INSERT INTO base_tbl SELECT i, 'Row ' || i FROM generate_series(-2, 2) g(i);
CREATE VIEW rw_view1 AS SELECT * FROM base_tbl WHERE a > 0;
CREATE VIEW rw_view2 (bb, aa) AS SELECT b, a FROM rw_view1 WHERE a < 10;
INSERT INTO rw_view1 VALUES (3, 'Row 3');
INSERT INTO rw_view1 (a) VALUES (4);
UPDATE rw_view1 SET a = 5 WHERE a = 4;
DELETE FROM rw_view1 WHERE b = 'Row 2';
SELECT * FROM base_tbl ORDER BY a;
INSERT INTO rw_view2 (aa, bb) VALUES (6, 'Row 6') RETURNING *;
INSERT INTO rw_view2 VALUES ('Row 7', 7);
UPDATE rw_view2 SET bb = 'Updated' WHERE aa > 5 RETURNING aa, bb;
-- The views' own conditions limit what UPDATE and DELETE find.
UPDATE rw_view2 SET bb = 'none' WHERE aa = -1;
DELETE FROM rw_view2 WHERE aa < 1;
DELETE FROM rw_view2 v WHERE v.aa = 7 RETURNING v.*;
SELECT * FROM base_tbl ORDER BY a;
-- Subqueries reading the view's columns.
UPDATE rw_view1 v SET b = (SELECT b || '!' FROM base_tbl WHERE a = v.a)
 WHERE a IN (SELECT a FROM base_tbl WHERE a > 4);
SELECT * FROM rw_view1 ORDER BY a;
INSERT INTO rw_view2 (aa, bb) SELECT a + 10, b FROM base_tbl WHERE a > 4;
SELECT * FROM rw_view2 ORDER BY aa;
INSERT INTO rw_view1 DEFAULT VALUES;
-- Mistakes.
UPDATE rw_view1 SET nope = 1;
UPDATE rw_view1 SET a = 1 WHERE nope = 1;
INSERT INTO rw_view2 (cc) VALUES (1);
INSERT INTO rw_view1 VALUES (20, 'x', 'too many');
UPDATE rw_view2 SET aa = 3 WHERE aa = 5;
DELETE FROM base_tbl;
DROP VIEW rw_view2;
-- WITH CHECK OPTION.
CREATE VIEW rw_view2 AS SELECT * FROM rw_view1 WHERE a < 10 WITH CHECK OPTION;
INSERT INTO rw_view2 VALUES (5, 'ok');
INSERT INTO rw_view2 VALUES (15, 'not under 10');
INSERT INTO rw_view2 VALUES (-5, 'not over 0, but rw_view1 has no check');
INSERT INTO rw_view2 VALUES (null, 'null fails');
UPDATE rw_view2 SET a = a + 10;
UPDATE rw_view2 SET a = 9 WHERE a = 5 RETURNING *;
CREATE OR REPLACE VIEW rw_view2 AS SELECT * FROM rw_view1 WHERE a < 10
  WITH CASCADED CHECK OPTION;
INSERT INTO rw_view2 VALUES (-6, 'cascaded: rw_view1 checks too');
INSERT INTO rw_view2 VALUES (8, 'ok');
CREATE VIEW rw_view3 AS SELECT * FROM rw_view2 WHERE a <> 7 WITH LOCAL CHECK OPTION;
INSERT INTO rw_view3 VALUES (7, 'rw_view3 refuses');
INSERT INTO rw_view3 VALUES (17, 'rw_view2 refuses');
INSERT INTO rw_view3 VALUES (-7, 'rw_view1 refuses through rw_view2');
UPDATE rw_view3 SET b = 'through three views' WHERE a = 8;
SELECT * FROM base_tbl ORDER BY a;
SELECT table_name, check_option, is_updatable, is_insertable_into
  FROM information_schema.views
 WHERE table_name LIKE 'rw_view%'
 ORDER BY table_name;
SELECT relname, reloptions FROM pg_class WHERE relname LIKE 'rw_view%' ORDER BY relname;
DELETE FROM rw_view3 WHERE a = 8 RETURNING *;
-- Options.
CREATE VIEW bad_view AS SELECT DISTINCT a FROM base_tbl WITH CHECK OPTION;
CREATE VIEW bad_view WITH (check_option = here) AS SELECT * FROM base_tbl;
CREATE VIEW bad_view WITH (check_option = local, check_option = cascaded) AS SELECT * FROM base_tbl;
CREATE VIEW bad_view WITH (security_barrier = maybe) AS SELECT * FROM base_tbl;
CREATE VIEW bad_view WITH (fillfactor = 50) AS SELECT * FROM base_tbl;
CREATE VIEW sb_view WITH (security_barrier, security_invoker = false) AS SELECT * FROM base_tbl;
CREATE VIEW wco_view WITH (check_option = cascaded) AS SELECT * FROM base_tbl WHERE a > 0;
INSERT INTO wco_view VALUES (0, 'refused');
SELECT relname, reloptions FROM pg_class WHERE relname IN ('sb_view', 'wco_view') ORDER BY relname;
DROP TABLE base_tbl CASCADE;
-- INSERT ... ON CONFLICT through a view.
CREATE TABLE oc_base (id int PRIMARY KEY, val text, n int DEFAULT 0);
CREATE VIEW oc_view AS SELECT n AS cnt, val AS v, id AS key FROM oc_base WHERE id < 100;
INSERT INTO oc_view (key, v) VALUES (1, 'a') ON CONFLICT (key) DO NOTHING;
INSERT INTO oc_view (key, v) VALUES (1, 'b') ON CONFLICT (key) DO NOTHING;
INSERT INTO oc_view (key, v) VALUES (1, 'c') ON CONFLICT (key) DO UPDATE SET v = excluded.v, cnt = oc_view.cnt + 1 RETURNING *;
INSERT INTO oc_view (key, v) VALUES (1, 'd') ON CONFLICT (key) DO UPDATE SET cnt = cnt + 10 WHERE oc_view.v = 'c' RETURNING key, cnt, v;
INSERT INTO oc_view AS o (key, v) VALUES (1, 'e') ON CONFLICT (key) DO UPDATE SET v = o.v || excluded.v RETURNING *;
INSERT INTO oc_view (key, v) VALUES (2, 'x'), (1, 'y') ON CONFLICT ON CONSTRAINT oc_base_pkey DO UPDATE SET v = excluded.v;
SELECT * FROM oc_base ORDER BY id;
CREATE VIEW oc_view2 AS SELECT id, upper(val) AS u FROM oc_base;
INSERT INTO oc_view2 (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET u = 'no';
DROP TABLE oc_base CASCADE;
