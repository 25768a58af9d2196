//! What the lock table looks like from SQL: `pg_locks` and
//! `pg_blocking_pids` (PostgreSQL's `lockfuncs.c` over GetLockStatusData and
//! GetBlockerStatusData).
//!
//! Both read the table with every partition locked, so what they return is one
//! instant's truth: a lock is never shown granted to two conflicting owners,
//! and a waiter's blockers are those of the same instant.

use super::{LockManager, LockMode, LockOwner, LockTag};
use std::time::SystemTime;

/// One row of `pg_locks`: a mode an owner holds or awaits on a lock. The
/// tag's accessors give the object columns (`locktype`, `database`,
/// `relation`, `page`, `tuple`, `transactionid`, `classid`, `objid`,
/// `objsubid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockInfo {
    /// The locked object.
    pub tag: LockTag,
    /// Who holds or awaits it: `pg_locks.pid` is `owner.pid`; the proc slot is
    /// there for `virtualtransaction`.
    pub owner: LockOwner,
    /// `pg_locks.mode`.
    pub mode: LockMode,
    /// `pg_locks.granted`: held (true) or awaited (false).
    pub granted: bool,
    /// `pg_locks.fastpath`: sluice has no fast-path locks, so always false.
    pub fastpath: bool,
    /// `pg_locks.waitstart`: when an awaited lock's wait began.
    pub waitstart: Option<SystemTime>,
}

impl LockManager {
    /// locks -- every held and awaited lock mode, one row each (pg_locks), in
    /// no particular order.
    pub fn locks(&self) -> Vec<LockInfo> {
        let partitions = self.lock_all();
        let mut rows = Vec::new();
        for (&tag, lock) in partitions.iter().flat_map(|p| p.iter()) {
            for holder in &lock.holders {
                rows.extend(holder.modes.modes().map(|mode| LockInfo {
                    tag,
                    owner: holder.owner,
                    mode,
                    granted: true,
                    fastpath: false,
                    waitstart: None,
                }));
            }
            rows.extend(lock.waiters.iter().map(|w| LockInfo {
                tag,
                owner: w.owner,
                mode: w.mode,
                granted: false,
                fastpath: false,
                waitstart: Some(w.since),
            }));
        }
        rows
    }

    /// blocking_pids -- the processes that keep process `pid` waiting for a
    /// lock (pg_blocking_pids): holders of modes that conflict with its request
    /// and earlier waiters asking for conflicting modes, or the backend whose
    /// transaction it watches (see [`LockManager::watch_backend`]). Empty if
    /// it does not wait.
    pub fn blocking_pids(&self, pid: u32) -> Vec<u32> {
        let in_queue = {
            let partitions = self.lock_all();
            partitions.iter().flat_map(|p| p.values()).find_map(|lock| {
                let position = lock.waiters.iter().position(|w| w.owner.pid == pid)?;
                Some(lock.blockers(position).into_iter().map(|b| b.pid).collect())
            })
        };
        in_queue.or_else(|| self.watched_by(pid).map(|p| vec![p])).unwrap_or_default()
    }
}
