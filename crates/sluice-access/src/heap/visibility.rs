//! Heap tuple visibility (PostgreSQL's `heapam_visibility.c`).
//!
//! A tuple version is visible to a snapshot when its inserter (xmin) is visible
//! and its deleter (xmax), if any, is not:
//!
//! ```text
//!   xmin committed before the snapshot   and   xmax absent, aborted, only a lock,
//!   (or: xmin is us, inserted by an            still running, or committed after
//!    earlier command)                          the snapshot (or: xmax is us, from
//!                                              this or a later command)
//! ```
//!
//! "Committed before the snapshot" is a CSN comparison (`sluice-txn`'s
//! `xid_visible`), except that an xid below the snapshot's xmin had finished when
//! the snapshot was taken, so a committed hint bit settles it without a lookup.
//!
//! # Multixact xmax
//!
//! An xmax flagged `HEAP_XMAX_IS_MULTI` names several holders
//! (`multixact.rs`). Its update member, if it has one, is judged exactly as
//! a plain deleter would be; its lock-only members never hide the row. A
//! multi is never hinted committed (its lockers may still run); it is hinted
//! invalid once every member has ended without a committed update.
//!
//! # Hint bits
//!
//! Checking an xid's fate costs a lookup; once it is known to be final (committed
//! or aborted) the answer is cached in the tuple's infomask
//! (`HEAP_XMIN_COMMITTED`, `HEAP_XMIN_INVALID`, `HEAP_XMAX_COMMITTED`,
//! `HEAP_XMAX_INVALID`). The functions here do not write the page: they return
//! the hint bits that could be set, and the caller sets them when it holds the
//! page exclusively (see `hints.rs`), because readers hold only a shared lock.
//!
//! # The last xid, remembered
//!
//! Until its hints are set, every row a bulk load wrote asks about the same
//! inserter. A scan therefore keeps an [`XidCache`]: the last xid looked up, with
//! its status and whether the scan's snapshot sees it (PostgreSQL's transam.c
//! remembers one xid the same way). Only final answers are kept — committed or
//! aborted, which never change, and visibility to a snapshot, which for a
//! committed xid never changes either — so the cache is never stale; it lives
//! as long as the one snapshot it answers for.

use super::multixact::{any_running, holders, update_xid, Holders};
use crate::common::htup::*;
use crate::error::{AccessError, Result};
use sluice_common::{ItemPointer, Xid};
use sluice_txn::{
    ComboCids, CommandId, Horizon, OwnXids, Snapshot, Transaction, TransactionManager, XidStatus,
};
use std::sync::Arc;

/// What a visibility check needs: the snapshot, the manager that knows every
/// xid's fate, and the own transaction's combo command ids.
#[derive(Clone)]
pub struct VisibilityContext<'a> {
    /// Who is asking.
    pub snapshot: Snapshot,
    /// Transaction status lookups.
    pub mgr: &'a TransactionManager,
    /// The asking transaction's combo ids.
    pub combocids: Arc<ComboCids>,
    /// The asking transaction's live subtransaction ids.
    pub own_subxids: Arc<OwnXids>,
}

impl<'a> VisibilityContext<'a> {
    /// for_transaction -- how `txn`'s current statement sees rows: its
    /// snapshot (taken now if the statement has none yet) and its combo ids.
    pub fn for_transaction(txn: &mut Transaction, mgr: &'a TransactionManager) -> Self {
        VisibilityContext {
            snapshot: txn.snapshot(),
            mgr,
            combocids: txn.combocids(),
            own_subxids: txn.own_subxids(),
        }
    }

    /// is_own -- whether `xid` is the asking transaction's or one of its
    /// subtransactions' that was not rolled back (PostgreSQL's
    /// TransactionIdIsCurrentTransactionId; cheap: see `xact/subxact.rs`).
    pub fn is_own(&self, xid: Xid) -> bool {
        self.snapshot.is_own(xid) || self.own_subxids.contains(xid)
    }
}

/// The outcome of checking whether a tuple may be updated, deleted or locked
/// (PostgreSQL's TM_Result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateStatus {
    /// It may: it is the newest version and nobody holds it.
    Ok,
    /// The asking command cannot see it at all.
    Invisible,
    /// This transaction changed it in this or a later command.
    SelfModified,
    /// A committed transaction updated it (the newer version is at ctid) ...
    Updated,
    /// ... or deleted it.
    Deleted,
    /// A running transaction holds it (updated, deleted or locked it).
    BeingModified(Xid),
}

/// The inserting command id of a tuple the own transaction inserted.
pub fn cmin<B: AsRef<[u8]>>(hdr: &HeapTupleHeader<B>, combocids: &ComboCids) -> CommandId {
    if hdr.infomask() & HEAP_COMBOCID != 0 {
        combocids.resolve(hdr.cid()).0
    } else {
        hdr.cid()
    }
}

/// The deleting command id of a tuple the own transaction deleted.
pub fn cmax<B: AsRef<[u8]>>(hdr: &HeapTupleHeader<B>, combocids: &ComboCids) -> CommandId {
    if hdr.infomask() & HEAP_COMBOCID != 0 {
        combocids.resolve(hdr.cid()).1
    } else {
        hdr.cid()
    }
}

fn header(tuple: &[u8]) -> Result<HeapTupleHeader<&[u8]>> {
    HeapTupleHeader::new(tuple).map_err(AccessError::from)
}

/// The last xid a scan looked up and the final answers about it, for one
/// snapshot (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct XidCache {
    /// The xid, its status (committed or aborted) and whether the snapshot
    /// sees it committed.
    last: Option<(Xid, XidStatus, bool)>,
}

impl XidCache {
    /// lookup -- the fate of `xid` and whether `ctx.snapshot` sees it committed.
    /// `ctx` must be the same snapshot for every call on one cache.
    fn lookup(&mut self, ctx: &VisibilityContext, xid: Xid) -> Result<(XidStatus, bool)> {
        if let Some((cached, status, visible)) = self.last {
            if cached == xid {
                return Ok((status, visible));
            }
        }
        let status = ctx.mgr.xid_status(xid)?;
        let visible = status == XidStatus::Committed && ctx.mgr.xid_visible(xid, &ctx.snapshot)?;
        if matches!(status, XidStatus::Committed | XidStatus::Aborted) {
            self.last = Some((xid, status, visible));
        }
        Ok((status, visible))
    }

    /// Whether `xid`, known committed (its hint bit is set), committed before
    /// `ctx.snapshot` was taken. Below the snapshot's xmin it had finished when
    /// the snapshot was taken, so the hint settles it without a lookup.
    fn committed_visible(&mut self, ctx: &VisibilityContext, xid: Xid) -> Result<bool> {
        Ok(xid < ctx.snapshot.xmin || self.lookup(ctx, xid)?.1)
    }
}

/// The fate of a finished-or-not xid, whether the snapshot sees it committed,
/// and the hint bit it earns.
fn resolve(
    ctx: &VisibilityContext,
    xids: &mut XidCache,
    xid: Xid,
    committed_bit: u16,
    invalid_bit: u16,
) -> Result<(XidStatus, bool, u16)> {
    let (status, visible) = xids.lookup(ctx, xid)?;
    let hint = match status {
        XidStatus::Committed => committed_bit,
        XidStatus::Aborted => invalid_bit,
        _ => 0,
    };
    Ok((status, visible, hint))
}

/// Whether the inserter is visible.
fn xmin_visible<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    ctx: &VisibilityContext,
    xids: &mut XidCache,
    hints: &mut u16,
) -> Result<bool> {
    if hdr.xmin_invalid() && !hdr.xmin_committed() {
        return Ok(false);
    }
    let xmin = hdr.xmin();
    if hdr.xmin_committed() {
        return xids.committed_visible(ctx, xmin);
    }
    if ctx.is_own(xmin) {
        return Ok(cmin(hdr, &ctx.combocids) < ctx.snapshot.curcid);
    }
    let (_, visible, hint) = resolve(ctx, xids, xmin, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID)?;
    *hints |= hint;
    Ok(visible)
}

/// satisfies_mvcc -- whether `tuple` is visible to `ctx.snapshot`. Returns the
/// answer and the hint bits that may be set on the tuple.
pub fn satisfies_mvcc(tuple: &[u8], ctx: &VisibilityContext) -> Result<(bool, u16)> {
    satisfies_mvcc_cached(tuple, ctx, &mut XidCache::default())
}

/// satisfies_mvcc_cached -- [`satisfies_mvcc`] for one tuple of many checked
/// under the same snapshot, remembering the last xid's answers in `xids`.
pub fn satisfies_mvcc_cached(
    tuple: &[u8],
    ctx: &VisibilityContext,
    xids: &mut XidCache,
) -> Result<(bool, u16)> {
    let hdr = header(tuple)?;
    let mut hints = 0;
    if !xmin_visible(&hdr, ctx, xids, &mut hints)? {
        return Ok((false, hints));
    }
    if hdr.xmax_invalid() || !hdr.xmax().is_valid() || hdr.xmax_is_locked_only() {
        return Ok((true, hints));
    }
    if hdr.xmax_is_multi() {
        return Ok((multi_xmax_visible(&hdr, ctx, xids)?, hints));
    }
    let xmax = hdr.xmax();
    if hdr.xmax_committed() {
        return Ok((!xids.committed_visible(ctx, xmax)?, hints));
    }
    if ctx.is_own(xmax) {
        return Ok((cmax(&hdr, &ctx.combocids) >= ctx.snapshot.curcid, hints));
    }
    let (_, deleted, hint) = resolve(ctx, xids, xmax, HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID)?;
    hints |= hint;
    Ok((!deleted, hints))
}

/// Whether a version whose xmax is a multi with an update member is still
/// visible: lock-only members never hide it, the updater does once the
/// snapshot sees it committed. No hint: a multi never gets XMAX_COMMITTED,
/// and its lockers may still be running.
fn multi_xmax_visible<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    ctx: &VisibilityContext,
    xids: &mut XidCache,
) -> Result<bool> {
    let updater = update_xid(hdr, ctx.mgr)?;
    if !updater.is_valid() {
        return Ok(true);
    }
    if ctx.is_own(updater) {
        return Ok(cmax(hdr, &ctx.combocids) >= ctx.snapshot.curcid);
    }
    Ok(!xids.lookup(ctx, updater)?.1)
}

/// satisfies_update -- whether the asking command may update/delete/lock
/// `tuple` (PostgreSQL's HeapTupleSatisfiesUpdate). Unlike `satisfies_mvcc` it
/// judges the latest state, not the snapshot: a committed deleter is reported
/// even if the snapshot cannot see it, so the caller can follow the update chain
/// (READ COMMITTED) or fail (REPEATABLE READ).
pub fn satisfies_update(
    tuple: &[u8],
    self_tid: ItemPointer,
    ctx: &VisibilityContext,
) -> Result<(UpdateStatus, u16)> {
    let hdr = header(tuple)?;
    let xids = &mut XidCache::default();
    let mut hints = 0;
    if !hdr.xmin_committed() {
        if hdr.xmin_invalid() {
            return Ok((UpdateStatus::Invisible, 0));
        }
        let xmin = hdr.xmin();
        if ctx.is_own(xmin) {
            if cmin(&hdr, &ctx.combocids) >= ctx.snapshot.curcid {
                return Ok((UpdateStatus::Invisible, 0));
            }
        } else {
            let (status, _, hint) =
                resolve(ctx, xids, xmin, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID)?;
            hints |= hint;
            if status != XidStatus::Committed {
                return Ok((UpdateStatus::Invisible, hints));
            }
        }
    }
    Ok((xmax_update_status(&hdr, self_tid, ctx, xids, &mut hints)?, hints))
}

fn xmax_update_status<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    self_tid: ItemPointer,
    ctx: &VisibilityContext,
    xids: &mut XidCache,
    hints: &mut u16,
) -> Result<UpdateStatus> {
    let xmax = hdr.xmax();
    if hdr.xmax_invalid() || !xmax.is_valid() {
        return Ok(UpdateStatus::Ok);
    }
    let gone = if hdr.ctid() == self_tid { UpdateStatus::Deleted } else { UpdateStatus::Updated };
    if hdr.xmax_is_multi() {
        return multi_update_status(hdr, gone, ctx, hints);
    }
    if hdr.xmax_committed() {
        return Ok(if hdr.xmax_is_locked_only() { UpdateStatus::Ok } else { gone });
    }
    if ctx.is_own(xmax) {
        if hdr.xmax_is_locked_only() {
            return Ok(UpdateStatus::Ok);
        }
        return Ok(if cmax(hdr, &ctx.combocids) >= ctx.snapshot.curcid {
            UpdateStatus::SelfModified
        } else {
            UpdateStatus::Invisible
        });
    }
    let (status, _, hint) = resolve(ctx, xids, xmax, HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID)?;
    if status == XidStatus::InProgress || status == XidStatus::SubCommitted {
        return Ok(UpdateStatus::BeingModified(xmax));
    }
    if hdr.xmax_is_locked_only() || status == XidStatus::Aborted {
        // A finished locker holds nothing; an aborted deleter deleted nothing.
        *hints |= HEAP_XMAX_INVALID;
        return Ok(UpdateStatus::Ok);
    }
    *hints |= hint;
    Ok(gone)
}

/// [`xmax_update_status`] for a multi xmax: its updater decides as a plain
/// xmax would; otherwise a running member of another transaction makes the
/// row "being modified" (the caller sorts out conflicts, see
/// `multixact.rs`), and a multi whose every member has ended holds nothing.
fn multi_update_status<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    gone: UpdateStatus,
    ctx: &VisibilityContext,
    hints: &mut u16,
) -> Result<UpdateStatus> {
    let updater = update_xid(hdr, ctx.mgr)?;
    if updater.is_valid() {
        if ctx.is_own(updater) {
            return Ok(if cmax(hdr, &ctx.combocids) >= ctx.snapshot.curcid {
                UpdateStatus::SelfModified
            } else {
                UpdateStatus::Invisible
            });
        }
        if ctx.mgr.xid_status(updater)? == XidStatus::Committed {
            return Ok(gone);
        }
    }
    let Holders::Live(live) = holders(hdr, ctx, None)? else {
        // The updater committed since we asked above.
        return Ok(gone);
    };
    if live.iter().any(|m| !ctx.is_own(m.xid)) {
        return Ok(UpdateStatus::BeingModified(hdr.xmax()));
    }
    if live.is_empty() {
        *hints |= HEAP_XMAX_INVALID;
    }
    Ok(UpdateStatus::Ok)
}

/// What a unique check needs to know about a heap tuple: whether it is, or may
/// yet become, a live row (PostgreSQL's SnapshotDirty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirtyStatus {
    /// Aborted, or deleted by a committed transaction or by us: no conflict.
    Dead,
    /// Committed (or ours) and not deleted: a conflicting key is a violation.
    Live,
    /// Inserted or deleted by a transaction still running: wait for it and
    /// look again.
    InProgress(Xid),
}

/// satisfies_dirty -- the latest state of `tuple`, regardless of any snapshot
/// (what a unique check must judge: a row committed after the snapshot, or one
/// still being inserted, still blocks a duplicate).
pub fn satisfies_dirty(tuple: &[u8], ctx: &VisibilityContext) -> Result<DirtyStatus> {
    let hdr = header(tuple)?;
    let xids = &mut XidCache::default();
    if !hdr.xmin_committed() {
        if hdr.xmin_invalid() {
            return Ok(DirtyStatus::Dead);
        }
        let xmin = hdr.xmin();
        if !ctx.is_own(xmin) {
            match xids.lookup(ctx, xmin)?.0 {
                XidStatus::Committed => {}
                XidStatus::Aborted => return Ok(DirtyStatus::Dead),
                // Deleted by the very xid that inserted it (an aborted
                // speculative insertion): it can never become live.
                _ if self_deleted(&hdr) => return Ok(DirtyStatus::Dead),
                _ => return Ok(DirtyStatus::InProgress(xmin)),
            }
        }
    }
    if hdr.xmax_invalid() || !hdr.xmax().is_valid() || hdr.xmax_is_locked_only() {
        return Ok(DirtyStatus::Live);
    }
    let xmax = update_xid(&hdr, ctx.mgr)?;
    if !xmax.is_valid() {
        return Ok(DirtyStatus::Live);
    }
    if hdr.xmax_committed() || ctx.is_own(xmax) {
        return Ok(DirtyStatus::Dead);
    }
    Ok(match xids.lookup(ctx, xmax)?.0 {
        XidStatus::Committed => DirtyStatus::Dead,
        XidStatus::Aborted => DirtyStatus::Live,
        _ => DirtyStatus::InProgress(xmax),
    })
}

/// Whether the version's plain xmax is the xid that inserted it, as a
/// delete (not a lock): whatever that xid's fate, the version is dead.
fn self_deleted<B: AsRef<[u8]>>(hdr: &HeapTupleHeader<B>) -> bool {
    !hdr.xmax_invalid()
        && !hdr.xmax_is_multi()
        && !hdr.xmax_is_locked_only()
        && hdr.xmax() == hdr.xmin()
}

/// What an index build does with a tuple (PostgreSQL's
/// heapam_index_build_range_scan, which judges with HeapTupleSatisfiesVacuum).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildStatus {
    /// Never visible or dead to every snapshot: leave it out.
    Skip,
    /// A live row: indexed, and counted by unique checks.
    Live,
    /// Deleted, but some snapshot may still see it: indexed so that snapshot
    /// finds it, but no conflict for a unique index.
    RecentlyDead,
}

/// satisfies_index_build -- how an index build treats `tuple`, given the
/// oldest xmin any snapshot still has (`horizon`).
pub fn satisfies_index_build(
    tuple: &[u8],
    ctx: &VisibilityContext,
    horizon: Xid,
) -> Result<BuildStatus> {
    let hdr = header(tuple)?;
    Ok(match satisfies_dirty(tuple, ctx)? {
        DirtyStatus::Live | DirtyStatus::InProgress(_) => BuildStatus::Live,
        DirtyStatus::Dead => {
            let xmin_aborted = hdr.xmin_invalid()
                || (!hdr.xmin_committed()
                    && !ctx.is_own(hdr.xmin())
                    && ctx.mgr.xid_status(hdr.xmin())? == XidStatus::Aborted);
            if xmin_aborted || update_xid(&hdr, ctx.mgr)? < horizon {
                BuildStatus::Skip
            } else {
                BuildStatus::RecentlyDead
            }
        }
    })
}

/// What pruning and VACUUM make of a tuple (PostgreSQL's HTSV_Result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VacuumStatus {
    /// Invisible to every snapshot, now and later: its storage may go.
    Dead,
    /// Inserted by a committed transaction and not deleted.
    Live,
    /// Deleted by a committed transaction, but some live snapshot may
    /// still see it ("dead but not yet removable").
    RecentlyDead,
    /// Its inserter is still running.
    InsertInProgress,
    /// Its deleter is still running.
    DeleteInProgress,
}

/// The line between versions some snapshot may still need and versions
/// nobody can (PostgreSQL's GlobalVisState for one VACUUM), fixed when it is
/// made so one pass judges every tuple against the same cut-off.
pub struct PruneHorizon<'a> {
    /// Transaction status lookups.
    pub mgr: &'a TransactionManager,
    /// The horizon: the oldest xmin and CSN any live snapshot holds.
    pub horizon: Horizon,
    /// A snapshot taken exactly at the horizon: a deleter it sees committed
    /// is seen committed by every live snapshot, and by every later one.
    view: Snapshot,
}

impl<'a> PruneHorizon<'a> {
    /// new -- the horizon as of now. `template` is any snapshot (the
    /// caller's); only its xmin and CSN are replaced by the horizon's, so
    /// the judgement uses the same CSN rule as every visibility check.
    pub fn new(mgr: &'a TransactionManager, template: Snapshot) -> PruneHorizon<'a> {
        PruneHorizon::at(mgr, template, mgr.horizon())
    }

    /// recent -- a horizon at least as recent as `template` (see
    /// `TransactionManager::horizon_since`): what opportunistic pruning
    /// uses, as it asks for one per page it reads.
    pub fn recent(mgr: &'a TransactionManager, template: Snapshot) -> PruneHorizon<'a> {
        PruneHorizon::at(mgr, template, mgr.horizon_since(&template))
    }

    fn at(mgr: &'a TransactionManager, template: Snapshot, horizon: Horizon) -> PruneHorizon<'a> {
        let mut view = template;
        view.xmin = horizon.xmin;
        view.xmax = horizon.xmin;
        view.csn = horizon.csn;
        view.own_xid = None;
        PruneHorizon { mgr, horizon, view }
    }

    /// removable -- whether deleter `xid` committed before every live
    /// snapshot: below the horizon's xmin it had finished before any of them
    /// was taken, above it its CSN must precede the oldest one's (a
    /// precision PostgreSQL's xid horizon lacks: an idle READ COMMITTED
    /// transaction holding an old xid does not hold back what no snapshot
    /// can see).
    pub fn removable(&self, xid: Xid) -> Result<bool> {
        Ok(self.mgr.xid_visible(xid, &self.view)?)
    }
}

/// satisfies_vacuum -- how pruning and VACUUM judge `tuple` against
/// `horizon` (PostgreSQL's HeapTupleSatisfiesVacuum), and the hint bits the
/// answer earns. An aborted inserter makes a version dead at once; a
/// committed deleter only once it is before the horizon.
pub fn satisfies_vacuum(tuple: &[u8], horizon: &PruneHorizon) -> Result<(VacuumStatus, u16)> {
    let hdr = header(tuple)?;
    let mgr = horizon.mgr;
    let mut hints = 0;
    let deleting = hdr.xmax().is_valid() && !hdr.xmax_invalid() && !hdr.xmax_is_locked_only();
    let no_own = |_: Xid| false;
    if !hdr.xmin_committed() {
        if hdr.xmin_invalid() {
            return Ok((VacuumStatus::Dead, 0));
        }
        match mgr.xid_status(hdr.xmin())? {
            XidStatus::Committed => hints |= HEAP_XMIN_COMMITTED,
            XidStatus::Aborted => return Ok((VacuumStatus::Dead, HEAP_XMIN_INVALID)),
            _ if deleting => return Ok((VacuumStatus::DeleteInProgress, 0)),
            _ => return Ok((VacuumStatus::InsertInProgress, 0)),
        }
    }
    if !deleting {
        if hdr.xmax_is_multi() && !hdr.xmax_invalid() && !any_running(&hdr, mgr, &no_own)? {
            hints |= HEAP_XMAX_INVALID;
        }
        return Ok((VacuumStatus::Live, hints));
    }
    if hdr.xmax_is_multi() {
        return multi_vacuum_status(&hdr, horizon, hints);
    }
    let xmax = hdr.xmax();
    if !hdr.xmax_committed() {
        match mgr.xid_status(xmax)? {
            XidStatus::Committed => hints |= HEAP_XMAX_COMMITTED,
            XidStatus::Aborted => return Ok((VacuumStatus::Live, hints | HEAP_XMAX_INVALID)),
            _ => return Ok((VacuumStatus::DeleteInProgress, hints)),
        }
    }
    let status =
        if horizon.removable(xmax)? { VacuumStatus::Dead } else { VacuumStatus::RecentlyDead };
    Ok((status, hints))
}

/// [`satisfies_vacuum`] for a multi xmax with an updater: judged by the
/// updater like a plain deleter, never hinted committed; an aborted
/// updater leaves the version live, and once no member runs the whole xmax
/// is hinted invalid.
fn multi_vacuum_status<B: AsRef<[u8]>>(
    hdr: &HeapTupleHeader<B>,
    horizon: &PruneHorizon,
    mut hints: u16,
) -> Result<(VacuumStatus, u16)> {
    let mgr = horizon.mgr;
    let updater = update_xid(hdr, mgr)?;
    match mgr.xid_status(updater)? {
        XidStatus::Committed => {}
        XidStatus::Aborted => {
            if !any_running(hdr, mgr, &|_| false)? {
                hints |= HEAP_XMAX_INVALID;
            }
            return Ok((VacuumStatus::Live, hints));
        }
        _ => return Ok((VacuumStatus::DeleteInProgress, hints)),
    }
    let status =
        if horizon.removable(updater)? { VacuumStatus::Dead } else { VacuumStatus::RecentlyDead };
    Ok((status, hints))
}
