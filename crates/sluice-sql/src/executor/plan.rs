//! Query plans and their execution (PostgreSQL's executor nodes, in
//! simple forms; the planner's choices are made in `optimizer/`).
//!
//! A plan is a tree of nodes, each producing rows (`Vec<Datum>`) on demand:
//!
//! ```text
//!   [Statement] ─ Limit ─ Sort ─ Project ─ [Filter(HAVING)] ─ [Aggregate] ─ [Filter(WHERE)] ─ source
//!   source: SeqScan | IndexScan | GenerateSeries | Unnest | Values | Result | CteScan | WorkTableScan
//!         | NestLoop(source, [Material] source) | HashJoin(source, source)
//!         | MergeJoin(Sort source, Sort source) | a whole query (FROM subquery)
//!   set operations: Append (UNION ALL) | Distinct(Append) (UNION) | SetOp (INTERSECT, EXCEPT)
//! ```
//!
//! Subqueries in expressions and WITH queries are not in the tree: they are
//! planned into the statement's [`subplan::Registry`], which the `Statement`
//! root hands to the host before the first row (see `subplan.rs`; the set
//! operation and WITH nodes are in `setops.rs`).
//!
//! Aggregation groups its input by sorting on the grouping keys or through
//! a hash table and emits, per group, the group's first row followed by the
//! aggregate results (see `agg.rs`); expressions above it
//! read aggregates through `ExecHost::aggs` (set per row from that suffix).
//!
//! Nodes that hold many rows — Sort, Distinct, grouping, the hash join's
//! table, a nested loop's materialised inner side, WITH results and
//! recursive working tables, INTERSECT/EXCEPT — keep them within `work_mem`
//! and spill the rest to temporary files (`executor/spill`), each node with
//! its own budget as in PostgreSQL.
//! Scans copy one page of visible tuples at a time (see `heap::scan`), so no
//! page lock is held while rows flow up the tree.
//!
//! Cancel, `statement_timeout` and a vanished client reach a statement only
//! where a node calls `check_interrupts` (PostgreSQL's CHECK_FOR_INTERRUPTS).
//! Scans and the work-table scan check per row; so must every node that can
//! loop without pulling a new row from below: generate_series, a nested
//! loop's pass over its materialised inner side, a join probing one bucket,
//! an aggregate's DISTINCT de-duplication, and every read of spilled rows
//! (`spill::RowReader` checks before each row, so merges and batch passes
//! are covered). A new loop of that kind needs a
//! check too, or one query can keep a core busy past every timeout.

mod agg;
mod hashjoin;
pub mod instrument;
mod join;
pub mod lockrows;
mod nestloop;
mod project_set;
mod series;
mod setops;
pub mod subplan;

pub use crate::optimizer::plannodes::{JoinKind, Plan, SetOpKind, SortKey};
use nestloop::{Inner, NestLoopSource};
use series::{Series, Unnest};

use super::bitmapscan::BitmapRows;
use super::host::ExecHost;
use super::indexonlyscan::IndexOnlyRows;
use super::indexscan::{IndexPath, IndexRows, ScanMethod};
use super::scanstats::ScanTally;
use super::spill::tuplesort::{compare_rows, Sorted, TupleSort};
use super::spill::tuplestore::{Cursor, TupleStore};
use crate::catalog::relation::RelationDesc;
use crate::catalog::rows::{deform_row, deform_row_projected};
use crate::error::{Result, SqlError};
use crate::expr::{eval, eval_qual, EvalHost, Expr};
use sluice_access::common::TupleDesc;
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_types::compare::cmp;
use sluice_types::{Datum, SqlType};
use std::cmp::Ordering;

/// A running plan node. `'e` is the statement's execution lifetime: the plan,
/// the engine and the snapshot outlive every node, and the host of the same
/// lifetime may keep nodes of its own (CTE readers, see `subplan.rs`).
pub trait RowSource<'e> {
    /// The next row, or `None` when done.
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>>;
}

/// A running plan node, boxed.
pub type Source<'e> = Box<dyn RowSource<'e> + 'e>;

/// open -- starts executing `plan` under `ctx`'s snapshot (counted, while
/// EXPLAIN ANALYZE runs, see `instrument.rs`).
pub fn open<'e>(
    plan: &'e Plan,
    engine: &'e Engine,
    ctx: &VisibilityContext<'e>,
) -> Result<Source<'e>> {
    instrument::open(instrument::key_of(plan), || open_node(plan, engine, ctx))
}

/// open_node -- the running node for `plan` itself.
fn open_node<'e>(
    plan: &'e Plan,
    engine: &'e Engine,
    ctx: &VisibilityContext<'e>,
) -> Result<Source<'e>> {
    Ok(match plan {
        Plan::Result => Box::new(Rows::new(vec![Vec::new()])),
        Plan::SeqScan { rel, needed, ctid, .. } => {
            Box::new(SeqScan::new(engine, rel, needed.clone(), ctx.clone(), *ctid)?)
        }
        Plan::IndexScan { rel, path, ctid, .. } => Box::new(IndexScan {
            engine,
            rel,
            path,
            ctx: ctx.clone(),
            key: instrument::key_of(plan),
            rows: None,
            ctid: *ctid,
            index_tally: ScanTally::default(),
            heap_tally: ScanTally::default(),
        }),
        Plan::GenerateSeries { start, stop, step, ty } => {
            Box::new(Series::new(start, stop, step.as_ref(), *ty))
        }
        Plan::Unnest { array, ordinality, options } => {
            Box::new(Unnest::new(array, *ordinality, *options))
        }
        Plan::Values(rows) => Box::new(ValuesSource { rows, next: 0 }),
        Plan::Rows(rows) => Box::new(Rows::new(rows.clone())),
        Plan::Filter { input, qual, agg_offset } => Box::new(FilterSource {
            input: open(input, engine, ctx)?,
            qual,
            agg_offset: *agg_offset,
        }),
        Plan::NestLoop { outer, inner, kind, qual, inner_width, params, rescan_ctes } => {
            let inner = if params.is_empty() {
                Inner::Materialised {
                    source: Some(open(inner, engine, ctx)?),
                    rows: None,
                    cursor: Cursor::default(),
                }
            } else {
                Inner::Rescanned {
                    plan: inner,
                    engine,
                    ctx: ctx.clone(),
                    params,
                    ctes: rescan_ctes,
                    source: None,
                }
            };
            Box::new(NestLoopSource {
                key: instrument::key_of(plan),
                outer: open(outer, engine, ctx)?,
                inner,
                kind: *kind,
                qual: qual.as_ref(),
                inner_width: *inner_width,
                current: None,
                matched: false,
            })
        }
        Plan::HashJoin {
            outer,
            inner,
            kind,
            outer_keys,
            inner_keys,
            qual,
            outer_width,
            inner_width,
        } => Box::new(hashjoin::HashJoinSource::new(
            open(outer, engine, ctx)?,
            open(inner, engine, ctx)?,
            join::JoinSpec {
                kind: *kind,
                qual: qual.as_ref(),
                outer_width: *outer_width,
                inner_width: *inner_width,
                key: instrument::key_of(plan),
            },
            (outer_keys, inner_keys),
        )),
        Plan::MergeJoin { outer, inner, kind, keys, qual, outer_width, inner_width } => {
            Box::new(join::MergeJoinSource::new(
                open(outer, engine, ctx)?,
                open(inner, engine, ctx)?,
                join::JoinSpec {
                    kind: *kind,
                    qual: qual.as_ref(),
                    outer_width: *outer_width,
                    inner_width: *inner_width,
                    key: instrument::key_of(plan),
                },
                keys,
            ))
        }
        Plan::Material { input } => open(input, engine, ctx)?,
        Plan::Aggregate { input, keys, aggs, input_width, hashed } => {
            Box::new(agg::AggregateSource::new(
                open(input, engine, ctx)?,
                agg::AggSpec {
                    keys,
                    aggs,
                    input_width: *input_width,
                    hashed: *hashed,
                    key: instrument::key_of(plan),
                },
            ))
        }
        Plan::Project { input, exprs, agg_offset } => Box::new(ProjectSource {
            input: open(input, engine, ctx)?,
            exprs,
            agg_offset: *agg_offset,
            sets: exprs.iter().any(project_set::is_set_function),
            pending: Default::default(),
        }),
        Plan::Distinct { input, width } => Box::new(Blocking::distinct(
            open(input, engine, ctx)?,
            *width,
            instrument::key_of(plan),
        )),
        Plan::Sort { input, keys } => Box::new(Blocking::sort(
            open(input, engine, ctx)?,
            keys.clone(),
            instrument::key_of(plan),
        )),
        Plan::Limit { input, offset, limit } => Box::new(LimitSource {
            input: open(input, engine, ctx)?,
            offset: offset.as_ref(),
            limit: limit.as_ref(),
            state: None,
        }),
        Plan::Truncate { input, width } => {
            Box::new(TruncateSource { input: open(input, engine, ctx)?, width: *width })
        }
        Plan::LockRows { input, spec } => {
            Box::new(lockrows::LockRowsSource { input: open(input, engine, ctx)?, spec })
        }
        Plan::Statement { input, registry } => Box::new(setops::StatementSource {
            input: open(input, engine, ctx)?,
            registry: Some(registry),
        }),
        Plan::Append { inputs } => Box::new(setops::AppendSource {
            inputs: inputs.iter().map(|p| open(p, engine, ctx)).collect::<Result<_>>()?,
        }),
        Plan::SetOp { left, right, kind, all } => Box::new(setops::SetOpSource {
            left: open(left, engine, ctx)?,
            right: open(right, engine, ctx)?,
            kind: *kind,
            all: *all,
            output: None,
        }),
        Plan::CteScan { cte } => {
            Box::new(setops::CteScanSource { cte: *cte, cursor: Cursor::default() })
        }
        Plan::WorkTableScan { table } => Box::new(setops::WorkTableScanSource {
            table: *table,
            rows: None,
            cursor: Cursor::default(),
        }),
        Plan::RecursiveUnion { non_recursive, recursive, table, all } => {
            Box::new(setops::RecursiveUnionSource {
                first: Some(open(non_recursive, engine, ctx)?),
                recursive,
                engine,
                ctx: ctx.clone(),
                pass: None,
                table: *table,
                seen: (!*all).then(Default::default),
                next_table: None,
            })
        }
    })
}

/// Rows already in memory.
struct Rows {
    rows: std::vec::IntoIter<Vec<Datum>>,
}

impl Rows {
    fn new(rows: Vec<Vec<Datum>>) -> Rows {
        Rows { rows: rows.into_iter() }
    }
}

impl<'e> RowSource<'e> for Rows {
    fn next(&mut self, _: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        Ok(self.rows.next())
    }
}

/// A sequential scan producing decoded rows.
/// An index, index-only or bitmap scan, started at its first row (its
/// bounds may be parameters, which only the host can evaluate).
struct IndexScan<'e> {
    engine: &'e Engine,
    rel: &'e RelationDesc,
    path: &'e IndexPath,
    ctx: VisibilityContext<'e>,
    /// The plan node's EXPLAIN ANALYZE key.
    key: usize,
    rows: Option<IndexReader<'e>>,
    /// Append each row's address (for LockRows).
    ctid: bool,
    /// Statistics: the index's scans and entries, and table rows a bitmap
    /// scan fetched.
    index_tally: ScanTally,
    heap_tally: ScanTally,
}

/// The reader of each scan method.
enum IndexReader<'e> {
    Plain(IndexRows<'e>),
    IndexOnly(IndexOnlyRows<'e>),
    Bitmap(BitmapRows<'e>),
}

impl<'e> IndexScan<'e> {
    fn start(&self, host: &mut ExecHost) -> Result<IndexReader<'e>> {
        let (engine, rel, path, ctx) = (self.engine, self.rel, self.path, self.ctx.clone());
        Ok(match path.method {
            ScanMethod::Plain => {
                IndexReader::Plain(IndexRows::start(engine, rel, path, ctx, host)?)
            }
            ScanMethod::IndexOnly => IndexReader::IndexOnly(IndexOnlyRows::start(
                engine, rel, path, ctx, host, self.key,
            )?),
            ScanMethod::Bitmap => {
                IndexReader::Bitmap(BitmapRows::start(engine, rel, path, ctx, host, self.key)?)
            }
        })
    }

    /// count_row -- statistics for one row returned: an index entry read,
    /// and the table row fetched through it (by the bitmap heap scan for
    /// bitmap scans; index-only scans count no fetch).
    fn count_row(&mut self) {
        self.index_tally.returned();
        match self.path.method {
            ScanMethod::Plain => self.index_tally.fetched(),
            ScanMethod::Bitmap => self.heap_tally.fetched(),
            ScanMethod::IndexOnly => {}
        }
    }

    /// The next row with its address appended (a scan under LockRows; the
    /// planner never makes those index-only).
    fn next_with_ctid(&mut self) -> Result<Option<Vec<Datum>>> {
        let found = match self.rows.as_mut().expect("started") {
            IndexReader::Plain(rows) => rows.next_tuple()?,
            IndexReader::Bitmap(rows) => rows.next_tuple()?,
            IndexReader::IndexOnly(_) => {
                return Err(SqlError::internal("an index-only scan has no row addresses"))
            }
        };
        let Some((tid, tuple)) = found else { return Ok(None) };
        let mut row = deform_row(&self.rel.tuple_desc(), &self.rel.types(), &tuple)?;
        row.push(lockrows::tid_datum(tid));
        Ok(Some(row))
    }
}

impl<'e> RowSource<'e> for IndexScan<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        host.check_interrupts()?;
        if self.rows.is_none() {
            self.index_tally.start(host.env().stats, self.path.index.oid);
            if self.path.method == ScanMethod::Bitmap {
                self.heap_tally.attach(host.env().stats, self.rel.oid);
            }
            self.rows = Some(self.start(host)?);
        }
        let row = if self.ctid {
            self.next_with_ctid()?
        } else {
            match self.rows.as_mut().expect("started") {
                IndexReader::Plain(rows) => rows.next_row()?,
                IndexReader::IndexOnly(rows) => rows.next_row()?,
                IndexReader::Bitmap(rows) => rows.next_row()?,
            }
        };
        if row.is_some() {
            self.count_row();
        }
        Ok(row)
    }
}

struct SeqScan<'e> {
    scan: HeapScan<'e>,
    /// The table's OID and its scan statistics.
    oid: sluice_common::Oid,
    tally: ScanTally,
    desc: TupleDesc,
    types: Vec<SqlType>,
    needed: Option<Vec<bool>>,
    ctid: bool,
}

impl<'e> SeqScan<'e> {
    fn new(
        engine: &'e Engine,
        rel: &RelationDesc,
        needed: Option<Vec<bool>>,
        ctx: VisibilityContext<'e>,
        ctid: bool,
    ) -> Result<SeqScan<'e>> {
        Ok(SeqScan {
            scan: HeapScan::begin(engine, &rel.heap(), ctx)?,
            oid: rel.oid,
            tally: ScanTally::default(),
            desc: rel.tuple_desc(),
            types: rel.types(),
            needed,
            ctid,
        })
    }
}

impl<'e> RowSource<'e> for SeqScan<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        host.check_interrupts()?;
        if !self.tally.started() {
            self.tally.start(host.env().stats, self.oid);
        }
        let Some((tid, tuple)) = self.scan.next_tuple()? else { return Ok(None) };
        self.tally.returned();
        let mut row = match &self.needed {
            Some(needed) => deform_row_projected(&self.desc, &self.types, tuple, needed)?,
            None => deform_row(&self.desc, &self.types, tuple)?,
        };
        if self.ctid {
            row.push(lockrows::tid_datum(tid));
        }
        Ok(Some(row))
    }
}

fn host_context<'h>(host: &'h ExecHost) -> &'h sluice_types::Context {
    host.context()
}

/// VALUES rows.
struct ValuesSource<'e> {
    rows: &'e [Vec<Expr>],
    next: usize,
}

impl<'e> RowSource<'e> for ValuesSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        let Some(row) = self.rows.get(self.next) else { return Ok(None) };
        self.next += 1;
        Ok(Some(row.iter().map(|e| eval(e, &[], host)).collect::<Result<_>>()?))
    }
}

/// Sets the aggregate values of a post-aggregation row.
fn load_aggs(host: &mut ExecHost, row: &[Datum], agg_offset: Option<usize>) {
    if let Some(offset) = agg_offset {
        host.aggs = row.get(offset..).map(<[Datum]>::to_vec).unwrap_or_default();
    }
}

struct FilterSource<'e> {
    input: Source<'e>,
    qual: &'e Expr,
    agg_offset: Option<usize>,
}

impl<'e> RowSource<'e> for FilterSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        while let Some(row) = self.input.next(host)? {
            load_aggs(host, &row, self.agg_offset);
            if eval_qual(self.qual, &row, host)? {
                return Ok(Some(row));
            }
        }
        Ok(None)
    }
}

struct ProjectSource<'e> {
    input: Source<'e>,
    exprs: &'e [Expr],
    agg_offset: Option<usize>,
    /// Some expression is a set-returning function (see `project_set.rs`).
    sets: bool,
    /// The rows the current input row's sets still have to give.
    pending: std::collections::VecDeque<Vec<Datum>>,
}

impl<'e> RowSource<'e> for ProjectSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        loop {
            if let Some(row) = self.pending.pop_front() {
                return Ok(Some(row));
            }
            let Some(row) = self.input.next(host)? else { return Ok(None) };
            load_aggs(host, &row, self.agg_offset);
            if !self.sets {
                return Ok(Some(
                    self.exprs.iter().map(|e| eval(e, &row, host)).collect::<Result<_>>()?,
                ));
            }
            host.check_interrupts()?;
            self.pending = project_set::expand(self.exprs, &row, host)?;
        }
    }
}

/// Nodes that need their whole input first: Sort, and Distinct (sorted,
/// then each row equal to the one before dropped). Both sort through a
/// [`TupleSort`], so an input past `work_mem` is merged from disk.
struct Blocking<'e> {
    input: Option<Source<'e>>,
    keys: Vec<SortKey>,
    /// For Distinct: the row returned last.
    dedup: Option<Option<Vec<Datum>>>,
    /// The plan node's key (EXPLAIN ANALYZE's sort space).
    key: usize,
    rows: Option<Sorted>,
}

impl<'e> Blocking<'e> {
    fn sort(input: Source<'e>, keys: Vec<SortKey>, key: usize) -> Blocking<'e> {
        Blocking { input: Some(input), keys, dedup: None, key, rows: None }
    }

    fn distinct(input: Source<'e>, width: usize, key: usize) -> Blocking<'e> {
        let keys = (0..width)
            .map(|column| SortKey { column, descending: false, nulls_first: false })
            .collect();
        Blocking { input: Some(input), keys, dedup: Some(None), key, rows: None }
    }

    /// sort_input -- reads the whole input into the sort.
    fn sort_input(&self, mut input: Source<'e>, host: &mut ExecHost<'e, '_>) -> Result<Sorted> {
        let mut sort = TupleSort::new(&host.temp_space(), self.keys.clone());
        while let Some(row) = input.next(host)? {
            sort.put(row)?;
        }
        let sorted = sort.finish()?;
        if let Some(bytes) = sorted.disk_bytes() {
            instrument::count(self.key, instrument::Counter::SortDisk, bytes);
        }
        Ok(sorted)
    }
}

impl<'e> RowSource<'e> for Blocking<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        if let Some(input) = self.input.take() {
            self.rows = Some(self.sort_input(input, host)?);
        }
        let Some(rows) = self.rows.as_mut() else { return Ok(None) };
        while let Some(row) = rows.next()? {
            let Some(last) = &mut self.dedup else { return Ok(Some(row)) };
            if last.as_ref().is_some_and(|l| compare_rows(l, &row, &self.keys).is_eq()) {
                continue;
            }
            *last = Some(row.clone());
            return Ok(Some(row));
        }
        Ok(None)
    }
}

struct LimitSource<'e> {
    input: Source<'e>,
    offset: Option<&'e Expr>,
    limit: Option<&'e Expr>,
    /// (rows still to skip, rows still to return).
    state: Option<(i64, Option<i64>)>,
}

fn count_of(expr: Option<&Expr>, host: &mut ExecHost, what: &str) -> Result<Option<i64>> {
    let Some(expr) = expr else { return Ok(None) };
    let value = eval(expr, &[], host)?;
    if value.is_null() {
        return Ok(None);
    }
    let n =
        value.as_i64().ok_or_else(|| SqlError::new("22023", format!("invalid {what} value")))?;
    if n < 0 {
        let message = if what == "LIMIT" {
            "LIMIT must not be negative"
        } else {
            "OFFSET must not be negative"
        };
        return Err(SqlError::new("2201W", message));
    }
    Ok(Some(n))
}

impl<'e> RowSource<'e> for LimitSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        if self.state.is_none() {
            let offset = count_of(self.offset, host, "OFFSET")?.unwrap_or(0);
            self.state = Some((offset, count_of(self.limit, host, "LIMIT")?));
        }
        let (skip, left) = self.state.as_mut().expect("set");
        if *left == Some(0) {
            return Ok(None);
        }
        while *skip > 0 {
            if self.input.next(host)?.is_none() {
                return Ok(None);
            }
            *skip -= 1;
        }
        let row = self.input.next(host)?;
        if row.is_some() {
            if let Some(n) = left {
                *n -= 1;
            }
        }
        Ok(row)
    }
}

struct TruncateSource<'e> {
    input: Source<'e>,
    width: usize,
}

impl<'e> RowSource<'e> for TruncateSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        Ok(self.input.next(host)?.map(|mut r| {
            r.truncate(self.width);
            r
        }))
    }
}
