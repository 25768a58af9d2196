//! What every session is doing, for `pg_stat_activity` (PostgreSQL's
//! `pgstat_activity` / backend status array).
//!
//! Each session publishes its state when a statement starts and ends; readers
//! copy the whole table. One mutex guards it: updates are two per statement and
//! take microseconds, far from the statement costs around them.

use parking_lot::Mutex;
use std::collections::BTreeMap;

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
}

/// Every session's activity, by pid.
#[derive(Default)]
pub struct ActivityTable {
    sessions: Mutex<BTreeMap<u32, Activity>>,
}

impl ActivityTable {
    /// Publishes (or replaces) a session's activity.
    pub fn publish(&self, activity: Activity) {
        self.sessions.lock().insert(activity.pid, activity);
    }

    /// Changes a published session's activity in place.
    pub fn update(&self, pid: u32, change: impl FnOnce(&mut Activity)) {
        if let Some(a) = self.sessions.lock().get_mut(&pid) {
            change(a);
        }
    }

    /// Removes a session (it disconnected).
    pub fn remove(&self, pid: u32) {
        self.sessions.lock().remove(&pid);
    }

    /// A copy of every session's activity, by pid.
    pub fn snapshot(&self) -> Vec<Activity> {
        self.sessions.lock().values().cloned().collect()
    }
}
