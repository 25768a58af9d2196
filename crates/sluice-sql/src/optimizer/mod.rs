//! Choosing how to read a table by cost (PostgreSQL's `optimizer/`: the
//! scan paths of `path/allpaths.c` and `path/indxpath.c`, costed by
//! `costsize.rs` with selectivities from `selfuncs.rs`).
//!
//! For a table read with a WHERE clause the planner prices a sequential scan
//! and, for every B-tree whose leading column the clause bounds (or that
//! holds every column the query reads, so it can be read whole without the
//! heap), an index scan — index-only when the index holds every column the
//! query reads — and a bitmap scan; the cheapest wins. Sizes come from the file's current length and
//! ANALYZE's density; selectivities from `pg_statistic`. The whole WHERE
//! clause is still checked on every row an index returns.
//!
//! The plan builders sit on top: `select.rs` (with `select/`) plans SELECT
//! and VALUES, `modify.rs` INSERT, UPDATE and DELETE, into the nodes of
//! `plannodes.rs`; what they need from the backend (the statement's
//! snapshot, table locks, settings, the rows of system views) they ask
//! through `context.rs`'s [`context::PlannerContext`].
//!
//! Join order and methods are in `joinpath.rs`, estimates of whole plan
//! trees (EXPLAIN's numbers, the join search's inputs) in `estimate.rs`,
//! the choice between hashed and sorted grouping in [`choose_hashed_agg`].
//! Still to come: parameterised index paths for nested loops, and bitmap
//! scans combining several indexes (BitmapAnd/BitmapOr).

pub mod constraint;
pub mod context;
pub mod costsize;
pub mod estimate;
pub mod indxpath;
pub mod joinpath;
pub mod modify;
pub mod planhost;
pub mod plannodes;
pub mod prune;
pub mod select;
pub mod selfuncs;

use crate::catalog::index::{indexes_of, IndexDesc};
use crate::catalog::pg_type::TypeCatalog;
use crate::catalog::relation::RelationDesc;
use crate::catalog::statistic::{self, ColumnStatistics};
use crate::error::Result;
use crate::expr::Expr;
use costsize::{
    cost_bitmap_heap_scan, cost_index, cost_index_access, cost_seqscan, estimate_rel_size,
    CostParams, IndexAccess, IndexSize, RelSize,
};
use indxpath::{analyze_predicate, conjuncts, index_qual, index_quals, widen};
use plannodes::{IndexPath, IndexQual, ScanMethod};
use selfuncs::{range_selectivity, ColumnInfo};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_access::Engine;
use sluice_common::{ForkNumber, Oid};
use sluice_guc::SessionSettings;

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
    /// The types the statement sees (partial index predicates name them).
    pub types: TypeCatalog,
}

impl<'a> ScanContext<'a> {
    /// The context of a statement in database `db` under `settings` (the
    /// cost settings), which sees the catalogs as `ctx` does.
    pub(crate) fn new(
        engine: &'a Engine,
        db: Oid,
        settings: &SessionSettings,
        ctx: &'a VisibilityContext<'a>,
        types: TypeCatalog,
    ) -> ScanContext<'a> {
        let params = CostParams::from_settings(settings);
        ScanContext { engine, db, ctx, params, types }
    }

    /// indexes -- `rel`'s valid indexes: the candidates for reading it.
    pub fn indexes(&self, rel: &RelationDesc) -> Result<Vec<IndexDesc>> {
        let mut indexes = indexes_of(self.engine, self.db, self.ctx, rel.oid)?;
        indexes.retain(|i| i.valid);
        Ok(indexes)
    }
}

/// choose_scan -- the index path to read `rel` with, or `None` for a
/// sequential scan, whichever is estimated cheaper. `needed` marks the
/// columns the query reads from `rel`, when known: an index holding all of
/// them can be read alone (index-only scan), and is then worth reading whole
/// even without a condition on it (PostgreSQL's build_index_paths makes the
/// same exception).
pub fn choose_scan(
    sc: &ScanContext,
    rel: &RelationDesc,
    indexes: &[IndexDesc],
    qual: Option<&Expr>,
    needed: Option<&[bool]>,
) -> Result<Option<IndexPath>> {
    if indexes.is_empty() {
        return Ok(None);
    }
    let size = rel_size(sc, rel)?;
    let filter_ops = qual.map_or(0, count_operators);
    let mut best_cost = cost_seqscan(&sc.params, size, filter_ops, 1.0).total;
    let mut best = None;
    for index in indexes {
        let Some(quals) = index_quals(rel, index, qual, &sc.types) else { continue };
        let covering = sc.params.enable_indexonlyscan && covers(index, needed);
        if quals.is_empty() && !covering {
            continue;
        }
        let plain = if covering { ScanMethod::IndexOnly } else { ScanMethod::Plain };
        for method in [plain, ScanMethod::Bitmap] {
            let path = IndexPath::new(index.clone(), quals.clone(), method);
            let cost = path_cost(sc, rel, &path, size, filter_ops)?;
            if cost.total < best_cost {
                best_cost = cost.total;
                best = Some(path);
            }
        }
    }
    Ok(best)
}

/// covers -- whether `index` holds every column marked in `needed`.
pub fn covers(index: &IndexDesc, needed: Option<&[bool]>) -> bool {
    let Some(needed) = needed else { return false };
    needed
        .iter()
        .enumerate()
        .all(|(column, &used)| !used || index.keys.contains(&(column as i16 + 1)))
}

/// choose_hashed_agg -- whether grouping `input` by `keys` (with `aggs`
/// aggregates) is cheaper through a hash table than by sorting
/// (PostgreSQL's choice between AGG_HASHED and AGG_SORTED paths in
/// add_paths_to_grouping_rel; enable_hashagg and enable_sort price their
/// strategy out).
pub fn choose_hashed_agg(
    sc: &ScanContext,
    input: &plannodes::Plan,
    keys: &[Expr],
    aggs: usize,
) -> Result<bool> {
    use costsize::{cost_agg, cost_sort, AggStrategy};
    let est = estimate::Estimator::new(sc, &[]);
    let input_est = est.estimate(input)?;
    let groups = est.num_groups(input, keys, input_est.rows)?;
    let width = 8.0 * aggs as f64 + 4.0 * keys.len() as f64;
    let hashed =
        cost_agg(&sc.params, AggStrategy::Hashed, input_est, keys.len(), aggs, groups, width);
    let sorted_input = cost_sort(&sc.params, input_est, None);
    let sorted =
        cost_agg(&sc.params, AggStrategy::Sorted, sorted_input, keys.len(), aggs, groups, width);
    Ok(hashed.total < sorted.total)
}

/// What an ORDER BY over one table's column asks of its scan.
#[derive(Clone, Copy, Debug)]
pub struct OrderRequest {
    /// The table column (0-based) the rows are ordered by.
    pub column: usize,
    /// DESC (with NULLS FIRST, the order a backward scan gives).
    pub descending: bool,
    /// What is known of the LIMIT.
    pub limit: LimitEstimate,
}

/// What the planner knows of a LIMIT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LimitEstimate {
    /// A constant: this many rows.
    Rows(f64),
    /// A parameter, unknown until execution: PostgreSQL's guess that this
    /// fraction of the rows is read (preprocess_limit's 10%).
    Fraction(f64),
}

/// choose_ordered_scan -- an index scan returning `rel`'s rows already in
/// the order `order` asks for, if that is cheaper for the first
/// `order.limit` rows than scanning as `choose_scan` would and sorting
/// (PostgreSQL compares the same two paths: a sorted cheapest path and a
/// presorted index path, each costed for the fraction LIMIT reads).
pub fn choose_ordered_scan(
    sc: &ScanContext,
    rel: &RelationDesc,
    indexes: &[IndexDesc],
    qual: Option<&Expr>,
    order: OrderRequest,
) -> Result<Option<IndexPath>> {
    let size = rel_size(sc, rel)?;
    let filter_ops = qual.map_or(0, count_operators);
    let sorted = {
        let scan = match choose_scan(sc, rel, indexes, qual, None)? {
            Some(path) => path_cost(sc, rel, &path, size, filter_ops)?,
            None => cost_seqscan(&sc.params, size, filter_ops, 1.0),
        };
        let bounded = match order.limit {
            LimitEstimate::Rows(n) => n,
            LimitEstimate::Fraction(_) => scan.rows,
        };
        scan.total + sort_cost(&sc.params, scan.rows, bounded)
    };
    // The rows the whole WHERE clause lets through: a LIMIT stops an
    // ordered scan after that fraction of its work.
    let rows_out = (size.tuples * qual_fraction(sc, rel, indexes, qual, size.tuples)?).max(1.0);
    let mut best: Option<(f64, IndexPath)> = None;
    for index in indexes {
        if index.keys.first().map(|&k| k as usize - 1) != Some(order.column) {
            continue;
        }
        let Some(quals) = index_quals(rel, index, qual, &sc.types) else { continue };
        let path = IndexPath {
            backward: order.descending,
            ..IndexPath::new(index.clone(), quals, ScanMethod::Plain)
        };
        let cost = path_cost(sc, rel, &path, size, filter_ops)?;
        let fraction = match order.limit {
            LimitEstimate::Rows(n) => (n / rows_out.min(cost.rows.max(1.0))).min(1.0),
            LimitEstimate::Fraction(f) => f,
        };
        let limited = cost.startup + (cost.total - cost.startup) * fraction;
        if limited < sorted && best.as_ref().is_none_or(|(c, _)| limited < *c) {
            best = Some((limited, path));
        }
    }
    Ok(best.map(|(_, path)| path))
}

/// qual_fraction -- the fraction of `rel`'s rows the AND-ed terms of `qual`
/// keep (PostgreSQL's clauselist_selectivity, for comparisons of a column
/// with a constant or parameter; any other term keeps a third).
fn qual_fraction(
    sc: &ScanContext,
    rel: &RelationDesc,
    indexes: &[IndexDesc],
    qual: Option<&Expr>,
    tuples: f64,
) -> Result<f64> {
    let Some(qual) = qual else { return Ok(1.0) };
    let mut per_column: std::collections::BTreeMap<usize, Vec<_>> = Default::default();
    let mut any_terms = Vec::new();
    let mut fraction = 1.0;
    for term in conjuncts(qual) {
        let compared = (0..rel.columns.len())
            .find_map(|c| index_qual(term, c, rel.columns[c].ty).map(|q| (c, q)));
        match compared {
            Some((column, q)) if q.any => any_terms.push((column, q.value)),
            Some((column, q)) => {
                let value = match q.value {
                    Expr::Const { value, .. } => Some(widen(value, rel.columns[column].ty)),
                    _ => None,
                };
                per_column.entry(column).or_default().push((q.op, value));
            }
            None => fraction *= selfuncs::DEFAULT_INEQ_SEL,
        }
    }
    let column = (sc, rel, indexes, tuples);
    for (c, conds) in per_column {
        fraction *= column_selectivity(column, c, |info| range_selectivity(info, &conds))?;
    }
    for (c, array) in any_terms {
        fraction *= column_selectivity(column, c, |info| any_selectivity(info, &array))?;
    }
    Ok(fraction)
}

/// column_selectivity -- `estimate` applied to what is known of column `c`
/// of `rel` (its statistics, whether an index makes it unique).
fn column_selectivity(
    (sc, rel, indexes, tuples): (&ScanContext, &RelationDesc, &[IndexDesc], f64),
    c: usize,
    estimate: impl FnOnce(&ColumnInfo) -> f64,
) -> Result<f64> {
    let (attnum, ty) = (c as i16 + 1, rel.columns[c].ty);
    let stats = statistic::load(sc.engine, sc.db, sc.ctx, rel.oid, attnum, ty)?;
    let unique = indexes.iter().any(|i| i.unique && i.keys == [attnum]);
    Ok(estimate(&ColumnInfo { stats: stats.as_ref(), ty, unique, tuples }))
}

/// path_cost -- what reading `rel` through `path` costs.
pub(crate) fn path_cost(
    sc: &ScanContext,
    rel: &RelationDesc,
    path: &IndexPath,
    size: RelSize,
    filter_ops: usize,
) -> Result<costsize::PathCost> {
    let (access, correlation) = index_access(sc, rel, path, size)?;
    Ok(match path.method {
        ScanMethod::Plain => cost_index(&sc.params, size, access, correlation, filter_ops, None),
        ScanMethod::IndexOnly => {
            let visible = all_visible_fraction(rel, size);
            cost_index(&sc.params, size, access, correlation, filter_ops, Some(visible))
        }
        ScanMethod::Bitmap => cost_bitmap_heap_scan(&sc.params, size, access, filter_ops),
    })
}

/// index_access -- what walking `path`'s index costs, and how well the
/// table's order follows the index's leading column.
pub(crate) fn index_access(
    sc: &ScanContext,
    rel: &RelationDesc,
    path: &IndexPath,
    size: RelSize,
) -> Result<(IndexAccess, f64)> {
    let leading = path.index.keys[0];
    let ty = rel.columns[leading as usize - 1].ty;
    let stats = statistic::load(sc.engine, sc.db, sc.ctx, rel.oid, leading, ty)?;
    let selectivity = qual_selectivity(&path.index, ty, stats.as_ref(), &path.quals, size.tuples)
        * predicate_selectivity(sc, rel, &path.index, size.tuples)?;
    let correlation = stats.as_ref().and_then(|s| s.correlation).map_or(0.0, f64::from);
    let index = index_size(sc, &path.index, size)?;
    Ok((cost_index_access(&sc.params, index, selectivity, path.quals.len()), correlation))
}

/// The fraction of the table's pages VACUUM last found all-visible
/// (PostgreSQL's allvisfrac: relallvisible over the current page count).
fn all_visible_fraction(rel: &RelationDesc, size: RelSize) -> f64 {
    if rel.all_visible <= 0 || size.pages <= 0.0 {
        return 0.0;
    }
    (f64::from(rel.all_visible) / size.pages).min(1.0)
}

/// sort_cost -- sorting `rows` rows for the first `limit` (PostgreSQL's
/// cost_sort: two comparisons per row per level, a bounded heap when only
/// the top rows are wanted).
fn sort_cost(p: &CostParams, rows: f64, limit: f64) -> f64 {
    let rows = rows.max(2.0);
    let levels = if limit < rows { (2.0 * limit).max(2.0).log2() } else { rows.log2() };
    2.0 * p.cpu_operator_cost * rows * levels + p.cpu_operator_cost * limit.min(rows)
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

/// The fraction of the table a partial index holds: PostgreSQL adds the
/// predicate to the index conditions when it prices the index
/// (add_predicate_to_index_quals), so a small partial index over a big
/// table is priced by the rows it holds, not by the table's.
fn predicate_selectivity(
    sc: &ScanContext,
    rel: &RelationDesc,
    index: &IndexDesc,
    tuples: f64,
) -> Result<f64> {
    let Some(text) = &index.predicate else { return Ok(1.0) };
    let Ok(predicate) = analyze_predicate(rel, text, &sc.types) else { return Ok(1.0) };
    qual_fraction(sc, rel, &[], Some(&predicate), tuples)
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
        .filter(|q| !q.any)
        .map(|q| {
            let value = match &q.value {
                Expr::Const { value, .. } => Some(widen(value.clone(), ty)),
                _ => None,
            };
            (q.op, value)
        })
        .collect();
    let any = quals.iter().find(|q| q.any).map_or(1.0, |q| any_selectivity(&info, &q.value));
    range_selectivity(&info, &conds) * any
}

/// any_selectivity -- the fraction of rows `column = ANY (array)` keeps:
/// one equality's per element, for a constant array's length or, not
/// knowing it, PostgreSQL's guess of 10 elements (scalararraysel with
/// estimate_array_length).
fn any_selectivity(info: &ColumnInfo, array: &Expr) -> f64 {
    let elements = match array {
        Expr::Const { value, .. } => value.as_array().map_or(0, |a| a.elements().len()),
        _ => 10,
    };
    let one = range_selectivity(info, &[(sluice_types::ops::CmpOp::Eq, None)]);
    (one * elements as f64).min(1.0)
}

/// How many operators and function calls evaluating `e` costs (for the per-row
/// CPU cost of a filter).
pub(crate) fn count_operators(e: &Expr) -> usize {
    match e {
        Expr::Call { args, .. } => 1 + args.iter().map(count_operators).sum::<usize>(),
        Expr::Bool { args, .. } => args.iter().map(count_operators).sum(),
        Expr::Cast { arg, .. } => count_operators(arg),
        _ => 0,
    }
}
