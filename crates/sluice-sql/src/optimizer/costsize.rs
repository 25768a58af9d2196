//! What a scan costs (PostgreSQL's `optimizer/path/costsize.c` and the
//! B-tree part of `utils/adt/selfuncs.c`'s `btcostestimate`).
//!
//! Costs are in PostgreSQL's units — one sequential page read is 1.0 — and
//! come from the same settings (`seq_page_cost`, `random_page_cost`,
//! `cpu_tuple_cost`, `cpu_index_tuple_cost`, `cpu_operator_cost`,
//! `effective_cache_size`), so a plan choice that flips in PostgreSQL when a
//! setting changes flips here too. `enable_*` = off does not forbid a path; it
//! adds [`DISABLE_COST`], so a disabled path still wins when it is the only one.

use sluice_common::BLCKSZ;
use sluice_guc::Settings;

/// What a disabled path costs extra (PostgreSQL's disable_cost).
pub const DISABLE_COST: f64 = 1.0e10;

/// The cost settings of one planning run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostParams {
    /// `seq_page_cost`.
    pub seq_page_cost: f64,
    /// `random_page_cost`.
    pub random_page_cost: f64,
    /// `cpu_tuple_cost`.
    pub cpu_tuple_cost: f64,
    /// `cpu_index_tuple_cost`.
    pub cpu_index_tuple_cost: f64,
    /// `cpu_operator_cost`.
    pub cpu_operator_cost: f64,
    /// `effective_cache_size`, in pages.
    pub effective_cache_size: f64,
    /// `enable_seqscan`.
    pub enable_seqscan: bool,
    /// `enable_indexscan`.
    pub enable_indexscan: bool,
}

impl CostParams {
    /// The parameters as the session's settings have them.
    pub fn from_settings(s: &dyn Settings) -> CostParams {
        CostParams {
            seq_page_cost: s.get_real("seq_page_cost"),
            random_page_cost: s.get_real("random_page_cost"),
            cpu_tuple_cost: s.get_real("cpu_tuple_cost"),
            cpu_index_tuple_cost: s.get_real("cpu_index_tuple_cost"),
            cpu_operator_cost: s.get_real("cpu_operator_cost"),
            effective_cache_size: f64::from(s.get_int("effective_cache_size")).max(1.0),
            enable_seqscan: s.get_bool("enable_seqscan"),
            enable_indexscan: s.get_bool("enable_indexscan"),
        }
    }
}

/// A path's estimated cost and result size.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathCost {
    /// Cost before the first row.
    pub startup: f64,
    /// Cost of all rows.
    pub total: f64,
    /// Rows returned.
    pub rows: f64,
}

/// The size of a table as the planner sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelSize {
    /// Pages.
    pub pages: f64,
    /// Live rows.
    pub tuples: f64,
}

/// estimate_rel_size -- PostgreSQL's estimate_rel_size: the file's current
/// page count, and the rows ANALYZE's density predicts for it. A table never
/// analysed is assumed to be full of rows of `width` bytes (and a brand-new
/// empty one to have 10 pages, so the first plans do not assume it is tiny).
pub fn estimate_rel_size(
    current_pages: u32,
    relpages: i32,
    reltuples: f32,
    width: usize,
) -> RelSize {
    let mut pages = f64::from(current_pages);
    if current_pages < 10 && relpages == 0 && reltuples < 0.0 {
        pages = 10.0;
    }
    let density = if reltuples >= 0.0 && relpages > 0 {
        f64::from(reltuples) / f64::from(relpages)
    } else {
        let tuple_width = (width + 32 + 4) as f64; // header + line pointer
        ((BLCKSZ - 28) as f64 / tuple_width).floor()
    };
    RelSize { pages, tuples: (density * pages).round() }
}

/// clamp_row_est -- at least one row, and whole rows.
pub fn clamp_row_est(rows: f64) -> f64 {
    if rows <= 1.0 {
        1.0
    } else {
        rows.round()
    }
}

/// cost_seqscan -- reading every page in order and judging every row with
/// `qual_ops` operators.
pub fn cost_seqscan(p: &CostParams, rel: RelSize, qual_ops: usize, selectivity: f64) -> PathCost {
    let cpu_per_tuple = p.cpu_tuple_cost + p.cpu_operator_cost * qual_ops as f64;
    let mut total = p.seq_page_cost * rel.pages + cpu_per_tuple * rel.tuples;
    if !p.enable_seqscan {
        total += DISABLE_COST;
    }
    PathCost { startup: 0.0, total, rows: clamp_row_est(rel.tuples * selectivity) }
}

/// index_pages_fetched -- Mackert and Lohman's estimate of the distinct heap
/// pages `tuples` random fetches touch in a table of `pages` pages, given a
/// cache of `effective_cache_size` shared with the index's pages.
pub fn index_pages_fetched(p: &CostParams, tuples: f64, pages: f64, index_pages: f64) -> f64 {
    let t = pages.max(1.0);
    let total_pages = (pages + index_pages).max(1.0);
    let b = (p.effective_cache_size * t / total_pages).ceil().max(1.0);
    let fetched = if t <= b {
        (2.0 * t * tuples / (2.0 * t + tuples)).min(t)
    } else {
        let lim = 2.0 * t * b / (2.0 * t - b);
        if tuples <= lim {
            2.0 * t * tuples / (2.0 * t + tuples)
        } else {
            b + (tuples - lim) * (t - b) / t
        }
    };
    fetched.ceil()
}

/// The shape of a B-tree for costing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexSize {
    /// Pages of the index.
    pub pages: f64,
    /// Entries in it.
    pub tuples: f64,
    /// Levels above the leaves.
    pub height: u32,
}

/// cost_index -- an index scan fetching `selectivity` of the table through
/// `index`, with `index_quals` conditions checked in the index and heap rows
/// whose physical order matches the index's to `correlation` (PostgreSQL's
/// cost_index with genericcostestimate and btcostestimate).
pub fn cost_index(
    p: &CostParams,
    rel: RelSize,
    index: IndexSize,
    selectivity: f64,
    index_quals: usize,
    correlation: f64,
    filter_ops: usize,
) -> PathCost {
    let index_tuples = (selectivity * index.tuples).round().max(1.0);
    let index_pages_read = (index_tuples * index.pages / index.tuples.max(1.0)).ceil().max(1.0);
    let qual_op_cost = p.cpu_operator_cost * index_quals as f64;
    // Descending the tree: a comparison per level of a binary search, and
    // the pages of the upper levels, which are usually cached.
    let descent = (index.tuples.max(2.0)).log2().ceil() * p.cpu_operator_cost
        + f64::from(index.height + 1) * 50.0 * p.cpu_operator_cost;
    let index_cost = index_pages_read * p.random_page_cost
        + index_tuples * (p.cpu_index_tuple_cost + qual_op_cost)
        + descent;

    let tuples_fetched = clamp_row_est(selectivity * rel.tuples);
    let max_io =
        index_pages_fetched(p, tuples_fetched, rel.pages, index.pages) * p.random_page_cost;
    let pages_sorted = (selectivity * rel.pages).ceil().max(1.0);
    let min_io = p.random_page_cost + (pages_sorted - 1.0) * p.seq_page_cost;
    let csquared = correlation * correlation;
    let io = max_io + csquared * (min_io - max_io);
    let cpu = tuples_fetched * (p.cpu_tuple_cost + p.cpu_operator_cost * filter_ops as f64);
    let mut total = descent + index_cost + io + cpu;
    if !p.enable_indexscan {
        total += DISABLE_COST;
    }
    PathCost { startup: descent, total, rows: tuples_fetched }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> CostParams {
        CostParams {
            seq_page_cost: 1.0,
            random_page_cost: 4.0,
            cpu_tuple_cost: 0.01,
            cpu_index_tuple_cost: 0.005,
            cpu_operator_cost: 0.0025,
            effective_cache_size: 524288.0,
            enable_seqscan: true,
            enable_indexscan: true,
        }
    }

    #[test]
    fn seqscan_costs_match_postgres() {
        // PostgreSQL: Seq Scan on t (cost=0.00..1443.00 rows=100000) for 443
        // pages and 100000 rows; with one qual 1693.00.
        let rel = RelSize { pages: 443.0, tuples: 100_000.0 };
        assert_eq!(cost_seqscan(&params(), rel, 0, 1.0).total, 1443.0);
        assert_eq!(cost_seqscan(&params(), rel, 1, 0.5).total, 1693.0);
    }

    #[test]
    fn a_selective_index_scan_beats_the_seqscan_and_a_wide_one_does_not() {
        let p = params();
        let rel = RelSize { pages: 443.0, tuples: 100_000.0 };
        let index = IndexSize { pages: 276.0, tuples: 100_000.0, height: 1 };
        let seq = cost_seqscan(&p, rel, 1, 1e-5).total;
        assert!(cost_index(&p, rel, index, 1e-5, 1, 1.0, 0).total < seq);
        assert!(cost_index(&p, rel, index, 0.9, 1, 0.0, 0).total > seq);
        let off = CostParams { enable_seqscan: false, ..p };
        assert!(
            cost_index(&p, rel, index, 0.9, 1, 0.0, 0).total
                < cost_seqscan(&off, rel, 1, 0.9).total
        );
    }

    #[test]
    fn never_analysed_tables_are_sized_by_density() {
        let size = estimate_rel_size(0, 0, -1.0, 40);
        assert_eq!(size.pages, 10.0);
        assert!(size.tuples > 100.0);
        assert_eq!(estimate_rel_size(100, 50, 5000.0, 40).tuples, 10_000.0);
    }
}
