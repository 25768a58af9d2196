//! Waiting for a transaction to end (PostgreSQL's XactLockTableWait).
//!
//! A writer that finds a row locked or updated by a transaction still in progress
//! sleeps until that transaction commits or aborts, then looks again. Every
//! transaction with an xid has an entry here from assignment to end; waiters sleep
//! on its condition variable. (PostgreSQL takes a heavyweight lock on the xid for
//! the same purpose; the lock manager will subsume this when it exists, so that
//! deadlock detection sees xid waits too.)
//!
//! Locking: one mutex around the map, held only to find or remove an entry; the
//! sleep happens on the entry's own mutex and condition variable.

use parking_lot::{Condvar, Mutex};
use sluice_common::Xid;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// One running transaction's "ended" flag.
#[derive(Default)]
struct XidEntry {
    ended: Mutex<bool>,
    cond: Condvar,
}

/// Every running transaction's entry, by xid.
#[derive(Default)]
pub struct XidWaits {
    entries: Mutex<HashMap<Xid, Arc<XidEntry>>>,
}

impl XidWaits {
    /// Creates the entry for a newly assigned `xid`.
    pub fn register(&self, xid: Xid) {
        self.entries.lock().insert(xid, Arc::default());
    }

    /// Marks `xid` ended and wakes its waiters.
    pub fn release(&self, xid: Xid) {
        if let Some(entry) = self.entries.lock().remove(&xid) {
            *entry.ended.lock() = true;
            entry.cond.notify_all();
        }
    }

    /// wait -- sleeps until `xid` ends (returns at once if it has). `interrupted`
    /// is polled every 50 ms; when it returns true the wait is abandoned and
    /// `false` returned, so a cancel or timeout can end a wait.
    pub fn wait(&self, xid: Xid, interrupted: &dyn Fn() -> bool) -> bool {
        let Some(entry) = self.entries.lock().get(&xid).cloned() else {
            return true;
        };
        let mut ended = entry.ended.lock();
        while !*ended {
            if interrupted() {
                return false;
            }
            entry.cond.wait_for(&mut ended, Duration::from_millis(50));
        }
        true
    }

    /// Whether anyone could wait for `xid` (it is registered and not ended).
    pub fn is_registered(&self, xid: Xid) -> bool {
        self.entries.lock().contains_key(&xid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn waiters_wake_when_the_transaction_ends() {
        let waits = Arc::new(XidWaits::default());
        waits.register(Xid(10));
        let w = waits.clone();
        let start = Instant::now();
        let t = std::thread::spawn(move || w.wait(Xid(10), &|| false));
        std::thread::sleep(Duration::from_millis(30));
        waits.release(Xid(10));
        assert!(t.join().unwrap());
        assert!(start.elapsed() >= Duration::from_millis(30));
        assert!(waits.wait(Xid(10), &|| false), "ended: no wait");
    }

    #[test]
    fn interrupts_end_a_wait() {
        let waits = XidWaits::default();
        waits.register(Xid(11));
        assert!(!waits.wait(Xid(11), &|| true));
    }
}
