-- pg15-settings: max_prepared_transactions=0
-- Two-phase commit as the regression server runs it: max_prepared_transactions
-- is 0 (PostgreSQL's default), so PREPARE TRANSACTION is refused; the other
-- two-phase errors; the diagnostic queries of seed 000.
SHOW max_prepared_transactions;
CREATE TABLE tp (id int);
BEGIN;
INSERT INTO tp VALUES (1);
PREPARE TRANSACTION 'tp1';
SELECT count(*) FROM tp;
SELECT count(*) FROM pg_prepared_xacts;
-- Without a transaction block there is nothing to prepare.
PREPARE TRANSACTION 'tp2';
-- A failed block is rolled back.
BEGIN;
SELECT 1 / 0;
PREPARE TRANSACTION 'tp3';
COMMIT PREPARED 'nosuch';
ROLLBACK PREPARED 'nosuch';
BEGIN;
COMMIT PREPARED 'nosuch';
ROLLBACK;
BEGIN;
ROLLBACK PREPARED 'nosuch';
ROLLBACK;
SET max_prepared_transactions = 5;
-- Seed 000's diagnostics: who holds the horizon back.
SELECT count(*) > 0 AS someone FROM pg_stat_activity WHERE pid = pg_backend_pid();
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM tp;
SELECT backend_xmin IS NOT NULL AS has_xmin, now() - xact_start >= interval '0' AS open_for
  FROM pg_stat_activity WHERE pid = pg_backend_pid();
COMMIT;
SELECT gid, owner, database FROM pg_prepared_xacts;
SELECT slot_name FROM pg_replication_slots;
DROP TABLE tp;
