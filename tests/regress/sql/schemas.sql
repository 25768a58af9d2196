-- Schemas: CREATE/ALTER/DROP SCHEMA, search_path with several schemas and
-- "$user", where new objects go, qualified names, SET SCHEMA, psql's \dn.
SHOW search_path;
SELECT current_schema(), current_schemas(false), current_schemas(true);
CREATE SCHEMA app;
CREATE SCHEMA app;
CREATE SCHEMA IF NOT EXISTS app;
CREATE SCHEMA pg_mine;
CREATE SCHEMA AUTHORIZATION postgres;
CREATE SCHEMA other AUTHORIZATION postgres;
CREATE SCHEMA nobody AUTHORIZATION nosuchrole;
SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace
  WHERE nspname IN ('app', 'postgres', 'other') ORDER BY 1;
\dn
-- A qualified CREATE goes to its schema; serial sequences and indexes follow
-- the table.
CREATE TABLE app.items (id serial PRIMARY KEY, name text UNIQUE);
CREATE TABLE items (id int);
CREATE TABLE nosuch.items (id int);
SELECT c.relname, n.nspname, c.relkind FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'app' ORDER BY 1;
INSERT INTO app.items (name) VALUES ('a'), ('b');
INSERT INTO items VALUES (10);
SELECT * FROM app.items ORDER BY id;
SELECT * FROM items;
SELECT 'app.items'::regclass, 'items'::regclass, 'app.items'::regclass::oid = 'items'::regclass::oid;
SELECT pg_get_serial_sequence('app.items', 'id');
SELECT nextval('app.items_id_seq');
\d app.items
-- The search path decides what unqualified names mean.
SET search_path = app, public;
SHOW search_path;
SELECT current_schema(), current_schemas(false);
SELECT * FROM items ORDER BY id;
SELECT 'items'::regclass, 'public.items'::regclass;
CREATE TABLE only_app (x int);
SELECT 'only_app'::regclass::oid = 'app.only_app'::regclass::oid;
SET search_path = public;
SELECT 'app.only_app'::regclass;
SET search_path = nosuch, app;
SELECT current_schema(), current_schemas(true);
CREATE TABLE made_in_app (x int);
SELECT relnamespace::regnamespace FROM pg_class WHERE relname = 'made_in_app';
SET search_path = nosuch;
SELECT current_schema(), current_schemas(true);
CREATE TABLE nowhere (x int);
SELECT count(*) FROM pg_class WHERE relname = 'nowhere';
-- "$user" is the session user's schema, when it exists.
SET search_path = "$user", public;
SELECT current_schema(), current_schemas(false);
CREATE TABLE mine (x int);
SELECT relnamespace::regnamespace FROM pg_class WHERE relname = 'mine';
-- pg_catalog comes first unless it is listed.
SET search_path = public, pg_catalog;
SELECT current_schemas(true);
SET search_path = '';
SELECT current_schema(), current_schemas(true);
SELECT count(*) FROM public.items;
SELECT count(*) FROM items;
RESET search_path;
-- Same name in two schemas.
CREATE TABLE other.items (other_id int);
SET search_path = other, app, public;
SELECT * FROM items;
SET search_path = app, other, public;
SELECT * FROM items ORDER BY id;
RESET search_path;
-- ALTER SCHEMA.
ALTER SCHEMA other RENAME TO other2;
ALTER SCHEMA app RENAME TO other2;
ALTER SCHEMA nosuch RENAME TO x;
ALTER SCHEMA other2 RENAME TO pg_bad;
SELECT * FROM other2.items;
ALTER SCHEMA other2 OWNER TO postgres;
ALTER SCHEMA other2 OWNER TO nosuchrole;
COMMENT ON SCHEMA other2 IS 'second';
SELECT obj_description('other2'::regnamespace, 'pg_namespace');
-- ALTER TABLE ... SET SCHEMA moves the table with its indexes and sequences.
CREATE TABLE movable (id serial PRIMARY KEY, v text);
INSERT INTO movable (v) VALUES ('x');
ALTER TABLE movable SET SCHEMA other2;
SELECT c.relname, c.relnamespace::regnamespace FROM pg_class c
  WHERE relname LIKE 'movable%' ORDER BY 1;
INSERT INTO other2.movable (v) VALUES ('y');
SELECT * FROM other2.movable ORDER BY id;
SELECT * FROM movable;
ALTER TABLE other2.movable SET SCHEMA other2;
ALTER TABLE other2.movable SET SCHEMA nosuch;
ALTER TABLE IF EXISTS nosuch SET SCHEMA app;
ALTER TABLE other2.items SET SCHEMA app;
CREATE SEQUENCE loose_seq;
ALTER SEQUENCE loose_seq SET SCHEMA app;
SELECT nextval('app.loose_seq');
-- DROP SCHEMA: RESTRICT refuses while objects remain, CASCADE takes them.
CREATE SCHEMA empty;
DROP SCHEMA empty;
DROP SCHEMA empty;
DROP SCHEMA IF EXISTS empty;
DROP SCHEMA app;
DROP SCHEMA other2 RESTRICT;
BEGIN;
DROP SCHEMA app CASCADE;
SELECT count(*) FROM pg_class WHERE relname IN ('items', 'items_pkey', 'items_id_seq', 'only_app');
ROLLBACK;
SELECT count(*) FROM app.items;
DROP SCHEMA app, other2 CASCADE;
SELECT nspname FROM pg_namespace WHERE nspname IN ('app', 'other2');
SELECT count(*) FROM items;
CREATE TABLE public.pubt (x int);
CREATE INDEX ON public.pubt (x);
DROP SCHEMA public CASCADE;
CREATE SCHEMA public;
CREATE TABLE items (id int);
DROP SCHEMA pg_catalog;
DROP SCHEMA postgres;
DROP SCHEMA postgres CASCADE;
-- Schemas are transactional.
BEGIN;
CREATE SCHEMA tx;
CREATE TABLE tx.t (x int);
ROLLBACK;
SELECT count(*) FROM pg_namespace WHERE nspname = 'tx';
CREATE SCHEMA tx CREATE TABLE t (x int) CREATE SEQUENCE s;
SELECT relname, relnamespace::regnamespace FROM pg_class WHERE relnamespace = 'tx'::regnamespace ORDER BY 1;
CREATE SCHEMA tx2 CREATE TABLE tx.t2 (x int);
DROP SCHEMA tx CASCADE;
-- pg_dump's way: an empty search path, every name qualified.
SELECT pg_catalog.set_config('search_path', '', false);
CREATE TABLE public.dumped (id integer NOT NULL);
CREATE SEQUENCE public.dumped_id_seq AS integer START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.dumped_id_seq OWNED BY public.dumped.id;
ALTER TABLE ONLY public.dumped ALTER COLUMN id SET DEFAULT nextval('public.dumped_id_seq'::regclass);
INSERT INTO public.dumped VALUES (DEFAULT);
SELECT * FROM public.dumped;
RESET search_path;
\d dumped

-- acldefault: the privileges objects have before any GRANT (pg_dump asks)
SELECT acldefault('n', nspowner) FROM pg_namespace WHERE nspname IN ('public', 'pg_catalog') ORDER BY nspname;
SELECT acldefault('r', 10), acldefault('s', 10), acldefault('d', 10), acldefault('f', 10);
SELECT acldefault('l', 10), acldefault('T', 10), acldefault('n', 10), acldefault('t', 10);
SELECT acldefault('x', 10);
