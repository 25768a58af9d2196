//! Planning the joins of a FROM list (PostgreSQL's `deconstruct_jointree`
//! and `distribute_qual_to_rels`, then `make_one_rel`'s join search).
//!
//! The FROM list arrives as the nested loops `plan_from` built in writing
//! order, with the WHERE clause still unplaced. This module takes that tree
//! apart and builds the plan the optimizer prices cheapest:
//!
//! * a run of inner joins (commas, `JOIN ... ON`) becomes one group of
//!   items; each WHERE or ON condition goes to the lowest place that has
//!   all the columns it reads — a condition on one item filters that
//!   item's scan (and may choose an index for it), a condition on several
//!   becomes a join condition of the join that first brings them together;
//! * the group's join order and methods come from `optimizer::joinpath`;
//! * a LEFT JOIN keeps its sides; its own ON conditions on the nullable
//!   side filter that side, WHERE conditions on the preserved side filter
//!   that side, and the rest stay where they were.
//!
//! **The row layout never changes.** Expressions above the FROM list index
//! the columns in writing order, so a reordered group ends in a projection
//! that puts them back (EXPLAIN does not show it: PostgreSQL's joins project
//! as they go). Conditions moved elsewhere are rewritten to the column
//! positions of their new place.
//!
//! Conditions containing a subquery stay in a Filter above the joins: the
//! subquery's parameters index the row it was written against. LATERAL
//! items and joins whose ON clause holds a subquery are left as they are.

use super::planner::Planner;
use super::with_scan_context;
use crate::error::Result;
use crate::expr::{BoolOp, Builtin, Comparison, Expr};
use crate::optimizer::choose_scan;
use crate::optimizer::count_operators;
use crate::optimizer::estimate::{ColumnStat, Estimator};
use crate::optimizer::indxpath::conjuncts;
use crate::optimizer::joinpath::{
    choose_outer_join, join_rows, search, Equi, JoinClause, JoinItem, JoinTree, Method, OuterJoin,
    OuterMethod,
};
use crate::optimizer::plannodes::{JoinKind, Plan, SortKey};
use sluice_types::ops::CmpOp;
use sluice_types::SqlType;

/// A column's type and typmod, for the projections that restore the layout.
pub(super) type ColumnType = (SqlType, i32);

/// plan_joins -- the plan for the FROM list `plan` (nested loops in
/// writing order) filtered by `qual`, with joins ordered and their methods
/// chosen; `types` are the types of its columns.
pub(super) fn plan_joins(
    pl: &mut Planner,
    plan: Plan,
    qual: Option<Expr>,
    types: &[ColumnType],
) -> Result<Plan> {
    let (movable, fixed): (Vec<Expr>, Vec<Expr>) = qual
        .map(|q| conjuncts(&q).into_iter().cloned().collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .partition(|c| !contains_sublink(c));
    let plan = with_scan_context(pl, |sc| {
        let est = Estimator::new(sc, &[]);
        JoinPlanner { est: &est }.plan(plan, movable, types)
    })?;
    Ok(filtered(plan, fixed))
}

/// The planning of one FROM list.
struct JoinPlanner<'a, 'e> {
    est: &'a Estimator<'e>,
}

/// An item of an inner-join group: its plan and where its columns start in
/// the group's row.
struct Item {
    plan: Option<Plan>,
    offset: usize,
    width: usize,
}

impl JoinPlanner<'_, '_> {
    /// plan -- `plan` with the conditions `quals` (over its row) applied,
    /// its joins planned; the row layout is unchanged.
    fn plan(&self, plan: Plan, quals: Vec<Expr>, types: &[ColumnType]) -> Result<Plan> {
        match plan {
            Plan::NestLoop { kind: JoinKind::Inner, ref params, ref qual, .. }
                if params.is_empty() && !qual.as_ref().is_some_and(contains_sublink) =>
            {
                self.inner_group(plan, quals, types)
            }
            Plan::NestLoop { kind: JoinKind::Left, ref params, ref qual, .. }
                if params.is_empty() && !qual.as_ref().is_some_and(contains_sublink) =>
            {
                self.left_join(plan, quals, types)
            }
            Plan::SeqScan { rel, needed, alias, ctid } if !quals.is_empty() => {
                let qual = and(quals.clone());
                let sc = self.est.sc;
                let scan = match choose_scan(sc, &rel, &self.est.indexes(&rel)?, Some(&qual), None)?
                {
                    Some(path) => Plan::IndexScan { rel, path: Box::new(path), alias, ctid },
                    None => Plan::SeqScan { rel, needed, alias, ctid },
                };
                Ok(filtered(scan, quals))
            }
            other => Ok(filtered(other, quals)),
        }
    }

    /// inner_group -- a run of inner joins: its items, their conditions,
    /// the order and methods the optimizer picks.
    fn inner_group(&self, plan: Plan, quals: Vec<Expr>, types: &[ColumnType]) -> Result<Plan> {
        let mut items = Vec::new();
        let mut all_quals = quals;
        flatten(plan, 0, types.len(), &mut items, &mut all_quals);
        let mut item_quals: Vec<Vec<Expr>> = vec![Vec::new(); items.len()];
        let mut clauses: Vec<(Expr, u64)> = Vec::new();
        let mut top = Vec::new();
        for q in all_quals {
            let set = items_read(&q, &items);
            match set.count_ones() {
                0 => top.push(q),
                1 => {
                    let i = set.trailing_zeros() as usize;
                    let offset = items[i].offset;
                    item_quals[i].push(remap(&q, &|c| c - offset));
                }
                _ => clauses.push((q, set)),
            }
        }
        for (item, quals) in items.iter_mut().zip(item_quals) {
            let plan = item.plan.take().expect("unplanned");
            let types = &types[item.offset..item.offset + item.width];
            item.plan = Some(self.plan(plan, quals, types)?);
        }
        let estimates: Vec<JoinItem> = items
            .iter()
            .map(|i| {
                let plan = i.plan.as_ref().expect("planned");
                Ok(JoinItem { est: self.est.estimate(plan)?, materialised: materialises(plan) })
            })
            .collect::<Result<_>>()?;
        let described = clauses
            .iter()
            .map(|(q, set)| self.describe(q, *set, &items))
            .collect::<Result<Vec<_>>>()?;
        let tree = search(self.est.params(), &estimates, &described);
        let clause_exprs: Vec<Expr> = clauses.into_iter().map(|(q, _)| q).collect();
        let (plan, layout) = build(&tree, &mut items, &clause_exprs);
        Ok(filtered(restore_layout(plan, &layout, types), top))
    }

    /// describe -- what the join search needs to know of a condition
    /// reading the items `set`.
    fn describe(&self, clause: &Expr, set: u64, items: &[Item]) -> Result<JoinClause> {
        let lookup = |c: usize| self.stat_of(c, items);
        let selectivity = self.est.clause_selectivity(clause, &lookup)?;
        let equi = match equality(clause) {
            Some((l, r)) => {
                let (ls, rs) = (items_read(l, items), items_read(r, items));
                let stat = |e: &Expr| match e {
                    Expr::Column { index, .. } => lookup(*index),
                    _ => Ok(None),
                };
                let distinct =
                    |s: &Option<ColumnStat>| s.as_ref().map_or(200.0, |s| s.n_distinct());
                let unique = |s: &Option<ColumnStat>| s.as_ref().is_some_and(|s| s.unique);
                (ls != 0 && rs != 0 && ls & rs == 0).then_some(()).map(|_| -> Result<Equi> {
                    let (a, b) = (stat(l)?, stat(r)?);
                    Ok(Equi {
                        left: ls,
                        right: rs,
                        left_distinct: distinct(&a),
                        right_distinct: distinct(&b),
                        mergeable: mergeable(l, r),
                        left_unique: unique(&a),
                        right_unique: unique(&b),
                    })
                })
            }
            None => None,
        }
        .transpose()?;
        Ok(JoinClause { items: set, equi, ops: count_operators(clause), selectivity })
    }

    /// What is known about column `c` of the group's row.
    fn stat_of(&self, c: usize, items: &[Item]) -> Result<Option<ColumnStat>> {
        let Some(item) = items.iter().find(|i| (i.offset..i.offset + i.width).contains(&c)) else {
            return Ok(None);
        };
        self.est.column_stat(item.plan.as_ref().expect("planned"), c - item.offset)
    }

    /// left_join -- a LEFT JOIN: each side planned with the conditions that
    /// may move into it, then the join method the optimizer picks.
    fn left_join(&self, plan: Plan, quals: Vec<Expr>, types: &[ColumnType]) -> Result<Plan> {
        let Plan::NestLoop { outer, inner, qual, inner_width, .. } = plan else {
            unreachable!("checked by the caller")
        };
        let outer_width = types.len() - inner_width;
        let on_left = |e: &Expr| e.columns_read().iter().all(|&c| c < outer_width);
        let on_right = |e: &Expr| {
            let cols = e.columns_read();
            !cols.is_empty() && cols.iter().all(|&c| c >= outer_width)
        };
        let (left_quals, above): (Vec<Expr>, Vec<Expr>) =
            quals.into_iter().partition(|q| on_left(q) && !q.columns_read().is_empty());
        let on: Vec<Expr> =
            qual.map(|q| conjuncts(&q).into_iter().cloned().collect()).unwrap_or_default();
        let (right_quals, join_quals): (Vec<Expr>, Vec<Expr>) = on.into_iter().partition(on_right);
        let right_quals = right_quals.iter().map(|q| remap(q, &|c| c - outer_width)).collect();
        let left = self.plan(*outer, left_quals, &types[..outer_width])?;
        let right = self.plan(*inner, right_quals, &types[outer_width..])?;
        let joined = self.outer_join(left, right, join_quals, outer_width, types)?;
        Ok(filtered(joined, above))
    }

    /// outer_join -- joins the planned sides of a LEFT JOIN on `quals`
    /// (over the joined row) by the cheapest method.
    fn outer_join(
        &self,
        left: Plan,
        right: Plan,
        quals: Vec<Expr>,
        outer_width: usize,
        types: &[ColumnType],
    ) -> Result<Plan> {
        let inner_width = types.len() - outer_width;
        let (l, r) = (self.est.estimate(&left)?, self.est.estimate(&right)?);
        let sides = [(&left, 0, outer_width), (&right, outer_width, inner_width)];
        let lookup = |c: usize| -> Result<Option<ColumnStat>> {
            let (plan, offset, _) =
                sides.iter().find(|(_, o, w)| (*o..o + w).contains(&c)).expect("column");
            self.est.column_stat(plan, c - offset)
        };
        let mut keys: Vec<(Expr, Expr)> = Vec::new();
        let mut others = Vec::new();
        let (mut key_sel, mut sel, mut key_ops) = (1.0, 1.0, 0);
        let (mut left_distinct, mut right_distinct): (f64, f64) = (1.0, 1.0);
        let (mut left_unique, mut right_unique) = (false, false);
        let mut mergeable_keys = true;
        for q in &quals {
            let s = self.est.clause_selectivity(q, &lookup)?;
            sel *= s;
            match split_equality(q, outer_width) {
                Some((a, b)) => {
                    key_sel *= s;
                    key_ops += count_operators(q);
                    mergeable_keys &= mergeable(a, b);
                    let stat = |e: &Expr| match e {
                        Expr::Column { index, .. } => lookup(*index),
                        _ => Ok(None),
                    };
                    let (sa, sb) = (stat(a)?, stat(b)?);
                    let nd = |s: &Option<ColumnStat>| s.as_ref().map_or(200.0, |s| s.n_distinct());
                    left_distinct = left_distinct.max(nd(&sa));
                    right_distinct = right_distinct.max(nd(&sb));
                    left_unique |= sa.is_some_and(|s| s.unique);
                    right_unique |= sb.is_some_and(|s| s.unique);
                    keys.push((a.clone(), b.clone()));
                }
                None => others.push(q.clone()),
            }
        }
        let j = OuterJoin {
            left: l,
            right: r,
            right_materialised: materialises(&right),
            keys: keys.len(),
            key_selectivity: key_sel,
            right_distinct,
            left_distinct,
            mergeable: mergeable_keys,
            left_unique,
            right_unique,
            ops: quals.iter().map(count_operators).sum(),
            key_ops,
            rows: join_rows(JoinKind::Left, l.rows, r.rows, sel),
        };
        let shift_right = |e: &Expr| remap(e, &|c| c - outer_width);
        // For the methods that put the right side first: the joined row is
        // right ++ left, put back in order by a projection.
        let swap = |c: usize| if c < outer_width { c + inner_width } else { c - outer_width };
        let swapped: Vec<usize> = (outer_width..types.len()).chain(0..outer_width).collect();
        Ok(match choose_outer_join(self.est.params(), &j) {
            OuterMethod::NestLoop(material) => Plan::NestLoop {
                outer: Box::new(left),
                inner: Box::new(if material {
                    Plan::Material { input: Box::new(right) }
                } else {
                    right
                }),
                kind: JoinKind::Left,
                qual: and_opt(quals),
                inner_width,
                params: Vec::new(),
                rescan_ctes: Vec::new(),
            },
            OuterMethod::HashLeft => Plan::HashJoin {
                outer: Box::new(left),
                inner: Box::new(right),
                kind: JoinKind::Left,
                outer_keys: keys.iter().map(|k| k.0.clone()).collect(),
                inner_keys: keys.iter().map(|k| shift_right(&k.1)).collect(),
                qual: and_opt(others),
                outer_width,
                inner_width,
            },
            OuterMethod::HashRight => {
                // The right side probes.
                let plan = Plan::HashJoin {
                    outer: Box::new(right),
                    inner: Box::new(left),
                    kind: JoinKind::Right,
                    outer_keys: keys.iter().map(|k| shift_right(&k.1)).collect(),
                    inner_keys: keys.iter().map(|k| k.0.clone()).collect(),
                    qual: and_opt(others.iter().map(|q| remap(q, &swap)).collect()),
                    outer_width: inner_width,
                    inner_width: outer_width,
                };
                restore_layout(plan, &swapped, types)
            }
            OuterMethod::MergeLeft => {
                let pairs: Vec<(usize, usize)> = keys
                    .iter()
                    .map(|k| (column_index(&k.0), column_index(&k.1) - outer_width))
                    .collect();
                let widths = (outer_width, inner_width);
                merge_join(left, right, JoinKind::Left, pairs, and_opt(others), widths)
            }
            OuterMethod::MergeRight => {
                let pairs: Vec<(usize, usize)> = keys
                    .iter()
                    .map(|k| (column_index(&k.1) - outer_width, column_index(&k.0)))
                    .collect();
                let qual = and_opt(others.iter().map(|q| remap(q, &swap)).collect());
                let widths = (inner_width, outer_width);
                let plan = merge_join(right, left, JoinKind::Right, pairs, qual, widths);
                restore_layout(plan, &swapped, types)
            }
        })
    }
}

/// flatten -- collects the items of the inner-join group rooted at `plan`
/// (whose `width` columns start at `offset`) and their ON conditions,
/// rewritten to the group's row. A nested loop's outer side is what its
/// inner side leaves of its width.
fn flatten(plan: Plan, offset: usize, width: usize, items: &mut Vec<Item>, quals: &mut Vec<Expr>) {
    match plan {
        Plan::NestLoop {
            outer, inner, kind: JoinKind::Inner, qual, params, inner_width, ..
        } if params.is_empty() && !qual.as_ref().is_some_and(contains_sublink) => {
            if let Some(q) = qual {
                quals.extend(conjuncts(&q).into_iter().map(|c| remap(c, &|i| i + offset)));
            }
            let outer_width = width - inner_width;
            flatten(*outer, offset, outer_width, items, quals);
            flatten(*inner, offset + outer_width, inner_width, items, quals);
        }
        other => items.push(Item { plan: Some(other), offset, width }),
    }
}

/// build -- the plan for `tree`, taking the items' plans; returns it with
/// its row layout (which group column each of its columns is).
fn build(tree: &JoinTree, items: &mut [Item], clauses: &[Expr]) -> (Plan, Vec<usize>) {
    let JoinTree::Join { method, outer, inner, clauses: applied, keys } = tree else {
        let JoinTree::Item(i) = tree else { unreachable!() };
        let item = &mut items[*i];
        let layout = (item.offset..item.offset + item.width).collect();
        return (item.plan.take().expect("each item once"), layout);
    };
    let (outer_plan, outer_layout) = build(outer, items, clauses);
    let (inner_plan, inner_layout) = build(inner, items, clauses);
    let mut layout = outer_layout.clone();
    layout.extend(&inner_layout);
    let at = |layout: &[usize]| {
        let layout = layout.to_vec();
        move |c: usize| layout.iter().position(|&g| g == c).expect("column in layout")
    };
    let joined = at(&layout);
    let others: Vec<Expr> = applied
        .iter()
        .filter(|c| !keys.iter().any(|k| k.0 == **c))
        .map(|&c| remap(&clauses[c], &joined))
        .collect();
    let (outer_width, inner_width) = (outer_layout.len(), inner_layout.len());
    let key_sides = |&(c, left_outer): &(usize, bool)| {
        let (l, r) = equality(&clauses[c]).expect("key clause");
        if left_outer {
            (l, r)
        } else {
            (r, l)
        }
    };
    let plan = match method {
        Method::NestLoop(material) => {
            let all: Vec<Expr> = applied.iter().map(|&c| remap(&clauses[c], &joined)).collect();
            let inner =
                if *material { Plan::Material { input: Box::new(inner_plan) } } else { inner_plan };
            Plan::NestLoop {
                outer: Box::new(outer_plan),
                inner: Box::new(inner),
                kind: JoinKind::Inner,
                qual: and_opt(all),
                inner_width,
                params: Vec::new(),
                rescan_ctes: Vec::new(),
            }
        }
        Method::Hash => {
            let (on_outer, on_inner) = (at(&outer_layout), at(&inner_layout));
            Plan::HashJoin {
                outer: Box::new(outer_plan),
                inner: Box::new(inner_plan),
                kind: JoinKind::Inner,
                outer_keys: keys.iter().map(|k| remap(key_sides(k).0, &on_outer)).collect(),
                inner_keys: keys.iter().map(|k| remap(key_sides(k).1, &on_inner)).collect(),
                qual: and_opt(others),
                outer_width,
                inner_width,
            }
        }
        Method::Merge => {
            let (on_outer, on_inner) = (at(&outer_layout), at(&inner_layout));
            let pairs: Vec<(usize, usize)> = keys
                .iter()
                .map(|k| {
                    let (o, i) = key_sides(k);
                    (on_outer(column_index(o)), on_inner(column_index(i)))
                })
                .collect();
            let widths = (outer_width, inner_width);
            merge_join(outer_plan, inner_plan, JoinKind::Inner, pairs, and_opt(others), widths)
        }
    };
    (plan, layout)
}

/// merge_join -- `outer` and `inner` (of the given widths), each sorted on
/// its key columns of `keys`, merge-joined on them.
fn merge_join(
    outer: Plan,
    inner: Plan,
    kind: JoinKind,
    keys: Vec<(usize, usize)>,
    qual: Option<Expr>,
    (outer_width, inner_width): (usize, usize),
) -> Plan {
    Plan::MergeJoin {
        outer: Box::new(sorted(outer, keys.iter().map(|k| k.0))),
        inner: Box::new(sorted(inner, keys.iter().map(|k| k.1))),
        kind,
        keys,
        qual,
        outer_width,
        inner_width,
    }
}

/// `plan` sorted ascending, NULLs last, on `columns` (a merge join's input).
fn sorted(plan: Plan, columns: impl Iterator<Item = usize>) -> Plan {
    let keys =
        columns.map(|column| SortKey { column, descending: false, nulls_first: false }).collect();
    Plan::Sort { input: Box::new(plan), keys }
}

/// restore_layout -- `plan`, whose columns are the group's columns listed
/// in `layout`, projected back to the group's order (if it differs).
fn restore_layout(plan: Plan, layout: &[usize], types: &[ColumnType]) -> Plan {
    if layout.iter().enumerate().all(|(i, &g)| i == g) {
        return plan;
    }
    let exprs = (0..layout.len())
        .map(|g| {
            let at = layout.iter().position(|&c| c == g).expect("every column");
            Expr::column(at, types[g].0, types[g].1)
        })
        .collect();
    Plan::Project { input: Box::new(plan), exprs, agg_offset: None }
}

/// Whether `plan` keeps its rows for rescans by itself.
fn materialises(plan: &Plan) -> bool {
    matches!(plan, Plan::Sort { .. } | Plan::Material { .. })
}

/// `plan` under a Filter of `quals`, if there are any.
fn filtered(plan: Plan, quals: Vec<Expr>) -> Plan {
    match and_opt(quals) {
        Some(qual) => Plan::Filter { input: Box::new(plan), qual, agg_offset: None },
        None => plan,
    }
}

/// The conjunction of `quals` (`None` for none).
fn and_opt(mut quals: Vec<Expr>) -> Option<Expr> {
    match quals.len() {
        0 => None,
        1 => quals.pop(),
        _ => Some(Expr::Bool { op: BoolOp::And, args: quals, location: None }),
    }
}

/// The conjunction of at least one condition.
fn and(quals: Vec<Expr>) -> Expr {
    and_opt(quals).expect("at least one condition")
}

/// The operands of `a = b`.
fn equality(e: &Expr) -> Option<(&Expr, &Expr)> {
    match e {
        // Only the plain comparison: `character(n)` and zoned timestamp
        // equality do not hash or sort as their values do.
        Expr::Call { func: Builtin::Compare(CmpOp::Eq, Comparison::Plain), args, .. }
            if args.len() == 2 =>
        {
            hashable(&args[0], &args[1]).then(|| (&args[0], &args[1]))
        }
        _ => None,
    }
}

/// Whether equal values of `a` and `b` hash alike (same type, or integers
/// of any width, which `compare::hash` hashes by value).
fn hashable(a: &Expr, b: &Expr) -> bool {
    let int = |t: SqlType| matches!(t, SqlType::Int2 | SqlType::Int4 | SqlType::Int8);
    a.ty() == b.ty() || (int(a.ty()) && int(b.ty()))
}

/// Whether `a = b` can be a merge key: two plain columns of one type.
fn mergeable(a: &Expr, b: &Expr) -> bool {
    matches!((a, b), (Expr::Column { ty: x, .. }, Expr::Column { ty: y, .. }) if x == y)
}

/// For a LEFT JOIN's ON condition `a = b` over the joined row: the
/// operand on the left side (first) and the one on the right side.
fn split_equality(e: &Expr, outer_width: usize) -> Option<(&Expr, &Expr)> {
    let (a, b) = equality(e)?;
    let side = |x: &Expr| {
        let cols = x.columns_read();
        if cols.is_empty() {
            None
        } else if cols.iter().all(|&c| c < outer_width) {
            Some(0)
        } else if cols.iter().all(|&c| c >= outer_width) {
            Some(1)
        } else {
            None
        }
    };
    match (side(a)?, side(b)?) {
        (0, 1) => Some((a, b)),
        (1, 0) => Some((b, a)),
        _ => None,
    }
}

/// The column a plain column reference reads.
fn column_index(e: &Expr) -> usize {
    match e {
        Expr::Column { index, .. } => *index,
        _ => unreachable!("merge keys are plain columns"),
    }
}

/// The items of a group whose columns `e` reads (bit i: item i).
fn items_read(e: &Expr, items: &[Item]) -> u64 {
    e.columns_read().iter().fold(0, |set, &c| {
        set | items
            .iter()
            .position(|i| (i.offset..i.offset + i.width).contains(&c))
            .map_or(0, |i| 1 << i)
    })
}

/// Whether `e` contains a subquery (whose parameters index its row).
fn contains_sublink(e: &Expr) -> bool {
    matches!(e, Expr::SubLink { .. }) || e.children().into_iter().any(contains_sublink)
}

/// remap -- `e` with each column reference `c` turned into `to(c)`.
fn remap(e: &Expr, to: &dyn Fn(usize) -> usize) -> Expr {
    let mut out = e.clone();
    remap_in_place(&mut out, to);
    out
}

fn remap_in_place(e: &mut Expr, to: &dyn Fn(usize) -> usize) {
    if let Expr::Column { index, .. } = e {
        *index = to(*index);
    }
    for child in e.children_mut() {
        remap_in_place(child, to);
    }
}
