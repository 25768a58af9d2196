//! The visibility map and the free space map at the access layer: VACUUM
//! marks pages all-visible, a second VACUUM skips them, every change clears
//! the mark (also in redo after a crash), and after deleting most rows and
//! vacuuming, inserts reuse the freed space instead of growing the table.

mod support;

use sluice_access::heap::heapam::heap_delete;
use sluice_access::heap::vacuumlazy::{
    heap_vacuum_rel, max_dead_items, IndexCleanup, TruncateLock, VacuumParams, VacuumReport,
};
use sluice_access::heap::visibility::PruneHorizon;
use sluice_access::heap::visibilitymap::{self, count};
use sluice_access::heap::HeapRelation;
use sluice_access::Engine;
use sluice_common::ForkNumber;
use sluice_storage::freespace;
use sluice_txn::IsolationLevel::ReadCommitted as RC;
use support::*;

struct Lock;

impl TruncateLock for Lock {
    fn try_acquire(&mut self) -> bool {
        true
    }
    fn release(&mut self) {}
}

fn vacuum(engine: &Engine, rel: &HeapRelation, freeze: bool, disable: bool) -> VacuumReport {
    let be = backend(engine);
    let mut txn = be.begin(RC);
    let horizon = PruneHorizon::new(engine.txns(), txn.snapshot());
    let pages = engine.pool().nblocks(rel.locator, ForkNumber::Main).unwrap();
    let params = VacuumParams {
        index_cleanup: IndexCleanup::Auto,
        truncate: true,
        max_dead_items: max_dead_items(64 << 20, pages),
        freeze,
        disable_page_skipping: disable,
        interrupted: &|| false,
        progress: &|_| {},
    };
    heap_vacuum_rel(engine, rel, &[], &horizon, &params, &mut Lock).unwrap()
}

fn pages(engine: &Engine, rel: &HeapRelation) -> u32 {
    engine.pool().nblocks(rel.locator, ForkNumber::Main).unwrap()
}

#[test]
fn vacuum_marks_skips_and_changes_clear_and_inserts_reuse_space() {
    let dir = tempfile::tempdir().unwrap();
    let rel = relation(16384);
    let total;
    {
        let engine = open(dir.path());
        create(&engine, &rel);
        insert_committed(&engine, &rel, 0..5000);
        total = pages(&engine, &rel);
        assert!(total > 40, "{total} pages");
        let first = vacuum(&engine, &rel, false, false);
        assert_eq!((first.scanned_pages, first.vm_newly_all_visible), (total, total));
        assert_eq!(count(engine.pool(), rel.locator).unwrap(), (total, 0));
        assert!(visibilitymap::is_all_visible(engine.pool(), rel.locator, 0).unwrap());
        // Everything is all-visible: only the last page is read.
        assert_eq!(vacuum(&engine, &rel, false, false).scanned_pages, 1);
        assert_eq!(vacuum(&engine, &rel, false, true).scanned_pages, total, "no skipping");
        // FREEZE reads the pages not yet all-frozen and marks them.
        assert_eq!(vacuum(&engine, &rel, true, false).scanned_pages, total);
        assert_eq!(count(engine.pool(), rel.locator).unwrap(), (total, total));
        assert_eq!(vacuum(&engine, &rel, true, false).scanned_pages, 1);
        // Deleting 90% of the rows touches every page: no page stays marked.
        let be = backend(&engine);
        let mut txn = be.begin(RC);
        for (tid, (id, _, _)) in scan(&engine, &rel, &mut txn) {
            if id % 10 != 0 {
                heap_delete(&engine, &rel, &mut txn, tid, &|| false).unwrap().unwrap();
            }
        }
        txn.commit().unwrap();
        assert_eq!(count(engine.pool(), rel.locator).unwrap(), (0, 0));
        let report = vacuum(&engine, &rel, false, false);
        assert_eq!(report.tuples_deleted, 4500);
        assert!(freespace::get_recorded_free_space(engine.pool(), rel.locator, 0).unwrap() > 6000);
        // The freed space takes new rows: the table does not grow.
        insert_committed(&engine, &rel, 10_000..14_000);
        assert_eq!(pages(&engine, &rel), total);
        assert_eq!(visible_ids(&engine, &rel).len(), 4500);
        vacuum(&engine, &rel, false, false);
        insert_committed(&engine, &rel, [20_000]);
        // Dropped without a shutdown checkpoint: a crash.
    }
    let engine = open(dir.path());
    let (visible, _) = count(engine.pool(), rel.locator).unwrap();
    // Every page but the one the last insert went to is all-visible again.
    assert_eq!(visible, total - 1, "the map came back from the WAL");
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    sluice_access::heap::heapam::heap_insert(&engine, &rel, &mut txn, &seed_row(1)).unwrap();
    txn.commit().unwrap();
    assert!(pages(&engine, &rel) <= total + 1);
    assert_eq!(visible_ids(&engine, &rel).len(), 4502);
}
