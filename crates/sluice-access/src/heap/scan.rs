//! Sequential heap scans, a page at a time (PostgreSQL's heapgettup_pagemode
//! and heapgetpage).
//!
//! A scan visits the blocks that existed when it started. For each one it pins
//! the page, takes the shared content lock just long enough to copy the whole
//! page into the scan's own 8 KB buffer, and lets go of both. Everything else
//! happens on that copy without any lock: deciding which tuples the snapshot
//! sees, and handing them to the caller one by one as slices of the copy.
//!
//! # Why a copy, and why that is correct
//!
//! The caller may take as long as it likes per row, and may itself lock pages
//! (an UPDATE scanning its own table locks the page it is reading), so no content
//! lock may be held between calls. PostgreSQL keeps only a pin and reads the
//! tuples in place, relying on nobody moving tuples on a pinned page; Rust's
//! aliasing rules forbid reading bytes that a writer holding the exclusive lock
//! may change, and one `memcpy` of 8 KB into a buffer that stays in the CPU cache
//! costs less than copying the visible tuples one by one.
//!
//! The copy is the page as it was at one instant, with no change half made,
//! because writers change pages only under the exclusive lock. Judging
//! visibility on it gives the answer PostgreSQL gets by judging under the shared
//! lock: a change made after the copy is by a transaction the snapshot cannot
//! see (one that committed before the snapshot was taken stamped its tuples
//! before that), so it would not change any answer.
//!
//! # Hint bits
//!
//! Hint bits learned while checking visibility are set afterwards on the real
//! page if it can be locked exclusively without waiting (`try_write`); a busy
//! page keeps its hints for a later reader. Each hint names the tuple's xmin and
//! xmax, so it never lands on a tuple that replaced the one it was learned on.
//!
//! # Big tables
//!
//! A scan of a table bigger than a quarter of the buffer pool reads through a
//! small ring of frames (`BufferAccessStrategy`, as PostgreSQL's BAS_BULKREAD),
//! so it neither pushes the rest of the cache out nor finds none of itself there
//! on the next run.

use super::hints::{set_hints, TupleHint};
use super::pruneheap::{heap_page_prune_on_access, HotChain};
use super::visibility::{
    satisfies_index_build, satisfies_mvcc_cached, BuildStatus, VisibilityContext, XidCache,
};
use super::HeapRelation;
use crate::common::htup::HeapTupleHeader;
use crate::engine::Engine;
use crate::error::Result;
use sluice_common::{BlockNumber, ForkNumber, ItemPointer};
use sluice_storage::buffer::{BufferAccessStrategy, BufferTag};
use sluice_storage::page::{OffsetNumber, Page, FIRST_OFFSET};
use sluice_txn::TransactionManager;

/// A sequential scan of one heap relation under one snapshot.
pub struct HeapScan<'a> {
    engine: &'a Engine,
    rel: HeapRelation,
    ctx: VisibilityContext<'a>,
    /// The last xid looked up under `ctx`'s snapshot.
    xids: XidCache,
    nblocks: BlockNumber,
    next_block: BlockNumber,
    /// The ring a scan of a big table reads through; `None` for small tables.
    strategy: Option<BufferAccessStrategy>,
    /// The current page, as copied under its shared lock.
    page: Box<Page>,
    /// Its block number.
    block: BlockNumber,
    /// The line pointers of `page` whose tuples the snapshot sees, with each
    /// tuple's byte range in `page` (PostgreSQL's rs_vistuples).
    visible: Vec<(OffsetNumber, u16, u16)>,
    /// The HOT chain roots of a loaded page's line pointers, computed when
    /// [`HeapScan::next_indexable`] first asks on that page.
    roots: (Option<BlockNumber>, Vec<OffsetNumber>),
    /// The next entry of `visible` to return.
    pos: usize,
    /// Hints learned on the current page (kept to reuse the allocation).
    hints: Vec<TupleHint>,
}

impl<'a> HeapScan<'a> {
    /// begin -- a scan of `rel` as `ctx`'s snapshot sees it.
    pub fn begin(
        engine: &'a Engine,
        rel: &HeapRelation,
        ctx: VisibilityContext<'a>,
    ) -> Result<HeapScan<'a>> {
        let pool = engine.pool();
        let nblocks = pool.nblocks(rel.locator, ForkNumber::Main)?;
        // PostgreSQL's threshold (initscan): a quarter of the pool.
        let big = nblocks as usize > pool.nbuffers() / 4;
        Ok(HeapScan {
            engine,
            rel: *rel,
            ctx,
            xids: XidCache::default(),
            nblocks,
            next_block: 0,
            strategy: big.then(|| BufferAccessStrategy::bulk_read(pool.nbuffers())),
            page: Page::new_zeroed(),
            block: 0,
            visible: Vec::new(),
            roots: (None, Vec::new()),
            pos: 0,
            hints: Vec::new(),
        })
    }

    /// next_indexable -- like [`HeapScan::next_tuple`], with the address an
    /// index entry for the version points at: its HOT chain's root (see
    /// [`root_offsets`]).
    pub fn next_indexable(&mut self) -> Result<Option<(ItemPointer, ItemPointer, Vec<u8>)>> {
        let Some((tid, tuple)) = self.next_tuple()? else { return Ok(None) };
        let tuple = tuple.to_vec();
        if self.roots.0 != Some(tid.block) {
            self.roots = (Some(tid.block), root_offsets(&self.page, self.engine.txns())?);
        }
        let root = match self.roots.1.get(tid.offset as usize) {
            Some(&root) if root != 0 => ItemPointer::new(tid.block, root),
            _ => tid,
        };
        Ok(Some((tid, root, tuple)))
    }

    /// next_tuple -- the next visible version and its address, or `None` at the end.
    pub fn next_tuple(&mut self) -> Result<Option<(ItemPointer, &[u8])>> {
        while self.pos >= self.visible.len() {
            if self.next_block >= self.nblocks {
                return Ok(None);
            }
            let block = self.next_block;
            self.next_block += 1;
            self.load_page(block)?;
        }
        let (offset, start, end) = self.visible[self.pos];
        self.pos += 1;
        let tuple = &self.page.as_bytes()[start as usize..end as usize];
        Ok(Some((ItemPointer::new(self.block, offset), tuple)))
    }

    /// load_page -- copies `block`, finds its visible tuples and sets the hints
    /// learned (see the module doc).
    fn load_page(&mut self, block: BlockNumber) -> Result<()> {
        self.visible.clear();
        self.hints.clear();
        self.pos = 0;
        self.block = block;
        let pool = self.engine.pool();
        let tag = BufferTag::new(self.rel.locator, ForkNumber::Main, block);
        let buffer = match &mut self.strategy {
            Some(strategy) => pool.read_buffer_strategy(tag, strategy)?,
            None => pool.read_buffer(tag)?,
        };
        heap_page_prune_on_access(self.engine, &self.rel, &buffer, self.ctx.snapshot)?;
        self.page.as_bytes_mut().copy_from_slice(buffer.read().as_bytes());
        let page = &self.page;
        if page.is_new() {
            return Ok(());
        }
        for offset in FIRST_OFFSET..=page.max_offset() {
            let Some(range) = page.item_range(offset) else { continue };
            let item = &page.as_bytes()[range.clone()];
            let (visible, bits) = satisfies_mvcc_cached(item, &self.ctx, &mut self.xids)?;
            if bits != 0 {
                self.hints.push(TupleHint::new(offset, item, bits)?);
            }
            if visible {
                // Page offsets are below 8192: they fit u16.
                self.visible.push((offset, range.start as u16, range.end as u16));
            }
        }
        if !self.hints.is_empty() {
            if let Some(mut page) = buffer.try_write() {
                set_hints(self.engine, tag, &mut page, &self.hints)?;
            }
        }
        Ok(())
    }
}

/// scan_for_index_build -- calls `found` with every tuple of `rel` an index
/// built now must hold, the address its entry must point at, and whether it
/// is live (see [`satisfies_index_build`]). The caller's lock keeps writers
/// out, so the page copies it judges are final.
///
/// A member of a HOT chain is indexed under its chain's root line pointer
/// (PostgreSQL's heap_get_root_tuples), where index scans start their walk.
/// A recently dead member that was HOT-updated is left out: only the chain's
/// newest member is indexed, since the new index's columns may differ along
/// the chain (PostgreSQL's rule; it also sets `indcheckxmin` so that older
/// snapshots do not use the new index, which sluice does not do yet).
pub fn scan_for_index_build<E: From<crate::AccessError>>(
    engine: &Engine,
    rel: &HeapRelation,
    ctx: &VisibilityContext,
    mut found: impl FnMut(ItemPointer, &[u8], bool) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let pool = engine.pool();
    let horizon = ctx.mgr.horizon().xmin;
    let mut copy = Page::new_zeroed();
    let nblocks = pool.nblocks(rel.locator, ForkNumber::Main).map_err(crate::AccessError::from)?;
    for block in 0..nblocks {
        let tag = BufferTag::new(rel.locator, ForkNumber::Main, block);
        let buffer = pool.read_buffer(tag).map_err(crate::AccessError::from)?;
        copy.as_bytes_mut().copy_from_slice(buffer.read().as_bytes());
        drop(buffer);
        let roots = root_offsets(&copy, ctx.mgr)?;
        for offset in FIRST_OFFSET..=copy.max_offset() {
            let Some(tuple) = copy.item(offset) else { continue };
            let status = satisfies_index_build(tuple, ctx, horizon)?;
            let hot_updated =
                HeapTupleHeader::new(tuple).map_err(crate::AccessError::from)?.is_hot_updated();
            match (status, roots[offset as usize]) {
                (BuildStatus::Skip, _) => {}
                (BuildStatus::RecentlyDead, _) if hot_updated => {}
                (_, 0) => {
                    return Err(crate::AccessError::Corrupt(format!(
                        "failed to find parent tuple for heap-only tuple at ({block},{offset})"
                    ))
                    .into())
                }
                (status, root) => {
                    found(ItemPointer::new(block, root), tuple, status == BuildStatus::Live)?
                }
            }
        }
    }
    Ok(())
}

/// root_offsets -- for every line pointer number of `page`, the root of the
/// HOT chain its tuple belongs to (itself for a tuple no chain reaches that
/// is not heap-only), 0 for none (PostgreSQL's heap_get_root_tuples).
pub fn root_offsets(page: &Page, mgr: &TransactionManager) -> Result<Vec<OffsetNumber>> {
    let max = page.max_offset();
    let mut roots = vec![0; max as usize + 1];
    for off in FIRST_OFFSET..=max {
        let id = page.item_id(off);
        let heap_only = match page.item(off) {
            Some(item) => HeapTupleHeader::new(item)?.is_heap_only(),
            None => false,
        };
        if id.is_redirect() || (id.is_normal() && !heap_only) {
            for member in HotChain::new(page, off, mgr) {
                roots[member? as usize] = off;
            }
        }
    }
    Ok(roots)
}
