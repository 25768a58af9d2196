//! Transactions and the heavyweight lock manager together: the lock every
//! transaction holds on its xid, waiting for a transaction to end, deadlocks
//! through such waits, and a stress test of the lock manager's invariants.

use sluice_common::{Lsn, Xid};
use sluice_txn::lmgr::{LockError, LockManager, LockMode, LockOwner, LockTag, LockWaitParams};
use sluice_txn::{Clog, IsolationLevel, SynchronousCommit, TransactionManager, XidStatus};
use sluice_wal::{Wal, WalOptions, FIRST_LSN};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const NEVER: &dyn Fn() -> bool = &|| false;
const TABLE: LockTag = LockTag::Relation { database: 5, relation: 16384 };

fn manager(dir: &Path) -> Arc<TransactionManager> {
    let clog = Arc::new(Clog::open(dir).expect("clog"));
    let wal =
        Wal::open(&dir.join("pg_wal"), FIRST_LSN, Lsn::INVALID, FIRST_LSN, WalOptions::default())
            .expect("wal");
    let mgr = TransactionManager::new(clog, Arc::new(wal), Xid::FIRST_NORMAL, 16);
    mgr.set_synchronous_commit(SynchronousCommit::Off);
    Arc::new(mgr)
}

fn params(deadlock_timeout: Duration) -> LockWaitParams<'static> {
    LockWaitParams { deadlock_timeout, ..LockWaitParams::new(NEVER) }
}

/// Blocks until process `pid` waits for a lock.
fn until_waiting(locks: &LockManager, pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !locks.locks().iter().any(|l| l.owner.pid == pid && !l.granted) {
        assert!(Instant::now() < deadline, "process {pid} never started waiting");
        thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_transaction_holds_its_xid_lock_until_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = manager(dir.path());
    let backend = mgr.register_backend(4242).unwrap();
    let mut txn = backend.begin(IsolationLevel::ReadCommitted);
    txn.lock(TABLE, LockMode::AccessShare, &LockWaitParams::new(NEVER)).unwrap();
    let xid = txn.assign_xid();
    let mut shown: Vec<_> = mgr
        .lock_manager()
        .locks()
        .iter()
        .map(|l| (l.tag.locktype(), l.owner.pid, l.mode.name(), l.granted))
        .collect();
    shown.sort();
    assert_eq!(
        shown,
        [
            ("relation", 4242, "AccessShareLock", true),
            ("transactionid", 4242, "ExclusiveLock", true)
        ]
    );
    assert!(mgr.lock_manager().holds(
        backend.proc(),
        LockTag::TransactionId(xid),
        LockMode::Exclusive
    ));
    txn.rollback();
    assert!(mgr.lock_manager().locks().is_empty(), "rollback releases everything");
    let read_only = backend.begin(IsolationLevel::ReadCommitted);
    read_only.lock(TABLE, LockMode::AccessShare, &LockWaitParams::new(NEVER)).unwrap();
    read_only.commit().unwrap();
    assert!(mgr.lock_manager().locks().is_empty(), "commit without an xid releases too");
}

#[test]
fn waiting_for_a_transaction_returns_when_it_has_ended() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = manager(dir.path());
    let (b1, b2) = (mgr.register_backend(101).unwrap(), mgr.register_backend(102).unwrap());
    let mut t1 = b1.begin(IsolationLevel::ReadCommitted);
    let xid = t1.assign_xid();
    let t2 = b2.begin(IsolationLevel::ReadCommitted);
    thread::scope(|s| {
        let mgr = &mgr;
        let waiter = s.spawn(move || {
            t2.wait_for_xid(xid, &LockWaitParams::new(NEVER)).unwrap();
            let status = mgr.xid_status(xid).unwrap();
            t2.commit().unwrap();
            status
        });
        until_waiting(mgr.lock_manager(), 102);
        assert_eq!(mgr.lock_manager().blocking_pids(102), [101]);
        t1.commit().unwrap();
        assert_eq!(waiter.join().unwrap(), XidStatus::Committed, "woken to a final status");
    });
    let b3 = mgr.register_backend(103).unwrap();
    let t3 = b3.begin(IsolationLevel::ReadCommitted);
    t3.wait_for_xid(xid, &LockWaitParams::new(NEVER)).unwrap();
    assert!(mgr.lock_manager().locks().is_empty(), "the waiter's ShareLock is gone again");
}

#[test]
fn a_deadlock_through_a_transaction_wait_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let mgr = manager(dir.path());
    let (b1, b2) = (mgr.register_backend(201).unwrap(), mgr.register_backend(202).unwrap());
    let t1 = b1.begin(IsolationLevel::ReadCommitted);
    t1.lock(TABLE, LockMode::AccessExclusive, &params(Duration::from_millis(50))).unwrap();
    let mut t2 = b2.begin(IsolationLevel::ReadCommitted);
    let xid2 = t2.assign_xid();
    thread::scope(|s| {
        // T1 waits for T2 to end (as a row-lock wait would); T2 then wants the
        // table T1 holds. Only T1 checks soon, so T1 is the victim.
        let victim = s.spawn(move || {
            let result = t1.wait_for_xid(xid2, &params(Duration::from_millis(50)));
            t1.rollback();
            result
        });
        until_waiting(mgr.lock_manager(), 201);
        t2.lock(TABLE, LockMode::AccessExclusive, &params(Duration::from_secs(3600))).unwrap();
        let err = victim.join().unwrap().unwrap_err();
        assert_eq!(err.sqlstate(), "40P01");
        assert_eq!(
            err.detail(),
            Some(&*format!(
                "Process 201 waits for ShareLock on transaction {xid2}; blocked by process 202.\n\
                 Process 202 waits for AccessExclusiveLock on relation 16384 of database 5; \
                 blocked by process 201."
            ))
        );
        t2.commit().unwrap();
    });
    assert!(mgr.lock_manager().locks().is_empty());
}

/// A tiny xorshift generator: reproducible randomness without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// What the test threads believe they hold: always a subset of what the lock
/// manager has granted (entered after acquire returns, left before release).
type Shadow = Mutex<HashMap<LockTag, Vec<(usize, LockMode)>>>;

/// Records that `proc` holds `mode` on `tag`, failing if another owner holds a
/// conflicting mode at the same time.
fn enter(shadow: &Shadow, tag: LockTag, proc: usize, mode: LockMode) {
    let mut shadow = shadow.lock().unwrap();
    let holders = shadow.entry(tag).or_default();
    for &(other, held) in holders.iter() {
        assert!(other == proc || !mode.conflicts_with(held), "{mode} granted beside {held}");
    }
    holders.push((proc, mode));
}

/// Checks one consistent snapshot of pg_locks: no conflicting modes granted
/// to different owners on one object.
fn check_snapshot(locks: &LockManager) {
    let granted: Vec<_> = locks.locks().into_iter().filter(|l| l.granted).collect();
    for a in &granted {
        for b in granted.iter().filter(|b| b.tag == a.tag && b.owner != a.owner) {
            assert!(!a.mode.conflicts_with(b.mode), "pg_locks shows {a:?} beside {b:?}");
        }
    }
}

/// One stress thread: random acquires (some NOWAIT), releases and
/// transaction ends; a deadlock victim ends its transaction. Holds what it got
/// for a moment so that the threads meet. Returns how many times it was a
/// deadlock victim.
fn stress_worker(locks: &LockManager, shadow: &Shadow, me: LockOwner, iterations: usize) -> usize {
    let tags: Vec<LockTag> =
        (1..=4).map(|n| LockTag::Relation { database: 5, relation: n }).collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (me.proc as u64 + 1));
    let mut held: Vec<(LockTag, LockMode)> = Vec::new();
    let mut deadlocks = 0;
    let release_all = |held: &mut Vec<(LockTag, LockMode)>| {
        for holders in shadow.lock().unwrap().values_mut() {
            holders.retain(|&(proc, _)| proc != me.proc);
        }
        held.clear();
        locks.release_all(me.proc);
    };
    for _ in 0..iterations {
        match rng.below(10) {
            0..=5 => {
                let tag = tags[rng.below(4) as usize];
                let mode = LockMode::ALL[rng.below(8) as usize];
                let nowait = rng.below(8) == 0;
                let params = LockWaitParams { nowait, ..params(Duration::from_millis(10)) };
                match locks.acquire(me, tag, mode, &params) {
                    Ok(()) => {
                        enter(shadow, tag, me.proc, mode);
                        held.push((tag, mode));
                        thread::sleep(Duration::from_micros(rng.below(300)));
                    }
                    Err(LockError::Deadlock { .. }) => {
                        deadlocks += 1;
                        release_all(&mut held);
                    }
                    Err(LockError::NotAvailable(_)) => {}
                    Err(e) => panic!("unexpected {e}"),
                }
            }
            6..=8 if !held.is_empty() => {
                let (tag, mode) = held.swap_remove(rng.below(held.len() as u64) as usize);
                let mut shadow_map = shadow.lock().unwrap();
                let holders = shadow_map.get_mut(&tag).unwrap();
                let at = holders.iter().position(|&h| h == (me.proc, mode)).unwrap();
                holders.swap_remove(at);
                drop(shadow_map);
                assert!(locks.release(me.proc, tag, mode));
            }
            _ => {
                check_snapshot(locks);
                release_all(&mut held);
            }
        }
    }
    release_all(&mut held);
    deadlocks
}

#[test]
fn stress_never_grants_conflicting_modes_and_loses_no_wakeup() {
    const THREADS: usize = 8;
    let locks = Arc::new(LockManager::new(THREADS));
    let shadow: Arc<Shadow> = Arc::default();
    let start = Arc::new(Barrier::new(THREADS));
    let (done, finished) = mpsc::channel();
    for proc in 0..THREADS {
        let (locks, shadow, done) = (locks.clone(), shadow.clone(), done.clone());
        let start = start.clone();
        thread::spawn(move || {
            let me = LockOwner { proc, pid: 3000 + proc as u32 };
            start.wait();
            done.send(stress_worker(&locks, &shadow, me, 400)).unwrap();
        });
    }
    drop(done);
    let mut deadlocks = 0;
    for _ in 0..THREADS {
        match finished.recv_timeout(Duration::from_secs(120)) {
            Ok(n) => deadlocks += n,
            Err(e) => panic!("a stress thread panicked or never finished (lost wake-up?): {e}"),
        }
    }
    eprintln!("stress: {deadlocks} deadlock victims");
    assert!(locks.locks().is_empty(), "everything released");
}
