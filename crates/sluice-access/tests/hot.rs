//! HOT at the access layer: updates that keep the indexed columns stay on
//! their page as heap-only tuples, an index entry pointing at the chain's
//! root finds the visible member, pruning turns the root into a redirect and
//! frees the heap-only tuples nobody sees, VACUUM leaves redirects alone, and
//! all of it comes back the same after a crash.

mod support;

use sluice_access::heap::epq::update_row;
use sluice_access::heap::heapam::{heap_dirty_status, heap_hot_search, UpdatedVersion};
use sluice_access::heap::pruneheap::heap_page_prune;
use sluice_access::heap::visibility::{DirtyStatus, PruneHorizon, VisibilityContext};
use sluice_access::heap::HeapRelation;
use sluice_access::Engine;
use sluice_common::{ForkNumber, ItemPointer};
use sluice_storage::buffer::BufferTag;
use sluice_storage::page::LpFlags;
use sluice_txn::IsolationLevel::{ReadCommitted as RC, RepeatableRead as RR};
use support::*;

const NEVER: &dyn Fn() -> bool = &|| false;

/// Updates the version at `tid` to `(id, name)`, HOT if `hot` allows, committed.
fn update(
    engine: &Engine,
    rel: &HeapRelation,
    tid: ItemPointer,
    name: &str,
    hot: bool,
) -> UpdatedVersion {
    let be = backend(engine);
    let mut txn = be.begin(RC);
    let current = heap_hot_search(engine, rel, tid, &ctx(engine, &mut txn)).unwrap().unwrap();
    let new = row(decode(&current.1).0, name, "m");
    let version = update_row::<sluice_access::AccessError>(
        engine,
        rel,
        &mut txn,
        current.0,
        |_| Ok(Some(new.clone())),
        &current.1,
        &|_, _| hot,
        NEVER,
    )
    .unwrap()
    .expect("updated");
    txn.commit().unwrap();
    version
}

fn ctx<'e>(engine: &'e Engine, txn: &mut sluice_txn::Transaction) -> VisibilityContext<'e> {
    VisibilityContext::for_transaction(txn, engine.txns())
}

/// What a fresh snapshot finds following an index entry that points at `root`.
fn fetch(engine: &Engine, rel: &HeapRelation, root: ItemPointer) -> Option<(ItemPointer, String)> {
    let be = backend(engine);
    let mut txn = be.begin(RC);
    let found = heap_hot_search(engine, rel, root, &ctx(engine, &mut txn)).unwrap();
    found.map(|(tid, t)| (tid, decode(&t).1))
}

/// The state of line pointer `off` of block 0.
fn lp(engine: &Engine, rel: &HeapRelation, off: u16) -> (LpFlags, u16) {
    let tag = BufferTag::new(rel.locator, ForkNumber::Main, 0);
    let buffer = engine.pool().read_buffer(tag).unwrap();
    let id = buffer.read().item_id(off);
    (id.flags(), id.off())
}

/// Prunes block 0 against the current horizon.
fn prune(engine: &Engine, rel: &HeapRelation) -> usize {
    let be = backend(engine);
    let mut txn = be.begin(RC);
    let horizon = PruneHorizon::new(engine.txns(), txn.snapshot());
    let buffer =
        engine.pool().read_buffer(BufferTag::new(rel.locator, ForkNumber::Main, 0)).unwrap();
    let mut page = buffer.write();
    heap_page_prune(engine, rel, 0, &mut page, &horizon).unwrap().ndeleted
}

#[test]
fn hot_chains_are_followed_pruned_to_redirects_and_survive_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let rel = relation(16384);
    let root = ItemPointer::new(0, 1);
    {
        let engine = open(dir.path());
        create(&engine, &rel);
        insert_committed(&engine, &rel, [1, 2]);
        let reader = backend(&engine);
        let mut rr = reader.begin(RR);
        let _ = scan(&engine, &rel, &mut rr);
        let v1 = update(&engine, &rel, root, "one", true);
        assert!(v1.heap_only && v1.tid == ItemPointer::new(0, 3), "{v1:?}");
        let v2 = update(&engine, &rel, root, "two", true);
        assert_eq!(v2, UpdatedVersion { tid: ItemPointer::new(0, 4), heap_only: true });
        assert_eq!(fetch(&engine, &rel, root), Some((v2.tid, "two".into())));
        // The old snapshot still finds the first version through the root.
        let old = heap_hot_search(&engine, &rel, root, &ctx(&engine, &mut rr)).unwrap();
        assert_eq!(old.map(|(tid, _)| tid), Some(root));
        assert_eq!(prune(&engine, &rel), 0, "the reader holds every version");
        rr.commit().unwrap();
        assert_eq!(prune(&engine, &rel), 2, "the root tuple and (0,3) are gone");
        assert_eq!(lp(&engine, &rel, 1), (LpFlags::Redirect, 4));
        assert_eq!(lp(&engine, &rel, 3).0, LpFlags::Unused, "heap-only: no index points here");
        assert_eq!(fetch(&engine, &rel, root), Some((v2.tid, "two".into())));
        // A unique check through the root sees the live member.
        let be = backend(&engine);
        let mut txn = be.begin(RC);
        let status = heap_dirty_status(&engine, &rel, root, &ctx(&engine, &mut txn)).unwrap();
        assert_eq!(status, DirtyStatus::Live);
        txn.commit().unwrap();
        // A non-HOT update ends the chain: the root then leads to nothing
        // visible, and pruning makes it dead for VACUUM.
        let v3 = update(&engine, &rel, root, "three", false);
        assert!(!v3.heap_only);
        assert_eq!(fetch(&engine, &rel, root), None);
        assert_eq!(fetch(&engine, &rel, v3.tid), Some((v3.tid, "three".into())));
        prune(&engine, &rel);
        assert_eq!(lp(&engine, &rel, 1).0, LpFlags::Dead);
        assert_eq!(lp(&engine, &rel, 4).0, LpFlags::Unused);
        // Another chain, left as a redirect, for recovery to rebuild.
        let r2 = ItemPointer::new(0, 2);
        update(&engine, &rel, r2, "a", true);
        update(&engine, &rel, r2, "b", true);
        prune(&engine, &rel);
        assert_eq!(lp(&engine, &rel, 2).0, LpFlags::Redirect);
        // A commit flushes the WAL, the prune records with it.
        insert_committed(&engine, &rel, [3]);
        // Dropped without a shutdown checkpoint: a crash.
    }
    let engine = open(dir.path());
    assert_eq!(lp(&engine, &rel, 1).0, LpFlags::Dead);
    assert_eq!(lp(&engine, &rel, 2).0, LpFlags::Redirect);
    assert_eq!(fetch(&engine, &rel, ItemPointer::new(0, 2)).map(|r| r.1), Some("b".into()));
    assert_eq!(visible_ids(&engine, &rel), [1, 2, 3]);
}

#[test]
fn an_update_that_changes_an_indexed_column_is_not_heap_only() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let rel = relation(16384);
    create(&engine, &rel);
    insert_committed(&engine, &rel, [1]);
    let v = update(&engine, &rel, ItemPointer::new(0, 1), "x", false);
    assert_eq!(v, UpdatedVersion { tid: ItemPointer::new(0, 2), heap_only: false });
    assert_eq!(fetch(&engine, &rel, ItemPointer::new(0, 1)), None);
}
