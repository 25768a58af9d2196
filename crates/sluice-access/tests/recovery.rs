//! Recovery tests: WAL replay after a simulated crash (the engine dropped
//! without a shutdown checkpoint, so dirty pages and unflushed WAL are lost),
//! torn-page repair from full-page images, checkpoints, and a table several
//! times larger than the buffer pool.

mod support;

use sluice_access::heap::epq::update_row;
use sluice_access::heap::heapam::{heap_delete, heap_insert};
use sluice_access::EngineConfig;
use sluice_common::{ForkNumber, BLCKSZ};
use sluice_storage::page::verify_checksum;
use sluice_txn::IsolationLevel::ReadCommitted as RC;
use sluice_wal::DbState;
use support::*;

const NEVER: &dyn Fn() -> bool = &|| false;

/// Every page of the relation's main fork on disk carries a valid checksum.
fn assert_checksums(dir: &std::path::Path, rel_number: u32) {
    let bytes = std::fs::read(dir.join("base/5").join(rel_number.to_string())).unwrap();
    for (block, page) in bytes.chunks(BLCKSZ).enumerate() {
        assert!(verify_checksum(page.try_into().unwrap(), block as u32), "block {block} checksum");
    }
}

#[test]
fn committed_work_survives_a_crash_and_uncommitted_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let rel = relation(16384);
    {
        let engine = open(dir.path());
        create(&engine, &rel);
        insert_committed(&engine, &rel, 1..=500);
        let be = backend(&engine);
        // Committed: delete 1..=10, update 11 → 1011.
        let mut txn = be.begin(RC);
        let rows = scan(&engine, &rel, &mut txn);
        for (tid, r) in rows.iter().filter(|(_, r)| r.0 <= 10) {
            assert_eq!(
                heap_delete(&engine, &rel, &mut txn, *tid, NEVER).unwrap(),
                Ok(()),
                "row {}",
                r.0
            );
        }
        let (tid, _) = rows.iter().find(|(_, r)| r.0 == 11).unwrap();
        update_row(
            &engine,
            &rel,
            &mut txn,
            *tid,
            |_| sluice_access::Result::Ok(Some(seed_row(1011))),
            &seed_row(11),
            &|_, _| true,
            NEVER,
        )
        .unwrap();
        txn.commit().unwrap();
        // Uncommitted at the crash: inserts of 600..700.
        let loser = backend(&engine);
        let mut open_txn = loser.begin(RC);
        for i in 600..700 {
            heap_insert(&engine, &rel, &mut open_txn, &seed_row(i)).unwrap();
        }
        engine.wal().flush(engine.wal().insert_lsn()).unwrap();
        std::mem::forget(open_txn); // the process "dies" with it open
        std::mem::forget(loser);
    }
    let engine = open(dir.path());
    assert!(engine.recovered_records() > 500, "recovery replayed the inserts");
    assert_eq!(engine.control_file().state, DbState::InProduction);
    let mut expected: Vec<i64> = (12..=500).collect();
    expected.push(1011);
    assert_eq!(visible_ids(&engine, &rel), expected);
    engine.shutdown().unwrap();
    assert_checksums(dir.path(), 16384);
    let engine = open(dir.path());
    assert_eq!(
        engine.recovered_records(),
        1,
        "after a clean shutdown only the checkpoint record is read"
    );
    assert_eq!(visible_ids(&engine, &rel).len(), 490);
}

#[test]
fn torn_pages_are_repaired_from_full_page_images() {
    let dir = tempfile::tempdir().unwrap();
    let rel = relation(16385);
    let torn = {
        let engine = open(dir.path());
        create(&engine, &rel);
        insert_committed(&engine, &rel, 1..=100);
        engine.checkpoint().unwrap();
        // First change after the checkpoint: logs an image of the page.
        let fpis = engine.wal().stats().fpi_count;
        let be = backend(&engine);
        let mut txn = be.begin(RC);
        let block = heap_insert(&engine, &rel, &mut txn, &seed_row(101)).unwrap().block as usize;
        txn.commit().unwrap();
        assert_eq!(engine.wal().stats().fpi_count, fpis + 1);
        // Write the page out, then tear it: its second half is garbage.
        engine.pool().flush_all().unwrap();
        block
    };
    let path = dir.path().join("base/5/16385");
    let mut bytes = std::fs::read(&path).unwrap();
    for b in &mut bytes[torn * BLCKSZ + BLCKSZ / 2..(torn + 1) * BLCKSZ] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let engine = open(dir.path());
    assert_eq!(visible_ids(&engine, &rel), (1..=101).collect::<Vec<_>>());
    engine.shutdown().unwrap();
    assert_checksums(dir.path(), 16385);
}

#[test]
fn a_table_eight_times_the_pool_works_and_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let rel = relation(16386);
    let config = EngineConfig { shared_buffers: 256 * BLCKSZ, ..test_config() };
    {
        let engine = sluice_access::Engine::open(dir.path(), config.clone()).unwrap();
        create(&engine, &rel);
        insert_committed(&engine, &rel, 1..=120_000); // ~2300 pages
        let pages = engine.pool().nblocks(rel.locator, ForkNumber::Main).unwrap();
        assert!(pages as usize > 8 * 256, "{pages} pages");
        assert!(engine.pool().stats().writes > 1000, "evictions wrote pages");
        assert_eq!(visible_ids(&engine, &rel).len(), 120_000);
    }
    let engine = sluice_access::Engine::open(dir.path(), config).unwrap();
    let ids = visible_ids(&engine, &rel);
    assert_eq!(ids.len(), 120_000);
    assert_eq!(ids.first(), Some(&1));
    assert_eq!(ids.last(), Some(&120_000));
}

#[test]
fn checkpoints_remove_old_wal_and_keep_next_ids() {
    let dir = tempfile::tempdir().unwrap();
    let rel = relation(16387);
    let next_xid = {
        let engine = open(dir.path());
        create(&engine, &rel);
        for chunk in 0..100 {
            insert_committed(&engine, &rel, chunk * 1000..(chunk + 1) * 1000);
        }
        let stats = engine.checkpoint().unwrap();
        assert!(stats.segments_removed >= 1, "{stats:?}");
        let oid = engine.new_oid().unwrap();
        assert!(oid >= 16384);
        engine.txns().next_xid()
    };
    let engine = open(dir.path());
    assert!(engine.txns().next_xid() >= next_xid, "xids are never reused after a crash");
    assert_eq!(visible_ids(&engine, &rel).len(), 100_000);
}
