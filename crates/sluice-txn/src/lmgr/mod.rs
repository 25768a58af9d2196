//! The heavyweight lock manager: PostgreSQL's `storage/lmgr` (`lock.c`,
//! `lmgr.c`, `deadlock.c` and the lock waiting of `proc.c`).
//!
//! # The idea
//!
//! Heavyweight locks protect *objects* — tables, transactions, rows being
//! queued for, catalog objects — for as long as a transaction needs them. They
//! are not for guarding data structures for microseconds (mutexes and buffer
//! content locks do that), and unlike those they have queues, timeouts,
//! deadlock detection and a view (`pg_locks`).
//!
//! A lock is named by a [`LockTag`] and taken in one of eight [`LockMode`]s
//! whose conflict table is PostgreSQL's (`modes.rs`). The owner is a backend's
//! proc slot ([`LockOwner`]); locks are released all at once when its
//! transaction ends ([`LockManager::release_all`]), or one by one
//! ([`LockManager::release`]).
//!
//! # Granting and queueing
//!
//! ```text
//!   relation t:  granted  T1 AccessShare
//!                queue    T2 AccessExclusive   conflicts with T1's lock: waits
//!                         T3 AccessShare       compatible with T1, but T2 is
//!                                              ahead and conflicts: waits too
//!   T1 ends:     T2 is granted; T3 still waits (conflicts with T2)
//!   T2 ends:     T3 is granted
//! ```
//!
//! 1. A request is granted at once if it conflicts neither with a mode held
//!    by another owner nor with a mode anyone waits for. So a waiting
//!    `ACCESS EXCLUSIVE` (an `ALTER TABLE`) blocks later `ACCESS SHARE`s (plain
//!    `SELECT`s) instead of starving behind them — decision 8 of DESIGN.md.
//! 2. Otherwise it joins the queue at the end — except that an owner that
//!    already holds modes on the object which an earlier waiter wants goes in
//!    just before that waiter (who waits for it anyway), and is granted at once
//!    if nothing before that point conflicts. If that waiter in turn holds
//!    something the newcomer needs, it is a deadlock, reported at once.
//! 3. Re-acquiring a mode one holds is only counted (no shared state touched).
//! 4. On release, the queue is scanned in order; every waiter that conflicts
//!    neither with what is held nor with waiters still ahead of it is granted
//!    — by the releaser, on its behalf — and woken.
//!
//! # Waiting
//!
//! A waiter sleeps on its own condition variable ([`LockWaitParams`] says how
//! long it may). It polls its `interrupted` callback every 10 ms, gives up after
//! `lock_timeout`, and every `deadlock_timeout` (default 1 s) it runs the
//! deadlock detector (`deadlock.rs`), which fails the detecting waiter if its
//! wait closes a cycle. Every failure takes the request out of the queue and
//! wakes whoever that unblocks; what the owner already holds stays held.
//!
//! # Session locks and advisory locks
//!
//! A hold can be taken for the session ([`LockManager::acquire_session`])
//! instead of the transaction: it is counted apart from the transaction's
//! holds of the same lock, survives [`LockManager::release_all`], and goes
//! with [`LockManager::release_session`] or when the backend exits
//! ([`LockManager::release_backend`]). The `pg_advisory_*` functions lock
//! [`LockTag::Advisory`] tags in `ExclusiveLock` or `ShareLock` mode, for the
//! session or the transaction.
//!
//! # Transactions as locks
//!
//! Each transaction holds `ExclusiveLock` on its own [`LockTag::TransactionId`]
//! from the moment its xid is assigned until it ends; "wait for transaction
//! 567 to finish" is "take `ShareLock` on transaction 567, then release it"
//! (XactLockTableWait, [`crate::Transaction::wait_for_xid`]). So row-lock waits
//! are edges of the same wait-for graph as table-lock waits, and a deadlock
//! through both is found.
//!
//! # Locking
//!
//! * The table is split into 16 partitions by the hash of the tag, each one
//!   mutex around a map of lock objects. Acquire, release and wake-ups hold
//!   only the tag's partition.
//! * The deadlock detector and the views ([`LockManager::locks`],
//!   [`LockManager::blocking_pids`]) lock all partitions, always in index
//!   order, which is the only way two are ever held at once.
//! * Each owner's hold counts sit behind its own mutex, never held together
//!   with a partition mutex.
//! * A waiter checks its state and sleeps under its partition's mutex, and a
//!   releaser grants and notifies under the same mutex, so no wake-up can be
//!   lost. The `interrupted` callback runs with no lock manager mutex held.
//!
//! # Not here (yet)
//!
//! No fast path for weak relation locks (every lock goes through a partition;
//! `fastpath` is always false), no
//! virtual-xid locks, no lock groups for parallel query, and no wait-queue
//! rearrangement by the deadlock detector (see `deadlock.rs` for what that
//! changes).

mod deadlock;
mod error;
mod lock;
mod modes;
mod tags;
#[cfg(test)]
mod tests;
mod views;

pub use error::LockError;
pub use lock::LockManager;
pub use modes::LockMode;
pub use tags::LockTag;
pub use views::LockInfo;

use crate::procarray::ProcId;
use std::time::Duration;

/// PostgreSQL's default `deadlock_timeout`.
pub const DEFAULT_DEADLOCK_TIMEOUT: Duration = Duration::from_secs(1);

/// Who holds or awaits a lock: a backend, by its proc array slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LockOwner {
    /// The backend's proc slot: the owner's identity.
    pub proc: ProcId,
    /// The backend's process id, for `pg_locks`, `pg_blocking_pids` and
    /// deadlock reports.
    pub pid: u32,
}

/// How a lock request may wait (the `NOWAIT` clause and the `lock_timeout`,
/// `deadlock_timeout` settings, plus the backend's interrupt check).
#[derive(Clone, Copy)]
pub struct LockWaitParams<'a> {
    /// Fail with [`LockError::NotAvailable`] instead of waiting.
    pub nowait: bool,
    /// Fail with [`LockError::Timeout`] after waiting this long (`None`: no limit).
    pub lock_timeout: Option<Duration>,
    /// Wait this long before looking for a deadlock, and between looks.
    pub deadlock_timeout: Duration,
    /// Polled while waiting; true fails the wait with [`LockError::Interrupted`]
    /// (query cancel, statement timeout). Must be cheap.
    pub interrupted: &'a dyn Fn() -> bool,
}

impl<'a> LockWaitParams<'a> {
    /// Wait as long as needed, with PostgreSQL's default `deadlock_timeout`,
    /// stopping early only if `interrupted` says so.
    pub fn new(interrupted: &'a dyn Fn() -> bool) -> LockWaitParams<'a> {
        LockWaitParams {
            nowait: false,
            lock_timeout: None,
            deadlock_timeout: DEFAULT_DEADLOCK_TIMEOUT,
            interrupted,
        }
    }
}
