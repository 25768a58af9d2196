-- DateStyle and IntervalStyle change how values print (and how ambiguous
-- dates read), as pg_regress's PGDATESTYLE="Postgres, MDY" and
-- intervalstyle=postgres_verbose need.
CREATE TABLE stamps (d date, ts timestamp, tz timestamptz, t time);
INSERT INTO stamps VALUES
  ('2024-01-02', '2024-01-02 03:04:05.5', '2024-07-02 10:04:05+00', '03:04:05'),
  ('0044-03-15 BC', '0044-03-15 10:00 BC', '0044-03-15 18:00+00 BC', '23:59:59.999'),
  ('infinity', '-infinity', 'infinity', '00:00');
SET TimeZone = 'PST8PDT';
SET DateStyle = 'Postgres, MDY';
SHOW DateStyle;
SELECT * FROM stamps;
SELECT '2024-01-02 03:04:05'::timestamptz, now() IS NOT NULL AS now_ok;
SELECT '01/02/2024'::date, '2024-01-02'::date::text;
SET DateStyle = 'Postgres, DMY';
SELECT * FROM stamps;
SELECT '01/02/2024'::date, '13/01/2024'::date;
SET DateStyle = 'SQL, MDY';
SELECT * FROM stamps;
SET DateStyle = 'SQL, DMY';
SELECT * FROM stamps;
SET DateStyle = 'German';
SHOW DateStyle;
SELECT * FROM stamps;
SELECT '01/02/2024'::date;
SET DateStyle = 'ISO, DMY';
SELECT * FROM stamps;
SELECT '01/02/2024'::date, '01/02/24'::date;
SET DateStyle = 'ISO, YMD';
SELECT '01/02/03'::date, '2024-01-02'::date;
SET DateStyle = 'ISO, MDY';
SELECT '13/01/2024'::date;
SELECT '01/02/2024'::date;
-- Zone abbreviations follow the zone and the instant.
SET DateStyle = 'Postgres';
SET TimeZone = 'UTC';
SELECT '2024-01-02 03:04:05+00'::timestamptz;
SET TimeZone = 'Europe/Berlin';
SELECT '2024-01-02 03:04:05'::timestamptz, '2024-07-02 03:04:05'::timestamptz;
SET TimeZone = 'America/Sao_Paulo';
SELECT '2024-01-02 03:04:05'::timestamptz;
SET DateStyle = 'SQL';
SELECT '2024-01-02 03:04:05'::timestamptz;
RESET DateStyle;
RESET TimeZone;
SELECT * FROM stamps;
-- IntervalStyle.
CREATE TABLE spans (i interval);
INSERT INTO spans VALUES ('1 day 2 hours'), ('-1 day -2 hours'),
  ('1 year 2 months 3 days 04:05:06.789'), ('-1 year -2 months +3 days -04:05:06'),
  ('0'), ('1 day -1 hour'), ('-00:00:01.5'), ('3 mons'), ('-3 mons'),
  ('1 year -1 month'), ('00:00:00.000001'), ('-1 day'), ('2 hours 3 minutes'),
  ('4 min 5 sec'), ('1 day 00:00:05'), ('-2 years'), ('1 day -00:00:01'),
  ('1 sec'), ('-1 sec');
SET IntervalStyle = postgres_verbose;
SHOW IntervalStyle;
SELECT i FROM spans;
SELECT '@ 1 day 2 hours ago'::interval, interval '1 hour' * 2;
SET IntervalStyle = sql_standard;
SELECT i FROM spans;
SELECT '1-2'::interval, '1 2:03:04'::interval, '@ 1 day ago'::interval;
SET IntervalStyle = iso_8601;
SELECT i FROM spans;
SELECT 'P1Y2M3DT4H5M6S'::interval;
RESET IntervalStyle;
SELECT i FROM spans;
-- pg_regress's settings together.
SET DateStyle = 'Postgres, MDY';
SET IntervalStyle = postgres_verbose;
SELECT ts, ts - '2024-01-01'::timestamp AS since FROM stamps WHERE d = '2024-01-02';
