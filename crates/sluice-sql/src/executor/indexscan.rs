//! Index scans (PostgreSQL's `nodeIndexscan.c`); the conditions that can
//! bound one are found by the planner (`optimizer/indxpath.rs`).
//!
//! A condition bounds a scan when it is one of the WHERE clause's top-level
//! AND-ed terms and compares the leading column of an ascending B-tree with
//! a value that does not depend on the row (a constant or a parameter): `=`
//! bounds both ends, `>`/`>=` the start and `<`/`<=` the end. Whether to use
//! the index at all is the optimizer's call (`optimizer::choose_scan`). The
//! scan descends to the start, walks the leaves until the end bound is
//! passed, and fetches each entry's heap tuple under the statement's
//! snapshot; the whole WHERE clause is still evaluated on every row returned,
//! so the bounds only have to be conservative.
//!
//! `column = ANY (array)` bounds a scan too (PostgreSQL's ScalarArrayOpExpr
//! index qual, how a worker deletes the batch of jobs it locked): the array's
//! distinct non-NULL elements, in index order, each become an equality range,
//! and the scan descends once per range.

use super::host::ExecHost;
use crate::catalog::relation::RelationDesc;
use crate::catalog::rows::deform_row;
use crate::error::Result;
use crate::expr::eval;
use crate::optimizer::indxpath::widen;
pub use crate::optimizer::plannodes::{IndexPath, IndexQual, ScanMethod};
use sluice_access::common::IndexTuple;
use sluice_access::common::TupleDesc;
use sluice_access::heap::heapam::{HeapFetch, HotSearch};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::heap::visibilitymap::VmReader;
use sluice_access::nbtree::{BTreeIndex, BTreeScan, ScanKey};
use sluice_access::Engine;
use sluice_common::ItemPointer;
use sluice_types::ops::CmpOp;
use sluice_types::storage::to_storage;
use sluice_types::{Datum, SqlType};
use std::cmp::Ordering;
use std::collections::VecDeque;

/// Rows of a table, found through an index.
pub struct IndexRows<'e> {
    engine: &'e Engine,
    /// The heap page of the last entry fetched, kept pinned.
    heap: HeapFetch<'e>,
    /// The visibility map page of the last entry checked, kept pinned.
    vm: VmReader<'e>,
    /// The table's row layout, for decoding the rows found.
    desc: TupleDesc,
    types: Vec<SqlType>,
    ctx: VisibilityContext<'e>,
    btree: BTreeIndex,
    /// The scan of the current range, if one is open.
    scan: Option<BTreeScan<'e>>,
    /// The ranges still to scan, in scan order (one, or one per element of
    /// an `= ANY` array).
    ranges: VecDeque<KeyRange>,
    backward: bool,
    /// Where the current range ends, in its direction: the bound's stored
    /// value, and whether an entry equal to it is still inside.
    stop: Bound,
    /// Whether entries with a NULL key can qualify (only when nothing bounds
    /// the scan: every comparison rejects NULL).
    nulls_qualify: bool,
}

/// One stretch of the index to read: where it starts and where it stops, in
/// the scan's direction (stored key and whether an equal key is inside).
#[derive(Debug)]
struct KeyRange {
    start: Bound,
    stop: Bound,
}

/// A bound: the stored key and whether a key equal to it is inside.
type Bound = Option<(Vec<u8>, bool)>;

impl<'e> IndexRows<'e> {
    /// start -- evaluates the bounds of `path` and positions the scan at the
    /// lower bound (forward) or the upper one (backward). A NULL bound matches
    /// nothing, as the comparison would.
    pub fn start(
        engine: &'e Engine,
        rel: &RelationDesc,
        path: &IndexPath,
        ctx: VisibilityContext<'e>,
        host: &mut ExecHost,
    ) -> Result<IndexRows<'e>> {
        let btree = path.index.btree(rel);
        let mut rows = IndexRows {
            engine,
            heap: HeapFetch::new(engine, rel.heap()),
            vm: VmReader::new(engine.pool(), rel.locator),
            desc: rel.tuple_desc(),
            types: rel.types(),
            ctx,
            btree,
            scan: None,
            ranges: VecDeque::new(),
            backward: path.backward,
            stop: None,
            nulls_qualify: path.quals.is_empty(),
        };
        let key_type = path.index.key_types(rel)[0];
        let Some((lower, upper)) = rows.bounds(path, key_type, host)? else { return Ok(rows) };
        let ranges = match path.quals.iter().find(|q| q.any) {
            Some(any) => rows.element_ranges(any, key_type, (lower, upper), host)?,
            None => vec![(lower, upper)],
        };
        rows.ranges = ranges
            .into_iter()
            .map(|(lower, upper)| match path.backward {
                true => KeyRange { start: upper, stop: lower },
                false => KeyRange { start: lower, stop: upper },
            })
            .collect();
        if path.backward {
            rows.ranges.make_contiguous().reverse();
        }
        Ok(rows)
    }

    /// The tightest lower and upper bounds the quals other than `= ANY` give,
    /// or `None` if one of them is NULL (then nothing qualifies).
    fn bounds(
        &self,
        path: &IndexPath,
        ty: SqlType,
        host: &mut ExecHost,
    ) -> Result<Option<(Bound, Bound)>> {
        let (mut lower, mut upper) = (None, None);
        for q in path.quals.iter().filter(|q| !q.any) {
            let value = widen(eval(&q.value, &[], host)?, ty);
            if value.is_null() {
                return Ok(None);
            }
            let stored = to_storage(ty, &value);
            let (lo, hi) = match q.op {
                CmpOp::Eq => (Some(true), Some(true)),
                CmpOp::Gt => (Some(false), None),
                CmpOp::Ge => (Some(true), None),
                CmpOp::Lt => (None, Some(false)),
                CmpOp::Le => (None, Some(true)),
                CmpOp::Ne => (None, None),
            };
            if let Some(inclusive) = lo {
                lower = tighter(&self.btree, lower, (stored.clone(), inclusive), Ordering::Greater);
            }
            if let Some(inclusive) = hi {
                upper = tighter(&self.btree, upper, (stored, inclusive), Ordering::Less);
            }
        }
        Ok(Some((lower, upper)))
    }

    /// element_ranges -- for `column = ANY (array)`, one equality range per
    /// distinct non-NULL element in index order, each narrowed by the other
    /// bounds; none for a NULL or empty array.
    fn element_ranges(
        &self,
        any: &IndexQual,
        ty: SqlType,
        (lower, upper): (Bound, Bound),
        host: &mut ExecHost,
    ) -> Result<Vec<(Bound, Bound)>> {
        let array = eval(&any.value, &[], host)?;
        let Some(array) = array.as_array() else { return Ok(Vec::new()) };
        let mut keys: Vec<Vec<u8>> = array
            .elements()
            .iter()
            .filter(|e| !e.is_null())
            .map(|e| to_storage(ty, &widen(e.clone(), ty)))
            .collect();
        keys.sort_by(|a, b| self.btree.order.compare(0, a, b));
        keys.dedup_by(|a, b| self.btree.order.compare(0, a, b).is_eq());
        Ok(keys
            .into_iter()
            .map(|key| {
                let lo =
                    tighter(&self.btree, lower.clone(), (key.clone(), true), Ordering::Greater);
                let hi = tighter(&self.btree, upper.clone(), (key, true), Ordering::Less);
                (lo, hi)
            })
            .collect())
    }

    /// open_next -- positions a scan at the start of the next range; false
    /// when none is left.
    fn open_next(&mut self) -> Result<bool> {
        let Some(range) = self.ranges.pop_front() else { return Ok(false) };
        self.stop = range.stop;
        // Forward from the first entry ≥ (or >) the start; backward from the
        // last entry ≤ (or <) it.
        let key = range.start.map(|(value, inclusive)| ScanKey {
            values: vec![Some(value)],
            heap_tid: None,
            beyond: inclusive == self.backward,
        });
        self.scan = Some(BTreeScan::begin(self.engine, &self.btree, key.as_ref(), self.backward)?);
        Ok(true)
    }

    /// next_entry -- moves to the next index entry inside the bounds, in
    /// index order, and returns the heap address it points at, whether or not
    /// that heap version is visible; [`IndexRows::entry`] has its bytes.
    pub fn next_entry(&mut self) -> Result<Option<ItemPointer>> {
        loop {
            if self.scan.is_none() && !self.open_next()? {
                return Ok(None);
            }
            if let Some(found) = self.next_in_range()? {
                return Ok(Some(found));
            }
            self.scan = None;
        }
    }

    /// entry -- the stored bytes of the entry `next_entry` returned last.
    pub fn entry(&self) -> &[u8] {
        self.scan.as_ref().map_or(&[], |scan| scan.entry())
    }

    /// The next entry of the current range, `None` once it is passed.
    fn next_in_range(&mut self) -> Result<Option<ItemPointer>> {
        let Some(scan) = self.scan.as_mut() else { return Ok(None) };
        while let Some(tid) = scan.next_tid()? {
            let entry = IndexTuple::new(scan.entry()).map_err(sluice_access::AccessError::from)?;
            let leading = entry.value_iter(&self.btree.desc).next().transpose();
            match leading.map_err(sluice_access::AccessError::from)?.flatten() {
                // NULLs sort last: a forward scan has passed every bounded
                // value; a backward one has not reached them yet.
                None if !self.nulls_qualify && self.backward => continue,
                None if !self.nulls_qualify => break,
                Some(k) if past_stop(&self.btree, k, self.stop.as_ref(), self.backward) => break,
                _ => {}
            }
            return Ok(Some(tid));
        }
        Ok(None)
    }

    /// next_tuple -- the next visible heap tuple in index order and its address.
    pub fn next_tuple(&mut self) -> Result<Option<(ItemPointer, Vec<u8>)>> {
        while let Some(tid) = self.next_entry()? {
            match self.heap.hot_search_judged(tid, &self.ctx)? {
                HotSearch::Found(at, tuple) => return Ok(Some((at, tuple))),
                // Nobody will ever see a version behind this entry again: the
                // next scans may skip it (PostgreSQL's kill_prior_tuple).
                HotSearch::Missing { all_dead: true } => {
                    if let Some(scan) = self.scan.as_mut() {
                        scan.kill_last();
                    }
                }
                HotSearch::Missing { all_dead: false } => {}
            }
        }
        Ok(None)
    }

    /// fetch -- the version of the row an entry pointing at `tid` leads to
    /// that the scan's snapshot sees, and its address (a HOT chain's member
    /// may sit elsewhere on the page than the root the entry names).
    pub fn fetch(&mut self, tid: ItemPointer) -> Result<Option<(ItemPointer, Vec<u8>)>> {
        Ok(self.heap.hot_search(tid, &self.ctx)?)
    }

    /// page_all_visible -- whether the visibility map marks heap page
    /// `block` all-visible.
    pub fn page_all_visible(&mut self, block: sluice_common::BlockNumber) -> Result<bool> {
        Ok(self.vm.is_all_visible(block)?)
    }

    /// The index's view of its entries (for decoding their keys).
    pub fn btree(&self) -> &BTreeIndex {
        &self.btree
    }

    /// next_row -- like [`IndexRows::next_tuple`], decoded.
    pub fn next_row(&mut self) -> Result<Option<Vec<Datum>>> {
        let Some((_, tuple)) = self.next_tuple()? else { return Ok(None) };
        Ok(Some(deform_row(&self.desc, &self.types, &tuple)?))
    }
}

/// Of two bounds, the one that admits less: the greater start
/// (`keep = Greater`) or the smaller end (`keep = Less`); at equal values the
/// exclusive one.
fn tighter(
    btree: &BTreeIndex,
    current: Option<(Vec<u8>, bool)>,
    new: (Vec<u8>, bool),
    keep: Ordering,
) -> Option<(Vec<u8>, bool)> {
    let Some(current) = current else { return Some(new) };
    let order = btree.order.compare(0, &new.0, &current.0);
    Some(if order == keep || (order.is_eq() && !new.1) { new } else { current })
}

/// Whether an entry with leading key `key` lies beyond the bound the scan
/// stops at, in the scan's direction.
fn past_stop(
    btree: &BTreeIndex,
    key: &[u8],
    stop: Option<&(Vec<u8>, bool)>,
    backward: bool,
) -> bool {
    let Some((bound, inclusive)) = stop else { return false };
    let beyond = if backward { Ordering::Less } else { Ordering::Greater };
    match btree.order.compare(0, key, bound) {
        o if o == beyond => true,
        Ordering::Equal => !inclusive,
        _ => false,
    }
}
