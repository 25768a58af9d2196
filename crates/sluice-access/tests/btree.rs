//! B-tree tests: order under random inserts, bottom-up builds that agree with
//! inserts and have PostgreSQL's page counts, forward and backward scans from
//! a key, readers and inserters racing page splits, unique checks,
//! recovery of splits after a simulated crash, page deletion and recycling
//! (with a crash between and after deletion's steps), and killed entries.

mod support;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use sluice_access::common::{AttrDesc, IndexTuple, TupleDesc};
use sluice_access::heap::visibility::DirtyStatus;
use sluice_access::nbtree::delete::mark_half_dead;
use sluice_access::nbtree::page::{Meta, Opaque};
use sluice_access::nbtree::{
    btree_build, btree_bulk_delete, btree_insert, btree_vacuum_cleanup, BTreeIndex, BTreeScan,
    BuildEntry, BulkDeleteResult, ColumnOrder, ScanKey, UniqueCheck,
};
use sluice_access::{AccessError, Engine};
use sluice_common::{ForkNumber, ItemPointer, RelFileLocator, DEFAULTTABLESPACE_OID};
use sluice_storage::buffer::BufferTag;
use sluice_txn::IsolationLevel::ReadCommitted as RC;
use std::sync::Arc;
use support::*;

fn index(rel_number: u32, descending: bool) -> BTreeIndex {
    BTreeIndex {
        locator: RelFileLocator { spc_oid: DEFAULTTABLESPACE_OID, db_oid: 5, rel_number },
        desc: TupleDesc::new(vec![AttrDesc::INT8]),
        columns: vec![ColumnOrder { descending, nulls_first: descending }],
        order: Arc::new(Int8Order),
        fillfactor: 90,
    }
}

/// Creates the index file and builds it from `keys` (heap TIDs made up from
/// the key).
fn build(engine: &Engine, index: &BTreeIndex, keys: &[i64]) {
    engine.create_relation_fork(index.locator, ForkNumber::Main).unwrap();
    let entries = keys
        .iter()
        .map(|&k| BuildEntry {
            values: vec![Some(k.to_le_bytes().to_vec())],
            heap_tid: tid(k),
            live: true,
        })
        .collect();
    btree_build(engine, index, entries, false).unwrap();
}

fn tid(k: i64) -> ItemPointer {
    ItemPointer::new((k.unsigned_abs() / 100) as u32, (k.unsigned_abs() % 100) as u16 + 1)
}

fn insert(engine: &Engine, index: &BTreeIndex, k: i64) {
    btree_insert(engine, index, &[Some(&k.to_le_bytes())], tid(k), None).unwrap();
}

fn key(k: i64) -> ScanKey {
    ScanKey { values: vec![Some(k.to_le_bytes().to_vec())], heap_tid: None, beyond: false }
}

/// Every key a scan returns, in order.
fn scan(engine: &Engine, index: &BTreeIndex, start: Option<&ScanKey>, backward: bool) -> Vec<i64> {
    let mut scan = BTreeScan::begin(engine, index, start, backward).unwrap();
    let mut keys = Vec::new();
    while let Some(heap_tid) = scan.next_tid().unwrap() {
        let tuple = IndexTuple::new(scan.entry()).unwrap();
        let k = int(tuple.values(&index.desc).unwrap()[0].unwrap());
        let extra = heap_tid.block == 9999; // the unique test's own entries
        assert!(extra || heap_tid == tid(k), "entry points at its heap tuple");
        keys.push(k);
    }
    keys
}

fn nblocks(engine: &Engine, index: &BTreeIndex) -> u32 {
    engine.pool().nblocks(index.locator, ForkNumber::Main).unwrap()
}

/// (leaf pages, root level) of the index.
fn shape(engine: &Engine, index: &BTreeIndex) -> (usize, u32) {
    let mut leaves = 0;
    for block in 1..nblocks(engine, index) {
        let tag = BufferTag::new(index.locator, ForkNumber::Main, block);
        let buffer = engine.pool().read_buffer(tag).unwrap();
        leaves += Opaque::of(&buffer.read()).is_leaf() as usize;
    }
    let tag = BufferTag::new(index.locator, ForkNumber::Main, 0);
    let meta = Meta::of(&engine.pool().read_buffer(tag).unwrap().read()).unwrap();
    (leaves, meta.level)
}

#[test]
fn random_inserts_come_back_in_order_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let idx = index(16500, false);
    build(&engine, &idx, &[]);
    assert!(scan(&engine, &idx, None, false).is_empty(), "an empty index scans empty");
    let mut keys: Vec<i64> = (0..20_000).map(|k| k * 3).collect();
    keys.shuffle(&mut rand::rngs::StdRng::seed_from_u64(7));
    for &k in &keys {
        insert(&engine, &idx, k);
    }
    keys.sort();
    assert_eq!(scan(&engine, &idx, None, false), keys);
    let mut reversed = keys.clone();
    reversed.reverse();
    assert_eq!(scan(&engine, &idx, None, true), reversed);
    // From a key: forward from the first ≥ 301 (= 303), backward from the last < 301.
    assert_eq!(scan(&engine, &idx, Some(&key(301)), false)[..2], [303, 306]);
    assert_eq!(scan(&engine, &idx, Some(&key(301)), true)[..2], [300, 297]);
    let beyond = ScanKey { beyond: true, ..key(300) };
    assert_eq!(scan(&engine, &idx, Some(&beyond), false)[0], 303);
    assert_eq!(scan(&engine, &idx, Some(&beyond), true)[0], 300);
    let (leaves, level) = shape(&engine, &idx);
    assert!(level >= 1 && leaves > 60, "random inserts split pages: {leaves} leaves");
}

#[test]
fn killed_entries_are_skipped_by_later_scans_and_removed_by_vacuum() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let idx = index(16502, false);
    build(&engine, &idx, &(0..2000).collect::<Vec<_>>());
    // A scan kills the entries of keys below 1500 as it passes them, and stops
    // midway through a page: the kills of that page are marked when it ends.
    let mut first = BTreeScan::begin(&engine, &idx, None, false).unwrap();
    while let Some(heap_tid) = first.next_tid().unwrap() {
        let k = int(IndexTuple::new(first.entry()).unwrap().values(&idx.desc).unwrap()[0].unwrap());
        assert_eq!(heap_tid, tid(k));
        if k == 1500 {
            break;
        }
        first.kill_last();
    }
    drop(first);
    assert_eq!(scan(&engine, &idx, None, false), (1500..2000).collect::<Vec<_>>());
    assert_eq!(scan(&engine, &idx, None, true), (1500..2000).rev().collect::<Vec<_>>());
    assert_eq!(scan(&engine, &idx, Some(&key(10)), false), (1500..2000).collect::<Vec<_>>());
    // VACUUM still takes them (their heap tuples are dead), then the pages.
    let stats = delete_range(&engine, &idx, 0..1500);
    assert_eq!(stats.tuples_removed, 1500);
    assert_eq!(scan(&engine, &idx, None, false), (1500..2000).collect::<Vec<_>>());
}

#[test]
fn descending_columns_reverse_the_order() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let idx = index(16501, true);
    build(&engine, &idx, &(0..1000).collect::<Vec<_>>());
    for k in 1000..3000 {
        insert(&engine, &idx, k);
    }
    assert_eq!(scan(&engine, &idx, None, false), (0..3000).rev().collect::<Vec<_>>());
    assert_eq!(scan(&engine, &idx, Some(&key(10)), false), (0..=10).rev().collect::<Vec<_>>());
}

#[test]
fn builds_match_inserts_and_postgres_page_counts() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let built = index(16502, false);
    let keys: Vec<i64> = (1..=100_000).collect();
    build(&engine, &built, &keys);
    assert_eq!(scan(&engine, &built, None, false), keys);
    // PostgreSQL 15: 100k bigints → 276 pages (meta, root, 274 leaves).
    let pages = nblocks(&engine, &built);
    assert!((270..=282).contains(&pages), "built index has {pages} pages");
    assert_eq!(shape(&engine, &built), (pages as usize - 2, 1));
    // Ascending inserts fill pages to the same 90% (rightmost splits).
    let inserted = index(16503, false);
    build(&engine, &inserted, &[]);
    for &k in &keys {
        insert(&engine, &inserted, k);
    }
    assert_eq!(scan(&engine, &inserted, None, false), keys);
    let grown = nblocks(&engine, &inserted);
    assert!(grown.abs_diff(pages) <= 3, "inserted {grown} pages vs built {pages}");
}

#[test]
fn readers_and_inserters_race_page_splits() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let idx = index(16504, false);
    build(&engine, &idx, &(0..1000).map(|k| k * 8).collect::<Vec<_>>());
    std::thread::scope(|s| {
        for writer in 0..4i64 {
            let (engine, idx) = (&engine, &idx);
            s.spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(writer as u64);
                let mut mine: Vec<i64> = (0..6000).map(|k| k * 8 + 1 + writer).collect();
                mine.shuffle(&mut rng);
                for k in mine {
                    insert(engine, idx, k);
                }
            });
        }
        for _ in 0..2 {
            let (engine, idx) = (&engine, &idx);
            s.spawn(move || {
                for round in 0..15 {
                    let seen = scan(engine, idx, None, round % 2 == 1);
                    let mut sorted = seen.clone();
                    sorted.sort();
                    if round % 2 == 1 {
                        sorted.reverse();
                    }
                    assert_eq!(seen, sorted, "a scan during splits stays in order");
                    let originals = seen.iter().filter(|k| *k % 8 == 0).count();
                    assert_eq!(originals, 1000, "no entry is missed or seen twice");
                    let from = rand::rng().random_range(0..1000) * 8;
                    let first = scan(engine, idx, Some(&key(from)), false)[0];
                    assert_eq!(first, from, "a keyed search finds its key");
                }
            });
        }
    });
    let all = scan(&engine, &idx, None, false);
    assert_eq!(all.len(), 1000 + 4 * 6000);
    assert!(all.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn unique_checks_judge_the_heap_tuple_behind_an_equal_key() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let idx = index(16505, false);
    build(&engine, &idx, &(0..500).collect::<Vec<_>>());
    let be = backend(&engine);
    let txn = be.begin(RC);
    let never = || false;
    let try_unique = |k: i64, status: DirtyStatus| {
        let mut probe = |_: ItemPointer| Ok(status);
        let check = UniqueCheck { txn: &txn, interrupted: &never, heap_status: &mut probe };
        let other = ItemPointer::new(9999, k as u16 + 1);
        btree_insert(&engine, &idx, &[Some(&k.to_le_bytes())], other, Some(check))
    };
    assert!(matches!(try_unique(42, DirtyStatus::Live), Err(AccessError::UniqueViolation)));
    try_unique(42, DirtyStatus::Dead).unwrap();
    // Two dead entries for 42 now; a third insert probes both.
    try_unique(42, DirtyStatus::Dead).unwrap();
    assert_eq!(scan(&engine, &idx, Some(&key(42)), false)[..4], [42, 42, 42, 43]);
    try_unique(600, DirtyStatus::Live).unwrap(); // no equal key at all
    let mut duplicate_build = vec![1, 2, 2, 3];
    let dup = index(16506, false);
    engine.create_relation_fork(dup.locator, ForkNumber::Main).unwrap();
    let entries = duplicate_build
        .drain(..)
        .enumerate()
        .map(|(i, k): (usize, i64)| BuildEntry {
            values: vec![Some(k.to_le_bytes().to_vec())],
            heap_tid: ItemPointer::new(1, i as u16 + 1),
            live: true,
        })
        .collect();
    match btree_build(&engine, &dup, entries, true) {
        Err(AccessError::DuplicateKey(key)) => {
            assert_eq!(key, vec![Some(2i64.to_le_bytes().to_vec())])
        }
        other => panic!("expected a duplicate key, got {other:?}"),
    }
    txn.commit().unwrap();
}

#[test]
fn splits_survive_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(16507, false);
    let mut keys: Vec<i64> = (0..30_000).collect();
    keys.shuffle(&mut rand::rngs::StdRng::seed_from_u64(3));
    {
        let engine = open(dir.path());
        build(&engine, &idx, &keys[..5000]);
        engine.checkpoint().unwrap();
        for &k in &keys[5000..] {
            insert(&engine, &idx, k);
        }
        engine.wal().flush(engine.wal().insert_lsn()).unwrap();
        // Dropped without a shutdown checkpoint: a crash.
    }
    let engine = open(dir.path());
    assert!(engine.recovered_records() > 25_000, "the inserts were replayed");
    keys.sort();
    assert_eq!(scan(&engine, &idx, None, false), keys);
    let mut reversed = keys.clone();
    reversed.reverse();
    assert_eq!(scan(&engine, &idx, None, true), reversed);
    insert(&engine, &idx, 1_000_000);
    assert_eq!(scan(&engine, &idx, Some(&key(29_999)), false), [29_999, 1_000_000]);
}

/// What an amcheck-like walk of the leaf level found.
struct LeafWalk {
    /// Live leaves reached through the right links, leftmost first.
    leaves: Vec<u32>,
    /// Deleted pages in the file.
    deleted: u32,
}

/// walk -- follows the leaf level from the leftmost leaf along the right
/// links, checking that every left link points back, that no deleted page
/// is linked in and that keys ascend across pages; counts deleted pages by
/// reading every block.
fn walk(engine: &Engine, idx: &BTreeIndex) -> LeafWalk {
    let read = |block: u32| {
        let tag = BufferTag::new(idx.locator, ForkNumber::Main, block);
        let buffer = engine.pool().read_buffer(tag).unwrap();
        let page = buffer.read();
        (Opaque::of(&page), page.clone())
    };
    let meta = Meta::of(&read(0).1).unwrap();
    let mut block = meta.root;
    loop {
        let (opaque, page) = read(block);
        if opaque.is_leaf() {
            break;
        }
        block = IndexTuple::new(page.item(opaque.first_data()).unwrap()).unwrap().downlink();
    }
    let (mut leaves, mut prev, mut last_key) = (Vec::new(), 0, i64::MIN);
    while block != 0 {
        let (opaque, page) = read(block);
        assert!(opaque.is_leaf() && !opaque.is_deleted(), "block {block} is a live leaf");
        assert_eq!(opaque.prev, prev, "left link of block {block}");
        for off in opaque.first_data()..=page.max_offset() {
            let tuple = IndexTuple::new(page.item(off).unwrap()).unwrap();
            let k = int(tuple.values(&idx.desc).unwrap()[0].unwrap());
            assert!(k > last_key, "keys ascend across the leaf chain");
            last_key = k;
        }
        leaves.push(block);
        (prev, block) = (block, opaque.next);
    }
    let deleted = (1..nblocks(engine, idx)).filter(|&b| read(b).0.is_deleted()).count() as u32;
    LeafWalk { leaves, deleted }
}

/// VACUUM's work on the index when the heap TIDs of keys in `range` are
/// dead: bulk delete, then cleanup.
fn delete_range(
    engine: &Engine,
    idx: &BTreeIndex,
    range: std::ops::Range<i64>,
) -> BulkDeleteResult {
    let dead: std::collections::HashSet<ItemPointer> = range.map(tid).collect();
    let stats = btree_bulk_delete(engine, idx, &|t| dead.contains(&t), &|| false).unwrap();
    btree_vacuum_cleanup(engine, idx, Some(stats), &|| false).unwrap().unwrap()
}

/// Gives the xid counter a push: a committed transaction with an xid.
fn burn_xid(engine: &Engine) {
    let be = backend(engine);
    let mut txn = be.begin(RC);
    txn.assign_xid();
    txn.commit().unwrap();
}

#[test]
fn emptied_leaves_are_deleted_and_scans_step_over_them() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let idx = index(16510, false);
    let keys: Vec<i64> = (0..20_000).collect();
    build(&engine, &idx, &keys);
    let before = walk(&engine, &idx).leaves.len();
    // A scattered delete leaves every leaf some entries: nothing goes.
    let dead: Vec<i64> = (10_000..20_000).filter(|k| k % 10 != 0).collect();
    let set: std::collections::HashSet<ItemPointer> = dead.iter().map(|&k| tid(k)).collect();
    let stats = btree_bulk_delete(&engine, &idx, &|t| set.contains(&t), &|| false).unwrap();
    assert_eq!((stats.pages_newly_deleted, stats.pages_deleted), (0, 0));
    // A contiguous one empties whole leaves, the leftmost among them.
    let stats = delete_range(&engine, &idx, 0..8000);
    assert!(stats.pages_newly_deleted >= 15, "{stats:?}");
    assert_eq!(stats.pages_deleted, stats.pages_newly_deleted);
    assert_eq!(stats.pages_free, 0, "a scan begun before the deletion may still be on them");
    let after = walk(&engine, &idx);
    assert_eq!(after.deleted, stats.pages_deleted);
    assert_eq!(after.leaves.len() + after.deleted as usize, before);
    let left: Vec<i64> = (8000..20_000).filter(|k| *k < 10_000 || k % 10 == 0).collect();
    assert_eq!(scan(&engine, &idx, None, false), left);
    let mut reversed = left.clone();
    reversed.reverse();
    assert_eq!(scan(&engine, &idx, None, true), reversed);
    assert_eq!(scan(&engine, &idx, Some(&key(5000)), false)[..2], [8000, 8001]);
    // Inserts into the deleted key range land on the live page that took it.
    for k in (100..200).rev() {
        insert(&engine, &idx, k);
    }
    assert_eq!(scan(&engine, &idx, Some(&key(0)), false)[..3], [100, 101, 102]);
    assert_eq!(walk(&engine, &idx).deleted, stats.pages_deleted);
}

#[test]
fn deleted_pages_are_recycled_once_no_snapshot_can_reach_them() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let idx = index(16511, false);
    let keys: Vec<i64> = (0..20_000).collect();
    build(&engine, &idx, &keys);
    let deleted = delete_range(&engine, &idx, 0..10_000).pages_deleted;
    assert!(deleted > 20);
    // A VACUUM with nothing to remove and no newer xid: still not reusable,
    // and the metapage remembers the waiting pages.
    let stats = btree_vacuum_cleanup(&engine, &idx, None, &|| false).unwrap().unwrap();
    assert_eq!((stats.pages_deleted, stats.pages_free), (deleted, 0));
    // A snapshot from before the deletion is older than the horizon would
    // allow; once transactions have moved on, the pages are reusable.
    burn_xid(&engine);
    let stats = btree_vacuum_cleanup(&engine, &idx, None, &|| false).unwrap().unwrap();
    assert_eq!((stats.pages_deleted, stats.pages_free), (deleted, deleted));
    assert!(
        btree_vacuum_cleanup(&engine, &idx, None, &|| false).unwrap().is_none(),
        "nothing waits any more: no scan needed"
    );
    // Splits take the recycled pages instead of extending the file.
    let size = nblocks(&engine, &idx);
    for k in -5000..0 {
        insert(&engine, &idx, k);
    }
    assert_eq!(nblocks(&engine, &idx), size);
    let after = walk(&engine, &idx);
    assert!(after.deleted < deleted, "{} of {deleted} pages still deleted", after.deleted);
    let expected: Vec<i64> = (-5000..0).chain(10_000..20_000).collect();
    assert_eq!(scan(&engine, &idx, None, false), expected);
}

#[test]
fn page_deletion_survives_a_crash_between_and_after_its_steps() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(16512, false);
    let keys: Vec<i64> = (0..20_000).collect();
    let (deleted, half_dead, lost) = {
        let engine = open(dir.path());
        build(&engine, &idx, &keys);
        engine.checkpoint().unwrap();
        let deleted = delete_range(&engine, &idx, 0..6000).pages_deleted;
        assert!(deleted > 10);
        // Empty one more leaf by hand (its whole image is logged by the
        // first step) and stop after that step, as a crash there would.
        let target = walk(&engine, &idx).leaves[3];
        let lost = {
            let tag = BufferTag::new(idx.locator, ForkNumber::Main, target);
            let buffer = engine.pool().read_buffer(tag).unwrap();
            let mut page = buffer.write();
            let first = Opaque::of(&page).first_data();
            let offsets: Vec<u16> = (first..=page.max_offset()).collect();
            let lost: Vec<i64> = offsets
                .iter()
                .map(|&o| {
                    let tuple = IndexTuple::new(page.item(o).unwrap()).unwrap();
                    int(tuple.values(&idx.desc).unwrap()[0].unwrap())
                })
                .collect();
            page.delete_items(&offsets);
            page.mark_dirty();
            lost
        };
        assert!(mark_half_dead(&engine, &idx, target).unwrap());
        engine.wal().flush(engine.wal().insert_lsn()).unwrap();
        // Dropped without a shutdown checkpoint: a crash.
        (deleted, target, lost)
    };
    let engine = open(dir.path());
    assert!(engine.recovered_records() > 0, "the deletions were replayed");
    let after = walk(&engine, &idx);
    assert_eq!(after.deleted, deleted, "the unlinked pages stay deleted");
    assert!(after.leaves.contains(&half_dead), "the half-dead leaf is still linked");
    let left: Vec<i64> = (6000..20_000).filter(|k| !lost.contains(k)).collect();
    assert_eq!(scan(&engine, &idx, None, false), left);
    // Its key range went to the right sibling: an insert there lands on a
    // live page, and searches move right past the half-dead one.
    insert(&engine, &idx, lost[0]);
    assert_eq!(scan(&engine, &idx, Some(&key(lost[0])), false)[0], lost[0]);
    // The next VACUUM finishes the deletion.
    let stats = btree_vacuum_cleanup(&engine, &idx, None, &|| false).unwrap().unwrap();
    assert_eq!(stats.pages_newly_deleted, 1);
    let after = walk(&engine, &idx);
    assert!(!after.leaves.contains(&half_dead));
    assert_eq!(after.deleted, deleted + 1);
}

#[test]
fn a_parent_left_without_children_is_deleted_with_its_last_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let idx = index(16513, false);
    let keys: Vec<i64> = (0..200_000).collect();
    build(&engine, &idx, &keys);
    assert_eq!(shape(&engine, &idx).1, 2, "three levels");
    let before = walk(&engine, &idx).leaves.len();
    // Every leaf under the first internal page empties.
    let stats = delete_range(&engine, &idx, 0..150_000);
    let after = walk(&engine, &idx);
    let leaves_gone = (before - after.leaves.len()) as u32;
    assert_eq!(stats.pages_newly_deleted, leaves_gone + 1, "the leaves and one parent");
    assert_eq!(after.deleted, stats.pages_deleted);
    let read = |block: u32| {
        let tag = BufferTag::new(idx.locator, ForkNumber::Main, block);
        let buffer = engine.pool().read_buffer(tag).unwrap();
        let page = buffer.read();
        Opaque::of(&page)
    };
    let internal_deleted =
        (1..nblocks(&engine, &idx)).filter(|&b| read(b).is_deleted() && !read(b).is_leaf());
    assert_eq!(internal_deleted.count(), 1);
    assert_eq!(scan(&engine, &idx, None, false), (150_000..200_000).collect::<Vec<_>>());
    assert_eq!(scan(&engine, &idx, Some(&key(10)), false)[..2], [150_000, 150_001]);
    // The emptied key range now belongs to the next parent: inserts there
    // descend through it.
    for k in (0..2000).rev() {
        insert(&engine, &idx, k);
    }
    let expected: Vec<i64> = (0..2000).chain(150_000..200_000).collect();
    assert_eq!(scan(&engine, &idx, None, false), expected);
    let mut reversed = expected.clone();
    reversed.reverse();
    assert_eq!(scan(&engine, &idx, None, true), reversed);
}
