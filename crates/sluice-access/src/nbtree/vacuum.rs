//! B-tree bulk delete for VACUUM (PostgreSQL's `nbtree.c`: btbulkdelete,
//! btvacuumscan, btvacuumpage).
//!
//! # The idea
//!
//! VACUUM has found heap tuples dead to everyone and turned their line
//! pointers `LP_DEAD`; before those line pointers may be reused, every index
//! entry pointing at them must go. Bulk delete visits every leaf once, left
//! to right along the right links, and removes the entries whose heap TID
//! the caller's set holds. Pages themselves are never removed here (page
//! deletion and recycling are a later step), so an emptied leaf stays in the
//! chain with only its high key.
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

use super::page::{tuple_at, Opaque, P_NONE};
use super::search::{descend, pin, Target};
use super::xlog::{PendingRecord, XLOG_BTREE_VACUUM};
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
    /// Pages deleted by this pass (page deletion is not done yet: 0).
    pub pages_newly_deleted: u32,
    /// Deleted pages in the index (0, as above).
    pub pages_deleted: u32,
    /// Deleted pages ready for reuse (0, as above).
    pub pages_free: u32,
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
    let mut result = BulkDeleteResult {
        num_pages: engine.pool().nblocks(index.locator, ForkNumber::Main)?,
        ..BulkDeleteResult::default()
    };
    let Some((mut buffer, _)) = descend(engine, index, Target::Leftmost)? else {
        return Ok(result);
    };
    loop {
        if interrupted() {
            return Err(AccessError::Interrupted);
        }
        let next = vacuum_leaf(engine, index, &buffer, is_dead, &mut result)?;
        if next == P_NONE {
            return Ok(result);
        }
        buffer = pin(engine, index, next)?;
    }
}

/// vacuum_leaf -- removes the dead entries of the leaf in `buffer` under its
/// exclusive lock, counts what is left, and returns its right link.
fn vacuum_leaf(
    engine: &Engine,
    index: &BTreeIndex,
    buffer: &sluice_storage::buffer::Buffer<'_>,
    is_dead: &dyn Fn(ItemPointer) -> bool,
    result: &mut BulkDeleteResult,
) -> Result<u32> {
    let mut page = buffer.write();
    let opaque = Opaque::of(&page);
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
    Ok(opaque.next)
}
