//! Plan nodes that combine whole queries: set operations (PostgreSQL's
//! `nodeAppend.c`, `nodeSetOp.c`), WITH query readers (`nodeCtescan.c`,
//! `nodeWorktablescan.c`), the recursive union (`nodeRecursiveunion.c`) and
//! the statement root that makes subqueries runnable.
//!
//! Duplicates are found by comparing whole rows, with NULL equal to NULL
//! (SQL's "not distinct" as set operations use it): INTERSECT and EXCEPT
//! sort both inputs together (through a `TupleSort`, so they may spill),
//! the recursive union keeps the rows it produced as [`RowKey`]s.
//!
//! # The recursive union
//! PostgreSQL's working-table algorithm, pulled one row at a time:
//!
//! ```text
//!   rows of the non-recursive term ──▶ output, and into the next working table
//!   while the last pass produced rows:
//!       working table := those rows; run the recursive term over it
//!       its rows ──▶ output, and into the next working table
//! ```
//!
//! With UNION (not ALL) a row already produced is dropped, so the recursion
//! also stops when a pass finds nothing new. Rows leave as soon as they are
//! made, which lets `LIMIT` end an otherwise endless recursion.

use std::collections::BTreeSet;
use std::rc::Rc;

use super::subplan::cte_row;
use super::{open, Plan, RowSource, SortKey, Source};
use crate::error::Result;
use crate::executor::host::ExecHost;
use crate::executor::spill::tuplesort::{Sorted, TupleSort};
use crate::executor::spill::tuplestore::{Cursor, TupleStore};
use crate::expr::EvalHost;
use crate::optimizer::plannodes::{Registry, SetOpKind};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_types::compare::cmp;
use sluice_types::Datum;

/// A row.
type Row = Vec<Datum>;

/// A row ordered column by column, NULLs equal to each other and last.
#[derive(Clone, Debug)]
pub struct RowKey(pub Row);

impl Ord for RowKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .iter()
            .zip(&other.0)
            .map(|(a, b)| cmp(a, b))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| self.0.len().cmp(&other.0.len()))
    }
}

impl PartialOrd for RowKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for RowKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for RowKey {}

/// The statement root: installs the registry, then passes rows through.
pub(super) struct StatementSource<'e> {
    pub(super) input: Source<'e>,
    pub(super) registry: Option<&'e Registry>,
}

impl<'e> RowSource<'e> for StatementSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        if let Some(registry) = self.registry.take() {
            host.install(registry);
        }
        self.input.next(host)
    }
}

/// UNION ALL: the inputs one after the other.
pub(super) struct AppendSource<'e> {
    pub(super) inputs: std::collections::VecDeque<Source<'e>>,
}

impl<'e> RowSource<'e> for AppendSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        while let Some(input) = self.inputs.front_mut() {
            if let Some(row) = input.next(host)? {
                return Ok(Some(row));
            }
            self.inputs.pop_front();
        }
        Ok(None)
    }
}

/// INTERSECT [ALL] and EXCEPT [ALL] (PostgreSQL's sorted SetOp): both
/// inputs' rows, each tagged with its side, go through one sort on all
/// columns; each run of equal rows is counted per side and its first row
/// (a left one, the sort being stable and the left rows put first) emitted
/// as often as the operation says. The output is in sorted order.
pub(super) struct SetOpSource<'e> {
    pub(super) left: Source<'e>,
    pub(super) right: Source<'e>,
    pub(super) kind: SetOpKind,
    pub(super) all: bool,
    pub(super) output: Option<SetOpOutput>,
}

/// The sorted, tagged rows and the group being emitted.
pub(super) struct SetOpOutput {
    rows: Sorted,
    /// The first row of the next group, read ahead.
    ahead: Option<Row>,
    /// The group's row and the copies of it still to emit.
    emitting: Option<(Row, usize)>,
}

impl<'e> SetOpSource<'e> {
    /// sort_inputs -- both inputs into one sort, each row followed by its
    /// side (0 left, 1 right).
    fn sort_inputs(&mut self, host: &mut ExecHost<'e, '_>) -> Result<SetOpOutput> {
        let space = host.temp_space();
        let mut sort: Option<TupleSort> = None;
        for (side, input) in [&mut self.left, &mut self.right].into_iter().enumerate() {
            while let Some(mut row) = input.next(host)? {
                let sort = sort.get_or_insert_with(|| {
                    let keys = (0..row.len())
                        .map(|column| SortKey { column, descending: false, nulls_first: false })
                        .collect();
                    TupleSort::new(&space, keys)
                });
                row.push(Datum::Int4(side as i32));
                sort.put(row)?;
            }
        }
        let sort = sort.unwrap_or_else(|| TupleSort::new(&space, Vec::new()));
        Ok(SetOpOutput { rows: sort.finish()?, ahead: None, emitting: None })
    }
}

impl SetOpOutput {
    /// next_group -- the next run of equal rows: its first row (side
    /// dropped) and how many rows each side had.
    fn next_group(&mut self) -> Result<Option<(Row, usize, usize)>> {
        let first = match self.ahead.take() {
            Some(row) => row,
            None => match self.rows.next()? {
                Some(row) => row,
                None => return Ok(None),
            },
        };
        let width = first.len() - 1;
        let mut counts = [0usize; 2];
        counts[side(&first)] += 1;
        while let Some(row) = self.rows.next()? {
            let same = row[..width].iter().zip(&first[..width]).all(|(a, b)| cmp(a, b).is_eq());
            if !same {
                self.ahead = Some(row);
                break;
            }
            counts[side(&row)] += 1;
        }
        let mut row = first;
        row.truncate(width);
        Ok(Some((row, counts[0], counts[1])))
    }
}

/// The side a tagged row came from.
fn side(row: &[Datum]) -> usize {
    usize::from(matches!(row.last(), Some(Datum::Int4(1))))
}

/// How many copies of a row seen `left` times in the left input and `right`
/// times in the right one the set operation emits.
fn copies(kind: SetOpKind, all: bool, left: usize, right: usize) -> usize {
    match (kind, all) {
        (SetOpKind::Intersect, true) => left.min(right),
        (SetOpKind::Intersect, false) => usize::from(left > 0 && right > 0),
        (SetOpKind::Except, true) => left.saturating_sub(right),
        (SetOpKind::Except, false) => usize::from(left > 0 && right == 0),
    }
}

impl<'e> RowSource<'e> for SetOpSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        if self.output.is_none() {
            self.output = Some(self.sort_inputs(host)?);
        }
        let output = self.output.as_mut().expect("set");
        loop {
            if let Some((row, left)) = &mut output.emitting {
                if *left > 0 {
                    *left -= 1;
                    return Ok(Some(row.clone()));
                }
            }
            let Some((row, l, r)) = output.next_group()? else { return Ok(None) };
            output.emitting = Some((row, copies(self.kind, self.all, l, r)));
        }
    }
}

/// A reader of a WITH query's shared rows, with its own position in them.
pub(super) struct CteScanSource {
    pub(super) cte: usize,
    pub(super) cursor: Cursor,
}

impl<'e> RowSource<'e> for CteScanSource {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        cte_row(host, self.cte, &mut self.cursor)
    }
}

/// A reader of a recursive union's current working table.
pub(super) struct WorkTableScanSource {
    pub(super) table: usize,
    pub(super) rows: Option<Rc<TupleStore>>,
    pub(super) cursor: Cursor,
}

impl<'e> RowSource<'e> for WorkTableScanSource {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        host.check_interrupts()?;
        if self.rows.is_none() {
            self.rows = Some(host.subplans.work_table(self.table)?);
        }
        self.rows.as_ref().expect("set").read(&mut self.cursor)
    }
}

/// WITH RECURSIVE's union of the non-recursive term and the repeated
/// recursive term (see the module doc).
pub(super) struct RecursiveUnionSource<'e> {
    /// The non-recursive term, until exhausted.
    pub(super) first: Option<Source<'e>>,
    /// The recursive term's plan, opened once per pass.
    pub(super) recursive: &'e Plan,
    pub(super) engine: &'e Engine,
    pub(super) ctx: VisibilityContext<'e>,
    /// The running pass.
    pub(super) pass: Option<Source<'e>>,
    /// The working table the recursive term reads.
    pub(super) table: usize,
    /// Rows produced so far (UNION only: for dropping duplicates).
    pub(super) seen: Option<BTreeSet<RowKey>>,
    /// Rows of the current pass: the next working table (a tuplestore, so
    /// a pass past `work_mem` goes to disk).
    pub(super) next_table: Option<TupleStore>,
}

impl RecursiveUnionSource<'_> {
    /// Whether `row` is to be produced (UNION drops rows seen before).
    fn is_new(&mut self, row: &Row) -> bool {
        match &mut self.seen {
            Some(seen) => seen.insert(RowKey(row.clone())),
            None => true,
        }
    }
}

impl<'e> RowSource<'e> for RecursiveUnionSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        loop {
            let current = match (&mut self.first, &mut self.pass) {
                (Some(first), _) => first,
                (None, Some(pass)) => pass,
                (None, None) => {
                    let Some(rows) = self.next_table.take().filter(|t| !t.is_empty()) else {
                        return Ok(None);
                    };
                    host.check_interrupts()?;
                    host.subplans.set_work_table(self.table, rows);
                    self.pass = Some(open(self.recursive, self.engine, &self.ctx)?);
                    continue;
                }
            };
            match current.next(host)? {
                Some(row) => {
                    if self.is_new(&row) {
                        let next = match &mut self.next_table {
                            Some(table) => table,
                            None => self.next_table.insert(TupleStore::new(&host.temp_space())),
                        };
                        next.push(row.clone())?;
                        return Ok(Some(row));
                    }
                }
                None if self.first.is_some() => self.first = None,
                None => self.pass = None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_keys_treat_nulls_as_equal_and_last() {
        let key = |v: Vec<Datum>| RowKey(v);
        assert_eq!(key(vec![Datum::Null, Datum::Int4(1)]), key(vec![Datum::Null, Datum::Int4(1)]));
        assert!(key(vec![Datum::Int4(5)]) < key(vec![Datum::Null]));
        assert!(
            key(vec![Datum::Int4(1), Datum::Int4(2)]) < key(vec![Datum::Int4(1), Datum::Int4(3)])
        );
        let set: BTreeSet<RowKey> =
            [vec![Datum::Null], vec![Datum::Null], vec![Datum::Int8(1)], vec![Datum::Int4(1)]]
                .into_iter()
                .map(RowKey)
                .collect();
        assert_eq!(set.len(), 2, "NULL = NULL and 1::int4 = 1::int8 for duplicates");
    }

    #[test]
    fn set_operations_count_copies_like_postgres() {
        use SetOpKind::{Except, Intersect};
        // A row seen 3 times on the left and twice on the right.
        assert_eq!(copies(Intersect, false, 3, 2), 1);
        assert_eq!(copies(Intersect, true, 3, 2), 2);
        assert_eq!(copies(Except, false, 3, 2), 0);
        assert_eq!(copies(Except, true, 3, 2), 1);
        // Only on the left.
        assert_eq!(copies(Intersect, true, 3, 0), 0);
        assert_eq!(copies(Except, false, 3, 0), 1);
        assert_eq!(copies(Except, true, 3, 0), 3);
    }
}
