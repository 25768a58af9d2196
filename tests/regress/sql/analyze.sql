-- ANALYZE, pg_statistic and pg_stats. Every table here has fewer rows than
-- the sample (300 x default_statistics_target), so ANALYZE reads all of it
-- and the statistics are exact: they do not depend on the random sample.
-- Page counts differ from PostgreSQL's (sluice's tuple headers are 8 bytes
-- longer), so only one-page tables show them.

-- A table never analysed, then analysed empty, then with live and dead rows.
CREATE TABLE stats_small (a int);
SELECT relpages, reltuples FROM pg_class WHERE relname = 'stats_small';
ANALYZE VERBOSE stats_small;
SELECT relpages, reltuples FROM pg_class WHERE relname = 'stats_small';
SELECT count(*) FROM pg_stats WHERE tablename = 'stats_small';
INSERT INTO stats_small SELECT i FROM generate_series(1, 10) i;
DELETE FROM stats_small WHERE a < 4;
ANALYZE VERBOSE stats_small;
SELECT relpages, reltuples FROM pg_class WHERE relname = 'stats_small';
SELECT schemaname, tablename, attname, inherited, null_frac, avg_width, n_distinct,
       most_common_vals, most_common_freqs, histogram_bounds, correlation,
       most_common_elems, most_common_elem_freqs, elem_count_histogram
  FROM pg_stats WHERE tablename = 'stats_small';
-- New statistics replace the old ones; updated rows leave dead versions.
UPDATE stats_small SET a = 42;
ANALYZE (VERBOSE) stats_small;
SELECT attname, n_distinct, most_common_vals, most_common_freqs, histogram_bounds, correlation
  FROM pg_stats WHERE tablename = 'stats_small';
SELECT count(*) FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid
 WHERE c.relname = 'stats_small';

-- Columns of several types and distributions, 3000 rows.
CREATE TABLE stats_t (
  id int,          -- unique, in physical order
  rev int,         -- unique, in reverse order
  grp int,         -- five values, equally common
  skew int,        -- 0 half the time, three middling values, singletons
  maybe int,       -- a fifth NULL, scattered
  label text,      -- three values
  word varchar(20),
  price numeric,
  day date,
  at timestamptz,
  flag boolean,
  nothing int      -- always NULL
);
INSERT INTO stats_t
SELECT i, 3001 - i, i % 5,
       CASE WHEN i % 10 < 5 THEN 0 WHEN i % 10 < 8 THEN i % 10 ELSE i END,
       CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 7919) % 1000 END,
       'label-' || (i % 3),
       'w' || (i % 7),
       1000.25 + (i % 50),
       date '2024-01-01' + (i % 40),
       timestamptz '2024-01-01 00:00:00+00' + (i % 24) * interval '1 hour',
       i % 4 = 0,
       NULL
  FROM generate_series(1, 3000) i;
ANALYZE stats_t;
SELECT relpages > 0 AS has_pages, reltuples FROM pg_class WHERE relname = 'stats_t';
SELECT attname, null_frac, avg_width, n_distinct, correlation
  FROM pg_stats WHERE tablename = 'stats_t' ORDER BY attname;
SELECT attname, most_common_vals, most_common_freqs
  FROM pg_stats WHERE tablename = 'stats_t' AND attname IN ('grp', 'skew', 'label', 'word', 'flag', 'at')
 ORDER BY attname;
SELECT attname, histogram_bounds
  FROM pg_stats WHERE tablename = 'stats_t' AND attname IN ('id', 'rev', 'maybe')
 ORDER BY attname;
-- The slots: MCV (kind 1, "=") first, then histogram (2, "<") and
-- correlation (3, "<"), with the column's collation.
SELECT s.staattnum, s.stakind1, s.stakind2, s.stakind3, s.staop1, s.staop2, s.staop3,
       s.stacoll1, s.stanumbers3, s.stavalues3
  FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid
 WHERE c.relname = 'stats_t' ORDER BY s.staattnum;

-- A smaller target: at most 10 MCVs and 11 histogram bounds (and a 3000-row
-- sample, still the whole table).
SET default_statistics_target = 10;
ANALYZE stats_t;
SELECT attname, n_distinct, most_common_vals, most_common_freqs, histogram_bounds
  FROM pg_stats WHERE tablename = 'stats_t' AND attname IN ('skew', 'maybe', 'price', 'day')
 ORDER BY attname;
RESET default_statistics_target;
-- Values are shown in the session's time zone.
SET TimeZone = 'America/New_York';
SELECT most_common_vals FROM pg_stats WHERE tablename = 'stats_t' AND attname = 'at';
RESET TimeZone;

-- Values whose text needs quoting in an array: shown as PostgreSQL shows them.
CREATE TABLE stats_words (w text);
INSERT INTO stats_words
SELECT CASE i % 6 WHEN 0 THEN '' WHEN 1 THEN 'a b' WHEN 2 THEN 'x,y' WHEN 3 THEN 'NULL'
                  WHEN 4 THEN 'q"q' ELSE 'plain' END
  FROM generate_series(1, 60) i;
INSERT INTO stats_words VALUES ('once'), (NULL);
ANALYZE stats_words;
SELECT null_frac, avg_width, n_distinct, most_common_vals, most_common_freqs, histogram_bounds
  FROM pg_stats WHERE tablename = 'stats_words';

-- Column lists, and what is refused.
CREATE TABLE stats_cols (a int, b int, c text);
INSERT INTO stats_cols SELECT i, i % 2, 'x' FROM generate_series(1, 100) i;
ANALYZE stats_cols (b, c);
SELECT attname, n_distinct, most_common_vals FROM pg_stats WHERE tablename = 'stats_cols' ORDER BY attname;
SELECT reltuples FROM pg_class WHERE relname = 'stats_cols';
ANALYZE stats_cols (nosuch);
ANALYZE stats_cols (b, b);
ANALYZE VERBOSE stats_cols (b, nosuch);
ANALYZE nosuch_table;
ANALYZE stats_cols, nosuch_table;
ANALYZE (foo) stats_cols;
ANALYZE (buffer_usage_limit 10) stats_cols;
ANALYZE (verbose maybe) stats_cols;
ANALYZE (verbose off, skip_locked) stats_cols;
ANALYZE (verbose false, skip_locked true) stats_cols, stats_cols;
ANALYZE stats_cols, stats_cols (a);
SELECT attname FROM pg_stats WHERE tablename = 'stats_cols' ORDER BY attname;
CREATE SEQUENCE stats_seq;
ANALYZE stats_seq;

-- Inside a transaction block, the block's own rows count.
BEGIN;
CREATE TABLE stats_txn (v text);
INSERT INTO stats_txn VALUES ('a'), ('a'), ('b'), (NULL);
ANALYZE VERBOSE stats_txn;
SELECT attname, null_frac, avg_width, n_distinct, most_common_vals, most_common_freqs
  FROM pg_stats WHERE tablename = 'stats_txn';
ROLLBACK;
SELECT count(*) FROM pg_stats WHERE tablename = 'stats_txn';

-- ANALYZE without a list analyzes every table, the catalogs included.
CREATE TABLE stats_all (a int);
INSERT INTO stats_all SELECT i FROM generate_series(1, 5) i;
ANALYZE;
SELECT attname, n_distinct, histogram_bounds FROM pg_stats WHERE tablename = 'stats_all';
SELECT reltuples FROM pg_class WHERE relname = 'stats_all';
SELECT count(*) > 0 AS catalogs_analyzed FROM pg_stats WHERE schemaname = 'pg_catalog';

-- DROP TABLE removes the statistics.
DROP TABLE stats_all, stats_cols, stats_t, stats_small, stats_words;
DROP SEQUENCE stats_seq;
SELECT count(*) FROM pg_statistic s
 WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = s.starelid);
