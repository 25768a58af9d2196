//! Plan nodes that combine whole queries: set operations (PostgreSQL's
//! `nodeAppend.c`, `nodeSetOp.c`), WITH query readers (`nodeCtescan.c`,
//! `nodeWorktablescan.c`), the recursive union (`nodeRecursiveunion.c`) and
//! the statement root that makes subqueries runnable.
//!
//! Duplicates are found by comparing whole rows, with NULL equal to NULL
//! (SQL's "not distinct" as set operations use it), through [`RowKey`].
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

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::subplan::{cte_row, Registry};
use super::{open, Plan, RowSource, Source};
use crate::error::Result;
use crate::executor::host::ExecHost;
use crate::expr::EvalHost;
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

/// INTERSECT or EXCEPT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOpKind {
    /// Rows in both inputs.
    Intersect,
    /// Rows of the left input not in the right one.
    Except,
}

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

/// INTERSECT [ALL] and EXCEPT [ALL]: counts each distinct row on both sides,
/// then emits it as often as the operation says.
pub(super) struct SetOpSource<'e> {
    pub(super) left: Source<'e>,
    pub(super) right: Source<'e>,
    pub(super) kind: SetOpKind,
    pub(super) all: bool,
    pub(super) output: Option<std::vec::IntoIter<Row>>,
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
            let mut counts: BTreeMap<RowKey, (usize, usize)> = BTreeMap::new();
            while let Some(row) = self.left.next(host)? {
                counts.entry(RowKey(row)).or_default().0 += 1;
            }
            while let Some(row) = self.right.next(host)? {
                if let Some(c) = counts.get_mut(&RowKey(row)) {
                    c.1 += 1;
                }
            }
            let mut rows = Vec::new();
            for (key, (l, r)) in counts {
                rows.extend(std::iter::repeat_n(key.0, copies(self.kind, self.all, l, r)));
            }
            self.output = Some(rows.into_iter());
        }
        Ok(self.output.as_mut().and_then(Iterator::next))
    }
}

/// A reader of a WITH query's shared rows.
pub(super) struct CteScanSource {
    pub(super) cte: usize,
    pub(super) pos: usize,
}

impl<'e> RowSource<'e> for CteScanSource {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        let row = cte_row(host, self.cte, self.pos)?;
        self.pos += 1;
        Ok(row)
    }
}

/// A reader of a recursive union's current working table.
pub(super) struct WorkTableScanSource {
    pub(super) table: usize,
    pub(super) rows: Option<Rc<Vec<Row>>>,
    pub(super) pos: usize,
}

impl<'e> RowSource<'e> for WorkTableScanSource {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        host.check_interrupts()?;
        let table = self.table;
        let rows = self.rows.get_or_insert_with(|| host.subplans.work_table(table));
        let row = rows.get(self.pos).cloned();
        self.pos += 1;
        Ok(row)
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
    /// Rows of the current pass: the next working table.
    pub(super) next_table: Vec<Row>,
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
                    if self.next_table.is_empty() {
                        return Ok(None);
                    }
                    host.check_interrupts()?;
                    let rows = std::mem::take(&mut self.next_table);
                    host.subplans.set_work_table(self.table, rows);
                    self.pass = Some(open(self.recursive, self.engine, &self.ctx)?);
                    continue;
                }
            };
            match current.next(host)? {
                Some(row) => {
                    if self.is_new(&row) {
                        self.next_table.push(row.clone());
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
