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
