-- The functions pg_dump and other tools call first, and the reg* casts.
SELECT pg_is_in_recovery();
CREATE TABLE reg_t (a int);
SELECT to_regclass('pg_class') = 'pg_class'::regclass AS same,
       to_regclass('pg_class')::text AS name,
       to_regclass('pg_catalog.pg_class')::text AS qualified,
       to_regclass('reg_t')::text AS mine,
       to_regclass('public.reg_t')::text AS mine_qualified,
       to_regclass('nosuch') IS NULL AS missing,
       to_regclass('nosuch.t') IS NULL AS no_schema;
SELECT to_regtype('int4')::text AS int4, to_regtype('integer')::oid AS oid,
       to_regtype('character varying')::text AS varchar,
       to_regtype('nosuch') IS NULL AS missing;
SELECT to_regnamespace('pg_catalog')::text AS schema,
       to_regnamespace('nosuch') IS NULL AS missing;
SELECT 'int4'::regtype::text, 'integer'::regtype::oid, 23::regtype::text,
       'pg_class'::regclass::text, 'pg_class'::regclass::oid,
       'public.reg_t'::regclass::text, 999999::regclass::text;
SELECT 'nosuch'::regclass;
SELECT 'nosuch'::regtype;
SELECT 'nosuch'::regnamespace;
SELECT c.relname FROM pg_class c WHERE c.oid = 'reg_t'::regclass;
-- reg* values print as names, compare as OIDs.
SELECT 'int4'::regtype, 'pg_class'::regclass, 23::regtype, 'int4'::regtype::oid AS oid;
SELECT pg_typeof('int4'::regtype), pg_typeof(to_regclass('pg_class'));
SELECT 'varchar'::regtype::text, 'x' || 'pg_class'::regclass AS cat, 'character(3)'::regtype;
SELECT c.oid::regclass, c.relname FROM pg_class c WHERE c.oid = 'reg_t'::regclass;
SELECT oid::regclass FROM pg_class WHERE relname IN ('pg_class', 'pg_type', 'pg_attribute') ORDER BY oid::regclass;
SELECT to_regrole('postgres'), 'postgres'::regrole, to_regrole('nobody_here') IS NULL AS missing;
SELECT 'public'::regnamespace, 'pg_catalog'::regnamespace::oid;
SELECT 0::regclass, 0::regtype, 999999::regclass;
SELECT 'nobody_here'::regrole;
COPY (SELECT 'pg_class'::regclass, 'int8'::regtype) TO STDOUT;
INSERT INTO reg_t VALUES (1) RETURNING a, 'reg_t'::regclass;
DROP TABLE reg_t;
-- regproc and regprocedure: functions by name, with PostgreSQL's OIDs.
SELECT to_regproc('now'), to_regproc('length'), to_regproc('nope'), to_regproc('pg_catalog.now');
SELECT to_regprocedure('abs(int4)'), to_regprocedure('substr(text, integer)'), to_regprocedure('abs(text)');
SELECT 'now'::regproc, 'now'::regproc::oid, 'now()'::regprocedure, 'concat("any")'::regprocedure;
SELECT 'round(numeric, int4)'::regprocedure, 'lpad(text,integer,text)'::regprocedure::oid;
SELECT 'length'::regproc;
SELECT 'nope'::regproc;
SELECT 'abs(text)'::regprocedure;
SELECT 1299::regproc, 1299::regprocedure, 0::regproc;
