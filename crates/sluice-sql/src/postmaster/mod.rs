//! Backends without a client (PostgreSQL's `postmaster/`).
//!
//! [`Postmaster`] is what the server keeps of them, beside the client
//! sessions the protocol layer tracks:
//!
//! * the auxiliary processes the storage engine runs — its checkpointer and
//!   WAL writer threads (`sluice-access`'s `engine.rs`, `sluice-wal`'s
//!   `xlog.rs`) — published in `pg_stat_activity` with PostgreSQL's
//!   `backend_type` and `wait_event` while they run;
//! * background workers (`bgworker.rs`), started through it and remembered,
//!   finished ones reaped (a failure logged) whenever another starts.
//!
//! At shutdown, before the engine's shutdown checkpoint, every worker still
//! running is sent terminate and waited for, as PostgreSQL's postmaster
//! signals its children and waits for them to exit: no worker may write
//! after the checkpoint that says the cluster was shut down cleanly.

pub mod bgworker;

use crate::activity::AuxiliaryProcess;
use crate::error::Result;
use crate::executor::context::Instance;
use crate::expr::now_timestamptz;
use bgworker::{BackgroundWorker, WorkerHandle};
use parking_lot::Mutex;
use std::sync::Arc;

/// The engine's auxiliary processes: `backend_type` and the `wait_event`
/// each shows between rounds (PostgreSQL's names).
const AUXILIARY_PROCESSES: [(&str, &str); 2] =
    [("checkpointer", "CheckpointerMain"), ("walwriter", "WalWriterMain")];

/// The server's non-client backends (see the module doc).
pub struct Postmaster {
    instance: Arc<Instance>,
    /// Workers started and not yet reaped.
    workers: Mutex<Vec<WorkerHandle>>,
    /// Pids of the published auxiliary processes.
    auxiliary: Vec<u32>,
}

impl Postmaster {
    /// new -- takes charge of `instance`'s non-client backends, publishing
    /// the engine's auxiliary processes if they run.
    pub fn new(instance: Arc<Instance>) -> Postmaster {
        let mut auxiliary = Vec::new();
        if instance.engine.runs_background_processes() {
            let started = now_timestamptz();
            for (backend_type, wait_event) in AUXILIARY_PROCESSES {
                let pid = instance.activity.allocate_pid();
                let process =
                    AuxiliaryProcess { pid, backend_type, wait_event, backend_start: started };
                instance.activity.publish_auxiliary(process);
                auxiliary.push(pid);
            }
        }
        Postmaster { instance, workers: Mutex::new(Vec::new()), auxiliary }
    }

    /// start_worker -- starts a background worker of kind `backend_type` on
    /// `database` running `body` (see [`bgworker::start`]); its pid.
    pub fn start_worker(
        &self,
        database: &str,
        backend_type: &'static str,
        body: impl FnOnce(&mut BackgroundWorker) -> Result<()> + Send + 'static,
    ) -> Result<u32> {
        let handle = bgworker::start(self.instance.clone(), database, backend_type, body)?;
        let pid = handle.pid();
        let mut workers = self.workers.lock();
        let (finished, running): (Vec<_>, Vec<_>) =
            std::mem::take(&mut *workers).into_iter().partition(WorkerHandle::is_finished);
        *workers = running;
        workers.push(handle);
        drop(workers);
        finished.into_iter().for_each(reap);
        Ok(pid)
    }

    /// Pids of the workers started and not yet reaped.
    pub fn workers(&self) -> Vec<u32> {
        self.workers.lock().iter().map(WorkerHandle::pid).collect()
    }

    /// shutdown -- terminates every running worker and waits for each, then
    /// withdraws the auxiliary processes' rows (the engine stops them next).
    pub fn shutdown(&self) {
        let workers = std::mem::take(&mut *self.workers.lock());
        workers.iter().for_each(WorkerHandle::terminate);
        workers.into_iter().for_each(reap);
        for pid in &self.auxiliary {
            self.instance.activity.remove(*pid);
        }
    }
}

/// reap -- waits for a worker that ended or was told to, logging a failure
/// other than the termination itself (PostgreSQL's "background worker ...
/// exited with exit code 1").
fn reap(worker: WorkerHandle) {
    let (pid, backend_type) = (worker.pid(), worker.backend_type());
    match worker.join() {
        Err(e) if e.code != "57P01" => {
            eprintln!("LOG:  {backend_type} (PID {pid}) exited with an error: {}", e.message)
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{instance, run, session, Rows};
    use std::time::{Duration, Instant};

    #[test]
    fn the_engine_s_processes_show_in_pg_stat_activity() {
        let dir = tempfile::tempdir().unwrap();
        let instance = instance(dir.path());
        let postmaster = Postmaster::new(instance.clone());
        let mut s = session(&instance, 20_000);
        let sql = "SELECT backend_type, wait_event_type, wait_event, datname, state \
                   FROM pg_stat_activity WHERE backend_type <> 'client backend' ORDER BY 1";
        let rows = run(&mut s, sql);
        let expected = [
            ["Text(\"checkpointer\")", "Text(\"Activity\")", "Text(\"CheckpointerMain\")"],
            ["Text(\"walwriter\")", "Text(\"Activity\")", "Text(\"WalWriterMain\")"],
        ];
        assert_eq!(rows.len(), 2, "{rows:?}");
        for (row, want) in rows.iter().zip(expected) {
            assert_eq!(row[..3], want, "{rows:?}");
            assert_eq!(row[3..], ["Null", "Null"], "no database, no state: {rows:?}");
        }
        postmaster.shutdown();
        assert!(run(&mut s, sql).is_empty(), "withdrawn at shutdown");
    }

    #[test]
    fn shutdown_terminates_running_workers_and_waits_for_them() {
        let dir = tempfile::tempdir().unwrap();
        let instance = instance(dir.path());
        let postmaster = Postmaster::new(instance.clone());
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let pid = postmaster
            .start_worker("postgres", "background worker", move |w| {
                started_tx.send(()).unwrap();
                w.execute("SELECT pg_sleep(60)", &mut Rows::default())
            })
            .unwrap();
        started_rx.recv().unwrap();
        assert_eq!(postmaster.workers(), vec![pid]);
        assert!(pid < sluice_common::FIRST_CLIENT_PID as u32, "a worker's pid: {pid}");
        let began = Instant::now();
        postmaster.shutdown();
        assert!(began.elapsed() < Duration::from_secs(10), "pg_sleep was interrupted");
        assert!(postmaster.workers().is_empty());
        let mut s = session(&instance, 20_000);
        let rows = run(&mut s, &format!("SELECT count(*) FROM pg_stat_activity WHERE pid = {pid}"));
        assert_eq!(rows, vec![vec!["Int8(0)"]], "the worker's row is gone");
    }
}
