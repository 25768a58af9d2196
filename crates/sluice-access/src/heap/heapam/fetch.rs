//! Fetching one row by its address: following a HOT chain from the index
//! entry's root to the member a snapshot sees (heap_hot_search_buffer),
//! and the dirty-snapshot reads unique checks and ON CONFLICT make
//! (a version's status and contents whatever its transaction's outcome).

use super::*;

/// heap_hot_search -- the version of the row an index entry pointing at
/// `tid` leads to that `ctx`'s snapshot sees, and its address (PostgreSQL's
/// heap_hot_search_buffer): the entry names the root of a HOT chain, which
/// may be a redirect, and the visible member may be any heap-only tuple
/// along the chain. A page found short of space is pruned first, if that is
/// cheap (`heap_page_prune_on_access`).
pub fn heap_hot_search(
    engine: &Engine,
    rel: &HeapRelation,
    tid: ItemPointer,
    ctx: &VisibilityContext,
) -> Result<Option<(ItemPointer, Vec<u8>)>> {
    HeapFetch::new(engine, *rel).hot_search(tid, ctx)
}

/// The heap side of an index scan (PostgreSQL's IndexFetchHeapData): the
/// page of the last entry fetched stays pinned, so entries pointing into
/// the same page -- the common case for a correlated index -- neither look
/// it up in the buffer pool again nor consider pruning it again. Pruning on
/// access is tried once per page visited, as PostgreSQL's
/// heapam_index_fetch_tuple does when it switches pages. A pin blocks
/// nobody: tuples are copied out under the content lock, and pruning needs
/// only the exclusive content lock.
pub struct HeapFetch<'e> {
    engine: &'e Engine,
    rel: HeapRelation,
    current: Option<Buffer<'e>>,
    /// The horizon dead chains are judged against, taken at the first need:
    /// an older horizon is only less precise, never wrong.
    horizon: Option<PruneHorizon<'e>>,
}

/// What following one index entry found.
pub enum HotSearch {
    /// The visible version and its address.
    Found(ItemPointer, Vec<u8>),
    /// None visible; `all_dead` if every version the entry leads to is dead
    /// to every snapshot (the index entry may be killed).
    Missing { all_dead: bool },
}

impl<'e> HeapFetch<'e> {
    /// A fetcher for `rel` with no page pinned yet.
    pub fn new(engine: &'e Engine, rel: HeapRelation) -> HeapFetch<'e> {
        HeapFetch { engine, rel, current: None, horizon: None }
    }

    /// hot_search -- the member of the HOT chain rooted at `tid` that `ctx`'s
    /// snapshot sees, and its address (see [`heap_hot_search`]).
    pub fn hot_search(
        &mut self,
        tid: ItemPointer,
        ctx: &VisibilityContext,
    ) -> Result<Option<(ItemPointer, Vec<u8>)>> {
        Ok(match self.hot_search_judged(tid, ctx)? {
            HotSearch::Found(at, tuple) => Some((at, tuple)),
            HotSearch::Missing { .. } => None,
        })
    }

    /// hot_search_judged -- like [`HeapFetch::hot_search`], saying when
    /// nothing is visible whether the whole chain is dead to everyone
    /// (PostgreSQL's heap_hot_search_buffer all_dead).
    pub fn hot_search_judged(
        &mut self,
        tid: ItemPointer,
        ctx: &VisibilityContext,
    ) -> Result<HotSearch> {
        let engine = self.engine;
        if !self.pin(tid.block, ctx)? {
            return Ok(HotSearch::Missing { all_dead: false });
        }
        // A field borrow, not `pin`'s, so that `self.horizon` stays usable.
        let page = self.current.as_ref().expect("pinned above").read();
        // An entry leading to a dead line pointer leads nowhere any more.
        let root_dead = tid.offset <= page.max_offset() && page.item_id(tid.offset).is_dead();
        let (mut any_member, mut all_dead) = (false, true);
        for off in HotChain::new(&page, tid.offset, engine.txns()) {
            let off = off?;
            let item = page.item(off).ok_or_else(|| corrupt_tid(tid))?;
            if satisfies_mvcc(item, ctx)?.0 {
                return Ok(HotSearch::Found(ItemPointer::new(tid.block, off), item.to_vec()));
            }
            any_member = true;
            if all_dead {
                let horizon = self
                    .horizon
                    .get_or_insert_with(|| PruneHorizon::recent(engine.txns(), ctx.snapshot));
                all_dead = satisfies_vacuum(item, horizon)?.0 == VacuumStatus::Dead;
            }
        }
        let all_dead = root_dead || (any_member && all_dead);
        Ok(HotSearch::Missing { all_dead })
    }

    /// Pins page `block` as `current` (perhaps pruning it first) if another
    /// page is pinned; false past the end of the relation.
    fn pin(&mut self, block: BlockNumber, ctx: &VisibilityContext) -> Result<bool> {
        if self.current.as_ref().is_none_or(|b| b.block() != block) {
            self.current = None;
            let pool = self.engine.pool();
            if block >= pool.nblocks(self.rel.locator, ForkNumber::Main)? {
                return Ok(false);
            }
            let buffer = pool.read_buffer(tag_of(&self.rel, block))?;
            heap_page_prune_on_access(self.engine, &self.rel, &buffer, ctx.snapshot)?;
            self.current = Some(buffer);
        }
        Ok(true)
    }
}

/// heap_dirty_status -- the latest state of the row an index entry pointing
/// at `tid` leads to, for a unique check (see [`satisfies_dirty`]): the
/// first member of its HOT chain that is not dead decides; a missing tuple,
/// or a chain of dead ones, is dead.
pub fn heap_dirty_status(
    engine: &Engine,
    rel: &HeapRelation,
    tid: ItemPointer,
    ctx: &VisibilityContext,
) -> Result<DirtyStatus> {
    Ok(heap_dirty_version(engine, rel, tid, ctx)?.0)
}

/// heap_dirty_version -- [`heap_dirty_status`], with the address of the
/// chain member that decided (an ON CONFLICT DO UPDATE locks that one).
pub fn heap_dirty_version(
    engine: &Engine,
    rel: &HeapRelation,
    tid: ItemPointer,
    ctx: &VisibilityContext,
) -> Result<(DirtyStatus, ItemPointer)> {
    if tid.block >= engine.pool().nblocks(rel.locator, ForkNumber::Main)? {
        return Ok((DirtyStatus::Dead, tid));
    }
    let buffer = engine.pool().read_buffer(tag_of(rel, tid.block))?;
    let page = buffer.read();
    for off in HotChain::new(&page, tid.offset, engine.txns()) {
        let off = off?;
        let item = page.item(off).ok_or_else(|| corrupt_tid(tid))?;
        let status = satisfies_dirty(item, ctx)?;
        if status != DirtyStatus::Dead {
            return Ok((status, ItemPointer::new(tid.block, off)));
        }
    }
    Ok((DirtyStatus::Dead, tid))
}

/// heap_version_is_live -- whether the version at exactly `tid` is still
/// live as its own writer sees it (PostgreSQL's SnapshotSelf test in
/// RI_FKey_check): not deleted or updated since and not rolled back. A
/// foreign-key check queued when the version was written is moot if not.
pub fn heap_version_is_live(
    engine: &Engine,
    rel: &HeapRelation,
    tid: ItemPointer,
    ctx: &VisibilityContext,
) -> Result<bool> {
    if tid.block >= engine.pool().nblocks(rel.locator, ForkNumber::Main)? {
        return Ok(false);
    }
    let buffer = engine.pool().read_buffer(tag_of(rel, tid.block))?;
    let page = buffer.read();
    match page.item(tid.offset) {
        Some(item) => Ok(satisfies_dirty(item, ctx)? == DirtyStatus::Live),
        None => Ok(false),
    }
}
