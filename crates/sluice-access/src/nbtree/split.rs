//! Page splits (PostgreSQL's `_bt_split`, `_bt_findsplitloc`,
//! `_bt_insert_parent`, `_bt_newroot`).
//!
//! A full page's entries, with the new one in place, are divided between the
//! page (left half) and a new right sibling. The left half gets a high key —
//! on a leaf the shortest separator between its last entry and the right
//! half's first (`compare.rs`'s `separator`); on an internal page the key of
//! the first pivot that moved right, whose child becomes the right page's
//! minus infinity item. That high key, pointing at the new page, is the separator
//! the parent receives; if the parent is full too it splits in turn, and a
//! split root makes a new root one level up.
//!
//! Where to divide: the rightmost page of a level is split so that the left
//! half keeps `fillfactor` percent (leaves) or 70% (internal pages) — ascending
//! inserts then leave pages that full behind them; any other page is split
//! into halves of equal size.
//!
//! All pages of the cascade stay locked until the one WAL record describing it
//! is written (see `xlog.rs`), child before parent and left before right.

use super::compare::separator;
use super::page::{
    init_node, tuple_at, usable_space, Opaque, BTP_ROOT, BTREE_METAPAGE, P_HIKEY, P_NONE,
};
use super::search::{descend_to_level, pin, read_meta, StackEntry, Target};
use super::xlog::{PendingRecord, XLOG_BTREE_SPLIT};
use super::{BTreeIndex, BTREE_NONLEAF_FILLFACTOR};
use crate::common::indextuple::{minus_infinity_pivot, set_downlink};
use crate::common::IndexTuple;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use sluice_common::{maxalign, Lsn};
use sluice_storage::buffer::{Buffer, BufferWriteGuard};
use sluice_storage::page::{OffsetNumber, Page, ITEM_ID_SIZE};

/// What every level of a split needs.
pub struct SplitContext<'e, 'i> {
    /// The engine.
    pub engine: &'e Engine,
    /// The index.
    pub index: &'i BTreeIndex,
}

/// insert_on_page -- puts `tuple` at `off` of the locked `page`, splitting it
/// if it is full, and logs `pending` (the changes below this level) together
/// with this level's. Returns the record's end LSN.
pub fn insert_on_page(
    ctx: &SplitContext<'_, '_>,
    buffer: &Buffer<'_>,
    page: &mut BufferWriteGuard<'_>,
    off: OffsetNumber,
    tuple: &[u8],
    stack: &[StackEntry],
    mut pending: PendingRecord,
) -> Result<Lsn> {
    if page.free_space() >= maxalign(tuple.len()) {
        page.insert_item(off, tuple);
        page.mark_dirty();
        pending.inserted(buffer.block(), page, off, tuple);
        let end = pending.log(ctx.engine, ctx.index.locator, XLOG_BTREE_SPLIT)?;
        page.set_lsn(end);
        return Ok(end);
    }
    split(ctx, buffer, page, off, tuple, stack, pending)
}

/// cost -- the space an entry of `len` bytes takes on a page.
fn cost(len: usize) -> usize {
    maxalign(len) + ITEM_ID_SIZE
}

/// The space a pivot copied from the leaf entry `len` bytes long takes.
fn leaf_pivot_cost(len: usize) -> usize {
    cost(len.next_multiple_of(2) + 6)
}

/// choose_split -- how many of `items` stay on the left page.
fn choose_split(
    items: &[Vec<u8>],
    leaf: bool,
    rightmost: bool,
    fillfactor: u8,
    right_high_key: usize,
) -> Result<usize> {
    let mut prefix = vec![0usize; items.len() + 1];
    for (i, item) in items.iter().enumerate() {
        prefix[i + 1] = prefix[i] + cost(item.len());
    }
    let total = prefix[items.len()];
    let sizes = |k: usize| {
        if leaf {
            let left = prefix[k] + leaf_pivot_cost(items[k - 1].len());
            (left, total - prefix[k] + right_high_key)
        } else {
            let left = prefix[k] + cost(items[k].len());
            let right = total - prefix[k + 1] + cost(8) + right_high_key;
            (left, right)
        }
    };
    let last = if leaf { items.len() } else { items.len() - 1 };
    let fits = |(l, r): (usize, usize)| l <= usable_space() && r <= usable_space();
    let candidates = (1..last).filter(|&k| fits(sizes(k)));
    let chosen = if rightmost {
        let percent = if leaf { fillfactor } else { BTREE_NONLEAF_FILLFACTOR };
        let target = usable_space() * percent as usize / 100;
        candidates.clone().filter(|&k| sizes(k).0 <= target).max()
    } else {
        None
    };
    let balanced = || {
        candidates.min_by_key(|&k| {
            let (l, r) = sizes(k);
            l.abs_diff(r)
        })
    };
    chosen
        .or_else(balanced)
        .ok_or_else(|| AccessError::Internal("no way to split a btree page".into()))
}

/// The data items of `page` with `tuple` inserted at `off`.
fn items_with(page: &Page, first: OffsetNumber, off: OffsetNumber, tuple: &[u8]) -> Vec<Vec<u8>> {
    let mut items: Vec<Vec<u8>> = Vec::with_capacity(page.max_offset() as usize + 1);
    for o in first..=page.max_offset() {
        if o == off {
            items.push(tuple.to_vec());
        }
        items.push(page.item(o).map(<[u8]>::to_vec).unwrap_or_default());
    }
    if off > page.max_offset() {
        items.push(tuple.to_vec());
    }
    items
}

/// fill -- an empty node with `opaque`, `high_key` (if any) and `items`.
fn fill(opaque: Opaque, high_key: Option<&[u8]>, items: &[Vec<u8>]) -> Result<Box<Page>> {
    let mut page = Page::new_zeroed();
    init_node(&mut page, opaque);
    for item in high_key.into_iter().chain(items.iter().map(Vec::as_slice)) {
        if !page.insert_item(page.max_offset() + 1, item) {
            return Err(AccessError::Internal("btree split half does not fit".into()));
        }
    }
    Ok(page)
}

/// split -- splits the full, locked `page` around the new `tuple` at `off`
/// and hands the separator to the parent.
fn split(
    ctx: &SplitContext<'_, '_>,
    buffer: &Buffer<'_>,
    page: &mut BufferWriteGuard<'_>,
    off: OffsetNumber,
    tuple: &[u8],
    stack: &[StackEntry],
    mut pending: PendingRecord,
) -> Result<Lsn> {
    let (engine, index) = (ctx.engine, ctx.index);
    let opaque = Opaque::of(page);
    let old_high_key = page.item(P_HIKEY).filter(|_| !opaque.is_rightmost()).map(<[u8]>::to_vec);
    let items = items_with(page, opaque.first_data(), off, tuple);
    let leaf = opaque.is_leaf();
    let hk_cost = old_high_key.as_ref().map_or(0, |hk| cost(hk.len()));
    let k = choose_split(&items, leaf, opaque.is_rightmost(), index.fillfactor, hk_cost)?;

    let right_buffer = super::delete::allocate_page(engine, index)?;
    let mut right = right_buffer.write();
    let (left_block, right_block) = (buffer.block(), right_buffer.block());
    let flags = opaque.flags & !BTP_ROOT;
    let left_opaque = Opaque { next: right_block, flags, ..opaque };
    let right_opaque = Opaque { prev: left_block, flags, ..opaque };

    let (separator, left_page, right_page) = if leaf {
        let (last_left, first_right) =
            (IndexTuple::new(&items[k - 1])?, IndexTuple::new(&items[k])?);
        let separator = separator(index, &last_left, &first_right, right_block)?;
        let left_page = fill(left_opaque, Some(&separator), &items[..k])?;
        (separator, left_page, fill(right_opaque, old_high_key.as_deref(), &items[k..])?)
    } else {
        let mut separator = items[k].clone();
        set_downlink(&mut separator, right_block);
        let first = minus_infinity_pivot(IndexTuple::new(&items[k])?.downlink());
        let mut right_items = vec![first];
        right_items.extend_from_slice(&items[k + 1..]);
        let left_page = fill(left_opaque, Some(&separator), &items[..k])?;
        (separator, left_page, fill(right_opaque, old_high_key.as_deref(), &right_items)?)
    };
    page.as_bytes_mut().copy_from_slice(left_page.as_bytes());
    right.as_bytes_mut().copy_from_slice(right_page.as_bytes());
    page.mark_dirty();
    right.mark_dirty();
    pending.init_page(left_block, page);
    pending.init_page(right_block, &right);

    let neighbour = match opaque.next {
        P_NONE => None,
        next => Some(pin(engine, index, next)?),
    };
    let mut neighbour_page = neighbour.as_ref().map(Buffer::write);
    if let (Some(b), Some(p)) = (&neighbour, neighbour_page.as_mut()) {
        let mut o = Opaque::of(p);
        o.prev = right_block;
        o.store(p);
        p.mark_dirty();
        pending.prev_set(b.block(), p, right_block);
    }

    let end = if opaque.is_root() {
        new_root(ctx, left_block, &separator, opaque.level, pending)?
    } else {
        insert_downlink(ctx, stack, left_block, &separator, opaque.level, pending)?
    };
    page.set_lsn(end);
    right.set_lsn(end);
    if let Some(p) = neighbour_page.as_mut() {
        p.set_lsn(end);
    }
    Ok(end)
}

/// find_downlink -- the offset of the pivot on `page` pointing at `child`.
pub(super) fn find_downlink(page: &Page, child: u32) -> Result<Option<OffsetNumber>> {
    let first = Opaque::of(page).first_data();
    for off in first..=page.max_offset() {
        if tuple_at(page, off)?.downlink() == child {
            return Ok(Some(off));
        }
    }
    Ok(None)
}

/// insert_downlink -- adds `separator` (pointing at the new right page) to
/// the parent of `left`, right after `left`'s own downlink. The parent is the
/// remembered one or a page to its right (it may have split since); if the
/// descent began at a root that has since been split, the parent level is
/// found by descending again.
fn insert_downlink(
    ctx: &SplitContext<'_, '_>,
    stack: &[StackEntry],
    left: u32,
    separator: &[u8],
    level: u32,
    pending: PendingRecord,
) -> Result<Lsn> {
    let (engine, index) = (ctx.engine, ctx.index);
    let (mut buffer, rest) = match stack.split_last() {
        Some((parent, rest)) => (pin(engine, index, parent.block)?, rest.to_vec()),
        None => {
            let it = IndexTuple::new(separator)?;
            let values = it.values(&index.desc)?;
            let key = super::ScanKey {
                values: values.iter().map(|v| v.map(<[u8]>::to_vec)).collect(),
                heap_tid: it.heap_tid(),
                beyond: false,
            };
            let root = read_meta(engine, index)?.root;
            descend_to_level(engine, index, Target::Key(&key), root, level + 1)?
        }
    };
    loop {
        let mut page = buffer.write();
        if let Some(off) = find_downlink(&page, left)? {
            return insert_on_page(ctx, &buffer, &mut page, off + 1, separator, &rest, pending);
        }
        let opaque = Opaque::of(&page);
        if opaque.is_rightmost() {
            return Err(AccessError::Corrupt(format!(
                "failed to re-find parent key in index for split pages {left}"
            )));
        }
        drop(page);
        buffer = pin(engine, index, opaque.next)?;
    }
}

/// new_root -- a root one level above the split root `left`, holding a minus
/// infinity pivot to it and `separator` to its new sibling; the metapage
/// points at it.
fn new_root(
    ctx: &SplitContext<'_, '_>,
    left: u32,
    separator: &[u8],
    level: u32,
    mut pending: PendingRecord,
) -> Result<Lsn> {
    let (engine, index) = (ctx.engine, ctx.index);
    let root_buffer = super::delete::allocate_page(engine, index)?;
    let mut root = root_buffer.write();
    let opaque = Opaque { level: level + 1, flags: BTP_ROOT, ..Opaque::default() };
    init_node(&mut root, opaque);
    root.insert_item(1, &minus_infinity_pivot(left));
    root.insert_item(2, separator);
    let meta_buffer = pin(engine, index, BTREE_METAPAGE)?;
    let mut meta = meta_buffer.write();
    let old = super::page::Meta::of(&meta)?;
    super::page::Meta { root: root_buffer.block(), level: level + 1, ..old }.init_page(&mut meta);
    root.mark_dirty();
    meta.mark_dirty();
    pending.init_page(root_buffer.block(), &root);
    pending.init_page(BTREE_METAPAGE, &meta);
    let end = pending.log(engine, index.locator, XLOG_BTREE_SPLIT)?;
    root.set_lsn(end);
    meta.set_lsn(end);
    Ok(end)
}
