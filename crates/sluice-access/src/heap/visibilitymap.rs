//! The visibility map (PostgreSQL's `visibilitymap.c`): two bits per heap
//! page, in the relation's `_vm` fork.
//!
//! # The idea
//!
//! * **all-visible** — every tuple on the heap page is visible to every
//!   snapshot, now and later: VACUUM has nothing to do there, and an
//!   index-only scan may trust the index without reading the page.
//! * **all-frozen** — additionally frozen. sluice's transaction ids are 64
//!   bits and never wrap, so freezing is not needed for correctness; the bit
//!   is set by `VACUUM (FREEZE)` (and kept by later VACUUMs) for pages that
//!   are all-visible, so that the map and its report look as in PostgreSQL.
//!   No tuple header is rewritten.
//!
//! # Layout
//!
//! The fork is made of ordinary 8 KB pages read through the buffer pool,
//! each with a standard page header (its LSN orders the page's writes after
//! the WAL that set its bits) followed by [`MAPSIZE`] bytes of bitmap: heap
//! block `b` is at byte `b / 4` of the map, bits `2 * (b % 4)` (all-visible)
//! and `2 * (b % 4) + 1` (all-frozen), the same packing PostgreSQL uses.
//! Pages are added on demand when a bit is first set; a missing page means
//! "nothing known" (all bits clear).
//!
//! # Invariants and crash safety
//!
//! A set bit is a promise, so it must never survive a change to its page:
//!
//! * **Setting** (VACUUM): with the heap page exclusively locked, the page
//!   gets `PD_ALL_VISIBLE`, an `XLOG_HEAP_VISIBLE` record names both pages,
//!   and the map page takes the record's LSN, so the bit reaches disk only
//!   after its WAL. Redo sets the flag and the bit again.
//! * **Clearing** (every insert, update, delete and row lock): with the heap
//!   page exclusively locked, if it has `PD_ALL_VISIBLE` the flag and both
//!   bits are cleared ([`clear`]) before the change is logged. The change's
//!   WAL record stands for the clearing: redo clears the bits for every
//!   heap page a heap record touches ([`redo_clear`]), which is always safe
//!   — a clear bit only costs a page read.
//! * Truncating the heap clears the bits of the pages cut off ([`truncate`]),
//!   so a page added later never inherits a stale promise.
//!
//! # Locking
//!
//! A map page's content lock is taken only while a heap page lock is held
//! (or by readers holding none), never the other way round, so the order
//! heap page → map page is deadlock-free. Readers ([`is_all_visible`])
//! take the map page's shared lock only; the answer may be stale the moment
//! it is returned, which index-only scans accept as PostgreSQL's do (a bit
//! cleared concurrently belongs to a change the reader's snapshot cannot
//! see).

use super::xlog::XLOG_HEAP_VISIBLE;
use super::HeapRelation;
use crate::engine::Engine;
use crate::error::Result;
use sluice_common::{maxalign, BlockNumber, ForkNumber, RelFileLocator, RmgrId, Xid, BLCKSZ};
use sluice_storage::buffer::{Buffer, BufferPool, BufferTag, BufferWriteGuard};
use sluice_storage::page::{Page, HEADER_SIZE, PD_ALL_VISIBLE};
use sluice_wal::{BlockRef, RecordBuilder};

/// Every tuple on the page is visible to all.
pub const VISIBILITYMAP_ALL_VISIBLE: u8 = 0x01;
/// Every tuple on the page is frozen (see the module doc).
pub const VISIBILITYMAP_ALL_FROZEN: u8 = 0x02;
/// Both bits.
const VISIBILITYMAP_VALID_BITS: u8 = 0x03;

/// Bitmap bytes per map page: the page minus its (MAXALIGNed) header.
pub const MAPSIZE: usize = BLCKSZ - maxalign(HEADER_SIZE);
/// Heap pages one map byte describes.
const HEAPBLOCKS_PER_BYTE: u32 = 4;
/// Heap pages one map page describes.
pub const HEAPBLOCKS_PER_PAGE: u32 = MAPSIZE as u32 * HEAPBLOCKS_PER_BYTE;

/// Where heap block `block`'s bits are: map page, byte within the bitmap,
/// and the shift of its two bits.
fn location(block: BlockNumber) -> (BlockNumber, usize, u32) {
    let map_block = block / HEAPBLOCKS_PER_PAGE;
    let within = block % HEAPBLOCKS_PER_PAGE;
    (map_block, (within / HEAPBLOCKS_PER_BYTE) as usize, 2 * (within % HEAPBLOCKS_PER_BYTE))
}

/// The bitmap of a map page.
fn bitmap(page: &Page) -> &[u8] {
    &page.as_bytes()[maxalign(HEADER_SIZE)..]
}

/// The bitmap of a map page, for changing it.
fn bitmap_mut(page: &mut Page) -> &mut [u8] {
    &mut page.as_bytes_mut()[maxalign(HEADER_SIZE)..]
}

fn tag(rel: RelFileLocator, map_block: BlockNumber) -> BufferTag {
    BufferTag::new(rel, ForkNumber::VisibilityMap, map_block)
}

/// get_status -- heap block `block`'s two bits (visibilitymap_get_status);
/// zero when the map does not reach that far.
pub fn get_status(pool: &BufferPool, rel: RelFileLocator, block: BlockNumber) -> Result<u8> {
    let (map_block, byte, shift) = location(block);
    if map_block >= pool.nblocks(rel, ForkNumber::VisibilityMap)? {
        return Ok(0);
    }
    let buffer = pool.read_buffer(tag(rel, map_block))?;
    let page = buffer.read();
    if page.is_new() {
        return Ok(0);
    }
    Ok((bitmap(&page)[byte] >> shift) & VISIBILITYMAP_VALID_BITS)
}

/// is_all_visible -- whether every tuple on heap page `block` of `rel` is
/// visible to every snapshot: what an index-only scan asks before skipping
/// the heap fetch for an index entry pointing there.
pub fn is_all_visible(pool: &BufferPool, rel: RelFileLocator, block: BlockNumber) -> Result<bool> {
    Ok(get_status(pool, rel, block)? & VISIBILITYMAP_ALL_VISIBLE != 0)
}

/// A reader of one relation's map that keeps the last map page pinned
/// (PostgreSQL's vmbuffer argument to visibilitymap_get_status): an
/// index-only scan asks about one heap page per entry, and one map page
/// covers tens of thousands of heap pages. A map page that did not exist
/// when first asked for is taken as all zeros for the rest of the reader's
/// life -- the answer "not all-visible" is always safe.
pub struct VmReader<'e> {
    pool: &'e BufferPool,
    rel: RelFileLocator,
    current: Option<(BlockNumber, Option<Buffer<'e>>)>,
}

impl<'e> VmReader<'e> {
    /// A reader of `rel`'s map with no page pinned yet.
    pub fn new(pool: &'e BufferPool, rel: RelFileLocator) -> VmReader<'e> {
        VmReader { pool, rel, current: None }
    }

    /// is_all_visible -- as the function of that name, through the pinned page.
    pub fn is_all_visible(&mut self, block: BlockNumber) -> Result<bool> {
        let (map_block, byte, shift) = location(block);
        if self.current.as_ref().is_none_or(|(b, _)| *b != map_block) {
            self.current = None;
            let exists = map_block < self.pool.nblocks(self.rel, ForkNumber::VisibilityMap)?;
            let buffer =
                if exists { Some(self.pool.read_buffer(tag(self.rel, map_block))?) } else { None };
            self.current = Some((map_block, buffer));
        }
        let Some((_, Some(buffer))) = &self.current else { return Ok(false) };
        let page = buffer.read();
        if page.is_new() {
            return Ok(false);
        }
        Ok((bitmap(&page)[byte] >> shift) & VISIBILITYMAP_ALL_VISIBLE != 0)
    }
}

/// is_all_frozen -- whether heap page `block` of `rel` is marked all-frozen.
pub fn is_all_frozen(pool: &BufferPool, rel: RelFileLocator, block: BlockNumber) -> Result<bool> {
    Ok(get_status(pool, rel, block)? & VISIBILITYMAP_ALL_FROZEN != 0)
}

/// count -- how many heap pages of `rel` are all-visible and how many
/// all-frozen (visibilitymap_count; `pg_class.relallvisible`).
pub fn count(pool: &BufferPool, rel: RelFileLocator) -> Result<(u32, u32)> {
    let (mut visible, mut frozen) = (0, 0);
    for map_block in 0..pool.nblocks(rel, ForkNumber::VisibilityMap)? {
        let buffer = pool.read_buffer(tag(rel, map_block))?;
        let page = buffer.read();
        if page.is_new() {
            continue;
        }
        for &byte in bitmap(&page) {
            for shift in (0..8).step_by(2) {
                visible += u32::from(byte >> shift & VISIBILITYMAP_ALL_VISIBLE != 0);
                frozen += u32::from(byte >> shift & VISIBILITYMAP_ALL_FROZEN != 0);
            }
        }
    }
    Ok((visible, frozen))
}

/// Makes sure the map of `rel` has page `map_block` (vm_extend): creates the
/// fork and appends initialised pages as needed. Not WAL-logged, as in
/// PostgreSQL: redo creates whatever a record names.
fn extend_to(pool: &BufferPool, rel: RelFileLocator, map_block: BlockNumber) -> Result<()> {
    if pool.nblocks(rel, ForkNumber::VisibilityMap)? > map_block {
        return Ok(());
    }
    pool.smgr().create(rel, ForkNumber::VisibilityMap)?;
    while pool.nblocks(rel, ForkNumber::VisibilityMap)? <= map_block {
        let buffer = pool.extend(rel, ForkNumber::VisibilityMap)?;
        let mut page = buffer.write();
        page.init(0);
        page.mark_dirty();
    }
    Ok(())
}

/// set -- marks heap page `block` of `rel` (exclusively locked by the
/// caller as `heap_page`) all-visible, and all-frozen too if `flags` says
/// so (visibilitymap_set, with the `PD_ALL_VISIBLE` flag and the WAL record
/// the module doc describes). The caller has checked that every tuple on the
/// page is visible to all. Bits already set are left alone, without WAL.
pub fn set(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    heap_page: &mut BufferWriteGuard<'_>,
    flags: u8,
) -> Result<()> {
    let pool = engine.pool();
    let (map_block, byte, shift) = location(block);
    extend_to(pool, rel.locator, map_block)?;
    let map_buffer = pool.read_buffer(tag(rel.locator, map_block))?;
    let mut map = map_buffer.write();
    let current = (bitmap(&map)[byte] >> shift) & VISIBILITYMAP_VALID_BITS;
    if current & flags == flags && heap_page.has_flag(PD_ALL_VISIBLE) {
        return Ok(());
    }
    heap_page.set_flag(PD_ALL_VISIBLE);
    heap_page.mark_dirty();
    bitmap_mut(&mut map)[byte] |= flags << shift;
    map.mark_dirty();
    let end = {
        let record = RecordBuilder::new(RmgrId::Heap, XLOG_HEAP_VISIBLE, Xid::INVALID)
            .with_main_data(vec![flags])
            .with_block(
                BlockRef::new(0, rel.locator, ForkNumber::Main, block)
                    .with_page(heap_page.as_bytes(), heap_page.hole()),
            )
            .with_block(
                BlockRef::new(1, rel.locator, ForkNumber::VisibilityMap, map_block)
                    .with_data(block.to_le_bytes().to_vec())
                    .with_page(map.as_bytes(), map.hole()),
            );
        engine.wal().insert(&record)?
    };
    heap_page.set_lsn(end);
    map.set_lsn(end);
    Ok(())
}

/// clear -- before a change to heap page `block` of `rel`, exclusively
/// locked by the caller as `heap_page`: if the page is marked all-visible,
/// drops the mark and both map bits (visibilitymap_clear). The change's own
/// WAL record covers this (see [`redo_clear`]).
pub fn clear(
    pool: &BufferPool,
    rel: RelFileLocator,
    block: BlockNumber,
    heap_page: &mut BufferWriteGuard<'_>,
) -> Result<()> {
    if !heap_page.has_flag(PD_ALL_VISIBLE) {
        return Ok(());
    }
    heap_page.clear_flag(PD_ALL_VISIBLE);
    clear_bits(pool, rel, block)
}

/// Clears heap block `block`'s two bits, if the map reaches that far.
fn clear_bits(pool: &BufferPool, rel: RelFileLocator, block: BlockNumber) -> Result<()> {
    let (map_block, byte, shift) = location(block);
    if map_block >= pool.nblocks(rel, ForkNumber::VisibilityMap)? {
        return Ok(());
    }
    let buffer = pool.read_buffer(tag(rel, map_block))?;
    let mut map = buffer.write();
    if map.is_new() {
        return Ok(());
    }
    let mask = VISIBILITYMAP_VALID_BITS << shift;
    if bitmap(&map)[byte] & mask != 0 {
        bitmap_mut(&mut map)[byte] &= !mask;
        map.mark_dirty();
    }
    Ok(())
}

/// redo_clear -- in redo of a heap change to heap page `block`: the map
/// bits go, whatever the page said (the heap page may have been restored
/// from an image that no longer has the flag).
pub fn redo_clear(pool: &BufferPool, rel: RelFileLocator, block: BlockNumber) -> Result<()> {
    clear_bits(pool, rel, block)
}

/// redo_set -- redo of `XLOG_HEAP_VISIBLE` for the map page: sets the bits
/// `flags` of the heap block named in the block data.
pub fn redo_set(map: &mut Page, data: &[u8], flags: u8) -> Result<()> {
    let block = data
        .get(..4)
        .map(|b| BlockNumber::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| crate::AccessError::Corrupt("visibility map record too short".into()))?;
    if map.is_new() {
        map.init(0);
    }
    let (_, byte, shift) = location(block);
    bitmap_mut(map)[byte] |= (flags & VISIBILITYMAP_VALID_BITS) << shift;
    Ok(())
}

/// truncate -- after `rel`'s heap was cut to `nblocks` pages: clears the
/// bits of every page cut off, and drops the map pages wholly beyond them
/// (visibilitymap_prepare_truncate + smgrtruncate). Not logged itself: the
/// heap truncation's record replays it.
pub fn truncate(pool: &BufferPool, rel: RelFileLocator, nblocks: BlockNumber) -> Result<()> {
    let map_pages = pool.nblocks(rel, ForkNumber::VisibilityMap)?;
    let (map_block, byte, shift) = location(nblocks);
    if map_block >= map_pages {
        return Ok(());
    }
    {
        let buffer = pool.read_buffer(tag(rel, map_block))?;
        let mut map = buffer.write();
        if !map.is_new() {
            let bits = bitmap_mut(&mut map);
            bits[byte] &= !(0xFFu8.checked_shl(shift).unwrap_or(0));
            bits[byte + 1..].fill(0);
            map.mark_dirty();
        }
    }
    let keep = if nblocks.is_multiple_of(HEAPBLOCKS_PER_PAGE) { map_block } else { map_block + 1 };
    crate::recovery::truncate_fork(pool, rel, ForkNumber::VisibilityMap, keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_packed_as_in_postgres() {
        assert_eq!(MAPSIZE, 8160);
        assert_eq!(location(0), (0, 0, 0));
        assert_eq!(location(5), (0, 1, 2));
        assert_eq!(location(HEAPBLOCKS_PER_PAGE + 7), (1, 1, 6));
    }

    #[test]
    fn redo_sets_only_the_named_block() {
        let mut map = Page::new_zeroed();
        redo_set(&mut map, &6u32.to_le_bytes(), VISIBILITYMAP_ALL_VISIBLE).unwrap();
        assert!(!map.is_new(), "an unused map page is initialised first");
        assert_eq!(bitmap(&map)[1], VISIBILITYMAP_ALL_VISIBLE << 4);
        redo_set(&mut map, &6u32.to_le_bytes(), VISIBILITYMAP_ALL_FROZEN).unwrap();
        assert_eq!(bitmap(&map)[1], VISIBILITYMAP_VALID_BITS << 4);
        assert!(bitmap(&map).iter().enumerate().all(|(i, &b)| i == 1 || b == 0));
        assert!(redo_set(&mut map, &[1, 2], 1).is_err());
    }
}
