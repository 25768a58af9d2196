//! Column pruning for single-table scans: the sequential scan decodes only
//! the columns some expression above it reads, which keeps `count(*)` and
//! narrow selects from converting every value of a wide row.

use super::plannodes::{Plan, Registry};
use crate::expr::Expr;

/// Marks the scan columns that expressions between the scan and the
/// projection read (WHERE, grouping keys, aggregate arguments, HAVING, the
/// select list, and what their subqueries take from the row), records them
/// on a sequential scan and returns them. Only for a plan over a single
/// table scan, whose rows are exactly the table's columns; `None` otherwise.
pub fn prune_scan_columns(plan: &mut Plan, registry: &Registry) -> Option<Vec<bool>> {
    let mut needed = Vec::new();
    let mark = |e: &Expr, needed: &mut Vec<bool>| mark_columns(e, needed, registry);
    let mut node = &mut *plan;
    loop {
        node = match node {
            Plan::Project { input, exprs, .. } => {
                exprs.iter().for_each(|e| mark(e, &mut needed));
                input
            }
            Plan::Filter { input, qual, .. } => {
                mark(qual, &mut needed);
                input
            }
            Plan::Aggregate { input, keys, aggs, .. } => {
                keys.iter()
                    .chain(aggs.iter().filter_map(|a| a.arg.as_ref()))
                    .chain(aggs.iter().flat_map(|a| a.order.iter().map(|k| &k.expr)))
                    .chain(aggs.iter().filter_map(|a| a.filter.as_ref()))
                    .for_each(|e| mark(e, &mut needed));
                input
            }
            Plan::Distinct { input, .. }
            | Plan::Sort { input, .. }
            | Plan::Limit { input, .. }
            | Plan::Truncate { input, .. } => input,
            Plan::SeqScan { rel, needed: slot, ctid: false, .. } => {
                needed.resize(rel.columns.len(), false);
                *slot = Some(needed.clone());
                return Some(needed);
            }
            Plan::IndexScan { rel, ctid: false, .. } => {
                needed.resize(rel.columns.len(), false);
                return Some(needed);
            }
            _ => return None,
        };
    }
}

/// single_scan -- in a plan over a single table scan (as
/// [`prune_scan_columns`] walks it), the scan and the WHERE clause of the
/// Filter right above it.
pub fn single_scan(plan: &mut Plan) -> Option<(&mut Plan, Option<&Expr>)> {
    let is_scan = |p: &Plan| matches!(p, Plan::SeqScan { .. } | Plan::IndexScan { .. });
    if is_scan(plan) {
        return Some((plan, None));
    }
    if matches!(plan, Plan::Filter { input, agg_offset: None, .. } if is_scan(input)) {
        let Plan::Filter { input, qual, .. } = plan else { return None };
        return Some((&mut **input, Some(&*qual)));
    }
    match plan {
        Plan::Project { input, .. }
        | Plan::Filter { input, .. }
        | Plan::Aggregate { input, .. }
        | Plan::Distinct { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. }
        | Plan::Truncate { input, .. } => single_scan(input),
        _ => None,
    }
}

/// Marks the input columns `expr` reads, including those a subquery's args
/// and ANY/ALL test read.
fn mark_columns(expr: &Expr, needed: &mut Vec<bool>, registry: &Registry) {
    match expr {
        Expr::Column { index, .. } => {
            if needed.len() <= *index {
                needed.resize(index + 1, false);
            }
            needed[*index] = true;
        }
        Expr::SubLink { id, .. } => {
            if let Some(sp) = registry.subplans.get(*id) {
                for e in sp.args.iter().map(|(_, e)| e).chain(&sp.test) {
                    mark_columns(e, needed, registry);
                }
            }
        }
        _ => {}
    }
    for child in expr.children() {
        mark_columns(child, needed, registry);
    }
}
