//! Heap page pruning (PostgreSQL's `pruneheap.c`, heap_page_prune).
//!
//! # The idea
//!
//! A version that no snapshot can see any more — its inserter aborted, or
//! its deleter committed before every live snapshot (the *horizon*,
//! [`PruneHorizon`]) — still occupies its bytes on the page. Pruning takes
//! them back without touching any other page:
//!
//! ```text
//!   before:  lp1 → (live)   lp2 → (dead)   lp3 → (recently dead)
//!   after:   lp1 → (live)   lp2 = DEAD     lp3 → (recently dead)
//!            storage compacted: lp2's bytes are free space again
//! ```
//!
//! The line pointer itself must stay, marked `LP_DEAD`: index entries may
//! still point at it, and only VACUUM, after deleting those entries, may
//! turn it `LP_UNUSED` for reuse (`vacuumlazy.rs`). Line pointer numbers
//! never change, so every tuple address stays valid.
//!
//! # HOT chains
//!
//! An update that changes no indexed column and fits on its page is
//! *heap-only* (`heapam.rs`): the old version is flagged `HEAP_HOT_UPDATED`,
//! the new one `HEAP_ONLY_TUPLE`, and no index entry is made for it. The
//! index entries of the chain's first version, its *root*, lead to every
//! later member by following ctid on the page ([`hot_chain`]):
//!
//! ```text
//!   index → lp1 (root, dead) → lp3 (heap-only, dead) → lp4 (heap-only, live)
//!   after pruning:
//!   index → lp1 = REDIRECT to lp4    lp3 = UNUSED    lp4 (live)
//! ```
//!
//! Pruning walks each chain from its root, removes its dead prefix and keeps
//! the root line pointer — the index entries' target — as an `LP_REDIRECT`
//! to the first survivor, or as `LP_DEAD` when none survives. Heap-only
//! members go straight to `LP_UNUSED`: nothing but their chain pointed at
//! them. Heap-only tuples no chain reaches (their inserter aborted) go too.
//!
//! VACUUM prunes every page; an update whose new version does not fit on
//! its page prunes that page first, and a reader (sequential scan or index
//! fetch) that finds a page short of space with an old enough prune hint
//! prunes it if it can lock it without waiting
//! ([`heap_page_prune_on_access`], PostgreSQL's heap_page_prune_opt), so a
//! page of often updated rows keeps reusing its own space between VACUUMs.

//! # Locking
//!
//! The caller holds the page's exclusive content lock. PostgreSQL needs a
//! *cleanup* lock (exclusive and no other pin), because its scans read
//! tuples in place while holding only a pin; sluice's scans copy the page
//! under the shared lock and fetches copy the tuple (`scan.rs`), so nobody
//! holds a reference into the page without its content lock and the
//! exclusive lock is enough to move tuples. A tuple a running statement has
//! found visible is never dead to all: its snapshot holds the horizon back.
//!
//! # WAL
//!
//! One `XLOG_HEAP_PRUNE` record per pruned page names the redirects made,
//! the line pointers made dead and those made unused ([`PruneRecord`]); redo
//! sets the same ones and compacts the same way, which is deterministic. The page is imaged instead when it is its first change
//! since the checkpoint. Hint bits learned while judging the remaining
//! tuples are set too (they ride along in an image, and are otherwise
//! unlogged, as hints always are).

use super::hints::mark_dirty_hint;
use super::multixact::update_xid;
use super::visibility::{satisfies_vacuum, PruneHorizon, VacuumStatus};
use super::xlog::{encode_offsets, encode_prune, PruneRecord, XLOG_HEAP_PRUNE};
use super::HeapRelation;
use crate::common::htup::HeapTupleHeader;
use crate::engine::Engine;
use crate::error::Result;
use sluice_common::{BlockNumber, ForkNumber, RmgrId, Xid, BLCKSZ};
use sluice_storage::buffer::{Buffer, BufferTag, BufferWriteGuard};
use sluice_storage::page::{OffsetNumber, Page, FIRST_OFFSET, PD_PAGE_FULL};
use sluice_txn::{Snapshot, Transaction, TransactionManager};
use sluice_wal::{BlockRef, RecordBuilder};

/// What pruning one page found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PruneResult {
    /// Tuples whose storage this pruning released (now `LP_DEAD`, `LP_UNUSED`
    /// or a chain root turned redirect).
    pub ndeleted: usize,
    /// Every `LP_DEAD` line pointer on the page afterwards, ascending: the
    /// ones made now and any an earlier pruning left for VACUUM.
    pub dead_items: Vec<OffsetNumber>,
    /// The tuples left, with their judgement against the horizon.
    pub remaining: Vec<(OffsetNumber, VacuumStatus)>,
}

/// heap_page_prune -- prunes the exclusively locked `page` (block `block` of
/// `rel`) against `horizon`; see the module doc. A never-initialised page
/// has nothing to prune.
pub fn heap_page_prune(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    horizon: &PruneHorizon,
) -> Result<PruneResult> {
    let mut result = PruneResult::default();
    if page.is_new() {
        return Ok(result);
    }
    let (status, hinted) = judge_tuples(page, horizon)?;
    let plan = plan_prune(page, &status, horizon.mgr)?;
    let removed = plan.removed(page.max_offset());
    for off in FIRST_OFFSET..=page.max_offset() {
        if page.item_id(off).is_dead() {
            result.dead_items.push(off);
        }
        if let Some(s) = status[off as usize] {
            if !removed[off as usize] {
                result.remaining.push((off, s));
            }
        }
    }
    let prune_xid = next_prune_xid(page, &result.remaining, horizon.mgr)?;
    page.set_prune_xid(prune_xid);
    if plan.record.is_empty() {
        if hinted {
            mark_dirty_hint(engine, BufferTag::new(rel.locator, ForkNumber::Main, block), page)?;
        }
        return Ok(result);
    }
    execute_prune(engine, rel, block, page, &plan.record)?;
    result.ndeleted = plan.ndeleted;
    result.dead_items.extend(plan.record.dead.iter().copied());
    result.dead_items.sort_unstable();
    Ok(result)
}

/// Judges every tuple of `page` against `horizon`, setting the hint bits
/// learned. Returns the judgement per line pointer number (index 0 unused)
/// and whether any hint was set.
fn judge_tuples(
    page: &mut BufferWriteGuard<'_>,
    horizon: &PruneHorizon,
) -> Result<(Vec<Option<VacuumStatus>>, bool)> {
    let mut status = vec![None; page.max_offset() as usize + 1];
    let mut hinted = false;
    for off in FIRST_OFFSET..=page.max_offset() {
        let Some(item) = page.item_mut(off) else { continue };
        let (s, hints) = satisfies_vacuum(item, horizon)?;
        if hints != 0 {
            HeapTupleHeader::new(item)?.set_hint(hints);
            hinted = true;
        }
        status[off as usize] = Some(s);
    }
    Ok((status, hinted))
}

/// What pruning will do to one page: the record to log and apply, and how
/// many tuples it releases.
#[derive(Default)]
struct PrunePlan {
    record: PruneRecord,
    ndeleted: usize,
}

impl PrunePlan {
    /// Per line pointer number up to `max`, whether its tuple loses its
    /// storage.
    fn removed(&self, max: OffsetNumber) -> Vec<bool> {
        let mut removed = vec![false; max as usize + 1];
        let r = &self.record;
        let redirected = r.redirected.iter().map(|&(from, _)| from);
        for off in r.dead.iter().chain(&r.unused).copied().chain(redirected) {
            removed[off as usize] = true;
        }
        removed
    }
}

/// plan_prune -- walks every HOT chain of `page` from its root and decides
/// what becomes of each line pointer (PostgreSQL's heap_prune_chain): the
/// dead prefix of a chain goes, its heap-only members straight to
/// `LP_UNUSED` (no index entry points at them), and the root either
/// redirects to the first surviving member or, if none survives, becomes
/// `LP_DEAD` for VACUUM. Dead heap-only tuples no chain reaches (their
/// inserter aborted) go to `LP_UNUSED` too.
fn plan_prune(
    page: &Page,
    status: &[Option<VacuumStatus>],
    mgr: &TransactionManager,
) -> Result<PrunePlan> {
    let mut plan = PrunePlan::default();
    let max = page.max_offset();
    let mut reached = vec![false; max as usize + 1];
    for root in FIRST_OFFSET..=max {
        let id = page.item_id(root);
        let is_root = id.is_redirect()
            || (id.is_normal() && !header_of(page, root)?.is_some_and(|h| h.is_heap_only()));
        if is_root {
            prune_chain(page, (root, mgr), status, &mut reached, &mut plan)?;
        }
    }
    for off in FIRST_OFFSET..=max {
        if !reached[off as usize] && status[off as usize] == Some(VacuumStatus::Dead) {
            plan.record.unused.push(off);
            plan.ndeleted += 1;
        }
    }
    plan.record.unused.sort_unstable();
    Ok(plan)
}

/// The header of the normal tuple at `off`, if there is one.
fn header_of(page: &Page, off: OffsetNumber) -> Result<Option<HeapTupleHeader<&[u8]>>> {
    Ok(page.item(off).map(HeapTupleHeader::new).transpose()?)
}

/// hot_chain -- the members of the HOT chain rooted at `root` (a redirect's
/// target first, if `root` is one), following each member's ctid while it is
/// HOT-updated and its successor's xmin is its updater (the update member
/// of a multi xmax, looked up in `mgr`). `keep_going` decides, per member,
/// whether the walk may go past it.
fn hot_chain(
    page: &Page,
    root: OffsetNumber,
    mgr: &TransactionManager,
    mut keep_going: impl FnMut(OffsetNumber) -> bool,
) -> Result<Vec<OffsetNumber>> {
    let mut chain = Vec::new();
    let mut members = HotChain::new(page, root, mgr);
    while let Some(off) = members.next().transpose()? {
        chain.push(off);
        if !keep_going(off) {
            break;
        }
    }
    Ok(chain)
}

/// The members of a HOT chain one at a time (see [`hot_chain`]), without
/// collecting them: what an index fetch walks for every entry it follows.
pub struct HotChain<'p> {
    page: &'p Page,
    root: OffsetNumber,
    mgr: &'p TransactionManager,
    /// The next member to look at, if the chain goes on.
    next: Option<OffsetNumber>,
    /// The xmin the next member must have (its predecessor's updater).
    prior_xmax: Xid,
    /// Members returned so far: a chain longer than the page has line
    /// pointers is a cycle, which only corruption makes.
    steps: usize,
}

impl<'p> HotChain<'p> {
    /// The chain rooted at `root`.
    pub fn new(page: &'p Page, root: OffsetNumber, mgr: &'p TransactionManager) -> HotChain<'p> {
        let first = match page.item_id(root) {
            id if id.is_redirect() => id.off(),
            _ => root,
        };
        HotChain { page, root, mgr, next: Some(first), prior_xmax: Xid::INVALID, steps: 0 }
    }

    fn step(&mut self, off: OffsetNumber) -> Result<Option<OffsetNumber>> {
        let page = self.page;
        if off < FIRST_OFFSET || off > page.max_offset() || self.steps > page.max_offset() as usize
        {
            return Ok(None);
        }
        let Some(hdr) = header_of(page, off)? else { return Ok(None) };
        if self.prior_xmax.is_valid() && hdr.xmin() != self.prior_xmax {
            return Ok(None);
        }
        if (off != self.root) != hdr.is_heap_only() {
            // A redirect must lead to a heap-only tuple, and only the root may
            // be an indexed one.
            return Ok(None);
        }
        self.steps += 1;
        self.next = None;
        if hdr.is_hot_updated() {
            self.prior_xmax = update_xid(&hdr, self.mgr)?;
            self.next = Some(hdr.ctid().offset);
        }
        Ok(Some(off))
    }
}

impl Iterator for HotChain<'_> {
    type Item = Result<OffsetNumber>;

    fn next(&mut self) -> Option<Self::Item> {
        let off = self.next.take()?;
        self.step(off).transpose()
    }
}

/// prune_chain -- plans the pruning of the chain rooted at `root`.
fn prune_chain(
    page: &Page,
    (root, mgr): (OffsetNumber, &TransactionManager),
    status: &[Option<VacuumStatus>],
    reached: &mut [bool],
    plan: &mut PrunePlan,
) -> Result<()> {
    // Past a dead member the next may be dead too; past a recently dead one
    // a later one may still be dead (its deleter committed earlier than the
    // horizon's cut) only in the same sense, so the walk goes on through
    // both, and stops at the first member some snapshot still needs whole.
    let mut recent_dead = false;
    let chain = hot_chain(page, root, mgr, |off| match status[off as usize] {
        Some(VacuumStatus::Dead) => true,
        Some(VacuumStatus::RecentlyDead) => {
            recent_dead = true;
            true
        }
        _ => recent_dead,
    })?;
    for &off in &chain {
        reached[off as usize] = true;
    }
    reached[root as usize] = true;
    let latest_dead =
        chain.iter().rposition(|&off| status[off as usize] == Some(VacuumStatus::Dead));
    let root_is_redirect = page.item_id(root).is_redirect();
    let Some(latest_dead) = latest_dead else {
        if root_is_redirect && chain.is_empty() {
            // The redirect leads nowhere any more.
            plan.record.dead.push(root);
        }
        return Ok(());
    };
    for &off in &chain[..=latest_dead] {
        plan.ndeleted += 1;
        if off != root {
            plan.record.unused.push(off);
        }
    }
    match chain.get(latest_dead + 1) {
        Some(&survivor) => plan.record.redirected.push((root, survivor)),
        None => plan.record.dead.push(root),
    }
    Ok(())
}

/// heap_page_prune_opt -- prunes the exclusively locked `page` if pruning
/// may find something: an update calls it when its new version does not fit
/// on the old version's page, before moving it to another page. The page's
/// prune hint must be older than everything `txn`'s snapshot saw running — a
/// necessary condition that costs nothing — before the horizon, which locks
/// the proc array, is computed. The version being updated is never pruned:
/// its updater's snapshot sees it.
pub fn heap_page_prune_opt(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    txn: &mut Transaction,
) -> Result<()> {
    prune_if_hinted(engine, rel, block, page, txn.snapshot())
}

/// Prunes `page` if its prune hint precedes `snapshot`'s xmin and its
/// deleter is behind the horizon (PostgreSQL's GlobalVisTestIsRemovableXid
/// test of pd_prune_xid): while a long transaction holds the horizon back,
/// a page full of recently dead versions is not pruned again and again for
/// nothing by every reader.
fn prune_if_hinted(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    snapshot: Snapshot,
) -> Result<()> {
    let hint = page.prune_xid();
    if !hint.is_valid() || hint >= snapshot.xmin {
        return Ok(());
    }
    let horizon = PruneHorizon::recent(engine.txns(), snapshot);
    if !horizon.removable(hint)? {
        return Ok(());
    }
    heap_page_prune(engine, rel, block, page, &horizon).map(|_| ())
}

/// Whether a page read by a scan is worth pruning: it has a prune hint
/// older than the reader's snapshot and is short of space — below the
/// larger of its fillfactor reserve and a tenth of a page, or flagged full
/// by an update that did not fit (PostgreSQL's heap_page_prune_opt test).
fn worth_pruning(page: &Page, rel: &HeapRelation, snapshot: &Snapshot) -> bool {
    let hint = page.prune_xid();
    let minfree = super::hio::reserved_space(rel).max(BLCKSZ / 10);
    hint.is_valid()
        && hint < snapshot.xmin
        && (page.has_flag(PD_PAGE_FULL) || page.heap_free_space() < minfree)
}

/// heap_page_prune_on_access -- opportunistic pruning when a scan or an
/// index fetch reads `buffer` under `snapshot` (the read-side half of
/// PostgreSQL's heap_page_prune_opt). Cheap tests first, under the shared
/// lock; then the exclusive lock only if it can be had at once (PostgreSQL's
/// conditional cleanup lock): a busy page is left for a later reader.
pub fn heap_page_prune_on_access(
    engine: &Engine,
    rel: &HeapRelation,
    buffer: &Buffer<'_>,
    snapshot: Snapshot,
) -> Result<()> {
    if !worth_pruning(&buffer.read(), rel, &snapshot) {
        return Ok(());
    }
    let Some(mut page) = buffer.try_write() else { return Ok(()) };
    if !worth_pruning(&page, rel, &snapshot) {
        return Ok(());
    }
    prune_if_hinted(engine, rel, buffer.block(), &mut page, snapshot)
}

/// The oldest deleter among the `remaining` tuples that will make one of
/// them prunable once it is old enough (pd_prune_xid), or invalid.
fn next_prune_xid(
    page: &BufferWriteGuard<'_>,
    remaining: &[(OffsetNumber, VacuumStatus)],
    mgr: &TransactionManager,
) -> Result<Xid> {
    let mut oldest = Xid::INVALID;
    for &(off, status) in remaining {
        if !matches!(status, VacuumStatus::RecentlyDead | VacuumStatus::DeleteInProgress) {
            continue;
        }
        let Some(item) = page.item(off) else { continue };
        let xmax = update_xid(&HeapTupleHeader::new(item)?, mgr)?;
        if !oldest.is_valid() || xmax < oldest {
            oldest = xmax;
        }
    }
    Ok(oldest)
}

/// execute_prune -- applies `record` to the page (redirects, dead and
/// unused line pointers, then compaction) and logs it (PostgreSQL's
/// heap_page_prune_execute and log_heap_prune).
fn execute_prune(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    record: &PruneRecord,
) -> Result<()> {
    record.apply(page);
    page.mark_dirty();
    let end = {
        let wal = RecordBuilder::new(RmgrId::Heap, XLOG_HEAP_PRUNE, Xid::INVALID).with_block(
            BlockRef::new(0, rel.locator, ForkNumber::Main, block)
                .with_data(encode_prune(record))
                .with_page(page.as_bytes(), page.hole()),
        );
        engine.wal().insert(&wal)?
    };
    page.set_lsn(end);
    Ok(())
}

/// log_line_pointers -- dirties the changed `page` and logs record `info`
/// (`XLOG_HEAP_VACUUM`) naming the line pointers `offsets` whose state
/// changed, then stamps the page's LSN.
pub(super) fn log_line_pointers(
    engine: &Engine,
    rel: &HeapRelation,
    block: BlockNumber,
    page: &mut BufferWriteGuard<'_>,
    info: u8,
    offsets: &[OffsetNumber],
) -> Result<()> {
    page.mark_dirty();
    let end = {
        let record = RecordBuilder::new(RmgrId::Heap, info, Xid::INVALID).with_block(
            BlockRef::new(0, rel.locator, ForkNumber::Main, block)
                .with_data(encode_offsets(offsets))
                .with_page(page.as_bytes(), page.hole()),
        );
        engine.wal().insert(&record)?
    };
    page.set_lsn(end);
    Ok(())
}
