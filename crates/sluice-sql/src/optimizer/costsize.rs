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
    /// `enable_indexonlyscan`.
    pub enable_indexonlyscan: bool,
    /// `enable_bitmapscan`.
    pub enable_bitmapscan: bool,
    /// `enable_nestloop`.
    pub enable_nestloop: bool,
    /// `enable_hashjoin`.
    pub enable_hashjoin: bool,
    /// `enable_mergejoin`.
    pub enable_mergejoin: bool,
    /// `enable_hashagg`.
    pub enable_hashagg: bool,
    /// `enable_sort`.
    pub enable_sort: bool,
    /// `enable_material`.
    pub enable_material: bool,
    /// `work_mem` × `hash_mem_multiplier`, in bytes: what a hash table may
    /// use before PostgreSQL would split it into batches.
    pub hash_mem: f64,
    /// `work_mem`, in bytes.
    pub work_mem: f64,
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
            enable_indexonlyscan: s.get_bool("enable_indexonlyscan"),
            enable_bitmapscan: s.get_bool("enable_bitmapscan"),
            enable_nestloop: s.get_bool("enable_nestloop"),
            enable_hashjoin: s.get_bool("enable_hashjoin"),
            enable_mergejoin: s.get_bool("enable_mergejoin"),
            enable_hashagg: s.get_bool("enable_hashagg"),
            enable_sort: s.get_bool("enable_sort"),
            enable_material: s.get_bool("enable_material"),
            hash_mem: f64::from(s.get_int("work_mem")) * 1024.0 * s.get_real("hash_mem_multiplier"),
            work_mem: f64::from(s.get_int("work_mem")) * 1024.0,
        }
    }
}

#[cfg(test)]
impl CostParams {
    /// PostgreSQL 15's default settings (for tests).
    pub(crate) fn postgres_defaults() -> CostParams {
        CostParams {
            seq_page_cost: 1.0,
            random_page_cost: 4.0,
            cpu_tuple_cost: 0.01,
            cpu_index_tuple_cost: 0.005,
            cpu_operator_cost: 0.0025,
            effective_cache_size: 524288.0,
            enable_seqscan: true,
            enable_indexscan: true,
            enable_indexonlyscan: true,
            enable_bitmapscan: true,
            enable_nestloop: true,
            enable_hashjoin: true,
            enable_mergejoin: true,
            enable_hashagg: true,
            enable_sort: true,
            enable_material: true,
            hash_mem: 8.0 * 1024.0 * 1024.0,
            work_mem: 4.0 * 1024.0 * 1024.0,
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

/// What walking an index costs, without visiting the heap (PostgreSQL's
/// genericcostestimate and btcostestimate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexAccess {
    /// Descending the tree.
    pub startup: f64,
    /// Descending and reading the entries in range.
    pub total: f64,
    /// The fraction of the table's rows the index conditions keep.
    pub selectivity: f64,
    /// Entries read.
    pub tuples: f64,
    /// Pages of the index (what caching estimates weigh it by).
    pub index_pages: f64,
}

/// cost_index_access -- reading `selectivity` of `index`'s entries, judging
/// each with `index_quals` conditions: the leaf pages in range at random
/// page cost, a CPU charge per entry, and the descent (a comparison per
/// level of a binary search over all entries, and 50 operator costs per
/// page on the way down, which is usually cached).
pub fn cost_index_access(
    p: &CostParams,
    index: IndexSize,
    selectivity: f64,
    index_quals: usize,
) -> IndexAccess {
    let tuples = (selectivity * index.tuples).round().max(1.0);
    let pages_read = (tuples * index.pages / index.tuples.max(1.0)).ceil().max(1.0);
    let qual_op_cost = p.cpu_operator_cost * index_quals as f64;
    let descent = (index.tuples.max(2.0)).log2().ceil() * p.cpu_operator_cost
        + f64::from(index.height + 1) * 50.0 * p.cpu_operator_cost;
    let total = pages_read * p.random_page_cost
        + tuples * (p.cpu_index_tuple_cost + qual_op_cost)
        + descent;
    IndexAccess { startup: descent, total, selectivity, tuples, index_pages: index.pages }
}

/// cost_index -- an index scan through `access`, fetching the heap rows of
/// a table whose physical order matches the index's to `correlation`
/// (PostgreSQL's cost_index). An index-only scan fetches only the pages
/// that are not all-visible, `1 - all_visible` of them.
pub fn cost_index(
    p: &CostParams,
    rel: RelSize,
    access: IndexAccess,
    correlation: f64,
    filter_ops: usize,
    index_only_visible: Option<f64>,
) -> PathCost {
    let heap_share = index_only_visible.map_or(1.0, |v| 1.0 - v.clamp(0.0, 1.0));
    let tuples_fetched = clamp_row_est(access.selectivity * rel.tuples);
    let scattered = index_pages_fetched(p, tuples_fetched, rel.pages, access.index_pages);
    let max_io = (scattered * heap_share).ceil() * p.random_page_cost;
    let pages_sorted = ((access.selectivity * rel.pages).ceil() * heap_share).ceil();
    let min_io = if pages_sorted > 0.0 {
        p.random_page_cost + (pages_sorted - 1.0) * p.seq_page_cost
    } else {
        0.0
    };
    let csquared = correlation * correlation;
    let io = max_io + csquared * (min_io - max_io);
    let cpu = tuples_fetched * (p.cpu_tuple_cost + p.cpu_operator_cost * filter_ops as f64);
    let mut startup = access.startup;
    let mut total = access.total + io + cpu;
    if !p.enable_indexscan {
        startup += DISABLE_COST;
        total += DISABLE_COST;
    }
    PathCost { startup, total, rows: tuples_fetched }
}

/// cost_bitmap_heap_scan -- a bitmap scan through `access` (PostgreSQL's
/// cost_bitmap_heap_scan): the whole index walk and building the bitmap
/// before the first row, then each heap page that holds a match once, at a
/// cost between a random and a sequential read depending on how much of the
/// table that is (a single page is a random read), and every fetched row
/// judged by `filter_ops` operators.
pub fn cost_bitmap_heap_scan(
    p: &CostParams,
    rel: RelSize,
    access: IndexAccess,
    filter_ops: usize,
) -> PathCost {
    let t = rel.pages.max(1.0);
    let tuples_fetched = clamp_row_est(access.selectivity * rel.tuples);
    let pages_fetched =
        index_pages_fetched(p, tuples_fetched, rel.pages, access.index_pages).min(t);
    let cost_per_page = if pages_fetched >= 2.0 {
        p.random_page_cost - (p.random_page_cost - p.seq_page_cost) * (pages_fetched / t).sqrt()
    } else {
        p.random_page_cost
    };
    let mut startup = bitmap_index_cost(p, access, rel);
    let cpu = tuples_fetched * (p.cpu_tuple_cost + p.cpu_operator_cost * filter_ops as f64);
    let mut total = startup + pages_fetched * cost_per_page + cpu;
    if !p.enable_bitmapscan {
        startup += DISABLE_COST;
        total += DISABLE_COST;
    }
    PathCost { startup, total, rows: tuples_fetched }
}

/// What building the bitmap costs: the index walk, plus a tenth of an
/// operator per row for the bitmap (PostgreSQL's cost_bitmap_tree_node).
pub fn bitmap_index_cost(p: &CostParams, access: IndexAccess, rel: RelSize) -> f64 {
    access.total + 0.1 * p.cpu_operator_cost * clamp_row_est(access.selectivity * rel.tuples)
}

/// A plan node's estimate as EXPLAIN prints it: startup and total cost,
/// rows and average row width in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Cost before the first row.
    pub startup: f64,
    /// Cost of all rows.
    pub total: f64,
    /// Rows returned.
    pub rows: f64,
    /// Average row width.
    pub width: f64,
}

impl Estimate {
    /// The cost after the first row.
    pub fn run(&self) -> f64 {
        self.total - self.startup
    }
}

/// Pages `rows` rows of `width` bytes fill (PostgreSQL's relation_byte_size
/// over BLCKSZ), for pricing what spills to disk.
fn pages_of(rows: f64, width: f64) -> f64 {
    (rows * (width.max(0.0) + 24.0) / BLCKSZ as f64).ceil()
}

/// cost_sort -- sorting `input` (PostgreSQL's cost_sort): two comparisons
/// per row per level of the merge, a bounded heap when only the first
/// `bound` rows are wanted, and writing and reading the rows once when they
/// exceed work_mem.
pub fn cost_sort(p: &CostParams, input: Estimate, bound: Option<f64>) -> Estimate {
    let rows = input.rows.max(2.0);
    let comparison = 2.0 * p.cpu_operator_cost;
    let mut startup = input.total;
    let bytes = rows * (input.width + 24.0);
    match bound {
        Some(b) if b < rows / 2.0 && bytes * b / rows <= p.work_mem => {
            startup += comparison * rows * (2.0 * b).max(2.0).log2();
        }
        _ if bytes > p.work_mem => {
            let pages = pages_of(rows, input.width);
            let merge_order = (p.work_mem / (BLCKSZ as f64 * 4.0)).max(6.0);
            let runs = (bytes / p.work_mem).max(1.0);
            let passes = (runs.ln() / merge_order.ln()).ceil().max(1.0);
            startup += comparison * rows * rows.log2();
            startup += 2.0 * pages * passes * (0.75 * p.seq_page_cost + 0.25 * p.random_page_cost);
        }
        _ => startup += comparison * rows * rows.log2(),
    }
    if !p.enable_sort {
        startup += DISABLE_COST;
    }
    let total = startup + p.cpu_operator_cost * input.rows;
    Estimate { startup, total, rows: input.rows, width: input.width }
}

/// cost_material -- keeping `input`'s rows for rescans (PostgreSQL's
/// cost_material: two operator costs per row to store and fetch).
pub fn cost_material(p: &CostParams, input: Estimate) -> Estimate {
    let mut total = input.total + 2.0 * p.cpu_operator_cost * input.rows;
    if input.rows * (input.width + 24.0) > p.work_mem {
        total += p.seq_page_cost * pages_of(input.rows, input.width);
    }
    Estimate { total, ..input }
}

/// What running a path again costs: a materialised one (Material, Sort)
/// only hands its rows out again; anything else is run in full.
pub fn rescan_cost(p: &CostParams, input: Estimate, materialised: bool) -> f64 {
    if materialised {
        p.cpu_operator_cost * input.rows
    } else {
        input.total
    }
}

/// One side of a join, as its cost function sees it.
#[derive(Clone, Copy, Debug)]
pub struct JoinInput {
    /// The side's estimate.
    pub est: Estimate,
    /// What a second and later run of it costs.
    pub rescan: f64,
}

/// What a join's conditions do, as the cost functions see them.
#[derive(Clone, Copy, Debug)]
pub struct JoinQuals {
    /// Equality conditions the method itself applies (hash/merge keys).
    pub keys: usize,
    /// Operators in the remaining join condition, checked on every pair
    /// that gets that far.
    pub other_ops: usize,
    /// Pairs whose keys are equal (or, for a nested loop, all pairs).
    pub key_matches: f64,
    /// Rows the join returns.
    pub rows: f64,
    /// Whether each outer row matches at most one inner row (a unique
    /// index covers the inner side's key).
    pub inner_unique: bool,
}

/// cost_nestloop -- every outer row runs the inner side (PostgreSQL's
/// initial and final_cost_nestloop): the first run in full, the later ones
/// at their rescan cost, and the join condition on every pair.
pub fn cost_nestloop(p: &CostParams, outer: Estimate, inner: JoinInput, q: JoinQuals) -> Estimate {
    let mut startup = outer.startup + inner.est.startup;
    let pairs = outer.rows * inner.est.rows;
    let run = outer.run()
        + inner.est.run()
        + (outer.rows - 1.0).max(0.0) * inner.rescan
        + (p.cpu_tuple_cost + p.cpu_operator_cost * (q.keys + q.other_ops) as f64) * pairs;
    if !p.enable_nestloop {
        startup += DISABLE_COST;
    }
    Estimate { startup, total: startup + run, rows: q.rows, width: outer.width + inner.est.width }
}

/// cost_hashjoin -- building a hash table of the inner side and probing it
/// once per outer row (PostgreSQL's initial and final_cost_hashjoin):
/// hashing every inner row is startup cost; each probe hashes the outer keys
/// and compares with the rows of its bucket (half of them on average,
/// `bucket_rows` per bucket); pairs with equal keys pay the rest of the
/// condition and the output row. Batches are written out and read back when
/// the inner rows do not fit in hash_mem.
pub fn cost_hashjoin(
    p: &CostParams,
    outer: Estimate,
    inner: Estimate,
    q: JoinQuals,
    bucket_rows: f64,
) -> Estimate {
    let keys = q.keys as f64;
    let mut startup =
        outer.startup + inner.total + (p.cpu_operator_cost * keys + p.cpu_tuple_cost) * inner.rows;
    let mut run = outer.run() + p.cpu_operator_cost * keys * outer.rows;
    if inner.rows * (inner.width + 24.0) > p.hash_mem {
        let inner_pages = pages_of(inner.rows, inner.width);
        let outer_pages = pages_of(outer.rows, outer.width);
        startup += p.seq_page_cost * inner_pages;
        run += p.seq_page_cost * (inner_pages + 2.0 * outer_pages);
    }
    let matched = if q.inner_unique {
        // PostgreSQL prices a unique inner side like a semi join, with the
        // fraction of outer rows that match taken as the join selectivity
        // (compute_semi_anti_join_factors under JOIN_INNER rules): those
        // stop at their one match, the others scan a twentieth of a bucket.
        let selectivity = q.key_matches / (outer.rows * inner.rows).max(1.0);
        let matched = (outer.rows * selectivity).round();
        let per_bucket = inner.rows / inner.rows.max(1024.0).log2().ceil().exp2();
        run += p.cpu_operator_cost * keys * matched * 0.5;
        run +=
            p.cpu_operator_cost * keys * (outer.rows - matched) * clamp_row_est(per_bucket) * 0.05;
        matched
    } else {
        run += p.cpu_operator_cost * keys * outer.rows * clamp_row_est(bucket_rows) * 0.5;
        q.key_matches
    };
    run += (p.cpu_tuple_cost + p.cpu_operator_cost * q.other_ops as f64) * matched;
    if !p.enable_hashjoin {
        startup += DISABLE_COST;
    }
    Estimate { startup, total: startup + run, rows: q.rows, width: outer.width + inner.width }
}

/// cost_mergejoin -- walking two sorted inputs in step (PostgreSQL's
/// initial and final_cost_mergejoin): a key comparison per row read on
/// either side, inner rows read again for each further outer row with the
/// same key (from the group kept in memory), the rest of the condition and
/// the output row for every pair with equal keys.
pub fn cost_mergejoin(p: &CostParams, outer: Estimate, inner: Estimate, q: JoinQuals) -> Estimate {
    let keys = q.keys as f64;
    let mut startup = outer.startup + inner.startup;
    let rescanned = (q.key_matches - inner.rows).max(0.0);
    let run = outer.run()
        + inner.run()
        + p.cpu_operator_cost * keys * (outer.rows + inner.rows)
        + p.cpu_operator_cost * rescanned
        + (p.cpu_tuple_cost + p.cpu_operator_cost * q.other_ops as f64) * q.key_matches;
    if !p.enable_mergejoin {
        startup += DISABLE_COST;
    }
    Estimate { startup, total: startup + run, rows: q.rows, width: outer.width + inner.width }
}

/// How an aggregation groups its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggStrategy {
    /// No GROUP BY: one group.
    Plain,
    /// Input sorted by the keys (GroupAggregate).
    Sorted,
    /// A hash table of groups (HashAggregate).
    Hashed,
}

/// cost_agg -- aggregating `input` into `groups` groups by `keys` keys with
/// `aggs` aggregates (PostgreSQL's cost_agg): each input row pays an
/// operator per key and per aggregate transition, each group an output row.
/// Sorted input streams, so only a plain or hashed aggregation has to read
/// everything before its first row; a hash table larger than hash_mem
/// spills (written and read back once).
pub fn cost_agg(
    p: &CostParams,
    strategy: AggStrategy,
    input: Estimate,
    keys: usize,
    aggs: usize,
    groups: f64,
    width: f64,
) -> Estimate {
    let per_row = p.cpu_operator_cost * input.rows;
    let (mut startup, mut total) = match strategy {
        AggStrategy::Plain => {
            let startup = input.total + per_row * aggs as f64;
            (startup, startup + p.cpu_tuple_cost)
        }
        AggStrategy::Sorted => (
            input.startup,
            input.total + per_row * (keys + aggs) as f64 + p.cpu_tuple_cost * groups,
        ),
        AggStrategy::Hashed => {
            let startup = input.total + per_row * (keys + aggs) as f64;
            let mut total = startup + p.cpu_tuple_cost * groups;
            if groups * (width + 48.0) > p.hash_mem {
                let pages = pages_of(input.rows, input.width);
                total += 2.0 * p.seq_page_cost * pages;
            }
            (startup, total)
        }
    };
    if strategy == AggStrategy::Hashed && !p.enable_hashagg {
        startup += DISABLE_COST;
        total += DISABLE_COST;
    }
    Estimate { startup, total, rows: groups, width }
}

/// eqjoinsel -- the fraction of pairs whose two columns are equal
/// (PostgreSQL's eqjoinsel_inner without the MCV matching): the non-NULL
/// fractions of both sides over the larger distinct-value count, since each
/// value of the side with fewer distinct values is assumed to find its
/// match among the other side's.
pub fn eqjoinsel(nd1: f64, null_frac1: f64, nd2: f64, null_frac2: f64) -> f64 {
    ((1.0 - null_frac1) * (1.0 - null_frac2) / nd1.max(nd2).max(1.0)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> CostParams {
        CostParams::postgres_defaults()
    }

    #[test]
    fn seqscan_costs_match_postgres() {
        // PostgreSQL: Seq Scan on t (cost=0.00..1443.00 rows=100000) for 443
        // pages and 100000 rows; with one qual 1693.00.
        let rel = RelSize { pages: 443.0, tuples: 100_000.0 };
        assert_eq!(cost_seqscan(&params(), rel, 0, 1.0).total, 1443.0);
        assert_eq!(cost_seqscan(&params(), rel, 1, 0.5).total, 1693.0);
    }

    /// bt(id int, v int, pad text): 100000 rows on 541 pages, indexes of
    /// 276 pages on id (correlation 1) and on v (correlation ~0).
    fn bt() -> (RelSize, IndexSize) {
        let rel = RelSize { pages: 541.0, tuples: 100_000.0 };
        (rel, IndexSize { pages: 276.0, tuples: 100_000.0, height: 1 })
    }

    fn round2(x: f64) -> f64 {
        (x * 100.0).round() / 100.0
    }

    #[test]
    fn bitmap_scan_costs_match_postgres() {
        // PostgreSQL 15, `WHERE v < 3000`: Bitmap Heap Scan (cost=58.89..636.34
        // rows=2916) over Bitmap Index Scan on bt_v (cost=0.00..58.16).
        let p = params();
        let (rel, index) = bt();
        let access = cost_index_access(&p, index, 0.02916, 1);
        assert_eq!(round2(access.total), 58.16);
        let heap = cost_bitmap_heap_scan(&p, rel, access, 1);
        assert_eq!((round2(heap.startup), round2(heap.total)), (58.89, 636.34));
        assert_eq!(heap.rows, 2916.0);
    }

    #[test]
    fn index_only_scan_costs_match_postgres() {
        // PostgreSQL 15 on the all-visible table: `count(*)` with seqscan off
        // is an Index Only Scan using bt_id (cost=0.29..2604.29), and
        // `WHERE v < 30000` one using bt_v (cost=0.29..858.43).
        let p = params();
        let (rel, index) = bt();
        let whole = cost_index(&p, rel, cost_index_access(&p, index, 1.0, 0), 1.0, 0, Some(1.0));
        assert_eq!((round2(whole.startup), round2(whole.total)), (0.29, 2604.29));
        let range = cost_index_access(&p, index, 0.30065, 1);
        let part = cost_index(&p, rel, range, 0.0, 0, Some(1.0));
        assert_eq!(round2(part.total), 858.43);
    }

    #[test]
    fn a_selective_index_scan_beats_the_seqscan_and_a_wide_one_does_not() {
        let p = params();
        let (rel, index) = bt();
        let seq = cost_seqscan(&p, rel, 1, 1e-5).total;
        let narrow = cost_index_access(&p, index, 1e-5, 1);
        let wide = cost_index_access(&p, index, 0.9, 1);
        assert!(cost_index(&p, rel, narrow, 1.0, 0, None).total < seq);
        assert!(cost_index(&p, rel, wide, 0.0, 0, None).total > seq);
        let off = CostParams { enable_seqscan: false, ..p };
        assert!(
            cost_index(&p, rel, wide, 0.0, 0, None).total < cost_seqscan(&off, rel, 1, 0.9).total
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
