//! Scanning a B-tree in key order, forward or backward (PostgreSQL's
//! `nbtsearch.c`: `_bt_first`, `_bt_next`, `_bt_readpage`, `_bt_walk_left`).
//!
//! A scan finds its first leaf by descending toward its start key (or to the
//! leftmost/rightmost leaf), then copies the qualifying entries of one page at
//! a time while holding that page's shared lock — so no lock is held while the
//! caller visits the heap — and remembers where to go next. The copies of one
//! page share one buffer, so following an entry allocates nothing.
//!
//! Killed entries are skipped. The caller kills the entry it just followed
//! when every version behind it is dead to every snapshot
//! ([`BTreeScan::kill_last`], PostgreSQL's kill_prior_tuple); the scan marks
//! the page's killed entries when it leaves the page (or ends), if it can lock
//! the page exclusively at once, and only entries still pointing where they
//! did — a hint, not WAL-logged, so later scans of a queue's dead head skip
//! it without a heap visit each.
//!
//! Forward, the next page is the right link as it was when the page was read:
//! entries a later split moves off that page are ones already copied, so
//! nothing is missed or seen twice. Backward, the left link may be stale (the
//! left sibling may have split since), so the scan locks the page it names and
//! moves right until it finds the page whose right link is the one it came
//! from.
//!
//! The scan does not judge keys: it returns entries in order from the start
//! position, and the caller decides where the range ends.

use super::compare::{first_not_less, ScanKey};
use super::page::{tuple_at, Opaque, P_NONE};
use super::search::{descend, next_page_for, pin, Target};
use super::BTreeIndex;
use crate::common::mark_killed;
use crate::engine::Engine;
use crate::error::{AccessError, Result};
use crate::heap::hints::mark_dirty_hint;
use sluice_common::ItemPointer;
use sluice_storage::page::{OffsetNumber, Page};
use std::collections::VecDeque;
use std::ops::Range;

/// One entry copied from the current page.
struct Copied {
    /// The heap tuple it points at.
    heap_tid: ItemPointer,
    /// Its bytes' place in `BTreeScan::copied`.
    place: Range<usize>,
    /// Its line pointer on the page (for killing it).
    offset: OffsetNumber,
}

/// A scan in progress.
pub struct BTreeScan<'e> {
    engine: &'e Engine,
    index: BTreeIndex,
    backward: bool,
    /// The entries copied from the current page, back to back.
    copied: Vec<u8>,
    /// Each copied entry, in scan order.
    items: VecDeque<Copied>,
    /// The entry `next_tid` returned last, while the scan is on its page.
    last: Option<Copied>,
    /// Entries of the current page to mark killed when the scan leaves it.
    killed: Vec<(OffsetNumber, ItemPointer)>,
    /// The page the copied entries came from.
    current: u32,
    /// Its right (forward) or left (backward) link when it was read.
    link: u32,
}

impl<'e> BTreeScan<'e> {
    /// begin -- positions a scan. Forward, it starts at the first entry ≥
    /// `start` (or the first entry); backward at the last entry < `start`
    /// (≤ for a `beyond` key) or the last entry.
    pub fn begin(
        engine: &'e Engine,
        index: &BTreeIndex,
        start: Option<&ScanKey>,
        backward: bool,
    ) -> Result<BTreeScan<'e>> {
        let mut scan = BTreeScan {
            engine,
            index: index.clone(),
            backward,
            copied: Vec::new(),
            items: VecDeque::new(),
            last: None,
            killed: Vec::new(),
            current: P_NONE,
            link: P_NONE,
        };
        let target = match (start, backward) {
            (Some(key), _) => Target::Key(key),
            (None, false) => Target::Leftmost,
            (None, true) => Target::Rightmost,
        };
        let Some((mut buffer, _)) = descend(engine, index, target)? else {
            return Ok(scan);
        };
        loop {
            let page = buffer.read();
            let opaque = Opaque::of(&page);
            if let Some(next) = next_page_for(index, target, &page, &opaque)? {
                drop(page);
                buffer = pin(engine, index, next)?;
                continue;
            }
            let position = match start {
                Some(key) => first_not_less(index, key, &page)?,
                None if backward => page.max_offset() + 1,
                None => opaque.first_data(),
            };
            scan.read_page(&page, buffer.block(), position)?;
            return Ok(scan);
        }
    }

    /// next_tid -- moves to the next entry and returns the heap TID it points
    /// at, or `None` at the end of the index; [`BTreeScan::entry`] has its
    /// bytes.
    pub fn next_tid(&mut self) -> Result<Option<ItemPointer>> {
        loop {
            self.last = self.items.pop_front();
            if let Some(entry) = &self.last {
                return Ok(Some(entry.heap_tid));
            }
            self.flush_kills()?;
            if self.link == P_NONE {
                return Ok(None);
            }
            if self.backward {
                self.step_left()?;
            } else {
                let buffer = pin(self.engine, &self.index, self.link)?;
                let page = buffer.read();
                let first = Opaque::of(&page).first_data();
                self.read_page(&page, buffer.block(), first)?;
            }
        }
    }

    /// entry -- the bytes of the entry [`BTreeScan::next_tid`] returned last.
    pub fn entry(&self) -> &[u8] {
        self.last.as_ref().map_or(&[], |entry| &self.copied[entry.place.clone()])
    }

    /// kill_last -- notes that every version the entry returned last leads to
    /// is dead to every snapshot (see the module doc).
    pub fn kill_last(&mut self) {
        if let Some(entry) = &self.last {
            self.killed.push((entry.offset, entry.heap_tid));
        }
    }

    /// flush_kills -- marks the entries noted by `kill_last` on the current
    /// page, if its exclusive lock is free now.
    fn flush_kills(&mut self) -> Result<()> {
        if self.killed.is_empty() {
            return Ok(());
        }
        let killed = std::mem::take(&mut self.killed);
        let buffer = pin(self.engine, &self.index, self.current)?;
        let Some(mut page) = buffer.try_write() else { return Ok(()) };
        let mut changed = false;
        for (off, tid) in killed {
            if let Some(item) = page.item_mut(off) {
                changed |= mark_killed(item, tid)?;
            }
        }
        if changed {
            mark_dirty_hint(self.engine, buffer.tag(), &mut page)?;
        }
        Ok(())
    }

    /// read_page -- copies the entries of `page` (block `block`) in scan
    /// order: forward from `position`, backward from just before it.
    fn read_page(&mut self, page: &Page, block: u32, position: OffsetNumber) -> Result<()> {
        let opaque = Opaque::of(page);
        self.current = block;
        self.link = if self.backward { opaque.prev } else { opaque.next };
        if opaque.is_ignored() {
            // Emptied and (being) unlinked by VACUUM: nothing to copy.
            return Ok(());
        }
        let first = opaque.first_data();
        let offsets: Box<dyn Iterator<Item = OffsetNumber>> = if self.backward {
            Box::new((first..position.max(first)).rev())
        } else {
            Box::new(position.max(first)..=page.max_offset())
        };
        self.copied.clear();
        self.items.clear();
        for off in offsets {
            let tuple = tuple_at(page, off)?;
            if tuple.is_killed() {
                continue;
            }
            let start = self.copied.len();
            self.copied.extend_from_slice(tuple.bytes());
            let place = start..self.copied.len();
            self.items.push_back(Copied { heap_tid: tuple.tid(), place, offset: off });
        }
        Ok(())
    }

    /// step_left -- reads the page left of the current one, finding it by
    /// moving right from the remembered left link if that page has split.
    fn step_left(&mut self) -> Result<()> {
        let mut buffer = pin(self.engine, &self.index, self.link)?;
        loop {
            let page = buffer.read();
            let opaque = Opaque::of(&page);
            if opaque.is_deleted() {
                // Unlinked since we read its address: the page we want is
                // further left (or, past the leftmost, there is none).
                if opaque.prev == P_NONE {
                    self.link = P_NONE;
                    return Ok(());
                }
                drop(page);
                buffer = pin(self.engine, &self.index, opaque.prev)?;
                continue;
            }
            if opaque.next == self.current {
                let end = page.max_offset() + 1;
                return self.read_page(&page, buffer.block(), end);
            }
            if opaque.is_rightmost() {
                return Err(AccessError::Corrupt(format!(
                    "could not find left sibling of block {} in index",
                    self.current
                )));
            }
            drop(page);
            buffer = pin(self.engine, &self.index, opaque.next)?;
        }
    }
}

impl Drop for BTreeScan<'_> {
    /// A scan that stops on a page (a LIMIT, an error) still leaves its
    /// kills behind; failing to is harmless, so errors are dropped.
    fn drop(&mut self) {
        let _ = self.flush_kills();
    }
}
