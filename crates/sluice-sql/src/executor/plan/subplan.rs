//! Subqueries in expressions and WITH queries at run time (PostgreSQL's
//! `nodeSubplan.c`, `nodeCtescan.c` and the executor's PARAM_EXEC slots).
//!
//! # The registry
//! Planning a statement collects, beside its plan tree, a [`Registry`]:
//! every subquery used as an expression ([`SubPlan`], named by the id in its
//! `Expr::SubLink`), every WITH query's plan (named by the id in its
//! `Plan::CteScan`), the number of PARAM_EXEC slots and of recursive work
//! tables. The root of the plan (`Plan::Statement`) hands the registry to the
//! [`ExecHost`], which keeps the run-time state in a [`SubplanState`].
//!
//! # Correlation through slots
//! A correlated subquery reads its outer query's columns as
//! `Expr::ExecParam` slots. The [`SubPlan`] that links the subquery into the
//! outer query lists them as `args`: before each run, each arg is evaluated
//! over the outer row and stored in its slot. A subquery nested deeper reads
//! slots its ancestors set (its `ext_params`).
//!
//! ```text
//!   SELECT ... FROM t WHERE t.a > (SELECT avg(u.b) FROM u WHERE u.k = t.k)
//!                                 └ SubPlan: args [slot0 ← t.k] ┘   └ ExecParam slot0
//! ```
//!
//! # Caching (initplans)
//! A subplan with no args of its own gives the same answer as long as the
//! slots it reads from outside keep their values, so its outcome is kept
//! with those values as the key: an uncorrelated subquery runs once per
//! statement (PostgreSQL's initplan), one inside a correlated subquery once
//! per change of the outer values. Subplans with args run again for every
//! outer row, as in PostgreSQL; EXISTS stops at the first row and a scalar
//! subquery at the second (which is an error).
//!
//! # `x op ANY/ALL (subquery)`
//! The comparison (`test`) is analysed once with the subquery's column as
//! slot `result_slot`; each subquery value is put in the slot and the test
//! evaluated over the outer row. SQL's NULL rules fall out: ANY is true if
//! some test is true, else NULL if some was NULL, else false (an empty
//! subquery gives false); ALL dually. `NOT IN` is `NOT (x = ANY (...))`.
//!
//! An uncorrelated `x = ANY (...)` (and so `IN`/`NOT IN`) whose comparison
//! is plain equality with the subquery's value probes a sorted copy of the
//! values instead (PostgreSQL's hashed subplan), with the same answers:
//! found is true, else NULL if `x` or some value is NULL, else false.
//!
//! # WITH queries
//! A CTE is computed at most once per run of the query level that owns it
//! and shared by all its readers: rows are pulled from the CTE's plan on
//! demand and kept in a tuplestore (on disk past `work_mem`), each reader
//! with its own cursor, so a reader that needs its next row either finds
//! it or pulls until it exists. Laziness is what lets `LIMIT` stop an unbounded
//! `WITH RECURSIVE` and keeps an unreferenced CTE from running at all. CTEs
//! owned by a subplan are forgotten whenever that subplan runs again.

use std::cell::OnceCell;
use std::rc::Rc;

use super::{open, Plan, Source};
use crate::error::{Result, SqlError};
use crate::executor::host::ExecHost;
use crate::executor::spill::tuplestore::{Cursor, TupleStore};
use crate::expr::{eval, Builtin, Comparison, EvalHost, Expr, SubLinkKind};
pub use crate::optimizer::plannodes::{Registry, SubPlan};
use sluice_types::compare::cmp;
use sluice_types::ops::CmpOp;
use sluice_types::Datum;

/// A row.
type Row = Vec<Datum>;

/// What a subplan run produced.
#[derive(Clone)]
enum Outcome {
    /// The final value (EXISTS, scalar).
    Value(Datum),
    /// The subquery's column, to compare against (ANY, ALL).
    Column(Rc<ColumnValues>),
}

/// A subquery's column, with the sorted copy equality probes build on first use.
struct ColumnValues {
    values: Vec<Datum>,
    sorted: OnceCell<SortedColumn>,
}

/// The non-NULL values in order, and whether there were NULLs.
struct SortedColumn {
    values: Vec<Datum>,
    has_null: bool,
}

/// A kept outcome and the outside slot values it was computed under.
struct Cached {
    key: Vec<Datum>,
    outcome: Outcome,
}

/// One WITH query's shared rows.
#[derive(Default)]
struct CteState<'h> {
    /// The running plan, between pulls.
    source: Option<Source<'h>>,
    /// Rows produced so far (made with the first).
    rows: Option<TupleStore>,
    /// The plan is exhausted.
    done: bool,
    /// A pull is under way (a reader inside the CTE's own plan).
    pulling: bool,
}

/// Run-time state of a statement's subqueries, slots and WITH queries.
#[derive(Default)]
pub struct SubplanState<'h> {
    registry: Option<&'h Registry>,
    params: Vec<Datum>,
    cache: Vec<Option<Cached>>,
    ctes: Vec<CteState<'h>>,
    /// Each recursive union's current working table, once it has one.
    work_tables: Vec<Option<Rc<TupleStore>>>,
}

impl<'h> SubplanState<'h> {
    /// install -- prepares the state for `registry` (all slots NULL, no
    /// outcome kept, no CTE computed).
    pub fn install(&mut self, registry: &'h Registry) {
        self.registry = Some(registry);
        self.params = vec![Datum::Null; registry.params];
        self.cache = registry.subplans.iter().map(|_| None).collect();
        self.ctes = registry.ctes.iter().map(|_| CteState::default()).collect();
        self.work_tables = (0..registry.work_tables).map(|_| None).collect();
    }

    /// The current value of `slot`.
    pub fn param(&self, slot: usize) -> &Datum {
        self.params.get(slot).unwrap_or(&Datum::Null)
    }

    /// Replaces recursive working table `table`.
    pub fn set_work_table(&mut self, table: usize, rows: TupleStore) {
        if let Some(t) = self.work_tables.get_mut(table) {
            *t = Some(Rc::new(rows));
        }
    }

    /// The current contents of working table `table` (set by its recursive
    /// union before the recursive term runs).
    pub fn work_table(&self, table: usize) -> Result<Rc<TupleStore>> {
        self.work_tables
            .get(table)
            .cloned()
            .flatten()
            .ok_or_else(|| SqlError::internal("working table read before it was set"))
    }

    fn registry(&self) -> Result<&'h Registry> {
        self.registry.ok_or_else(|| SqlError::internal("subquery without a registry"))
    }

    /// Sets `slot` (a subplan's arg, or a nested loop's LATERAL param).
    pub fn set_param(&mut self, slot: usize, value: Datum) -> Result<()> {
        let p = self.params.get_mut(slot).ok_or_else(|| SqlError::internal("bad slot"))?;
        *p = value;
        Ok(())
    }

    /// reset_ctes -- forgets the rows of WITH queries `ctes`, so their next
    /// reader computes them again (their query level is running again).
    pub fn reset_ctes(&mut self, ctes: &[usize]) {
        for cte in ctes {
            if let Some(state) = self.ctes.get_mut(*cte) {
                *state = CteState::default();
            }
        }
    }
}

/// run_subplan -- the value of subquery `id` for the outer `row`.
pub fn run_subplan<'h>(host: &mut ExecHost<'h, '_>, id: usize, row: &[Datum]) -> Result<Datum> {
    let registry = host.subplans.registry()?;
    let sp = registry.subplans.get(id).ok_or_else(|| SqlError::internal("unknown subplan"))?;
    for (slot, arg) in &sp.args {
        let value = eval(arg, row, host)?;
        host.subplans.set_param(*slot, value)?;
    }
    let kept = sp.args.is_empty();
    let outcome = if kept { cached_outcome(host, id, sp)? } else { execute(host, sp)? };
    match (outcome, equality_probe(sp)) {
        (Outcome::Value(v), _) => Ok(v),
        (Outcome::Column(values), Some(left)) if kept => probe(host, left, &values, row),
        (Outcome::Column(values), _) => compare_all(host, sp, &values.values, row),
    }
}

/// The left operand of an ANY subplan whose test is plain equality with
/// the subquery's value (the cases a sorted probe answers exactly).
fn equality_probe(sp: &SubPlan) -> Option<&Expr> {
    let Some(Expr::Call { func: Builtin::Compare(CmpOp::Eq, Comparison::Plain), args, .. }) =
        &sp.test
    else {
        return None;
    };
    match args.as_slice() {
        [left, Expr::ExecParam { slot, .. }]
            if *slot == sp.result_slot && matches!(sp.kind, SubLinkKind::Any { .. }) =>
        {
            Some(left)
        }
        _ => None,
    }
}

/// `left = ANY (values)` by binary search in the sorted values.
fn probe(
    host: &mut ExecHost<'_, '_>,
    left: &Expr,
    values: &ColumnValues,
    row: &[Datum],
) -> Result<Datum> {
    let x = eval(left, row, host)?;
    if values.values.is_empty() {
        return Ok(Datum::Bool(false));
    }
    if x.is_null() {
        return Ok(Datum::Null);
    }
    let sorted = values.sorted.get_or_init(|| {
        let mut non_null: Vec<Datum> =
            values.values.iter().filter(|v| !v.is_null()).cloned().collect();
        non_null.sort_by(cmp);
        SortedColumn { has_null: non_null.len() < values.values.len(), values: non_null }
    });
    Ok(match sorted.values.binary_search_by(|v| cmp(v, &x)) {
        Ok(_) => Datum::Bool(true),
        Err(_) if sorted.has_null => Datum::Null,
        Err(_) => Datum::Bool(false),
    })
}

/// The kept outcome of an arg-less subplan if the slots it reads are
/// unchanged, else a fresh run (kept for next time).
fn cached_outcome<'h>(host: &mut ExecHost<'h, '_>, id: usize, sp: &'h SubPlan) -> Result<Outcome> {
    let key: Vec<Datum> = sp.ext_params.iter().map(|s| host.subplans.param(*s).clone()).collect();
    if let Some(Some(cached)) = host.subplans.cache.get(id) {
        if same_values(&cached.key, &key) {
            return Ok(cached.outcome.clone());
        }
    }
    let outcome = execute(host, sp)?;
    if let Some(slot) = host.subplans.cache.get_mut(id) {
        *slot = Some(Cached { key, outcome: outcome.clone() });
    }
    Ok(outcome)
}

/// Whether two slot value lists are identical (NULL equals NULL).
fn same_values(a: &[Datum], b: &[Datum]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| cmp(x, y).is_eq())
}

/// execute -- runs the subquery's plan as far as its kind needs.
fn execute<'h>(host: &mut ExecHost<'h, '_>, sp: &'h SubPlan) -> Result<Outcome> {
    host.subplans.reset_ctes(&sp.ctes);
    let mut source = open_plan(host, &sp.plan)?;
    Ok(match sp.kind {
        SubLinkKind::Exists => Outcome::Value(Datum::Bool(source.next(host)?.is_some())),
        SubLinkKind::Scalar => {
            let Some(first) = source.next(host)? else { return Ok(Outcome::Value(Datum::Null)) };
            if source.next(host)?.is_some() {
                return Err(SqlError::new(
                    "21000",
                    "more than one row returned by a subquery used as an expression",
                ));
            }
            Outcome::Value(first.into_iter().next().unwrap_or(Datum::Null))
        }
        SubLinkKind::Any { .. } | SubLinkKind::All { .. } => {
            let mut values = Vec::new();
            while let Some(r) = source.next(host)? {
                values.push(r.into_iter().next().unwrap_or(Datum::Null));
            }
            Outcome::Column(Rc::new(ColumnValues { values, sorted: OnceCell::new() }))
        }
    })
}

/// Opens `plan` under the statement's engine and snapshot.
fn open_plan<'h>(host: &ExecHost<'h, '_>, plan: &'h Plan) -> Result<Source<'h>> {
    let ctx = host.visibility().clone();
    open(plan, host.engine(), &ctx)
}

/// `x op ANY/ALL (values)` with SQL's NULL rules.
fn compare_all(
    host: &mut ExecHost<'_, '_>,
    sp: &SubPlan,
    values: &[Datum],
    row: &[Datum],
) -> Result<Datum> {
    let test = sp.test.as_ref().ok_or_else(|| SqlError::internal("ANY without a test"))?;
    // ANY stops at the first true, ALL at the first false.
    let decisive = matches!(sp.kind, SubLinkKind::Any { .. });
    let mut saw_null = false;
    for value in values {
        host.check_interrupts()?;
        host.subplans.set_param(sp.result_slot, value.clone())?;
        match eval(test, row, host)? {
            Datum::Bool(b) if b == decisive => return Ok(Datum::Bool(decisive)),
            Datum::Bool(_) => {}
            _ => saw_null = true,
        }
    }
    Ok(if saw_null { Datum::Null } else { Datum::Bool(!decisive) })
}

/// cte_row -- the row of WITH query `cte` at `cursor` (moving it on),
/// pulling from the query's plan as far as needed; `None` past its end.
pub fn cte_row<'h>(
    host: &mut ExecHost<'h, '_>,
    cte: usize,
    cursor: &mut Cursor,
) -> Result<Option<Row>> {
    let space = host.temp_space();
    loop {
        let state = cte_state(host, cte)?;
        if let Some(row) = state.rows.as_ref().map(|r| r.read(cursor)).transpose()?.flatten() {
            return Ok(Some(row));
        }
        if state.done {
            return Ok(None);
        }
        if state.pulling {
            return Err(SqlError::internal("WITH query read while it is being computed"));
        }
        let source = state.source.take();
        let mut source = match source {
            Some(s) => s,
            None => {
                let registry = host.subplans.registry()?;
                let plan = registry.ctes.get(cte).ok_or_else(|| SqlError::internal("bad CTE"))?;
                open_plan(host, plan)?
            }
        };
        cte_state(host, cte)?.pulling = true;
        let next = source.next(host);
        let state = cte_state(host, cte)?;
        state.pulling = false;
        match next? {
            Some(row) => {
                state.rows.get_or_insert_with(|| TupleStore::new(&space)).push(row)?;
                state.source = Some(source);
            }
            None => state.done = true,
        }
    }
}

fn cte_state<'s, 'h>(host: &'s mut ExecHost<'h, '_>, cte: usize) -> Result<&'s mut CteState<'h>> {
    host.subplans.ctes.get_mut(cte).ok_or_else(|| SqlError::internal("bad CTE"))
}
