//! Join order and join methods (PostgreSQL's `path/joinpath.c`,
//! `path/joinrels.c` and `standard_join_search` in `path/allpaths.c`).
//!
//! The inner joins of one FROM list are ordered by dynamic programming over
//! sets of FROM items, as PostgreSQL's standard join search does: the best
//! way to join every set of two items is found first, then every set of
//! three from a set of two and a single item or two smaller sets, and so on
//! up to the whole list. "Best" is the cheapest total cost; for each split
//! of a set into an outer and an inner part three methods are priced:
//!
//! * nested loop, the inner side materialised when that is cheaper than
//!   running it again for each outer row;
//! * hash join, when some condition equates an expression of the outer part
//!   with one of the inner part (the inner part is hashed);
//! * merge join, when such conditions compare plain columns (both sides are
//!   sorted on them first).
//!
//! A set's row count does not depend on how it was joined: it is the
//! product of its items' rows and of the selectivities of the conditions
//! among them, so every split of a set is compared on equal terms. Sets
//! that no condition connects are only formed when nothing else can be
//! (PostgreSQL also postpones clauseless joins). Above [`MAX_DP_ITEMS`] items
//! the search would take too long; the items are then joined in FROM order.
//!
//! Outer joins are not reordered: a LEFT JOIN's two sides are planned on
//! their own, and only its method and which side is outer (or hashed) are
//! chosen here ([`choose_outer_join`]).

use super::costsize::{
    clamp_row_est, cost_hashjoin, cost_material, cost_mergejoin, cost_nestloop, cost_sort,
    rescan_cost, CostParams, Estimate, JoinInput, JoinQuals,
};
use super::count_operators;
use super::estimate::{ColumnStat, Estimator};
use super::plannodes::{JoinKind, Plan};
use crate::error::Result;
use crate::expr::Expr;

/// How much cheaper a path must be to replace one found earlier: for
/// paths alike in all else PostgreSQL's add_path keeps the first unless
/// the new one is cheaper by more than this tiny factor.
const FUZZ: f64 = 1.000_000_000_1;

/// The most FROM items ordered by the exhaustive search.
pub const MAX_DP_ITEMS: usize = 10;

/// One FROM item of an inner-join group.
#[derive(Clone, Copy, Debug)]
pub struct JoinItem {
    /// Its estimate (with its own WHERE conditions applied).
    pub est: Estimate,
    /// Whether it keeps its rows for rescans by itself (a Sort).
    pub materialised: bool,
}

/// One condition among the items of a group.
#[derive(Clone, Debug)]
pub struct JoinClause {
    /// The items it reads (bit i: item i).
    pub items: u64,
    /// For `x = y` with x and y reading disjoint items: (x's items, y's
    /// items, distinct values of x, of y, whether both are plain columns).
    pub equi: Option<Equi>,
    /// Operators it evaluates.
    pub ops: usize,
    /// The fraction of rows it keeps.
    pub selectivity: f64,
}

/// The two sides of an equality usable as a hash or merge key.
#[derive(Clone, Copy, Debug)]
pub struct Equi {
    /// Items the left operand reads.
    pub left: u64,
    /// Items the right operand reads.
    pub right: u64,
    /// Distinct values of the left operand.
    pub left_distinct: f64,
    /// Distinct values of the right operand.
    pub right_distinct: f64,
    /// Both operands are plain columns of the same type (merge-joinable).
    pub mergeable: bool,
    /// The left operand is a column with a unique index of its own.
    pub left_unique: bool,
    /// The right operand is a column with a unique index of its own.
    pub right_unique: bool,
}

/// A join method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Nested loop; `true` puts a Material node over the inner side.
    NestLoop(bool),
    /// Hash join (inner side hashed).
    Hash,
    /// Merge join (both sides sorted on the keys).
    Merge,
}

/// How to join a set of items.
#[derive(Clone, Debug)]
pub enum JoinTree {
    /// One item.
    Item(usize),
    /// Two parts joined.
    Join {
        /// The method.
        method: Method,
        /// The outer part.
        outer: Box<JoinTree>,
        /// The inner part.
        inner: Box<JoinTree>,
        /// Clauses applied by this join (indexes into the clause list).
        clauses: Vec<usize>,
        /// Those of `clauses` that are the hash or merge keys, with whether
        /// the clause's left operand is on the outer side.
        keys: Vec<(usize, bool)>,
    },
}

/// The best path found for a set of items.
#[derive(Clone, Debug)]
struct Best {
    est: Estimate,
    tree: JoinTree,
}

/// search -- the cheapest way to join all `items` under `clauses`.
pub fn search(p: &CostParams, items: &[JoinItem], clauses: &[JoinClause]) -> JoinTree {
    let n = items.len();
    if n > MAX_DP_ITEMS {
        return in_order(p, items, clauses);
    }
    let full = (1u64 << n) - 1;
    let mut best: Vec<Option<Best>> = vec![None; 1 << n];
    for (i, item) in items.iter().enumerate() {
        best[1 << i] = Some(Best { est: item.est, tree: JoinTree::Item(i) });
    }
    for size in 2..=n {
        for set in (1..=full).filter(|s| s.count_ones() as usize == size) {
            let rows = set_rows(items, clauses, set);
            for connected_only in [true, false] {
                best[set as usize] =
                    best_split(p, items, clauses, &best, set, rows, connected_only);
                if best[set as usize].is_some() {
                    break;
                }
            }
        }
    }
    best[full as usize].take().map_or(JoinTree::Item(0), |b| b.tree)
}

/// Items joined in the order given (for groups too large to search).
fn in_order(p: &CostParams, items: &[JoinItem], clauses: &[JoinClause]) -> JoinTree {
    let mut acc = Best { est: items[0].est, tree: JoinTree::Item(0) };
    for i in 1..items.len() {
        let set = (1u64 << (i + 1)) - 1;
        let inner = Best { est: items[i].est, tree: JoinTree::Item(i) };
        let rows = set_rows(items, clauses, set);
        let outer_set = set & !(1 << i);
        acc = cheapest_join(p, items, clauses, (&acc, outer_set), (&inner, 1 << i), rows)
            .expect("a nested loop is always possible");
    }
    acc.tree
}

/// The rows a set of items yields: the product of their rows and of the
/// selectivities of the conditions among them.
fn set_rows(items: &[JoinItem], clauses: &[JoinClause], set: u64) -> f64 {
    let mut rows: f64 =
        (0..items.len()).filter(|i| set & (1 << i) != 0).map(|i| items[i].est.rows).product();
    for c in clauses.iter().filter(|c| c.items.count_ones() > 1 && c.items & !set == 0) {
        rows *= c.selectivity;
    }
    clamp_row_est(rows)
}

/// best_split -- the cheapest join of `set` from two disjoint parts already
/// planned, considering only parts some clause connects if `connected_only`.
fn best_split(
    p: &CostParams,
    items: &[JoinItem],
    clauses: &[JoinClause],
    best: &[Option<Best>],
    set: u64,
    rows: f64,
    connected_only: bool,
) -> Option<Best> {
    let mut winner: Option<Best> = None;
    // Parts in ascending order, so the earlier FROM items are tried as the
    // outer side first, and win ties.
    let mut outer = set.wrapping_neg() & set;
    while outer != set {
        let inner = set & !outer;
        if let (Some(o), Some(i)) = (&best[outer as usize], &best[inner as usize]) {
            let connected = clauses.iter().any(|c| crosses(c.items, outer, inner));
            if connected || !connected_only {
                let candidate = cheapest_join(p, items, clauses, (o, outer), (i, inner), rows);
                if let Some(c) = candidate {
                    if winner.as_ref().is_none_or(|w| c.est.total * FUZZ < w.est.total) {
                        winner = Some(c);
                    }
                }
            }
        }
        outer = outer.wrapping_sub(set) & set;
    }
    winner
}

/// Whether a clause reading `items` joins `outer` with `inner`: it reads
/// both and nothing else.
fn crosses(items: u64, outer: u64, inner: u64) -> bool {
    items & outer != 0 && items & inner != 0 && items & !(outer | inner) == 0
}

/// cheapest_join -- the cheapest method to join `outer` with `inner`.
fn cheapest_join(
    p: &CostParams,
    items: &[JoinItem],
    clauses: &[JoinClause],
    (outer, outer_set): (&Best, u64),
    (inner, inner_set): (&Best, u64),
    rows: f64,
) -> Option<Best> {
    let applied: Vec<usize> =
        (0..clauses.len()).filter(|&c| crosses(clauses[c].items, outer_set, inner_set)).collect();
    let keys: Vec<(usize, bool)> = applied
        .iter()
        .filter_map(|&c| {
            let e = clauses[c].equi?;
            if e.left & !outer_set == 0 && e.right & !inner_set == 0 {
                Some((c, true))
            } else if e.left & !inner_set == 0 && e.right & !outer_set == 0 {
                Some((c, false))
            } else {
                None
            }
        })
        .collect();
    let all_ops: usize = applied.iter().map(|&c| clauses[c].ops).sum();
    let inner_materialised = matches!(inner.tree, JoinTree::Item(i) if items[i].materialised);
    let mut candidates = vec![nestloop(p, outer.est, inner.est, inner_materialised, all_ops, rows)];
    if !keys.is_empty() {
        let key_sel: f64 = keys.iter().map(|&(c, _)| clauses[c].selectivity).product();
        let matches = clamp_row_est(outer.est.rows * inner.est.rows * key_sel);
        let other_ops = all_ops - keys.iter().map(|&(c, _)| clauses[c].ops).sum::<usize>();
        let single_inner = matches!(inner.tree, JoinTree::Item(_));
        let inner_unique = single_inner
            && keys.iter().any(|&(c, left_outer)| {
                let e = clauses[c].equi.expect("key");
                if left_outer {
                    e.right_unique
                } else {
                    e.left_unique
                }
            });
        let q = JoinQuals { keys: keys.len(), other_ops, key_matches: matches, rows, inner_unique };
        let inner_distinct = keys
            .iter()
            .map(|&(c, left_outer)| {
                let e = clauses[c].equi.expect("key");
                if left_outer {
                    e.right_distinct
                } else {
                    e.left_distinct
                }
            })
            .fold(1.0, f64::max);
        let buckets = bucket_rows(inner.est.rows, inner_distinct);
        candidates.push((Method::Hash, cost_hashjoin(p, outer.est, inner.est, q, buckets)));
        if keys.iter().all(|&(c, _)| clauses[c].equi.is_some_and(|e| e.mergeable)) {
            let (o, i) = (cost_sort(p, outer.est, None), cost_sort(p, inner.est, None));
            candidates.push((Method::Merge, cost_mergejoin(p, o, i, q)));
        }
    }
    let (method, est) = candidates.into_iter().min_by(|a, b| a.1.total.total_cmp(&b.1.total))?;
    let keys = if matches!(method, Method::NestLoop(_)) { Vec::new() } else { keys };
    let tree = JoinTree::Join {
        method,
        outer: Box::new(outer.tree.clone()),
        inner: Box::new(inner.tree.clone()),
        clauses: applied,
        keys,
    };
    Some(Best { est, tree })
}

/// A nested loop of `outer` and `inner`, materialising the inner side if
/// that is cheaper (and allowed); the method and its estimate.
fn nestloop(
    p: &CostParams,
    outer: Estimate,
    inner: Estimate,
    inner_materialised: bool,
    ops: usize,
    rows: f64,
) -> (Method, Estimate) {
    let q = JoinQuals {
        keys: 0,
        other_ops: ops,
        key_matches: outer.rows * inner.rows,
        rows,
        inner_unique: false,
    };
    let plain = JoinInput { est: inner, rescan: rescan_cost(p, inner, inner_materialised) };
    let plain_cost = cost_nestloop(p, outer, plain, q);
    if inner_materialised || !p.enable_material {
        return (Method::NestLoop(false), plain_cost);
    }
    let material = cost_material(p, inner);
    let mat = JoinInput { est: material, rescan: rescan_cost(p, material, true) };
    let mat_cost = cost_nestloop(p, outer, mat, q);
    if mat_cost.total < plain_cost.total {
        (Method::NestLoop(true), mat_cost)
    } else {
        (Method::NestLoop(false), plain_cost)
    }
}

/// Rows in the bucket an outer row probes (PostgreSQL's
/// estimate_hash_bucket_size): the inner rows spread over as many buckets
/// as there are distinct keys, at most the table's bucket count (a power of
/// two, at least 1024, about one per row).
pub fn bucket_rows(inner_rows: f64, distinct: f64) -> f64 {
    let buckets = inner_rows.max(1024.0).log2().ceil().exp2();
    inner_rows / distinct.min(inner_rows).min(buckets).max(1.0)
}

/// The sides of a LEFT JOIN and what is known about its conditions.
#[derive(Clone, Copy, Debug)]
pub struct OuterJoin {
    /// The preserved (left) side.
    pub left: Estimate,
    /// The nullable (right) side.
    pub right: Estimate,
    /// Whether the right side keeps its rows for rescans by itself.
    pub right_materialised: bool,
    /// Equality keys: how many, their joint selectivity, the right
    /// operands' and the left operands' largest distinct counts, and
    /// whether all are plain columns.
    pub keys: usize,
    /// Selectivity of the key equalities.
    pub key_selectivity: f64,
    /// Distinct values of the right side's keys.
    pub right_distinct: f64,
    /// Distinct values of the left side's keys.
    pub left_distinct: f64,
    /// All keys compare plain columns.
    pub mergeable: bool,
    /// Some left key is a column with a unique index of its own.
    pub left_unique: bool,
    /// Some right key is a column with a unique index of its own.
    pub right_unique: bool,
    /// Operators in the whole ON condition.
    pub ops: usize,
    /// Operators in the key equalities.
    pub key_ops: usize,
    /// Rows the join returns.
    pub rows: f64,
}

/// How to run a LEFT JOIN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OuterMethod {
    /// Nested loop; `true` materialises the right side.
    NestLoop(bool),
    /// Hash the right side, probe with the left (Hash Left Join).
    HashLeft,
    /// Hash the left side, probe with the right (Hash Right Join).
    HashRight,
    /// Merge join, left side outer (Merge Left Join).
    MergeLeft,
    /// Merge join, right side outer (Merge Right Join).
    MergeRight,
}

/// choose_outer_join -- the cheapest way to run a LEFT JOIN.
pub fn choose_outer_join(p: &CostParams, j: &OuterJoin) -> OuterMethod {
    let (method, nl) = nestloop(p, j.left, j.right, j.right_materialised, j.ops, j.rows);
    let mut best = (OuterMethod::NestLoop(method == Method::NestLoop(true)), nl.total);
    if j.keys > 0 {
        let matches = clamp_row_est(j.left.rows * j.right.rows * j.key_selectivity);
        let q = JoinQuals {
            keys: j.keys,
            other_ops: j.ops - j.key_ops,
            key_matches: matches,
            rows: j.rows,
            inner_unique: false,
        };
        let hash_right = JoinQuals { inner_unique: j.right_unique, ..q };
        let hash_left = JoinQuals { inner_unique: j.left_unique, ..q };
        let left_hash = cost_hashjoin(
            p,
            j.left,
            j.right,
            hash_right,
            bucket_rows(j.right.rows, j.right_distinct),
        );
        let right_hash =
            cost_hashjoin(p, j.right, j.left, hash_left, bucket_rows(j.left.rows, j.left_distinct));
        let mut options = vec![
            (OuterMethod::HashLeft, left_hash.total),
            (OuterMethod::HashRight, right_hash.total),
        ];
        if j.mergeable {
            let (l, r) = (cost_sort(p, j.left, None), cost_sort(p, j.right, None));
            options.push((OuterMethod::MergeLeft, cost_mergejoin(p, l, r, q).total));
            options.push((OuterMethod::MergeRight, cost_mergejoin(p, r, l, q).total));
        }
        for option in options {
            if option.1 < best.1 {
                best = option;
            }
        }
    }
    best.0
}

/// estimate_join -- the estimate of a join node already built (for
/// EXPLAIN), from its inputs' estimates and its conditions, by the same
/// formulas the search used.
pub fn estimate_join(est: &Estimator, plan: &Plan) -> Result<Estimate> {
    let p = est.params();
    match plan {
        Plan::NestLoop { outer, inner, kind, qual, .. } => {
            let (o, i) = (est.estimate(outer)?, est.estimate(inner)?);
            let sel = qual.as_ref().map_or(Ok(1.0), |q| est.qual_selectivity(plan, q))?;
            let rows = join_rows(*kind, o.rows, i.rows, sel);
            let materialised = matches!(**inner, Plan::Material { .. } | Plan::Sort { .. });
            let input = JoinInput { est: i, rescan: rescan_cost(p, i, materialised) };
            let ops = qual.as_ref().map_or(0, count_operators);
            let q = JoinQuals {
                keys: 0,
                other_ops: ops,
                key_matches: o.rows * i.rows,
                rows,
                inner_unique: false,
            };
            Ok(cost_nestloop(p, o, input, q))
        }
        Plan::HashJoin { outer, inner, kind, outer_keys, inner_keys, qual, .. } => {
            let (o, i) = (est.estimate(outer)?, est.estimate(inner)?);
            let mut key_sel = 1.0;
            let mut distinct: f64 = 1.0;
            let mut inner_unique = false;
            for (ok, ik) in outer_keys.iter().zip(inner_keys) {
                let (a, b) = (key_stat(est, outer, ok)?, key_stat(est, inner, ik)?);
                inner_unique |= b.as_ref().is_some_and(|b| b.unique) && single_relation(inner);
                key_sel *= key_selectivity(a.as_ref(), b.as_ref());
                distinct = distinct.max(b.map_or(200.0, |b| b.n_distinct()));
            }
            let keys = (outer_keys.len(), key_sel);
            let q = keyed_join_quals(est, plan, *kind, (o.rows, i.rows), keys, qual.as_ref())?;
            let q = JoinQuals { inner_unique, ..q };
            Ok(cost_hashjoin(p, o, i, q, bucket_rows(i.rows, distinct)))
        }
        Plan::MergeJoin { outer, inner, kind, keys, qual, .. } => {
            let (o, i) = (est.estimate(outer)?, est.estimate(inner)?);
            let mut key_sel = 1.0;
            for &(oc, ic) in keys {
                let (a, b) = (est.column_stat(outer, oc)?, est.column_stat(inner, ic)?);
                key_sel *= key_selectivity(a.as_ref(), b.as_ref());
            }
            let keys = (keys.len(), key_sel);
            let q = keyed_join_quals(est, plan, *kind, (o.rows, i.rows), keys, qual.as_ref())?;
            Ok(cost_mergejoin(p, o, i, q))
        }
        _ => est.estimate(plan),
    }
}

/// keyed_join_quals -- what a hash or merge join of `rows` (outer, inner)
/// checks: `keys.0` equality keys of combined selectivity `keys.1`, then
/// the rest of the condition, `qual`, on each pair whose keys match. The
/// inner side is not assumed unique.
fn keyed_join_quals(
    est: &Estimator,
    plan: &Plan,
    kind: JoinKind,
    (outer, inner): (f64, f64),
    (keys, key_sel): (usize, f64),
    qual: Option<&Expr>,
) -> Result<JoinQuals> {
    let qual_sel = qual.map_or(Ok(1.0), |q| est.qual_selectivity(plan, q))?;
    Ok(JoinQuals {
        keys,
        other_ops: qual.map_or(0, count_operators),
        key_matches: clamp_row_est(outer * inner * key_sel),
        rows: join_rows(kind, outer, inner, key_sel * qual_sel),
        inner_unique: false,
    })
}

/// The selectivity of an equality between two keys (eqjoinsel, or
/// PostgreSQL's default when either side has no statistics).
fn key_selectivity(a: Option<&ColumnStat>, b: Option<&ColumnStat>) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) => super::costsize::eqjoinsel(
            a.n_distinct(),
            a.info().null_frac(),
            b.n_distinct(),
            b.info().null_frac(),
        ),
        _ => super::selfuncs::DEFAULT_EQ_SEL,
    }
}

/// Whether `plan` reads one table (through filters and projections), so a
/// unique column of it is unique in its output.
fn single_relation(plan: &Plan) -> bool {
    match plan {
        Plan::SeqScan { .. } | Plan::IndexScan { .. } => true,
        Plan::Filter { input, .. } | Plan::Project { input, .. } | Plan::Material { input } => {
            single_relation(input)
        }
        _ => false,
    }
}

/// What is known about a hash key (a plain column of `side`).
fn key_stat(est: &Estimator, side: &Plan, key: &Expr) -> Result<Option<ColumnStat>> {
    match key {
        Expr::Column { index, .. } => est.column_stat(side, *index),
        Expr::Cast { arg, .. } => key_stat(est, side, arg),
        _ => Ok(None),
    }
}

/// join_rows -- rows of a join of `outer` and `inner` rows whose conditions
/// keep `selectivity` of the pairs; an outer join keeps at least every row
/// of its preserved side (PostgreSQL's calc_joinrel_size_estimate).
pub fn join_rows(kind: JoinKind, outer: f64, inner: f64, selectivity: f64) -> f64 {
    let rows = outer * inner * selectivity;
    clamp_row_est(match kind {
        JoinKind::Inner => rows,
        JoinKind::Left => rows.max(outer),
        JoinKind::Right => rows.max(inner),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> CostParams {
        CostParams::postgres_defaults()
    }

    fn scan(pages: f64, rows: f64, width: f64) -> JoinItem {
        let total = pages + 0.01 * rows;
        JoinItem { est: Estimate { startup: 0.0, total, rows, width }, materialised: false }
    }

    /// `x = y` between items `a` and `b`, each side with `nd` distinct values.
    fn equality(a: usize, b: usize, nd: f64) -> JoinClause {
        JoinClause {
            items: (1 << a) | (1 << b),
            equi: Some(Equi {
                left: 1 << a,
                right: 1 << b,
                left_distinct: nd,
                right_distinct: nd,
                mergeable: true,
                left_unique: false,
                right_unique: false,
            }),
            ops: 1,
            selectivity: 1.0 / nd,
        }
    }

    #[test]
    fn hash_join_costs_match_postgres() {
        // PostgreSQL 15: Hash Join (cost=3.25..6.62 rows=100 width=16) of
        // two one-page 100-row tables on a column with 100 distinct values.
        let side = scan(1.0, 100.0, 8.0).est;
        let q = JoinQuals {
            keys: 1,
            other_ops: 0,
            key_matches: 100.0,
            rows: 100.0,
            inner_unique: false,
        };
        let est = cost_hashjoin(&params(), side, side, q, bucket_rows(100.0, 100.0));
        // As EXPLAIN prints them (6.625 rounds to even, as printf does).
        assert_eq!(format!("{:.2}..{:.2}", est.startup, est.total), "3.25..6.62");
    }

    #[test]
    fn the_smaller_side_is_hashed_and_disabled_methods_lose() {
        let items = [scan(30.0, 5000.0, 12.0), scan(6.0, 1000.0, 12.0)];
        let clauses = [equality(0, 1, 1000.0)];
        let JoinTree::Join { method, inner, .. } = search(&params(), &items, &clauses) else {
            panic!("a join")
        };
        assert_eq!(method, Method::Hash);
        assert!(matches!(*inner, JoinTree::Item(1)));
        let no_hash = CostParams { enable_hashjoin: false, ..params() };
        let JoinTree::Join { method, .. } = search(&no_hash, &items, &clauses) else {
            panic!("a join")
        };
        assert_eq!(method, Method::Merge);
    }

    #[test]
    fn joins_follow_the_conditions_not_the_from_order() {
        // a - c - b: a and b share no condition, so c joins first with one
        // of them rather than a with b as a cross product.
        let items = [scan(10.0, 1000.0, 8.0), scan(10.0, 1000.0, 8.0), scan(1.0, 10.0, 8.0)];
        let clauses = [equality(0, 2, 10.0), equality(1, 2, 10.0)];
        let JoinTree::Join { outer, inner, .. } = search(&params(), &items, &clauses) else {
            panic!("a join")
        };
        let pair = |t: &JoinTree| match t {
            JoinTree::Join { outer, inner, .. } => Some((outer.clone(), inner.clone())),
            JoinTree::Item(_) => None,
        };
        let (lower_outer, lower_inner) =
            pair(&outer).or_else(|| pair(&inner)).expect("a nested join");
        let items_of = |t: &JoinTree| match t {
            JoinTree::Item(i) => *i,
            _ => usize::MAX,
        };
        let lower = [items_of(&lower_outer), items_of(&lower_inner)];
        assert!(lower.contains(&2), "the small table joins first: {lower:?}");
    }
}
