//! Rewriting a heap into a new file (PostgreSQL's `rewriteheap.c` and the
//! copy loop of `heapam_relation_copy_for_cluster`), for VACUUM FULL and
//! CLUSTER.
//!
//! # The idea
//!
//! The old file is read and every row version some snapshot may still need
//! is copied, densely packed, into a new, empty file; the versions no
//! snapshot can see any more are left behind. The caller then points the
//! table's `pg_class` row at the new file and rebuilds the indexes.
//!
//! ```text
//!   old file:  [a][ dead ][b'→c][ dead ][c][d]      (b' updated into c)
//!   survivors: a, b' (recently dead), c, d          in the caller's order
//!   new file:  [a][b'→c][c][d]  + fillfactor room per page
//! ```
//!
//! A version is kept unless [`satisfies_vacuum`] calls it DEAD for the
//! horizon: live versions, recently dead ones (deleted by a transaction some
//! running snapshot does not see as committed: a REPEATABLE READ snapshot
//! older than the rewrite must still find them), and versions of
//! transactions still in progress (prepared ones). Each keeps its xmin,
//! xmax and command id, so every snapshot judges it as before.
//!
//! # Update chains
//!
//! A version's `t_ctid` names its successor. In the new file the successor
//! has a new address, so the link must be rewritten. PostgreSQL does it in
//! one pass with two hash tables (versions waiting for their successor's
//! new address, and new addresses waiting for their predecessor). Here the
//! new address of every survivor is computed first ([`plan_rewrite`]:
//! placement depends only on the survivors' sizes, their order and the
//! fillfactor), so the copy ([`write_rewrite`]) can set each link as it
//! writes the version. A link whose successor was dead (it cannot be seen
//! by anyone, so the chain ends here for every snapshot) points at the
//! version itself, like a deleted row's.
//!
//! HOT chains do not survive: every copied version gets its own index entry
//! when the caller rebuilds the indexes, so the heap-only and HOT-updated
//! bits are cleared (PostgreSQL does the same).
//!
//! # Pages, WAL and crashes
//!
//! New pages are filled in private memory and written whole through the
//! buffer pool, each logged as a full-page image (`XLOG_FPI`, PostgreSQL's
//! log_newpage), so the new file is complete in the WAL once the
//! transaction's commit record is flushed: a crash right after commit
//! replays it. A crash before commit leaves an orphaned file nobody names.
//! The new file gets no visibility map or free space map: nothing is known
//! to be all-visible until the next VACUUM, as in PostgreSQL.
//!
//! # Locking
//!
//! The caller holds ACCESS EXCLUSIVE on the table, so nobody reads or
//! changes the old file meanwhile and its pages can be judged from copies.
//! That is also why the simplified chain handling is safe: no backend can
//! be following a ctid chain of this table during the rewrite, and after
//! it every backend opens the new file.

use super::hio::reserved_space;
use super::multixact::update_xid;
use super::visibility::{satisfies_vacuum, PruneHorizon, VacuumStatus};
use super::HeapRelation;
use crate::common::htup::{HeapTupleHeader, HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE};
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use crate::xlog_records::XLOG_FPI;
use sluice_common::{BlockNumber, ForkNumber, ItemPointer, RmgrId, Xid};
use sluice_storage::buffer::BufferTag;
use sluice_storage::page::{Page, FIRST_OFFSET};
use sluice_wal::{BlockRef, RecordBuilder, BLOCK_FORCE_IMAGE};
use std::collections::HashMap;

/// One version the rewrite keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Survivor {
    /// Its address in the old file.
    pub old: ItemPointer,
    /// Its length in bytes.
    pub len: u16,
    /// Its successor's old address, if it was updated (not deleted, not
    /// only locked) by a transaction that did not abort.
    pub next: Option<ItemPointer>,
    /// The hint bits [`satisfies_vacuum`] learned, set on the copy.
    pub hints: u16,
    /// Deleted, but a snapshot may still see it.
    pub recently_dead: bool,
    /// The deleter's xid when recently dead (the new page's prune hint).
    pub xmax: Xid,
}

/// What reading the old file found (PostgreSQL's counts for VACUUM FULL's
/// VERBOSE report and `pg_stat_progress_cluster`).
#[derive(Clone, Debug, Default)]
pub struct SurvivorScan {
    /// The versions kept, in the old file's order.
    pub survivors: Vec<Survivor>,
    /// Versions left behind (dead to every snapshot).
    pub removable: u64,
    /// Recently dead versions among the survivors.
    pub recently_dead: u64,
    /// Pages of the old file.
    pub old_pages: BlockNumber,
}

/// scan_survivors -- reads every page of `old` and judges each version
/// against `horizon`. `progress` is told the blocks read and versions
/// scanned so far after each page; `interrupted` stops the scan.
pub fn scan_survivors(
    engine: &Engine,
    old: &HeapRelation,
    horizon: &PruneHorizon,
    interrupted: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(BlockNumber, BlockNumber, u64),
) -> Result<SurvivorScan> {
    let pool = engine.pool();
    let nblocks = pool.nblocks(old.locator, ForkNumber::Main)?;
    let mut found = SurvivorScan { old_pages: nblocks, ..SurvivorScan::default() };
    let mut copy = Page::new_zeroed();
    let mut scanned = 0;
    for block in 0..nblocks {
        if interrupted() {
            return Err(AccessError::Interrupted);
        }
        let buffer = pool.read_buffer(BufferTag::new(old.locator, ForkNumber::Main, block))?;
        copy.as_bytes_mut().copy_from_slice(buffer.read().as_bytes());
        drop(buffer);
        for offset in FIRST_OFFSET..=copy.max_offset() {
            let Some(tuple) = copy.item(offset) else { continue };
            scanned += 1;
            let tid = ItemPointer::new(block, offset);
            match judge(tid, tuple, horizon)? {
                Some(survivor) => {
                    found.recently_dead += u64::from(survivor.recently_dead);
                    found.survivors.push(survivor);
                }
                None => found.removable += 1,
            }
        }
        progress(block + 1, nblocks, scanned);
    }
    Ok(found)
}

/// judge -- the survivor record of the version at `tid`, or `None` if it is
/// dead to every snapshot.
fn judge(tid: ItemPointer, tuple: &[u8], horizon: &PruneHorizon) -> Result<Option<Survivor>> {
    let (status, hints) = satisfies_vacuum(tuple, horizon)?;
    if status == VacuumStatus::Dead {
        return Ok(None);
    }
    let hdr = HeapTupleHeader::new(tuple)?;
    // An aborted deleter (the hint just learned) leaves no successor.
    let xmax_gone = hdr.xmax_invalid() || hints & crate::common::htup::HEAP_XMAX_INVALID != 0;
    let updater = if xmax_gone { Xid::INVALID } else { update_xid(&hdr, horizon.mgr)? };
    let updated = updater.is_valid();
    let next = (updated && hdr.ctid() != tid).then(|| hdr.ctid());
    Ok(Some(Survivor {
        old: tid,
        len: tuple.len() as u16,
        next,
        hints,
        recently_dead: status == VacuumStatus::RecentlyDead,
        xmax: updater,
    }))
}

/// The new addresses of the survivors, in the order given, and the number
/// of pages the new file will have.
#[derive(Clone, Debug, Default)]
pub struct RewritePlan {
    /// `new[i]` is where `survivors[i]` goes.
    pub new: Vec<ItemPointer>,
    /// Old address → new address, for the versions some survivor's ctid
    /// names.
    successors: HashMap<ItemPointer, ItemPointer>,
    /// Pages of the new file.
    pub pages: BlockNumber,
}

/// plan_rewrite -- where each of `survivors` goes when they are copied in
/// this order into `new_rel` (whose fillfactor sets the room left free).
pub fn plan_rewrite(new_rel: &HeapRelation, survivors: &[Survivor]) -> Result<RewritePlan> {
    let mut packer = Packer::new(reserved_space(new_rel));
    let mut plan = RewritePlan::default();
    let zeros = vec![0u8; survivors.iter().map(|s| s.len as usize).max().unwrap_or(0)];
    for survivor in survivors {
        let (tid, _) = packer.add(&zeros[..survivor.len as usize])?;
        plan.new.push(tid);
    }
    plan.pages = packer.pages();
    let wanted: std::collections::HashSet<ItemPointer> =
        survivors.iter().filter_map(|s| s.next).collect();
    plan.successors = survivors
        .iter()
        .zip(&plan.new)
        .filter(|(s, _)| wanted.contains(&s.old))
        .map(|(s, &new)| (s.old, new))
        .collect();
    Ok(plan)
}

/// write_rewrite -- copies `survivors` from `old` into the empty file of
/// `new_rel` at the addresses `plan` gave them, logging each page whole.
/// `progress` is told the versions written so far after each page.
pub fn write_rewrite(
    engine: &Engine,
    old: &HeapRelation,
    new_rel: &HeapRelation,
    survivors: &[Survivor],
    plan: &RewritePlan,
    interrupted: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(u64),
) -> Result<()> {
    let mut packer = Packer::new(reserved_space(new_rel));
    let mut source = OldPage { block: None, page: Page::new_zeroed() };
    for (i, (survivor, &planned)) in survivors.iter().zip(&plan.new).enumerate() {
        if interrupted() {
            return Err(AccessError::Interrupted);
        }
        let mut tuple = source.tuple(engine, old, survivor.old)?;
        prepare_copy(&mut tuple, survivor, planned, plan)?;
        let (tid, finished) = packer.add(&tuple)?;
        if tid != planned {
            return Err(AccessError::Internal(format!(
                "heap rewrite placed {} at {tid} instead of {planned}",
                survivor.old
            )));
        }
        if survivor.recently_dead {
            packer.note_prunable(survivor.xmax);
        }
        if let Some(page) = finished {
            write_new_page(engine, new_rel, tid.block - 1, &page)?;
            progress(i as u64);
        }
    }
    let last = packer.pages().checked_sub(1);
    if let (Some(page), Some(block)) = (packer.finish(), last) {
        write_new_page(engine, new_rel, block, &page)?;
    }
    progress(survivors.len() as u64);
    Ok(())
}

/// prepare_copy -- the header of the copy: the hints learned, no HOT bits,
/// and a ctid naming the successor's new address (or itself).
fn prepare_copy(
    tuple: &mut [u8],
    survivor: &Survivor,
    new_tid: ItemPointer,
    plan: &RewritePlan,
) -> Result<()> {
    let mut hdr = HeapTupleHeader::new(tuple)?;
    hdr.set_hint(survivor.hints);
    hdr.clear_infomask2_bits(HEAP_HOT_UPDATED | HEAP_ONLY_TUPLE);
    let ctid = survivor.next.and_then(|next| plan.successors.get(&next).copied());
    hdr.set_ctid(ctid.unwrap_or(new_tid));
    Ok(())
}

/// for_each_survivor -- calls `visit` with each of `survivors` (in the old
/// file's order) and its bytes in `old` (CLUSTER reads their sort keys).
pub fn for_each_survivor<E: From<AccessError>>(
    engine: &Engine,
    old: &HeapRelation,
    survivors: &[Survivor],
    mut visit: impl FnMut(&Survivor, &[u8]) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let mut source = OldPage { block: None, page: Page::new_zeroed() };
    for survivor in survivors {
        let tuple = source.tuple(engine, old, survivor.old)?;
        visit(survivor, &tuple)?;
    }
    Ok(())
}

/// The old page the last survivor came from (survivors in file order come
/// from one page after another; in index order they jump around).
struct OldPage {
    block: Option<BlockNumber>,
    page: Box<Page>,
}

impl OldPage {
    /// A copy of the version at `tid` of `rel`.
    fn tuple(&mut self, engine: &Engine, rel: &HeapRelation, tid: ItemPointer) -> Result<Vec<u8>> {
        if self.block != Some(tid.block) {
            let tag = BufferTag::new(rel.locator, ForkNumber::Main, tid.block);
            let buffer = engine.pool().read_buffer(tag)?;
            self.page.as_bytes_mut().copy_from_slice(buffer.read().as_bytes());
            self.block = Some(tid.block);
        }
        self.page
            .item(tid.offset)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| AccessError::Corrupt(format!("no heap tuple at {tid}")))
    }
}

/// Fills new pages one after the other (PostgreSQL's raw_heap_insert): a
/// version goes on the current page if it leaves the fillfactor's room
/// free, else a new page is started (an empty page takes any version).
struct Packer {
    reserve: usize,
    page: Box<Page>,
    block: BlockNumber,
    /// The current page holds at least one version.
    used: bool,
}

impl Packer {
    fn new(reserve: usize) -> Packer {
        let mut page = Page::new_zeroed();
        page.init(0);
        Packer { reserve, page, block: 0, used: false }
    }

    /// add -- puts `tuple` on the current page or a new one; returns its
    /// address and the page finished to make room, if any.
    fn add(&mut self, tuple: &[u8]) -> Result<(ItemPointer, Option<Box<Page>>)> {
        let needed = sluice_common::maxalign(tuple.len()) + self.reserve;
        let mut finished = None;
        if self.used && self.page.heap_free_space() < needed {
            let mut next = Page::new_zeroed();
            next.init(0);
            finished = Some(std::mem::replace(&mut self.page, next));
            self.block += 1;
        }
        let offset = self.page.add_item(tuple).ok_or(AccessError::Internal(format!(
            "heap rewrite: a tuple of {} bytes does not fit an empty page",
            tuple.len()
        )))?;
        self.used = true;
        let tid = ItemPointer::new(self.block, offset);
        let item = self
            .page
            .item_mut(offset)
            .ok_or(AccessError::Internal(format!("heap rewrite: no item at {tid} just added")))?;
        HeapTupleHeader::new(item)?.set_ctid(tid);
        Ok((tid, finished))
    }

    /// Lowers the current page's prune hint to deleter `xid`, so that the
    /// first reader after the horizon passes it prunes the page.
    fn note_prunable(&mut self, xid: Xid) {
        let current = self.page.prune_xid();
        if !current.is_valid() || xid < current {
            self.page.set_prune_xid(xid);
        }
    }

    /// The number of pages the survivors added so far fill.
    fn pages(&self) -> BlockNumber {
        if self.used {
            self.block + 1
        } else {
            0
        }
    }

    /// The last page, if it holds anything.
    fn finish(self) -> Option<Box<Page>> {
        self.used.then_some(self.page)
    }
}

/// write_new_page -- appends `page` to `rel`'s file (as its block `block`)
/// through the buffer pool and logs it whole.
fn write_new_page(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &Page,
) -> Result<()> {
    let buffer = engine.pool().extend(rel.locator, ForkNumber::Main)?;
    if buffer.block() != block {
        return Err(AccessError::Internal(format!(
            "heap rewrite grew out of step: block {} instead of {block}",
            buffer.block()
        )));
    }
    let mut target = buffer.write();
    target.as_bytes_mut().copy_from_slice(page.as_bytes());
    target.mark_dirty();
    let end = {
        let block = BlockRef::new(0, rel.locator, ForkNumber::Main, buffer.block())
            .with_flags(BLOCK_FORCE_IMAGE)
            .with_page(target.as_bytes(), target.hole());
        let record = RecordBuilder::new(RmgrId::Xlog, XLOG_FPI, Xid::INVALID).with_block(block);
        engine.wal().insert(&record)?
    };
    target.set_lsn(end);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_common::RelFileLocator;

    fn survivor(block: u32, offset: u16, len: u16, next: Option<ItemPointer>) -> Survivor {
        let old = ItemPointer::new(block, offset);
        Survivor { old, len, next, hints: 0, recently_dead: false, xmax: Xid::INVALID }
    }

    fn rel(fillfactor: u8) -> HeapRelation {
        HeapRelation { fillfactor, ..HeapRelation::new(RelFileLocator::default()) }
    }

    #[test]
    fn survivors_are_packed_densely_in_order() {
        let survivors: Vec<Survivor> = (1..=100).map(|i| survivor(i, 1, 200, None)).collect();
        let plan = plan_rewrite(&rel(100), &survivors).unwrap();
        // 200 bytes + a 4-byte line pointer: 40 fit in a page's 8168 bytes.
        assert_eq!(plan.pages, 3);
        assert_eq!(plan.new[0], ItemPointer::new(0, 1));
        assert_eq!(plan.new[39], ItemPointer::new(0, 40));
        assert_eq!(plan.new[40], ItemPointer::new(1, 1));
        assert_eq!(plan.new[99], ItemPointer::new(2, 20));
    }

    #[test]
    fn fillfactor_leaves_room_on_each_page() {
        let survivors: Vec<Survivor> = (1..=400).map(|i| survivor(i, 1, 200, None)).collect();
        let full = plan_rewrite(&rel(100), &survivors).unwrap();
        let half = plan_rewrite(&rel(50), &survivors).unwrap();
        assert_eq!(full.pages, 10);
        // A version goes on a page only if 4096 bytes stay free after it:
        // 19 per page instead of 40.
        assert_eq!(half.pages, 22);
    }

    #[test]
    fn a_tuple_bigger_than_the_reserve_allows_gets_a_page_of_its_own() {
        let survivors = vec![survivor(0, 1, 5000, None), survivor(0, 2, 5000, None)];
        let plan = plan_rewrite(&rel(50), &survivors).unwrap();
        assert_eq!(plan.new, vec![ItemPointer::new(0, 1), ItemPointer::new(1, 1)]);
        assert_eq!(plan.pages, 2);
    }

    #[test]
    fn update_links_follow_the_successor_to_its_new_address() {
        // (5,1) was updated into (9,3); (7,2) was updated into a dead version.
        let survivors = vec![
            survivor(5, 1, 100, Some(ItemPointer::new(9, 3))),
            survivor(7, 2, 100, Some(ItemPointer::new(8, 8))),
            survivor(9, 3, 100, None),
        ];
        let plan = plan_rewrite(&rel(100), &survivors).unwrap();
        let ctid_of = |i: usize| {
            let mut tuple = vec![0u8; 100];
            HeapTupleHeader::new(&mut tuple[..]).unwrap().set_natts(0);
            prepare_copy(&mut tuple, &survivors[i], plan.new[i], &plan).unwrap();
            HeapTupleHeader::new(&tuple[..]).unwrap().ctid()
        };
        assert_eq!(ctid_of(0), ItemPointer::new(0, 3), "the successor's new address");
        assert_eq!(ctid_of(1), ItemPointer::new(0, 2), "a dead successor: itself");
        assert_eq!(ctid_of(2), ItemPointer::new(0, 3), "not updated: itself");
    }

    #[test]
    fn empty_table_plans_no_pages() {
        let plan = plan_rewrite(&rel(100), &[]).unwrap();
        assert_eq!(plan.pages, 0);
        assert!(plan.new.is_empty());
    }
}
