//! The target list, GROUP BY and ORDER BY of a SELECT (PostgreSQL's
//! `parse_target.c` and `parse_clause.c`'s findTargetlistEntry): each
//! output column's expression and name, and which output column or hidden
//! expression a grouping or sort item refers to.

use super::*;

/// A target-list entry.
pub(super) struct Target {
    pub(super) expr: Expr,
    pub(super) column: OutputColumn,
}

pub(super) fn analyze_targets(
    list: &[Node],
    scope: &Scope,
    host: &mut PlanHost,
) -> Result<Vec<Target>> {
    let mut targets = Vec::new();
    for node in list {
        let Some(NodeEnum::ResTarget(rt)) = node.node.as_ref() else { continue };
        let Some(val) = rt.val.as_deref() else { continue };
        if let Some(table) = star_of(val) {
            for (name, expr) in expand_star(scope, table.as_deref())? {
                let column = output_column(&name, &expr, scope);
                targets.push(Target { expr, column });
            }
            continue;
        }
        if let Some(fields) = star_indirection(val, scope, host)? {
            for (name, expr) in fields {
                let column = output_column(&name, &expr, scope);
                targets.push(Target { expr, column });
            }
            continue;
        }
        let expr = analyze(val, scope, host)?;
        let name = if rt.name.is_empty() { column_name(val) } else { rt.name.clone() };
        let column = output_column(&name, &expr, scope);
        targets.push(Target { expr, column });
    }
    Ok(targets)
}

/// `Some(table)` if `node` is `*` or `t.*`.
pub(super) fn star_of(node: &Node) -> Option<Option<String>> {
    let NodeEnum::ColumnRef(cr) = node.node.as_ref()? else { return None };
    if !matches!(cr.fields.last()?.node.as_ref()?, NodeEnum::AStar(_)) {
        return None;
    }
    let table = cr.fields.first().and_then(|f| match f.node.as_ref()? {
        NodeEnum::String(s) => Some(s.sval.clone()),
        _ => None,
    });
    Some(table)
}

pub(super) fn output_column(name: &str, expr: &Expr, _scope: &Scope) -> OutputColumn {
    OutputColumn::computed(name, expr.ty(), expr.typmod())
}

/// GROUP BY items: output positions (`GROUP BY 1`), output names, or expressions.
pub(super) fn analyze_group_by(
    list: &[Node],
    scope: &Scope,
    targets: &[Target],
    host: &mut PlanHost,
) -> Result<Vec<Expr>> {
    host.agg_clause = Some("GROUP BY");
    let columns = output_columns(targets);
    let keys = list
        .iter()
        .map(|node| {
            let (key, location) = match output_reference(node, &columns, "GROUP BY")? {
                Some(i) => (targets[i].expr.clone(), reference_location(node)),
                None => {
                    let key = analyze(node, scope, host)?;
                    let location = key.location();
                    (key, location)
                }
            };
            check_operator(key.ty(), "equality", location)?;
            Ok(key)
        })
        .collect();
    host.agg_clause = None;
    keys
}

/// Where an ORDER BY item's value comes from.
pub(super) enum SortTarget {
    Output(usize),
    Hidden(Expr),
}

pub(super) fn analyze_sort(
    list: &[Node],
    scope: &Scope,
    targets: &[Target],
    host: &mut PlanHost,
) -> Result<Vec<(SortTarget, SortKey)>> {
    let mut keys = Vec::new();
    let columns = output_columns(targets);
    for node in list {
        let Some(NodeEnum::SortBy(sort)) = node.node.as_ref() else { continue };
        let Some(inner) = sort.node.as_deref() else { continue };
        let target = match output_reference(inner, &columns, "ORDER BY")? {
            Some(i) => SortTarget::Output(i),
            None => SortTarget::Hidden(analyze(inner, scope, host)?),
        };
        let (ty, location) = match &target {
            SortTarget::Output(i) => (targets[*i].expr.ty(), reference_location(inner)),
            SortTarget::Hidden(e) => (e.ty(), e.location()),
        };
        check_operator(ty, "ordering", location)?;
        keys.push((target, sort_key(sort, 0)));
    }
    Ok(keys)
}

/// Where an output reference (`ORDER BY 1`, `ORDER BY name`) is written.
pub(super) fn reference_location(node: &Node) -> Option<u32> {
    match node.node.as_ref()? {
        NodeEnum::AConst(c) => position(c.location),
        NodeEnum::ColumnRef(cr) => position(cr.location),
        _ => None,
    }
}

/// check_operator -- 42883 if `ty` has no default B-tree `kind` operator
/// ("ordering" or "equality") for ORDER BY or GROUP BY: only `json`, which
/// PostgreSQL leaves without comparison operators. (An anonymous `record`
/// is comparable whatever its fields, as in PostgreSQL; a table's row type
/// with a json column, which PostgreSQL refuses here, is such a record in
/// sluice.)
pub(super) fn check_operator(ty: SqlType, kind: &str, location: Option<u32>) -> Result<()> {
    if ty != SqlType::Json {
        return Ok(());
    }
    let error = SqlError::new(
        "42883",
        format!("could not identify an {kind} operator for type {}", format_type(ty, -1)),
    );
    let error = match kind {
        "ordering" => error.with_hint("Use an explicit ordering operator or modify the query."),
        _ => error,
    };
    Err(error.at(location))
}

/// The sort key for `sort` on `column`: direction and NULLs placement.
pub(super) fn sort_key(sort: &SortBy, column: usize) -> SortKey {
    let descending = sort.sortby_dir == SortByDir::SortbyDesc as i32;
    let nulls_first =
        match SortByNulls::try_from(sort.sortby_nulls).unwrap_or(SortByNulls::SortbyNullsDefault) {
            SortByNulls::SortbyNullsFirst => true,
            SortByNulls::SortbyNullsLast => false,
            _ => descending,
        };
    SortKey { column, descending, nulls_first }
}

/// The output columns of a target list.
pub(super) fn output_columns(targets: &[Target]) -> Vec<OutputColumn> {
    targets.iter().map(|t| t.column.clone()).collect()
}

/// An integer constant (position) or a bare name matching an output column.
pub(super) fn output_reference(
    node: &Node,
    targets: &[OutputColumn],
    clause: &str,
) -> Result<Option<usize>> {
    match node.node.as_ref() {
        Some(NodeEnum::AConst(c)) => {
            if let Some(protobuf::a_const::Val::Ival(i)) = &c.val {
                let n = i.ival;
                if n < 1 || n as usize > targets.len() {
                    return Err(SqlError::new(
                        "42P10",
                        format!("{clause} position {n} is not in select list"),
                    )
                    .at(position(c.location)));
                }
                return Ok(Some(n as usize - 1));
            }
            Ok(None)
        }
        Some(NodeEnum::ColumnRef(cr)) if cr.fields.len() == 1 => {
            let Some(NodeEnum::String(s)) = cr.fields[0].node.as_ref() else { return Ok(None) };
            Ok(targets.iter().position(|t| t.name == s.sval))
        }
        _ => Ok(None),
    }
}
