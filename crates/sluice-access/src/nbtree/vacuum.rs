//! B-tree bulk delete for VACUUM (PostgreSQL's `nbtree.c`: btbulkdelete,
//! btvacuumscan, btvacuumpage).
//!
//! # The idea
//!
//! VACUUM has found heap tuples dead to everyone and turned their line
//! pointers `LP_DEAD`; before those line pointers may be reused, every index
//! entry pointing at them must go. Bulk delete visits every leaf once, left
//! to right along the right links, and removes the entries whose heap TID
//! the caller's set holds. A leaf left empty — by this pass or an earlier
//! one — is then deleted (`delete.rs`), and a half-dead leaf a crash left
//! behind is finished. Afterwards every page is read once in block order to
//! count the deleted pages and hand those no scan can reach any more to the
//! free space map, for splits to reuse (PostgreSQL's btvacuumscan finds
//! them on the same physical pass that cleans the leaves).
//!
//! # Why one pass along the right links misses nothing
//!
//! PostgreSQL scans the file in physical order and uses *cycle ids* to notice
//! a page that split, during the scan, onto a block it had already passed.
//! Following the right links in key order needs neither: a leaf is read with
//! its right link under its lock, so a split of a page not yet visited moves
//! entries to a page still ahead; a split of a page already visited moves
//! only entries already cleaned, plus new ones. New entries can never point
//! at a dead TID, because a dead line pointer is not reused until this pass
//! and the heap pass after it are done. The price is reading leaves in key
//! order rather than block order.
//!
//! # Locking
//!
//! One leaf at a time, exclusively. PostgreSQL takes a cleanup lock on each
//! leaf so that no scan still holding a pin there can return a TID whose heap
//! slot is then reused; sluice's scans copy a leaf's entries and let go of
//! it, and check every TID against their MVCC snapshot, which a tuple
//! inserted into a recycled slot after the scan began cannot satisfy — the
//! argument PostgreSQL itself uses for dropping pins under MVCC snapshots.
//! Unique checks keep their leaf locked while they judge the heap, so they
//! are never overtaken.
//!
//! # WAL
//!
//! One `XLOG_BTREE_VACUUM` record per changed leaf, naming the removed
//! offsets; redo removes the same ones.

use super::delete::{delete_leaf, leaf_is_empty, record_recyclable};
use super::page::{tuple_at, Meta, Opaque, BTREE_METAPAGE, P_NONE};
use super::search::{descend, pin, read_meta, Target};
use super::xlog::{PendingRecord, XLOG_BTREE_META_CLEANUP, XLOG_BTREE_VACUUM};
use super::BTreeIndex;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use sluice_common::{ForkNumber, ItemPointer};
use sluice_storage::page::OffsetNumber;

/// What a bulk delete found (PostgreSQL's IndexBulkDeleteResult).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BulkDeleteResult {
    /// Pages in the index file.
    pub num_pages: u32,
    /// Entries left in the index.
    pub num_index_tuples: u64,
    /// Entries removed.
    pub tuples_removed: u64,
    /// Pages deleted by this pass.
    pub pages_newly_deleted: u32,
    /// Deleted pages in the index, this pass's included.
    pub pages_deleted: u32,
    /// Deleted pages recorded in the free space map for reuse.
    pub pages_free: u32,
}

impl BulkDeleteResult {
    /// followed_by -- what this pass and a `later` one over the same index
    /// found together: removals and deletions add up, the rest is as the
    /// later pass left it (PostgreSQL passes one result to every pass).
    pub fn followed_by(self, later: BulkDeleteResult) -> BulkDeleteResult {
        BulkDeleteResult {
            tuples_removed: self.tuples_removed + later.tuples_removed,
            pages_newly_deleted: self.pages_newly_deleted + later.pages_newly_deleted,
            ..later
        }
    }
}

/// btree_bulk_delete -- removes from `index` every leaf entry whose heap TID
/// `is_dead` accepts (see the module doc). `interrupted` is polled between
/// leaves (cancel, timeouts).
pub fn btree_bulk_delete(
    engine: &Engine,
    index: &BTreeIndex,
    is_dead: &dyn Fn(ItemPointer) -> bool,
    interrupted: &dyn Fn() -> bool,
) -> Result<BulkDeleteResult> {
    let mut result = BulkDeleteResult::default();
    if let Some((mut buffer, _)) = descend(engine, index, Target::Leftmost)? {
        loop {
            if interrupted() {
                return Err(AccessError::Interrupted);
            }
            let (next, empty) = vacuum_leaf(engine, index, &buffer, is_dead, &mut result)?;
            if empty {
                result.pages_newly_deleted += delete_leaf(engine, index, buffer.block())?;
            }
            if next == P_NONE {
                break;
            }
            buffer = pin(engine, index, next)?;
        }
    }
    let deleted = record_recyclable(engine, index)?;
    result.pages_deleted = deleted.deleted;
    result.pages_free = deleted.reusable;
    result.num_pages = engine.pool().nblocks(index.locator, ForkNumber::Main)?;
    Ok(result)
}

/// btree_vacuum_cleanup -- the end of an index's VACUUM (PostgreSQL's
/// btvacuumcleanup): when no bulk delete ran (`stats` is `None`: no dead
/// tuples, or the index pass was bypassed), the index is still scanned — to
/// delete empty leaves and recycle deleted pages — if the last VACUUM left
/// more than a twentieth of the index deleted but not yet reusable. Then the
/// metapage remembers how many deleted pages are still waiting. `None` if
/// the index was not looked at.
pub fn btree_vacuum_cleanup(
    engine: &Engine,
    index: &BTreeIndex,
    stats: Option<BulkDeleteResult>,
    interrupted: &dyn Fn() -> bool,
) -> Result<Option<BulkDeleteResult>> {
    let stats = match stats {
        Some(stats) => stats,
        None if needs_cleanup(engine, index)? => {
            btree_bulk_delete(engine, index, &|_| false, interrupted)?
        }
        None => return Ok(None),
    };
    set_cleanup_info(engine, index, stats.pages_deleted - stats.pages_free)?;
    Ok(Some(stats))
}

/// Whether a VACUUM without dead tuples should scan the index anyway
/// (PostgreSQL's _bt_vacuum_needs_cleanup).
fn needs_cleanup(engine: &Engine, index: &BTreeIndex) -> Result<bool> {
    let waiting = read_meta(engine, index)?.last_cleanup_num_delpages;
    let nblocks = engine.pool().nblocks(index.locator, ForkNumber::Main)?;
    Ok(waiting > 0 && waiting > nblocks / 20)
}

/// set_cleanup_info -- records in the metapage how many deleted pages are
/// not reusable yet, if that changed (PostgreSQL's _bt_set_cleanup_info).
fn set_cleanup_info(engine: &Engine, index: &BTreeIndex, num_delpages: u32) -> Result<()> {
    let buffer = pin(engine, index, BTREE_METAPAGE)?;
    let mut page = buffer.write();
    let meta = Meta::of(&page)?;
    if meta.last_cleanup_num_delpages == num_delpages {
        return Ok(());
    }
    Meta { last_cleanup_num_delpages: num_delpages, ..meta }.init_page(&mut page);
    page.mark_dirty();
    let mut record = PendingRecord::default();
    record.init_page(BTREE_METAPAGE, &page);
    let end = record.log(engine, index.locator, XLOG_BTREE_META_CLEANUP)?;
    page.set_lsn(end);
    Ok(())
}

/// vacuum_leaf -- removes the dead entries of the leaf in `buffer` under its
/// exclusive lock, counts what is left, and returns its right link and
/// whether the leaf is empty now (or half-dead: deletion to be finished).
fn vacuum_leaf(
    engine: &Engine,
    index: &BTreeIndex,
    buffer: &sluice_storage::buffer::Buffer<'_>,
    is_dead: &dyn Fn(ItemPointer) -> bool,
    result: &mut BulkDeleteResult,
) -> Result<(u32, bool)> {
    let mut page = buffer.write();
    let opaque = Opaque::of(&page);
    if opaque.is_ignored() {
        return Ok((opaque.next, opaque.is_half_dead()));
    }
    if !opaque.is_leaf() {
        return Err(AccessError::Corrupt(format!(
            "btree bulk delete reached non-leaf block {}",
            buffer.block()
        )));
    }
    let first = opaque.first_data();
    let mut dead: Vec<OffsetNumber> = Vec::new();
    for off in first..=page.max_offset() {
        if is_dead(tuple_at(&page, off)?.tid()) {
            dead.push(off);
        }
    }
    let entries = (page.max_offset() + 1).saturating_sub(first) as u64;
    result.num_index_tuples += entries - dead.len() as u64;
    result.tuples_removed += dead.len() as u64;
    if !dead.is_empty() {
        page.delete_items(&dead);
        page.mark_dirty();
        let mut record = PendingRecord::default();
        record.items_deleted(buffer.block(), &page, &dead);
        let end = record.log(engine, index.locator, XLOG_BTREE_VACUUM)?;
        page.set_lsn(end);
    }
    Ok((opaque.next, leaf_is_empty(&page)))
}
