-- unnest(array) in FROM, with ORDINALITY, aliases and LATERAL references,
-- and the array concatenation (||) psql's \d+ uses on reloptions.
SELECT * FROM unnest('{1,2,3}'::int[]);
SELECT * FROM unnest('{a,b,NULL}'::text[]) WITH ORDINALITY;
SELECT x FROM unnest('{1.5,2.5}'::numeric[]) x;
SELECT t.v, t.n FROM unnest('{10,20}'::int[]) WITH ORDINALITY AS t(v, n);
SELECT * FROM unnest(NULL::int[]);
SELECT * FROM unnest('{}'::text[]);
SELECT * FROM unnest('{1,2}');
SELECT * FROM unnest(1);
CREATE TABLE ua (id int, tags text[]);
INSERT INTO ua VALUES (1, '{x,y}'), (2, '{z}'), (3, NULL);
SELECT id, tag FROM ua, unnest(tags) tag ORDER BY 1, 2;
SELECT id, t FROM ua CROSS JOIN LATERAL unnest(ua.tags) WITH ORDINALITY AS u(t, o) WHERE o = 1 ORDER BY 1;
SELECT array(SELECT 'toast.' || x FROM unnest('{a=1,b=2}'::text[]) x);
SELECT count(*) FROM unnest('{1,2,3}'::int[]) a, unnest('{4,5}'::int[]) b;
EXPLAIN (COSTS OFF) SELECT * FROM unnest('{1,2}'::int[]);
SELECT '{1,2}'::int[] || '{3}'::int[], '{a}'::text[] || NULL::text[], NULL::int[] || NULL::int[];
SELECT tags || '{w}'::text[] FROM ua ORDER BY id;
-- psql's \d+ of a table (reloptions are text[]).
CREATE TABLE dp (id int PRIMARY KEY, n int DEFAULT 0, note text) WITH (fillfactor = 70);
\d+ dp
SELECT relname, reloptions FROM pg_class WHERE relname = 'dp';
ALTER TABLE dp SET (autovacuum_enabled = off);
SELECT relname, reloptions, array_length(reloptions, 1) FROM pg_class WHERE relname = 'dp';
ALTER TABLE dp RESET (fillfactor, autovacuum_enabled);
SELECT relname, reloptions FROM pg_class WHERE relname = 'dp';
