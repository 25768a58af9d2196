//! Subtransactions: savepoints inside a transaction (PostgreSQL's
//! subtransaction half of `xact.c` plus `subtrans.c`, without its limits).
//!
//! # Levels
//!
//! A transaction keeps a stack of savepoint levels above its top level.
//! `SAVEPOINT` pushes one; `RELEASE` pops it (and everything above it) into its
//! parent; `ROLLBACK TO` aborts everything done since the savepoint and starts
//! the level afresh. A level gets an xid only when it first writes, and its
//! parents get theirs first, so a child's xid is always above its parent's —
//! which keeps the proc array's top-level xid a valid xmin bound for all of them.
//!
//! # Resolving a subtransaction id
//!
//! PostgreSQL keeps up to 64 subxids per backend in shared memory; past that a
//! snapshot is "overflowed" and every visibility check of an in-progress xid
//! goes through `pg_subtrans` (the subtransaction cliff). sluice keeps no such
//! array. Other sessions resolve any xid — top-level or sub — with one CSN log
//! lookup: a subxid reads "in progress" until its top-level transaction ends,
//! then "aborted" if it (or the level it was released into) was rolled back,
//! else the top-level transaction's commit CSN. The commit stores COMMITTING in
//! every live subxid's entry before it takes its CSN and the CSN afterwards
//! (see `csnlog.rs`), so the top-level transaction and all its subtransactions
//! become visible at the same instant. Nothing a reader does depends on how many
//! subtransactions a writer has.
//!
//! The owning session's "is this one of mine?" is [`OwnXids::contains`]: a
//! sorted vector of its live subxids (assigned, not rolled back), a binary
//! search, skipped entirely while the vector is empty.
//!
//! # Locks
//!
//! Heavyweight locks taken while a savepoint is open are logged with the level
//! that took them; `ROLLBACK TO` gives back exactly those acquires (so a lock
//! the parent held already stays held), `RELEASE` hands them to the parent
//! (PostgreSQL's resource owners). Callers that cannot borrow the
//! transaction take such locks through a [`LevelLocks`] handle, which logs
//! them at the level current when they are taken (the log keeps the open
//! depth for that). A subxid holds `ExclusiveLock` on itself from
//! assignment, so waiting for a subtransaction's row ends when the
//! subtransaction aborts or, if released, when its top-level transaction
//! ends.
//!
//! Locking: `OwnXids` is written only by its transaction and read by that
//! transaction's scans; a reader-writer lock is uncontended.

use super::{Backend, Transaction};
use crate::csnlog::Csn;
use crate::lmgr::{LockError, LockMode, LockTag, LockWaitParams};
use parking_lot::{Mutex, RwLock};
use sluice_common::Xid;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// One savepoint level.
#[derive(Debug)]
pub(super) struct Level {
    /// The savepoint's name.
    pub(super) name: String,
    /// The level's own xid, once it has written.
    pub(super) xid: Option<Xid>,
    /// Xids of released levels above this one: they commit or abort with it.
    pub(super) released: Vec<Xid>,
}

impl Level {
    fn new(name: &str) -> Level {
        Level { name: name.to_string(), xid: None, released: Vec::new() }
    }

    /// Every xid that ends with this level.
    fn xids(&self) -> impl Iterator<Item = Xid> + '_ {
        self.xid.into_iter().chain(self.released.iter().copied())
    }
}

/// The live subxids of one transaction (see the module doc).
#[derive(Debug, Default)]
pub struct OwnXids {
    sorted: RwLock<Vec<Xid>>,
    len: AtomicUsize,
}

impl OwnXids {
    /// contains -- whether `xid` is one of the transaction's live subxids.
    pub fn contains(&self, xid: Xid) -> bool {
        self.len.load(Ordering::Acquire) != 0 && self.sorted.read().binary_search(&xid).is_ok()
    }

    /// How many there are (`pg_stat_get_backend_subxact`'s subxact_count).
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A copy of all of them, ascending.
    pub fn to_vec(&self) -> Vec<Xid> {
        self.sorted.read().clone()
    }

    /// Adds a new subxid, which is above every one already there.
    fn push(&self, xid: Xid) {
        let mut sorted = self.sorted.write();
        debug_assert!(sorted.last().is_none_or(|&last| last < xid));
        sorted.push(xid);
        self.len.store(sorted.len(), Ordering::Release);
    }

    /// Removes `gone` (rolled back).
    fn remove(&self, gone: &[Xid]) {
        let mut sorted = self.sorted.write();
        sorted.retain(|x| !gone.contains(x));
        self.len.store(sorted.len(), Ordering::Release);
    }
}

/// Why a savepoint command failed (the caller words the error).
#[derive(Debug, PartialEq, Eq)]
pub enum SavepointError {
    /// No open savepoint has that name (3B001).
    NoSuchSavepoint,
}

/// The acquires made inside savepoints (see "Locks" in the module doc).
#[derive(Debug, Default)]
pub(super) struct LockLog {
    /// The open savepoint depth, which new acquires are logged with.
    depth: usize,
    /// Each acquire with the level (1-based) that made it.
    entries: Vec<(usize, LockTag, LockMode)>,
}

impl LockLog {
    fn note(&mut self, tag: LockTag, mode: LockMode) {
        if self.depth > 0 {
            self.entries.push((self.depth, tag, mode));
        }
    }
}

/// LevelLocks -- takes transaction locks as the transaction's current
/// level, for callers that cannot borrow the transaction (SQL functions
/// such as `pg_advisory_xact_lock`): what it takes inside a savepoint is
/// given back by ROLLBACK TO like the transaction's own acquires.
#[derive(Clone)]
pub struct LevelLocks {
    backend: Arc<Backend>,
    log: Arc<Mutex<LockLog>>,
}

impl LevelLocks {
    /// lock -- [`Transaction::lock`] through the handle.
    pub fn lock(
        &self,
        tag: LockTag,
        mode: LockMode,
        params: &LockWaitParams<'_>,
    ) -> std::result::Result<(), LockError> {
        acquire_at_level(&self.backend, &self.log, tag, mode, params)
    }
}

/// acquire_at_level -- takes `mode` on `tag` for `backend`'s transaction
/// and logs it at the level current in `log` (both [`Transaction::lock`]
/// and [`LevelLocks::lock`]).
pub(super) fn acquire_at_level(
    backend: &Backend,
    log: &Mutex<LockLog>,
    tag: LockTag,
    mode: LockMode,
    params: &LockWaitParams<'_>,
) -> std::result::Result<(), LockError> {
    backend.mgr.locks.acquire(backend.lock_owner(), tag, mode, params)?;
    log.lock().note(tag, mode);
    Ok(())
}

impl Transaction {
    /// A handle taking locks as this transaction's current level.
    pub fn level_locks(&self) -> LevelLocks {
        LevelLocks { backend: self.backend.clone(), log: self.lock_log.clone() }
    }

    /// Keeps the lock log's depth equal to the open savepoint depth.
    fn sync_lock_depth(&self) {
        self.lock_log.lock().depth = self.levels.len();
    }

    /// Open savepoints.
    pub fn savepoint_depth(&self) -> usize {
        self.levels.len()
    }

    /// The transaction's live subxids, for its visibility checks.
    pub fn own_subxids(&self) -> std::sync::Arc<OwnXids> {
        self.own_subxids.clone()
    }

    /// is_current_xid -- whether `xid` is this transaction's or one of its
    /// live subtransactions' (TransactionIdIsCurrentTransactionId).
    pub fn is_current_xid(&self, xid: Xid) -> bool {
        self.xid == Some(xid) || self.own_subxids.contains(xid)
    }

    /// savepoint -- SAVEPOINT `name`: opens a new level. Its xid comes with
    /// its first write.
    pub fn savepoint(&mut self, name: &str) {
        self.levels.push(Level::new(name));
        self.sync_lock_depth();
    }

    /// The depth (1-based) of the innermost open savepoint named `name`.
    fn find(&self, name: &str) -> Result<usize, SavepointError> {
        self.levels
            .iter()
            .rposition(|l| l.name == name)
            .map(|i| i + 1)
            .ok_or(SavepointError::NoSuchSavepoint)
    }

    /// release -- RELEASE `name`: the savepoint and every level above it end;
    /// what they did becomes the enclosing level's. Returns the depth of the
    /// released savepoint (it and everything above are gone).
    pub fn release(&mut self, name: &str) -> Result<usize, SavepointError> {
        let depth = self.find(name)?;
        self.release_from(depth);
        Ok(depth)
    }

    /// release_from -- levels `depth..` end into level `depth - 1`.
    fn release_from(&mut self, depth: usize) {
        let popped: Vec<Xid> =
            self.levels.drain(depth - 1..).flat_map(|l| l.xids().collect::<Vec<_>>()).collect();
        if let Some(parent) = self.levels.last_mut() {
            parent.released.extend(popped);
        }
        self.retag_locks(depth, depth - 1);
        self.sync_lock_depth();
    }

    /// rollback_to -- ROLLBACK TO `name`: aborts everything done since the
    /// savepoint (levels above it too) and reopens it empty. Returns its depth.
    pub fn rollback_to(&mut self, name: &str) -> Result<usize, SavepointError> {
        let depth = self.find(name)?;
        self.abort_levels(depth);
        self.levels.truncate(depth - 1);
        self.levels.push(Level::new(name));
        Ok(depth)
    }

    /// release_innermost -- ends the innermost level into its parent, as
    /// RELEASE of it would (ReleaseCurrentSubTransaction). Returns its depth.
    pub fn release_innermost(&mut self) -> Result<usize, SavepointError> {
        let depth = self.levels.len();
        if depth == 0 {
            return Err(SavepointError::NoSuchSavepoint);
        }
        self.release_from(depth);
        Ok(depth)
    }

    /// rollback_innermost -- aborts the innermost level and ends it
    /// (RollbackAndReleaseCurrentSubTransaction): unlike ROLLBACK TO, the
    /// level is not reopened. Returns its depth.
    pub fn rollback_innermost(&mut self) -> Result<usize, SavepointError> {
        let depth = self.levels.len();
        if depth == 0 {
            return Err(SavepointError::NoSuchSavepoint);
        }
        self.abort_levels(depth);
        self.levels.truncate(depth - 1);
        self.sync_lock_depth();
        Ok(depth)
    }

    /// abort_current_level -- an error inside a savepoint: the innermost level's
    /// work is aborted at once (its locks go, its rows are dead), and the level
    /// stays until ROLLBACK TO or ROLLBACK (PostgreSQL's AbortSubTransaction
    /// ahead of TBLOCK_SUBABORT).
    pub fn abort_current_level(&mut self) {
        let depth = self.levels.len();
        if depth > 0 {
            self.abort_levels(depth);
        }
    }

    /// abort_levels -- aborts levels `depth..` (1-based): their xids become
    /// aborted in the CSN log and commit log, then the locks they took go.
    fn abort_levels(&mut self, depth: usize) {
        let mut gone = Vec::new();
        for level in &mut self.levels[depth - 1..] {
            gone.extend(level.xids());
            level.xid = None;
            level.released.clear();
        }
        if !gone.is_empty() {
            self.own_subxids.remove(&gone);
            self.publish_subxact_count();
            self.mgr().end_subxids(&gone, Csn::ABORTED);
        }
        self.release_logged_locks(depth);
    }

    /// assign_level_xids -- the innermost level's xid, assigning it (and any
    /// parent level's still missing, outermost first) on first use. Assumes
    /// the top-level xid exists.
    pub(super) fn assign_level_xids(&mut self) -> Xid {
        let owner = self.backend.lock_owner();
        for depth in 1..=self.levels.len() {
            if self.levels[depth - 1].xid.is_none() {
                let xid = self.backend.mgr.assign_subxid(owner);
                self.levels[depth - 1].xid = Some(xid);
                self.own_subxids.push(xid);
                self.lock_log.lock().entries.push((
                    depth,
                    LockTag::TransactionId(xid),
                    LockMode::Exclusive,
                ));
            }
        }
        self.publish_subxact_count();
        self.levels.last().and_then(|l| l.xid).expect("assigned above")
    }

    fn publish_subxact_count(&self) {
        self.mgr().procarray.set_subxact_count(self.backend.proc, self.own_subxids.len());
    }

    /// Gives back every acquire logged by levels `depth..`.
    fn release_logged_locks(&self, depth: usize) {
        let mut log = self.lock_log.lock();
        let locks = &self.mgr().locks;
        log.entries.retain(|&(d, tag, mode)| {
            if d >= depth {
                locks.release(self.backend.proc, tag, mode);
                false
            } else {
                true
            }
        });
    }

    /// Hands the acquires of levels `from..` to level `to` (0: the top level,
    /// whose locks need no log: they all go at transaction end).
    fn retag_locks(&self, from: usize, to: usize) {
        let mut log = self.lock_log.lock();
        if to == 0 {
            log.entries.retain(|&(d, ..)| d < from);
        } else {
            log.entries.iter_mut().filter(|e| e.0 >= from).for_each(|e| e.0 = to);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_xids_are_found_and_removed() {
        let own = OwnXids::default();
        assert!(!own.contains(Xid(5)));
        for x in [5, 7, 9] {
            own.push(Xid(x));
        }
        assert!(own.contains(Xid(7)));
        own.remove(&[Xid(7)]);
        assert!(!own.contains(Xid(7)));
        assert_eq!(own.to_vec(), vec![Xid(5), Xid(9)]);
    }
}
