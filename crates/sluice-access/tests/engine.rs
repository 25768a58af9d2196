//! Engine-level behaviour: the horizon follows live snapshots, asynchronous
//! commit leaves flushing to the WAL writer, and the checkpointer starts a
//! checkpoint by itself once enough WAL has been written.

mod support;

use sluice_access::heap::heapam::heap_insert;
use sluice_access::{Engine, EngineConfig};
use sluice_txn::IsolationLevel::{ReadCommitted as RC, RepeatableRead as RR};
use sluice_txn::SynchronousCommit;
use std::time::{Duration, Instant};
use support::*;

#[test]
fn the_horizon_is_held_by_the_oldest_live_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let rel = relation(16384);
    create(&engine, &rel);
    insert_committed(&engine, &rel, [1]);
    let reader = backend(&engine);
    let mut rr = reader.begin(RR);
    let held = rr.snapshot();
    let pid_xmin =
        engine.txns().proc_states().iter().find(|p| p.proc == reader.proc()).unwrap().xmin;
    assert_eq!(pid_xmin, Some(held.xmin), "backend_xmin shows the snapshot's xmin");
    for i in 2..10 {
        insert_committed(&engine, &rel, [i]);
    }
    let horizon = engine.txns().horizon();
    assert_eq!(horizon.xmin, held.xmin, "the RR snapshot pins the horizon");
    assert_eq!(horizon.csn, held.csn);
    drop(rr);
    let after = engine.txns().horizon();
    assert!(
        after.xmin > held.xmin && after.csn > held.csn,
        "released at transaction end: {after:?}"
    );
    assert_eq!(after.xmin, engine.txns().next_xid(), "nothing running, nothing held");
    let mut rc = reader.begin(RC);
    rc.snapshot();
    rc.end_statement();
    assert_eq!(
        engine.txns().proc_states().iter().find(|p| p.proc == reader.proc()).unwrap().xmin,
        None,
        "READ COMMITTED lets go between statements"
    );
}

#[test]
fn asynchronous_commit_is_flushed_by_the_wal_writer() {
    let dir = tempfile::tempdir().unwrap();
    let config = EngineConfig {
        synchronous_commit: SynchronousCommit::Off,
        wal_writer_delay: Duration::from_millis(50),
        ..test_config()
    };
    let engine = Engine::open(dir.path(), config).unwrap();
    let rel = relation(16384);
    create(&engine, &rel);
    let fsyncs = engine.wal().stats().fsyncs;
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    heap_insert(&engine, &rel, &mut txn, &seed_row(1)).unwrap();
    txn.commit().unwrap();
    let committed_at = engine.wal().insert_lsn();
    assert_eq!(engine.wal().stats().fsyncs, fsyncs, "COMMIT returned without an fsync");
    let start = Instant::now();
    while engine.wal().flushed_lsn() < committed_at {
        assert!(start.elapsed() < Duration::from_secs(5), "the WAL writer never flushed");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn synchronous_commit_flushes_before_returning() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let rel = relation(16384);
    create(&engine, &rel);
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    heap_insert(&engine, &rel, &mut txn, &seed_row(1)).unwrap();
    txn.commit().unwrap();
    assert!(engine.wal().flushed_lsn() >= engine.wal().insert_lsn());
}

#[test]
fn wal_volume_triggers_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let config = EngineConfig { max_wal_size: 32 * 1024 * 1024, ..test_config() };
    let engine = Engine::open(dir.path(), config).unwrap();
    let rel = relation(16384);
    create(&engine, &rel);
    let first = engine.control_file().checkpoint;
    insert_committed(&engine, &rel, 1..=120_000); // ~25 MB of WAL
    let start = Instant::now();
    while engine.control_file().checkpoint == first {
        assert!(start.elapsed() < Duration::from_secs(10), "no checkpoint after 25 MB of WAL");
        std::thread::sleep(Duration::from_millis(50));
    }
}
