//! Heap insert, delete, update and fetch (PostgreSQL's `heapam.c`).
//!
//! Every change follows the same critical section, under the page's exclusive
//! content lock and with the buffer pinned:
//!
//! 1. change the page;
//! 2. mark the buffer dirty (before logging, so a checkpoint that fixes its redo
//!    point after our record cannot miss the page);
//! 3. insert the WAL record (which carries a full-page image if this is the
//!    page's first change since the last checkpoint);
//! 4. stamp the page with the record's end LSN.
//!
//! Delete and update first check the target version with `satisfies_update`. A
//! version held by a running transaction makes the writer unlock the page, wait
//! for that transaction and check again; the outcome of a failed attempt is a
//! [`TmFailure`] for the caller to act on (see `epq.rs` for READ COMMITTED).
//!
//! Lock order: when an update's new version goes to another page, the two pages
//! are locked in block-number order, and the old version is re-checked after the
//! relock because the old page was briefly unlocked.

mod fetch;

use super::hints::{set_hints, TupleHint};
use super::hio::{get_page_for_tuple, page_has_room, reserved_space};
use super::multixact::{carried_xmax, new_xmax, plan, NewXmax, Plan};
use super::pruneheap::{heap_page_prune_on_access, heap_page_prune_opt, HotChain};
use super::tuplock::{queue_for_row, RowLockTarget, TupleLockMode};
use super::visibility::{
    cmin, satisfies_dirty, satisfies_mvcc, satisfies_update, satisfies_vacuum, DirtyStatus,
    PruneHorizon, UpdateStatus, VacuumStatus, VisibilityContext,
};
use super::visibilitymap;
use super::xlog::*;
use super::HeapRelation;
use crate::common::htup::*;
use crate::common::{check_tuple_size, TupleError};
use crate::engine::Engine;
use crate::error::{AccessError, Result};
pub use fetch::{
    heap_dirty_status, heap_dirty_version, heap_hot_search, heap_version_is_live, HeapFetch,
    HotSearch,
};
use sluice_common::{BlockNumber, ForkNumber, ItemPointer, RmgrId, Xid};
use sluice_storage::buffer::{Buffer, BufferTag, BufferWriteGuard};
use sluice_storage::page::PD_PAGE_FULL;
use sluice_txn::lmgr::LockError;
use sluice_txn::{MultiXactMember, MultiXactStatus, Transaction};
use sluice_wal::{BlockRef, RecordBuilder, BLOCK_WILL_INIT};

/// Why a delete, update or lock did not happen (PostgreSQL's TM_Result other
/// than TM_Ok).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmFailure {
    /// The version is not visible to the command at all.
    Invisible,
    /// This transaction already changed it in this or a later command.
    SelfModified,
    /// A committed transaction updated it; the newer version is here.
    Updated(ItemPointer),
    /// A committed transaction deleted it.
    Deleted,
    /// Another transaction holds it and the caller asked not to wait
    /// (NOWAIT, SKIP LOCKED).
    WouldBlock,
}

/// What a row lock does when another transaction holds the row (PostgreSQL's
/// LockWaitPolicy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockWaitPolicy {
    /// Wait for the holder to finish.
    Block,
    /// Fail at once (the caller raises 55P03).
    Nowait,
    /// Report the row as locked so the caller skips it.
    SkipLocked,
}

/// The result of a delete/update/lock attempt.
pub type TmResult<T> = std::result::Result<T, TmFailure>;

pub(super) fn corrupt_tid(tid: ItemPointer) -> AccessError {
    AccessError::Corrupt(format!("no heap tuple at {tid}"))
}

pub(super) fn tag_of(rel: &HeapRelation, block: u32) -> BufferTag {
    BufferTag::new(rel.locator, ForkNumber::Main, block)
}

/// Fills in the transaction fields of a freshly formed tuple.
fn stamp_new_tuple(tuple: &mut [u8], xid: Xid, cid: u32, updated: bool) -> Result<()> {
    let mut hdr = HeapTupleHeader::new(tuple)?;
    hdr.set_xmin(xid);
    hdr.set_xmax(Xid::INVALID);
    hdr.set_cid(cid);
    let mut infomask = (hdr.infomask() & !HEAP_XACT_MASK) | HEAP_XMAX_INVALID;
    if updated {
        infomask |= HEAP_UPDATED;
    }
    hdr.set_infomask(infomask);
    hdr.clear_infomask2_bits(HEAP2_XACT_MASK);
    Ok(())
}

/// stamp_carried_lockers -- gives an update's new version the lockers of
/// the old one that survive the update (`keep`; see
/// `multixact::carried_xmax`), or no xmax when none does.
fn stamp_carried_lockers(
    engine: &Engine,
    xid: Xid,
    tuple: &mut [u8],
    keep: &[MultiXactMember],
) -> Result<()> {
    let mut hdr = HeapTupleHeader::new(tuple)?;
    hdr.set_infomask(hdr.infomask() & !HEAP_XMAX_BITS);
    hdr.clear_infomask2_bits(HEAP_KEYS_UPDATED);
    match carried_xmax(engine.txns(), xid, keep)? {
        None => {
            hdr.set_xmax(Xid::INVALID);
            hdr.set_infomask(hdr.infomask() | HEAP_XMAX_INVALID);
        }
        Some(lockers) => {
            hdr.set_xmax(lockers.xmax);
            hdr.set_infomask(hdr.infomask() | lockers.infomask);
            hdr.set_infomask2_bits(lockers.infomask2);
        }
    }
    Ok(())
}

/// Stamps a version as deleted/updated at command `cid`, with the xmax
/// `new` (the updater's xid, or a multi of it and the row's lockers).
fn stamp_xmax(tuple: &mut [u8], new: NewXmax, cid: (u32, bool), ctid: ItemPointer) -> Result<()> {
    let mut hdr = HeapTupleHeader::new(tuple)?;
    hdr.set_xmax(new.xmax);
    hdr.set_cid(cid.0);
    let mut infomask = (hdr.infomask() & !(HEAP_XMAX_BITS | HEAP_COMBOCID)) | new.infomask;
    if cid.1 {
        infomask |= HEAP_COMBOCID;
    }
    hdr.set_infomask(infomask);
    // A HOT link from an earlier, aborted update no longer holds; an update
    // that stays heap-only sets it again.
    hdr.clear_infomask2_bits(HEAP_HOT_UPDATED | HEAP_KEYS_UPDATED);
    hdr.set_infomask2_bits(new.infomask2);
    hdr.set_ctid(ctid);
    Ok(())
}

/// The command id field for a version this transaction is about to delete: a
/// combo id when the transaction also inserted it.
fn cid_for_delete(txn: &mut Transaction, tuple: &[u8], xid: Xid) -> Result<(u32, bool)> {
    let hdr = HeapTupleHeader::new(tuple)?;
    let curcid = txn.command_id();
    if hdr.xmin() == xid || txn.is_current_xid(hdr.xmin()) {
        let inserted_by = cmin(&hdr, &txn.combocids());
        return Ok((txn.combocids_mut().combo(inserted_by, curcid), true));
    }
    Ok((curcid, false))
}

/// Lowers the page's prune hint to `xid` (pruning may find something once
/// `xid` is old enough).
fn note_prunable(page: &mut BufferWriteGuard<'_>, xid: Xid) {
    let current = page.prune_xid();
    if !current.is_valid() || xid < current {
        page.set_prune_xid(xid);
    }
}

/// heap_insert -- stores `tuple` (formed by `common::form_tuple`) as a new
/// version inserted by `txn`'s current command, and returns its address.
pub fn heap_insert(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    tuple: &[u8],
) -> Result<ItemPointer> {
    check_tuple_size(tuple.len())?;
    let xid = txn.assign_xid();
    let mut tuple = tuple.to_vec();
    stamp_new_tuple(&mut tuple, xid, txn.command_id(), false)?;
    let reserve = reserved_space(rel);
    loop {
        let buffer = get_page_for_tuple(engine, rel, tuple.len(), reserve, None)?;
        let mut page = buffer.write();
        if !page_has_room(&page, tuple.len(), reserve) {
            // Someone filled the page since it was chosen: ask again.
            engine.set_target_block(rel.locator, None);
            continue;
        }
        visibilitymap::clear(engine.pool(), rel.locator, buffer.block(), &mut page)?;
        let (tid, will_init) = add_tuple(&mut page, buffer.block(), &tuple)?;
        page.mark_dirty();
        let end = {
            let record = RecordBuilder::new(RmgrId::Heap, XLOG_HEAP_INSERT, xid)
                .with_block(new_tuple_block(rel, &page, tid, will_init)?);
            engine.wal().insert(&record)?
        };
        page.set_lsn(end);
        engine.set_target_block(rel.locator, Some(tid.block));
        return Ok(tid);
    }
}

/// Adds `tuple` to the locked `page` (initialising a never-used page) and sets
/// its ctid to its own address. Returns the address and whether the page was
/// initialised here (then its WAL block is WILL_INIT instead of imaged).
fn add_tuple(
    page: &mut BufferWriteGuard<'_>,
    block: u32,
    tuple: &[u8],
) -> Result<(ItemPointer, bool)> {
    let will_init = page.is_new();
    if will_init {
        page.init(0);
    }
    let offset = page
        .add_item(tuple)
        .ok_or(TupleError::TooBig { size: tuple.len(), max: MAX_HEAP_TUPLE_SIZE })?;
    let tid = ItemPointer::new(block, offset);
    HeapTupleHeader::new(page.item_mut(offset).ok_or_else(|| corrupt_tid(tid))?)?.set_ctid(tid);
    Ok((tid, will_init))
}

/// The WAL block reference for a page that received the new version at `tid`.
fn new_tuple_block<'p>(
    rel: &HeapRelation,
    page: &'p BufferWriteGuard<'_>,
    tid: ItemPointer,
    will_init: bool,
) -> Result<BlockRef<'p>> {
    let tuple = page.item(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
    let block = BlockRef::new(0, rel.locator, ForkNumber::Main, tid.block)
        .with_data(encode_new_tuple(tid.offset, tuple)?);
    Ok(if will_init {
        block.with_flags(BLOCK_WILL_INIT)
    } else {
        block.with_page(page.as_bytes(), page.hole())
    })
}

/// The record kind and WAL block reference of an update whose new version
/// (`tid`) went to the page of the old one (at `old_offset`): the new tuple
/// as a delta against the old when they share enough bytes.
fn same_page_update_block<'p>(
    rel: &HeapRelation,
    page: &'p BufferWriteGuard<'_>,
    tid: ItemPointer,
    old_offset: u16,
) -> Result<(u8, BlockRef<'p>)> {
    let tuple = page.item(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
    let old = page.item(old_offset).ok_or_else(|| corrupt_tid(tid))?;
    let Some(delta) = encode_new_tuple_delta(tid.offset, tuple, old)? else {
        return Ok((XLOG_HEAP_UPDATE, new_tuple_block(rel, page, tid, false)?));
    };
    let block = BlockRef::new(0, rel.locator, ForkNumber::Main, tid.block)
        .with_data(delta)
        .with_page(page.as_bytes(), page.hole());
    Ok((XLOG_HEAP_UPDATE | XLOG_HEAP_UPDATE_DELTA, block))
}

/// The WAL block reference for the page holding an update's old version.
fn old_tuple_block<'p>(
    rel: &HeapRelation,
    page: &'p BufferWriteGuard<'_>,
    block: u32,
) -> BlockRef<'p> {
    BlockRef::new(1, rel.locator, ForkNumber::Main, block).with_page(page.as_bytes(), page.hole())
}

/// What a delete/update of a version it may change must do next.
enum Target {
    /// Go ahead, stamping this xmax; these lockers (FOR KEY SHARE under a
    /// no-key update) keep holding the row and go on to the new version.
    Go(NewXmax, Vec<MultiXactMember>),
    /// Wait for this holder first; `queue` unless the asker already holds
    /// a lock on the row (queueing behind waiters that wait for the asker
    /// would deadlock, as PostgreSQL's `current_is_member` check avoids).
    Wait { holder: Xid, queue: bool },
}

/// The heavyweight tuple lock a writer that must wait for a row queues on
/// before sleeping on the holder (PostgreSQL's `heap_acquire_tuplock` in
/// heap_update and heap_delete), the same lock row lockers queue on
/// (`tuplock.rs`): waiters for one row are then served in arrival order
/// instead of by whoever wakes first. Taken at the first wait, released
/// once the change is made or given up.
struct RowQueue {
    target: RowLockTarget,
    held: Option<TupleLockMode>,
}

impl RowQueue {
    fn new(rel: &HeapRelation, tid: ItemPointer) -> RowQueue {
        let target = RowLockTarget { database: rel.locator.db_oid, relation: rel.oid, tid };
        RowQueue { target, held: None }
    }

    /// join -- takes the tuple lock in the mode of `want`, once.
    fn join(
        &mut self,
        txn: &Transaction,
        want: MultiXactStatus,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<()> {
        if self.held.is_some() {
            return Ok(());
        }
        let strength = match want {
            MultiXactStatus::NoKeyUpdate => TupleLockMode::NoKeyUpdate,
            _ => TupleLockMode::Update,
        };
        queue_for_row(txn, self.target, strength, interrupted)?;
        self.held = Some(strength);
        Ok(())
    }

    /// leave -- releases the tuple lock if it was taken.
    fn leave(self, txn: &Transaction) {
        if let Some(strength) = self.held {
            txn.unlock(self.target.tuple_tag(), strength.tuple_lock_mode());
        }
    }
}

/// Checks `tid` on the locked `page` for a delete/update by `xid` as
/// `want` (`Update` or `NoKeyUpdate`): whether it must wait for a holder,
/// and otherwise the xmax to stamp — a multi when lockers that do not
/// conflict (FOR KEY SHARE under a no-key update) keep holding the row.
/// An updater that commits while we look makes us look again (see
/// [`Plan::Recheck`]): the page lock keeps the header still, and a
/// committed status stays committed, so the second look reports the
/// version as updated or deleted.
fn check_target(
    engine: &Engine,
    tag: BufferTag,
    page: &mut BufferWriteGuard<'_>,
    tid: ItemPointer,
    txn: &mut Transaction,
    (xid, want): (Xid, MultiXactStatus),
) -> Result<TmResult<Target>> {
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    loop {
        let (status, ctid) = judge_for_update(engine, tag, page, tid, &ctx)?;
        let item = page.item(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
        return Ok(match status {
            UpdateStatus::Ok | UpdateStatus::BeingModified(_) => {
                match plan(&HeapTupleHeader::new(item)?, &ctx, xid, want)? {
                    Plan::Wait { blockers, asker_holds } => {
                        Ok(Target::Wait { holder: blockers[0], queue: !asker_holds })
                    }
                    Plan::Proceed(keep, status) => {
                        let new = new_xmax(engine.txns(), xid, status, &keep)?;
                        Ok(Target::Go(new, keep))
                    }
                    Plan::Recheck => continue,
                    Plan::Held => {
                        return Err(AccessError::Internal("an update found its row held".into()))
                    }
                }
            }
            UpdateStatus::Invisible => Err(TmFailure::Invisible),
            UpdateStatus::SelfModified => Err(TmFailure::SelfModified),
            UpdateStatus::Updated => Err(TmFailure::Updated(ctid)),
            UpdateStatus::Deleted => Err(TmFailure::Deleted),
        });
    }
}

/// judge_for_update -- `satisfies_update` of the version at `tid` on the
/// locked `page`, setting the hint bits the check earned; with the
/// version's ctid (where its successor is, if it was updated).
pub(super) fn judge_for_update(
    engine: &Engine,
    tag: BufferTag,
    page: &mut BufferWriteGuard<'_>,
    tid: ItemPointer,
    ctx: &VisibilityContext,
) -> Result<(UpdateStatus, ItemPointer)> {
    let item = page.item(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
    let ctid = HeapTupleHeader::new(item)?.ctid();
    let (status, hints) = satisfies_update(item, tid, ctx)?;
    if hints != 0 {
        let hint = TupleHint::new(tid.offset, item, hints)?;
        set_hints(engine, tag, page, &[hint])?;
    }
    Ok((status, ctid))
}

/// wait_for -- sleeps until transaction `xid` ends, as `txn`'s backend, so the
/// wait takes part in deadlock detection (XactLockTableWait). `interrupted`
/// ends the wait with [`AccessError::Interrupted`]; a deadlock fails it with
/// [`AccessError::Lock`].
pub fn wait_for(txn: &Transaction, xid: Xid, interrupted: &dyn Fn() -> bool) -> Result<()> {
    match txn.wait_for_xid(xid, &txn.row_wait_params(interrupted)) {
        Ok(()) => Ok(()),
        Err(LockError::Interrupted) => Err(AccessError::Interrupted),
        Err(e) => Err(AccessError::Lock(e)),
    }
}

/// heap_delete -- marks the version at `tid` deleted by `txn`, waiting for a
/// concurrent writer of it to finish first. `interrupted` is polled while
/// waiting (cancel, lock_timeout).
pub fn heap_delete(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    tid: ItemPointer,
    interrupted: &dyn Fn() -> bool,
) -> Result<TmResult<()>> {
    let xid = txn.assign_xid();
    with_changeable_version(
        engine,
        rel,
        txn,
        (tid, xid),
        LockWaitPolicy::Block,
        interrupted,
        |txn, page, new| {
            let cid =
                cid_for_delete(txn, page.item(tid.offset).ok_or_else(|| corrupt_tid(tid))?, xid)?;
            let item = page.item_mut(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
            stamp_xmax(item, new, cid, tid)?;
            let change = HeaderChange::capture(tid.offset, item)?;
            note_prunable(page, xid);
            log_header_change(engine, rel, page, tid, xid, XLOG_HEAP_DELETE, change)
        },
    )
}

/// with_changeable_version -- locks `tid`'s page exclusively and runs `change`
/// once the version there may be deleted by `xid`: a conflicting holder is
/// waited for (or, unless `policy` is Block, reported as `WouldBlock`), and a
/// version `txn` may not change is reported as its `TmFailure`. `change` gets
/// the xmax to stamp.
#[allow(clippy::too_many_arguments)]
fn with_changeable_version<T>(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    (tid, xid): (ItemPointer, Xid),
    policy: LockWaitPolicy,
    interrupted: &dyn Fn() -> bool,
    change: impl FnOnce(&mut Transaction, &mut BufferWriteGuard<'_>, NewXmax) -> Result<T>,
) -> Result<TmResult<T>> {
    let want = (xid, MultiXactStatus::Update);
    let mut queue = RowQueue::new(rel, tid);
    let outcome = (|| loop {
        let buffer = engine.pool().read_buffer(tag_of(rel, tid.block))?;
        let mut page = buffer.write();
        match check_target(engine, buffer.tag(), &mut page, tid, txn, want)? {
            Err(failure) => return Ok(Err(failure)),
            Ok(Target::Wait { .. }) if policy != LockWaitPolicy::Block => {
                return Ok(Err(TmFailure::WouldBlock))
            }
            Ok(Target::Wait { holder, queue: in_queue }) => {
                drop(page);
                drop(buffer);
                if in_queue {
                    queue.join(txn, want.1, interrupted)?;
                }
                wait_for(txn, holder, interrupted)?;
            }
            Ok(Target::Go(new, _)) => return change(txn, &mut page, new).map(Ok),
        }
    })();
    queue.leave(txn);
    outcome
}

/// Marks the page dirty, logs `change` of the tuple at `tid` as record `info`,
/// and stamps the page LSN.
pub(super) fn log_header_change(
    engine: &Engine,
    rel: &HeapRelation,
    page: &mut BufferWriteGuard<'_>,
    tid: ItemPointer,
    xid: Xid,
    info: u8,
    change: HeaderChange,
) -> Result<()> {
    visibilitymap::clear(engine.pool(), rel.locator, tid.block, page)?;
    page.mark_dirty();
    let end = engine.wal().insert(
        &RecordBuilder::new(RmgrId::Heap, info, xid).with_main_data(change.encode()).with_block(
            BlockRef::new(0, rel.locator, ForkNumber::Main, tid.block)
                .with_page(page.as_bytes(), page.hole()),
        ),
    )?;
    page.set_lsn(end);
    Ok(())
}

/// Decides whether an update may be heap-only: called with the old version
/// (as it is on the page, under its lock) and the new one, true if no column
/// any index uses differs between them (PostgreSQL compares the indexed
/// attributes' bytes, HeapDetermineColumnsInfo). A table without indexes
/// answers true.
pub type IndexedColumnsUnchanged<'a> = &'a dyn Fn(&[u8], &[u8]) -> bool;

/// Where an update put the new version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdatedVersion {
    /// Its address.
    pub tid: ItemPointer,
    /// It is a heap-only tuple (HOT): on the old version's page, reachable
    /// from the old version's index entries, so the caller must not insert
    /// index entries for it.
    pub heap_only: bool,
}

/// heap_update -- replaces the version at `otid` with `tuple` (formed by
/// `common::form_tuple`), waiting for a concurrent writer first. The new
/// version is heap-only (a HOT update, see `README.HOT` in PostgreSQL and the
/// module doc of `pruneheap.rs`) when it fits on the old version's page and
/// `indexed_unchanged` says no indexed column changed.
pub fn heap_update(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    otid: ItemPointer,
    tuple: &[u8],
    indexed_unchanged: IndexedColumnsUnchanged,
    interrupted: &dyn Fn() -> bool,
) -> Result<TmResult<UpdatedVersion>> {
    check_tuple_size(tuple.len())?;
    let xid = txn.assign_xid();
    let mut tuple = tuple.to_vec();
    stamp_new_tuple(&mut tuple, xid, txn.command_id(), true)?;
    let mut queue = RowQueue::new(rel, otid);
    let outcome = (|| loop {
        let obuf = engine.pool().read_buffer(tag_of(rel, otid.block))?;
        let mut opage = obuf.write();
        let old = opage.item(otid.offset).ok_or_else(|| corrupt_tid(otid))?;
        let want = (xid, update_status(indexed_unchanged(old, &tuple)));
        let new = match check_target(engine, obuf.tag(), &mut opage, otid, txn, want)? {
            Err(failure) => return Ok(Err(failure)),
            Ok(Target::Wait { holder, queue: in_queue }) => {
                drop(opage);
                drop(obuf);
                if in_queue {
                    queue.join(txn, want.1, interrupted)?;
                }
                wait_for(txn, holder, interrupted)?;
                continue;
            }
            Ok(Target::Go(new, keep)) => {
                stamp_carried_lockers(engine, xid, &mut tuple, &keep)?;
                new
            }
        };
        let needed = sluice_common::maxalign(tuple.len());
        if opage.heap_free_space() < needed {
            heap_page_prune_opt(engine, rel, otid.block, &mut opage, txn)?;
        }
        if opage.heap_free_space() >= needed {
            let old = opage.item(otid.offset).ok_or_else(|| corrupt_tid(otid))?;
            let hot = indexed_unchanged(old, &tuple);
            mark_heap_only(&mut tuple, hot)?;
            return update_on_page(engine, rel, txn, &obuf, &mut opage, otid, &tuple, (xid, new))
                .map(Ok);
        }
        // PostgreSQL's PD_PAGE_FULL: even pruning left no room here, so a
        // reader's opportunistic pruning is worth trying.
        opage.set_flag(PD_PAGE_FULL);
        drop(opage);
        mark_heap_only(&mut tuple, false)?;
        if let Some(new_tid) = update_across_pages(engine, rel, txn, &obuf, otid, &mut tuple, want)?
        {
            return Ok(Ok(UpdatedVersion { tid: new_tid, heap_only: false }));
        }
        // The old version changed or the new page filled while unlocked: retry.
    })();
    queue.leave(txn);
    outcome
}

/// The member status of an UPDATE: a no-key update when no indexed column
/// changes. (PostgreSQL asks about the columns of unique indexes only; any
/// index is a superset, so this errs towards the stronger lock: an update
/// of a column only a non-unique index covers waits for FOR KEY SHARE
/// lockers where PostgreSQL's would not.)
fn update_status(indexed_unchanged: bool) -> MultiXactStatus {
    if indexed_unchanged {
        MultiXactStatus::NoKeyUpdate
    } else {
        MultiXactStatus::Update
    }
}

/// Marks a new version heap-only (no index entry will point at it) or not;
/// an earlier attempt of the same update may have decided otherwise.
fn mark_heap_only(tuple: &mut [u8], heap_only: bool) -> Result<()> {
    let mut hdr = HeapTupleHeader::new(tuple)?;
    if heap_only {
        hdr.set_infomask2_bits(HEAP_ONLY_TUPLE);
    } else {
        hdr.clear_infomask2_bits(HEAP_ONLY_TUPLE);
    }
    Ok(())
}

/// The update's new version fits on the old version's page; it is a HOT
/// update if `tuple` was marked heap-only, and the old version is then
/// marked HOT-updated, linking the chain.
#[allow(clippy::too_many_arguments)]
fn update_on_page(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    buffer: &Buffer<'_>,
    page: &mut BufferWriteGuard<'_>,
    otid: ItemPointer,
    tuple: &[u8],
    (xid, new): (Xid, NewXmax),
) -> Result<UpdatedVersion> {
    let heap_only = HeapTupleHeader::new(tuple)?.is_heap_only();
    let cid = cid_for_delete(txn, page.item(otid.offset).ok_or_else(|| corrupt_tid(otid))?, xid)?;
    visibilitymap::clear(engine.pool(), rel.locator, buffer.block(), page)?;
    let (ntid, _) = add_tuple(page, buffer.block(), tuple)?;
    let old = page.item_mut(otid.offset).ok_or_else(|| corrupt_tid(otid))?;
    stamp_xmax(old, new, cid, ntid)?;
    if heap_only {
        HeapTupleHeader::new(&mut *old)?.set_infomask2_bits(HEAP_HOT_UPDATED);
    }
    let change = HeaderChange::capture(otid.offset, old)?;
    note_prunable(page, xid);
    page.mark_dirty();
    let end = {
        let (info, block) = same_page_update_block(rel, page, ntid, otid.offset)?;
        let record = RecordBuilder::new(RmgrId::Heap, info, xid)
            .with_main_data(change.encode())
            .with_block(block);
        engine.wal().insert(&record)?
    };
    page.set_lsn(end);
    Ok(UpdatedVersion { tid: ntid, heap_only })
}

/// The update's new version goes to another page. Returns `None` if the caller
/// must start over (see the lock-order note in the module doc).
fn update_across_pages(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    obuf: &Buffer<'_>,
    otid: ItemPointer,
    tuple: &mut [u8],
    (xid, want): (Xid, MultiXactStatus),
) -> Result<Option<ItemPointer>> {
    let nbuf = get_page_for_tuple(engine, rel, tuple.len(), reserved_space(rel), Some(otid.block))?;
    let (mut opage, mut npage) = if nbuf.block() < obuf.block() {
        let n = nbuf.write();
        (obuf.write(), n)
    } else {
        let o = obuf.write();
        (o, nbuf.write())
    };
    let new = match check_target(engine, obuf.tag(), &mut opage, otid, txn, (xid, want))? {
        Ok(Target::Go(new, keep)) if page_has_room(&npage, tuple.len(), 0) => {
            stamp_carried_lockers(engine, xid, tuple, &keep)?;
            new
        }
        _ => {
            engine.set_target_block(rel.locator, None);
            return Ok(None);
        }
    };
    let cid = cid_for_delete(txn, opage.item(otid.offset).ok_or_else(|| corrupt_tid(otid))?, xid)?;
    visibilitymap::clear(engine.pool(), rel.locator, nbuf.block(), &mut npage)?;
    visibilitymap::clear(engine.pool(), rel.locator, obuf.block(), &mut opage)?;
    let (ntid, will_init) = add_tuple(&mut npage, nbuf.block(), tuple)?;
    let old = opage.item_mut(otid.offset).ok_or_else(|| corrupt_tid(otid))?;
    stamp_xmax(old, new, cid, ntid)?;
    let change = HeaderChange::capture(otid.offset, old)?;
    note_prunable(&mut opage, xid);
    npage.mark_dirty();
    opage.mark_dirty();
    let end = {
        let record = RecordBuilder::new(RmgrId::Heap, XLOG_HEAP_UPDATE, xid)
            .with_main_data(change.encode())
            .with_block(new_tuple_block(rel, &npage, ntid, will_init)?)
            .with_block(old_tuple_block(rel, &opage, otid.block));
        engine.wal().insert(&record)?
    };
    npage.set_lsn(end);
    opage.set_lsn(end);
    engine.set_target_block(rel.locator, Some(ntid.block));
    Ok(Some(ntid))
}

/// heap_abort_speculative -- kills the version `txn` inserted at `tid` in
/// this very command, because its speculative insertion met a conflict
/// (INSERT ... ON CONFLICT; PostgreSQL's heap_abort_speculative). The
/// version is stamped deleted by the xid that inserted it: nobody can see
/// it, now or after either outcome of the transaction, and a concurrent
/// unique check judges it dead at once (`satisfies_dirty`), so another
/// inserter of the key never waits for the rest of this transaction.
pub fn heap_abort_speculative(
    engine: &Engine,
    rel: &HeapRelation,
    txn: &mut Transaction,
    tid: ItemPointer,
) -> Result<()> {
    let xid = txn.assign_xid();
    let buffer = engine.pool().read_buffer(tag_of(rel, tid.block))?;
    let mut page = buffer.write();
    let item = page.item(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
    if HeapTupleHeader::new(item)?.xmin() != xid {
        return Err(AccessError::Internal("aborting a speculative insertion of another".into()));
    }
    let cid = cid_for_delete(txn, item, xid)?;
    let new = NewXmax { xmax: xid, infomask: 0, infomask2: HEAP_KEYS_UPDATED };
    let item = page.item_mut(tid.offset).ok_or_else(|| corrupt_tid(tid))?;
    stamp_xmax(item, new, cid, tid)?;
    let change = HeaderChange::capture(tid.offset, item)?;
    note_prunable(&mut page, xid);
    log_header_change(engine, rel, &mut page, tid, xid, XLOG_HEAP_DELETE, change)
}
