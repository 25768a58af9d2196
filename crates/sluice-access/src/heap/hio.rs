//! Choosing the page for a new tuple version (PostgreSQL's `hio.c`,
//! RelationGetBufferForTuple).
//!
//! Inserts go to the relation's *target block* (the page the last insert used)
//! if it still has room; else to a page the free space map
//! (`sluice_storage::freespace`) says has room; else the relation is extended
//! by one page. A page that turns out to lack the room the map promised has
//! its real free space recorded, so the map is corrected as it is used.
//! `fillfactor` applies here: an insert only uses a page whose free space
//! would stay above `(100 - fillfactor)%` of the page afterwards, leaving that
//! room for updates of the page's rows, which then stay on the page (HOT).
//!
//! VACUUM fills the map (`vacuumlazy.rs`), so space freed by deletes is
//! found again by inserts anywhere in the table.
//!
//! The page is returned pinned but not locked: the caller locks it and must
//! re-check the room (another backend may have filled it meanwhile), asking
//! again if it is gone. That keeps extension (which takes the relation's
//! extension lock) from ever happening while a page lock is held.

use super::HeapRelation;
use crate::engine::Engine;
use crate::error::Result;
use sluice_common::{BlockNumber, ForkNumber, BLCKSZ};
use sluice_storage::buffer::{Buffer, BufferTag};
use sluice_storage::freespace;
use sluice_storage::page::Page;

/// Bytes `rel`'s fillfactor keeps free on pages that receive inserts.
pub fn reserved_space(rel: &HeapRelation) -> usize {
    BLCKSZ * (100 - rel.fillfactor.clamp(10, 100) as usize) / 100
}

/// Whether `page` can take a tuple of `len` bytes while keeping `reserve` free.
/// A never-initialised page qualifies (the inserter initialises it).
pub fn page_has_room(page: &Page, len: usize, reserve: usize) -> bool {
    // Items are stored MAXALIGNed, so that is the space a tuple takes.
    page.is_new() || page.heap_free_space() >= sluice_common::maxalign(len) + reserve
}

/// get_page_for_tuple -- a pinned page of `rel` that had room for `len` bytes
/// (plus the fillfactor reserve, `reserve`) when checked. `avoid` is a block
/// the caller already holds (an update's old page), which is never returned.
pub fn get_page_for_tuple<'e>(
    engine: &'e Engine,
    rel: &HeapRelation,
    len: usize,
    reserve: usize,
    avoid: Option<BlockNumber>,
) -> Result<Buffer<'e>> {
    let pool = engine.pool();
    let needed = sluice_common::maxalign(len) + reserve;
    // Without a target, the map first and the last page only if it knows of
    // no room (RelationGetBufferForTuple's order).
    let mut candidate = match engine.target_block(rel.locator) {
        Some(b) => Some(b),
        None => match freespace::get_page_with_free_space(pool, rel.locator, needed)? {
            Some(b) => Some(b),
            None => pool.nblocks(rel.locator, ForkNumber::Main)?.checked_sub(1),
        },
    };
    while let Some(block) = candidate {
        if block < pool.nblocks(rel.locator, ForkNumber::Main)? {
            let buffer = pool.read_buffer(BufferTag::new(rel.locator, ForkNumber::Main, block))?;
            let (room, free) = {
                let page = buffer.read();
                (page_has_room(&page, len, reserve), page.heap_free_space())
            };
            if Some(block) != avoid && room {
                engine.set_target_block(rel.locator, Some(block));
                return Ok(buffer);
            }
            // The map was wrong or stale about this page: correct it
            // (RecordAndGetPageWithFreeSpace).
            freespace::record_free_space(pool, rel.locator, block, free)?;
        }
        let next = freespace::get_page_with_free_space(pool, rel.locator, needed)?;
        // Only the avoided page can come back: it may have the room, but
        // not for this update.
        candidate = next.filter(|&b| b != block);
    }
    let buffer = pool.extend(rel.locator, ForkNumber::Main)?;
    engine.set_target_block(rel.locator, Some(buffer.block()));
    Ok(buffer)
}
