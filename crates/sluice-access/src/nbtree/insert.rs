//! Inserting into a B-tree (PostgreSQL's `nbtinsert.c`): unique checks, the
//! insert itself, page splits and new roots.
//!
//! An insert descends to the leaf for its key, locks it exclusively (moving
//! right if a split got there first) and, for a unique index, checks the equal
//! keys from there on while holding that first page (see `mod.rs` for why
//! that serialises concurrent inserters of one key). It then moves right —
//! locking each next page before letting go of the previous one — to the page
//! where (key, heap TID) belongs, and adds the entry. If the page is full it
//! is split (`split.rs`), which may cascade upward.
//!
//! Ever-increasing keys (a serial primary key, an insertion timestamp) all
//! go to the rightmost leaf. As PostgreSQL does, the index remembers the
//! rightmost leaf its last insert went to (the engine's per-relation target
//! block), and an insert whose key sorts after that page's first entry goes
//! straight there without descending from the root — when the page is still
//! the rightmost leaf, has room and its lock is free at once. Everything is
//! re-checked under the page lock, so a stale hint only costs the descent.

use super::compare::{compare_at, compare_column, first_not_less, must_move_right, ScanKey};
use super::page::{init_node, tuple_at, Meta, Opaque, BTP_LEAF, BTP_ROOT, BTREE_METAPAGE, P_NONE};
use super::search::{descend, pin, Target};
use super::split::insert_on_page;
use super::xlog::{encode_insert, PendingRecord, XLOG_BTREE_INSERT, XLOG_BTREE_NEWROOT};
use super::BTreeIndex;
use crate::common::indextuple::form_index_tuple;
use crate::common::IndexTuple;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use crate::heap::heapam::wait_for;
use crate::heap::visibility::DirtyStatus;
use sluice_common::{maxalign, ForkNumber, ItemPointer, RmgrId, Xid};
use sluice_storage::buffer::{Buffer, BufferWriteGuard};
use sluice_storage::page::{OffsetNumber, Page};
use sluice_txn::Transaction;
use sluice_wal::{BlockRef, RecordBuilder};
use std::cmp::Ordering;

/// What a unique index's insert needs to judge duplicates: the state of the
/// heap tuple behind an equal entry, and who waits if that is not settled.
pub struct UniqueCheck<'a> {
    /// The inserting transaction (waits are on its behalf, for deadlock
    /// detection).
    pub txn: &'a Transaction,
    /// Ends a wait early (cancel, timeouts).
    pub interrupted: &'a dyn Fn() -> bool,
    /// The latest state of the heap tuple at a TID.
    pub heap_status: &'a mut dyn FnMut(ItemPointer) -> Result<DirtyStatus>,
}

/// The outcome of one attempt.
enum Attempt {
    Done,
    /// A duplicate's transaction is still running: wait, then start over.
    Wait(Xid),
    /// The index got its first root from someone else meanwhile: start over.
    Retry,
}

/// btree_insert -- adds the entry `values` → `heap_tid` to `index`. With
/// `unique`, fails with [`AccessError::UniqueViolation`] if a live entry with
/// the same (all non-NULL) key exists, after waiting for any transaction that
/// is still deciding one.
pub fn btree_insert(
    engine: &Engine,
    index: &BTreeIndex,
    values: &[Option<&[u8]>],
    heap_tid: ItemPointer,
    mut unique: Option<UniqueCheck<'_>>,
) -> Result<()> {
    let tuple = form_index_tuple(&index.desc, values, heap_tid);
    let (size, max) = (maxalign(tuple.len()), super::page::max_item_size());
    if size > max {
        return Err(AccessError::IndexRowTooBig { size, max });
    }
    let key = ScanKey::for_entry(values, heap_tid);
    if values.iter().any(Option::is_none) {
        unique = None; // NULLs are distinct from each other
    }
    loop {
        match try_insert(engine, index, &key, &tuple, unique.as_mut())? {
            Attempt::Done => return Ok(()),
            Attempt::Retry => {}
            Attempt::Wait(xid) => {
                let check = unique.as_ref().expect("only unique checks wait");
                wait_for(check.txn, xid, check.interrupted)?;
            }
        }
    }
}

/// btree_probe_unique -- looks for an entry equal to `values` without
/// inserting (the pre-check of a speculative insertion, PostgreSQL's
/// ExecCheckIndexConstraints): `Ok(None)` when there is none that is live
/// or may become live, `Ok(Some(xid))` when a duplicate's fate depends on
/// running transaction `xid`, and [`AccessError::UniqueViolation`] for a
/// live duplicate (the last TID `check.heap_status` was asked about is
/// its heap tuple). A key with a NULL never conflicts.
pub fn btree_probe_unique(
    engine: &Engine,
    index: &BTreeIndex,
    values: &[Option<&[u8]>],
    check: &mut UniqueCheck<'_>,
) -> Result<Option<Xid>> {
    if values.iter().any(Option::is_none) {
        return Ok(None);
    }
    let search = ScanKey::for_entry(values, ItemPointer::new(0, 0)).without_tid();
    let Some((mut buffer, _)) = descend(engine, index, Target::Key(&search))? else {
        return Ok(None);
    };
    loop {
        let page = buffer.read();
        if must_move_right(index, &search, &page)? {
            let next = Opaque::of(&page).next;
            drop(page);
            buffer = pin(engine, index, next)?;
            continue;
        }
        return check_unique(engine, index, &search, &page, check);
    }
}

fn try_insert(
    engine: &Engine,
    index: &BTreeIndex,
    key: &ScanKey,
    tuple: &[u8],
    unique: Option<&mut UniqueCheck<'_>>,
) -> Result<Attempt> {
    let search = if unique.is_some() { key.without_tid() } else { key.clone() };
    let unique = match try_rightmost(engine, index, (key, &search), tuple, unique)? {
        Fastpath::Taken(attempt) => return Ok(attempt),
        Fastpath::Missed(unique) => unique,
    };
    let Some((mut buffer, stack)) = descend(engine, index, Target::Key(&search))? else {
        let created = create_root(engine, index, tuple)?;
        return Ok(if created { Attempt::Done } else { Attempt::Retry });
    };
    loop {
        let page = buffer.write();
        if must_move_right(index, &search, &page)? {
            let next = Opaque::of(&page).next;
            drop(page);
            buffer = pin(engine, index, next)?;
            continue;
        }
        if let Some(check) = unique {
            if let Some(xid) = check_unique(engine, index, &search, &page, check)? {
                return Ok(Attempt::Wait(xid));
            }
        }
        insert_from(engine, index, key, tuple, &buffer, page, &stack)?;
        return Ok(Attempt::Done);
    }
}

/// Whether the rightmost-leaf fastpath did the insert; if not, the unique
/// check is handed back for the descent.
enum Fastpath<'u, 'a> {
    Taken(Attempt),
    Missed(Option<&'u mut UniqueCheck<'a>>),
}

/// try_rightmost -- the insert through the remembered rightmost leaf (see
/// the module doc), if that page qualifies. `search` is the key the unique
/// check looks for (without heap TID when there is one).
fn try_rightmost<'u, 'a>(
    engine: &Engine,
    index: &BTreeIndex,
    (key, search): (&ScanKey, &ScanKey),
    tuple: &[u8],
    unique: Option<&'u mut UniqueCheck<'a>>,
) -> Result<Fastpath<'u, 'a>> {
    let Some(block) = engine.target_block(index.locator) else {
        return Ok(Fastpath::Missed(unique));
    };
    if block >= engine.pool().nblocks(index.locator, ForkNumber::Main)? {
        return Ok(Fastpath::Missed(unique));
    }
    let buffer = pin(engine, index, block)?;
    let Some(page) = buffer.try_write() else { return Ok(Fastpath::Missed(unique)) };
    if !rightmost_takes(index, search, &page, tuple.len())? {
        drop(page);
        engine.set_target_block(index.locator, None);
        return Ok(Fastpath::Missed(unique));
    }
    if let Some(check) = unique {
        if let Some(xid) = check_unique(engine, index, search, &page, check)? {
            return Ok(Fastpath::Taken(Attempt::Wait(xid)));
        }
    }
    insert_from(engine, index, key, tuple, &buffer, page, &[])?;
    Ok(Fastpath::Taken(Attempt::Done))
}

/// Whether `page` is still the rightmost leaf, has room for an entry of
/// `len` bytes and holds an entry sorting before `search` (so every entry
/// equal to it is on this page or to come).
fn rightmost_takes(index: &BTreeIndex, search: &ScanKey, page: &Page, len: usize) -> Result<bool> {
    if page.is_new() {
        return Ok(false);
    }
    let opaque = Opaque::of(page);
    let first = opaque.first_data();
    Ok(opaque.is_leaf()
        && opaque.is_rightmost()
        && !opaque.is_ignored()
        && page.free_space() >= maxalign(len)
        && page.max_offset() >= first
        && compare_at(index, search, page, first)? == Ordering::Greater)
}

/// insert_from -- moves right from the locked `page` to where `key` belongs
/// (lock coupling: the next page is locked before this one is released) and
/// inserts there.
fn insert_from(
    engine: &Engine,
    index: &BTreeIndex,
    key: &ScanKey,
    tuple: &[u8],
    buffer: &Buffer<'_>,
    mut page: BufferWriteGuard<'_>,
    stack: &[super::search::StackEntry],
) -> Result<()> {
    if must_move_right(index, key, &page)? {
        let next = pin(engine, index, Opaque::of(&page).next)?;
        let next_page = next.write();
        drop(page);
        return insert_from(engine, index, key, tuple, &next, next_page, stack);
    }
    let off = first_not_less(index, key, &page)?;
    if page.free_space() >= maxalign(tuple.len()) {
        return insert_without_split(engine, index, buffer.block(), &mut page, off, tuple);
    }
    let ctx = super::split::SplitContext { engine, index };
    insert_on_page(&ctx, buffer, &mut page, off, tuple, stack, PendingRecord::default())?;
    Ok(())
}

/// The common case: the entry fits; one page changes, one small record.
fn insert_without_split(
    engine: &Engine,
    index: &BTreeIndex,
    block: u32,
    page: &mut BufferWriteGuard<'_>,
    off: OffsetNumber,
    tuple: &[u8],
) -> Result<()> {
    if !page.insert_item(off, tuple) {
        return Err(AccessError::Internal("btree entry did not fit after all".into()));
    }
    page.mark_dirty();
    let opaque = Opaque::of(page);
    if opaque.is_leaf() && opaque.is_rightmost() {
        engine.set_target_block(index.locator, Some(block));
    }
    let end = {
        let block = BlockRef::new(0, index.locator, ForkNumber::Main, block)
            .with_data(encode_insert(off, tuple))
            .with_page(page.as_bytes(), page.hole());
        let record =
            RecordBuilder::new(RmgrId::Btree, XLOG_BTREE_INSERT, Xid::INVALID).with_block(block);
        engine.wal().insert(&record)?
    };
    page.set_lsn(end);
    Ok(())
}

/// create_root -- the first entry of an empty index: a leaf that is also the
/// root, and the metapage pointing at it. False if another inserter created
/// the root meanwhile (the caller starts over).
fn create_root(engine: &Engine, index: &BTreeIndex, tuple: &[u8]) -> Result<bool> {
    let meta_buffer = pin(engine, index, BTREE_METAPAGE)?;
    let mut meta = meta_buffer.write();
    let old = Meta::of(&meta)?;
    if old.root != P_NONE {
        return Ok(false);
    }
    let root_buffer = super::delete::allocate_page(engine, index)?;
    let mut root = root_buffer.write();
    init_node(&mut root, Opaque { flags: BTP_LEAF | BTP_ROOT, ..Opaque::default() });
    root.insert_item(1, tuple);
    Meta { root: root_buffer.block(), level: 0, ..old }.init_page(&mut meta);
    let mut record = PendingRecord::default();
    record.init_page(root_buffer.block(), &root);
    record.init_page(BTREE_METAPAGE, &meta);
    root.mark_dirty();
    meta.mark_dirty();
    let end = record.log(engine, index.locator, XLOG_BTREE_NEWROOT)?;
    root.set_lsn(end);
    meta.set_lsn(end);
    Ok(true)
}

/// same_key -- whether `tuple`'s key equals `values` column by column.
fn same_key(index: &BTreeIndex, values: &[Option<Vec<u8>>], tuple: &IndexTuple) -> Result<bool> {
    let theirs = tuple.values(&index.desc)?;
    Ok(values.iter().zip(&theirs).enumerate().all(|(col, (a, b))| {
        compare_column(&*index.order, col, index.columns[col], a.as_deref(), *b) == Ordering::Equal
    }))
}

/// check_unique -- looks at every entry equal to `search` from its first
/// position on the locked `page` rightward (PostgreSQL's `_bt_check_unique`).
/// A live duplicate is a violation; `Some(xid)` means a duplicate's fate
/// depends on running transaction `xid`.
fn check_unique(
    engine: &Engine,
    index: &BTreeIndex,
    search: &ScanKey,
    page: &Page,
    check: &mut UniqueCheck<'_>,
) -> Result<Option<Xid>> {
    let start = first_not_less(index, search, page)?;
    let mut next = match check_page(index, search, page, start, check)? {
        PageCheck::Decided(xid) => return Ok(xid),
        PageCheck::ContinueAt(next) => next,
    };
    while next != P_NONE {
        let buffer = pin(engine, index, next)?;
        let right = buffer.read();
        let first = Opaque::of(&right).first_data();
        next = match check_page(index, search, &right, first, check)? {
            PageCheck::Decided(xid) => return Ok(xid),
            PageCheck::ContinueAt(next) => next,
        };
    }
    Ok(None)
}

enum PageCheck {
    /// No (more) equal keys: `None`, or wait for the xid.
    Decided(Option<Xid>),
    /// Every entry to the end of the page was equal and so is the high key:
    /// the equal keys go on at this block.
    ContinueAt(u32),
}

fn check_page(
    index: &BTreeIndex,
    search: &ScanKey,
    page: &Page,
    start: OffsetNumber,
    check: &mut UniqueCheck<'_>,
) -> Result<PageCheck> {
    for off in start..=page.max_offset() {
        let tuple = tuple_at(page, off)?;
        if !same_key(index, &search.values, &tuple)? {
            return Ok(PageCheck::Decided(None));
        }
        match (check.heap_status)(tuple.tid())? {
            DirtyStatus::Dead => {}
            DirtyStatus::Live => return Err(AccessError::UniqueViolation),
            DirtyStatus::InProgress(xid) => return Ok(PageCheck::Decided(Some(xid))),
        }
    }
    let opaque = Opaque::of(page);
    match super::page::high_key(page, &opaque)? {
        Some(hk) if same_key(index, &search.values, &hk)? => Ok(PageCheck::ContinueAt(opaque.next)),
        _ => Ok(PageCheck::Decided(None)),
    }
}
