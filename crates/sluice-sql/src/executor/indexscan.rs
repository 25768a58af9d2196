//! Index scans (PostgreSQL's `nodeIndexscan.c`) and the conditions that can
//! bound one (`indxpath.c`'s match_clause_to_indexcol).
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
use super::indexing::analyze_predicate;
use crate::catalog::index::IndexDesc;
use crate::catalog::relation::RelationDesc;
use crate::catalog::rows::deform_row;
use crate::error::Result;
use crate::expr::{eval, BoolOp, Builtin, Expr};
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

/// A comparison of an index's leading column with a row-independent value.
#[derive(Clone, Debug)]
pub struct IndexQual {
    /// `=`, `<`, `<=`, `>` or `>=` (column on the left).
    pub op: CmpOp,
    /// The value compared with.
    pub value: Expr,
    /// `column = ANY (value)`: `value` is an array of keys.
    pub any: bool,
}

/// How a scan uses its index (PostgreSQL's three index path kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanMethod {
    /// Index Scan: each entry's heap tuple fetched in index order.
    Plain,
    /// Index Only Scan: the row is built from the entry's key values; the
    /// heap is visited only on pages the visibility map does not mark
    /// all-visible (to check the version's visibility).
    IndexOnly,
    /// Bitmap Heap Scan over a Bitmap Index Scan: every matching heap
    /// address is collected first, then the heap is read in physical order,
    /// each page once.
    Bitmap,
}

/// An index chosen for a scan, and the conditions bounding it.
#[derive(Clone, Debug)]
pub struct IndexPath {
    /// The index.
    pub index: IndexDesc,
    /// Conditions on its leading column.
    pub quals: Vec<IndexQual>,
    /// Read from the high end down (ORDER BY ... DESC).
    pub backward: bool,
    /// Plain, index-only or bitmap.
    pub method: ScanMethod,
}

impl IndexPath {
    /// A forward scan of `index` bounded by `quals`, read as `method` says.
    pub fn new(index: IndexDesc, quals: Vec<IndexQual>, method: ScanMethod) -> IndexPath {
        IndexPath { index, quals, backward: false, method }
    }
}

/// The top-level AND-ed conditions of `qual`.
pub fn conjuncts(qual: &Expr) -> Vec<&Expr> {
    match qual {
        Expr::Bool { op: BoolOp::And, args, .. } => args.iter().flat_map(conjuncts).collect(),
        other => vec![other],
    }
}

/// predicate_terms -- the AND-ed terms of a partial index's predicate (SQL
/// text over `rel`'s columns), in deparsed form; empty if it cannot be read.
///
/// A query may use a partial index only when its WHERE clause implies the
/// predicate. PostgreSQL proves that with predicate_implied_by's operator
/// reasoning; sluice recognises the common case the seeds use — every term
/// of the predicate written among the WHERE clause's terms (`WHERE
/// finished_at IS NULL AND ...` for an index `WHERE finished_at IS NULL`).
pub fn predicate_terms(rel: &RelationDesc, predicate: &str) -> Vec<String> {
    match analyze_predicate(rel, predicate) {
        Ok(expr) => conjuncts(&expr).iter().map(|c| term_text(rel, c)).collect(),
        Err(_) => Vec::new(),
    }
}

/// A condition over `rel`'s columns in deparsed form, for comparing terms.
pub fn term_text(rel: &RelationDesc, term: &Expr) -> String {
    let names: Vec<String> = rel.columns.iter().map(|c| c.name.clone()).collect();
    crate::executor::deparse(term, &names)
}

/// Whether `e` has the same value for every row (constants, parameters).
fn row_independent(e: &Expr) -> bool {
    match e {
        Expr::Const { .. } | Expr::Param { .. } => true,
        Expr::Cast { arg, .. } => row_independent(arg),
        _ => false,
    }
}

/// The operator seen from the other side (`5 < x` is `x > 5`).
pub(crate) fn commute(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// index_qual -- `cond` as a condition on column `column` (of type `ty`).
pub fn index_qual(cond: &Expr, column: usize, ty: SqlType) -> Option<IndexQual> {
    let is_key =
        |e: &Expr| matches!(e, Expr::Column { index, ty: t, .. } if *index == column && *t == ty);
    let (op, args) = match cond {
        Expr::Call { func: Builtin::Compare(op, _), args, .. } => (*op, args),
        Expr::Call {
            func: Builtin::AnyAll { op: Builtin::Compare(CmpOp::Eq, _), all: false },
            args,
            ..
        } => {
            let [key, array] = args.as_slice() else { return None };
            let fits = array.ty().element().is_some_and(|elem| fits_key(elem, ty));
            return (is_key(key) && row_independent(array) && fits).then(|| IndexQual {
                op: CmpOp::Eq,
                value: array.clone(),
                any: true,
            });
        }
        _ => return None,
    };
    if op == CmpOp::Ne || args.len() != 2 {
        return None;
    }
    if is_key(&args[0]) && row_independent(&args[1]) {
        return bound_value(&args[1], ty).map(|value| IndexQual { op, value, any: false });
    }
    if is_key(&args[1]) && row_independent(&args[0]) {
        return bound_value(&args[0], ty).map(|value| IndexQual {
            op: commute(op),
            value,
            any: false,
        });
    }
    None
}

/// bound_value -- `value` if it can bound a key of type `ty` ([`fits_key`]).
fn bound_value(value: &Expr, ty: SqlType) -> Option<Expr> {
    fits_key(value.ty(), ty).then(|| value.clone())
}

/// Whether a value of type `value` can bound a key of type `key`: the same
/// type, or a narrower integer (`bigint_col > 5`, which PostgreSQL's
/// cross-type integer operators serve; [`widen`] converts the value when
/// the scan starts).
fn fits_key(value: SqlType, key: SqlType) -> bool {
    let narrower = matches!(
        (value, key),
        (SqlType::Int2, SqlType::Int4 | SqlType::Int8) | (SqlType::Int4, SqlType::Int8)
    );
    value == key || narrower
}

/// widen -- a bound's value in the key's integer type (see [`bound_value`]).
pub fn widen(value: Datum, ty: SqlType) -> Datum {
    match (value, ty) {
        (Datum::Int2(v), SqlType::Int4) => Datum::Int4(i32::from(v)),
        (Datum::Int2(v), SqlType::Int8) => Datum::Int8(i64::from(v)),
        (Datum::Int4(v), SqlType::Int8) => Datum::Int8(i64::from(v)),
        (other, _) => other,
    }
}

/// index_quals -- the conditions of `qual` that bound `index`'s leading
/// column, or `None` if the index cannot serve the scan (a DESC leading
/// column, or a partial index whose predicate `qual` does not imply). An
/// empty list means a scan of the whole index.
pub fn index_quals(
    rel: &RelationDesc,
    index: &IndexDesc,
    qual: Option<&Expr>,
) -> Option<Vec<IndexQual>> {
    let (Some(&first), Some(order)) = (index.keys.first(), index.orders.first()) else {
        return None;
    };
    if order.descending {
        return None;
    }
    if let Some(predicate) = &index.predicate {
        let terms = predicate_terms(rel, predicate);
        let have: Vec<String> =
            qual.map(conjuncts).unwrap_or_default().iter().map(|c| term_text(rel, c)).collect();
        if terms.is_empty() || !terms.iter().all(|t| have.contains(t)) {
            return None;
        }
    }
    let column = first as usize - 1;
    let ty = rel.columns[column].ty;
    let conds = qual.map(conjuncts).unwrap_or_default();
    Some(conds.iter().filter_map(|c| index_qual(c, column, ty)).collect())
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrower_integer_bounds_are_widened_and_others_refused() {
        let int4 = Expr::constant(Datum::Int4(5), SqlType::Int4, -1);
        let int8 = Expr::constant(Datum::Int8(5), SqlType::Int8, -1);
        assert!(bound_value(&int4, SqlType::Int8).is_some());
        assert!(bound_value(&int8, SqlType::Int8).is_some());
        assert!(bound_value(&int8, SqlType::Int4).is_none(), "could overflow the key type");
        assert!(bound_value(&int4, SqlType::Text).is_none());
        assert_eq!(widen(Datum::Int4(-7), SqlType::Int8), Datum::Int8(-7));
        assert_eq!(widen(Datum::Int2(3), SqlType::Int4), Datum::Int4(3));
        assert_eq!(widen(Datum::Null, SqlType::Int8), Datum::Null);
    }
}
