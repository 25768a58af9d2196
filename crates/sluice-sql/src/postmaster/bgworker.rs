//! Background workers: backends with no client (PostgreSQL's
//! `postmaster/bgworker.c`).
//!
//! A worker is a thread with its own proc-array slot and its own
//! `pg_stat_activity` row (`backend_type` names its kind), running one
//! body — the function it was started with — against a database. It is a
//! [`BackendContext`] like a client session, so it runs utility commands
//! (VACUUM, ANALYZE, ...) and statements exactly as a session does, and
//! like PostgreSQL's `vacuum()` each command ends and starts transactions
//! through [`BackendContext::restart_transaction`]. There is no
//! transaction block: the worker starts a transaction when its body asks
//! for one and ends it when the body returns (commit) or fails (rollback).
//!
//! # Signals
//!
//! [`WorkerHandle::cancel`] and [`WorkerHandle::terminate`] set flags the
//! worker's interrupt check reads, so a worker is interrupted wherever a
//! session would be (scans, lock and row waits, `pg_sleep`), and
//! `pg_cancel_backend` / `pg_terminate_backend` reach it through its
//! activity entry the same way. [`WorkerHandle::join`] waits for the body to
//! end (the postmaster waits for its workers at shutdown).

use crate::activity::{Activity, BackendSignal, InterruptCheck};
use crate::error::{Result, SqlError};
use crate::executor::context::{BackendContext, BackendState, ExecParts, Instance};
use crate::expr::now_timestamptz;
use crate::xact::TransactionState;
use sluice_txn::IsolationLevel;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// One background worker's backend (see the module doc).
pub struct BackgroundWorker {
    core: BackendState,
    /// The running transaction, between [`BackgroundWorker::begin`] and its end.
    xact: Option<TransactionState>,
    /// Isolation level for the next transaction (SET TRANSACTION).
    next_isolation: Option<IsolationLevel>,
}

/// The cancel and terminate flags a worker's interrupt check reads.
#[derive(Default)]
struct Flags {
    cancel: AtomicBool,
    terminate: AtomicBool,
}

impl BackendSignal for Flags {
    fn cancel(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }

    fn terminate(&self) {
        self.terminate.store(true, Ordering::SeqCst);
    }
}

impl Flags {
    /// The interrupt check: a cancel fails the running command once, a
    /// terminate every one from then on.
    fn check(self: &Arc<Flags>) -> InterruptCheck {
        let flags = self.clone();
        Arc::new(move || {
            if flags.terminate.load(Ordering::SeqCst) {
                return Err(SqlError::new(
                    "57P01",
                    "terminating background worker due to administrator command",
                ));
            }
            if flags.cancel.swap(false, Ordering::SeqCst) {
                return Err(SqlError::new("57014", "canceling statement due to user request"));
            }
            Ok(())
        })
    }
}

/// A started worker: how to signal it and wait for it.
pub struct WorkerHandle {
    pid: u32,
    flags: Arc<Flags>,
    thread: JoinHandle<Result<()>>,
}

impl WorkerHandle {
    /// The worker's process id (as `pg_stat_activity.pid` shows it).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// cancel -- the worker's running command fails with 57014.
    pub fn cancel(&self) {
        self.flags.cancel();
    }

    /// terminate -- the worker stops at its next interrupt check.
    pub fn terminate(&self) {
        self.flags.terminate();
    }

    /// join -- waits for the worker's body to end; its result.
    pub fn join(self) -> Result<()> {
        self.thread.join().unwrap_or_else(|_| Err(SqlError::internal("background worker panicked")))
    }
}

/// start -- starts a worker of kind `backend_type` (PostgreSQL's names:
/// "background worker", "autovacuum worker", ...) as backend `pid` on
/// database `database`, running `body`; returns once it is registered, with
/// its handle. A body that fails has its transaction rolled back.
pub fn start(
    instance: Arc<Instance>,
    database: &str,
    backend_type: &'static str,
    pid: u32,
    body: impl FnOnce(&mut BackgroundWorker) -> Result<()> + Send + 'static,
) -> Result<WorkerHandle> {
    let flags = Arc::new(Flags::default());
    let mut worker = BackgroundWorker::connect(instance, database, pid, &flags)?;
    worker.publish(backend_type, flags.clone());
    let thread = std::thread::Builder::new()
        .name(format!("{backend_type} {pid}"))
        .spawn(move || {
            let result = body(&mut worker);
            worker.end_transaction(result.is_ok())?;
            result
        })
        .map_err(|e| SqlError::internal(format!("could not start background worker: {e}")))?;
    Ok(WorkerHandle { pid, flags, thread })
}

impl BackgroundWorker {
    fn connect(
        instance: Arc<Instance>,
        database: &str,
        pid: u32,
        flags: &Arc<Flags>,
    ) -> Result<BackgroundWorker> {
        // Background workers run as the bootstrap superuser.
        let core = BackendState::new(instance, database, "postgres", pid, flags.check())?;
        Ok(BackgroundWorker { core, xact: None, next_isolation: None })
    }

    /// Publishes the worker in `pg_stat_activity`.
    fn publish(&self, backend_type: &'static str, signal: Arc<Flags>) {
        let now = now_timestamptz();
        let core = &self.core;
        let activity = Activity {
            pid: core.pid,
            proc: core.backend.proc(),
            database: (core.database, core.database_name.clone()),
            user: core.user.clone(),
            application_name: String::new(),
            state: "active",
            backend_start: now,
            xact_start: None,
            query_start: Some(now),
            state_change: now,
            query: String::new(),
            backend_type,
        };
        core.instance.activity.publish(activity, signal);
    }

    /// begin -- starts a transaction (StartTransactionCommand) unless one runs.
    pub fn begin(&mut self) {
        if self.xact.is_none() {
            let isolation = self.next_isolation.take().unwrap_or(IsolationLevel::ReadCommitted);
            self.xact = Some(self.core.begin(isolation));
        }
    }

    /// end_transaction -- commits (`commit`) or rolls back the running
    /// transaction, if any (CommitTransactionCommand / AbortCurrentTransaction).
    pub fn end_transaction(&mut self, commit: bool) -> Result<()> {
        let Some(xact) = self.xact.take() else { return Ok(()) };
        if commit {
            xact.commit(&mut self.core.xact_env())
        } else {
            xact.rollback(&mut self.core.xact_env());
            Ok(())
        }
    }

    /// Shows `query` as what the worker runs (`pg_stat_activity.query`).
    pub fn report_activity(&self, query: &str) {
        let now = now_timestamptz();
        self.core.instance.activity.update(self.core.pid, |a| {
            a.query = query.to_string();
            a.query_start = Some(now);
        });
    }
}

impl BackendContext for BackgroundWorker {
    fn state(&self) -> &BackendState {
        &self.core
    }

    fn state_mut(&mut self) -> &mut BackendState {
        &mut self.core
    }

    fn xact(&mut self) -> Result<&mut TransactionState> {
        self.begin();
        Ok(self.xact.as_mut().expect("begun above"))
    }

    fn parts(&mut self) -> Result<ExecParts<'_>> {
        self.begin();
        let xact = self.xact.as_mut().expect("begun above");
        Ok(self.core.parts(xact))
    }

    fn restart_transaction(&mut self) -> Result<()> {
        self.end_transaction(true)?;
        self.begin();
        Ok(())
    }

    fn in_transaction_block(&self) -> bool {
        false
    }

    fn prevent_transaction_block(&self, _what: &str) -> Result<()> {
        // A worker has no transaction block: every command may end and
        // start transactions.
        Ok(())
    }

    fn set_next_isolation(&mut self, level: IsolationLevel) {
        self.next_isolation = Some(level);
    }
}

impl Drop for BackgroundWorker {
    fn drop(&mut self) {
        let _ = self.end_transaction(false);
        self.core.instance.activity.remove(self.core.pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse;
    use crate::testing::{instance, run, session, Rows};
    use pg_query::NodeEnum;

    /// run_sql -- runs one statement in the worker, as a session would.
    fn run_sql(worker: &mut BackgroundWorker, sql: &str) -> Result<Vec<Vec<String>>> {
        let statement = parse(sql)?.remove(0);
        let mut rows = Rows::default();
        worker.report_activity(sql);
        match &statement.node {
            NodeEnum::VacuumStmt(stmt) => crate::commands::vacuum::vacuum(worker, stmt, &mut rows)?,
            _ => crate::executor::run(worker, &statement, &[], &mut rows)?,
        }
        Ok(rows.0)
    }

    #[test]
    fn vacuum_runs_in_a_background_worker_without_a_client() {
        let dir = tempfile::tempdir().unwrap();
        let instance = instance(dir.path());
        let mut s = session(&instance, 100);
        run(&mut s, "CREATE TABLE t (a int); INSERT INTO t SELECT * FROM generate_series(1, 100)");
        run(&mut s, "DELETE FROM t WHERE a <= 60");
        let handle = start(instance.clone(), "postgres", "background worker", 101, |w| {
            let me =
                run_sql(w, "SELECT backend_type, query FROM pg_stat_activity WHERE pid = 101")?;
            assert_eq!(me.len(), 1);
            assert!(me[0][0].contains("background worker"), "{me:?}");
            run_sql(w, "VACUUM t").map(|_| ())
        })
        .unwrap();
        handle.join().unwrap();
        let stats = run(
            &mut s,
            "SELECT n_dead_tup, vacuum_count, n_live_tup FROM pg_stat_user_tables WHERE relname = 't'",
        );
        assert_eq!(
            stats,
            vec![vec!["Int8(0)", "Int8(1)", "Int8(40)"]],
            "the worker's VACUUM counted"
        );
        let rows = run(&mut s, "SELECT count(*) FROM pg_stat_activity WHERE pid = 101");
        assert_eq!(rows, vec![vec!["Int8(0)"]], "a finished worker leaves pg_stat_activity");
    }

    #[test]
    fn a_worker_is_cancelled_and_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let instance = instance(dir.path());
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let handle = start(instance.clone(), "postgres", "background worker", 102, move |w| {
            started_tx.send(()).unwrap();
            run_sql(w, "SELECT pg_sleep(60)").map(|_| ())
        })
        .unwrap();
        started_rx.recv().unwrap();
        handle.cancel();
        let error = handle.join().unwrap_err();
        assert_eq!(error.code, "57014", "{error:?}");
    }
}
