//! Size and cost estimates of whole plan trees (PostgreSQL computes them
//! while building paths: `set_baserel_size_estimates`,
//! `set_joinrel_size_estimates`, `estimate_num_groups` and the `cost_*`
//! functions of `costsize.c`).
//!
//! sluice builds most of its plan directly, so the estimates are computed
//! from the finished tree instead: [`Estimator::estimate`] walks a node's
//! inputs and applies the same `costsize.rs` formulas the planner used to
//! choose it. EXPLAIN prints these numbers, and the join search
//! (`joinpath.rs`) asks for the estimates of the FROM items it orders.
//!
//! Selectivities need statistics, so every column is traced back through
//! the tree to the table column it came from (`column_stat`), if any; a
//! column computed by an expression, or from a subquery, has no statistics
//! and gets PostgreSQL's defaults. Statistics are read from `pg_statistic`
//! once per column and kept for the estimator's life (one planning run).

use super::costsize::{
    clamp_row_est, cost_agg, cost_material, cost_seqscan, cost_sort, eqjoinsel, AggStrategy,
    CostParams, Estimate,
};
use super::indxpath::{commute, conjuncts};
use super::plannodes::{IndexPath, Plan};
use super::selfuncs::{range_selectivity, ColumnInfo, DEFAULT_EQ_SEL, DEFAULT_INEQ_SEL};
use super::{count_operators, index_access, path_cost, qual_fraction, rel_size, ScanContext};
use crate::catalog::index::IndexDesc;
use crate::catalog::relation::RelationDesc;
use crate::catalog::statistic::{self, ColumnStatistics};
use crate::error::Result;
use crate::expr::{Builtin, Expr};
use sluice_common::Oid;
use sluice_types::ops::CmpOp;
use sluice_types::SqlType;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// PostgreSQL's DEFAULT_NUM_DISTINCT: distinct values assumed without
/// statistics.
const DEFAULT_NUM_DISTINCT: f64 = 200.0;

/// Statistics read so far, by table and attnum.
type StatsCache = HashMap<(Oid, i16), Option<Rc<ColumnStatistics>>>;

/// What the planner knows about a column of some node's output.
#[derive(Clone, Debug)]
pub struct ColumnStat {
    /// ANALYZE's statistics of the table column it comes from.
    pub stats: Option<Rc<ColumnStatistics>>,
    /// Its type.
    pub ty: SqlType,
    /// Whether a unique index covers exactly that table column.
    pub unique: bool,
    /// Rows of the table it comes from.
    pub tuples: f64,
}

impl ColumnStat {
    /// The selectivity code's view of it.
    pub fn info(&self) -> ColumnInfo<'_> {
        ColumnInfo {
            stats: self.stats.as_deref(),
            ty: self.ty,
            unique: self.unique,
            tuples: self.tuples,
        }
    }

    /// Distinct non-NULL values (PostgreSQL's get_variable_numdistinct,
    /// DEFAULT_NUM_DISTINCT when unknown, never more than the rows).
    pub fn n_distinct(&self) -> f64 {
        self.info().n_distinct().unwrap_or(DEFAULT_NUM_DISTINCT.min(self.tuples.max(1.0)))
    }
}

/// Estimates plans of one statement, caching what it reads from catalogs.
pub struct Estimator<'a> {
    /// Cost settings and catalog access.
    pub sc: &'a ScanContext<'a>,
    stats: RefCell<StatsCache>,
    indexes: RefCell<HashMap<Oid, Rc<Vec<IndexDesc>>>>,
    /// WITH query plans (for the size of a CTE scan).
    ctes: &'a [Plan],
}

impl<'a> Estimator<'a> {
    /// An estimator for plans whose WITH queries are `ctes`.
    pub fn new(sc: &'a ScanContext<'a>, ctes: &'a [Plan]) -> Estimator<'a> {
        Estimator { sc, stats: Default::default(), indexes: Default::default(), ctes }
    }

    /// The cost settings.
    pub fn params(&self) -> &CostParams {
        &self.sc.params
    }

    /// `rel`'s indexes (read once).
    pub fn indexes(&self, rel: &RelationDesc) -> Result<Rc<Vec<IndexDesc>>> {
        if let Some(found) = self.indexes.borrow().get(&rel.oid) {
            return Ok(found.clone());
        }
        let list = Rc::new(self.sc.indexes(rel)?);
        self.indexes.borrow_mut().insert(rel.oid, list.clone());
        Ok(list)
    }

    /// The statistics of `rel`'s column `column` (0-based), read once.
    fn table_column(&self, rel: &RelationDesc, column: usize) -> Result<ColumnStat> {
        let (attnum, ty) = (column as i16 + 1, rel.columns[column].ty);
        let key = (rel.oid, attnum);
        let cached = self.stats.borrow().get(&key).cloned();
        let stats = match cached {
            Some(s) => s,
            None => {
                let sc = self.sc;
                let s =
                    statistic::load(sc.engine, sc.db, sc.ctx, rel.oid, attnum, ty)?.map(Rc::new);
                self.stats.borrow_mut().insert(key, s.clone());
                s
            }
        };
        let unique = self.indexes(rel)?.iter().any(|i| i.unique && i.keys == [attnum]);
        let tuples = rel_size(self.sc, rel)?.tuples;
        Ok(ColumnStat { stats, ty, unique, tuples })
    }

    /// column_stat -- what is known about column `col` of `plan`'s output:
    /// the statistics of the table column it is a copy of, if any.
    pub fn column_stat(&self, plan: &Plan, col: usize) -> Result<Option<ColumnStat>> {
        match plan {
            Plan::SeqScan { rel, .. } | Plan::IndexScan { rel, .. } => {
                if col < rel.columns.len() {
                    return self.table_column(rel, col).map(Some);
                }
                Ok(None)
            }
            Plan::Filter { input, .. }
            | Plan::Sort { input, .. }
            | Plan::Limit { input, .. }
            | Plan::LockRows { input, .. }
            | Plan::Distinct { input, .. }
            | Plan::Material { input }
            | Plan::Truncate { input, .. }
            | Plan::Statement { input, .. } => self.column_stat(input, col),
            Plan::Aggregate { input, input_width, .. } if col < *input_width => {
                self.column_stat(input, col)
            }
            Plan::Project { input, exprs, .. } => match exprs.get(col) {
                Some(Expr::Column { index, .. }) => self.column_stat(input, *index),
                _ => Ok(None),
            },
            Plan::NestLoop { outer, inner, .. }
            | Plan::HashJoin { outer, inner, .. }
            | Plan::MergeJoin { outer, inner, .. } => {
                let Some(outer_width) = width_of(outer, self.ctes) else { return Ok(None) };
                if col < outer_width {
                    self.column_stat(outer, col)
                } else {
                    self.column_stat(inner, col - outer_width)
                }
            }
            _ => Ok(None),
        }
    }

    /// clause_selectivity -- the fraction of rows `clause` keeps, its
    /// columns described by `lookup` (PostgreSQL's clause_selectivity for
    /// the clauses it has estimators for: comparisons of a column with a
    /// constant, equality of two columns; anything else a default).
    pub fn clause_selectivity(
        &self,
        clause: &Expr,
        lookup: &dyn Fn(usize) -> Result<Option<ColumnStat>>,
    ) -> Result<f64> {
        let Expr::Call { func: Builtin::Compare(op, _), args, .. } = clause else {
            return Ok(DEFAULT_INEQ_SEL);
        };
        let default = if *op == CmpOp::Eq { DEFAULT_EQ_SEL } else { DEFAULT_INEQ_SEL };
        let (left, right) = (strip(&args[0]), strip(&args[1]));
        match (left, right) {
            (Expr::Column { index: a, .. }, Expr::Column { index: b, .. }) if *op == CmpOp::Eq => {
                let (Some(x), Some(y)) = (lookup(*a)?, lookup(*b)?) else {
                    return Ok(DEFAULT_EQ_SEL);
                };
                Ok(eqjoinsel(
                    x.n_distinct(),
                    x.info().null_frac(),
                    y.n_distinct(),
                    y.info().null_frac(),
                ))
            }
            (Expr::Column { index, .. }, Expr::Const { value, .. })
            | (Expr::Const { value, .. }, Expr::Column { index, .. }) => {
                let Some(col) = lookup(*index)? else { return Ok(default) };
                let op = if matches!(left, Expr::Const { .. }) { commute(*op) } else { *op };
                Ok(range_selectivity(&col.info(), &[(op, Some(value.clone()))]))
            }
            _ => Ok(default),
        }
    }

    /// The fraction of `plan`'s rows all conjuncts of `qual` keep.
    pub fn qual_selectivity(&self, plan: &Plan, qual: &Expr) -> Result<f64> {
        let lookup = |c: usize| self.column_stat(plan, c);
        let mut sel = 1.0;
        for term in conjuncts(qual) {
            sel *= self.clause_selectivity(term, &lookup)?;
        }
        Ok(sel)
    }

    /// num_groups -- how many distinct combinations of `keys` `input`'s
    /// rows have (PostgreSQL's estimate_num_groups: the product of the
    /// columns' distinct counts, at most the rows).
    pub fn num_groups(&self, input: &Plan, keys: &[Expr], rows: f64) -> Result<f64> {
        let mut groups = 1.0;
        for key in keys {
            groups *= match strip(key) {
                Expr::Column { index, .. } => self
                    .column_stat(input, *index)?
                    .map_or(DEFAULT_NUM_DISTINCT, |c| c.n_distinct()),
                _ => DEFAULT_NUM_DISTINCT,
            };
        }
        Ok(clamp_row_est(groups.min(rows)))
    }

    /// estimate -- `plan`'s costs, rows and width.
    pub fn estimate(&self, plan: &Plan) -> Result<Estimate> {
        self.estimate_bounded(plan, None)
    }

    /// estimate_bounded -- like `estimate`, for a plan of which only the
    /// first `bound` rows will be read (a Sort under a LIMIT sorts with a
    /// bounded heap).
    pub fn estimate_bounded(&self, plan: &Plan, bound: Option<f64>) -> Result<Estimate> {
        let p = self.params();
        Ok(match plan {
            Plan::SeqScan { rel, needed, .. } => {
                let cost = cost_seqscan(p, rel_size(self.sc, rel)?, 0, 1.0);
                with_width(
                    cost.startup,
                    cost.total,
                    cost.rows,
                    self.scan_width(rel, needed.as_deref())?,
                )
            }
            Plan::IndexScan { rel, path, .. } => {
                let cost = path_cost(self.sc, rel, path, rel_size(self.sc, rel)?, 0)?;
                with_width(cost.startup, cost.total, cost.rows, self.scan_width(rel, None)?)
            }
            Plan::Filter { input, qual, .. } => self.filter(input, qual)?,
            Plan::Project { input, exprs, .. } => {
                let mut est = self.estimate_bounded(input, bound)?;
                let ops: usize = exprs.iter().map(count_operators).sum();
                est.total += p.cpu_operator_cost * ops as f64 * est.rows;
                est.width = exprs.iter().map(|e| self.expr_width(input, e)).sum::<Result<f64>>()?;
                est
            }
            Plan::Truncate { input, .. } | Plan::Statement { input, .. } => {
                self.estimate_bounded(input, bound)?
            }
            Plan::Sort { input, .. } => cost_sort(p, self.estimate(input)?, bound),
            Plan::Material { input } => cost_material(p, self.estimate(input)?),
            Plan::Limit { input, offset, limit } => self.limit(input, offset, limit)?,
            Plan::LockRows { input, .. } => {
                let est = self.estimate(input)?;
                Estimate { total: est.total + p.cpu_tuple_cost * est.rows, ..est }
            }
            Plan::Distinct { input, width } => {
                let est = self.estimate(input)?;
                let keys: Vec<Expr> =
                    (0..*width).map(|i| Expr::column(i, SqlType::Int4, -1)).collect();
                let groups = self.num_groups(input, &keys, est.rows)?;
                let total = est.total + p.cpu_operator_cost * est.rows * *width as f64;
                Estimate { total, rows: groups, ..est }
            }
            Plan::Aggregate { input, keys, aggs, hashed, .. } => {
                let est = self.estimate(input)?;
                let strategy = match (keys.is_empty(), hashed) {
                    (true, _) => AggStrategy::Plain,
                    (false, true) => AggStrategy::Hashed,
                    (false, false) => AggStrategy::Sorted,
                };
                let groups =
                    if keys.is_empty() { 1.0 } else { self.num_groups(input, keys, est.rows)? };
                let width = 8.0 * aggs.len() as f64
                    + keys.iter().map(|k| self.expr_width(input, k)).sum::<Result<f64>>()?;
                let input = if strategy == AggStrategy::Sorted {
                    self.sorted_input(input, est)?
                } else {
                    est
                };
                cost_agg(p, strategy, input, keys.len(), aggs.len(), groups, width)
            }
            Plan::NestLoop { .. } | Plan::HashJoin { .. } | Plan::MergeJoin { .. } => {
                super::joinpath::estimate_join(self, plan)?
            }
            Plan::Result => with_width(0.0, p.cpu_tuple_cost, 1.0, 0.0),
            Plan::Values(rows) => {
                let n = rows.len() as f64;
                let width = rows.first().map_or(0.0, |r| 4.0 * r.len() as f64);
                with_width(0.0, (p.cpu_operator_cost + p.cpu_tuple_cost) * n, n, width)
            }
            Plan::Rows(rows) => {
                let n = rows.len() as f64;
                with_width(0.0, p.cpu_tuple_cost * n, n, 32.0)
            }
            Plan::GenerateSeries { start, stop, step, .. } => {
                let n = series_rows(start, stop, step.as_ref());
                with_width(0.0, p.cpu_tuple_cost * n, n, 4.0)
            }
            // PostgreSQL's prorows for unnest: 100 rows, whatever the array.
            Plan::Unnest { .. } => with_width(0.0, p.cpu_tuple_cost * 100.0, 100.0, 32.0),
            Plan::CteScan { cte } => {
                let inner = match self.ctes.get(*cte) {
                    Some(plan) => self.estimate(plan)?,
                    None => with_width(0.0, 0.0, 1000.0, 32.0),
                };
                with_width(0.0, p.cpu_tuple_cost * inner.rows, inner.rows, inner.width)
            }
            Plan::Append { inputs } => {
                let mut est = Estimate::default();
                for input in inputs {
                    let e = self.estimate(input)?;
                    est.total += e.total;
                    est.rows += e.rows;
                    est.width = est.width.max(e.width);
                }
                est.startup = 0.0;
                est
            }
            Plan::SetOp { left, right, .. } => {
                let (l, r) = (self.estimate(left)?, self.estimate(right)?);
                let rows = l.rows + r.rows;
                let total = l.total + r.total + p.cpu_operator_cost * rows;
                with_width(total, total, l.rows, l.width)
            }
            Plan::RecursiveUnion { non_recursive, recursive, .. } => {
                let (a, b) = (self.estimate(non_recursive)?, self.estimate(recursive)?);
                let rows = a.rows + 10.0 * b.rows;
                with_width(0.0, a.total + 10.0 * b.total, rows, a.width)
            }
            Plan::WorkTableScan { .. } => with_width(0.0, p.cpu_tuple_cost * 10.0, 10.0, 32.0),
        })
    }

    /// A Filter: over a table scan the scan judges the rows (cost_seqscan's
    /// and cost_index's qual cost, rows from the table's statistics); over
    /// anything else, an operator cost per row and the clauses' selectivity.
    fn filter(&self, input: &Plan, qual: &Expr) -> Result<Estimate> {
        let p = self.params();
        let ops = count_operators(qual);
        match input {
            Plan::SeqScan { rel, needed, .. } => {
                let size = rel_size(self.sc, rel)?;
                let fraction =
                    qual_fraction(self.sc, rel, &self.indexes(rel)?, Some(qual), size.tuples)?;
                let cost = cost_seqscan(p, size, ops, fraction);
                Ok(with_width(
                    cost.startup,
                    cost.total,
                    cost.rows,
                    self.scan_width(rel, needed.as_deref())?,
                ))
            }
            Plan::IndexScan { rel, path, .. } => {
                let size = rel_size(self.sc, rel)?;
                let cost = path_cost(self.sc, rel, path, size, ops)?;
                let fraction =
                    qual_fraction(self.sc, rel, &self.indexes(rel)?, Some(qual), size.tuples)?;
                let rows = clamp_row_est((size.tuples * fraction).min(cost.rows));
                Ok(with_width(cost.startup, cost.total, rows, self.scan_width(rel, None)?))
            }
            _ => {
                let est = self.estimate(input)?;
                let sel = self.qual_selectivity(input, qual)?;
                let total = est.total + p.cpu_operator_cost * ops as f64 * est.rows;
                Ok(Estimate { total, rows: clamp_row_est(est.rows * sel), ..est })
            }
        }
    }

    /// A GroupAggregate's input: sorted by its keys unless an index scan
    /// already delivers it in order.
    fn sorted_input(&self, input: &Plan, est: Estimate) -> Result<Estimate> {
        match input {
            Plan::Sort { .. } => Ok(est),
            _ => Ok(cost_sort(self.params(), est, None)),
        }
    }

    /// LIMIT/OFFSET: the fraction of the input's run cost spent on the rows
    /// returned (PostgreSQL's adjust_limit_rows_costs; 10% of the rows for
    /// a limit that is not a constant).
    fn limit(&self, input: &Plan, offset: &Option<Expr>, limit: &Option<Expr>) -> Result<Estimate> {
        let count = |e: &Option<Expr>| match e {
            Some(Expr::Const { value, .. }) => value.as_i64().map(|v| v as f64),
            _ => None,
        };
        let skip = count(offset).unwrap_or(0.0);
        let probe = self.estimate(input)?;
        let take = match limit {
            None => probe.rows,
            Some(_) => count(limit).unwrap_or((probe.rows * 0.1).round()),
        };
        let est = self.estimate_bounded(input, Some(skip + take))?;
        let rows = est.rows.max(1.0);
        let run = est.run();
        let startup = est.startup + run * (skip / rows).min(1.0);
        let out = take.min((est.rows - skip).max(0.0));
        let total = startup + run * (out / rows).min(1.0);
        Ok(Estimate { startup, total, rows: clamp_row_est(out), width: est.width })
    }

    /// bitmap_index_estimate -- the Bitmap Index Scan below a Bitmap Heap
    /// Scan of `rel` through `path`: the index walk's cost, the entries it
    /// finds, and no width (it returns a bitmap, not rows).
    pub fn bitmap_index_estimate(&self, rel: &RelationDesc, path: &IndexPath) -> Result<Estimate> {
        let size = rel_size(self.sc, rel)?;
        let (access, _) = index_access(self.sc, rel, path, size)?;
        let rows = clamp_row_est(access.selectivity * size.tuples);
        Ok(with_width(0.0, access.total, rows, 0.0))
    }

    /// Average bytes of a table row, over the `needed` columns if known.
    fn scan_width(&self, rel: &RelationDesc, needed: Option<&[bool]>) -> Result<f64> {
        let mut width = 0.0;
        for column in 0..rel.columns.len() {
            if needed.is_some_and(|n| !n.get(column).copied().unwrap_or(false)) {
                continue;
            }
            width += column_width(Some(self.table_column(rel, column)?), rel.columns[column].ty);
        }
        Ok(width)
    }

    /// Average bytes of an expression's value over `input`'s rows.
    fn expr_width(&self, input: &Plan, e: &Expr) -> Result<f64> {
        Ok(match strip(e) {
            Expr::Column { index, ty, .. } => column_width(self.column_stat(input, *index)?, *ty),
            other => column_width(None, other.ty()),
        })
    }
}

/// An estimate with the given numbers.
fn with_width(startup: f64, total: f64, rows: f64, width: f64) -> Estimate {
    Estimate { startup, total, rows, width }
}

/// A column's average width: ANALYZE's, else the type's length (32 bytes for
/// variable-length types, PostgreSQL's get_typavgwidth guess).
fn column_width(stat: Option<ColumnStat>, ty: SqlType) -> f64 {
    if let Some(w) = stat.and_then(|s| s.stats.as_ref().map(|s| s.width)) {
        return f64::from(w);
    }
    match ty.typlen() {
        n if n > 0 => f64::from(n),
        _ => 32.0,
    }
}

/// An expression without the casts around it.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Cast { arg, .. } => strip(arg),
        other => other,
    }
}

/// Rows of generate_series: exact for constant integer bounds (PostgreSQL
/// 15's support function), else 1000.
fn series_rows(start: &Expr, stop: &Expr, step: Option<&Expr>) -> f64 {
    let value = |e: &Expr| match strip(e) {
        Expr::Const { value, .. } => value.as_i64(),
        _ => None,
    };
    let step = step.map_or(Some(1), value);
    match (value(start), value(stop), step) {
        (Some(a), Some(b), Some(s)) if s != 0 => (((b - a) / s) + 1).max(0) as f64,
        _ => 1000.0,
    }
}

/// The number of columns `plan` produces, if it can be told without the
/// statement's WITH queries' plans at hand.
pub fn width_of(plan: &Plan, ctes: &[Plan]) -> Option<usize> {
    Some(match plan {
        Plan::Result => 0,
        Plan::SeqScan { rel, ctid, .. } | Plan::IndexScan { rel, ctid, .. } => {
            rel.columns.len() + usize::from(*ctid)
        }
        Plan::GenerateSeries { .. } => 1,
        Plan::Unnest { ordinality, options, .. } => {
            1 + usize::from(*ordinality) + usize::from(*options)
        }
        Plan::Values(rows) => rows.first().map_or(0, Vec::len),
        Plan::Rows(rows) => rows.first()?.len(),
        Plan::Filter { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. }
        | Plan::LockRows { input, .. }
        | Plan::Material { input }
        | Plan::Statement { input, .. } => width_of(input, ctes)?,
        Plan::Distinct { input, .. } => width_of(input, ctes)?,
        Plan::Truncate { width, .. } => *width,
        Plan::Project { exprs, .. } => exprs.len(),
        Plan::Aggregate { input_width, aggs, .. } => input_width + aggs.len(),
        Plan::NestLoop { outer, inner_width, .. } => width_of(outer, ctes)? + inner_width,
        Plan::HashJoin { outer_width, inner_width, .. }
        | Plan::MergeJoin { outer_width, inner_width, .. } => outer_width + inner_width,
        Plan::Append { inputs } => width_of(inputs.first()?, ctes)?,
        Plan::SetOp { left, .. } => width_of(left, ctes)?,
        Plan::CteScan { cte } => width_of(ctes.get(*cte)?, ctes)?,
        Plan::RecursiveUnion { non_recursive, .. } => width_of(non_recursive, ctes)?,
        Plan::WorkTableScan { .. } => return None,
    })
}
