//! Heap page pruning (PostgreSQL's `pruneheap.c`, heap_page_prune).
//!
//! # The idea
//!
//! A version that no snapshot can see any more — its inserter aborted, or
//! its deleter committed before every live snapshot (the *horizon*,
//! [`PruneHorizon`]) — still occupies its bytes on the page. Pruning takes
//! them back without touching any other page:
//!
//! ```text
//!   before:  lp1 → (live)   lp2 → (dead)   lp3 → (recently dead)
//!   after:   lp1 → (live)   lp2 = DEAD     lp3 → (recently dead)
//!            storage compacted: lp2's bytes are free space again
//! ```
//!
//! The line pointer itself must stay, marked `LP_DEAD`: index entries may
//! still point at it, and only VACUUM, after deleting those entries, may
//! turn it `LP_UNUSED` for reuse (`vacuumlazy.rs`). Line pointer numbers
//! never change, so every tuple address stays valid.
//!
//! HOT chains are not built yet; when they are, pruning will also collapse a
//! chain to a redirect from its root to its live member (PostgreSQL's
//! `LP_REDIRECT`), and heap-only tuples, which no index points at, will go
//! straight to `LP_UNUSED`. The WAL record then gains those two lists.
//!
//! VACUUM prunes every page; an update whose new version does not fit on its
//! page prunes that page first (`heap_page_prune_opt`), so a page of often
//! updated rows keeps reusing its own space between VACUUMs.
//!
//! # Locking
//!
//! The caller holds the page's exclusive content lock. PostgreSQL needs a
//! *cleanup* lock (exclusive and no other pin), because its scans read
//! tuples in place while holding only a pin; sluice's scans copy the page
//! under the shared lock and fetches copy the tuple (`scan.rs`), so nobody
//! holds a reference into the page without its content lock and the
//! exclusive lock is enough to move tuples. A tuple a running statement has
//! found visible is never dead to all: its snapshot holds the horizon back.
//!
//! # WAL
//!
//! One `XLOG_HEAP_PRUNE` record per pruned page names the line pointers
//! made dead; redo marks the same ones and compacts the same way, which is
//! deterministic. The page is imaged instead when it is its first change
//! since the checkpoint. Hint bits learned while judging the remaining
//! tuples are set too (they ride along in an image, and are otherwise
//! unlogged, as hints always are).

use super::hints::mark_dirty_hint;
use super::visibility::{satisfies_vacuum, PruneHorizon, VacuumStatus};
use super::xlog::{encode_offsets, XLOG_HEAP_PRUNE};
use super::HeapRelation;
use crate::common::htup::HeapTupleHeader;
use crate::engine::Engine;
use crate::error::Result;
use sluice_common::{BlockNumber, ForkNumber, RmgrId, Xid};
use sluice_storage::buffer::{BufferTag, BufferWriteGuard};
use sluice_storage::page::{LpFlags, OffsetNumber, FIRST_OFFSET, PD_PAGE_FULL};
use sluice_txn::Transaction;
use sluice_wal::{BlockRef, RecordBuilder};

/// What pruning one page found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PruneResult {
    /// Tuples whose storage this pruning released (now `LP_DEAD`).
    pub ndeleted: usize,
    /// Every `LP_DEAD` line pointer on the page afterwards, ascending: the
    /// ones made now and any an earlier pruning left for VACUUM.
    pub dead_items: Vec<OffsetNumber>,
    /// The tuples left, with their judgement against the horizon.
    pub remaining: Vec<(OffsetNumber, VacuumStatus)>,
}

/// heap_page_prune -- prunes the exclusively locked `page` (block `block` of
/// `rel`) against `horizon`; see the module doc. A never-initialised page
/// has nothing to prune.
pub fn heap_page_prune(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    horizon: &PruneHorizon,
) -> Result<PruneResult> {
    let mut result = PruneResult::default();
    if page.is_new() {
        return Ok(result);
    }
    let mut newly_dead = Vec::new();
    let mut hinted = false;
    for off in FIRST_OFFSET..=page.max_offset() {
        let id = page.item_id(off);
        if id.is_dead() {
            result.dead_items.push(off);
        }
        let Some(item) = page.item_mut(off) else { continue };
        let (status, hints) = satisfies_vacuum(item, horizon)?;
        if status == VacuumStatus::Dead {
            newly_dead.push(off);
            continue;
        }
        if hints != 0 {
            HeapTupleHeader::new(item)?.set_hint(hints);
            hinted = true;
        }
        result.remaining.push((off, status));
    }
    let prune_xid = next_prune_xid(page, &result.remaining)?;
    page.set_prune_xid(prune_xid);
    if newly_dead.is_empty() {
        if hinted {
            mark_dirty_hint(engine, BufferTag::new(rel.locator, ForkNumber::Main, block), page)?;
        }
        return Ok(result);
    }
    execute_prune(engine, rel, block, page, &newly_dead)?;
    result.ndeleted = newly_dead.len();
    result.dead_items.extend(newly_dead);
    result.dead_items.sort_unstable();
    Ok(result)
}

/// heap_page_prune_opt -- prunes the exclusively locked `page` if pruning
/// may find something: an update calls it when its new version does not fit
/// on the old version's page, before moving it to another page (PostgreSQL
/// prunes opportunistically on reads instead, with a cheaply cached
/// horizon). The page's prune hint must be older than everything `txn`'s
/// snapshot saw running — a necessary condition that costs nothing — before
/// the horizon, which locks the proc array, is computed. The version being
/// updated is never pruned: its updater's snapshot sees it.
pub fn heap_page_prune_opt(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    txn: &mut Transaction,
) -> Result<()> {
    let snapshot = txn.snapshot();
    let hint = page.prune_xid();
    if !hint.is_valid() || hint >= snapshot.xmin {
        return Ok(());
    }
    let horizon = PruneHorizon::new(engine.txns(), snapshot);
    heap_page_prune(engine, rel, block, page, &horizon).map(|_| ())
}

/// The oldest deleter among the `remaining` tuples that will make one of
/// them prunable once it is old enough (pd_prune_xid), or invalid.
fn next_prune_xid(
    page: &BufferWriteGuard<'_>,
    remaining: &[(OffsetNumber, VacuumStatus)],
) -> Result<Xid> {
    let mut oldest = Xid::INVALID;
    for &(off, status) in remaining {
        if !matches!(status, VacuumStatus::RecentlyDead | VacuumStatus::DeleteInProgress) {
            continue;
        }
        let Some(item) = page.item(off) else { continue };
        let xmax = HeapTupleHeader::new(item)?.xmax();
        if !oldest.is_valid() || xmax < oldest {
            oldest = xmax;
        }
    }
    Ok(oldest)
}

/// execute_prune -- marks `dead` (ascending) `LP_DEAD`, compacts the page and
/// logs it (PostgreSQL's heap_page_prune_execute and log_heap_prune).
fn execute_prune(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    dead: &[OffsetNumber],
) -> Result<()> {
    for &off in dead {
        page.set_item_state(off, LpFlags::Dead);
    }
    page.repair_fragmentation();
    // Room was made: the next update that finds the page full may look again.
    page.clear_flag(PD_PAGE_FULL);
    log_line_pointers(engine, rel, block, page, XLOG_HEAP_PRUNE, dead)
}

/// log_line_pointers -- dirties the changed `page` and logs record `info`
/// (`XLOG_HEAP_PRUNE` or `XLOG_HEAP_VACUUM`) naming the line pointers
/// `offsets` whose state changed, then stamps the page's LSN.
pub(super) fn log_line_pointers(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    info: u8,
    offsets: &[OffsetNumber],
) -> Result<()> {
    page.mark_dirty();
    let end = {
        let record = RecordBuilder::new(RmgrId::Heap, info, Xid::INVALID).with_block(
            BlockRef::new(0, rel.locator, ForkNumber::Main, block)
                .with_data(encode_offsets(offsets))
                .with_page(page.as_bytes(), page.hole()),
        );
        engine.wal().insert(&record)?
    };
    page.set_lsn(end);
    Ok(())
}
