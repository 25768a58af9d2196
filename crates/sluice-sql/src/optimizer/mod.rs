//! Choosing how to read a table by cost (PostgreSQL's `optimizer/`: the
//! scan paths of `path/allpaths.c` and `path/indxpath.c`, costed by
//! `costsize.rs` with selectivities from `selfuncs.rs`).
//!
//! For a table read with a WHERE clause the planner prices a sequential scan
//! and, for every B-tree whose leading column the clause bounds (and, when
//! `enable_seqscan` is off, every B-tree at all, read whole), an index scan;
//! the cheapest wins. Sizes come from the file's current length and
//! ANALYZE's density; selectivities from `pg_statistic`. The whole WHERE
//! clause is still checked on every row an index returns.
//!
//! Still to come (issue 4): join order and join methods, aggregation and
//! sort strategies, bitmap and index-only scans.

pub mod costsize;
pub mod selfuncs;

use crate::catalog::index::IndexDesc;
use crate::catalog::relation::RelationDesc;
use crate::catalog::statistic::{self, ColumnStatistics};
use crate::error::Result;
use crate::executor::indexscan::{index_quals, IndexPath, IndexQual};
use crate::expr::Expr;
use costsize::{cost_index, cost_seqscan, estimate_rel_size, CostParams, IndexSize, RelSize};
use selfuncs::{range_selectivity, ColumnInfo};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::{ForkNumber, Oid};

/// What the planner needs to know to price reads of one table.
pub struct ScanContext<'a> {
    /// The engine (for file sizes).
    pub engine: &'a Engine,
    /// The database.
    pub db: Oid,
    /// The statement's view of the catalogs.
    pub ctx: &'a VisibilityContext<'a>,
    /// The cost settings.
    pub params: CostParams,
}

/// choose_scan -- the index path to read `rel` with, or `None` for a
/// sequential scan, whichever is estimated cheaper.
pub fn choose_scan(
    sc: &ScanContext,
    rel: &RelationDesc,
    indexes: &[IndexDesc],
    qual: Option<&Expr>,
) -> Result<Option<IndexPath>> {
    if indexes.is_empty() || (qual.is_none() && sc.params.enable_seqscan) {
        return Ok(None);
    }
    let size = rel_size(sc, rel)?;
    let quals_per_index: Vec<(usize, Vec<IndexQual>)> = indexes
        .iter()
        .enumerate()
        .filter_map(|(i, index)| index_quals(rel, index, qual).map(|q| (i, q)))
        .filter(|(_, q)| !q.is_empty() || !sc.params.enable_seqscan)
        .collect();
    if quals_per_index.is_empty() {
        return Ok(None);
    }
    let filter_ops = qual.map_or(0, count_operators);
    let mut best_cost = cost_seqscan(&sc.params, size, filter_ops, 1.0).total;
    let mut best = None;
    for (i, quals) in quals_per_index {
        let index = &indexes[i];
        let leading = index.keys[0];
        let ty = rel.columns[leading as usize - 1].ty;
        let stats = statistic::load(sc.engine, sc.db, sc.ctx, rel.oid, leading, ty)?;
        let selectivity = qual_selectivity(index, ty, stats.as_ref(), &quals, size.tuples);
        let correlation = stats.as_ref().and_then(|s| s.correlation).map_or(0.0, f64::from);
        let cost = cost_index(
            &sc.params,
            size,
            index_size(sc, index, size)?,
            selectivity,
            quals.len(),
            correlation,
            filter_ops,
        );
        if cost.total < best_cost {
            best_cost = cost.total;
            best = Some(IndexPath { index: index.clone(), quals });
        }
    }
    Ok(best)
}

/// The table's size as the planner estimates it.
fn rel_size(sc: &ScanContext, rel: &RelationDesc) -> Result<RelSize> {
    let pages = sc.engine.pool().nblocks(rel.locator, ForkNumber::Main)?;
    let width: usize = rel.columns.iter().map(|c| c.ty.typlen().max(8) as usize).sum();
    Ok(estimate_rel_size(pages, rel.pages, rel.tuples, width))
}

/// The index's pages, entries and height (from its file's length; a B-tree
/// has about 300 entries per page, so its height grows with log₃₀₀ pages).
fn index_size(sc: &ScanContext, index: &IndexDesc, rel: RelSize) -> Result<IndexSize> {
    let pages = f64::from(sc.engine.pool().nblocks(index.locator, ForkNumber::Main)?.max(1));
    let height = if pages <= 2.0 { 0 } else { (pages.ln() / 300f64.ln()).ceil() as u32 };
    Ok(IndexSize { pages, tuples: rel.tuples, height })
}

/// The fraction of rows the index conditions keep.
fn qual_selectivity(
    index: &IndexDesc,
    ty: sluice_types::SqlType,
    stats: Option<&ColumnStatistics>,
    quals: &[IndexQual],
    tuples: f64,
) -> f64 {
    let info = ColumnInfo { stats, ty, unique: index.unique && index.keys.len() == 1, tuples };
    let conds: Vec<_> = quals
        .iter()
        .map(|q| {
            let value = match &q.value {
                Expr::Const { value, .. } => Some(value.clone()),
                _ => None,
            };
            (q.op, value)
        })
        .collect();
    range_selectivity(&info, &conds)
}

/// How many operators and function calls evaluating `e` costs (for the per-row
/// CPU cost of a filter).
fn count_operators(e: &Expr) -> usize {
    match e {
        Expr::Call { args, .. } => 1 + args.iter().map(count_operators).sum::<usize>(),
        Expr::Bool { args, .. } => args.iter().map(count_operators).sum(),
        Expr::Cast { arg, .. } => count_operators(arg),
        _ => 0,
    }
}
