-- COPY FROM STDIN / TO STDOUT: text and CSV, escapes, NULLs, headers, column
-- lists and defaults, WHERE, encodings, and the errors around them.
CREATE TABLE copy_t (a int NOT NULL, b text, c numeric(6,2) DEFAULT 1.5, d timestamptz);
COPY copy_t FROM STDIN;
1	plain	2.25	2020-01-02 03:04:05+00
2	\N	\N	\N
3	tab\there\\back\nnl	3	2021-06-01 12:00:00+02
4	\101\x42\x4g\z	4	\N
\.
COPY copy_t (a, b) FROM STDIN;
5	defaulted
\.
COPY copy_t FROM STDIN;
\.
SELECT * FROM copy_t ORDER BY a;
COPY copy_t TO STDOUT;
COPY copy_t (b, a) TO STDOUT WITH (DELIMITER '|', NULL 'NULL');
COPY copy_t TO STDOUT WITH (FORMAT csv, HEADER);
COPY copy_t TO STDOUT WITH CSV HEADER FORCE QUOTE *;
COPY copy_t (a, b) TO STDOUT (FORMAT csv, FORCE_QUOTE (b), QUOTE '''', ESCAPE '!');
COPY (SELECT a, b || '!' AS shout FROM copy_t WHERE a > 2 ORDER BY a DESC) TO STDOUT (HEADER);
COPY (VALUES (1, 'x'), (2, NULL)) TO STDOUT (FORMAT csv);
COPY (SELECT '\.' AS marker) TO STDOUT (FORMAT csv);
-- CSV input
CREATE TABLE copy_csv (id int, x text, y text);
COPY copy_csv FROM STDIN WITH (FORMAT csv, HEADER true);
id,x,y
1,"a,b",plain
2,,""
3,"say ""hi""","multi
line"
4,  spaced  ,\N
\.
COPY copy_csv FROM STDIN WITH CSV DELIMITER ';' QUOTE '''' ESCAPE '\' NULL 'none';
5;'it\'s';none
6;'none';x
\.
COPY copy_csv FROM STDIN (FORMAT csv, NULL 'N', FORCE_NOT_NULL (x), FORCE_NULL (y));
7,N,"N"
8,"N",N
\.
SELECT id, x, y, x IS NULL AS x_null, y IS NULL AS y_null FROM copy_csv ORDER BY id;
COPY copy_csv FROM STDIN (FORMAT csv, HEADER match);
id,x,y
9,matched,header
\.
COPY copy_csv (id, y) FROM STDIN (FORMAT csv, HEADER match);
id,y
10,z
\.
COPY copy_csv FROM STDIN (HEADER match);
id	x
11	a	b
\.
COPY copy_csv FROM STDIN (FORMAT csv, HEADER match);
id,"x",Y
\.
COPY copy_csv FROM STDIN WHERE id > 100;
12	skipped	x
101	kept	y
\.
COPY copy_csv (id, x) FROM STDIN (ENCODING 'latin1');
102	é
\.
SELECT id, x, y FROM copy_csv WHERE id > 8 ORDER BY id;
COPY (SELECT '€' AS euro) TO STDOUT (ENCODING 'LATIN1');
-- errors in the data roll the whole COPY back
COPY copy_t FROM STDIN;
6	ok	1	\N
x	bad	1	\N
\.
COPY copy_t FROM STDIN;
7	short
\.
COPY copy_t FROM STDIN;
8	long	1	\N	extra
\.
COPY copy_t FROM STDIN;
\N	no a	1	\N
\.
COPY copy_t (b) FROM STDIN;
missing a
\.
COPY copy_t FROM STDIN;
9	x	123456789	\N
\.
COPY copy_t FROM STDIN;
9	x	1	yesterday-ish
\.
COPY copy_t FROM STDIN;
9	a very long value that goes on and on and on and on and on and on and on and on and on and on and on	1	\N	extra
\.
COPY copy_csv FROM STDIN CSV;
12,"unterminated
\.
COPY copy_t FROM STDIN;
10	before the marker	1	\N\.
\.
SELECT count(*) FROM copy_t;
BEGIN;
COPY copy_t (a) FROM STDIN;
20
\.
SELECT a, c FROM copy_t WHERE a = 20;
COPY copy_t (a) FROM STDIN;
bad
\.
SELECT 1;
ROLLBACK;
SELECT count(*) FROM copy_t WHERE a = 20;
-- errors in the statement: they fail before the copy starts, before the
-- file is opened (a file, not STDIN, so no in-line data follows them: psql
-- releases differ on what they do with such data after a failure)
COPY copy_nope FROM '/nonexistent/copy/file';
COPY copy_t (a, nope) FROM '/nonexistent/copy/file';
COPY copy_t (a, a) FROM '/nonexistent/copy/file';
COPY copy_t FROM '/nonexistent/copy/file' (FORMAT xml);
COPY copy_t FROM '/nonexistent/copy/file' (DELIMITER ',', DELIMITER ';');
COPY copy_t FROM '/nonexistent/copy/file' (bogus 1);
COPY copy_t FROM '/nonexistent/copy/file' (DELIMITER 'ab');
COPY copy_t FROM '/nonexistent/copy/file' (DELIMITER 'x');
COPY copy_t FROM '/nonexistent/copy/file' (QUOTE '"');
COPY copy_t FROM '/nonexistent/copy/file' (FORMAT csv, NULL 'a,b');
COPY copy_t FROM '/nonexistent/copy/file' (HEADER 'maybe');
COPY copy_t FROM '/nonexistent/copy/file' (FORMAT binary, DELIMITER ',');
COPY copy_t FROM '/nonexistent/copy/file' (ENCODING 'klingon');
COPY copy_csv FROM '/nonexistent/copy/file' (FORMAT csv, FORCE_NOT_NULL (zz));
COPY copy_csv (id) FROM '/nonexistent/copy/file' (FORMAT csv, FORCE_NULL (x));
COPY copy_t TO STDOUT (HEADER match);
COPY copy_t TO STDOUT (FORMAT csv, FORCE_NOT_NULL (a));
COPY (SELECT 1) TO STDOUT (FORMAT csv, FORCE_QUOTE (a));
COPY copy_t TO 'relative/path';
COPY copy_t FROM '/nonexistent/copy/file';
-- FREEZE needs a table created (or truncated) in the same transaction
COPY copy_t (a) FROM STDIN (FREEZE);
30
\.
BEGIN;
CREATE TABLE copy_frozen (a int);
COPY copy_frozen FROM STDIN (FREEZE true);
31
\.
COMMIT;
SELECT * FROM copy_frozen;
DROP TABLE copy_t, copy_csv, copy_frozen;
