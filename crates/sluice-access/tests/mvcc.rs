//! MVCC behaviour of the heap under READ COMMITTED and REPEATABLE READ: the
//! anomaly checklist of ept/hermitage (as PostgreSQL answers it), own-writes
//! visibility by command id, blocking concurrent updaters with EvalPlanQual or
//! serialization failure, and constant-time rollback.

mod support;

use sluice_access::common::htup::HeapTupleHeader;
use sluice_access::heap::epq::{delete_row, update_row, RowDeleted};
use sluice_access::heap::heapam::{heap_delete, heap_insert};
use sluice_access::heap::multixact::{plan, Plan};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::heap::HeapRelation;
use sluice_access::{AccessError, Engine};
use sluice_common::{ForkNumber, ItemPointer};
use sluice_storage::buffer::BufferTag;
use sluice_txn::{IsolationLevel, MultiXactStatus, Transaction};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;
use support::*;

use IsolationLevel::{ReadCommitted as RC, RepeatableRead as RR};

const NEVER: &dyn Fn() -> bool = &|| false;

/// A table with rows (1, "10") and (2, "20"): the hermitage starting point.
fn setup() -> (tempfile::TempDir, Arc<Engine>, HeapRelation) {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let rel = relation(16384);
    create(&engine, &rel);
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    heap_insert(&engine, &rel, &mut txn, &row(1, "10", "")).unwrap();
    heap_insert(&engine, &rel, &mut txn, &row(2, "20", "")).unwrap();
    txn.commit().unwrap();
    (dir, engine, rel)
}

/// id → value as `txn`'s current statement sees it.
fn values(engine: &Engine, rel: &HeapRelation, txn: &mut Transaction) -> Vec<(i64, String)> {
    let rows = scan(engine, rel, txn).into_iter().map(|(_, r)| (r.0, r.1)).collect();
    txn.end_statement();
    rows
}

fn tid_of(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    id: i64,
) -> (ItemPointer, Vec<u8>) {
    let (tid, r) =
        scan(engine, rel, txn).into_iter().find(|(_, r)| r.0 == id).expect("row visible");
    (tid, row(r.0, &r.1, &r.2))
}

/// UPDATE t SET value = f(value) WHERE id = `id`, EvalPlanQual included.
fn update(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    id: i64,
    f: impl Fn(i64) -> i64,
) -> Result<bool, AccessError> {
    let (tid, current) = tid_of(engine, rel, txn, id);
    let result: Result<_, AccessError> = update_row(
        engine,
        rel,
        txn,
        tid,
        |old| {
            let (id, value, memo) = decode(old);
            Ok(Some(row(id, &f(value.parse().unwrap()).to_string(), &memo)))
        },
        &current,
        &|_, _| true,
        NEVER,
    );
    txn.end_statement();
    txn.increment_command();
    result.map(|t| t.is_some())
}

/// Runs `f` on another thread and returns a receiver for its result.
fn spawn<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> mpsc::Receiver<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx
}

fn assert_blocked<T>(rx: &mpsc::Receiver<T>) {
    assert!(
        rx.recv_timeout(Duration::from_millis(150)).is_err(),
        "expected the writer to be waiting"
    );
}

#[test]
fn own_writes_follow_command_ids() {
    let (_dir, engine, rel) = setup();
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    heap_insert(&engine, &rel, &mut txn, &row(3, "30", "")).unwrap();
    assert_eq!(
        values(&engine, &rel, &mut txn).len(),
        2,
        "the inserting command does not see its row"
    );
    txn.increment_command();
    assert_eq!(values(&engine, &rel, &mut txn).len(), 3, "later commands do");
    let (tid, _) = tid_of(&engine, &rel, &mut txn, 3);
    assert_eq!(heap_delete(&engine, &rel, &mut txn, tid, NEVER).unwrap(), Ok(()));
    assert_eq!(
        values(&engine, &rel, &mut txn).len(),
        3,
        "the deleting command still sees it (combo cid)"
    );
    txn.increment_command();
    assert_eq!(values(&engine, &rel, &mut txn).len(), 2);
    txn.commit().unwrap();
    assert_eq!(visible_ids(&engine, &rel), vec![1, 2]);
}

#[test]
fn g0_dirty_write_waits_then_applies_on_top() {
    let (_dir, engine, rel) = setup();
    let b1 = backend(&engine);
    let mut t1 = b1.begin(RC);
    update(&engine, &rel, &mut t1, 1, |_| 11).unwrap();
    let (e2, r2) = (engine.clone(), rel);
    let t2 = spawn(move || {
        let b2 = backend(&e2);
        let mut t2 = b2.begin(RC);
        update(&e2, &r2, &mut t2, 1, |_| 12).unwrap();
        t2.commit().unwrap();
    });
    assert_blocked(&t2);
    t1.commit().unwrap();
    t2.recv().unwrap();
    let b3 = backend(&engine);
    assert_eq!(values(&engine, &rel, &mut b3.begin(RC)), vec![(1, "12".into()), (2, "20".into())]);
}

#[test]
fn g1a_aborted_reads_are_impossible() {
    let (_dir, engine, rel) = setup();
    let b1 = backend(&engine);
    let b2 = backend(&engine);
    let mut t1 = b1.begin(RC);
    update(&engine, &rel, &mut t1, 1, |_| 101).unwrap();
    let mut t2 = b2.begin(RC);
    assert_eq!(values(&engine, &rel, &mut t2)[0], (1, "10".into()));
    t1.rollback();
    assert_eq!(values(&engine, &rel, &mut t2)[0], (1, "10".into()));
}

#[test]
fn g1b_intermediate_reads_are_impossible() {
    let (_dir, engine, rel) = setup();
    let (b1, b2) = (backend(&engine), backend(&engine));
    let mut t1 = b1.begin(RC);
    update(&engine, &rel, &mut t1, 1, |_| 101).unwrap();
    let mut t2 = b2.begin(RC);
    assert_eq!(values(&engine, &rel, &mut t2)[0], (1, "10".into()));
    update(&engine, &rel, &mut t1, 1, |_| 11).unwrap();
    t1.commit().unwrap();
    assert_eq!(values(&engine, &rel, &mut t2)[0], (1, "11".into()), "only the final value");
}

#[test]
fn g1c_circular_information_flow_is_impossible() {
    let (_dir, engine, rel) = setup();
    let (b1, b2) = (backend(&engine), backend(&engine));
    let (mut t1, mut t2) = (b1.begin(RC), b2.begin(RC));
    update(&engine, &rel, &mut t1, 1, |_| 11).unwrap();
    update(&engine, &rel, &mut t2, 2, |_| 22).unwrap();
    assert_eq!(values(&engine, &rel, &mut t1)[1], (2, "20".into()));
    assert_eq!(values(&engine, &rel, &mut t2)[0], (1, "10".into()));
    t1.commit().unwrap();
    t2.commit().unwrap();
}

#[test]
fn p4_lost_update_read_committed_rechecks_newest_version() {
    let (_dir, engine, rel) = setup();
    let b1 = backend(&engine);
    let mut t1 = b1.begin(RC);
    update(&engine, &rel, &mut t1, 1, |v| v + 1).unwrap();
    let (e2, r2) = (engine.clone(), rel);
    let t2 = spawn(move || {
        let b2 = backend(&e2);
        let mut t2 = b2.begin(RC);
        update(&e2, &r2, &mut t2, 1, |v| v * 2).unwrap();
        t2.commit().unwrap();
    });
    assert_blocked(&t2);
    t1.commit().unwrap();
    t2.recv().unwrap();
    let b3 = backend(&engine);
    assert_eq!(
        values(&engine, &rel, &mut b3.begin(RC))[0],
        (1, "22".into()),
        "(10 + 1) * 2: no update lost"
    );
}

#[test]
fn p4_lost_update_repeatable_read_fails_with_40001() {
    let (_dir, engine, rel) = setup();
    let b1 = backend(&engine);
    let mut t1 = b1.begin(RR);
    update(&engine, &rel, &mut t1, 1, |v| v + 1).unwrap();
    let (e2, r2) = (engine.clone(), rel);
    let (ready_tx, ready_rx) = mpsc::channel();
    let t2 = spawn(move || {
        let b2 = backend(&e2);
        let mut t2 = b2.begin(RR);
        let _ = values(&e2, &r2, &mut t2);
        ready_tx.send(()).unwrap();
        update(&e2, &r2, &mut t2, 1, |v| v * 2)
    });
    ready_rx.recv().unwrap();
    assert_blocked(&t2);
    t1.commit().unwrap();
    let err = t2.recv().unwrap().unwrap_err();
    assert_eq!(err.sqlstate(), "40001");
    assert_eq!(err.to_string(), "could not serialize access due to concurrent update");
}

#[test]
fn repeatable_read_proceeds_when_the_holder_aborts() {
    let (_dir, engine, rel) = setup();
    let b1 = backend(&engine);
    let mut t1 = b1.begin(RC);
    update(&engine, &rel, &mut t1, 1, |_| 99).unwrap();
    let (e2, r2) = (engine.clone(), rel);
    let t2 = spawn(move || {
        let b2 = backend(&e2);
        let mut t2 = b2.begin(RR);
        update(&e2, &r2, &mut t2, 1, |v| v + 5).unwrap();
        t2.commit().unwrap();
    });
    assert_blocked(&t2);
    t1.rollback();
    t2.recv().unwrap();
    assert_eq!(values(&engine, &rel, &mut backend(&engine).begin(RC))[0], (1, "15".into()));
}

#[test]
fn read_committed_delete_of_a_deleted_row_is_skipped() {
    let (_dir, engine, rel) = setup();
    let b1 = backend(&engine);
    let mut t1 = b1.begin(RC);
    let (tid, _) = tid_of(&engine, &rel, &mut t1, 2);
    let deleted =
        delete_row(&engine, &rel, &mut t1, tid, |_| sluice_access::Result::Ok(true), NEVER);
    assert_eq!(deleted.unwrap(), RowDeleted::AsFound);
    let e2 = engine.clone();
    let t2 = spawn(move || {
        let b2 = backend(&e2);
        let mut t2 = b2.begin(RC);
        delete_row(&e2, &rel, &mut t2, tid, |_| sluice_access::Result::Ok(true), NEVER).unwrap()
    });
    assert_blocked(&t2);
    t1.commit().unwrap();
    assert_eq!(t2.recv().unwrap(), RowDeleted::Nothing, "nothing left to delete");
}

#[test]
fn a_read_committed_delete_returns_the_version_it_deleted() {
    let (_dir, engine, rel) = setup();
    let b1 = backend(&engine);
    let mut t1 = b1.begin(RC);
    let mut t2 = backend(&engine).begin(RC);
    let (tid, _) = tid_of(&engine, &rel, &mut t2, 1);
    assert!(update(&engine, &rel, &mut t1, 1, |v| v + 5).unwrap());
    let e2 = engine.clone();
    let t2 = spawn(move || {
        delete_row(&e2, &rel, &mut t2, tid, |_| sluice_access::Result::Ok(true), NEVER).unwrap()
    });
    assert_blocked(&t2);
    t1.commit().unwrap();
    let RowDeleted::Newer(version) = t2.recv().unwrap() else {
        panic!("deleted the newer version")
    };
    assert_eq!(decode(&version).1, "15", "RETURNING shows the version deleted, not the one found");
}

/// The race of two updaters: the second looked at the version while the
/// first was still running, and asks who holds it after the first
/// committed. The committed updater left a successor; dropping it as an
/// ended holder would let the second stamp its xmax over the first's.
#[test]
fn an_updater_that_committed_since_the_check_makes_the_writer_look_again() {
    let (_dir, engine, rel) = setup();
    let mut t2 = backend(&engine).begin(RC);
    let (tid, _) = tid_of(&engine, &rel, &mut t2, 1);
    let mut t1 = backend(&engine).begin(RC);
    assert!(update(&engine, &rel, &mut t1, 1, |v| v + 1).unwrap());
    t1.commit().unwrap();
    let tag = BufferTag::new(rel.locator, ForkNumber::Main, tid.block);
    let version = engine.pool().read_buffer(tag).unwrap().read().item(tid.offset).unwrap().to_vec();
    let xid = t2.assign_xid();
    let ctx = VisibilityContext::for_transaction(&mut t2, engine.txns());
    let hdr = HeapTupleHeader::new(&version[..]).unwrap();
    for want in [MultiXactStatus::NoKeyUpdate, MultiXactStatus::Update, MultiXactStatus::ForShare] {
        assert_eq!(plan(&hdr, &ctx, xid, want).unwrap(), Plan::Recheck, "{want:?}");
    }
}

#[test]
fn pmp_predicate_many_preceders() {
    let (_dir, engine, rel) = setup();
    let (b1, b2) = (backend(&engine), backend(&engine));
    let mut rr = b1.begin(RR);
    let mut rc = b2.begin(RC);
    assert_eq!(values(&engine, &rel, &mut rr).len(), 2);
    assert_eq!(values(&engine, &rel, &mut rc).len(), 2);
    insert_committed(&engine, &rel, [3]);
    assert_eq!(values(&engine, &rel, &mut rr).len(), 2, "REPEATABLE READ keeps its snapshot");
    assert_eq!(values(&engine, &rel, &mut rc).len(), 3, "READ COMMITTED sees the new row");
}

#[test]
fn g_single_read_skew_is_impossible_under_repeatable_read() {
    let (_dir, engine, rel) = setup();
    let (b1, b2) = (backend(&engine), backend(&engine));
    let mut t1 = b1.begin(RR);
    assert_eq!(values(&engine, &rel, &mut t1)[0], (1, "10".into()));
    let mut t2 = b2.begin(RC);
    update(&engine, &rel, &mut t2, 1, |_| 12).unwrap();
    update(&engine, &rel, &mut t2, 2, |_| 18).unwrap();
    t2.commit().unwrap();
    assert_eq!(values(&engine, &rel, &mut t1), vec![(1, "10".into()), (2, "20".into())]);
}

#[test]
fn g2_item_write_skew_is_allowed_as_in_postgres_repeatable_read() {
    let (_dir, engine, rel) = setup();
    let (b1, b2) = (backend(&engine), backend(&engine));
    let (mut t1, mut t2) = (b1.begin(RR), b2.begin(RR));
    assert_eq!(values(&engine, &rel, &mut t1).len(), 2);
    assert_eq!(values(&engine, &rel, &mut t2).len(), 2);
    update(&engine, &rel, &mut t1, 1, |_| 11).unwrap();
    update(&engine, &rel, &mut t2, 2, |_| 21).unwrap();
    t1.commit().unwrap();
    t2.commit().unwrap();
    assert_eq!(
        values(&engine, &rel, &mut backend(&engine).begin(RC)),
        vec![(1, "11".into()), (2, "21".into())]
    );
}

#[test]
fn rollback_does_no_undo_work() {
    let (_dir, engine, rel) = setup();
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    for i in 100..20_100 {
        heap_insert(&engine, &rel, &mut txn, &seed_row(i)).unwrap();
    }
    let (wal_before, pool_before) = (engine.wal().stats(), engine.pool().stats());
    txn.rollback();
    let (wal_after, pool_after) = (engine.wal().stats(), engine.pool().stats());
    assert_eq!(wal_after.records, wal_before.records + 1, "one abort record, nothing else");
    assert_eq!(pool_after, pool_before, "no page touched");
    assert_eq!(visible_ids(&engine, &rel), vec![1, 2]);
}

#[test]
fn updates_across_pages_keep_the_chain() {
    let (_dir, engine, rel) = setup();
    insert_committed(&engine, &rel, 3..=200);
    let be = backend(&engine);
    let mut txn = be.begin(RC);
    // A 1000-byte version cannot fit in what page 0 has left.
    let (tid, current) = tid_of(&engine, &rel, &mut txn, 1);
    let big = row(1, "1000", &"y".repeat(1000));
    let new_tid = update_row(
        &engine,
        &rel,
        &mut txn,
        tid,
        |_| sluice_access::Result::Ok(Some(big.clone())),
        &current,
        &|_, _| true,
        NEVER,
    )
    .unwrap();
    assert_ne!(new_tid.unwrap().tid.block, 0, "the new version went to another page");
    txn.commit().unwrap();
    assert_eq!(visible_ids(&engine, &rel), (1..=200).collect::<Vec<_>>());
    let mut reader = backend(&engine).begin(RC);
    assert_eq!(values(&engine, &rel, &mut reader)[0], (1, "1000".into()));
}

#[test]
fn row_locks_block_writers_and_honour_nowait_and_skip_locked() {
    use sluice_access::heap::heapam::{LockWaitPolicy, TmFailure};
    use sluice_access::heap::tuplock::{heap_lock_tuple, RowLockTarget, TupleLockMode};
    let (_dir, engine, rel) = setup();
    let b1 = backend(&engine);
    let mut t1 = b1.begin(RC);
    let (tid, _) = tid_of(&engine, &rel, &mut t1, 1);
    let row = |tid| RowLockTarget { database: 5, relation: 16384, tid };
    assert_eq!(
        heap_lock_tuple(
            &engine,
            &rel,
            &mut t1,
            row(tid),
            TupleLockMode::Update,
            LockWaitPolicy::Block,
            NEVER
        )
        .unwrap(),
        Ok(())
    );
    assert_eq!(
        heap_lock_tuple(
            &engine,
            &rel,
            &mut t1,
            row(tid),
            TupleLockMode::Update,
            LockWaitPolicy::Nowait,
            NEVER
        )
        .unwrap(),
        Ok(()),
        "re-lock"
    );
    let b2 = backend(&engine);
    let mut t2 = b2.begin(RC);
    assert_eq!(values(&engine, &rel, &mut t2)[0], (1, "10".into()), "readers are not blocked");
    for policy in [LockWaitPolicy::Nowait, LockWaitPolicy::SkipLocked] {
        assert_eq!(
            heap_lock_tuple(&engine, &rel, &mut t2, row(tid), TupleLockMode::Update, policy, NEVER)
                .unwrap(),
            Err(TmFailure::WouldBlock)
        );
    }
    drop(t2);
    let e2 = engine.clone();
    let writer = spawn(move || {
        let b3 = backend(&e2);
        let mut t3 = b3.begin(RC);
        update(&e2, &rel, &mut t3, 1, |v| v + 1).unwrap();
        t3.commit().unwrap();
    });
    assert_blocked(&writer);
    t1.commit().unwrap();
    writer.recv().unwrap();
    assert_eq!(values(&engine, &rel, &mut backend(&engine).begin(RC))[0], (1, "11".into()));
}
