-- ALTER TYPE / ALTER DOMAIN ... RENAME TO: the type and its array type
-- take the new name; columns keep the type.
CREATE TYPE color AS ENUM ('red', 'green');
CREATE TYPE shade AS ENUM ('dark');
CREATE DOMAIN percent AS numeric CHECK (VALUE BETWEEN 0 AND 100);
CREATE TABLE paint (c color, cs color[], p percent);
INSERT INTO paint VALUES ('red', '{red,green}', 50);
ALTER TYPE color RENAME TO shade;
ALTER TYPE color RENAME TO colour;
SELECT typname FROM pg_type WHERE typname IN ('colour', '_colour', 'color', '_color') ORDER BY 1;
SELECT * FROM paint;
SELECT 'green'::colour, '{red}'::colour[];
SELECT 'red'::color;
ALTER DOMAIN colour RENAME TO hue;
ALTER DOMAIN percent RENAME TO pct;
ALTER TYPE pct RENAME TO pct2;
INSERT INTO paint VALUES ('green', NULL, 101);
ALTER TYPE nosuch RENAME TO other;
CREATE SCHEMA s;
CREATE TYPE s.color AS ENUM ('x');
ALTER TYPE s.color RENAME TO colour;
SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE t.typname LIKE '%colour' ORDER BY 1, 2;
\d paint
