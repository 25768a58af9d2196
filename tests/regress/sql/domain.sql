-- Domains: CREATE DOMAIN with NOT NULL, CHECK and DEFAULT, a domain over a
-- domain, coercion (casts, INSERT, UPDATE, COPY), operations inherited from
-- the base type, the catalogs (pg_type, pg_constraint), COMMENT, DROP
-- DOMAIN with dependents. Adapted from PostgreSQL's regression test
-- domain.sql.
create domain domaindroptest int4;
comment on domain domaindroptest is 'About to drop this..';
select obj_description('domaindroptest'::regtype, 'pg_type');
create domain dependenttypetest domaindroptest;
drop domain domaindroptest;
drop domain domaindroptest cascade;
drop domain domaindroptest cascade;
drop domain if exists domaindroptest;
drop domain int4;

-- domain input
create domain domainvarchar varchar(5);
create domain domainnumeric numeric(8,2);
create domain domainint4 int4;
create domain domaintext text;
SELECT cast('123456' as domainvarchar);
SELECT cast('12345' as domainvarchar);
create table basictest
           ( testint4 domainint4
           , testtext domaintext
           , testvarchar domainvarchar
           , testnumeric domainnumeric
           );
INSERT INTO basictest values ('88', 'haha', 'short', '123.12');      -- Good
INSERT INTO basictest values ('88', 'haha', 'short text', '123.12'); -- Bad varchar
INSERT INTO basictest values ('88', 'haha', 'short', '123.1212');    -- Truncate numeric
COPY basictest (testvarchar) FROM stdin; -- fail
notsoshorttext
\.
COPY basictest (testvarchar) FROM stdin;
short
\.
select * from basictest;
select testtext || testvarchar as concat, testnumeric + 42 as sum
from basictest;
select pg_typeof(coalesce(4::domainint4, 7::domainint4));
select pg_typeof(4::domainint4), pg_typeof(4::domainint4 + 1);
drop table basictest;
drop domain domainvarchar restrict;
drop domain domainnumeric restrict;
drop domain domainint4 restrict;
drop domain domaintext;

-- NOT NULL, CHECK and DEFAULT
create domain dnotnull varchar(15) NOT NULL;
create domain dnull    varchar(15);
create domain dcheck   varchar(15) NOT NULL CHECK (VALUE = 'a' OR VALUE = 'c' OR VALUE = 'd');
create table nulltest
           ( col1 dnotnull
           , col2 dnotnull NULL  -- NOT NULL in the domain cannot be overridden
           , col3 dnull    NOT NULL
           , col4 dnull
           , col5 dcheck CHECK (col5 IN ('c', 'd'))
           );
INSERT INTO nulltest DEFAULT VALUES;
INSERT INTO nulltest values ('a', 'b', 'c', 'd', 'c');  -- Good
insert into nulltest values ('a', 'b', 'c', 'd', NULL);
insert into nulltest values ('a', 'b', 'c', 'd', 'a');
INSERT INTO nulltest values (NULL, 'b', 'c', 'd', 'd');
INSERT INTO nulltest values ('a', NULL, 'c', 'd', 'c');
INSERT INTO nulltest values ('a', 'b', NULL, 'd', 'c');
INSERT INTO nulltest values ('a', 'b', 'c', NULL, 'd'); -- Good
COPY nulltest FROM stdin; --fail
a	b	\N	d	d
\.
COPY nulltest FROM stdin; --fail
a	b	c	d	\N
\.
COPY nulltest FROM stdin;
a	b	c	\N	c
\.
select * from nulltest;
SELECT cast('1' as dnotnull);
SELECT cast(NULL as dnotnull); -- fail
SELECT cast(cast(NULL as dnull) as dnotnull); -- fail
SELECT cast(col4 as dnotnull) from nulltest; -- fail
drop table nulltest;
drop domain dnotnull restrict;
drop domain dnull restrict;
drop domain dcheck restrict;

create domain ddef1 int4 DEFAULT 3;
create domain ddef2 oid DEFAULT '12';
create domain ddef3 text DEFAULT 5;
create sequence ddef4_seq;
create domain ddef4 int4 DEFAULT nextval('ddef4_seq');
create domain ddef5 numeric(8,2) NOT NULL DEFAULT '12.12';
create table defaulttest
            ( col1 ddef1
            , col2 ddef2
            , col3 ddef3
            , col4 ddef4 PRIMARY KEY
            , col5 ddef1 NOT NULL DEFAULT NULL
            , col6 ddef2 DEFAULT '88'
            , col7 ddef4 DEFAULT 8000
            , col8 ddef5
            );
insert into defaulttest(col4) values(0); -- fails, col5 defaults to null
alter table defaulttest alter column col5 drop default;
insert into defaulttest default values; -- succeeds, inserts domain default
alter table defaulttest alter column col5 set default null;
insert into defaulttest(col4) values(0); -- fails
alter table defaulttest alter column col5 drop default;
insert into defaulttest default values;
insert into defaulttest default values;
select * from defaulttest;
drop table defaulttest cascade;

-- CHECK constraints in the catalogs, and a domain over a domain
create domain posint as integer constraint positive check (value > 0);
create domain smallposint as posint check (value < 100) check (value <> 13);
select 5::smallposint, 50::posint;
select 0::smallposint;
select 150::smallposint;
select 13::smallposint;
select 150::posint;
select typname, typtype, typbasetype::regtype, typtypmod, typnotnull, typdefault
from pg_type where typname in ('posint', 'smallposint', '_posint') order by 1;
select conname, pg_get_constraintdef(oid), contypid::regtype, conrelid
from pg_constraint where contypid in ('posint'::regtype, 'smallposint'::regtype) order by 1;
create table sizes (s smallposint, p posint[]);
insert into sizes values (7, '{1,2}');
update sizes set s = s + 10 returning s, pg_typeof(s);
update sizes set s = s + 100;
select s * 2, s = 17, s::text, p from sizes;
create domain broken as integer check (value > 'x');
create domain agg as integer check (value > count(*));
create domain uniq as integer unique;
create domain nn as integer not null null;
create domain rec as record;
drop domain posint;
drop domain posint cascade;
select * from sizes;
drop table sizes;

-- SET SCHEMA, and psql's \dD+ (which joins pg_description on tableoid)
create schema dom1;
create schema dom2;
create domain dom1.d as int not null default 5 check (value <> 13);
comment on domain dom1.d is 'not thirteen';
alter domain dom1.d set schema dom1;
alter domain dom1.d set schema dom2;
alter domain dom1.d set schema dom2;
alter domain dom2.d set schema nosuch;
drop schema dom1;
select typname, typnamespace::regnamespace from pg_type where typname in ('d', '_d') order by 1;
\dD+ dom2.*
select c.tableoid::regclass, t.tableoid::regclass, count(*)
from pg_class c join pg_namespace t on t.oid = c.relnamespace where c.relname = 'pg_type' group by 1, 2;
select tableoid from pg_class c, pg_type t limit 1;
drop schema dom2 cascade;

-- ALTER DOMAIN
create domain con as integer;
create table domcontest (col1 con);
insert into domcontest values (1);
insert into domcontest values (2);
alter domain con add constraint t check (VALUE < 1); -- fails
alter domain con add constraint t check (VALUE < 34);
alter domain con add check (VALUE > 0);
insert into domcontest values (-5); -- fails
insert into domcontest values (42); -- fails
insert into domcontest values (5);
alter domain con drop constraint t;
insert into domcontest values (-5); --fails
insert into domcontest values (42);
alter domain con drop constraint nonexistent;
alter domain con drop constraint if exists nonexistent;
-- NOT VALID, then VALIDATE
create domain things AS INT;
CREATE TABLE thethings (stuff things);
INSERT INTO thethings (stuff) VALUES (55);
ALTER DOMAIN things ADD CONSTRAINT meow CHECK (VALUE < 11);
ALTER DOMAIN things ADD CONSTRAINT meow CHECK (VALUE < 11) NOT VALID;
ALTER DOMAIN things VALIDATE CONSTRAINT meow;
UPDATE thethings SET stuff = 10;
ALTER DOMAIN things VALIDATE CONSTRAINT meow;
select conname, convalidated from pg_constraint where contypid = 'things'::regtype;
-- SET/DROP NOT NULL and DEFAULT
create domain dnotnulltest integer;
create table domnotnull ( col1 dnotnulltest , col2 dnotnulltest );
insert into domnotnull default values;
alter domain dnotnulltest set not null; -- fails
update domnotnull set col1 = 5;
alter domain dnotnulltest set not null; -- fails
update domnotnull set col2 = 6;
alter domain dnotnulltest set not null;
update domnotnull set col1 = null; -- fails
alter domain dnotnulltest drop not null;
update domnotnull set col1 = null;
alter domain dnotnulltest set default 7;
insert into domnotnull default values;
alter domain dnotnulltest drop default;
insert into domnotnull default values;
select * from domnotnull;
alter domain int4 set not null;
alter domain int4 set schema public;
comment on domain int4 is 'not a domain';
drop table domcontest, thethings, domnotnull;
drop domain con, things, dnotnulltest;
