//! Behaviour of the lock manager as PostgreSQL users know it: counting,
//! FIFO queues, queue jumping, timeouts, deadlocks, `pg_locks`.

use super::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

const NEVER: &dyn Fn() -> bool = &|| false;

fn owner(proc: ProcId) -> LockOwner {
    LockOwner { proc, pid: 1000 + proc as u32 }
}

fn rel(relation: u32) -> LockTag {
    LockTag::Relation { database: 5, relation }
}

/// Waiting with a short deadlock_timeout, as in every test here.
fn wait() -> LockWaitParams<'static> {
    LockWaitParams { deadlock_timeout: Duration::from_millis(50), ..LockWaitParams::new(NEVER) }
}

/// Blocks until `who` is queued on some lock (tests start waiters in threads).
fn until_waiting(mgr: &LockManager, who: LockOwner) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !mgr.locks().iter().any(|l| l.owner == who && !l.granted) {
        assert!(Instant::now() < deadline, "{who:?} never started waiting");
        thread::sleep(Duration::from_millis(2));
    }
}

/// `(pid, mode, granted)` of every row for `tag`, holders first.
fn rows(mgr: &LockManager, tag: LockTag) -> Vec<(u32, LockMode, bool)> {
    let mut rows: Vec<_> = mgr
        .locks()
        .into_iter()
        .filter(|l| l.tag == tag)
        .map(|l| (l.owner.pid, l.mode, l.granted))
        .collect();
    rows.sort_by_key(|&(pid, mode, granted)| (!granted, pid, mode));
    rows
}

#[test]
fn reacquiring_is_counted_and_own_modes_never_conflict() {
    let mgr = LockManager::new(4);
    let (a, t) = (owner(0), rel(1));
    mgr.acquire(a, t, LockMode::AccessShare, &wait()).unwrap();
    mgr.acquire(a, t, LockMode::AccessShare, &wait()).unwrap();
    mgr.acquire(a, t, LockMode::AccessExclusive, &wait()).unwrap();
    assert_eq!(
        rows(&mgr, t),
        [(1000, LockMode::AccessShare, true), (1000, LockMode::AccessExclusive, true)]
    );
    assert!(mgr.release(0, t, LockMode::AccessShare));
    assert!(mgr.holds(0, t, LockMode::AccessShare), "acquired twice, released once");
    assert!(mgr.release(0, t, LockMode::AccessShare));
    assert!(!mgr.release(0, t, LockMode::AccessShare), "not held any more");
    mgr.release_all(0);
    assert!(mgr.locks().is_empty(), "unused lock objects are removed");
}

#[test]
fn waiting_access_exclusive_blocks_later_access_share_and_grants_in_order() {
    let mgr = LockManager::new(4);
    let t = rel(16384);
    let (a, b, c) = (owner(0), owner(1), owner(2));
    mgr.acquire(a, t, LockMode::AccessShare, &wait()).unwrap();
    let (done, granted) = mpsc::channel();
    thread::scope(|s| {
        let done_b = done.clone();
        let mgr = &mgr;
        s.spawn(move || {
            mgr.acquire(b, t, LockMode::AccessExclusive, &wait()).unwrap();
            done_b.send("b").unwrap();
            thread::sleep(Duration::from_millis(30));
            mgr.release_all(b.proc);
        });
        until_waiting(mgr, b);
        s.spawn(move || {
            mgr.acquire(c, t, LockMode::AccessShare, &wait()).unwrap();
            done.send("c").unwrap();
            mgr.release_all(c.proc);
        });
        until_waiting(mgr, c);
        assert_eq!(
            rows(mgr, t),
            [
                (1000, LockMode::AccessShare, true),
                (1001, LockMode::AccessExclusive, false),
                (1002, LockMode::AccessShare, false)
            ]
        );
        assert_eq!(mgr.blocking_pids(1001), [1000]);
        assert_eq!(mgr.blocking_pids(1002), [1001], "blocked by the earlier waiter only");
        assert!(mgr.blocking_pids(1000).is_empty());
        mgr.release_all(a.proc);
    });
    assert_eq!(granted.iter().collect::<Vec<_>>(), ["b", "c"]);
    assert!(mgr.locks().is_empty());
}

#[test]
fn a_holder_jumps_ahead_of_waiters_that_wait_for_it() {
    let mgr = LockManager::new(4);
    let t = rel(1);
    let (a, b, c) = (owner(0), owner(1), owner(2));
    mgr.acquire(a, t, LockMode::AccessShare, &wait()).unwrap();
    mgr.acquire(c, t, LockMode::RowExclusive, &wait()).unwrap();
    thread::scope(|s| {
        let mgr = &mgr;
        s.spawn(move || mgr.acquire(b, t, LockMode::AccessExclusive, &wait()).unwrap());
        until_waiting(mgr, b);
        // Nothing ahead of B conflicts with RowShare: granted at once.
        mgr.acquire(a, t, LockMode::RowShare, &wait()).unwrap();
        // Share conflicts with C's RowExclusive: A queues, but before B.
        s.spawn(move || mgr.acquire(a, t, LockMode::Share, &wait()).unwrap());
        until_waiting(mgr, a);
        let queue: Vec<u32> =
            mgr.locks().iter().filter(|l| !l.granted).map(|l| l.owner.pid).collect();
        assert_eq!(queue, [1000, 1001]);
        mgr.release_all(c.proc);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !mgr.holds(a.proc, t, LockMode::Share) {
            assert!(Instant::now() < deadline, "A was not granted ahead of B");
            thread::sleep(Duration::from_millis(2));
        }
        assert!(rows(mgr, t).contains(&(1001, LockMode::AccessExclusive, false)));
        mgr.release_all(a.proc);
    });
    assert!(mgr.holds(b.proc, t, LockMode::AccessExclusive));
}

#[test]
fn mutual_upgrades_are_a_deadlock_at_once() {
    let mgr = LockManager::new(4);
    let t = rel(16384);
    let (a, b) = (owner(0), owner(1));
    mgr.acquire(a, t, LockMode::AccessShare, &wait()).unwrap();
    mgr.acquire(b, t, LockMode::AccessShare, &wait()).unwrap();
    thread::scope(|s| {
        let mgr = &mgr;
        let waiter = s.spawn(move || mgr.acquire(b, t, LockMode::AccessExclusive, &wait()));
        until_waiting(mgr, b);
        let patient = LockWaitParams { deadlock_timeout: Duration::from_secs(3600), ..wait() };
        let started = Instant::now();
        let err = mgr.acquire(a, t, LockMode::AccessExclusive, &patient).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(60), "found without a deadlock check");
        assert_eq!(
            err.detail(),
            Some(
                "Process 1000 waits for AccessExclusiveLock on relation 16384 of database 5; \
                 blocked by process 1001.\n\
                 Process 1001 waits for AccessExclusiveLock on relation 16384 of database 5; \
                 blocked by process 1000."
            )
        );
        mgr.release_all(a.proc);
        waiter.join().unwrap().unwrap();
    });
}

#[test]
fn a_deadlock_of_table_locks_has_exactly_one_victim() {
    let mgr = LockManager::new(4);
    let (a, b) = (owner(0), owner(1));
    mgr.acquire(a, rel(1), LockMode::AccessExclusive, &wait()).unwrap();
    mgr.acquire(b, rel(2), LockMode::AccessExclusive, &wait()).unwrap();
    let results: Vec<Result<(), LockError>> = thread::scope(|s| {
        let mgr = &mgr;
        let run = |me: LockOwner, want: LockTag| {
            s.spawn(move || {
                let started = Instant::now();
                let result = mgr.acquire(me, want, LockMode::AccessExclusive, &wait());
                if result.is_err() {
                    assert!(started.elapsed() >= Duration::from_millis(50), "deadlock_timeout");
                }
                mgr.release_all(me.proc); // the transaction ends either way
                result
            })
        };
        let ta = run(a, rel(2));
        let tb = run(b, rel(1));
        [ta.join().unwrap(), tb.join().unwrap()].into()
    });
    let victims: Vec<_> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(victims.len(), 1, "{results:?}");
    let LockError::Deadlock { detail } = victims[0] else { panic!("{victims:?}") };
    let (victim, survivor, victim_wants, survivor_wants) =
        if results[0].is_err() { (1000, 1001, 2, 1) } else { (1001, 1000, 1, 2) };
    assert_eq!(
        *detail,
        format!(
            "Process {victim} waits for AccessExclusiveLock on relation {victim_wants} of \
             database 5; blocked by process {survivor}.\n\
             Process {survivor} waits for AccessExclusiveLock on relation {survivor_wants} of \
             database 5; blocked by process {victim}."
        )
    );
    assert!(mgr.locks().is_empty());
}

#[test]
fn lock_timeout_gives_up_and_unblocks_those_behind() {
    let mgr = LockManager::new(4);
    let t = rel(1);
    let (a, b, c) = (owner(0), owner(1), owner(2));
    mgr.acquire(a, t, LockMode::AccessShare, &wait()).unwrap();
    thread::scope(|s| {
        let mgr = &mgr;
        let timed = s.spawn(move || {
            let params =
                LockWaitParams { lock_timeout: Some(Duration::from_millis(100)), ..wait() };
            mgr.acquire(b, t, LockMode::AccessExclusive, &params)
        });
        until_waiting(mgr, b);
        let behind = s.spawn(move || mgr.acquire(c, t, LockMode::AccessShare, &wait()));
        assert_eq!(timed.join().unwrap(), Err(LockError::Timeout));
        behind.join().unwrap().unwrap();
    });
    assert_eq!(
        rows(&mgr, t),
        [(1000, LockMode::AccessShare, true), (1002, LockMode::AccessShare, true)]
    );
}

#[test]
fn nowait_fails_without_queueing() {
    let mgr = LockManager::new(4);
    let t = rel(1);
    mgr.acquire(owner(0), t, LockMode::RowExclusive, &wait()).unwrap();
    let nowait = LockWaitParams { nowait: true, ..wait() };
    assert_eq!(mgr.acquire(owner(1), t, LockMode::Share, &nowait), Err(LockError::NotAvailable(t)));
    mgr.acquire(owner(1), t, LockMode::RowExclusive, &nowait).unwrap();
    assert_eq!(rows(&mgr, t).len(), 2, "no waiter left behind");
}

#[test]
fn interrupts_end_a_wait() {
    let mgr = LockManager::new(4);
    let t = rel(1);
    mgr.acquire(owner(0), t, LockMode::AccessExclusive, &wait()).unwrap();
    let cancel = AtomicBool::new(false);
    thread::scope(|s| {
        let (mgr, cancel) = (&mgr, &cancel);
        let waiter = s.spawn(move || {
            let interrupted = || cancel.load(Ordering::Relaxed);
            mgr.acquire(owner(1), t, LockMode::AccessShare, &LockWaitParams::new(&interrupted))
        });
        until_waiting(mgr, owner(1));
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(waiter.join().unwrap(), Err(LockError::Interrupted));
    });
    assert_eq!(rows(&mgr, t), [(1000, LockMode::AccessExclusive, true)]);
}

#[test]
fn release_all_wakes_every_waiter() {
    let mgr = LockManager::new(8);
    let holder = owner(0);
    for n in 1..=3 {
        mgr.acquire(holder, rel(n), LockMode::AccessExclusive, &wait()).unwrap();
    }
    thread::scope(|s| {
        let mgr = &mgr;
        let waiters: Vec<_> = (1..=3)
            .map(|n| {
                let me = owner(n as usize);
                s.spawn(move || mgr.acquire(me, rel(n), LockMode::AccessShare, &wait()))
            })
            .collect();
        for n in 1..=3 {
            until_waiting(mgr, owner(n));
        }
        mgr.release_all(holder.proc);
        for w in waiters {
            w.join().unwrap().unwrap();
        }
    });
    let mut granted: Vec<u32> = mgr.locks().iter().map(|l| l.owner.pid).collect();
    granted.sort();
    assert_eq!(granted, [1001, 1002, 1003]);
}

#[test]
fn pg_locks_shows_holders_and_waiters() {
    let mgr = LockManager::new(4);
    let xid = LockTag::TransactionId(sluice_common::Xid(567));
    mgr.acquire(owner(0), xid, LockMode::Exclusive, &wait()).unwrap();
    let before = std::time::SystemTime::now();
    thread::scope(|s| {
        let mgr = &mgr;
        s.spawn(move || mgr.acquire(owner(1), xid, LockMode::Share, &wait()).unwrap());
        until_waiting(mgr, owner(1));
        let mut locks = mgr.locks();
        locks.sort_by_key(|l| !l.granted);
        let [held, awaited] = &locks[..] else { panic!("{locks:?}") };
        assert_eq!(
            (held.tag.locktype(), held.tag.transactionid()),
            ("transactionid", Some(sluice_common::Xid(567)))
        );
        assert_eq!((held.owner.pid, held.mode.name(), held.granted), (1000, "ExclusiveLock", true));
        assert_eq!((held.fastpath, held.waitstart), (false, None));
        assert_eq!(
            (awaited.owner.pid, awaited.mode.name(), awaited.granted),
            (1001, "ShareLock", false)
        );
        assert!(awaited.waitstart.is_some_and(|t| t >= before));
        mgr.release_all(0);
    });
}

#[test]
fn session_locks_outlive_transactions_and_conflicts_are_listed() {
    let mgr = LockManager::new(4);
    let (a, b, t) = (owner(0), owner(1), rel(1));
    mgr.acquire_session(a, t, LockMode::ShareUpdateExclusive, &wait()).unwrap();
    mgr.acquire(a, t, LockMode::AccessShare, &wait()).unwrap();
    mgr.acquire(b, t, LockMode::RowExclusive, &wait()).unwrap();
    // A ShareLock request would wait for the writer, not for the session lock.
    assert_eq!(mgr.conflicting_holders(t, LockMode::Share, 0), vec![b]);
    mgr.release_all(0);
    assert!(mgr.holds(0, t, LockMode::ShareUpdateExclusive), "the session lock stays");
    assert!(!mgr.holds(0, t, LockMode::AccessShare), "the transaction's lock goes");
    let nowait = LockWaitParams { nowait: true, ..wait() };
    let c = owner(2);
    assert!(mgr.acquire(c, t, LockMode::ShareUpdateExclusive, &nowait).is_err());
    assert!(mgr.release_session(0, t, LockMode::ShareUpdateExclusive));
    assert!(!mgr.release_session(0, t, LockMode::ShareUpdateExclusive));
    mgr.acquire(c, t, LockMode::ShareUpdateExclusive, &nowait).unwrap();
    mgr.release_all(1);
    mgr.release_all(2);
    assert!(rows(&mgr, t).is_empty());
}

#[test]
fn session_holds_are_counted_apart_from_the_transactions() {
    let mgr = LockManager::new(2);
    let (a, b) = (owner(0), owner(1));
    let key = LockTag::Advisory { database: 5, key1: 0, key2: 7, form: 1 };
    let x = LockMode::Exclusive;
    mgr.acquire_session(a, key, x, &wait()).unwrap();
    mgr.acquire_session(a, key, x, &wait()).unwrap();
    mgr.acquire(a, key, x, &wait()).unwrap();
    mgr.release_all(0);
    let nowait = LockWaitParams { nowait: true, ..wait() };
    assert!(mgr.acquire(b, key, x, &nowait).is_err(), "both session holds survive");
    assert!(mgr.release_session(0, key, x));
    assert!(mgr.acquire(b, key, x, &nowait).is_err(), "one session hold is left");
    assert!(mgr.release_session(0, key, x));
    assert!(!mgr.release_session(0, key, x), "nothing left to give back");
    mgr.acquire(b, key, x, &nowait).unwrap();
    mgr.release_all(1);
    // Unlock-all and backend exit drop every session hold at once.
    mgr.acquire_session(a, key, x, &wait()).unwrap();
    mgr.acquire_session(a, key, x, &wait()).unwrap();
    mgr.release_session_where(0, |tag| matches!(tag, LockTag::Advisory { .. }));
    assert!(mgr.locks().is_empty());
    mgr.acquire_session(a, key, x, &wait()).unwrap();
    mgr.release_backend(0);
    assert!(mgr.locks().is_empty() && mgr.held_by(0).is_empty());
}
