//! Building an index from scratch (PostgreSQL's `nbtsort.c`).
//!
//! CREATE INDEX does not insert entries one by one: it sorts them and fills
//! pages left to right, bottom-up. Leaves are filled to `fillfactor` percent
//! and internal pages to 70%, leaving room for later inserts. When a page is
//! full it gets its high key (on a leaf the shortest separator between its
//! last entry and the next page's first, on an internal page the next
//! separator), a link to its successor, and is written;
//! the separator pointing at the successor goes one level up, starting that
//! level if needed. The last page of each level is its rightmost; the single
//! page at the top is the root, and the metapage, written last, names it.
//!
//! Every page is written through the buffer pool and logged whole (a
//! `NEWPAGE` record), so a build survives a crash once its transaction
//! commits; a crash before that leaves only an orphaned file, since the
//! catalog rows naming the index never committed.
//!
//! The sort happens in memory (`maintenance_work_mem` is not consulted yet).

use super::compare::{compare_column, separator};
use super::page::{init_node, usable_space, Meta, Opaque, BTP_LEAF, BTP_ROOT, P_NONE};
use super::xlog::{PendingRecord, XLOG_BTREE_NEWPAGE};
use super::{BTreeIndex, BTREE_NONLEAF_FILLFACTOR};
use crate::common::indextuple::{form_index_tuple, minus_infinity_pivot, set_downlink};
use crate::common::IndexTuple;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use sluice_common::{maxalign, ForkNumber, ItemPointer};
use sluice_storage::buffer::Buffer;
use sluice_storage::page::{Page, ITEM_ID_SIZE};
use std::cmp::Ordering;

/// One entry to index: its key values (stored form, `None` = NULL), the heap
/// tuple, and whether that tuple is live (only live ones count as duplicates
/// for a unique index; PostgreSQL indexes recently dead tuples too).
#[derive(Clone, Debug)]
pub struct BuildEntry {
    /// Key values.
    pub values: Vec<Option<Vec<u8>>>,
    /// The heap tuple.
    pub heap_tid: ItemPointer,
    /// Whether the tuple is live.
    pub live: bool,
}

/// btree_build -- writes `index` (an empty relation file) holding `entries`.
/// For a unique index, two live entries with the same non-NULL key fail the
/// build with [`AccessError::DuplicateKey`] carrying that key.
pub fn btree_build(
    engine: &Engine,
    index: &BTreeIndex,
    mut entries: Vec<BuildEntry>,
    unique: bool,
) -> Result<()> {
    sort_entries(index, &mut entries);
    if unique {
        check_duplicates(index, &entries)?;
    }
    let meta = engine.pool().extend(index.locator, ForkNumber::Main)?;
    let mut builder = Builder { engine, index, levels: Vec::new() };
    for entry in &entries {
        let values: Vec<Option<&[u8]>> = entry.values.iter().map(Option::as_deref).collect();
        let tuple = form_index_tuple(&index.desc, &values, entry.heap_tid);
        let (size, max) = (maxalign(tuple.len()), super::page::max_item_size());
        if size > max {
            return Err(AccessError::IndexRowTooBig { size, max });
        }
        builder.add(0, tuple)?;
    }
    let root = builder.finish()?;
    write_page(engine, index, &meta, |page| root.init_page(page))
}

/// sort_entries -- puts `entries` in `index`'s order, ties by heap TID
/// (the order a build writes them in; CLUSTER copies a heap in it).
pub fn sort_entries(index: &BTreeIndex, entries: &mut [BuildEntry]) {
    entries.sort_by(|a, b| compare_entries(index, a, b));
}

/// compare_entries -- (key, heap TID) order.
fn compare_entries(index: &BTreeIndex, a: &BuildEntry, b: &BuildEntry) -> Ordering {
    key_order(index, a, b).then(a.heap_tid.cmp(&b.heap_tid))
}

fn key_order(index: &BTreeIndex, a: &BuildEntry, b: &BuildEntry) -> Ordering {
    for (col, (x, y)) in a.values.iter().zip(&b.values).enumerate() {
        let o = compare_column(&*index.order, col, index.columns[col], x.as_deref(), y.as_deref());
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Finds two live entries with one non-NULL key among the sorted `entries`.
fn check_duplicates(index: &BTreeIndex, entries: &[BuildEntry]) -> Result<()> {
    let mut group_start = 0;
    for i in 1..=entries.len() {
        if i < entries.len() && key_order(index, &entries[group_start], &entries[i]).is_eq() {
            continue;
        }
        let group = &entries[group_start..i];
        let has_null = group[0].values.iter().any(Option::is_none);
        if !has_null && group.iter().filter(|e| e.live).count() > 1 {
            return Err(AccessError::DuplicateKey(group[0].values.clone()));
        }
        group_start = i;
    }
    Ok(())
}

/// write_page -- fills `buffer`'s page with `fill`, logs it whole and stamps it.
fn write_page(
    engine: &Engine,
    index: &BTreeIndex,
    buffer: &Buffer<'_>,
    fill: impl FnOnce(&mut Page),
) -> Result<()> {
    let mut page = buffer.write();
    fill(&mut page);
    page.mark_dirty();
    let mut record = PendingRecord::default();
    record.init_page(buffer.block(), &page);
    let end = record.log(engine, index.locator, XLOG_BTREE_NEWPAGE)?;
    page.set_lsn(end);
    Ok(())
}

/// The page being filled at one level.
struct LevelPage<'e> {
    buffer: Buffer<'e>,
    page: Box<Page>,
    /// The last entry added (a leaf's high key is a copy of it).
    last: Vec<u8>,
}

struct Builder<'e, 'i> {
    engine: &'e Engine,
    index: &'i BTreeIndex,
    levels: Vec<LevelPage<'e>>,
}

impl<'e> Builder<'e, '_> {
    /// A new, empty page for `level`, linked after `prev`.
    fn start_page(&self, level: u32, prev: u32) -> Result<LevelPage<'e>> {
        let buffer = self.engine.pool().extend(self.index.locator, ForkNumber::Main)?;
        let mut page = Page::new_zeroed();
        let flags = if level == 0 { BTP_LEAF } else { 0 };
        init_node(&mut page, Opaque { prev, next: P_NONE, level, flags });
        Ok(LevelPage { buffer, page, last: Vec::new() })
    }

    /// Whether `tuple` still goes on `level`'s current page.
    fn has_room(&self, level: usize, tuple: &[u8]) -> bool {
        let current = &self.levels[level];
        if current.page.max_offset() == 0 {
            return true;
        }
        let percent = if level == 0 { self.index.fillfactor } else { BTREE_NONLEAF_FILLFACTOR };
        let used = usable_space() - current.page.free_space() - ITEM_ID_SIZE;
        let needed = maxalign(tuple.len()) + ITEM_ID_SIZE;
        let high_key = maxalign(tuple.len() + 8) + ITEM_ID_SIZE;
        used + needed <= usable_space() * percent as usize / 100
            && current.page.free_space() >= needed + high_key
    }

    /// add -- appends `tuple` at `level` (a leaf entry at 0, a separator
    /// pivot above), finishing the current page first if it is full.
    fn add(&mut self, level: usize, tuple: Vec<u8>) -> Result<()> {
        if self.levels.len() == level {
            let page = self.start_page(level as u32, P_NONE)?;
            self.levels.push(page);
        } else if !self.has_room(level, &tuple) {
            self.next_page(level, &tuple)?;
            if level > 0 {
                // The separator became the finished page's high key; the new
                // page starts with a keyless pivot to the same child.
                let child = IndexTuple::new(&tuple)?.downlink();
                return self.append(level, minus_infinity_pivot(child));
            }
        }
        self.append(level, tuple)
    }

    fn append(&mut self, level: usize, tuple: Vec<u8>) -> Result<()> {
        let current = &mut self.levels[level];
        let off = current.page.max_offset() + 1;
        if !current.page.insert_item(off, &tuple) {
            return Err(AccessError::Internal("btree build entry does not fit".into()));
        }
        current.last = tuple;
        Ok(())
    }

    /// next_page -- finishes `level`'s current page (high key, link to a new
    /// successor, written) and sends the separator for the successor up.
    /// `incoming` is the entry that did not fit.
    fn next_page(&mut self, level: usize, incoming: &[u8]) -> Result<()> {
        let prev = self.levels[level].buffer.block();
        let next = self.start_page(level as u32, prev)?;
        let next_block = next.buffer.block();
        let finished = std::mem::replace(&mut self.levels[level], next);
        let mut separator = if level == 0 {
            let (last, incoming) = (IndexTuple::new(&finished.last)?, IndexTuple::new(incoming)?);
            separator(self.index, &last, &incoming, next_block)?
        } else {
            incoming.to_vec()
        };
        set_downlink(&mut separator, next_block);
        self.write_finished(finished, Some(&separator), next_block)?;
        if self.levels.len() == level + 1 {
            let mut parent = self.start_page(level as u32 + 1, P_NONE)?;
            parent.page.insert_item(1, &minus_infinity_pivot(prev));
            self.levels.push(parent);
        }
        self.add(level + 1, separator)
    }

    /// Writes a finished page with its high key (none for the rightmost)
    /// and right link.
    fn write_finished(
        &self,
        mut finished: LevelPage<'e>,
        high_key: Option<&[u8]>,
        next: u32,
    ) -> Result<()> {
        let mut opaque = Opaque::of(&finished.page);
        opaque.next = next;
        if let Some(hk) = high_key {
            if !finished.page.insert_item(super::page::P_HIKEY, hk) {
                return Err(AccessError::Internal("btree build high key does not fit".into()));
            }
        }
        opaque.store(&mut finished.page);
        let image = finished.page;
        write_page(self.engine, self.index, &finished.buffer, |page| {
            page.as_bytes_mut().copy_from_slice(image.as_bytes())
        })
    }

    /// finish -- writes the last page of every level; the top one is the root.
    fn finish(mut self) -> Result<Meta> {
        let Some(top) = self.levels.len().checked_sub(1) else {
            return Ok(Meta { root: P_NONE, ..Meta::default() });
        };
        let root = self.levels[top].buffer.block();
        for (level, mut current) in std::mem::take(&mut self.levels).into_iter().enumerate() {
            if level == top {
                let mut opaque = Opaque::of(&current.page);
                opaque.flags |= BTP_ROOT;
                opaque.store(&mut current.page);
            }
            self.write_finished(current, None, P_NONE)?;
        }
        Ok(Meta { root, level: top as u32, ..Meta::default() })
    }
}
