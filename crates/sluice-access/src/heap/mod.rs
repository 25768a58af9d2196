//! The heap access method (PostgreSQL's `access/heap`).
//!
//! A heap relation is an unordered set of pages holding row versions. Every
//! INSERT adds a version; UPDATE adds a new version and stamps the old one's
//! xmax and ctid (the *update chain*); DELETE only stamps xmax. Nothing is removed
//! in place: whether a version is visible is decided per snapshot by comparing its
//! xmin/xmax with the snapshot (`visibility.rs`), and removing versions nobody
//! can see any more is the job of pruning and VACUUM.
//!
//! ```text
//!   UPDATE t SET v = 2 WHERE id = 1      (xid 100 → xid 105)
//!
//!   (0,1) xmin=100 xmax=105 ctid=(0,2)  v=1    ← old version, dead once 105 commits
//!   (0,2) xmin=105 xmax=0   ctid=(0,2)  v=2    ← new version
//! ```
//!
//! * `heapam.rs` — insert, delete, update and fetch; waiting for concurrent
//!   writers; the WAL for each change.
//! * `scan.rs` — sequential scans, a page at a time.
//! * `hio.rs` — choosing the page a new version goes to (and `fillfactor`).
//! * `visibility.rs` — the MVCC rules.
//! * `hints.rs` — caching transaction outcomes in tuple headers.
//! * `tuplock.rs` — row locks (SELECT ... FOR UPDATE/SHARE) and their waits.
//! * `multixact.rs` — who holds a row; the multixact xmax of several holders.
//! * `epq.rs` — READ COMMITTED's re-check of the newest version after waiting.
//! * `pruneheap.rs` — pruning: dead versions' storage back, line pointers kept;
//!   HOT chains collapsed to redirects.
//! * `rewriteheap.rs` — VACUUM FULL and CLUSTER: the versions some snapshot
//!   may need copied densely into a new file.
//! * `vacuumlazy.rs` — lazy VACUUM: prune every page, clean the indexes,
//!   free the dead line pointers, truncate the empty tail.
//! * `visibilitymap.rs` — the `_vm` fork: which pages are all-visible or
//!   all-frozen (VACUUM skips them; index-only scans trust them).
//! * `xlog.rs` — WAL record formats and redo.
//!
//! # Concurrent writers
//!
//! A writer locks the page exclusively, checks the target version with
//! `satisfies_update`, and if another transaction holds it, unlocks the page and
//! sleeps until that transaction ends (`sluice-txn`'s xid waits), then checks
//! again. If the other transaction committed an update, READ COMMITTED follows
//! the ctid chain to the newest version and re-evaluates the statement's
//! condition on it (PostgreSQL's EvalPlanQual); REPEATABLE READ fails with
//! SQLSTATE 40001.

pub mod epq;
pub mod heapam;
pub mod hints;
pub mod hio;
pub mod multixact;
pub mod pruneheap;
pub mod rewriteheap;
pub mod scan;
pub mod tuplock;
pub mod vacuumlazy;
pub mod visibility;
pub mod visibilitymap;
pub mod xlog;

use sluice_common::{Oid, RelFileLocator};

/// The facts about a heap relation the access method needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapRelation {
    /// Where its files are.
    pub locator: RelFileLocator,
    /// Its OID (`pg_class.oid`), which names it in the tuple locks that
    /// writers waiting for one of its rows queue on.
    pub oid: Oid,
    /// `fillfactor` (10..=100): inserts leave this percentage of a page free
    /// for updates of its rows.
    pub fillfactor: u8,
}

impl HeapRelation {
    /// A relation with the default fillfactor (100) whose OID is its file
    /// number (catalogs, which are never rewritten, and tests).
    pub fn new(locator: RelFileLocator) -> HeapRelation {
        HeapRelation { locator, oid: locator.rel_number, fillfactor: 100 }
    }
}
