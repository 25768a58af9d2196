//! The words EXPLAIN prints for a node besides its expressions: costs,
//! join titles, sort keys, index conditions, aggregate and output names.

use super::*;

/// `(cost=S..T rows=N width=W)` as PostgreSQL prints an estimate.
pub(super) fn cost_text(e: &Estimate) -> String {
    format!(
        "(cost={:.2}..{:.2} rows={:.0} width={:.0})",
        e.startup,
        e.total,
        e.rows.round(),
        e.width.round()
    )
}

/// A join node's title: `Hash Join`, `Merge Left Join`, `Nested Loop`, ...
pub(super) fn join_title(method: &str, kind: JoinKind, nested_loop: bool) -> String {
    let kind = match kind {
        JoinKind::Inner if nested_loop => return method.to_string(),
        JoinKind::Inner => "",
        JoinKind::Left => " Left",
        JoinKind::Right => " Right",
    };
    format!("{method}{kind} Join")
}

/// Conditions joined as PostgreSQL prints a list of them.
pub(super) fn and_text(conds: &[String]) -> String {
    match conds {
        [one] => one.clone(),
        many => format!("({})", many.join(" AND ")),
    }
}

/// resolve_aggrefs -- `e`, read above an aggregation whose results start at
/// column `offset`, with each aggregate reference turned into a reference
/// to its result column (so it prints as the aggregate call).
pub(super) fn resolve_aggrefs(e: &Expr, offset: Option<usize>) -> Expr {
    let Some(offset) = offset else { return e.clone() };
    match e {
        Expr::AggRef { index, ty, .. } => Expr::column(offset + index, *ty, -1),
        _ => {
            let mut out = e.clone();
            for child in out.children_mut() {
                *child = resolve_aggrefs(child, Some(offset));
            }
            out
        }
    }
}

/// substitute -- `e` over a projection's output, rewritten over its input
/// (each column reference replaced by the expression that computes it).
pub(super) fn substitute(e: &Expr, exprs: &[Expr]) -> Expr {
    match e {
        Expr::Column { index, .. } => exprs.get(*index).cloned().unwrap_or_else(|| e.clone()),
        _ => {
            let mut out = e.clone();
            for child in out.children_mut() {
                *child = substitute(child, exprs);
            }
            out
        }
    }
}

/// The title of a node without special printing.
pub(super) fn leaf_title(plan: &Plan) -> String {
    match plan {
        Plan::Result | Plan::Rows(_) => "Result".into(),
        Plan::GenerateSeries { .. } => "Function Scan on generate_series".into(),
        Plan::Unnest { options: true, .. } => "Function Scan on pg_options_to_table".into(),
        Plan::Unnest { .. } => "Function Scan on unnest".into(),
        // PostgreSQL turns a single VALUES row into a Result.
        Plan::Values(rows) if rows.len() == 1 => "Result".into(),
        // PostgreSQL turns a single VALUES row into a Result.
        Plan::Values(rows) if rows.len() == 1 => "Result".into(),
        Plan::Values(_) => "Values Scan on \"*VALUES*\"".into(),
        Plan::Append { .. } => "Append".into(),
        Plan::SetOp { kind, all, .. } => {
            format!("SetOp {kind:?}{}", if *all { " All" } else { "" })
        }
        Plan::CteScan { cte } => format!("CTE Scan on cte{cte}"),
        Plan::WorkTableScan { table } => format!("WorkTable Scan on wt{table}"),
        Plan::RecursiveUnion { .. } => "Recursive Union".into(),
        _ => "Result".into(),
    }
}

/// The inputs of a node printed by `leaf_title`.
pub(super) fn children(plan: &Plan) -> Vec<&Plan> {
    match plan {
        Plan::Append { inputs } => inputs.iter().collect(),
        Plan::SetOp { left, right, .. } => vec![left, right],
        Plan::RecursiveUnion { non_recursive, recursive, .. } => vec![non_recursive, recursive],
        _ => Vec::new(),
    }
}

/// The names of a node's output columns, for printing expressions above it;
/// `qualified` names table columns with their relation (`a.x`).
pub(super) fn output_names(plan: &Plan, qualified: bool) -> Vec<String> {
    match plan {
        Plan::SeqScan { rel, alias, ctid, .. } | Plan::IndexScan { rel, alias, ctid, .. } => {
            let table = alias.as_deref().unwrap_or(&rel.name);
            let junk = ctid.then_some("ctid");
            rel.columns
                .iter()
                .map(|c| c.name.as_str())
                .chain(junk)
                .map(|c| if qualified { format!("{table}.{c}") } else { c.to_string() })
                .collect()
        }
        Plan::Filter { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. }
        | Plan::LockRows { input, .. }
        | Plan::Distinct { input, .. }
        | Plan::Material { input }
        | Plan::Statement { input, .. } => output_names(input, qualified),
        Plan::Truncate { input, width } => {
            output_names(input, qualified).into_iter().take(*width).collect()
        }
        Plan::Project { input, exprs, agg_offset } => {
            let names = output_names(input, qualified);
            exprs.iter().map(|e| expr(&resolve_aggrefs(e, *agg_offset), &names)).collect()
        }
        Plan::Aggregate { input, aggs, .. } => {
            let mut names = output_names(input, qualified);
            let input_names = names.clone();
            names.extend(aggs.iter().map(|a| agg_name(a, &input_names)));
            names
        }
        Plan::NestLoop { outer, inner, .. }
        | Plan::HashJoin { outer, inner, .. }
        | Plan::MergeJoin { outer, inner, .. } => {
            let mut names = output_names(outer, qualified);
            names.extend(output_names(inner, qualified));
            names
        }
        Plan::GenerateSeries { .. } => vec!["generate_series".into()],
        Plan::Unnest { options: true, .. } => vec!["option_name".into(), "option_value".into()],
        Plan::Unnest { ordinality, .. } => {
            let mut names = vec!["unnest".to_string()];
            names.extend(ordinality.then(|| "ordinality".to_string()));
            names
        }
        _ => Vec::new(),
    }
}

pub(super) fn column_names(rel: &RelationDesc) -> Vec<String> {
    rel.columns.iter().map(|c| c.name.clone()).collect()
}

pub(super) fn agg_name(agg: &AggCall, names: &[String]) -> String {
    let name = agg.kind.name();
    let distinct = if agg.distinct { "DISTINCT " } else { "" };
    match &agg.arg {
        None => format!("{name}(*)"),
        Some(arg) => format!("{name}({distinct}{})", expr(arg, names)),
    }
}

pub(super) fn sort_key(key: &SortKey, names: &[String]) -> String {
    let name = names.get(key.column).cloned().unwrap_or_else(|| "?".into());
    match (key.descending, key.nulls_first) {
        (false, false) | (true, true) => {
            if key.descending {
                format!("{name} DESC")
            } else {
                name
            }
        }
        (false, true) => format!("{name} NULLS FIRST"),
        (true, false) => format!("{name} DESC NULLS LAST"),
    }
}

/// The `Index Cond:` of an index scan.
pub(super) fn index_cond(rel: &RelationDesc, path: &IndexPath) -> String {
    and_terms(&index_cond_terms(rel, path))
}

/// The index conditions of `path`, one parenthesised term each.
pub(super) fn index_cond_terms(rel: &RelationDesc, path: &IndexPath) -> Vec<String> {
    let column = &rel.columns[path.index.keys[0] as usize - 1].name;
    let names = column_names(rel);
    path.quals
        .iter()
        .map(|q| match q.any {
            true => format!("({column} = ANY ({}))", expr(&q.value, &names)),
            false => format!("({column} {} {})", q.op.symbol(), expr(&q.value, &names)),
        })
        .collect()
}

/// Terms AND-ed as PostgreSQL prints a condition list: one term alone, more
/// inside parentheses.
pub(super) fn and_terms(terms: &[String]) -> String {
    match terms {
        [one] => one.clone(),
        many => format!("({})", many.join(" AND ")),
    }
}
