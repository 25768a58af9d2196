//! What every session is doing, for `pg_stat_activity` (PostgreSQL's
//! `pgstat_activity` / backend status array).
//!
//! Each session publishes its state when a statement starts and ends; readers
//! copy the whole table. One mutex guards it: updates are two per statement and
//! take microseconds, far from the statement costs around them.
//!
//! Beside it sits each session's progress in a maintenance command
//! (`pg_stat_progress_vacuum`, `pg_stat_progress_cluster`), published as the command goes and removed
//! when it ends.
//!
//! Auxiliary processes (the checkpointer, the WAL writer) have rows too,
//! kept apart: they have no database, no transaction and no signal a
//! session can send, so `pg_cancel_backend` does not find them, as in
//! PostgreSQL. Backends with no client take their pids from
//! [`ActivityTable::allocate_pid`], below the client sessions' range.
//!
//! The table is also how one session interrupts another by pid
//! (`pg_cancel_backend`, `pg_terminate_backend`): PostgreSQL signals the backend
//! process; sluice's sessions are threads, so each registers a [`BackendSignal`]
//! with its entry and the table delivers requests through it.

use crate::error::Result;
use parking_lot::Mutex;
use sluice_access::heap::vacuumlazy::VacuumProgress;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How another session interrupts this one: PostgreSQL's SIGINT and SIGTERM.
/// Checks for cancel, terminate and timeouts (PostgreSQL's CHECK_FOR_INTERRUPTS).
pub type InterruptCheck = Arc<dyn Fn() -> Result<()> + Send + Sync>;

pub trait BackendSignal: Send + Sync {
    /// Cancel the running statement (57014), if any.
    fn cancel(&self);
    /// End the session (FATAL 57P01), even if it is idle.
    fn terminate(&self);
}

/// Which interrupt to deliver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// `pg_cancel_backend`.
    Cancel,
    /// `pg_terminate_backend`.
    Terminate,
}

/// One session's published activity.
#[derive(Clone, Debug, PartialEq)]
pub struct Activity {
    /// Backend process id.
    pub pid: u32,
    /// Proc array slot (for backend_xid / backend_xmin).
    pub proc: usize,
    /// Database OID and name.
    pub database: (u32, String),
    /// Session user.
    pub user: String,
    /// `application_name`.
    pub application_name: String,
    /// `state`: active, idle, idle in transaction, idle in transaction (aborted).
    pub state: &'static str,
    /// When the session started (timestamptz).
    pub backend_start: i64,
    /// When the current transaction started, if one is open.
    pub xact_start: Option<i64>,
    /// When the current or last statement started.
    pub query_start: Option<i64>,
    /// When `state` last changed.
    pub state_change: i64,
    /// The current or last statement's text.
    pub query: String,
    /// `backend_type`: "client backend", "background worker", ...
    pub backend_type: &'static str,
}

/// One session's entry: what it does and how to interrupt it.
struct Entry {
    /// The published activity.
    activity: Activity,
    /// Delivers cancel and terminate requests to the session.
    signal: Arc<dyn BackendSignal>,
}

/// A VACUUM in progress: the table and how far it has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VacuumActivity {
    /// The table's OID.
    pub relid: u32,
    /// Phase and counters.
    pub progress: VacuumProgress,
}

/// A VACUUM FULL or CLUSTER in progress (a row of
/// `pg_stat_progress_cluster`, PostgreSQL 15's columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterActivity {
    /// The table's OID.
    pub relid: u32,
    /// `CLUSTER` or `VACUUM FULL`.
    pub command: &'static str,
    /// PostgreSQL's phase name ("seq scanning heap", "rebuilding index", ...).
    pub phase: &'static str,
    /// The index CLUSTER orders by (0 for VACUUM FULL).
    pub cluster_index_relid: u32,
    /// Versions read from the old file.
    pub heap_tuples_scanned: u64,
    /// Versions written to the new file.
    pub heap_tuples_written: u64,
    /// Pages of the old file.
    pub heap_blks_total: u64,
    /// Pages of the old file read so far.
    pub heap_blks_scanned: u64,
    /// Indexes rebuilt so far.
    pub index_rebuild_count: u64,
}

/// An auxiliary process's row in `pg_stat_activity`.
#[derive(Clone, Debug, PartialEq)]
pub struct AuxiliaryProcess {
    /// Its pid.
    pub pid: u32,
    /// `backend_type`: "checkpointer", "walwriter".
    pub backend_type: &'static str,
    /// `wait_event` while it sleeps between rounds ("CheckpointerMain").
    pub wait_event: &'static str,
    /// When it started (timestamptz).
    pub backend_start: i64,
}

/// Every session's activity, by pid.
#[derive(Default)]
pub struct ActivityTable {
    sessions: Mutex<BTreeMap<u32, Entry>>,
    /// Auxiliary processes, by pid.
    auxiliary: Mutex<BTreeMap<u32, AuxiliaryProcess>>,
    /// Pids handed out to backends with no client and not yet given back.
    worker_pids: Mutex<std::collections::BTreeSet<u32>>,
    /// VACUUMs running, by pid.
    vacuums: Mutex<BTreeMap<u32, VacuumActivity>>,
    /// VACUUM FULLs and CLUSTERs running, by pid.
    clusters: Mutex<BTreeMap<u32, ClusterActivity>>,
}

impl ActivityTable {
    /// Publishes (or replaces) a session's activity and its signal handle.
    pub fn publish(&self, activity: Activity, signal: Arc<dyn BackendSignal>) {
        self.sessions.lock().insert(activity.pid, Entry { activity, signal });
    }

    /// Changes a published session's activity in place.
    pub fn update(&self, pid: u32, change: impl FnOnce(&mut Activity)) {
        if let Some(e) = self.sessions.lock().get_mut(&pid) {
            change(&mut e.activity);
        }
    }

    /// signal -- delivers `signal` to session `pid`; false if there is none.
    pub fn signal(&self, pid: u32, signal: Signal) -> bool {
        // Deliver outside the table's lock: delivery may take the target's latch.
        let Some(target) = self.sessions.lock().get(&pid).map(|e| Arc::clone(&e.signal)) else {
            return false;
        };
        match signal {
            Signal::Cancel => target.cancel(),
            Signal::Terminate => target.terminate(),
        }
        true
    }

    /// allocate_pid -- a pid for a backend with no client (a background
    /// worker, an auxiliary process): the lowest free one from
    /// `FIRST_WORKER_PID`, below every client session's. It is given back
    /// by [`ActivityTable::remove`].
    pub fn allocate_pid(&self) -> u32 {
        let mut taken = self.worker_pids.lock();
        let first = sluice_common::FIRST_WORKER_PID as u32;
        let pid = (first..).find(|p| !taken.contains(p)).expect("a free pid");
        taken.insert(pid);
        pid
    }

    /// Publishes an auxiliary process's row.
    pub fn publish_auxiliary(&self, process: AuxiliaryProcess) {
        self.auxiliary.lock().insert(process.pid, process);
    }

    /// A copy of every auxiliary process's row, by pid.
    pub fn auxiliary(&self) -> Vec<AuxiliaryProcess> {
        self.auxiliary.lock().values().cloned().collect()
    }

    /// Removes a backend (it disconnected or ended) and gives its pid back.
    pub fn remove(&self, pid: u32) {
        self.worker_pids.lock().remove(&pid);
        self.auxiliary.lock().remove(&pid);
        self.sessions.lock().remove(&pid);
        self.vacuums.lock().remove(&pid);
        self.clusters.lock().remove(&pid);
    }

    /// Publishes (or, with `None`, withdraws) session `pid`'s VACUUM FULL
    /// or CLUSTER progress.
    pub fn set_cluster_progress(&self, pid: u32, cluster: Option<ClusterActivity>) {
        let mut clusters = self.clusters.lock();
        match cluster {
            Some(c) => clusters.insert(pid, c),
            None => clusters.remove(&pid),
        };
    }

    /// A copy of every running VACUUM FULL's and CLUSTER's progress, by pid.
    pub fn clusters(&self) -> Vec<(u32, ClusterActivity)> {
        self.clusters.lock().iter().map(|(pid, c)| (*pid, *c)).collect()
    }

    /// Publishes (or, with `None`, withdraws) session `pid`'s VACUUM progress.
    pub fn set_vacuum_progress(&self, pid: u32, vacuum: Option<VacuumActivity>) {
        let mut vacuums = self.vacuums.lock();
        match vacuum {
            Some(v) => vacuums.insert(pid, v),
            None => vacuums.remove(&pid),
        };
    }

    /// A copy of every running VACUUM's progress, by pid.
    pub fn vacuums(&self) -> Vec<(u32, VacuumActivity)> {
        self.vacuums.lock().iter().map(|(pid, v)| (*pid, *v)).collect()
    }

    /// A copy of every session's activity, by pid.
    pub fn snapshot(&self) -> Vec<Activity> {
        self.sessions.lock().values().map(|e| e.activity.clone()).collect()
    }
}
