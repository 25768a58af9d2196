-- Advisory locks: session and transaction level, exclusive and shared,
-- counted holds, the unlock WARNING, and how pg_locks shows them.
\set advisory 'SELECT locktype, classid, objid, objsubid, mode, granted, database = (SELECT oid FROM pg_database WHERE datname = current_database()) AS this_db FROM pg_locks WHERE locktype = ''advisory'' AND pid = pg_backend_pid() ORDER BY classid, objid, objsubid, mode'
\set advisory_count 'SELECT count(*) FROM pg_locks WHERE locktype = ''advisory'' AND pid = pg_backend_pid()'

-- Session level, bigint and two-integer forms.
SELECT pg_advisory_lock(1);
SELECT pg_advisory_lock(1);
SELECT pg_advisory_lock(0, 1);
SELECT pg_advisory_lock_shared(4294967298);
SELECT pg_advisory_lock(-1);
SELECT pg_advisory_lock(-5, 7);
:advisory;
-- Counted: two locks need two unlocks.
SELECT pg_advisory_unlock(1);
:advisory_count AND objid = 1 AND objsubid = 1;
SELECT pg_advisory_unlock(1);
:advisory_count AND objid = 1 AND objsubid = 1;
SELECT pg_advisory_unlock(1);
-- The wrong mode is not owned either.
SELECT pg_advisory_unlock(4294967298);
SELECT pg_advisory_unlock_shared(4294967298);
SELECT pg_advisory_unlock(0, 1);
SELECT pg_advisory_unlock_shared(0, 1);
-- Session locks survive transaction ends, committed or not.
BEGIN;
SELECT pg_advisory_lock(10);
ROLLBACK;
:advisory;
SELECT pg_advisory_unlock_all();
:advisory;

-- Try-locks on locks one already holds succeed (they are one's own).
SELECT pg_try_advisory_lock(20);
SELECT pg_try_advisory_lock(20);
SELECT pg_try_advisory_lock_shared(20);
SELECT pg_try_advisory_lock(3, 4);
:advisory;
SELECT pg_advisory_unlock_all();

-- Transaction level: released at COMMIT and at ROLLBACK, not unlockable.
BEGIN;
SELECT pg_advisory_xact_lock(30);
SELECT pg_advisory_xact_lock_shared(31);
SELECT pg_try_advisory_xact_lock(32);
SELECT pg_try_advisory_xact_lock_shared(5, 6);
SELECT pg_advisory_xact_lock(30);
:advisory;
SELECT pg_advisory_unlock(30);
SELECT pg_advisory_unlock_all();
:advisory_count;
COMMIT;
:advisory_count;
BEGIN;
SELECT pg_advisory_xact_lock(33);
ROLLBACK;
:advisory_count;

-- Session and transaction holds of one lock are separate.
BEGIN;
SELECT pg_advisory_lock(40);
SELECT pg_advisory_xact_lock(40);
COMMIT;
:advisory;
SELECT pg_advisory_unlock(40);
SELECT pg_advisory_unlock(40);

-- NULL keys give NULL (the functions are strict).
SELECT pg_advisory_lock(NULL::bigint) IS NULL AS is_null;
SELECT pg_try_advisory_lock(NULL, 1) IS NULL AS is_null;
:advisory_count;

-- A transaction-level lock taken inside a savepoint goes at ROLLBACK TO
-- (the subtransaction's resource owner gives it back); one taken before
-- the savepoint, or released into the parent, stays until the end.
BEGIN;
SELECT pg_advisory_xact_lock(50);
SAVEPOINT s;
SELECT pg_advisory_xact_lock(51);
SELECT pg_advisory_xact_lock_shared(52);
:advisory;
ROLLBACK TO s;
:advisory;
SAVEPOINT inner_s;
SELECT pg_advisory_xact_lock(53);
RELEASE inner_s;
:advisory;
ROLLBACK TO s;
:advisory;
COMMIT;
:advisory_count;
