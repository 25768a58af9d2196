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
use crate::executor;
use crate::executor::context::{BackendContext, BackendState, ExecParts, Instance};
use crate::expr::now_timestamptz;
use crate::parser::parse;
use crate::sink::QuerySink;
use crate::xact::TransactionState;
use pg_query::NodeEnum;
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
    backend_type: &'static str,
    flags: Arc<Flags>,
    thread: JoinHandle<Result<()>>,
}

impl WorkerHandle {
    /// The worker's process id (as `pg_stat_activity.pid` shows it).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The worker's kind (`pg_stat_activity.backend_type`).
    pub fn backend_type(&self) -> &'static str {
        self.backend_type
    }

    /// Whether the worker's body has ended.
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
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
/// "background worker", "autovacuum worker", ...) on database `database`,
/// running `body`, with a pid of its own (`ActivityTable::allocate_pid`);
/// returns once it is registered, with its handle. A body that fails has
/// its transaction rolled back. The server starts workers through
/// `Postmaster::start_worker`, which waits for them at shutdown.
pub fn start(
    instance: Arc<Instance>,
    database: &str,
    backend_type: &'static str,
    body: impl FnOnce(&mut BackgroundWorker) -> Result<()> + Send + 'static,
) -> Result<WorkerHandle> {
    let flags = Arc::new(Flags::default());
    let pid = instance.activity.allocate_pid();
    let worker = BackgroundWorker::connect(instance.clone(), database, pid, &flags);
    let mut worker = worker.inspect_err(|_| instance.activity.remove(pid))?;
    worker.publish(backend_type, flags.clone());
    let thread = std::thread::Builder::new()
        .name(format!("{backend_type} {pid}"))
        .spawn(move || {
            let result = body(&mut worker);
            worker.end_transaction(result.is_ok())?;
            result
        })
        .map_err(|e| SqlError::internal(format!("could not start background worker: {e}")))?;
    Ok(WorkerHandle { pid, backend_type, flags, thread })
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

    /// execute -- runs the statements of `sql` in the worker's transaction
    /// (started if none runs), as a session's simple query does: queries and
    /// data changes through the executor, VACUUM, ANALYZE, CLUSTER and
    /// REINDEX through the maintenance commands. Each statement sees the
    /// ones before it (a new command id) and shows in `pg_stat_activity`.
    /// Other utility statements need a client session and are refused.
    pub fn execute(&mut self, sql: &str, sink: &mut dyn QuerySink) -> Result<()> {
        for statement in parse(sql)? {
            self.report_activity(&statement.text);
            let maintenance = self.maintenance();
            match &statement.node {
                NodeEnum::VacuumStmt(stmt) => maintenance.vacuum(self, stmt, sink)?,
                NodeEnum::ClusterStmt(stmt) => maintenance.cluster(self, stmt, sink)?,
                NodeEnum::ReindexStmt(stmt) => maintenance.reindex(self, stmt, sink)?,
                NodeEnum::SelectStmt(_)
                | NodeEnum::InsertStmt(_)
                | NodeEnum::UpdateStmt(_)
                | NodeEnum::DeleteStmt(_) => executor::run(self, &statement, &[], sink)?,
                _ => {
                    let verb = statement.text.split_whitespace().next().unwrap_or_default();
                    return Err(SqlError::unsupported(format!(
                        "{} cannot run in a background worker",
                        verb.to_uppercase()
                    )));
                }
            }
            if let Some(xact) = self.xact.as_mut() {
                xact.end_statement();
                xact.increment_command();
            }
        }
        Ok(())
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

    fn is_in_transaction_block(&self) -> bool {
        // A worker has no transaction block: every command may end and
        // start transactions.
        false
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
    use crate::testing::{instance, Rows};

    #[test]
    fn a_worker_is_cancelled_and_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let instance = instance(dir.path());
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let handle = start(instance.clone(), "postgres", "background worker", move |w| {
            started_tx.send(()).unwrap();
            w.execute("SELECT pg_sleep(60)", &mut Rows::default())
        })
        .unwrap();
        started_rx.recv().unwrap();
        handle.cancel();
        let error = handle.join().unwrap_err();
        assert_eq!(error.code, "57014", "{error:?}");
    }
}
