-- Queries that would never end, or end only after exhausting memory, are
-- refused or stopped: no single statement may take the shared server down.

-- A locking clause in a recursive query or on a set operation.
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x FOR UPDATE) SELECT * FROM x;
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL (SELECT n+1 FROM x FOR SHARE)) SELECT * FROM x;
SELECT 1 UNION SELECT 2 FOR UPDATE;
SELECT 1 UNION SELECT 2 FOR NO KEY UPDATE;
SELECT 1 INTERSECT SELECT 2 FOR KEY SHARE;
SELECT * FROM (SELECT 1 UNION SELECT 2) s FOR UPDATE;
(SELECT 1 FOR UPDATE) UNION SELECT 2;
SELECT 1 FROM generate_series(1, 3) FOR UPDATE;

-- generate_series bounds that never end the series.
SELECT * FROM generate_series(0::numeric, 'nan'::numeric, 10::numeric);
SELECT * FROM generate_series('nan'::numeric, 10::numeric, 1::numeric);
SELECT * FROM generate_series(0::numeric, 10::numeric, 'nan'::numeric);
SELECT * FROM generate_series(0::numeric, 'nan'::numeric);
SELECT * FROM generate_series(0::numeric, 'nan'::numeric, 0::numeric);
SELECT * FROM generate_series('infinity'::numeric, 1);
SELECT * FROM generate_series(1, 'infinity'::numeric);
SELECT * FROM generate_series(1, '-infinity'::numeric, -1);
SELECT * FROM generate_series(1, 2, '-infinity'::numeric);
SELECT * FROM generate_series(0::numeric, 10::numeric, 0::numeric);
SELECT * FROM generate_series(1, 10, 0);
SELECT * FROM generate_series(1::bigint, 10, 0);
SELECT * FROM generate_series(1, NULL::numeric, 0);
SELECT * FROM generate_series(1.5, 3.5, 1);

-- statement_timeout reaches loops that read no page.
SET statement_timeout = '200ms';
SELECT count(*) FROM generate_series(1, 1000000000);
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r;
SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b WHERE a + b < 0;
SELECT count(*) FROM generate_series(1, 100000) a JOIN generate_series(1, 100000) b ON a % 2 = b % 2 WHERE a + b < 0;
RESET statement_timeout;
SELECT 'still here' AS server;
