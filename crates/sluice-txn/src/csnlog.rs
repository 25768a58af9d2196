//! The commit-sequence-number log: for each recent transaction id, whether it is
//! still running, aborted, or committed — and if committed, *when*, as a commit
//! sequence number (CSN).
//!
//! # Why CSNs
//!
//! A PostgreSQL snapshot is a list of the transaction ids that were running when
//! it was taken (xip), plus a second list for subtransactions that overflows at 64
//! entries — the subtransaction cliff of seed 004. A sluice snapshot is one
//! number: the CSN counter's value when it was taken. A transaction's changes are
//! visible to a snapshot iff it committed with a smaller CSN. Snapshot size and
//! visibility cost do not depend on how many transactions or subtransactions are
//! running.
//!
//! # Protocol
//!
//! ```text
//!  value       meaning
//!  0           in progress (the default for an assigned id)
//!  1           aborted
//!  2           committing: a CSN is being assigned right now; readers spin
//!  3..         committed with this CSN
//! ```
//!
//! A committer stores COMMITTING, then takes `csn = next_csn++`, then stores the
//! CSN. A reader that sees COMMITTING waits for the final value. Without that
//! middle state, a snapshot taken between the increment and the store would see
//! the transaction as running, and later (same snapshot) as committed before it.
//!
//! # Extent
//!
//! The log is memory only. It covers ids from the one the server started with
//! (`base`) upward, in chunks of 4096 ids created as ids are assigned. Everything
//! older finished before any live snapshot was taken, so the durable commit log
//! answers for it; `truncate` drops chunks below the oldest snapshot's xmin.
//!
//! Locking: a reader-writer lock around the chunk map (written only to add or drop
//! chunks); the entries themselves are atomics.

use parking_lot::RwLock;
use sluice_common::Xid;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A commit sequence number: the order in which transactions became visible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Csn(pub u64);

impl Csn {
    /// The transaction has not finished.
    pub const IN_PROGRESS: Csn = Csn(0);
    /// The transaction rolled back.
    pub const ABORTED: Csn = Csn(1);
    /// The transaction is being assigned its CSN right now.
    pub const COMMITTING: Csn = Csn(2);
    /// The first real commit sequence number.
    pub const FIRST: Csn = Csn(3);
    /// A snapshot CSN above every commit's: a view of whatever has committed
    /// by the time each row is read (PostgreSQL's SnapshotSelf-like catalog
    /// reads), not one moment.
    pub const LATEST: Csn = Csn(u64::MAX);

    /// Whether this is a real commit sequence number.
    pub fn is_committed(self) -> bool {
        self >= Csn::FIRST
    }
}

/// Ids per chunk.
const CHUNK: u64 = 4096;

type Chunk = [AtomicU64; CHUNK as usize];

/// The in-memory xid → CSN map. See the module doc.
pub struct CsnLog {
    chunks: RwLock<BTreeMap<u64, Arc<Chunk>>>,
    /// Ids below this are not covered (finished before every live snapshot).
    base: AtomicU64,
}

impl CsnLog {
    /// A log covering ids from `base` on.
    pub fn new(base: Xid) -> CsnLog {
        CsnLog { chunks: RwLock::new(BTreeMap::new()), base: AtomicU64::new(base.0) }
    }

    /// Whether `xid` is covered (otherwise ask the commit log).
    pub fn covers(&self, xid: Xid) -> bool {
        xid.0 >= self.base.load(Ordering::Acquire)
    }

    /// Makes room for `xid`, which is about to be assigned.
    pub fn extend(&self, xid: Xid) {
        let chunkno = xid.0 / CHUNK;
        if self.chunks.read().contains_key(&chunkno) {
            return;
        }
        self.chunks
            .write()
            .entry(chunkno)
            .or_insert_with(|| Arc::new(std::array::from_fn(|_| AtomicU64::new(0))));
    }

    /// The entry for covered `xid`; an id not assigned yet reads as in progress.
    /// COMMITTING is waited out, so callers see only final states.
    pub fn get(&self, xid: Xid) -> Csn {
        let Some(chunk) = self.chunks.read().get(&(xid.0 / CHUNK)).cloned() else {
            return Csn::IN_PROGRESS;
        };
        let slot = &chunk[(xid.0 % CHUNK) as usize];
        loop {
            let v = Csn(slot.load(Ordering::SeqCst));
            if v != Csn::COMMITTING {
                return v;
            }
            std::hint::spin_loop();
        }
    }

    /// Sets the entry for `xid` (which was extended for).
    pub fn set(&self, xid: Xid, csn: Csn) {
        let chunk = self.chunks.read().get(&(xid.0 / CHUNK)).cloned();
        if let Some(chunk) = chunk {
            chunk[(xid.0 % CHUNK) as usize].store(csn.0, Ordering::SeqCst);
        }
    }

    /// lower_base -- covers ids from `xid` on (startup, for prepared
    /// transactions older than the restart); the caller fills their entries.
    pub fn lower_base(&self, xid: Xid) {
        self.base.fetch_min(xid.0, Ordering::AcqRel);
    }

    /// Forgets ids below `xid` (rounded down to a chunk): no live or future
    /// snapshot needs their CSNs.
    pub fn truncate(&self, xid: Xid) {
        let first_kept = xid.0 / CHUNK;
        let mut chunks = self.chunks.write();
        let kept = chunks.split_off(&first_kept);
        *chunks = kept;
        let new_base = first_kept * CHUNK;
        if new_base > self.base.load(Ordering::Acquire) {
            self.base.store(new_base, Ordering::Release);
        }
    }

    /// Number of chunks held (for tests and monitoring).
    pub fn chunk_count(&self) -> usize {
        self.chunks.read().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_default_to_in_progress_and_truncate_by_chunk() {
        let log = CsnLog::new(Xid(100));
        assert!(!log.covers(Xid(99)));
        assert_eq!(log.get(Xid(5000)), Csn::IN_PROGRESS);
        log.extend(Xid(100));
        log.extend(Xid(5000));
        log.set(Xid(100), Csn(7));
        log.set(Xid(5000), Csn::ABORTED);
        assert_eq!(log.get(Xid(100)), Csn(7));
        assert_eq!(log.get(Xid(5000)), Csn::ABORTED);
        assert_eq!(log.chunk_count(), 2);
        log.truncate(Xid(4100));
        assert_eq!(log.chunk_count(), 1);
        assert!(!log.covers(Xid(100)));
        assert!(log.covers(Xid(4096)));
    }
}
