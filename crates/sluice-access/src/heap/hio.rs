//! Choosing the page for a new tuple version (PostgreSQL's `hio.c`,
//! RelationGetBufferForTuple).
//!
//! Inserts go to the relation's *target block* (the page the last insert used)
//! if it still has room, else the relation is extended by one page. `fillfactor`
//! applies here: an insert only uses a page whose free space would stay above
//! `(100 - fillfactor)%` of the page afterwards, leaving that room for updates of
//! the page's rows, which then stay on the page.
//!
//! The free space map (a later milestone) will add "any page with room" between
//! the two. Until then, space freed by deletes is reused only by updates on the
//! same page.
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
/// when checked. `avoid` is a block the caller already holds (an update's old
/// page), which is never returned.
pub fn get_page_for_tuple<'e>(
    engine: &'e Engine,
    rel: &HeapRelation,
    len: usize,
    avoid: Option<BlockNumber>,
) -> Result<Buffer<'e>> {
    let reserve = reserved_space(rel);
    let candidate = match engine.target_block(rel.locator) {
        Some(b) => Some(b),
        None => engine.pool().nblocks(rel.locator, ForkNumber::Main)?.checked_sub(1),
    };
    if let Some(block) = candidate.filter(|&b| Some(b) != avoid) {
        let buffer =
            engine.pool().read_buffer(BufferTag::new(rel.locator, ForkNumber::Main, block))?;
        if page_has_room(&buffer.read(), len, reserve) {
            return Ok(buffer);
        }
    }
    let buffer = engine.pool().extend(rel.locator, ForkNumber::Main)?;
    engine.set_target_block(rel.locator, Some(buffer.block()));
    Ok(buffer)
}
