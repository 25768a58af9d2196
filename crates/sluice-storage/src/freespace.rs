//! The free space map (PostgreSQL's `storage/freespace`): how much room each
//! heap page has, in the relation's `_fsm` fork, so that inserts and
//! updates find a page with room before extending the relation.
//!
//! # Layout
//!
//! One byte per heap page, its *category*: free bytes / 32 (PostgreSQL's
//! `FSM_CAT_STEP`), capped at 255. A request for `n` bytes wants a page of
//! category `ceil(n / 32)`, which is sure to have them. The bytes are packed
//! in the fork's 8 KB pages after a standard page header, [`SLOTS_PER_PAGE`]
//! heap pages per map page — a flat array, where PostgreSQL keeps a tree of
//! such pages with a max-heap inside each one. A search reads the map pages
//! in order from the start and stops at the first byte large enough: one
//! byte per heap page means a 150 MB table has a three-page map, so the flat
//! scan costs about what the tree's descent does at that size, and the
//! first-fit order fills the front of the table first, as PostgreSQL's
//! does without its `fp_next_slot` spreading.
//!
//! # What the map promises
//!
//! Nothing: it is a hint, as in PostgreSQL. Updates are not WAL-logged; the
//! map may be behind (VACUUM freed space it does not know about yet, a crash
//! lost its latest updates) or ahead (another backend filled the page). The
//! user of a page it names re-checks the page under its lock and reports
//! the real free space back ([`record_free_space`]), so a wrong entry is
//! corrected the first time it is used. A map page that fails its checksum
//! (torn by a crash: it is written without full-page images) is read as
//! empty (PostgreSQL's RBM_ZERO_ON_ERROR), which only hides space until the
//! next VACUUM.
//!
//! # Locking
//!
//! A map page's content lock is taken alone — never while holding another
//! map page's — or under one heap page lock (heap page → map page order).

use crate::buffer::{Buffer, BufferPool, BufferTag, ReadMode};
use crate::page::{Page, HEADER_SIZE};
use crate::Result;
use sluice_common::{maxalign, BlockNumber, ForkNumber, RelFileLocator, BLCKSZ};

/// Heap pages one map page describes.
pub const SLOTS_PER_PAGE: u32 = (BLCKSZ - maxalign(HEADER_SIZE)) as u32;
/// Free bytes per category step (FSM_CAT_STEP).
const CAT_STEP: usize = BLCKSZ / 256;

/// The category of a page with `avail` free bytes (fsm_space_avail_to_cat).
pub fn avail_to_cat(avail: usize) -> u8 {
    (avail / CAT_STEP).min(255) as u8
}

/// The smallest category sure to hold `needed` bytes
/// (fsm_space_needed_to_cat).
pub fn needed_to_cat(needed: usize) -> u8 {
    needed.div_ceil(CAT_STEP).min(255) as u8
}

/// Where heap block `block`'s byte is: map page and slot.
fn location(block: BlockNumber) -> (BlockNumber, usize) {
    (block / SLOTS_PER_PAGE, (block % SLOTS_PER_PAGE) as usize)
}

/// The slots of a map page.
fn slots(page: &Page) -> &[u8] {
    &page.as_bytes()[maxalign(HEADER_SIZE)..]
}

fn tag(rel: RelFileLocator, map_block: BlockNumber) -> BufferTag {
    BufferTag::new(rel, ForkNumber::Fsm, map_block)
}

/// Pins map page `map_block`, reading a damaged one as zeroes (see the
/// module doc).
fn read(pool: &BufferPool, rel: RelFileLocator, map_block: BlockNumber) -> Result<Buffer<'_>> {
    match pool.read_buffer(tag(rel, map_block)) {
        Ok(buffer) => Ok(buffer),
        Err(_) => pool.read_buffer_mode(tag(rel, map_block), ReadMode::Zero),
    }
}

/// record_free_space -- notes that heap page `block` of `rel` has `avail`
/// free bytes (RecordPageWithFreeSpace), growing the map as needed. A page
/// marked dirty is written at the next checkpoint or eviction, unlogged.
pub fn record_free_space(
    pool: &BufferPool,
    rel: RelFileLocator,
    block: BlockNumber,
    avail: usize,
) -> Result<()> {
    let (map_block, slot) = location(block);
    let cat = avail_to_cat(avail);
    if map_block >= pool.nblocks(rel, ForkNumber::Fsm)? {
        extend_to(pool, rel, map_block)?;
    }
    let buffer = read(pool, rel, map_block)?;
    let mut page = buffer.write();
    if page.is_new() {
        page.init(0);
    }
    let at = maxalign(HEADER_SIZE) + slot;
    if page.as_bytes()[at] != cat {
        page.as_bytes_mut()[at] = cat;
        page.mark_dirty();
    }
    Ok(())
}

/// Makes sure the map of `rel` has page `map_block` (fsm_extend).
fn extend_to(pool: &BufferPool, rel: RelFileLocator, map_block: BlockNumber) -> Result<()> {
    pool.smgr().create(rel, ForkNumber::Fsm)?;
    while pool.nblocks(rel, ForkNumber::Fsm)? <= map_block {
        let buffer = pool.extend(rel, ForkNumber::Fsm)?;
        let mut page = buffer.write();
        page.init(0);
        page.mark_dirty();
    }
    Ok(())
}

/// get_page_with_free_space -- a heap page of `rel` the map says has at
/// least `needed` free bytes, the first one in block order
/// (GetPageWithFreeSpace); `None` if the map knows of none.
pub fn get_page_with_free_space(
    pool: &BufferPool,
    rel: RelFileLocator,
    needed: usize,
) -> Result<Option<BlockNumber>> {
    let cat = needed_to_cat(needed).max(1);
    for map_block in 0..pool.nblocks(rel, ForkNumber::Fsm)? {
        let buffer = read(pool, rel, map_block)?;
        let page = buffer.read();
        if page.is_new() {
            continue;
        }
        if let Some(slot) = slots(&page).iter().position(|&c| c >= cat) {
            return Ok(Some(map_block * SLOTS_PER_PAGE + slot as u32));
        }
    }
    Ok(None)
}

/// get_recorded_free_space -- the free bytes the map has for heap page
/// `block` (a lower bound: the category's start).
pub fn get_recorded_free_space(
    pool: &BufferPool,
    rel: RelFileLocator,
    block: BlockNumber,
) -> Result<usize> {
    let (map_block, slot) = location(block);
    if map_block >= pool.nblocks(rel, ForkNumber::Fsm)? {
        return Ok(0);
    }
    let buffer = read(pool, rel, map_block)?;
    let page = buffer.read();
    Ok(if page.is_new() { 0 } else { slots(&page)[slot] as usize * CAT_STEP })
}

/// truncate -- after `rel`'s heap was cut to `nblocks` pages, forgets the
/// pages cut off (FreeSpaceMapPrepareTruncateRel): their slots are zeroed
/// and whole map pages beyond them dropped. Returns the map's new length in
/// pages, for the caller to cut the fork to.
pub fn truncate(
    pool: &BufferPool,
    rel: RelFileLocator,
    nblocks: BlockNumber,
) -> Result<BlockNumber> {
    let map_pages = pool.nblocks(rel, ForkNumber::Fsm)?;
    let (map_block, slot) = location(nblocks);
    if map_block >= map_pages {
        return Ok(map_pages);
    }
    if slot == 0 {
        return Ok(map_block);
    }
    let buffer = read(pool, rel, map_block)?;
    let mut page = buffer.write();
    if !page.is_new() {
        page.as_bytes_mut()[maxalign(HEADER_SIZE) + slot..].fill(0);
        page.mark_dirty();
    }
    Ok(map_block + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smgr::Smgr;
    use std::sync::Arc;

    fn pool(dir: &std::path::Path) -> BufferPool {
        BufferPool::new(Arc::new(Smgr::new(dir)), 64)
    }

    const REL: RelFileLocator = RelFileLocator { spc_oid: 1663, db_oid: 5, rel_number: 16384 };

    #[test]
    fn categories_round_down_for_space_and_up_for_needs() {
        assert_eq!(avail_to_cat(31), 0);
        assert_eq!(avail_to_cat(8160), 255);
        assert_eq!(needed_to_cat(33), 2);
        assert_eq!(needed_to_cat(64), 2);
        // A page of the needed category always has the bytes.
        for n in [1, 32, 33, 100, 4000] {
            assert!(needed_to_cat(n) as usize * CAT_STEP >= n);
        }
    }

    #[test]
    fn the_first_page_with_room_is_found_and_corrections_stick() {
        let dir = tempfile::tempdir().unwrap();
        let pool = pool(dir.path());
        assert_eq!(get_page_with_free_space(&pool, REL, 100).unwrap(), None, "no map yet");
        record_free_space(&pool, REL, 3, 200).unwrap();
        record_free_space(&pool, REL, 7, 5000).unwrap();
        record_free_space(&pool, REL, SLOTS_PER_PAGE + 2, 8000).unwrap();
        assert_eq!(pool.nblocks(REL, ForkNumber::Fsm).unwrap(), 2);
        assert_eq!(get_page_with_free_space(&pool, REL, 100).unwrap(), Some(3));
        assert_eq!(get_page_with_free_space(&pool, REL, 1000).unwrap(), Some(7));
        assert_eq!(get_page_with_free_space(&pool, REL, 6000).unwrap(), Some(SLOTS_PER_PAGE + 2));
        assert_eq!(get_page_with_free_space(&pool, REL, 8100).unwrap(), None);
        // The page turned out full: the next search skips it.
        record_free_space(&pool, REL, 3, 0).unwrap();
        assert_eq!(get_page_with_free_space(&pool, REL, 100).unwrap(), Some(7));
        assert_eq!(get_recorded_free_space(&pool, REL, 7).unwrap(), 4992);
        // Truncating the heap to 5 pages forgets page 7 and the second map page.
        assert_eq!(truncate(&pool, REL, 5).unwrap(), 1);
        pool.drop_relation_buffers(REL, ForkNumber::Fsm, 1);
        pool.smgr().open(REL, ForkNumber::Fsm).unwrap().truncate(1).unwrap();
        assert_eq!(get_page_with_free_space(&pool, REL, 100).unwrap(), None);
    }
}
