//! Row locks: `SELECT ... FOR UPDATE | FOR NO KEY UPDATE | FOR SHARE | FOR KEY
//! SHARE` (PostgreSQL's `heap_lock_tuple` and `README.tuplock`).
//!
//! # Where a row lock lives
//!
//! In the row itself, never in shared memory: locking a million rows costs a
//! million header changes and no lock table entries. The locker's xid goes
//! into the version's xmax, flagged `HEAP_XMAX_LOCK_ONLY`, with the strength
//! in the lock bits of t_infomask:
//!
//! ```text
//!   strength          infomask lock bits       infomask2
//!   FOR KEY SHARE     KEYSHR                   -
//!   FOR SHARE         SHR (= KEYSHR | EXCL)    -
//!   FOR NO KEY UPDATE EXCL                     -
//!   FOR UPDATE        EXCL                     KEYS_UPDATED
//! ```
//!
//! A lock-only xmax never hides the row from anybody (`visibility.rs`), and
//! once its transaction has ended it holds nothing: pruning and VACUUM treat
//! it as no xmax at all.
//!
//! When a running transaction already holds the row in a compatible strength
//! (another FOR SHARE, or a no-key UPDATE under FOR KEY SHARE), the new xmax
//! is a *multixact* of both, the surviving holders plus the new locker
//! (`multixact.rs` decides who survives, who conflicts and what the header
//! becomes).
//!
//! # Conflicts
//!
//! The four strengths conflict as PostgreSQL's table (`TupleLockMode::conflicts`):
//!
//! ```text
//!                   KEY SHARE  SHARE  NO KEY UPDATE  UPDATE
//!   KEY SHARE                                          X
//!   SHARE                            X                 X
//!   NO KEY UPDATE              X     X                 X
//!   UPDATE            X        X     X                 X
//! ```
//!
//! An UPDATE that changes no column of a unique index takes NO KEY UPDATE,
//! a DELETE or a key-changing UPDATE takes UPDATE, so FOR KEY SHARE (what a
//! foreign key check takes) does not stop ordinary updates of the row.
//!
//! # Waiting
//!
//! A locker that finds the row held in a conflicting strength by a running
//! transaction first takes the heavyweight *tuple* lock on the row's slot
//! (`LockTag::Tuple`, in a mode mirroring the strength), then sleeps on the
//! holder's transaction id (`Transaction::wait_for_xid`) — for a multixact,
//! on each conflicting member in turn, looking at the row again after each. The tuple lock
//! queues competing waiters in arrival order, so a steady stream of
//! sharers cannot starve an updater; it is released as soon as the row lock
//! is taken (or given up). Both waits show in `pg_locks` (`tuple`,
//! `transactionid`) and take part in deadlock detection. NOWAIT fails instead of
//! queueing; SKIP LOCKED reports the row as locked so the caller passes
//! over it.
//!
//! # Who locks
//!
//! [`locker_xid`] is the only place deciding which xid a lock is taken
//! with (today the transaction's own; with subtransactions, the current
//! subtransaction's).

use super::heapam::{
    corrupt_tid, judge_for_update, log_header_change, tag_of, wait_for, LockWaitPolicy, TmFailure,
    TmResult,
};
use super::multixact::{new_xmax, plan, request_status, update_xid, Plan};
use super::visibility::{UpdateStatus, VisibilityContext};
use super::xlog::{HeaderChange, XLOG_HEAP_LOCK};
use super::HeapRelation;
use crate::common::htup::*;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use sluice_common::{ItemPointer, Oid, Xid};
use sluice_storage::buffer::BufferWriteGuard;
use sluice_txn::lmgr::{LockError, LockMode, LockTag};
use sluice_txn::{MultiXactMember, MultiXactStatus, Transaction, XidStatus};

/// The strength of a row lock (PostgreSQL's LockTupleMode), weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TupleLockMode {
    /// FOR KEY SHARE: the key columns must not change or the row go away.
    KeyShare,
    /// FOR SHARE: the row must not change.
    Share,
    /// FOR NO KEY UPDATE, and UPDATEs that change no unique key column.
    NoKeyUpdate,
    /// FOR UPDATE, DELETE and key-changing UPDATEs.
    Update,
}

impl TupleLockMode {
    /// Whether a holder in `self` keeps a requester in `other` waiting.
    pub fn conflicts(self, other: TupleLockMode) -> bool {
        use TupleLockMode::*;
        match (self.min(other), self.max(other)) {
            (_, Update) => true,
            (KeyShare, _) => false,
            (Share, Share) => false,
            _ => true,
        }
    }

    /// The heavyweight mode a waiter takes on the row's tuple lock
    /// (PostgreSQL's tupleLockExtraInfo): conflicting strengths map to
    /// conflicting modes, so waiters for one row queue in order.
    pub fn tuple_lock_mode(self) -> LockMode {
        match self {
            TupleLockMode::KeyShare => LockMode::AccessShare,
            TupleLockMode::Share => LockMode::RowShare,
            TupleLockMode::NoKeyUpdate => LockMode::Exclusive,
            TupleLockMode::Update => LockMode::AccessExclusive,
        }
    }

    /// The SQL clause, for messages ("FOR NO KEY UPDATE").
    pub fn clause(self) -> &'static str {
        match self {
            TupleLockMode::KeyShare => "FOR KEY SHARE",
            TupleLockMode::Share => "FOR SHARE",
            TupleLockMode::NoKeyUpdate => "FOR NO KEY UPDATE",
            TupleLockMode::Update => "FOR UPDATE",
        }
    }
}

/// xmax_mode -- the strength a (single, not multi) xmax holds the version
/// in: a lock-only xmax by its lock bits, an updater or deleter by whether
/// it changed a key.
pub fn xmax_mode<B: AsRef<[u8]>>(hdr: &HeapTupleHeader<B>) -> TupleLockMode {
    let bits = hdr.infomask() & HEAP_LOCK_MASK;
    if hdr.xmax_is_locked_only() {
        if bits == HEAP_XMAX_SHR_LOCK {
            return TupleLockMode::Share;
        }
        if bits == HEAP_XMAX_KEYSHR_LOCK {
            return TupleLockMode::KeyShare;
        }
    }
    if hdr.keys_updated() {
        TupleLockMode::Update
    } else {
        TupleLockMode::NoKeyUpdate
    }
}

/// locker_xid -- the xid row locks of `txn` are taken with (the one place
/// that decides it; see the module doc).
pub fn locker_xid(txn: &mut Transaction) -> Xid {
    txn.assign_xid()
}

/// The row a lock request is for: its relation (for the tuple lock tag and
/// messages) and its version's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowLockTarget {
    /// OID of the database the relation belongs to.
    pub database: Oid,
    /// OID of the relation.
    pub relation: Oid,
    /// The version to lock.
    pub tid: ItemPointer,
}

impl RowLockTarget {
    /// The heavyweight tuple lock waiters for this row queue on.
    pub(super) fn tuple_tag(&self) -> LockTag {
        LockTag::Tuple {
            database: self.database,
            relation: self.relation,
            block: self.tid.block,
            offset: self.tid.offset,
        }
    }
}

/// What the version's header says a lock request must do.
enum Verdict {
    /// Take the lock now at this status, beside these holders (nobody
    /// conflicting holds the row; see `multixact.rs`).
    Take(Vec<MultiXactMember>, MultiXactStatus),
    /// This transaction already holds the row at least as strongly.
    Held,
    /// A running transaction holds it in a conflicting strength; the flag
    /// says whether the requester is one of the row's holders already.
    WaitFor(Xid, bool),
    /// The request fails (updated, deleted, invisible, ...).
    Fail(TmFailure),
}

/// examine -- checks the version at `tid` on the locked `page` for a lock of
/// strength `mode` by `xid`, setting whatever hint bits the check earned.
/// As in `heapam.rs`'s `check_target`, an updater that commits while we
/// look makes us look again rather than be dropped as a finished holder.
/// A version updated by a committed transaction can still be locked FOR
/// KEY SHARE when the update kept the key (PostgreSQL locks it where it
/// stands: the lock joins the committed updater in a multi, and the newer
/// versions are locked too, see [`lock_newer_versions`]).
fn examine(
    engine: &Engine,
    rel: &HeapRelation,
    page: &mut BufferWriteGuard<'_>,
    tid: ItemPointer,
    txn: &mut Transaction,
    (xid, mode): (Xid, TupleLockMode),
) -> Result<Verdict> {
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    loop {
        let (status, ctid) = judge_for_update(engine, tag_of(rel, tid.block), page, tid, &ctx)?;
        let item = page.item(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
        let past_update = match status {
            UpdateStatus::Ok | UpdateStatus::BeingModified(_) => None,
            UpdateStatus::Updated if mode == TupleLockMode::KeyShare => {
                Some(TmFailure::Updated(ctid))
            }
            UpdateStatus::Invisible => return Ok(Verdict::Fail(TmFailure::Invisible)),
            UpdateStatus::SelfModified => return Ok(Verdict::Fail(TmFailure::SelfModified)),
            UpdateStatus::Updated => return Ok(Verdict::Fail(TmFailure::Updated(ctid))),
            UpdateStatus::Deleted => return Ok(Verdict::Fail(TmFailure::Deleted)),
        };
        let hdr = HeapTupleHeader::new(item)?;
        return Ok(match plan(&hdr, &ctx, xid, request_status(mode, false))? {
            Plan::Held => Verdict::Held,
            Plan::Wait { blockers, asker_holds } => Verdict::WaitFor(blockers[0], asker_holds),
            Plan::Proceed(keep, status) => Verdict::Take(keep, status),
            Plan::Recheck => match past_update {
                Some(failure) => Verdict::Fail(failure),
                None => continue,
            },
        });
    }
}

/// set_lock -- stamps the version at `tid` as locked by `xid` at `status`
/// beside the holders in `keep` (a multi if there are any) and logs it.
fn set_lock(
    engine: &Engine,
    rel: &HeapRelation,
    page: &mut BufferWriteGuard<'_>,
    tid: ItemPointer,
    xid: Xid,
    (keep, status): (Vec<MultiXactMember>, MultiXactStatus),
) -> Result<()> {
    let new = new_xmax(engine.txns(), xid, status, &keep)?;
    let item = page.item_mut(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
    let mut hdr = HeapTupleHeader::new(&mut *item)?;
    hdr.set_xmax(new.xmax);
    hdr.set_infomask((hdr.infomask() & !HEAP_XMAX_BITS) | new.infomask);
    hdr.clear_infomask2_bits(HEAP_KEYS_UPDATED);
    hdr.set_infomask2_bits(new.infomask2);
    let change = HeaderChange::capture(tid.offset, item)?;
    log_header_change(engine, rel, page, tid, xid, XLOG_HEAP_LOCK, change)
}

/// heap_lock_tuple -- locks the version at `target.tid` in strength `mode`
/// for `txn` (see the module doc for where the lock lives and how waiters
/// queue). A holder in a conflicting strength is waited for as `policy`
/// says; `interrupted` is polled while waiting. A version that was updated
/// or deleted meanwhile is reported as its [`TmFailure`] for the caller to
/// follow (READ COMMITTED) or fail on.
pub fn heap_lock_tuple(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    target: RowLockTarget,
    mode: TupleLockMode,
    policy: LockWaitPolicy,
    interrupted: &dyn Fn() -> bool,
) -> Result<TmResult<()>> {
    let xid = locker_xid(txn);
    let mut queued = false;
    let outcome =
        lock_loop(engine, rel, txn, target, (xid, mode), policy, interrupted, &mut queued);
    if queued {
        txn.unlock(target.tuple_tag(), mode.tuple_lock_mode());
    }
    outcome
}

/// The body of [`heap_lock_tuple`]; `queued` says whether the tuple lock
/// was taken (the caller releases it however this ends).
#[allow(clippy::too_many_arguments)]
fn lock_loop(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    target: RowLockTarget,
    request: (Xid, TupleLockMode),
    policy: LockWaitPolicy,
    interrupted: &dyn Fn() -> bool,
    queued: &mut bool,
) -> Result<TmResult<()>> {
    let tid = target.tid;
    loop {
        let buffer = engine.pool().read_buffer(tag_of(rel, tid.block))?;
        let mut page = buffer.write();
        let (holder, already_holder) = match examine(engine, rel, &mut page, tid, txn, request)? {
            Verdict::Held => return Ok(Ok(())),
            Verdict::Take(keep, status) => {
                let updater = keep.iter().find(|m| m.status.is_update()).map(|m| m.xid);
                let next =
                    HeapTupleHeader::new(page.item(tid.offset).ok_or_else(|| corrupt_tid(tid))?)?
                        .ctid();
                set_lock(engine, rel, &mut page, tid, request.0, (keep, status))?;
                drop(page);
                drop(buffer);
                return match updater {
                    Some(updater) => {
                        lock_newer_versions(engine, rel, txn, (next, updater), request, interrupted)
                    }
                    None => Ok(Ok(())),
                };
            }
            Verdict::Fail(failure) => return Ok(Err(failure)),
            Verdict::WaitFor(..) if policy != LockWaitPolicy::Block => {
                return Ok(Err(TmFailure::WouldBlock))
            }
            Verdict::WaitFor(holder, asker_holds) => (holder, asker_holds),
        };
        drop(page);
        drop(buffer);
        // A holder upgrading its lock waits for the conflicting holders
        // only: queueing behind the waiters for the row would deadlock
        // with them, since they wait for the lock we hold (PostgreSQL
        // skips the tuple lock the same way).
        if !*queued && !already_holder {
            queue_for_row(txn, target, request.1, interrupted)?;
            *queued = true;
        }
        wait_for(txn, holder, interrupted)?;
    }
}

/// lock_newer_versions -- after locking a version that `updater` (running,
/// or committed without touching the key) updated, locks the versions that
/// came after it too, from `next` on (PostgreSQL's
/// heap_lock_updated_tuple): the lock is there to keep the key from going
/// away, and a DELETE of the newer version must wait for it as much as one
/// of the version locked. Each newer version is locked whatever the
/// snapshot sees; a conflicting holder is waited for, and a committed
/// transaction that deleted the row or changed its key fails the lock as
/// that version's [`TmFailure`]. The walk stops at the end of the chain,
/// at a version whose inserter aborted, or where the chain was broken by
/// pruning.
fn lock_newer_versions(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    (mut tid, mut prior_xmax): (ItemPointer, Xid),
    (xid, mode): (Xid, TupleLockMode),
    interrupted: &dyn Fn() -> bool,
) -> Result<TmResult<()>> {
    loop {
        let buffer = engine.pool().read_buffer(tag_of(rel, tid.block))?;
        let mut page = buffer.write();
        let (ctid, updater, plan) = {
            let Some(item) = page.item(tid.offset) else { return Ok(Ok(())) };
            let hdr = HeapTupleHeader::new(item)?;
            let mgr = engine.txns();
            if hdr.xmin() != prior_xmax || mgr.xid_status(hdr.xmin())? == XidStatus::Aborted {
                return Ok(Ok(()));
            }
            let ctx = VisibilityContext::for_transaction(txn, mgr);
            (
                hdr.ctid(),
                update_xid(&hdr, mgr)?,
                plan(&hdr, &ctx, xid, request_status(mode, false))?,
            )
        };
        match plan {
            Plan::Held => {}
            Plan::Recheck if ctid == tid => return Ok(Err(TmFailure::Deleted)),
            Plan::Recheck => return Ok(Err(TmFailure::Updated(ctid))),
            Plan::Wait { blockers, .. } => {
                drop(page);
                drop(buffer);
                wait_for(txn, blockers[0], interrupted)?;
                continue;
            }
            Plan::Proceed(keep, status) => {
                set_lock(engine, rel, &mut page, tid, xid, (keep, status))?
            }
        }
        if ctid == tid || !updater.is_valid() {
            return Ok(Ok(()));
        }
        (tid, prior_xmax) = (ctid, updater);
    }
}

/// queue_for_row -- takes the row's heavyweight tuple lock, waiting behind
/// earlier waiters for the same row.
pub(super) fn queue_for_row(
    txn: &Transaction,
    target: RowLockTarget,
    mode: TupleLockMode,
    interrupted: &dyn Fn() -> bool,
) -> Result<()> {
    let params = txn.row_wait_params(interrupted);
    match txn.lock(target.tuple_tag(), mode.tuple_lock_mode(), &params) {
        Ok(()) => Ok(()),
        Err(LockError::Interrupted) => Err(AccessError::Interrupted),
        Err(e) => Err(AccessError::Lock(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::TupleLockMode::*;

    #[test]
    fn strengths_conflict_as_in_postgresql() {
        let modes = [KeyShare, Share, NoKeyUpdate, Update];
        let expected = [
            [false, false, false, true],
            [false, false, true, true],
            [false, true, true, true],
            [true, true, true, true],
        ];
        for (i, a) in modes.iter().enumerate() {
            for (j, b) in modes.iter().enumerate() {
                assert_eq!(a.conflicts(*b), expected[i][j], "{a:?} vs {b:?}");
            }
        }
    }
}
