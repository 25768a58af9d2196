//! Sequential heap scans (PostgreSQL's heapgettup_pagemode).
//!
//! A scan visits the blocks that existed when it started, one page at a time:
//! it pins the page, takes the shared content lock just long enough to copy out
//! the versions visible to its snapshot, and then returns them one by one
//! without holding any lock. Copying a page's worth of tuples is what lets the
//! caller take as long as it likes per row without blocking writers.
//!
//! Hint bits learned while checking visibility are set afterwards if the page
//! can be locked exclusively without waiting (`try_write`); a busy page keeps
//! its hints for a later reader.

use super::hints::{set_hints, TupleHint};
use super::visibility::{satisfies_mvcc, VisibilityContext};
use super::HeapRelation;
use crate::engine::Engine;
use crate::error::Result;
use sluice_common::{BlockNumber, ForkNumber, ItemPointer};
use sluice_storage::buffer::BufferTag;
use sluice_storage::page::FIRST_OFFSET;

/// A sequential scan of one heap relation under one snapshot.
pub struct HeapScan<'a> {
    engine: &'a Engine,
    rel: HeapRelation,
    ctx: VisibilityContext<'a>,
    nblocks: BlockNumber,
    next_block: BlockNumber,
    /// The visible tuples of the current page, end to end.
    bytes: Vec<u8>,
    /// (address, start, end) of each tuple in `bytes`.
    items: Vec<(ItemPointer, usize, usize)>,
    pos: usize,
}

impl<'a> HeapScan<'a> {
    /// begin -- a scan of `rel` as `ctx`'s snapshot sees it.
    pub fn begin(
        engine: &'a Engine,
        rel: &HeapRelation,
        ctx: VisibilityContext<'a>,
    ) -> Result<HeapScan<'a>> {
        Ok(HeapScan {
            engine,
            rel: *rel,
            ctx,
            nblocks: engine.pool().nblocks(rel.locator, ForkNumber::Main)?,
            next_block: 0,
            bytes: Vec::with_capacity(sluice_common::BLCKSZ),
            items: Vec::new(),
            pos: 0,
        })
    }

    /// next_tuple -- the next visible version and its address, or `None` at the end.
    pub fn next_tuple(&mut self) -> Result<Option<(ItemPointer, &[u8])>> {
        while self.pos >= self.items.len() {
            if self.next_block >= self.nblocks {
                return Ok(None);
            }
            let block = self.next_block;
            self.next_block += 1;
            self.load_page(block)?;
        }
        let (tid, start, end) = self.items[self.pos];
        self.pos += 1;
        Ok(Some((tid, &self.bytes[start..end])))
    }

    /// Copies the visible tuples of `block` and sets the hints learned.
    fn load_page(&mut self, block: BlockNumber) -> Result<()> {
        self.bytes.clear();
        self.items.clear();
        self.pos = 0;
        let tag = BufferTag::new(self.rel.locator, ForkNumber::Main, block);
        let buffer = self.engine.pool().read_buffer(tag)?;
        let mut hints = Vec::new();
        {
            let page = buffer.read();
            if page.is_new() {
                return Ok(());
            }
            for offset in FIRST_OFFSET..=page.max_offset() {
                let Some(item) = page.item(offset) else { continue };
                let (visible, bits) = satisfies_mvcc(item, &self.ctx)?;
                if bits != 0 {
                    hints.push(TupleHint::new(offset, item, bits)?);
                }
                if visible {
                    let start = self.bytes.len();
                    self.bytes.extend_from_slice(item);
                    self.items.push((ItemPointer::new(block, offset), start, self.bytes.len()));
                }
            }
        }
        if !hints.is_empty() {
            if let Some(mut page) = buffer.try_write() {
                set_hints(self.engine, tag, &mut page, &hints)?;
            }
        }
        Ok(())
    }
}
