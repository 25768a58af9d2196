-- Enum types: CREATE TYPE ... AS ENUM, ADD VALUE (placement, renumbering,
-- IF NOT EXISTS, new labels unusable until commit), RENAME VALUE, pg_enum,
-- operators with and without an index, casts, arrays, the support
-- functions, foreign keys, DROP TYPE with dependent columns, a type in
-- another schema. Adapted from PostgreSQL's regression test enum.sql.
CREATE TYPE rainbow AS ENUM ('red', 'orange', 'yellow', 'green', 'blue', 'purple');
SELECT COUNT(*) FROM pg_enum WHERE enumtypid = 'rainbow'::regtype;
SELECT 'red'::rainbow;
SELECT 'mauve'::rainbow;
CREATE TYPE rainbow AS ENUM ('red');
CREATE TYPE toolong AS ENUM ('plutoplutoplutoplutoplutoplutoplutoplutoplutoplutoplutoplutoplutopluto');
CREATE TYPE empty AS ENUM ();
SELECT enum_range(NULL::empty), enum_first(NULL::empty);
DROP TYPE empty;

-- adding new values
CREATE TYPE planets AS ENUM ( 'venus', 'earth', 'mars' );
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'planets'::regtype ORDER BY 2;
ALTER TYPE planets ADD VALUE 'uranus';
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'planets'::regtype ORDER BY 2;
ALTER TYPE planets ADD VALUE 'mercury' BEFORE 'venus';
ALTER TYPE planets ADD VALUE 'saturn' BEFORE 'uranus';
ALTER TYPE planets ADD VALUE 'jupiter' AFTER 'mars';
ALTER TYPE planets ADD VALUE 'neptune' AFTER 'uranus';
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'planets'::regtype ORDER BY 2;
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'planets'::regtype ORDER BY enumlabel::planets;
ALTER TYPE planets ADD VALUE
  'plutoplutoplutoplutoplutoplutoplutoplutoplutoplutoplutoplutoplutopluto';
ALTER TYPE planets ADD VALUE 'pluto' AFTER 'zeus';
ALTER TYPE planets ADD VALUE 'mercury';
ALTER TYPE planets ADD VALUE IF NOT EXISTS 'mercury';
SELECT enum_last(NULL::planets);
ALTER TYPE planets ADD VALUE IF NOT EXISTS 'pluto';
SELECT enum_last(NULL::planets);
ALTER TYPE int4 ADD VALUE 'x';
ALTER TYPE nosuch ADD VALUE 'x';

-- inserting so many values that the labels are renumbered
create type insenum as enum ('L1', 'L2');
alter type insenum add value 'i1' before 'L2';
alter type insenum add value 'i2' before 'L2';
alter type insenum add value 'i3' before 'L2';
alter type insenum add value 'i4' before 'L2';
alter type insenum add value 'i5' before 'L2';
alter type insenum add value 'i6' before 'L2';
alter type insenum add value 'i7' before 'L2';
alter type insenum add value 'i8' before 'L2';
alter type insenum add value 'i9' before 'L2';
alter type insenum add value 'i10' before 'L2';
alter type insenum add value 'i11' before 'L2';
alter type insenum add value 'i12' before 'L2';
alter type insenum add value 'i13' before 'L2';
alter type insenum add value 'i14' before 'L2';
alter type insenum add value 'i15' before 'L2';
alter type insenum add value 'i16' before 'L2';
alter type insenum add value 'i17' before 'L2';
alter type insenum add value 'i18' before 'L2';
alter type insenum add value 'i19' before 'L2';
alter type insenum add value 'i20' before 'L2';
alter type insenum add value 'i21' before 'L2';
alter type insenum add value 'i22' before 'L2';
alter type insenum add value 'i23' before 'L2';
alter type insenum add value 'i24' before 'L2';
alter type insenum add value 'i25' before 'L2';
alter type insenum add value 'i26' before 'L2';
alter type insenum add value 'i27' before 'L2';
alter type insenum add value 'i28' before 'L2';
alter type insenum add value 'i29' before 'L2';
alter type insenum add value 'i30' before 'L2';
SELECT enumlabel, case when enumsortorder > 20 then null else enumsortorder end as so
FROM pg_enum WHERE enumtypid = 'insenum'::regtype ORDER BY enumsortorder;
SELECT enum_range(NULL::insenum) = ARRAY(SELECT enumlabel::insenum FROM pg_enum WHERE enumtypid = 'insenum'::regtype ORDER BY enumsortorder) AS same_order;

-- tables, COPY, operators without an index
CREATE TABLE enumtest (col rainbow);
INSERT INTO enumtest values ('red'), ('orange'), ('yellow'), ('green');
COPY enumtest FROM stdin;
blue
purple
\.
COPY enumtest FROM stdin;
mauve
\.
SELECT * FROM enumtest;
COPY enumtest TO stdout;
SELECT * FROM enumtest WHERE col = 'orange';
SELECT * FROM enumtest WHERE col <> 'orange' ORDER BY col;
SELECT * FROM enumtest WHERE col > 'yellow' ORDER BY col;
SELECT * FROM enumtest WHERE col >= 'yellow' ORDER BY col;
SELECT * FROM enumtest WHERE col < 'green' ORDER BY col;
SELECT * FROM enumtest WHERE col <= 'green' ORDER BY col;
SELECT * FROM enumtest WHERE col = 'mauve';
SELECT col, count(*) FROM enumtest GROUP BY col ORDER BY col DESC;
SELECT DISTINCT col FROM enumtest WHERE col IN ('red', 'blue') ORDER BY 1;
SELECT 'red'::rainbow = 'mars'::planets;
SELECT 'red'::rainbow < 1;

-- casts to and from text
SELECT 'red'::rainbow::text || 'hithere';
SELECT 'red'::text::rainbow = 'red'::rainbow;
SELECT 'red'::varchar::rainbow, 'green'::rainbow::varchar(3);
SELECT pg_typeof('red'::rainbow), 'red'::rainbow IS NULL;
SELECT format_type('rainbow'::regtype, NULL), format_type('_rainbow'::regtype, -1),
       'rainbow[]'::regtype, 'public.rainbow'::regtype::oid = 'rainbow'::regtype::oid;
SELECT format_type(23, -1), format_type(1043, 14), format_type(12345, -1), format_type(NULL, 1);

-- aggregates
SELECT min(col) FROM enumtest;
SELECT max(col) FROM enumtest;
SELECT max(col) FROM enumtest WHERE col < 'green';

-- B-tree index, forced
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE UNIQUE INDEX enumtest_btree ON enumtest USING btree (col);
SELECT * FROM enumtest WHERE col = 'orange';
SELECT * FROM enumtest WHERE col <> 'orange' ORDER BY col;
SELECT * FROM enumtest WHERE col > 'yellow' ORDER BY col;
SELECT * FROM enumtest WHERE col >= 'yellow' ORDER BY col;
SELECT * FROM enumtest WHERE col < 'green' ORDER BY col;
SELECT * FROM enumtest WHERE col <= 'green' ORDER BY col;
SELECT min(col) FROM enumtest;
SELECT max(col) FROM enumtest;
SELECT max(col) FROM enumtest WHERE col < 'green';
INSERT INTO enumtest VALUES ('red');
DROP INDEX enumtest_btree;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- arrays
SELECT '{red,green,blue}'::rainbow[];
SELECT ('{red,green,blue}'::rainbow[])[2];
SELECT 'red' = ANY ('{red,green,blue}'::rainbow[]);
SELECT 'yellow' = ANY ('{red,green,blue}'::rainbow[]);
SELECT 'red' = ALL ('{red,green,blue}'::rainbow[]);
SELECT 'red' = ALL ('{red,red}'::rainbow[]);
SELECT '{red,mauve}'::rainbow[];
SELECT '{red,blue}'::rainbow[] < '{red,green}'::rainbow[];
CREATE TABLE enum_arrays (id int, colours rainbow[]);
INSERT INTO enum_arrays VALUES (1, '{purple,red}'), (2, NULL), (3, '{}');
SELECT * FROM enum_arrays ORDER BY colours;
SELECT id FROM enum_arrays WHERE 'red' = ANY (colours);
DROP TABLE enum_arrays;

-- support functions
SELECT enum_first(NULL::rainbow);
SELECT enum_last('green'::rainbow);
SELECT enum_range(NULL::rainbow);
SELECT enum_range('orange'::rainbow, 'green'::rainbow);
SELECT enum_range(NULL, 'green'::rainbow);
SELECT enum_range('orange'::rainbow, NULL);
SELECT enum_range(NULL::rainbow, NULL);
SELECT enum_first(1);

-- foreign keys over enum columns
CREATE TABLE enumtest_parent (id rainbow PRIMARY KEY);
CREATE TABLE enumtest_child (parent rainbow REFERENCES enumtest_parent);
INSERT INTO enumtest_parent VALUES ('red');
INSERT INTO enumtest_child VALUES ('red');
INSERT INTO enumtest_child VALUES ('blue');  -- fail
DELETE FROM enumtest_parent;  -- fail

-- renaming a value
ALTER TYPE rainbow RENAME VALUE 'red' TO 'crimson';
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'rainbow'::regtype ORDER BY 2;
SELECT * FROM enumtest_child;
ALTER TYPE rainbow RENAME VALUE 'red' TO 'crimson';
ALTER TYPE rainbow RENAME VALUE 'blue' TO 'green';

-- ADD VALUE inside a transaction: the new value waits for the commit
CREATE TYPE bogus AS ENUM('good');
BEGIN;
ALTER TYPE bogus ADD VALUE 'new';
SAVEPOINT x;
SELECT 'new'::bogus;  -- unsafe
ROLLBACK TO x;
SELECT enum_first(null::bogus);  -- safe
SELECT enum_last(null::bogus);  -- unsafe
ROLLBACK TO x;
SELECT enum_range(null::bogus);  -- unsafe
ROLLBACK TO x;
COMMIT;
SELECT 'new'::bogus;  -- now safe
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'bogus'::regtype ORDER BY 2;
BEGIN;
ALTER TYPE bogus ADD VALUE 'gone';
ROLLBACK;
SELECT enum_range(null::bogus);
-- a renamed value is safe to use later in the same transaction
BEGIN;
ALTER TYPE bogus RENAME VALUE 'good' to 'bad';
SELECT 'bad'::bogus;
ROLLBACK;
DROP TYPE bogus;
-- values created by CREATE TYPE can be used in any case
BEGIN;
CREATE TYPE bogus AS ENUM('good','bad','ugly');
select enum_range(null::bogus);
ROLLBACK;
SELECT 'good'::bogus;

-- stored expressions that name an enum type: defaults, CHECK constraints,
-- partial index predicates, generated columns
CREATE TYPE jobstate AS ENUM ('queued', 'running', 'done', 'failed');
CREATE TABLE jobs (
  id int PRIMARY KEY,
  state jobstate NOT NULL DEFAULT 'queued' CHECK (state <> 'failed'),
  tags jobstate[] DEFAULT '{queued}',
  finished bool GENERATED ALWAYS AS (state = 'done'::jobstate) STORED
);
CREATE INDEX jobs_queued ON jobs (id) WHERE state = 'queued';
SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'jobs'::regclass ORDER BY conname;
SELECT pg_get_indexdef('jobs_queued'::regclass);
INSERT INTO jobs (id) VALUES (1), (2);
INSERT INTO jobs VALUES (3, 'failed');
INSERT INTO jobs (id, state) VALUES (3, 'running') RETURNING *;
INSERT INTO jobs (id, state) VALUES (3, 'done')
  ON CONFLICT (id) DO UPDATE SET state = 'done' WHERE jobs.state <> 'done'::jobstate RETURNING *;
COPY jobs (id, state) FROM stdin;
4	done
\.
UPDATE jobs SET state = DEFAULT WHERE id = 4 RETURNING *;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM jobs WHERE state = 'queued' AND id > 0;
SELECT id FROM jobs WHERE state = 'queued' AND id > 0;
RESET enable_seqscan;
DROP TABLE jobs;
DROP TYPE jobstate;

-- DROP TYPE and what depends on it
DROP TYPE rainbow;
DROP TYPE _rainbow;
DROP TYPE nosuch;
DROP TYPE IF EXISTS nosuch;
CREATE TABLE two_rainbows (id int, a rainbow, b rainbow[]);
INSERT INTO two_rainbows VALUES (1, 'green', '{green}');
DROP TYPE rainbow, planets CASCADE;
SELECT * FROM two_rainbows;
SELECT * FROM enumtest_child;
DROP TABLE enumtest_child;
DROP TABLE enumtest_parent;
DROP TABLE enumtest;
SELECT COUNT(*) FROM pg_type WHERE typname IN ('rainbow', '_rainbow');
SELECT * FROM pg_enum WHERE NOT EXISTS (SELECT 1 FROM pg_type WHERE pg_type.oid = enumtypid);
DROP TABLE two_rainbows;
DROP TYPE int4;

-- a type in another schema, found along the search path
CREATE SCHEMA colours;
CREATE TYPE colours.shade AS ENUM ('light', 'dark');
CREATE TABLE paint (shade colours.shade);
CREATE TABLE paint2 (shade shade);
SET search_path = colours, public;
CREATE TABLE paint2 (shade shade DEFAULT 'dark');
INSERT INTO paint2 DEFAULT VALUES;
INSERT INTO paint VALUES ('light');
SELECT * FROM paint, paint2;
RESET search_path;
SELECT typname, typnamespace::regnamespace, typtype, typcategory, typlen, typbyval, typarray <> 0 AS has_array
FROM pg_type WHERE typname IN ('shade', '_shade') ORDER BY 1;
SELECT t.typname, e.typname AS element FROM pg_type t JOIN pg_type e ON e.oid = t.typelem WHERE e.typname = 'shade';
CREATE TYPE paint AS ENUM ('x');
ALTER TYPE colours.shade OWNER TO postgres;
ALTER TYPE colours.nosuch OWNER TO postgres;
SELECT t.typname, pg_get_userbyid(t.typowner) FROM pg_type t WHERE typname IN ('shade', '_shade') ORDER BY 1;
DROP SCHEMA colours;
DROP SCHEMA colours CASCADE;
DROP TABLE paint;
