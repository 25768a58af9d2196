-- The Que job queue's lock query (seed 003): json, row comparison, whole-row
-- references and composite values, then the query itself.

-- json keeps its text as written (spacing, key order, duplicate keys)
SELECT '{"b": 1,   "a" : [1, 2], "b": 3}'::json AS j;
SELECT '[]'::json, ' "x" '::json, 'null'::json, '12.50e3'::json;
SELECT '"\u0000"'::json;
SELECT '{"a" 1}'::json;
SELECT '[1, 2'::json;
SELECT '{"a": tru}'::json;
SELECT '"\u0000"'::jsonb;
-- casts
SELECT '{"b": 1, "a":2}'::json::jsonb, '{"b": 1, "a":2}'::jsonb::json;
SELECT '{"a":  1}'::json::text, '[1,2]'::text::json;
SELECT pg_typeof('1'::json), pg_typeof('1'::json::jsonb);
-- field and element access
SELECT '{"a": [1,  {"x": "}"}], "b": "q\"r"}'::json -> 'a' AS a,
       '{"a": [1,  {"x": "}"}], "b": "q\"r"}'::json ->> 'b' AS b,
       '{"a": 1}'::json -> 'z' AS missing;
SELECT '[10, "x", null, {"k": [1]}]'::json -> 0 AS first,
       '[10, "x", null, {"k": [1]}]'::json -> -1 AS last,
       '[10, "x", null, {"k": [1]}]'::json ->> 1 AS text,
       '[10, "x", null, {"k": [1]}]'::json ->> 2 AS null_text,
       '[10, "x"]'::json -> 5 AS out_of_range;
SELECT '{"a": 1, "a": 2}'::json -> 'a' AS last_duplicate;
SELECT '{"a": 1}'::json = '{"a": 1}'::json;

-- row constructors and row comparison
SELECT ROW(1, 'a b', NULL, '', 'x"y\z', '(,)') AS r;
SELECT (1, 2) AS r, ROW() AS empty;
SELECT (ROW(1, 'x'::text)).f2, (ROW(1, 2)).f1 + 1 AS f1;
SELECT (1, 2, 3) < (1, 2, 4) AS lt, (1, 2, 3) <= (1, 2, 3) AS le,
       (1, 2, 3) > (1, 2, 3) AS gt, (2, 0, 0) >= (1, 9, 9) AS ge;
SELECT (1, NULL) < (2, 0) AS decided_first, (1, NULL) < (1, 0) AS null_next,
       (1, NULL) = (2, 0) AS eq_false, (1, NULL) = (1, NULL) AS eq_null,
       (1, NULL) <> (2, 0) AS ne_true, (1, 2) <> (1, 2) AS ne_false;
SELECT ROW(1) = ROW(1) AS one_column, (1, 'b') < (1, 'c') AS mixed_types,
       (1::smallint, 2::bigint) < (1, 3) AS cross_type;
SELECT (1, 2) IN ((1, 2), (3, 4)) AS found, (1, 2) NOT IN ((1, 3), (3, 4)) AS not_found,
       (1, NULL) IN ((1, 2), (1, 3)) AS unknown, (1, NULL) IN ((2, 2), (1, NULL)) AS still_unknown,
       (1, NULL) NOT IN ((2, 2), (3, NULL)) AS not_in_decided;
SELECT (1, 2) < (1, 2, 3);
SELECT (1, 2) IN ((1, 2, 3));
SELECT ROW() < ROW();
SELECT (1, 'a') ~~ (1, 'a');
SELECT ('a', 'b') ~~ ('a', 'b');
SELECT (1, 2) < (1, 'x');
SELECT (ROW(1, 2)).nope;
SELECT (1).x;

-- whole-row references, field selection and (x).*
CREATE TABLE pets (id int, name text, tags json);
INSERT INTO pets VALUES (1, 'Rex', '["good",  "dog"]'), (2, 'a b', NULL), (3, '', '{}');
SELECT p FROM pets AS p ORDER BY id;
SELECT pets FROM pets ORDER BY id;
SELECT (p).name, (p).id + 1 AS next FROM pets p ORDER BY id;
SELECT (p).* FROM pets p ORDER BY id;
SELECT pets.* FROM pets WHERE (pets).id = 2;
SELECT t FROM (SELECT id, name FROM pets) t ORDER BY (t).id;
SELECT (t.p).name FROM (SELECT p FROM pets p) t ORDER BY 1;
SELECT (x).* FROM (SELECT p AS x FROM pets p WHERE id > 1) s ORDER BY (x).id;
SELECT (SELECT p FROM pets p WHERE id = 3) AS found,
       (SELECT p FROM pets p WHERE id = 9) IS NULL AS missing;
SELECT ((SELECT p FROM pets p WHERE id = 9)).name AS field_of_null;
SELECT (p).* FROM pets p WHERE (p.id, p.name) > (1, 'Rex') ORDER BY id;
EXPLAIN (COSTS OFF) SELECT * FROM pets WHERE (id, name) > (1, 'Rex');
SELECT id FROM pets WHERE (id, name) IN ((1, 'Rex'), (3, ''), (4, 'x')) ORDER BY id;
-- a row IS NULL when all its fields are, IS NOT NULL when none is
SELECT ROW(NULL, NULL) IS NULL AS all_null, ROW(1, NULL) IS NULL AS some_null,
       ROW(1, NULL) IS NOT NULL AS some_not_null, ROW(1, 2) IS NOT NULL AS none_null;
SELECT id, p IS NULL AS is_null, p IS NOT NULL AS is_not_null FROM pets p ORDER BY id;
-- json has no comparison operators
SELECT tags FROM pets ORDER BY tags;
SELECT tags, count(*) FROM pets GROUP BY tags;
SELECT ROW(id, tags) FROM pets ORDER BY 1;

-- the Que schema and its lock query
CREATE TABLE que_jobs (
  priority smallint NOT NULL DEFAULT 100,
  run_at timestamptz NOT NULL DEFAULT now(),
  job_id bigserial NOT NULL,
  job_class text NOT NULL,
  args json NOT NULL DEFAULT '[]'::json,
  error_count integer NOT NULL DEFAULT 0,
  last_error text,
  queue text NOT NULL DEFAULT '',
  CONSTRAINT que_jobs_pkey PRIMARY KEY (queue, priority, run_at, job_id)
);
INSERT INTO que_jobs (priority, run_at, job_class, args) VALUES
  (100, '2024-01-01 10:00:00+00', 'SendEmail', '[1, "a"]'),
  (100, '2024-01-01 09:00:00+00', 'SendEmail', '[2]'),
  (50,  '2024-01-01 11:00:00+00', 'ChargeCard', '{"amount": 10}'),
  (100, '2024-01-01 09:00:00+00', 'Cleanup', '[]');
INSERT INTO que_jobs (queue, run_at, job_class) VALUES ('other', '2024-01-01 00:00:00+00', 'Elsewhere');
INSERT INTO que_jobs (run_at, job_class) VALUES ('2999-01-01 00:00:00+00', 'Future');
SELECT priority, run_at, job_id, job_class, args FROM que_jobs ORDER BY job_id;
-- the next job in lock order after job 2
SELECT j FROM que_jobs AS j
WHERE queue = '' AND run_at <= now()
  AND (priority, run_at, job_id) > (100::smallint, '2024-01-01 09:00:00+00'::timestamptz, 2::bigint)
ORDER BY priority, run_at, job_id LIMIT 1;

WITH RECURSIVE job AS (
  SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked
  FROM (
    SELECT j FROM que_jobs AS j
    WHERE queue = '' AND run_at <= now()
    ORDER BY priority, run_at, job_id
    LIMIT 1
  ) AS t1
  UNION ALL (
    SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked
    FROM (
      SELECT (
        SELECT j FROM que_jobs AS j
        WHERE queue = '' AND run_at <= now()
          AND (priority, run_at, job_id) > (job.priority, job.run_at, job.job_id)
        ORDER BY priority, run_at, job_id
        LIMIT 1
      ) AS j
      FROM job
      WHERE NOT job.locked
      LIMIT 1
    ) AS t1
  )
)
SELECT queue, priority, run_at, job_id, job_class, args, error_count
FROM job WHERE locked LIMIT 1;
SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() ORDER BY objid;
-- a worker deletes its job and unlocks; the next run takes the next job
DELETE FROM que_jobs WHERE job_id = 3;
SELECT pg_advisory_unlock(3);
WITH RECURSIVE job AS (
  SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked
  FROM (
    SELECT j FROM que_jobs AS j
    WHERE queue = '' AND run_at <= now()
    ORDER BY priority, run_at, job_id
    LIMIT 1
  ) AS t1
  UNION ALL (
    SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked
    FROM (
      SELECT (
        SELECT j FROM que_jobs AS j
        WHERE queue = '' AND run_at <= now()
          AND (priority, run_at, job_id) > (job.priority, job.run_at, job.job_id)
        ORDER BY priority, run_at, job_id
        LIMIT 1
      ) AS j
      FROM job
      WHERE NOT job.locked
      LIMIT 1
    ) AS t1
  )
)
SELECT queue, priority, run_at, job_id, job_class, args, error_count
FROM job WHERE locked LIMIT 1;
SELECT pg_advisory_unlock_all();
-- once every due job is taken the query returns no row
DELETE FROM que_jobs WHERE job_class <> 'Future';
WITH RECURSIVE job AS (
  SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked
  FROM (
    SELECT j FROM que_jobs AS j
    WHERE queue = '' AND run_at <= now()
    ORDER BY priority, run_at, job_id
    LIMIT 1
  ) AS t1
  UNION ALL (
    SELECT (j).*, pg_try_advisory_lock((j).job_id) AS locked
    FROM (
      SELECT (
        SELECT j FROM que_jobs AS j
        WHERE queue = '' AND run_at <= now()
          AND (priority, run_at, job_id) > (job.priority, job.run_at, job.job_id)
        ORDER BY priority, run_at, job_id
        LIMIT 1
      ) AS j
      FROM job
      WHERE NOT job.locked
      LIMIT 1
    ) AS t1
  )
)
SELECT queue, priority, run_at, job_id, job_class, args, error_count
FROM job WHERE locked LIMIT 1;
