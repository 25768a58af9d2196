//! Lazy VACUUM of one heap relation and its B-tree indexes (PostgreSQL's
//! `vacuumlazy.c`).
//!
//! # The idea
//!
//! Pruning (`pruneheap.rs`) gives back the storage of dead versions but must
//! leave their line pointers, `LP_DEAD`, because index entries still point at
//! them. VACUUM finishes the job in three steps:
//!
//! ```text
//!   pass 1   every page: prune, remember the TIDs of its LP_DEAD pointers
//!            (up to maintenance_work_mem's worth, then steps 2-3 run early
//!            and pass 1 goes on)
//!   indexes  remove every entry pointing at a remembered TID (bulk delete)
//!   pass 2   the remembered pointers become LP_UNUSED: inserts may reuse them
//!   end      cut off empty pages at the end of the file, if the table's
//!            ACCESS EXCLUSIVE lock can be had without waiting
//! ```
//!
//! Pass 1 also replaces each multixact xmax whose members have all ended
//! (`freeze_multis`), so tuples stop naming finished multis.
//!
//! Each page and phase change is reported through `VacuumParams::progress`
//! (the SQL layer's `pg_stat_progress_vacuum`).
//!
//! The order is what keeps index scans correct: a line pointer is reused only
//! after no index entry can lead to it. A table without indexes skips the
//! middle step and frees each page's dead pointers right after pruning it
//! (PostgreSQL's one-pass strategy).
//!
//! Every tuple is judged against one horizon ([`PruneHorizon`]) taken by the
//! caller before pass 1, so the counts reported ("N removed, N remain, N are
//! dead but not yet removable") are consistent with each other.
//!
//! # Locking
//!
//! The caller holds SHARE UPDATE EXCLUSIVE on the table: reads and writes go
//! on, DDL and another VACUUM wait. Pages are locked exclusively one at a
//! time, never two at once, and never while an index page is locked.
//! Truncation needs ACCESS EXCLUSIVE, which the caller's [`TruncateLock`]
//! tries to take without waiting; with it held no one can be inserting, so
//! the empty tail is checked again and cut.
//!
//! # The visibility map
//!
//! A page whose every tuple is visible to all (and has no dead line
//! pointer) is marked all-visible in the visibility map after pruning, or
//! after pass 2 freed its dead pointers; with FREEZE, all-frozen as well
//! (`visibilitymap.rs`). Pass 1 skips pages marked all-visible — all-frozen
//! under FREEZE, which is PostgreSQL's aggressive mode — but only in runs of
//! at least [`SKIP_PAGES_THRESHOLD`] pages (reading a few pages in order
//! costs little more than skipping them, and a scan keeps its readahead),
//! and never the last page, whose emptiness truncation needs to know.
//! DISABLE_PAGE_SKIPPING reads every page.
//!
//! # The free space map
//!
//! Each page's free space is recorded in the free space map once VACUUM is
//! done with it — after pass 2 for a page with dead line pointers, after
//! pruning for the others — so inserts find it (`hio.rs`). Skipped pages
//! keep what the map had. Truncation cuts both maps with the heap.
//!
//! # Index cleanup
//!
//! After the heap, every index gets its cleanup (`nbtree/vacuum.rs`'s
//! `btree_vacuum_cleanup`), even when no bulk delete ran: it is what
//! recycles the B-tree pages earlier VACUUMs deleted.

use super::heapam::log_header_change;
use super::multixact::freeze_multi;
use super::pruneheap::{heap_page_prune, log_line_pointers, PruneResult};
use super::visibility::{satisfies_vacuum, PruneHorizon, VacuumStatus};
use super::visibilitymap::{self, VISIBILITYMAP_ALL_FROZEN, VISIBILITYMAP_ALL_VISIBLE};
use super::xlog::{HeaderChange, XLOG_HEAP_LOCK, XLOG_HEAP_VACUUM};
use super::HeapRelation;
use crate::common::htup::HeapTupleHeader;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use crate::nbtree::{btree_bulk_delete, btree_vacuum_cleanup, BTreeIndex, BulkDeleteResult};
use crate::recovery::{truncate_fork, truncate_heap_maps};
use crate::xlog_records::{encode_smgr_truncate, XLOG_SMGR_TRUNCATE};
use sluice_common::{BlockNumber, ForkNumber, ItemPointer, RmgrId, Xid};
use sluice_storage::buffer::{Buffer, BufferAccessStrategy, BufferTag};
use sluice_storage::freespace;
use sluice_storage::page::{LpFlags, OffsetNumber, Page, FIRST_OFFSET, MAX_HEAP_TUPLES_PER_PAGE};
use sluice_wal::RecordBuilder;

/// Bytes PostgreSQL counts per remembered dead TID (sizeof ItemPointerData):
/// `maintenance_work_mem` holds as many TIDs here as there.
pub const DEAD_ITEM_BYTES: usize = 6;

/// Truncation is tried when at least this many pages at the end are empty
/// (REL_TRUNCATE_MINIMUM) ...
const REL_TRUNCATE_MINIMUM: BlockNumber = 1000;
/// ... or at least this fraction of the table is (REL_TRUNCATE_FRACTION).
const REL_TRUNCATE_FRACTION: BlockNumber = 16;

/// Index vacuuming is skipped when fewer than this fraction of the pages have
/// dead items (BYPASS_THRESHOLD_PAGES) and, in PostgreSQL, the items would
/// take less than 32 MB; not worth a pass over every index.
const BYPASS_THRESHOLD_PAGES: f64 = 0.02;
/// Runs of skippable pages shorter than this are read anyway
/// (SKIP_PAGES_THRESHOLD).
pub const SKIP_PAGES_THRESHOLD: BlockNumber = 32;

/// The 32 MB of dead TIDs below which the bypass applies.
const BYPASS_MAX_ITEMS: u64 = (32 * 1024 * 1024 / DEAD_ITEM_BYTES) as u64;

/// VACUUM's INDEX_CLEANUP option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexCleanup {
    /// Vacuum indexes unless there is too little to gain (the default).
    Auto,
    /// Always vacuum indexes when there are dead items.
    On,
    /// Never: dead line pointers stay for a later VACUUM.
    Off,
}

/// The phases `pg_stat_progress_vacuum` shows (PostgreSQL's
/// PROGRESS_VACUUM_PHASE_*; "cleaning up indexes" is not a phase here because
/// there is no separate cleanup pass).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VacuumPhase {
    /// Before the heap scan starts.
    #[default]
    Initializing,
    /// Pass 1: pruning and collecting dead TIDs.
    ScanningHeap,
    /// Bulk delete in the indexes.
    VacuumingIndexes,
    /// Pass 2: freeing dead line pointers.
    VacuumingHeap,
    /// Waiting for the lock or cutting the empty tail.
    TruncatingHeap,
}

impl VacuumPhase {
    /// The phase as `pg_stat_progress_vacuum.phase` shows it.
    pub fn name(self) -> &'static str {
        match self {
            VacuumPhase::Initializing => "initializing",
            VacuumPhase::ScanningHeap => "scanning heap",
            VacuumPhase::VacuumingIndexes => "vacuuming indexes",
            VacuumPhase::VacuumingHeap => "vacuuming heap",
            VacuumPhase::TruncatingHeap => "truncating heap",
        }
    }
}

/// How far a VACUUM has got: a row of `pg_stat_progress_vacuum`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VacuumProgress {
    /// What it is doing.
    pub phase: VacuumPhase,
    /// Pages of the table when it began.
    pub heap_blks_total: u64,
    /// Pages pass 1 has read.
    pub heap_blks_scanned: u64,
    /// Pages whose dead line pointers were freed.
    pub heap_blks_vacuumed: u64,
    /// Rounds of index vacuuming completed.
    pub index_vacuum_count: u64,
    /// How many dead TIDs fit in the memory.
    pub max_dead_tuples: u64,
    /// Dead TIDs remembered now.
    pub num_dead_tuples: u64,
}

/// How to vacuum (the options the SQL layer parsed).
pub struct VacuumParams<'a> {
    /// INDEX_CLEANUP.
    pub index_cleanup: IndexCleanup,
    /// TRUNCATE: try to cut off the empty tail.
    pub truncate: bool,
    /// How many dead TIDs to remember before the indexes must be vacuumed
    /// (from `maintenance_work_mem`, see [`max_dead_items`]).
    pub max_dead_items: usize,
    /// FREEZE: mark all-visible pages all-frozen too, and skip only pages
    /// already all-frozen (PostgreSQL's aggressive VACUUM).
    pub freeze: bool,
    /// DISABLE_PAGE_SKIPPING: read every page, whatever the map says.
    pub disable_page_skipping: bool,
    /// Polled between pages: cancel, `statement_timeout`.
    pub interrupted: &'a dyn Fn() -> bool,
    /// Told of every page and phase change (`pg_stat_progress_vacuum`).
    pub progress: &'a dyn Fn(&VacuumProgress),
}

/// The table lock truncation needs, never waited for in the lock queue.
pub trait TruncateLock {
    /// Takes ACCESS EXCLUSIVE on the table if it can be had without queueing
    /// (retrying for a while is up to the implementation); false if not.
    fn try_acquire(&mut self) -> bool;
    /// Lets it go again (before the transaction ends, as PostgreSQL does).
    fn release(&mut self);
}

/// What VACUUM did to one table, for VERBOSE and `pg_class`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VacuumReport {
    /// Pages when VACUUM began.
    pub orig_rel_pages: BlockNumber,
    /// Pages read by pass 1 (the others were skipped as all-visible).
    pub scanned_pages: BlockNumber,
    /// Pages this VACUUM newly marked all-visible in the visibility map.
    pub vm_newly_all_visible: BlockNumber,
    /// Pages afterwards (fewer if the tail was truncated).
    pub rel_pages: BlockNumber,
    /// Tuples whose storage pruning released.
    pub tuples_deleted: u64,
    /// Live tuples left (`reltuples`).
    pub live_tuples: u64,
    /// Deleted tuples some snapshot may still see.
    pub recently_dead_tuples: u64,
    /// Pages that had dead line pointers after pruning.
    pub lpdead_item_pages: BlockNumber,
    /// Dead line pointers found after pruning.
    pub lpdead_items: u64,
    /// Whether the indexes were (or, with none, would have been) vacuumed;
    /// false when INDEX_CLEANUP is off or the bypass applied.
    pub do_index_vacuuming: bool,
    /// Rounds of index vacuuming.
    pub num_index_scans: u32,
    /// Per index (in the order given), what its bulk deletes and cleanup
    /// found, if it was looked at.
    pub index_stats: Vec<Option<BulkDeleteResult>>,
    /// The xid horizon used (PostgreSQL's "removable cutoff").
    pub removable_cutoff: Xid,
    /// Truncation was worth trying but the lock could not be had.
    pub truncate_lock_missed: bool,
}

/// max_dead_items -- how many dead TIDs `maintenance_work_mem` (bytes) holds
/// for a table of `rel_pages` pages: never more than the table can have,
/// never fewer than one page's worth (PostgreSQL's dead_items_max_items).
pub fn max_dead_items(maintenance_work_mem: usize, rel_pages: BlockNumber) -> usize {
    let by_memory = maintenance_work_mem / DEAD_ITEM_BYTES;
    let by_table = (rel_pages as usize).max(1) * MAX_HEAP_TUPLES_PER_PAGE;
    by_memory.min(by_table).max(MAX_HEAP_TUPLES_PER_PAGE)
}

/// One VACUUM of one relation in progress.
struct LazyVacuum<'a, 'e> {
    engine: &'e Engine,
    rel: HeapRelation,
    indexes: &'a [BTreeIndex],
    horizon: &'a PruneHorizon<'e>,
    params: &'a VacuumParams<'a>,
    /// The TIDs of dead line pointers not yet vacuumed, ascending.
    dead_items: Vec<ItemPointer>,
    /// One past the last page that still holds tuples.
    nonempty_pages: BlockNumber,
    strategy: Option<BufferAccessStrategy>,
    report: VacuumReport,
    progress: VacuumProgress,
}

/// heap_vacuum_rel -- VACUUM of `rel` and its `indexes` (see the module doc).
/// The caller holds SHARE UPDATE EXCLUSIVE on the table, took `horizon` just
/// before, and updates `pg_class` from the report.
pub fn heap_vacuum_rel<'e>(
    engine: &'e Engine,
    rel: &HeapRelation,
    indexes: &[BTreeIndex],
    horizon: &PruneHorizon<'e>,
    params: &VacuumParams,
    truncate_lock: &mut dyn TruncateLock,
) -> Result<VacuumReport> {
    let pool = engine.pool();
    let rel_pages = pool.nblocks(rel.locator, ForkNumber::Main)?;
    // PostgreSQL's BAS_VACUUM ring, for the same reason as big scans' ring.
    let big = rel_pages as usize > pool.nbuffers() / 4;
    let mut vacuum = LazyVacuum {
        engine,
        rel: *rel,
        indexes,
        horizon,
        params,
        dead_items: Vec::new(),
        nonempty_pages: 0,
        strategy: big.then(|| BufferAccessStrategy::bulk_read(pool.nbuffers())),
        report: VacuumReport {
            orig_rel_pages: rel_pages,
            rel_pages,
            do_index_vacuuming: params.index_cleanup != IndexCleanup::Off,
            index_stats: vec![None; indexes.len()],
            removable_cutoff: horizon.horizon.xmin,
            ..VacuumReport::default()
        },
        progress: VacuumProgress {
            heap_blks_total: rel_pages.into(),
            max_dead_tuples: params.max_dead_items as u64,
            ..VacuumProgress::default()
        },
    };
    vacuum.scan_heap()?;
    vacuum.cleanup_indexes()?;
    // Inserts choose their page afresh, from the free space map VACUUM just
    // filled (PostgreSQL's relcache invalidation at the end of VACUUM
    // forgets the relation's target block).
    engine.set_target_block(rel.locator, None);
    if params.truncate && vacuum.should_attempt_truncation() {
        vacuum.set_phase(VacuumPhase::TruncatingHeap);
        if !truncate_lock.try_acquire() {
            vacuum.report.truncate_lock_missed = true;
            return Ok(vacuum.report);
        }
        let truncated = vacuum.truncate_heap();
        truncate_lock.release();
        truncated?;
    }
    Ok(vacuum.report)
}

impl<'e> LazyVacuum<'_, 'e> {
    /// scan_heap -- pass 1 over every page, with index and heap vacuuming
    /// whenever the dead TIDs fill their memory, and once more at the end
    /// (PostgreSQL's lazy_scan_heap).
    fn scan_heap(&mut self) -> Result<()> {
        self.set_phase(VacuumPhase::ScanningHeap);
        let mut skip_until = 0;
        for block in 0..self.report.orig_rel_pages {
            if (self.params.interrupted)() {
                return Err(AccessError::Interrupted);
            }
            if block >= skip_until {
                skip_until = self.skippable_run(block)?;
            }
            if block < skip_until {
                // All-visible: nothing to prune or count; not scanned.
                // (Whether it is empty is checked again before truncating.)
                self.progress.heap_blks_scanned += 1;
                continue;
            }
            if self.dead_items.len() + MAX_HEAP_TUPLES_PER_PAGE > self.params.max_dead_items
                && !self.dead_items.is_empty()
            {
                self.vacuum_indexes_and_heap(false)?;
                self.set_phase(VacuumPhase::ScanningHeap);
            }
            self.scan_page(block)?;
            (self.params.progress)(&self.progress);
        }
        if !self.dead_items.is_empty() {
            self.vacuum_indexes_and_heap(true)?;
        }
        Ok(())
    }

    /// skippable_run -- the end of the run of pages from `block` that pass 1
    /// may skip: one past its last page if it is long enough, else `block`
    /// (PostgreSQL's lazy_scan_skip).
    fn skippable_run(&self, block: BlockNumber) -> Result<BlockNumber> {
        if self.params.disable_page_skipping {
            return Ok(block);
        }
        let wanted =
            if self.params.freeze { VISIBILITYMAP_ALL_FROZEN } else { VISIBILITYMAP_ALL_VISIBLE };
        let last = self.report.orig_rel_pages.saturating_sub(1);
        let mut end = block;
        while end < last
            && visibilitymap::get_status(self.engine.pool(), self.rel.locator, end)? & wanted != 0
        {
            end += 1;
        }
        Ok(if end - block >= SKIP_PAGES_THRESHOLD { end } else { block })
    }

    /// mark_if_all_visible -- sets the visibility map bits of the locked
    /// `page` if every tuple on it is visible to all (lazy_scan_prune's and
    /// lazy_vacuum_heap_page's last step).
    fn mark_if_all_visible(
        &mut self,
        block: BlockNumber,
        page: &mut sluice_storage::buffer::BufferWriteGuard<'_>,
    ) -> Result<()> {
        if !page_is_all_visible(page, self.horizon)? {
            return Ok(());
        }
        let mut flags = VISIBILITYMAP_ALL_VISIBLE;
        if self.params.freeze {
            flags |= VISIBILITYMAP_ALL_FROZEN;
        }
        let before = visibilitymap::get_status(self.engine.pool(), self.rel.locator, block)?;
        if before & flags == flags {
            return Ok(());
        }
        visibilitymap::set(self.engine, &self.rel, block, page, flags)?;
        if before & VISIBILITYMAP_ALL_VISIBLE == 0 {
            self.report.vm_newly_all_visible += 1;
        }
        Ok(())
    }

    /// Moves to `phase` and says so.
    fn set_phase(&mut self, phase: VacuumPhase) {
        self.progress.phase = phase;
        self.progress.num_dead_tuples = self.dead_items.len() as u64;
        (self.params.progress)(&self.progress);
    }

    /// Pins `block`, through the ring for a big table.
    fn read(&mut self, block: BlockNumber) -> Result<Buffer<'e>> {
        let tag = BufferTag::new(self.rel.locator, ForkNumber::Main, block);
        let pool = self.engine.pool();
        Ok(match &mut self.strategy {
            Some(strategy) => pool.read_buffer_strategy(tag, strategy)?,
            None => pool.read_buffer(tag)?,
        })
    }

    /// scan_page -- prunes one page and counts its tuples (lazy_scan_prune).
    fn scan_page(&mut self, block: BlockNumber) -> Result<()> {
        let (engine, rel, horizon) = (self.engine, self.rel, self.horizon);
        let pruned = {
            let buffer = self.read(block)?;
            let mut page = buffer.write();
            let pruned = heap_page_prune(engine, &rel, block, &mut page, horizon)?;
            freeze_multis(engine, &rel, block, &mut page)?;
            if self.indexes.is_empty() && !pruned.dead_items.is_empty() {
                // Nothing points at the dead line pointers: free them now.
                vacuum_heap_page(engine, &rel, block, &mut page, &pruned.dead_items)?;
                self.progress.heap_blks_vacuumed += 1;
            }
            self.mark_if_all_visible(block, &mut page)?;
            if self.indexes.is_empty()
                || pruned.dead_items.is_empty()
                || !self.report.do_index_vacuuming
            {
                // No second pass will come for this page: its free space is
                // known now (pass 2 records the others).
                freespace::record_free_space(
                    engine.pool(),
                    rel.locator,
                    block,
                    page.heap_free_space(),
                )?;
            }
            pruned
        };
        self.report.scanned_pages += 1;
        self.progress.heap_blks_scanned += 1;
        self.count(block, &pruned);
        if !self.indexes.is_empty() {
            let tids = pruned.dead_items.iter().map(|&off| ItemPointer::new(block, off));
            self.dead_items.extend(tids);
            self.progress.num_dead_tuples = self.dead_items.len() as u64;
        }
        Ok(())
    }

    /// Adds one pruned page to the report.
    fn count(&mut self, block: BlockNumber, pruned: &PruneResult) {
        let report = &mut self.report;
        report.tuples_deleted += pruned.ndeleted as u64;
        if !pruned.dead_items.is_empty() {
            report.lpdead_item_pages += 1;
            report.lpdead_items += pruned.dead_items.len() as u64;
        }
        for (_, status) in &pruned.remaining {
            match status {
                VacuumStatus::Live | VacuumStatus::DeleteInProgress => report.live_tuples += 1,
                VacuumStatus::RecentlyDead => report.recently_dead_tuples += 1,
                // Its inserter counts it when it commits (PostgreSQL's rule).
                VacuumStatus::InsertInProgress | VacuumStatus::Dead => {}
            }
        }
        if !pruned.remaining.is_empty() {
            self.nonempty_pages = block + 1;
        }
    }

    /// vacuum_indexes_and_heap -- removes the remembered TIDs from every
    /// index, then frees their line pointers (lazy_vacuum). At the end of
    /// pass 1 (`last`), a first round with little to gain is bypassed.
    fn vacuum_indexes_and_heap(&mut self, last: bool) -> Result<()> {
        if !self.report.do_index_vacuuming || (last && self.bypass_index_vacuuming()) {
            self.report.do_index_vacuuming = false;
            self.dead_items.clear();
            return Ok(());
        }
        self.set_phase(VacuumPhase::VacuumingIndexes);
        let dead = &self.dead_items;
        let is_dead = |tid: ItemPointer| dead.binary_search(&tid).is_ok();
        for (i, index) in self.indexes.iter().enumerate() {
            let stats = btree_bulk_delete(self.engine, index, &is_dead, self.params.interrupted)?;
            let earlier = self.report.index_stats[i].take();
            self.report.index_stats[i] = Some(earlier.map_or(stats, |e| e.followed_by(stats)));
        }
        self.report.num_index_scans += 1;
        self.progress.index_vacuum_count += 1;
        self.set_phase(VacuumPhase::VacuumingHeap);
        self.vacuum_heap()?;
        self.dead_items.clear();
        Ok(())
    }

    /// cleanup_indexes -- the end of every index's VACUUM, whether or not a
    /// bulk delete ran: recycling deleted pages (lazy_cleanup_all_indexes).
    /// Skipped under INDEX_CLEANUP off.
    fn cleanup_indexes(&mut self) -> Result<()> {
        if self.params.index_cleanup == IndexCleanup::Off {
            return Ok(());
        }
        for (i, index) in self.indexes.iter().enumerate() {
            let stats = self.report.index_stats[i].take();
            self.report.index_stats[i] =
                btree_vacuum_cleanup(self.engine, index, stats, self.params.interrupted)?;
        }
        Ok(())
    }

    /// Whether the only round of index vacuuming is not worth it: under
    /// INDEX_CLEANUP AUTO, fewer than 2% of the pages have dead items
    /// (PostgreSQL's bypass optimisation).
    fn bypass_index_vacuuming(&self) -> bool {
        self.params.index_cleanup == IndexCleanup::Auto
            && self.report.num_index_scans == 0
            && (self.report.lpdead_item_pages as f64)
                < self.report.orig_rel_pages as f64 * BYPASS_THRESHOLD_PAGES
            && self.report.lpdead_items < BYPASS_MAX_ITEMS
    }

    /// vacuum_heap -- pass 2: frees the remembered line pointers, one page at
    /// a time (lazy_vacuum_heap_rel).
    fn vacuum_heap(&mut self) -> Result<()> {
        let items = std::mem::take(&mut self.dead_items);
        for chunk in items.chunk_by(|a, b| a.block == b.block) {
            let block = chunk[0].block;
            let offsets: Vec<OffsetNumber> = chunk.iter().map(|t| t.offset).collect();
            let (engine, rel) = (self.engine, self.rel);
            let buffer = self.read(block)?;
            let mut page = buffer.write();
            vacuum_heap_page(engine, &rel, block, &mut page, &offsets)?;
            self.mark_if_all_visible(block, &mut page)?;
            freespace::record_free_space(
                engine.pool(),
                rel.locator,
                block,
                page.heap_free_space(),
            )?;
            self.progress.heap_blks_vacuumed += 1;
            (self.params.progress)(&self.progress);
        }
        Ok(())
    }

    /// Whether enough empty pages end the table to try truncating
    /// (should_attempt_truncation).
    fn should_attempt_truncation(&self) -> bool {
        let rel_pages = self.report.orig_rel_pages;
        let freeable = rel_pages - self.nonempty_pages;
        freeable > 0
            && (freeable >= REL_TRUNCATE_MINIMUM || freeable >= rel_pages / REL_TRUNCATE_FRACTION)
    }

    /// truncate_heap -- under ACCESS EXCLUSIVE, cuts off the empty pages at
    /// the end (lazy_truncate_heap). Gives up if the table grew meanwhile.
    fn truncate_heap(&mut self) -> Result<()> {
        let (engine, rel) = (self.engine, self.rel);
        let rel_pages = engine.pool().nblocks(rel.locator, ForkNumber::Main)?;
        if rel_pages != self.report.orig_rel_pages {
            return Ok(());
        }
        let new_pages = self.count_nondeletable_pages(rel_pages)?;
        if new_pages >= rel_pages {
            return Ok(());
        }
        truncate_heap_fork(engine, &rel, new_pages)?;
        self.report.rel_pages = new_pages;
        Ok(())
    }

    /// count_nondeletable_pages -- one past the last page, scanning back from
    /// the end, that has any line pointer in use (checked again because pages
    /// changed since pass 1).
    fn count_nondeletable_pages(&mut self, rel_pages: BlockNumber) -> Result<BlockNumber> {
        let mut block = rel_pages;
        while block > self.nonempty_pages {
            let buffer = self.read(block - 1)?;
            let page = buffer.read();
            let in_use =
                !page.is_new() && (1..=page.max_offset()).any(|off| page.item_id(off).is_used());
            if in_use {
                break;
            }
            block -= 1;
        }
        Ok(block)
    }
}

/// freeze_multis -- replaces every multi xmax on the locked `page` whose
/// members have all ended by what it amounts to (see
/// `multixact::freeze_multi`), each change WAL-logged like a row lock's
/// header change, so no tuple VACUUM has seen names a finished multi.
fn freeze_multis(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut sluice_storage::buffer::BufferWriteGuard<'_>,
) -> Result<()> {
    for off in FIRST_OFFSET..=page.max_offset() {
        let tid = ItemPointer::new(block, off);
        let Some(item) = page.item_mut(off) else { continue };
        if !freeze_multi(item, tid, engine.txns())? {
            continue;
        }
        let change = HeaderChange::capture(off, item)?;
        log_header_change(engine, rel, page, tid, Xid::INVALID, XLOG_HEAP_LOCK, change)?;
    }
    Ok(())
}

/// page_is_all_visible -- whether every tuple on `page` is visible to every
/// snapshot now and later: no dead line pointer, and every tuple live with
/// an inserter committed before the horizon (heap_page_is_all_visible). A
/// never-initialised page is not (PostgreSQL leaves those alone too).
fn page_is_all_visible(page: &Page, horizon: &PruneHorizon) -> Result<bool> {
    if page.is_new() {
        return Ok(false);
    }
    for off in FIRST_OFFSET..=page.max_offset() {
        let id = page.item_id(off);
        if id.is_dead() {
            return Ok(false);
        }
        let Some(item) = page.item(off) else { continue };
        if satisfies_vacuum(item, horizon)?.0 != VacuumStatus::Live
            || !horizon.removable(HeapTupleHeader::new(item)?.xmin())?
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// vacuum_heap_page -- marks the dead line pointers `offsets` (ascending) of
/// the exclusively locked `page` unused, drops trailing unused ones, and logs
/// it (lazy_vacuum_heap_page). The index entries pointing at them are gone.
pub fn vacuum_heap_page(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut sluice_storage::buffer::BufferWriteGuard<'_>,
    offsets: &[OffsetNumber],
) -> Result<()> {
    for &off in offsets {
        if off > page.max_offset() || !page.item_id(off).is_dead() {
            return Err(AccessError::Corrupt(format!(
                "line pointer ({block},{off}) to vacuum is not dead"
            )));
        }
        page.set_item_state(off, LpFlags::Unused);
    }
    page.truncate_line_pointers();
    log_line_pointers(engine, rel, block, page, XLOG_HEAP_VACUUM, offsets)
}

/// truncate_heap_fork -- cuts `rel`'s main fork to `nblocks` blocks: logs it
/// and flushes the log first, so a crash can never leave the file shorter
/// than the WAL before it expects (RelationTruncate). The caller holds ACCESS
/// EXCLUSIVE, so nobody uses the pages cut off; inserts stop aiming at them.
///
/// The buffers of the cut pages are dropped unwritten, so a checkpoint must
/// not fix its redo point between the record and the truncation: recovery
/// from it would skip the record and find those pages as they last reached
/// disk, possibly older than changes logged before it. Holding the commit
/// barrier keeps the checkpointer out meanwhile (PostgreSQL's
/// DELAY_CHKPT_START); commits wait that short moment too.
fn truncate_heap_fork(engine: &Engine, rel: &HeapRelation, nblocks: BlockNumber) -> Result<()> {
    let _no_checkpoint = engine.txns().block_commits();
    let record = RecordBuilder::new(RmgrId::Smgr, XLOG_SMGR_TRUNCATE, Xid::INVALID)
        .with_main_data(encode_smgr_truncate(rel.locator, ForkNumber::Main, nblocks));
    let end = engine.wal().insert(&record)?;
    engine.wal().flush(end)?;
    engine.set_target_block(rel.locator, None);
    truncate_fork(engine.pool(), rel.locator, ForkNumber::Main, nblocks)?;
    truncate_heap_maps(engine.pool(), rel.locator, nblocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dead_item_memory_is_bounded_by_settings_and_table() {
        // 64 MB holds 11 million TIDs, but a 10-page table cannot have them.
        assert_eq!(max_dead_items(64 << 20, 10), 10 * MAX_HEAP_TUPLES_PER_PAGE);
        assert_eq!(max_dead_items(1 << 20, 1_000_000), (1 << 20) / DEAD_ITEM_BYTES);
        // Never less than one page's worth, so every page can be pruned.
        assert_eq!(max_dead_items(0, 1_000_000), MAX_HEAP_TUPLES_PER_PAGE);
    }
}
