//! Transactions: beginning, xid assignment, snapshots, commit and rollback
//! (PostgreSQL's `xact.c`, `varsup.c` and `snapmgr.c` in one place).
//!
//! # Life of a transaction
//!
//! ```text
//!  begin ──► (first write) assign xid ──► ... ──► commit ──► visible at its CSN
//!                                            └──► rollback (constant time)
//! ```
//!
//! * **Lazy xids.** A transaction gets an xid only when it first writes; read-only
//!   transactions never touch the commit log or WAL.
//! * **Commit**: write the commit record, flush it as `synchronous_commit` says,
//!   record "committed" in the commit log, take a CSN (which is the moment the
//!   changes become visible), leave the proc array, then release the
//!   transaction's heavyweight locks — among them the lock on its own xid,
//!   which wakes everybody waiting for it to end (PostgreSQL's order: nobody
//!   woken can still see the transaction as running).
//! * **Rollback** does no undo: the transaction's row versions stay where they
//!   are and become invisible because the commit log says "aborted". Cleaning
//!   them up is pruning's and VACUUM's job. So rolling back a million-row update
//!   takes the same time as rolling back nothing (seed 000: 1 ms).
//!
//! # Visibility questions answered here
//!
//! [`TransactionManager::xid_status`] says whether an xid is running, committed
//! or aborted; [`TransactionManager::xid_visible`] whether its commit precedes a
//! snapshot. Heap visibility (`sluice-access`) combines them with hint bits,
//! command ids and the tuple header.
//!
//! # Locks
//!
//! A transaction takes heavyweight locks as its backend ([`Transaction::lock`]);
//! all are released when it ends. From xid assignment on it holds
//! `ExclusiveLock` on its xid, taken before the xid is published anywhere, so
//! the lock exists before anybody can want to wait for the transaction, and
//! [`Transaction::wait_for_xid`] needs no retry loop.

use crate::clog::{Clog, XidStatus};
use crate::combocid::ComboCids;
use crate::csnlog::{Csn, CsnLog};
use crate::error::{Result, TxnError};
use crate::inval::CatalogChanges;
use crate::lmgr::{
    LockError, LockManager, LockMode, LockOwner, LockTag, LockWaitParams, DEFAULT_DEADLOCK_TIMEOUT,
};
use crate::multixact::{MultiXactId, MultiXactMember, MultiXacts};
use crate::procarray::{Horizon, ProcArray, ProcId, ProcState};
use crate::snapshot::{CommandId, Snapshot};
use parking_lot::{Mutex, RwLock, RwLockWriteGuard};
use sluice_common::{RmgrId, Xid};
use sluice_wal::{RecordBuilder, Wal};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub mod subxact;
pub mod twophase;
use subxact::{Level, OwnXids};

/// WAL info byte of a commit record (rmgr Xact).
pub const XLOG_XACT_COMMIT: u8 = 0x00;
/// WAL info byte of an abort record (rmgr Xact).
pub const XLOG_XACT_ABORT: u8 = 0x20;

/// Transaction isolation levels (SERIALIZABLE behaves as REPEATABLE READ for now).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsolationLevel {
    /// A new snapshot for every statement.
    ReadCommitted,
    /// One snapshot for the whole transaction.
    RepeatableRead,
}

/// The `synchronous_commit` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SynchronousCommit {
    /// The commit record is flushed before COMMIT returns.
    On = 0,
    /// As `On` (there are no standbys yet to wait for).
    Local = 1,
    /// COMMIT returns at once; the WAL writer flushes within `wal_writer_delay`.
    Off = 2,
}

/// How a transaction ends, as far as the manager's bookkeeping cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Committed,
    /// Committed, with catalog rows among its changes (caches go stale).
    CommittedCatalogChanges,
    Aborted,
}

/// The transaction manager: xid and CSN counters, the commit and CSN logs, the
/// proc array and the lock manager.
pub struct TransactionManager {
    clog: Arc<Clog>,
    csnlog: CsnLog,
    procarray: ProcArray,
    locks: LockManager,
    next_xid: AtomicU64,
    next_csn: AtomicU64,
    wal: Arc<Wal>,
    synchronous_commit: AtomicU8,
    /// Held shared from writing a commit record until the commit log shows the
    /// commit; a checkpoint takes it exclusive while it fixes its redo point. So a
    /// commit record before the redo point always has its commit log entry in the
    /// commit log pages the checkpoint writes (PostgreSQL's DELAY_CHKPT_START).
    commit_barrier: RwLock<()>,
    /// The CSNs of catalog-changing commits, for catalog caches.
    catalog_changes: CatalogChanges,
    /// Prepared transactions (`twophase.rs`).
    twophase: twophase::TwoPhase,
    /// The horizon last computed, with the commit sequence number then
    /// current: see [`TransactionManager::horizon_since`].
    recent_horizon: Mutex<Option<(Csn, Horizon)>>,
    /// The multixact store, attached once recovery has brought it up to date.
    multixacts: std::sync::OnceLock<Arc<MultiXacts>>,
}

/// A registered backend: owns a proc array slot for as long as it lives.
pub struct Backend {
    mgr: Arc<TransactionManager>,
    proc: ProcId,
    pid: u32,
}

/// Says whether a statement has been cancelled or has timed out.
pub type InterruptFlag = Arc<dyn Fn() -> bool + Send + Sync>;

/// A transaction in progress. Dropping it without committing rolls it back.
pub struct Transaction {
    backend: Arc<Backend>,
    isolation: IsolationLevel,
    xid: Option<Xid>,
    snapshot: Option<Snapshot>,
    /// The snapshot a referential check swapped out (crosscheck snapshot).
    crosscheck: Option<Snapshot>,
    cid: CommandId,
    /// Shared with running scans, copied on write (see `combocids`).
    combocids: Arc<ComboCids>,
    ended: bool,
    /// A snapshot was taken (PostgreSQL's FirstSnapshotSet): the isolation
    /// level is fixed from then on.
    first_snapshot_taken: bool,
    /// `lock_timeout` for row waits ([`Transaction::wait_for_xid`] callers
    /// that have no session at hand); `None` waits as long as it takes.
    lock_timeout: Option<Duration>,
    /// `deadlock_timeout` for those waits.
    deadlock_timeout: Duration,
    /// Whether the statement running has been cancelled or timed out, for
    /// the same waits (a catalog row write waiting for a row locker).
    interrupts: Option<InterruptFlag>,
    /// It wrote catalog rows (see `inval.rs`).
    catalog_written: bool,
    /// Open savepoints, outermost first (`subxact.rs`).
    levels: Vec<Level>,
    /// Live subxids (assigned and not rolled back).
    own_subxids: Arc<OwnXids>,
    /// Lock acquires made inside savepoints, with the level (1-based) that
    /// made them: what ROLLBACK TO gives back. Shared with the
    /// transaction's [`subxact::LevelLocks`] handles.
    lock_log: Arc<parking_lot::Mutex<subxact::LockLog>>,
}

impl TransactionManager {
    /// A manager that hands out xids from `next_xid` on. `clog` is the commit log
    /// recovery has brought up to date; `wal` is open for writing.
    pub fn new(
        clog: Arc<Clog>,
        wal: Arc<Wal>,
        next_xid: Xid,
        max_backends: usize,
    ) -> TransactionManager {
        let next_xid = next_xid.max(Xid::FIRST_NORMAL);
        clog.set_wal(wal.clone());
        TransactionManager {
            clog,
            csnlog: CsnLog::new(next_xid),
            procarray: ProcArray::new(max_backends),
            locks: LockManager::new(max_backends),
            next_xid: AtomicU64::new(next_xid.0),
            next_csn: AtomicU64::new(Csn::FIRST.0),
            wal,
            synchronous_commit: AtomicU8::new(SynchronousCommit::On as u8),
            commit_barrier: RwLock::new(()),
            catalog_changes: CatalogChanges::default(),
            twophase: Default::default(),
            recent_horizon: Mutex::new(None),
            multixacts: std::sync::OnceLock::new(),
        }
    }

    /// attach_multixacts -- hands the manager the multixact store recovery
    /// replayed into (once, at startup); its SLRU writes wait for WAL from now on.
    pub fn attach_multixacts(&self, multixacts: Arc<MultiXacts>) {
        multixacts.set_wal(self.wal.clone());
        let _ = self.multixacts.set(multixacts);
    }

    /// The multixact store (see `multixact.rs`).
    pub fn multixacts(&self) -> Result<&MultiXacts> {
        self.multixacts
            .get()
            .map(|m| &**m)
            .ok_or_else(|| TxnError::Corrupt("multixacts are not available".into()))
    }

    /// create_multixact -- a multi with `members`, logged as `xid`'s.
    pub fn create_multixact(&self, xid: Xid, members: &[MultiXactMember]) -> Result<MultiXactId> {
        self.multixacts()?.create(&self.wal, xid, members)
    }

    /// The record of catalog-changing commits, for caches of catalog contents.
    pub fn catalog_changes(&self) -> &CatalogChanges {
        &self.catalog_changes
    }

    /// The next xid to be assigned.
    pub fn next_xid(&self) -> Xid {
        Xid(self.next_xid.load(Ordering::SeqCst))
    }

    /// The commit log.
    pub fn clog(&self) -> &Arc<Clog> {
        &self.clog
    }

    /// The proc array.
    pub fn procarray(&self) -> &ProcArray {
        &self.procarray
    }

    /// The heavyweight lock manager shared by all backends.
    pub fn lock_manager(&self) -> &LockManager {
        &self.locks
    }

    /// Sets `synchronous_commit` for transactions that commit from now on.
    pub fn set_synchronous_commit(&self, mode: SynchronousCommit) {
        self.synchronous_commit.store(mode as u8, Ordering::Relaxed);
    }

    fn synchronous_commit(&self) -> SynchronousCommit {
        match self.synchronous_commit.load(Ordering::Relaxed) {
            0 => SynchronousCommit::On,
            1 => SynchronousCommit::Local,
            _ => SynchronousCommit::Off,
        }
    }

    /// block_commits -- keeps transactions from being between their commit record
    /// and their commit log update while the guard lives (for the checkpointer).
    pub fn block_commits(&self) -> RwLockWriteGuard<'_, ()> {
        self.commit_barrier.write()
    }

    /// register_backend -- claims a proc array slot for backend `pid`. Fails with
    /// PostgreSQL's "sorry, too many clients already" when none is free.
    pub fn register_backend(self: &Arc<Self>, pid: u32) -> Result<Arc<Backend>> {
        let proc = self.procarray.register(pid).ok_or(TxnError::TooManyClients)?;
        Ok(Arc::new(Backend { mgr: self.clone(), proc, pid }))
    }

    /// xid_status -- whether `xid` is running, committed or aborted. An xid that
    /// the commit log shows in progress but that is older than this server's
    /// start crashed, so it is aborted.
    pub fn xid_status(&self, xid: Xid) -> Result<XidStatus> {
        if !xid.is_normal() {
            return Ok(if xid.is_valid() { XidStatus::Committed } else { XidStatus::Aborted });
        }
        if self.csnlog.covers(xid) {
            let csn = self.csnlog.get(xid);
            return Ok(match csn {
                Csn::IN_PROGRESS => XidStatus::InProgress,
                Csn::ABORTED => XidStatus::Aborted,
                _ => XidStatus::Committed,
            });
        }
        Ok(match self.clog.status(xid)? {
            XidStatus::Committed => XidStatus::Committed,
            _ => XidStatus::Aborted,
        })
    }

    /// xid_visible -- whether `xid` (not the snapshot owner's) committed before
    /// `snap` was taken.
    pub fn xid_visible(&self, xid: Xid, snap: &Snapshot) -> Result<bool> {
        if xid < snap.xmin || !self.csnlog.covers(xid) {
            return Ok(self.xid_status(xid)? == XidStatus::Committed);
        }
        let csn = self.csnlog.get(xid);
        Ok(csn.is_committed() && csn < snap.csn)
    }

    /// horizon -- the oldest xid and CSN any running transaction or live
    /// snapshot may need (see `procarray.rs`). Also lets the CSN log forget what
    /// nobody can ask about any more.
    pub fn horizon(&self) -> Horizon {
        let now = Csn(self.next_csn.load(Ordering::SeqCst));
        let horizon = {
            let _exclusive = self.procarray.exclusive();
            self.procarray.horizon(self.next_xid(), Csn(self.next_csn.load(Ordering::SeqCst)))
        };
        self.csnlog.truncate(horizon.xmin);
        let mut recent = self.recent_horizon.lock();
        if recent.is_none_or(|(at, _)| at < now) {
            *recent = Some((now, horizon));
        }
        horizon
    }

    /// horizon_since -- a horizon computed no earlier than `snapshot` was
    /// taken: the last one computed if it is that recent, else a new one
    /// (PostgreSQL's GlobalVisState, recomputed only when the backend's
    /// snapshot has moved on). The horizon never goes back, so an older one
    /// is always safe, merely less precise; this is what lets a scan test
    /// every page it reads for pruning without taking the proc array lock
    /// per page.
    pub fn horizon_since(&self, snapshot: &Snapshot) -> Horizon {
        if let Some((at, horizon)) = *self.recent_horizon.lock() {
            if at >= snapshot.csn {
                return horizon;
            }
        }
        self.horizon()
    }

    /// Backend states for `pg_stat_activity`.
    pub fn proc_states(&self) -> Vec<ProcState> {
        self.procarray.states()
    }

    /// assign_xid -- the next xid for `owner`'s transaction. Its lock on the
    /// xid is taken before the xid is published in the proc array, so it is
    /// granted at once (nobody can know the xid yet) and exists before anybody
    /// could wait for it (XactLockTableInsert).
    fn assign_xid(&self, owner: LockOwner) -> Xid {
        let _shared = self.procarray.shared();
        let _gen = self.procarray.xid_gen.lock();
        let xid = Xid(self.next_xid.fetch_add(1, Ordering::SeqCst));
        self.csnlog.extend(xid);
        self.lock_new_xid(owner, xid);
        self.procarray.set_xid(owner.proc, xid);
        xid
    }

    fn take_snapshot(&self, proc: ProcId) -> Snapshot {
        self.take_snapshot_above(proc, None)
    }

    /// take_snapshot_above -- a new snapshot for `proc`, which keeps
    /// advertising `held`'s xmin and CSN (still in use), so the horizon never
    /// passes rows `held` sees.
    fn take_snapshot_above(&self, proc: ProcId, held: Option<&Snapshot>) -> Snapshot {
        let _shared = self.procarray.shared();
        let xmax = {
            let _gen = self.procarray.xid_gen.lock();
            self.next_xid()
        };
        let xmin = self.procarray.oldest_running(xmax);
        let csn = Csn(self.next_csn.load(Ordering::SeqCst));
        let (shown_xmin, shown_csn) = held.map_or((xmin, csn), |h| (h.xmin, h.csn));
        self.procarray.set_snapshot(proc, shown_xmin, shown_csn);
        Snapshot { xmin, xmax, csn, own_xid: None, curcid: 0, wrote_catalog: false }
    }

    /// finish -- ends the transaction of `proc` whose xids (top-level, then
    /// live subxids) are `xids` as committed or aborted: commit log and CSN,
    /// then the proc array, then its locks (so a waiter for an xid wakes to a
    /// final status).
    fn finish(&self, proc: ProcId, xids: &[Xid], outcome: Outcome) -> Result<()> {
        let mut result = Ok(());
        if !xids.is_empty() {
            let committed = outcome != Outcome::Aborted;
            let status = if committed { XidStatus::Committed } else { XidStatus::Aborted };
            for &xid in xids {
                result = result.and(self.clog.set_status(xid, status));
            }
            if committed {
                let take_csn = || Csn(self.next_csn.fetch_add(1, Ordering::SeqCst));
                let catalog = outcome == Outcome::CommittedCatalogChanges;
                self.commit_csn(xids, catalog, take_csn);
            } else {
                self.end_subxids(xids, Csn::ABORTED);
            }
        }
        {
            let _exclusive = self.procarray.exclusive();
            self.procarray.clear_xid(proc);
            self.procarray.set_snapshot(proc, Xid::INVALID, Csn(0));
            self.procarray.set_subxact_count(proc, 0);
        }
        self.locks.release_all(proc);
        result
    }

    /// commit_csn -- gives `xids` (a transaction and its subtransactions) one
    /// commit CSN atomically: all read COMMITTING before the CSN is taken, so
    /// no reader can see one of them committed and another still running.
    fn commit_csn(&self, xids: &[Xid], catalog: bool, take_csn: impl Fn() -> Csn) {
        for &xid in xids {
            self.csnlog.set(xid, Csn::COMMITTING);
        }
        let csn = if catalog { self.catalog_changes.commit(take_csn) } else { take_csn() };
        for &xid in xids {
            self.csnlog.set(xid, csn);
        }
    }

    /// end_subxids -- records `xids` as ended with `csn` (ABORTED for a
    /// rolled-back savepoint) in the CSN log and the commit log.
    pub(crate) fn end_subxids(&self, xids: &[Xid], csn: Csn) {
        for &xid in xids {
            // A commit log page that cannot be read only loses the status of an
            // aborted xid, which an unknown status means anyway after a restart.
            let _ = self.clog.set_status(xid, XidStatus::Aborted);
            self.csnlog.set(xid, csn);
        }
    }

    /// assign_subxid -- the next xid, for a savepoint level of `owner`'s
    /// transaction (which has its top-level xid already, so it is published in
    /// the proc array with a smaller xid). Locked like a top-level xid.
    fn assign_subxid(&self, owner: LockOwner) -> Xid {
        let _shared = self.procarray.shared();
        let _gen = self.procarray.xid_gen.lock();
        let xid = Xid(self.next_xid.fetch_add(1, Ordering::SeqCst));
        self.csnlog.extend(xid);
        self.lock_new_xid(owner, xid);
        xid
    }

    /// Takes `owner`'s lock on its new, unpublished `xid`: granted at once.
    fn lock_new_xid(&self, owner: LockOwner, xid: Xid) {
        let never = || false;
        let no_wait = LockWaitParams { nowait: true, ..LockWaitParams::new(&never) };
        let locked =
            self.locks.acquire(owner, LockTag::TransactionId(xid), LockMode::Exclusive, &no_wait);
        assert!(locked.is_ok(), "lock on the unpublished xid {xid} is taken: {locked:?}");
    }

    /// log_end -- the commit or abort record of `xid`: the time, then the
    /// subxids that end with it (redo marks them too).
    fn log_end(&self, xid: Xid, subxids: &[Xid], info: u8) -> Result<sluice_common::Lsn> {
        let micros =
            SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0);
        let mut main_data = micros.to_le_bytes().to_vec();
        for sub in subxids {
            main_data.extend_from_slice(&sub.0.to_le_bytes());
        }
        let record = RecordBuilder { rmgr: RmgrId::Xact, info, xid, blocks: Vec::new(), main_data };
        Ok(self.wal.insert(&record)?)
    }
}

impl Backend {
    /// The proc array slot.
    pub fn proc(&self) -> ProcId {
        self.proc
    }

    /// The transaction manager.
    pub fn manager(&self) -> &Arc<TransactionManager> {
        &self.mgr
    }

    /// The backend's process id (`pg_backend_pid()`).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The backend as an owner of heavyweight locks.
    pub fn lock_owner(&self) -> LockOwner {
        LockOwner { proc: self.proc, pid: self.pid }
    }

    /// begin -- starts a transaction on this backend.
    pub fn begin(self: &Arc<Self>, isolation: IsolationLevel) -> Transaction {
        Transaction {
            backend: self.clone(),
            isolation,
            xid: None,
            snapshot: None,
            crosscheck: None,
            cid: 0,
            combocids: Arc::default(),
            ended: false,
            first_snapshot_taken: false,
            lock_timeout: None,
            deadlock_timeout: DEFAULT_DEADLOCK_TIMEOUT,
            interrupts: None,
            catalog_written: false,
            levels: Vec::new(),
            own_subxids: Arc::default(),
            lock_log: Default::default(),
        }
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        // Session locks (pg_advisory_lock) outlive transactions but not the
        // backend; they must go before the slot can be reused.
        self.mgr.locks.release_backend(self.proc);
        self.mgr.procarray.unregister(self.proc);
    }
}

impl Transaction {
    fn mgr(&self) -> &TransactionManager {
        &self.backend.mgr
    }

    /// The isolation level.
    pub fn isolation(&self) -> IsolationLevel {
        self.isolation
    }

    /// The xid, if one was assigned.
    pub fn xid(&self) -> Option<Xid> {
        self.xid
    }

    /// assign_xid -- the xid the current (sub)transaction writes and locks
    /// rows with, assigning the top-level xid and those of open savepoint
    /// levels on first use (first write); see `subxact.rs`.
    pub fn assign_xid(&mut self) -> Xid {
        let top = self.assign_top_xid();
        if self.levels.is_empty() {
            return top;
        }
        self.assign_level_xids()
    }

    /// assign_top_xid -- the top-level xid, assigned on first use
    /// (`txid_current()` reports it even inside a savepoint).
    pub fn assign_top_xid(&mut self) -> Xid {
        if let Some(xid) = self.xid {
            return xid;
        }
        let xid = self.backend.mgr.assign_xid(self.backend.lock_owner());
        self.xid = Some(xid);
        xid
    }

    /// note_catalog_write -- records that the transaction wrote a catalog
    /// row: from now on it reads catalogs past the shared caches, and its
    /// commit makes them stale (`inval.rs`).
    pub fn note_catalog_write(&mut self) {
        self.catalog_written = true;
    }

    /// The current command id: changes made by earlier commands are visible to
    /// this one, its own are not (Halloween protection).
    pub fn command_id(&self) -> CommandId {
        self.cid
    }

    /// The transaction's combo command ids.
    ///
    /// Scans keep this handle while the transaction goes on changing rows, so
    /// the table is shared and copied on write: a scan sees the combo ids that
    /// existed when it started, which are all that tuples visible to it can use.
    pub fn combocids(&self) -> Arc<ComboCids> {
        self.combocids.clone()
    }

    /// The combo command ids, for a delete of a row this transaction inserted.
    pub fn combocids_mut(&mut self) -> &mut ComboCids {
        Arc::make_mut(&mut self.combocids)
    }

    /// The transaction manager.
    pub fn manager(&self) -> &Arc<TransactionManager> {
        &self.backend.mgr
    }

    /// lock -- takes `mode` on `tag` for this transaction's backend, waiting as
    /// `params` allow; held until the transaction ends (LockAcquire).
    pub fn lock(
        &self,
        tag: LockTag,
        mode: LockMode,
        params: &LockWaitParams<'_>,
    ) -> std::result::Result<(), LockError> {
        subxact::acquire_at_level(&self.backend, &self.lock_log, tag, mode, params)
    }

    /// unlock -- gives back one `mode` on `tag` before the transaction ends
    /// (LockRelease), for locks held only while queueing, such as a row's
    /// tuple lock.
    pub fn unlock(&self, tag: LockTag, mode: LockMode) {
        self.mgr().locks.release(self.backend.proc, tag, mode);
    }

    /// wait_for_xid -- sleeps until transaction `xid` has committed or aborted
    /// (XactLockTableWait): takes `ShareLock` on the xid, which conflicts with
    /// the `ExclusiveLock` its transaction holds until its end, and lets go at
    /// once. While waiting this transaction is part of deadlock detection, so
    /// the wait fails with [`LockError::Deadlock`] if `xid`'s transaction
    /// waits, directly or not, for this one.
    pub fn wait_for_xid(
        &self,
        xid: Xid,
        params: &LockWaitParams<'_>,
    ) -> std::result::Result<(), LockError> {
        let tag = LockTag::TransactionId(xid);
        self.mgr().locks.acquire(self.backend.lock_owner(), tag, LockMode::Share, params)?;
        self.mgr().locks.release(self.backend.proc, tag, LockMode::Share);
        Ok(())
    }

    /// set_isolation -- changes the isolation level before the transaction's
    /// first snapshot (SET TRANSACTION inside BEGIN ... COMMIT); false once a
    /// snapshot was taken, when the level can no longer change.
    pub fn set_isolation(&mut self, isolation: IsolationLevel) -> bool {
        if self.first_snapshot_taken {
            return false;
        }
        self.isolation = isolation;
        true
    }

    /// set_wait_timeouts -- the session's `lock_timeout` and `deadlock_timeout`,
    /// which row waits ([`Transaction::row_wait_params`]) follow; set per
    /// statement because the settings may change between statements.
    pub fn set_wait_timeouts(
        &mut self,
        lock_timeout: Option<Duration>,
        deadlock_timeout: Duration,
    ) {
        self.lock_timeout = lock_timeout;
        self.deadlock_timeout = deadlock_timeout;
    }

    /// set_interrupt_check -- how the running statement's waits without a
    /// session at hand learn that it was cancelled or timed out; set per
    /// statement with the wait timeouts.
    pub fn set_interrupt_check(&mut self, interrupts: InterruptFlag) {
        self.interrupts = Some(interrupts);
    }

    /// interrupt_check -- says whether the running statement has been
    /// cancelled or timed out (never, when no check was set).
    pub fn interrupt_check(&self) -> InterruptFlag {
        self.interrupts.clone().unwrap_or_else(|| Arc::new(|| false))
    }

    /// row_wait_params -- how to wait for another transaction's row lock: the
    /// session's timeouts, interrupted when `interrupted` says so.
    pub fn row_wait_params<'a>(&self, interrupted: &'a dyn Fn() -> bool) -> LockWaitParams<'a> {
        LockWaitParams {
            lock_timeout: self.lock_timeout,
            deadlock_timeout: self.deadlock_timeout,
            ..LockWaitParams::new(interrupted)
        }
    }

    /// Makes this command's changes visible to the next (CommandCounterIncrement).
    pub fn increment_command(&mut self) {
        self.cid += 1;
    }

    /// snapshot -- the snapshot for the current statement: under READ COMMITTED
    /// the one taken at the statement's start, under REPEATABLE READ the one taken
    /// at the first statement. Taken on first use.
    pub fn snapshot(&mut self) -> Snapshot {
        let mut snap = match self.snapshot {
            Some(s) => s,
            None => {
                let s = self.mgr().take_snapshot(self.backend.proc);
                self.snapshot = Some(s);
                self.first_snapshot_taken = true;
                s
            }
        };
        snap.own_xid = self.xid;
        snap.curcid = self.cid;
        snap.wrote_catalog = self.catalog_written;
        snap
    }

    /// use_latest_snapshot -- GetLatestSnapshot for a REPEATABLE READ
    /// referential check: until [`Transaction::restore_snapshot`] the
    /// statement reads under a new snapshot, the transaction's becoming the
    /// crosscheck. Returns what to restore.
    pub fn use_latest_snapshot(&mut self) -> (Option<Snapshot>, Option<Snapshot>) {
        let held = self.snapshot;
        let latest = self.mgr().take_snapshot_above(self.backend.proc, held.as_ref());
        let saved = (self.snapshot.replace(latest), self.crosscheck);
        self.crosscheck = held;
        saved
    }

    /// Ends [`Transaction::use_latest_snapshot`].
    pub fn restore_snapshot(&mut self, saved: (Option<Snapshot>, Option<Snapshot>)) {
        (self.snapshot, self.crosscheck) = saved;
    }

    /// The crosscheck in force (see [`Transaction::use_latest_snapshot`]).
    pub fn crosscheck(&self) -> Option<Snapshot> {
        self.crosscheck.map(|s| Snapshot { own_xid: self.xid, curcid: self.cid, ..s })
    }

    /// end_statement -- under READ COMMITTED, forgets the statement's snapshot so
    /// the next statement takes a new one (and the horizon can advance meanwhile).
    pub fn end_statement(&mut self) {
        if self.isolation == IsolationLevel::ReadCommitted && self.snapshot.take().is_some() {
            self.mgr().procarray.set_snapshot(self.backend.proc, Xid::INVALID, Csn(0));
        }
    }

    /// commit -- makes the transaction's changes durable (per
    /// `synchronous_commit`) and visible. An error here means the commit record
    /// could not be made durable; the transaction is still ended (as committed,
    /// since its record may reach disk), like PostgreSQL, which would PANIC.
    pub fn commit(mut self) -> Result<()> {
        self.ended = true;
        let Some(xid) = self.xid else {
            return self.mgr().finish(self.backend.proc, &[], Outcome::Committed);
        };
        let subxids = self.own_subxids.to_vec();
        let _barrier = self.mgr().commit_barrier.read();
        let flushed =
            self.mgr().log_end(xid, &subxids, XLOG_XACT_COMMIT).and_then(|end| {
                match self.mgr().synchronous_commit() {
                    SynchronousCommit::On | SynchronousCommit::Local => {
                        Ok(self.mgr().wal.flush(end)?)
                    }
                    SynchronousCommit::Off => Ok(()),
                }
            });
        let outcome = if self.catalog_written {
            Outcome::CommittedCatalogChanges
        } else {
            Outcome::Committed
        };
        let finished = self.mgr().finish(self.backend.proc, &self.all_xids(), outcome);
        flushed.and(finished)
    }

    /// rollback -- ends the transaction; its changes become invisible at once.
    /// No undo work is done. The abort record is not flushed (a crash loses
    /// nothing: an unfinished transaction counts as aborted).
    pub fn rollback(mut self) {
        self.abort_now();
    }

    fn abort_now(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        let xids = self.all_xids();
        if let Some((&xid, subxids)) = xids.split_first() {
            // Failing to log the abort is harmless: without a commit record the
            // transaction counts as aborted after any crash.
            let _ = self.mgr().log_end(xid, subxids, XLOG_XACT_ABORT);
        }
        let _ = self.mgr().finish(self.backend.proc, &xids, Outcome::Aborted);
    }

    /// The top-level xid, if assigned, then the live subxids.
    fn all_xids(&self) -> Vec<Xid> {
        self.xid.into_iter().chain(self.own_subxids.to_vec()).collect()
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        self.abort_now();
    }
}

/// redo -- replays a commit or abort record into the commit log: the
/// transaction and the subxids the record lists.
pub fn redo(clog: &Clog, record: &sluice_wal::DecodedRecord) -> Result<()> {
    let status = match record.info {
        XLOG_XACT_COMMIT => XidStatus::Committed,
        _ => XidStatus::Aborted,
    };
    clog.set_status(record.xid, status)?;
    for sub in record_subxids(&record.main_data) {
        clog.set_status(sub, status)?;
    }
    Ok(())
}

/// The subxids listed in a commit or abort record's main data (after the
/// 8-byte time).
fn record_subxids(main_data: &[u8]) -> impl Iterator<Item = Xid> + '_ {
    main_data
        .get(8..)
        .unwrap_or_default()
        .chunks_exact(8)
        .map(|c| Xid(u64::from_le_bytes(c.try_into().expect("chunks of 8"))))
}
