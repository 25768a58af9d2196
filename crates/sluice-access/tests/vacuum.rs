//! Lazy VACUUM at the access layer: pruning and both heap passes with a
//! B-tree on the table, the horizon held by a REPEATABLE READ snapshot,
//! freed line pointers reused by inserts, several index rounds when the
//! dead-TID memory is small, truncation of the empty tail, and all of it
//! replayed after a simulated crash; and updates that prune their own page.

mod support;

use sluice_access::common::{AttrDesc, IndexTuple, TupleDesc};
use sluice_access::heap::heapam::{heap_delete, heap_insert, heap_update};
use sluice_access::heap::vacuumlazy::{
    heap_vacuum_rel, max_dead_items, IndexCleanup, TruncateLock, VacuumParams, VacuumReport,
};
use sluice_access::heap::visibility::PruneHorizon;
use sluice_access::heap::HeapRelation;
use sluice_access::nbtree::{btree_insert, BTreeIndex, BTreeScan, ColumnOrder};
use sluice_access::Engine;
use sluice_common::{ForkNumber, ItemPointer, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_storage::page::MAX_HEAP_TUPLES_PER_PAGE;
use sluice_txn::IsolationLevel::{ReadCommitted as RC, RepeatableRead as RR};
use std::sync::Arc;
use support::*;

fn index(rel_number: u32) -> BTreeIndex {
    BTreeIndex {
        locator: RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: 5, rel_number },
        desc: TupleDesc::new(vec![AttrDesc::INT8]),
        columns: vec![ColumnOrder::default()],
        order: Arc::new(Int8Order),
        fillfactor: 90,
    }
}

/// A lock that is always (or never) free.
struct Lock(bool);

impl TruncateLock for Lock {
    fn try_acquire(&mut self) -> bool {
        self.0
    }
    fn release(&mut self) {}
}

/// Creates `t` with an index on id and inserts ids `0..n`, committed.
fn setup(engine: &Engine, rel: &HeapRelation, idx: &BTreeIndex, n: i64) {
    create(engine, rel);
    engine.create_relation_fork(idx.locator, ForkNumber::Main).unwrap();
    sluice_access::nbtree::btree_build(engine, idx, Vec::new(), false).unwrap();
    let be = backend(engine);
    let mut txn = be.begin(RC);
    for i in 0..n {
        let tid = heap_insert(engine, rel, &mut txn, &seed_row(i)).unwrap();
        btree_insert(engine, idx, &[Some(&i.to_le_bytes())], tid, None).unwrap();
    }
    txn.commit().unwrap();
}

/// Deletes the rows whose id `doomed` accepts, committed.
fn delete_where(engine: &Engine, rel: &HeapRelation, doomed: impl Fn(i64) -> bool) {
    let be = backend(engine);
    let mut txn = be.begin(RC);
    let rows = scan(engine, rel, &mut txn);
    for (tid, (id, _, _)) in rows {
        if doomed(id) {
            heap_delete(engine, rel, &mut txn, tid, &|| false).unwrap().unwrap();
        }
    }
    txn.commit().unwrap();
}

/// VACUUM with the given dead-TID memory, the truncation lock free.
fn vacuum(
    engine: &Engine,
    rel: &HeapRelation,
    idx: &BTreeIndex,
    max_items: Option<usize>,
) -> VacuumReport {
    let be = backend(engine);
    let mut txn = be.begin(RC);
    let horizon = PruneHorizon::new(engine.txns(), txn.snapshot());
    let pages = engine.pool().nblocks(rel.locator, ForkNumber::Main).unwrap();
    let params = VacuumParams {
        index_cleanup: IndexCleanup::Auto,
        truncate: true,
        max_dead_items: max_items.unwrap_or_else(|| max_dead_items(64 << 20, pages)),
        freeze: false,
        disable_page_skipping: false,
        interrupted: &|| false,
        progress: &|_| {},
    };
    heap_vacuum_rel(engine, rel, std::slice::from_ref(idx), &horizon, &params, &mut Lock(true))
        .unwrap()
}

/// (key, heap TID) of every index entry, in order.
fn entries(engine: &Engine, idx: &BTreeIndex) -> Vec<(i64, ItemPointer)> {
    let mut scan = BTreeScan::begin(engine, idx, None, false).unwrap();
    let mut out = Vec::new();
    while let Some(heap_tid) = scan.next_tid().unwrap() {
        let tuple = IndexTuple::new(scan.entry()).unwrap();
        out.push((int(tuple.values(&idx.desc).unwrap()[0].unwrap()), heap_tid));
    }
    out
}

/// Every index entry leads to the live row with its key, and every live row
/// has exactly one entry.
fn assert_consistent(engine: &Engine, rel: &HeapRelation, idx: &BTreeIndex) {
    let be = backend(engine);
    let mut txn = be.begin(RC);
    let rows: Vec<(i64, ItemPointer)> =
        scan(engine, rel, &mut txn).into_iter().map(|(tid, r)| (r.0, tid)).collect();
    assert_eq!(entries(engine, idx), rows, "index entries match the live rows");
}

#[test]
fn vacuum_removes_dead_rows_from_heap_and_index_and_frees_their_slots() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let (rel, idx) = (relation(16384), index(16385));
    setup(&engine, &rel, &idx, 1000);
    delete_where(&engine, &rel, |id| id % 2 == 0);
    let report = vacuum(&engine, &rel, &idx, None);
    assert_eq!(report.tuples_deleted, 500);
    assert_eq!(report.live_tuples, 500);
    assert_eq!(report.recently_dead_tuples, 0);
    assert_eq!(report.lpdead_items, 500);
    assert_eq!(report.num_index_scans, 1);
    let stats = report.index_stats[0].unwrap();
    assert_eq!((stats.tuples_removed, stats.num_index_tuples), (500, 500));
    assert_consistent(&engine, &rel, &idx);
    // A second VACUUM finds nothing left to do.
    let again = vacuum(&engine, &rel, &idx, None);
    assert_eq!((again.tuples_deleted, again.lpdead_items, again.num_index_scans), (0, 0, 0));
    // The freed line pointers are reused by inserts: after VACUUM the
    // first page with room in the free space map gets the row.
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    let before = scan(&engine, &rel, &mut txn);
    let tid = heap_insert(&engine, &rel, &mut txn, &seed_row(5000)).unwrap();
    txn.commit().unwrap();
    assert_eq!(tid.block, 0, "the map's first page with room");
    let rows_there = before.iter().filter(|(t, _)| t.block == tid.block).count();
    assert!((tid.offset as usize) <= rows_there * 2, "a freed slot was reused: {tid}");
}

#[test]
fn a_repeatable_read_snapshot_keeps_rows_until_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let (rel, idx) = (relation(16384), index(16385));
    setup(&engine, &rel, &idx, 300);
    let reader = backend(&engine);
    let mut rr = reader.begin(RR);
    assert_eq!(scan(&engine, &rel, &mut rr).len(), 300);
    delete_where(&engine, &rel, |_| true);
    let held = vacuum(&engine, &rel, &idx, None);
    assert_eq!((held.tuples_deleted, held.recently_dead_tuples), (0, 300));
    assert_eq!(held.rel_pages, held.orig_rel_pages, "nothing truncated");
    assert_eq!(scan(&engine, &rel, &mut rr).len(), 300, "the snapshot still sees them");
    drop(rr);
    let freed = vacuum(&engine, &rel, &idx, None);
    assert_eq!((freed.tuples_deleted, freed.recently_dead_tuples), (300, 0));
    assert_eq!(freed.rel_pages, 0, "the empty table is truncated");
    assert!(entries(&engine, &idx).is_empty());
    insert_committed(&engine, &rel, [7]);
    assert_eq!(visible_ids(&engine, &rel), [7], "inserts extend the truncated file again");
}

#[test]
fn little_memory_means_several_index_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let (rel, idx) = (relation(16384), index(16385));
    setup(&engine, &rel, &idx, 3000);
    delete_where(&engine, &rel, |id| id % 3 != 0);
    let report = vacuum(&engine, &rel, &idx, Some(1));
    assert_eq!(report.tuples_deleted, 2000);
    assert!(report.num_index_scans > 3, "one round per page: {}", report.num_index_scans);
    assert_consistent(&engine, &rel, &idx);
}

#[test]
fn vacuum_and_truncation_are_replayed_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let (rel, idx) = (relation(16384), index(16385));
    let pages_after;
    {
        let engine = open(dir.path());
        setup(&engine, &rel, &idx, 2000);
        engine.checkpoint().unwrap();
        delete_where(&engine, &rel, |id| id % 5 == 0 || id >= 1200);
        let report = vacuum(&engine, &rel, &idx, None);
        assert!(report.rel_pages < report.orig_rel_pages, "the tail was truncated");
        pages_after = report.rel_pages;
        assert_consistent(&engine, &rel, &idx);
        engine.wal().flush(engine.wal().insert_lsn()).unwrap();
        // Dropped without a shutdown checkpoint: a crash.
    }
    let engine = open(dir.path());
    assert_eq!(engine.pool().nblocks(rel.locator, ForkNumber::Main).unwrap(), pages_after);
    let expected: Vec<i64> = (0..1200).filter(|id| id % 5 != 0).collect();
    assert_eq!(visible_ids(&engine, &rel), expected);
    assert_consistent(&engine, &rel, &idx);
    insert_committed(&engine, &rel, [9000]);
    let again = vacuum(&engine, &rel, &idx, None);
    assert_eq!(again.tuples_deleted, 0, "nothing dead came back");
}

#[test]
fn updates_prune_their_page_instead_of_growing_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let rel = relation(16384);
    create(&engine, &rel);
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    let mut tid = heap_insert(&engine, &rel, &mut txn, &seed_row(0)).unwrap();
    txn.commit().unwrap();
    // 2000 versions of 160 bytes would fill 40 pages; with nobody to see the
    // old ones, each full page is pruned and reused instead, until its line
    // pointers run out (dead ones stay until VACUUM; without HOT each page
    // takes MAX_HEAP_TUPLES_PER_PAGE versions).
    for i in 1..=2000 {
        let mut txn = be.begin(RC);
        tid = heap_update(&engine, &rel, &mut txn, tid, &seed_row(i), &|_, _| false, &|| false)
            .unwrap()
            .unwrap()
            .tid;
        txn.commit().unwrap();
    }
    let pages = engine.pool().nblocks(rel.locator, ForkNumber::Main).unwrap();
    let by_line_pointers = 2000 / MAX_HEAP_TUPLES_PER_PAGE as u32 + 1;
    assert!(pages <= by_line_pointers, "the table stayed small: {pages} pages");
    assert_eq!(visible_ids(&engine, &rel), [2000]);
    // A snapshot that still sees an old version keeps it, and the table grows.
    let reader = backend(&engine);
    let mut rr = reader.begin(RR);
    assert_eq!(scan(&engine, &rel, &mut rr).len(), 1);
    for i in 2001..=2200 {
        let mut txn = be.begin(RC);
        tid = heap_update(&engine, &rel, &mut txn, tid, &seed_row(i), &|_, _| false, &|| false)
            .unwrap()
            .unwrap()
            .tid;
        txn.commit().unwrap();
    }
    assert_eq!(scan(&engine, &rel, &mut rr)[0].1 .0, 2000, "the old version is still there");
    assert!(engine.pool().nblocks(rel.locator, ForkNumber::Main).unwrap() > pages);
}
