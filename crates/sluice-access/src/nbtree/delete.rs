//! B-tree page deletion and recycling (PostgreSQL's `nbtpage.c`:
//! `_bt_pagedel`, `_bt_mark_page_halfdead`, `_bt_unlink_halfdead_page`,
//! `_bt_allocbuf`; the README's "Page Deletion").
//!
//! # The idea
//!
//! A leaf that VACUUM's bulk delete left without entries is taken out of the
//! tree in two steps, each one atomic WAL record:
//!
//! ```text
//!   1. half-dead   parent [.. k0→L | k1→R ..]  becomes  [.. k0→R ..]
//!                  L is marked BTP_HALF_DEAD (still linked to its siblings)
//!   2. unlink      LS ⇄ L ⇄ R  becomes  LS ⇄ R;  L is marked BTP_DELETED
//!                  and stamped with the next full xid ("safexid")
//! ```
//!
//! Step 1 gives L's key range to its right sibling: L's downlink now leads
//! to R, and R's own pivot goes. Step 2 then takes L out of its level.
//! The steps cannot be one because of lock order: step 1 locks child then
//! parent, step 2 siblings left to right, and holding the parent while
//! locking the left sibling could deadlock with a split of that sibling
//! (which holds it and waits for the parent). A crash between the steps
//! leaves a half-dead leaf, which the next VACUUM finds on its walk along the
//! leaves and unlinks.
//!
//! A leaf whose downlink is the last on its parent page can go only with
//! that parent, and only if it is the parent's only child: then step 1 works
//! one level up (the parent's downlink in the grandparent is redirected) and
//! the leaf remembers the parent, and step 2 unlinks the parent first (the
//! leaf forgetting it in the same record), then the leaf. PostgreSQL deletes
//! such chains to any height; sluice stops at one parent, so a parent whose
//! own parent would be emptied too stays, with its one empty leaf, until the
//! tree around it changes. The root and the rightmost page of a level are
//! never deleted, as in PostgreSQL.
//!
//! # Why concurrent searches and scans stay correct
//!
//! A search may have read a downlink to L before step 1 and arrive after it:
//! a half-dead or deleted page counts as "the key moved right"
//! ([`Opaque::is_ignored`]), so it follows L's right link, which both steps
//! keep valid (a deleted page keeps its sibling links). A forward scan
//! holding L's address reads an empty page and goes on to its right link; a
//! backward one arriving at a deleted page goes on to its left link. A
//! parent going with its leaf is not marked in step 1: a search through a
//! stale downlink to it reaches the half-dead leaf below and moves right
//! from there; once the parent is unlinked it is itself ignored.
//!
//! # Recycling
//!
//! A deleted page may be reused only when no scan or search can still hold a
//! link to it: every one of them runs under a snapshot or transaction that
//! began before the unlink, so once the safexid is older than the oldest
//! xmin anybody has, nobody can (PostgreSQL 14's full-xid `safexid`; sluice's
//! xids are 64-bit anyway). VACUUM records such pages in the index's free
//! space map (`sluice-storage`'s `freespace.rs`, one byte per page as for a
//! heap: full or empty); [`allocate_page`] takes one from there before
//! extending the file, checking it again under its lock.
//!
//! # Locking
//!
//! Step 1: the leaf exclusively, then its parent (and grandparent), child
//! before parent. Step 2: the leaf (when unlinking its parent), then on the
//! target's level the left sibling (moving right from the remembered one if
//! it split), the target, the right sibling, all exclusively, left to
//! right. Only VACUUM deletes pages, and it holds SHARE UPDATE EXCLUSIVE
//! on the table, so two deletions never race.

use super::compare::ScanKey;
use super::page::{
    init_node, tuple_at, Opaque, BTP_DELETED, BTP_HALF_DEAD, BTP_LEAF, P_HIKEY, P_NONE,
};
use super::search::{descend_to_level, pin, read_meta, Target};
use super::xlog::{PendingRecord, XLOG_BTREE_MARK_PAGE_HALFDEAD, XLOG_BTREE_UNLINK_PAGE};
use super::BTreeIndex;
use crate::common::indextuple::set_downlink;
use crate::common::IndexTuple;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use sluice_common::{ForkNumber, Xid, BLCKSZ};
use sluice_storage::buffer::Buffer;
use sluice_storage::freespace;
use sluice_storage::page::{OffsetNumber, Page};

/// The safexid of a deleted page: the next xid when it was unlinked, kept
/// as its only item.
pub fn safexid(page: &Page) -> Option<Xid> {
    let opaque = Opaque::of(page);
    if !opaque.is_deleted() {
        return None;
    }
    let bytes = page.item(1)?;
    Some(Xid(u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?)))
}

/// page_recyclable -- whether `page` is deleted and no scan can still reach
/// it: its safexid precedes `oldest_xmin` (BTPageIsRecyclable).
pub fn page_recyclable(page: &Page, oldest_xmin: Xid) -> bool {
    safexid(page).is_some_and(|xid| xid < oldest_xmin)
}

/// Whether the leaf `page` has no entries (only, perhaps, its high key).
pub fn leaf_is_empty(page: &Page) -> bool {
    page.max_offset() < Opaque::of(page).first_data()
}

/// delete_leaf -- deletes the empty leaf `block` if it may be (see the
/// module doc), with its parent if that would be left without children,
/// finishing a half-dead one; returns how many pages it deleted.
pub fn delete_leaf(engine: &Engine, index: &BTreeIndex, block: u32) -> Result<u32> {
    let buffer = pin(engine, index, block)?;
    let half_dead = {
        let page = buffer.read();
        let opaque = Opaque::of(&page);
        if opaque.is_deleted() || !opaque.is_leaf() {
            return Ok(0);
        }
        opaque.is_half_dead()
    };
    if !half_dead && !mark_half_dead_in(engine, index, &buffer)? {
        return Ok(0);
    }
    let mut deleted = 0;
    while unlink_half_dead(engine, index, &buffer)? {
        deleted += 1;
    }
    Ok(deleted)
}

/// Whether the locked leaf may start deletion: empty, not the root or the
/// rightmost leaf, not already on its way out.
fn deletable(page: &Page) -> bool {
    let opaque = Opaque::of(page);
    opaque.is_leaf()
        && !opaque.is_root()
        && !opaque.is_rightmost()
        && !opaque.is_ignored()
        && leaf_is_empty(page)
}

/// The scan key of a pivot or high key: its key prefix and heap TID, if any.
pub(super) fn key_of(index: &BTreeIndex, tuple: &IndexTuple) -> Result<ScanKey> {
    let values = tuple.values(&index.desc)?;
    Ok(ScanKey {
        values: values.iter().map(|v| v.map(<[u8]>::to_vec)).collect(),
        heap_tid: tuple.heap_tid(),
        beyond: false,
    })
}

/// The page above a half-dead leaf still to be unlinked before the leaf
/// (its emptied parent), kept in the leaf's otherwise unused prune-xid
/// header field (PostgreSQL keeps it in the leaf's high key); [`P_NONE`] when
/// the leaf itself is next.
fn top_parent(leaf: &Page) -> u32 {
    leaf.prune_xid().0 as u32
}

fn set_top_parent(leaf: &mut Page, block: u32) {
    leaf.set_prune_xid(Xid(block as u64));
}

/// mark_half_dead -- step 1 alone for leaf `block` (see
/// [`mark_half_dead_in`]). [`delete_leaf`] always goes on to step 2; this is
/// for tests of what a crash between the steps leaves behind.
pub fn mark_half_dead(engine: &Engine, index: &BTreeIndex, block: u32) -> Result<bool> {
    mark_half_dead_in(engine, index, &pin(engine, index, block)?)
}

/// The page at `level` holding the downlink to `child`, and its offset: the
/// page a descent toward `key` (the child's high key) reaches, or one to its
/// right — or, for a child that is its parent's last, the page to its left:
/// a search for a high key lands right of the separator equal to it (sluice
/// has no "pivot search" mode as PostgreSQL does). `None` if the downlink is
/// not found. Pinned, not locked: the caller locks and checks again.
fn find_parent<'e>(
    engine: &'e Engine,
    index: &BTreeIndex,
    key: &ScanKey,
    child: u32,
    level: u32,
) -> Result<Option<(Buffer<'e>, OffsetNumber)>> {
    let root = read_meta(engine, index)?.root;
    let (landed, _) = descend_to_level(engine, index, Target::Key(key), root, level)?;
    let left = Opaque::of(&landed.read()).prev;
    if let Some(found) = find_downlink_rightward(engine, index, landed, child, None)? {
        return Ok(Some(found));
    }
    match left {
        P_NONE => Ok(None),
        block => {
            let landed = pin(engine, index, block)?;
            find_downlink_rightward(engine, index, landed, child, Some(1))
        }
    }
}

/// Looks for the downlink to `child` from `buffer`'s page rightward, at most
/// `limit` pages further (to the end of the level without one).
fn find_downlink_rightward<'e>(
    engine: &'e Engine,
    index: &BTreeIndex,
    mut buffer: Buffer<'e>,
    child: u32,
    limit: Option<usize>,
) -> Result<Option<(Buffer<'e>, OffsetNumber)>> {
    let mut steps = 0;
    loop {
        let (off, opaque) = {
            let page = buffer.read();
            (super::split::find_downlink(&page, child)?, Opaque::of(&page))
        };
        if let Some(off) = off {
            return Ok(Some((buffer, off)));
        }
        if opaque.is_rightmost() || limit.is_some_and(|l| steps >= l) {
            return Ok(None);
        }
        steps += 1;
        buffer = pin(engine, index, opaque.next)?;
    }
}

/// mark_half_dead_in -- step 1 for the leaf in `buffer`: in the page above
/// the subtree to go — the leaf, or its parent if the leaf is that parent's
/// only child — the subtree's downlink is redirected to its right sibling
/// and the sibling's pivot removed; the leaf becomes half-dead (remembering
/// the parent to unlink first, if any). False (nothing changed) if the leaf
/// is not deletable or the subtree's downlink is the last on its page.
fn mark_half_dead_in(engine: &Engine, index: &BTreeIndex, buffer: &Buffer<'_>) -> Result<bool> {
    let leaf = buffer.block();
    let key = {
        let page = buffer.read();
        if !deletable(&page) {
            return Ok(false);
        }
        key_of(index, &tuple_at(&page, P_HIKEY)?)?
    };
    let Some((parent, off)) = find_parent(engine, index, &key, leaf, 1)? else {
        return Ok(false);
    };
    let mut page = buffer.write();
    let mut ppage = parent.write();
    if !deletable(&page) || super::split::find_downlink(&ppage, leaf)? != Some(off) {
        return Ok(false);
    }
    let right = Opaque::of(&page).next;
    if off < ppage.max_offset() {
        // The leaf's pivot has a right neighbour here, and it must lead to
        // the leaf's right sibling (it would not if that were half-dead).
        if tuple_at(&ppage, off + 1)?.downlink() != right {
            return Ok(false);
        }
        redirect_downlink(&mut ppage, off, right)?;
        return log_half_dead(engine, index, (parent.block(), &mut ppage), (leaf, &mut page), None);
    }
    // The leaf is its parent's last child: only if it is the only one can
    // the parent go with it, one level up.
    let popaque = Opaque::of(&ppage);
    if off != popaque.first_data() || popaque.is_rightmost() || popaque.is_root() {
        return Ok(false);
    }
    let pkey = key_of(index, &tuple_at(&ppage, P_HIKEY)?)?;
    let (pblock, level) = (parent.block(), popaque.level + 1);
    let Some((grand, goff)) = find_parent(engine, index, &pkey, pblock, level)? else {
        return Ok(false);
    };
    let mut gpage = grand.write();
    if super::split::find_downlink(&gpage, pblock)? != Some(goff)
        || goff >= gpage.max_offset()
        || tuple_at(&gpage, goff + 1)?.downlink() != popaque.next
    {
        return Ok(false);
    }
    redirect_downlink(&mut gpage, goff, popaque.next)?;
    drop(ppage);
    log_half_dead(engine, index, (grand.block(), &mut gpage), (leaf, &mut page), Some(pblock))
}

/// Points the pivot at `off` of the locked internal `page` at `right` and
/// removes the pivot after it (whose subtree now owns the key range).
fn redirect_downlink(page: &mut Page, off: OffsetNumber, right: u32) -> Result<()> {
    let item = page
        .item_mut(off)
        .ok_or_else(|| AccessError::Corrupt("btree parent lost its pivot".into()))?;
    set_downlink(item, right);
    page.delete_items(&[off + 1]);
    Ok(())
}

/// Marks the leaf half-dead (with the parent still to unlink, if any) and
/// logs it with the changed page above: one record.
fn log_half_dead(
    engine: &Engine,
    index: &BTreeIndex,
    (above, apage): (u32, &mut sluice_storage::buffer::BufferWriteGuard<'_>),
    (leaf, page): (u32, &mut sluice_storage::buffer::BufferWriteGuard<'_>),
    top: Option<u32>,
) -> Result<bool> {
    apage.mark_dirty();
    let mut opaque = Opaque::of(page);
    opaque.flags |= BTP_HALF_DEAD;
    opaque.store(page);
    set_top_parent(page, top.unwrap_or(P_NONE));
    page.mark_dirty();
    let mut record = PendingRecord::default();
    record.init_page(above, apage);
    record.init_page(leaf, page);
    let end = record.log(engine, index.locator, XLOG_BTREE_MARK_PAGE_HALFDEAD)?;
    apage.set_lsn(end);
    page.set_lsn(end);
    Ok(true)
}

/// unlink_half_dead -- step 2, one page at a time: the half-dead leaf's
/// remembered parent if it has one (the leaf then forgets it), else the
/// leaf itself, leaves its level's chain and becomes deleted, stamped with
/// the next xid. False when there was nothing left to unlink.
fn unlink_half_dead(engine: &Engine, index: &BTreeIndex, leaf_buffer: &Buffer<'_>) -> Result<bool> {
    let leaf = leaf_buffer.block();
    let (target, remembered) = {
        let page = leaf_buffer.read();
        if !Opaque::of(&page).is_half_dead() {
            return Ok(false);
        }
        match top_parent(&page) {
            P_NONE => (leaf, Opaque::of(&page).prev),
            top => (top, Opaque::of(&pin(engine, index, top)?.read()).prev),
        }
    };
    // The leaf stays locked throughout: child before the pages above it,
    // then left to right on the target's level.
    let mut leaf_page = (target != leaf).then(|| leaf_buffer.write());
    let left = match remembered {
        P_NONE => None,
        block => Some(left_sibling_of(engine, index, block, target)?),
    };
    let mut left_page = left.as_ref().map(Buffer::write);
    if left_page.as_ref().is_some_and(|p| Opaque::of(p).next != target) {
        return Err(AccessError::Corrupt(format!(
            "left sibling of btree block {target} changed during deletion"
        )));
    }
    let target_buffer = if target == leaf { None } else { Some(pin(engine, index, target)?) };
    let mut page = match &target_buffer {
        Some(b) => b.write(),
        None => leaf_buffer.write(),
    };
    let opaque = Opaque::of(&page);
    let right = pin(engine, index, opaque.next)?;
    let mut right_page = right.write();
    let mut ropaque = Opaque::of(&right_page);
    if ropaque.prev != target {
        return Err(AccessError::Corrupt(format!(
            "right sibling {} of btree block {target} does not point back",
            right.block()
        )));
    }
    let left_block = left.as_ref().map_or(P_NONE, Buffer::block);
    let mut record = PendingRecord::default();
    if let (Some(b), Some(p)) = (&left, left_page.as_mut()) {
        let mut lopaque = Opaque::of(p);
        lopaque.next = right.block();
        lopaque.store(p);
        p.mark_dirty();
        record.init_page(b.block(), p);
    }
    ropaque.prev = left_block;
    ropaque.store(&mut right_page);
    right_page.mark_dirty();
    record.prev_set(right.block(), &right_page, left_block);
    let flags = (opaque.flags & BTP_LEAF) | BTP_DELETED;
    let deleted = Opaque { prev: left_block, next: opaque.next, level: opaque.level, flags };
    init_node(&mut page, deleted);
    let safexid = engine.txns().next_xid();
    page.insert_item(1, &safexid.0.to_le_bytes());
    page.mark_dirty();
    record.init_page(target, &page);
    if let Some(lp) = leaf_page.as_mut() {
        // The parent is gone: the leaf itself is next.
        set_top_parent(lp, P_NONE);
        lp.mark_dirty();
        record.init_page(leaf, lp);
    }
    let end = record.log(engine, index.locator, XLOG_BTREE_UNLINK_PAGE)?;
    if let Some(p) = left_page.as_mut() {
        p.set_lsn(end);
    }
    if let Some(p) = leaf_page.as_mut() {
        p.set_lsn(end);
    }
    page.set_lsn(end);
    right_page.set_lsn(end);
    Ok(true)
}

/// The current left sibling of `target`: the page at `remembered` or, if it
/// split since, the page to its right whose right link is `target`.
fn left_sibling_of<'e>(
    engine: &'e Engine,
    index: &BTreeIndex,
    remembered: u32,
    target: u32,
) -> Result<Buffer<'e>> {
    let mut buffer = pin(engine, index, remembered)?;
    loop {
        let next = Opaque::of(&buffer.read()).next;
        if next == target {
            return Ok(buffer);
        }
        if next == P_NONE {
            return Err(AccessError::Corrupt(format!(
                "could not find left sibling of btree block {target}"
            )));
        }
        buffer = pin(engine, index, next)?;
    }
}

/// What a pass over every page of an index found about deleted pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeletedPages {
    /// Deleted pages in the index.
    pub deleted: u32,
    /// Of those, the ones now in the free space map for reuse.
    pub reusable: u32,
}

/// record_recyclable -- visits every page of `index` in block order (as
/// PostgreSQL's btvacuumscan does), counts the deleted ones and records those
/// no scan can reach any more in the free space map.
pub fn record_recyclable(engine: &Engine, index: &BTreeIndex) -> Result<DeletedPages> {
    let pool = engine.pool();
    let oldest_xmin = engine.txns().horizon().xmin;
    let mut found = DeletedPages::default();
    for block in 1..pool.nblocks(index.locator, ForkNumber::Main)? {
        let buffer = pin(engine, index, block)?;
        let page = buffer.read();
        if !Opaque::of(&page).is_deleted() || page.is_new() {
            continue;
        }
        found.deleted += 1;
        if page_recyclable(&page, oldest_xmin) {
            freespace::record_free_space(pool, index.locator, block, BLCKSZ - 1)?;
            found.reusable += 1;
        }
    }
    Ok(found)
}

/// allocate_page -- a page for a split or a new root: a recyclable deleted
/// page the free space map names, else a new one at the end of the file
/// (PostgreSQL's `_bt_allocbuf`). A reused page is zeroed under its lock
/// before it is returned, so no other allocator takes it too; the caller
/// locks it and formats it, and its WAL record rewrites it whole.
pub fn allocate_page<'e>(engine: &'e Engine, index: &BTreeIndex) -> Result<Buffer<'e>> {
    let pool = engine.pool();
    while let Some(block) = freespace::get_page_with_free_space(pool, index.locator, BLCKSZ / 2)? {
        // Taken, whatever we find there: the map must not offer it again.
        freespace::record_free_space(pool, index.locator, block, 0)?;
        if block >= pool.nblocks(index.locator, ForkNumber::Main)? {
            continue;
        }
        let buffer = pin(engine, index, block)?;
        // Somebody holding it is reading it: look elsewhere rather than wait
        // (we may hold other pages of the index).
        let Some(mut page) = buffer.try_write() else { continue };
        if page_recyclable(&page, engine.txns().horizon().xmin) {
            page.as_bytes_mut().fill(0);
            drop(page);
            return Ok(buffer);
        }
    }
    Ok(pool.extend(index.locator, ForkNumber::Main)?)
}
