//! Subtransactions seen from outside: a subxid is resolved through the CSN
//! log like any xid, becomes visible with its top-level transaction's commit
//! (same CSN), stays invisible forever once rolled back, and rolling back to a
//! savepoint releases the locks taken since (its xid lock among them).

use sluice_common::{Lsn, Xid};
use sluice_txn::lmgr::{LockMode, LockTag, LockWaitParams};
use sluice_txn::{Clog, IsolationLevel, SynchronousCommit, TransactionManager, XidStatus};
use sluice_wal::{Wal, WalOptions, FIRST_LSN};
use std::path::Path;
use std::sync::Arc;

const NEVER: &dyn Fn() -> bool = &|| false;

fn manager(dir: &Path) -> Arc<TransactionManager> {
    let clog = Arc::new(Clog::open(dir).expect("clog"));
    let wal =
        Wal::open(&dir.join("pg_wal"), FIRST_LSN, Lsn::INVALID, FIRST_LSN, WalOptions::default())
            .expect("wal");
    let mgr = TransactionManager::new(clog, Arc::new(wal), Xid::FIRST_NORMAL, 16);
    mgr.set_synchronous_commit(SynchronousCommit::Off);
    Arc::new(mgr)
}

#[test]
fn subxids_commit_with_their_parent_and_rolled_back_ones_never() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = manager(dir.path());
    let (writer, reader) = (mgr.register_backend(1).unwrap(), mgr.register_backend(2).unwrap());
    let mut txn = writer.begin(IsolationLevel::ReadCommitted);
    let top = txn.assign_xid();
    let mut kept = Vec::new();
    for i in 0..1000 {
        txn.savepoint(&format!("s{i}"));
        kept.push(txn.assign_xid());
    }
    txn.savepoint("undone");
    let undone = txn.assign_xid();
    assert!(txn.is_current_xid(undone));
    txn.rollback_to("undone").unwrap();
    assert!(!txn.is_current_xid(undone), "a rolled-back subxid is not ours any more");
    assert!(txn.is_current_xid(kept[500]) && txn.is_current_xid(top));
    assert_eq!(mgr.xid_status(undone).unwrap(), XidStatus::Aborted);
    assert_eq!(mgr.proc_states().iter().find(|s| s.pid == 1).unwrap().subxacts, 1000);

    let mut before = reader.begin(IsolationLevel::RepeatableRead);
    let old_snap = before.snapshot();
    assert_eq!(mgr.xid_status(kept[999]).unwrap(), XidStatus::InProgress);
    txn.commit().unwrap();
    let mut after = reader.begin(IsolationLevel::RepeatableRead);
    let new_snap = after.snapshot();
    for &xid in kept.iter().chain([&top]) {
        assert_eq!(mgr.xid_status(xid).unwrap(), XidStatus::Committed);
        assert!(!mgr.xid_visible(xid, &old_snap).unwrap(), "{xid} committed after the snapshot");
        assert!(mgr.xid_visible(xid, &new_snap).unwrap());
    }
    assert!(!mgr.xid_visible(undone, &new_snap).unwrap());
    assert_eq!(mgr.clog().status(kept[0]).unwrap(), XidStatus::Committed);
    assert_eq!(mgr.clog().status(undone).unwrap(), XidStatus::Aborted);
    before.rollback();
    after.rollback();
}

#[test]
fn rollback_to_releases_the_locks_taken_since_the_savepoint() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = manager(dir.path());
    let backend = mgr.register_backend(7).unwrap();
    let locks = mgr.lock_manager();
    let (before, inside) = (
        LockTag::Relation { database: 5, relation: 1 },
        LockTag::Relation { database: 5, relation: 2 },
    );
    let params = LockWaitParams::new(NEVER);
    let mut txn = backend.begin(IsolationLevel::ReadCommitted);
    txn.lock(before, LockMode::AccessExclusive, &params).unwrap();
    txn.savepoint("a");
    txn.lock(before, LockMode::AccessExclusive, &params).unwrap();
    txn.lock(inside, LockMode::RowExclusive, &params).unwrap();
    let subxid = txn.assign_xid();
    let proc = backend.proc();
    assert!(locks.holds(proc, LockTag::TransactionId(subxid), LockMode::Exclusive));
    txn.rollback_to("a").unwrap();
    assert!(locks.holds(proc, before, LockMode::AccessExclusive), "held before the savepoint");
    assert!(!locks.holds(proc, inside, LockMode::RowExclusive));
    assert!(!locks.holds(proc, LockTag::TransactionId(subxid), LockMode::Exclusive));
    // A released savepoint's locks stay until the transaction ends.
    txn.lock(inside, LockMode::RowExclusive, &params).unwrap();
    txn.release("a").unwrap();
    assert!(locks.holds(proc, inside, LockMode::RowExclusive));
    assert!(txn.release("a").is_err(), "released savepoints are gone");
    txn.commit().unwrap();
    assert!(!locks.holds(proc, inside, LockMode::RowExclusive));
}

#[test]
fn level_locks_and_internal_subtransactions_give_back_what_their_level_took() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = manager(dir.path());
    let backend = mgr.register_backend(8).unwrap();
    let (locks, proc) = (mgr.lock_manager(), backend.proc());
    let advisory = LockTag::Advisory { database: 5, key1: 0, key2: 1, form: 1 };
    let params = LockWaitParams::new(NEVER);
    let mut txn = backend.begin(IsolationLevel::ReadCommitted);
    // Taken through a handle made before the savepoint: logged at the level
    // current when it is taken, so ROLLBACK TO gives it back.
    let handle = txn.level_locks();
    txn.savepoint("a");
    handle.lock(advisory, LockMode::Exclusive, &params).unwrap();
    txn.rollback_to("a").unwrap();
    assert!(!locks.holds(proc, advisory, LockMode::Exclusive));

    // An internal subtransaction ends without reopening.
    txn.savepoint("");
    handle.lock(advisory, LockMode::Share, &params).unwrap();
    assert_eq!(txn.rollback_innermost(), Ok(2));
    assert!(!locks.holds(proc, advisory, LockMode::Share));
    assert_eq!(txn.savepoint_depth(), 1);
    txn.savepoint("");
    handle.lock(advisory, LockMode::Share, &params).unwrap();
    assert_eq!(txn.release_innermost(), Ok(2));
    txn.rollback_to("a").unwrap();
    assert!(!locks.holds(proc, advisory, LockMode::Share), "released into the rolled-back level");
    txn.release("a").unwrap();
    assert!(txn.rollback_innermost().is_err(), "no level left");
    handle.lock(advisory, LockMode::Exclusive, &params).unwrap();
    txn.commit().unwrap();
    assert!(!locks.holds(proc, advisory, LockMode::Exclusive));
}
