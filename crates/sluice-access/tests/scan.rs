//! Sequential scans: visibility judged page by page on a private copy, the
//! last-xid cache across rows of different transactions, hint bits, and the
//! ring a scan of a big table reads through.

mod support;

use sluice_access::heap::heapam::heap_insert;
use sluice_access::EngineConfig;
use sluice_common::{ForkNumber, BLCKSZ};
use sluice_txn::IsolationLevel::{ReadCommitted as RC, RepeatableRead as RR};
use support::*;

#[test]
fn scans_tell_interleaved_inserters_apart() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let rel = relation(16384);
    create(&engine, &rel);
    // Two transactions take turns on the same pages; one commits, one aborts.
    let (be_a, be_b) = (backend(&engine), backend(&engine));
    let (mut a, mut b) = (be_a.begin(RC), be_b.begin(RC));
    for i in 0..2_000 {
        let txn = if i % 2 == 0 { &mut a } else { &mut b };
        heap_insert(&engine, &rel, txn, &seed_row(i)).unwrap();
    }
    a.commit().unwrap();
    b.rollback();
    let evens: Vec<i64> = (0..2_000).step_by(2).collect();
    // A snapshot taken now must not see what commits after it, even though
    // that transaction's status is "committed" by the time the scan asks.
    let be_reader = backend(&engine);
    let mut reader = be_reader.begin(RR);
    assert_eq!(scan(&engine, &rel, &mut reader).len(), 1_000);
    insert_committed(&engine, &rel, 5_000..5_500);
    for _ in 0..2 {
        // The second time round every answer comes from hint bits.
        let ids: Vec<i64> =
            scan(&engine, &rel, &mut reader).into_iter().map(|(_, r)| r.0).collect();
        assert_eq!(ids, evens);
    }
    let mut expected = evens;
    expected.extend(5_000..5_500);
    assert_eq!(visible_ids(&engine, &rel), expected);
}

#[test]
fn a_big_table_scan_leaves_the_rest_of_the_pool_cached() {
    let dir = tempfile::tempdir().unwrap();
    let config = EngineConfig { shared_buffers: 256 * BLCKSZ, ..test_config() };
    let engine = sluice_access::Engine::open(dir.path(), config).unwrap();
    let (small, big) = (relation(16384), relation(16385));
    create(&engine, &small);
    create(&engine, &big);
    insert_committed(&engine, &small, 0..500); // ~10 pages
    insert_committed(&engine, &big, 0..50_000); // ~1000 pages: four times the pool
    assert!(engine.pool().nblocks(big.locator, ForkNumber::Main).unwrap() > 900);
    for _ in 0..3 {
        assert_eq!(visible_ids(&engine, &small).len(), 500);
    }
    for _ in 0..2 {
        assert_eq!(visible_ids(&engine, &big).len(), 50_000);
    }
    let reads = engine.pool().stats().reads;
    assert_eq!(visible_ids(&engine, &small).len(), 500);
    assert_eq!(engine.pool().stats().reads, reads, "the small table stayed cached");
}
