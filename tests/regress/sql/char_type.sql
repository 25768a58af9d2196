-- The one-byte "char" type of the catalogs: input, output, casts,
-- comparisons and the catalog columns that have it.
SELECT 'r'::"char", 'abc'::"char", ''::"char" IS NULL AS empty_is_null, '\101'::"char";
SELECT pg_typeof('x'::"char"), 'A'::"char"::integer, 66::"char", 'xyz'::text::"char";
SELECT 300::"char";
SELECT 'a'::"char" < 'b'::"char", 'a'::"char" = 'a', 'q'::"char"::text || 'z';
CREATE TABLE kinds (a int PRIMARY KEY);
CREATE VIEW kinds_view AS SELECT a FROM kinds;
CREATE SEQUENCE kinds_seq;
SELECT relname, relkind, relpersistence, relkind = 'r' AS is_table FROM pg_class
  WHERE relname LIKE 'kinds%' ORDER BY 1;
SELECT attname, atttypid::regtype FROM pg_attribute
  WHERE attrelid = 'pg_class'::regclass AND attname IN ('relkind', 'relreplident');
SELECT typname, typcategory, typlen, typalign FROM pg_type WHERE oid = '"char"'::regtype;
CREATE TABLE flags (f "char", g "char"[]);
INSERT INTO flags VALUES ('x', '{a,b}'), ('y', NULL), (NULL, '{}');
SELECT * FROM flags ORDER BY f;
SELECT ('abc'::name)[0], ('abc'::name)[2], ('abc'::name)[5] = '', ('abc'::name)[64] IS NULL;
SELECT typname[0] = '_' AS is_array, count(*) > 0 FROM pg_type
  WHERE typname IN ('int4', '_int4') GROUP BY 1 ORDER BY 1;
SELECT '1 2  3'::int2vector, '{4,5}'::int2[]::int2vector, '7 8'::oidvector;
SELECT ('3 4'::int2vector)[0], ('3 4'::int2vector)[1], ('3 4'::int2vector)[2];
CREATE INDEX flags_idx ON flags (g, f);
SELECT indkey, indnatts FROM pg_index WHERE indexrelid = 'flags_idx'::regclass;
