//! When may a cached copy of the catalogs be reused? (PostgreSQL's
//! `utils/cache/inval.c`, by commit sequence numbers instead of messages.)
//!
//! Catalogs are MVCC tables, so what a statement sees of them depends on its
//! snapshot. A cache built by reading a catalog under snapshot S1 holds exactly
//! the catalog changes committed with a CSN below S1. Another snapshot S2 may
//! reuse it if it sees exactly the same catalog changes, that is, if no
//! catalog-changing commit has a CSN in `[min(S1, S2), max(S1, S2))`.
//!
//! PostgreSQL sends invalidation messages through shared memory and every
//! backend replays them at transaction start and lock acquisition. Here a
//! commit that changed catalogs instead records its CSN as `last_commit`, and
//! a reader checks that `last_commit` is below both snapshots. That is
//! conservative (one DDL commit makes every cache built before it stale) and
//! needs no per-backend queue: DDL is rare, lookups are not.
//!
//! # The race this closes
//!
//! A committer takes its CSN and only then can record it. A reader looking in
//! between would miss a CSN that may fall inside its interval. So committers
//! count themselves in `committing` before taking the CSN and out after
//! recording it, and readers that see any committer in flight do not use a
//! cache. A committer that enters after the reader's check takes a CSN at or
//! above every snapshot that already exists, outside any interval the reader
//! is asking about. All accesses are SeqCst, so the reader's two loads and the
//! committer's three steps are ordered one way or the other.
//!
//! # What counts as a catalog change
//!
//! A transaction that writes a catalog row says so ([`Transaction::note_catalog_write`]
//! in `xact.rs`). Its own snapshots carry that flag, and it neither reads nor
//! fills caches from then on: nobody else can see its uncommitted catalog rows.
//! An abort changes nothing anybody can see, so only commits are recorded.
//! There are no catalog changes outside MVCC (PostgreSQL's in-place
//! `pg_class` updates by VACUUM are transactional here); one would have to
//! raise `last_commit` to the next CSN.
//!
//! [`Transaction::note_catalog_write`]: crate::Transaction::note_catalog_write

use crate::csnlog::Csn;
use crate::snapshot::Snapshot;
use std::sync::atomic::{AtomicU64, Ordering};

/// The CSNs of catalog-changing commits, as far as caches need them.
#[derive(Debug, Default)]
pub struct CatalogChanges {
    /// Catalog-changing commits between "about to take a CSN" and "recorded it".
    committing: AtomicU64,
    /// The highest CSN of a catalog-changing commit (or of `changed_now`).
    last_commit: AtomicU64,
}

impl CatalogChanges {
    /// commit -- takes a commit's CSN with `assign` and records it as a
    /// catalog change, with no moment at which a reader could miss it.
    pub(crate) fn commit(&self, assign: impl FnOnce() -> Csn) -> Csn {
        self.committing.fetch_add(1, Ordering::SeqCst);
        let csn = assign();
        self.last_commit.fetch_max(csn.0, Ordering::SeqCst);
        self.committing.fetch_sub(1, Ordering::SeqCst);
        csn
    }

    /// same_catalogs -- whether `snap` sees the same catalog contents as a
    /// snapshot with CSN `built` that wrote no catalogs.
    pub fn same_catalogs(&self, built: Csn, snap: &Snapshot) -> bool {
        if !self.may_fill(snap) || self.committing.load(Ordering::SeqCst) != 0 {
            return false;
        }
        self.last_commit.load(Ordering::SeqCst) < built.0.min(snap.csn.0)
    }

    /// changed_since -- whether a catalog-changing commit that `snap` does
    /// not see may have happened (one in flight counts).
    pub fn changed_since(&self, snap: &Snapshot) -> bool {
        self.committing.load(Ordering::SeqCst) != 0
            || self.last_commit.load(Ordering::SeqCst) >= snap.csn.0
    }

    /// may_fill -- whether a cache may be filled from what `snap` reads: not
    /// if its transaction's own uncommitted catalog rows are in it, nor if
    /// it is no single moment ([`Csn::LATEST`]).
    pub fn may_fill(&self, snap: &Snapshot) -> bool {
        !snap.wrote_catalog && snap.csn != Csn::LATEST
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_common::Xid;

    fn snap(csn: u64) -> Snapshot {
        Snapshot {
            xmin: Xid::FIRST_NORMAL,
            xmax: Xid::FIRST_NORMAL,
            csn: Csn(csn),
            own_xid: None,
            curcid: 0,
            wrote_catalog: false,
        }
    }

    #[test]
    fn a_catalog_commit_between_two_snapshots_separates_them() {
        let changes = CatalogChanges::default();
        assert!(changes.same_catalogs(Csn(5), &snap(9)));
        changes.commit(|| Csn(7));
        // 5 does not see the commit at 7, 9 does.
        assert!(!changes.same_catalogs(Csn(5), &snap(9)));
        assert!(!changes.same_catalogs(Csn(9), &snap(5)));
        // Both 8 and 9 see it.
        assert!(changes.same_catalogs(Csn(8), &snap(9)));
    }

    #[test]
    fn a_commit_in_flight_stops_reuse() {
        let changes = CatalogChanges::default();
        changes.commit(|| {
            assert!(!changes.same_catalogs(Csn(5), &snap(9)));
            Csn(20)
        });
        assert!(changes.same_catalogs(Csn(21), &snap(22)));
    }

    #[test]
    fn changed_since_counts_commits_the_snapshot_does_not_see() {
        let changes = CatalogChanges::default();
        assert!(!changes.changed_since(&snap(9)));
        changes.commit(|| Csn(8));
        assert!(!changes.changed_since(&snap(9)));
        changes.commit(|| {
            assert!(changes.changed_since(&snap(20)), "in flight");
            Csn(9)
        });
        assert!(changes.changed_since(&snap(9)));
    }

    #[test]
    fn own_catalog_writes_neither_use_nor_fill() {
        let changes = CatalogChanges::default();
        let mut mine = snap(9);
        mine.wrote_catalog = true;
        assert!(!changes.same_catalogs(Csn(8), &mine));
        assert!(!changes.may_fill(&mine));
    }

    #[test]
    fn a_view_of_the_latest_commits_is_no_moment_to_cache() {
        let changes = CatalogChanges::default();
        assert!(!changes.may_fill(&snap(Csn::LATEST.0)));
        assert!(!changes.same_catalogs(Csn(8), &snap(Csn::LATEST.0)));
    }
}
