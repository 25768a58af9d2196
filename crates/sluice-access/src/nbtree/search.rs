//! Finding the leaf for a key (PostgreSQL's `nbtsearch.c`: `_bt_search`,
//! `_bt_moveright`).
//!
//! The descent reads the metapage for the root and walks down one page at a
//! time under shared locks, moving right wherever a concurrent split has
//! carried the key past a page's high key. It remembers the path (the stack)
//! so an inserter that splits a page knows where to look for the parent; the
//! parent may itself have split meanwhile, which the inserter handles by
//! moving right from the remembered page.
//!
//! The leaf comes back pinned but unlocked: the caller locks it as it needs
//! (shared to read, exclusive to insert) and moves right again under that
//! lock, because the page may split between the two.

use super::compare::{child_for, must_move_right, ScanKey};
use super::page::{tuple_at, Meta, Opaque, BTREE_METAPAGE, P_NONE};
use super::BTreeIndex;
use crate::engine::Engine;
use crate::error::Result;
use sluice_common::ForkNumber;
use sluice_storage::buffer::{Buffer, BufferTag};
use sluice_storage::page::OffsetNumber;

/// One internal page on the way down: the page and the pivot followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackEntry {
    /// The internal page.
    pub block: u32,
    /// The offset of the pivot whose downlink was followed.
    pub offset: OffsetNumber,
}

/// pin -- the buffer of `block` of the index.
pub fn pin<'e>(engine: &'e Engine, index: &BTreeIndex, block: u32) -> Result<Buffer<'e>> {
    let tag = BufferTag::new(index.locator, ForkNumber::Main, block);
    Ok(engine.pool().read_buffer(tag)?)
}

/// read_meta -- the metapage's contents.
pub fn read_meta(engine: &Engine, index: &BTreeIndex) -> Result<Meta> {
    let buffer = pin(engine, index, BTREE_METAPAGE)?;
    let page = buffer.read();
    Meta::of(&page)
}

/// Where a descent should go at each internal page.
#[derive(Clone, Copy, Debug)]
pub enum Target<'k> {
    /// Toward `key`.
    Key(&'k ScanKey),
    /// To the first leaf.
    Leftmost,
    /// To the last leaf.
    Rightmost,
}

/// descend -- the leaf (pinned, unlocked) where `target` lies and the path of
/// internal pages above it, or `None` for an empty index.
pub fn descend<'e>(
    engine: &'e Engine,
    index: &BTreeIndex,
    target: Target<'_>,
) -> Result<Option<(Buffer<'e>, Vec<StackEntry>)>> {
    let meta = read_meta(engine, index)?;
    if meta.root == P_NONE {
        return Ok(None);
    }
    descend_to_level(engine, index, target, meta.root, 0).map(Some)
}

/// descend_to_level -- from page `start`, the page at `level` where `target`
/// lies (pinned, unlocked), and the path to it.
pub fn descend_to_level<'e>(
    engine: &'e Engine,
    index: &BTreeIndex,
    target: Target<'_>,
    start: u32,
    level: u32,
) -> Result<(Buffer<'e>, Vec<StackEntry>)> {
    let mut stack = Vec::new();
    let mut buffer = pin(engine, index, start)?;
    loop {
        let step = {
            let page = buffer.read();
            let opaque = Opaque::of(&page);
            if opaque.level <= level {
                None
            } else if let Some(next) = next_page_for(index, target, &page, &opaque)? {
                Some((next, None))
            } else {
                let offset = match target {
                    Target::Key(key) => child_for(index, key, &page)?,
                    Target::Leftmost => opaque.first_data(),
                    Target::Rightmost => page.max_offset(),
                };
                let child = tuple_at(&page, offset)?.downlink();
                Some((child, Some(StackEntry { block: buffer.block(), offset })))
            }
        };
        match step {
            None => return Ok((buffer, stack)),
            Some((block, entry)) => {
                stack.extend(entry);
                buffer = pin(engine, index, block)?;
            }
        }
    }
}

/// next_page_for -- the right sibling to move to from `page`, if `target`
/// lies beyond it.
pub fn next_page_for(
    index: &BTreeIndex,
    target: Target<'_>,
    page: &sluice_storage::page::Page,
    opaque: &Opaque,
) -> Result<Option<u32>> {
    if opaque.is_ignored() {
        // Deleted or half-dead: whatever was here is to the right.
        return Ok(Some(opaque.next));
    }
    let beyond = match target {
        Target::Key(key) => must_move_right(index, key, page)?,
        Target::Leftmost => false,
        Target::Rightmost => !opaque.is_rightmost(),
    };
    Ok(beyond.then_some(opaque.next))
}
