-- EXPLAIN (COSTS OFF): plan shapes chosen by the cost model, as PostgreSQL 15
-- chooses them for the same data.
CREATE TABLE accounts (aid int PRIMARY KEY, bid int, abalance int, filler text);
INSERT INTO accounts SELECT i, i % 10, 0, 'x' FROM generate_series(1, 20000) i;
CREATE INDEX accounts_bid ON accounts (bid);
ANALYZE accounts;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT abalance FROM accounts WHERE aid = 42;
EXPLAIN (COSTS OFF) SELECT * FROM accounts WHERE aid < 10;
EXPLAIN (COSTS OFF) SELECT count(*) FROM accounts WHERE aid > 10;
EXPLAIN (COSTS OFF) SELECT * FROM accounts WHERE abalance = 1;
EXPLAIN (COSTS OFF) SELECT * FROM accounts WHERE aid >= 5 AND aid <= 7 AND abalance = 0;
EXPLAIN (COSTS OFF) SELECT sum(abalance) FROM accounts WHERE aid < 10;
EXPLAIN (COSTS OFF) SELECT aid FROM accounts WHERE filler = 'y' ORDER BY aid DESC LIMIT 3;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM accounts WHERE aid > 10;
RESET enable_seqscan;
EXPLAIN (COSTS OFF, NOSUCH) SELECT 1;
-- ORDER BY ... LIMIT read in index order, both directions
EXPLAIN (COSTS OFF) SELECT * FROM accounts ORDER BY aid LIMIT 5;
EXPLAIN (COSTS OFF) SELECT * FROM accounts ORDER BY aid DESC LIMIT 5;
EXPLAIN (COSTS OFF) SELECT * FROM accounts WHERE aid < 100 ORDER BY aid DESC LIMIT 5;
SELECT aid FROM accounts ORDER BY aid LIMIT 3;
SELECT aid FROM accounts ORDER BY aid DESC LIMIT 3;
SELECT aid FROM accounts WHERE aid < 100 ORDER BY aid DESC LIMIT 3;
SELECT aid FROM accounts WHERE aid > 19990 ORDER BY aid LIMIT 3;
-- NULLs come first in a backward scan (DESC NULLS FIRST), never with a bound
CREATE TABLE n (k int UNIQUE, v text);
INSERT INTO n VALUES (1, 'a'), (2, 'b'), (NULL, 'c'), (3, 'd');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM n ORDER BY k DESC LIMIT 2;
SELECT * FROM n ORDER BY k DESC LIMIT 2;
SELECT * FROM n ORDER BY k LIMIT 4;
SELECT * FROM n WHERE k < 3 ORDER BY k DESC LIMIT 2;
SELECT count(*) FROM n WHERE k IS NULL OR k > 0;
RESET enable_seqscan;
-- INSERT, UPDATE and DELETE show the table they change above their scan
EXPLAIN (COSTS OFF) UPDATE accounts SET abalance = abalance + 1 WHERE aid = 5;
EXPLAIN (COSTS OFF) UPDATE accounts SET abalance = 0 WHERE abalance > 10;
EXPLAIN (COSTS OFF) DELETE FROM accounts WHERE filler = 'z';
EXPLAIN (COSTS OFF) DELETE FROM n;
EXPLAIN (COSTS OFF) INSERT INTO n VALUES (7, 'g');
EXPLAIN (COSTS OFF) INSERT INTO n VALUES (8, 'h'), (9, 'i');
EXPLAIN (COSTS OFF) INSERT INTO n SELECT aid, filler FROM accounts WHERE aid < 3;
EXPLAIN (COSTS OFF) INSERT INTO n SELECT k + 10, v FROM n WHERE v = 'a';
EXPLAIN (COSTS OFF) VALUES (1, 2);
SELECT count(*) FROM n;
