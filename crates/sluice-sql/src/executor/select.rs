//! Planning SELECT (PostgreSQL's analyze.c transformSelectStmt + a planner with
//! one choice per node: scans are sequential, joins nested loops, grouping by
//! sorting). Cost-based planning arrives with indexes.

use super::host::PlanHost;
use super::plan::{JoinKind, Plan, SortKey};
use crate::catalog::relation::{self, RelationDesc};
use crate::commands::tablecmds::lock_relation_in;
use crate::error::{Result, SqlError};
use crate::expr::{
    analyze, check_boolean, column_name, expand_star, select_common_type, Expr, Scope, ScopeColumn,
};
use crate::session::ExecParts;
use crate::sink::OutputColumn;
use pg_query::protobuf::{self, Node, SelectStmt, SortByDir, SortByNulls};
use pg_query::NodeEnum;
use sluice_txn::lmgr::LockMode;
use sluice_types::SqlType;

/// A planned query: the plan and the columns it returns.
#[derive(Debug)]
pub struct Planned {
    /// The plan.
    pub plan: Plan,
    /// Result columns.
    pub columns: Vec<OutputColumn>,
}

fn position(location: i32) -> Option<u32> {
    (location >= 0).then_some(location as u32 + 1)
}

/// plan_select -- plans a SELECT (or VALUES) statement.
pub fn plan_select(
    parts: &mut ExecParts,
    stmt: &SelectStmt,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Planned> {
    if !stmt.values_lists.is_empty() {
        return plan_values(stmt, params);
    }
    if stmt.op != protobuf::SetOperation::SetopNone as i32 {
        return Err(SqlError::unsupported("UNION, INTERSECT and EXCEPT are not supported yet"));
    }
    if stmt.with_clause.is_some() {
        return Err(SqlError::unsupported("WITH queries are not supported yet"));
    }
    let (mut plan, scope) = plan_from(parts, &stmt.from_clause, params)?;
    let mut host = PlanHost::new(params);
    if let Some(where_clause) = stmt.where_clause.as_deref() {
        host.agg_clause = Some("WHERE");
        let qual = check_boolean(analyze(where_clause, &scope, &mut host)?, "WHERE")?;
        plan = Plan::Filter { input: Box::new(plan), qual, agg_offset: None };
    }
    host.agg_clause = None;
    let targets = analyze_targets(&stmt.target_list, &scope, &mut host)?;
    let group_keys = analyze_group_by(&stmt.group_clause, &scope, &targets, &mut host)?;
    let having = match stmt.having_clause.as_deref() {
        Some(h) => Some(check_boolean(analyze(h, &scope, &mut host)?, "HAVING")?),
        None => None,
    };
    let sort = analyze_sort(&stmt.sort_clause, &scope, &targets, &mut host)?;
    let aggregating = !host.aggs.is_empty() || !group_keys.is_empty() || having.is_some();
    let mut agg_offset = None;
    if aggregating {
        agg_offset = Some(scope.columns.len());
        plan = Plan::Aggregate {
            input: Box::new(plan),
            keys: group_keys,
            aggs: std::mem::take(&mut host.aggs),
            input_width: scope.columns.len(),
        };
        if let Some(qual) = having {
            plan = Plan::Filter { input: Box::new(plan), qual, agg_offset };
        }
    }
    let width = targets.len();
    let columns: Vec<OutputColumn> = targets.iter().map(|t| t.column.clone()).collect();
    let mut exprs: Vec<Expr> = targets.into_iter().map(|t| t.expr).collect();
    let mut keys = Vec::new();
    for (expr, mut key) in sort {
        key.column = match expr {
            SortTarget::Output(i) => i,
            SortTarget::Hidden(e) => {
                exprs.push(e);
                exprs.len() - 1
            }
        };
        keys.push(key);
    }
    plan = Plan::Project { input: Box::new(plan), exprs, agg_offset };
    if !stmt.distinct_clause.is_empty() {
        plan = Plan::Distinct { input: Box::new(plan), width };
    }
    if !keys.is_empty() {
        plan = Plan::Sort { input: Box::new(plan), keys };
    }
    let (offset, limit) = (stmt.limit_offset.as_deref(), stmt.limit_count.as_deref());
    if offset.is_some() || limit.is_some() {
        let empty = Scope { columns: Vec::new() };
        let offset = offset.map(|o| analyze(o, &empty, &mut host)).transpose()?;
        let limit = limit.map(|l| analyze(l, &empty, &mut host)).transpose()?;
        plan = Plan::Limit { input: Box::new(plan), offset, limit };
    }
    if columns.len() < plan_width(&plan, width) {
        plan = Plan::Truncate { input: Box::new(plan), width };
    }
    super::plan::prune_scan_columns(&mut plan);
    Ok(Planned { plan, columns })
}

/// Columns the projected plan produces (targets plus hidden sort keys).
fn plan_width(plan: &Plan, targets: usize) -> usize {
    match plan {
        Plan::Project { exprs, .. } => exprs.len(),
        Plan::Distinct { input, .. } | Plan::Sort { input, .. } | Plan::Limit { input, .. } => {
            plan_width(input, targets)
        }
        _ => targets,
    }
}

/// A target-list entry.
struct Target {
    expr: Expr,
    column: OutputColumn,
}

fn analyze_targets(list: &[Node], scope: &Scope, host: &mut PlanHost) -> Result<Vec<Target>> {
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
        let expr = analyze(val, scope, host)?;
        let name = if rt.name.is_empty() { column_name(val) } else { rt.name.clone() };
        let column = output_column(&name, &expr, scope);
        targets.push(Target { expr, column });
    }
    Ok(targets)
}

/// `Some(table)` if `node` is `*` or `t.*`.
fn star_of(node: &Node) -> Option<Option<String>> {
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

fn output_column(name: &str, expr: &Expr, _scope: &Scope) -> OutputColumn {
    OutputColumn::computed(name, expr.ty(), expr.typmod())
}

/// GROUP BY items: output positions (`GROUP BY 1`), output names, or expressions.
fn analyze_group_by(
    list: &[Node],
    scope: &Scope,
    targets: &[Target],
    host: &mut PlanHost,
) -> Result<Vec<Expr>> {
    host.agg_clause = Some("GROUP BY");
    let keys = list
        .iter()
        .map(|node| match output_reference(node, targets, "GROUP BY")? {
            Some(i) => Ok(targets[i].expr.clone()),
            None => analyze(node, scope, host),
        })
        .collect();
    host.agg_clause = None;
    keys
}

/// Where an ORDER BY item's value comes from.
enum SortTarget {
    Output(usize),
    Hidden(Expr),
}

fn analyze_sort(
    list: &[Node],
    scope: &Scope,
    targets: &[Target],
    host: &mut PlanHost,
) -> Result<Vec<(SortTarget, SortKey)>> {
    let mut keys = Vec::new();
    for node in list {
        let Some(NodeEnum::SortBy(sort)) = node.node.as_ref() else { continue };
        let Some(inner) = sort.node.as_deref() else { continue };
        let target = match output_reference(inner, targets, "ORDER BY")? {
            Some(i) => SortTarget::Output(i),
            None => SortTarget::Hidden(analyze(inner, scope, host)?),
        };
        let descending = sort.sortby_dir == SortByDir::SortbyDesc as i32;
        let nulls_first = match SortByNulls::try_from(sort.sortby_nulls)
            .unwrap_or(SortByNulls::SortbyNullsDefault)
        {
            SortByNulls::SortbyNullsFirst => true,
            SortByNulls::SortbyNullsLast => false,
            _ => descending,
        };
        keys.push((target, SortKey { column: 0, descending, nulls_first }));
    }
    Ok(keys)
}

/// An integer constant (position) or a bare name matching an output column.
fn output_reference(node: &Node, targets: &[Target], clause: &str) -> Result<Option<usize>> {
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
            Ok(targets.iter().position(|t| t.column.name == s.sval))
        }
        _ => Ok(None),
    }
}

/// Plans the FROM list (a cross join of its items).
fn plan_from(
    parts: &mut ExecParts,
    from: &[Node],
    params: &mut Vec<Option<SqlType>>,
) -> Result<(Plan, Scope)> {
    let mut result: Option<(Plan, Scope)> = None;
    for item in from {
        let (plan, scope) = plan_from_item(parts, item, params)?;
        result = Some(match result {
            None => (plan, scope),
            Some((left, mut left_scope)) => {
                let inner_width = scope.columns.len();
                left_scope.columns.extend(scope.columns);
                let join = Plan::NestLoop {
                    outer: Box::new(left),
                    inner: Box::new(plan),
                    kind: JoinKind::Inner,
                    qual: None,
                    inner_width,
                };
                (join, left_scope)
            }
        });
    }
    Ok(result.unwrap_or((Plan::Result, Scope { columns: Vec::new() })))
}

fn plan_from_item(
    parts: &mut ExecParts,
    item: &Node,
    params: &mut Vec<Option<SqlType>>,
) -> Result<(Plan, Scope)> {
    match item.node.as_ref() {
        Some(NodeEnum::RangeVar(rv)) if is_system_view(rv) => {
            let view =
                super::sysviews::lookup(&rv.relname, &parts.env, parts.engine).expect("checked");
            let mut scope = Scope { columns: view.columns };
            if let Some(alias) = &rv.alias {
                scope.columns.iter_mut().for_each(|c| c.table = Some(alias.aliasname.clone()));
            }
            Ok((Plan::Rows(view.rows), scope))
        }
        Some(NodeEnum::RangeVar(rv)) => {
            let rel = open_relation(parts, rv, LockMode::AccessShare)?;
            let alias = rv.alias.as_ref().map_or_else(|| rel.name.clone(), |a| a.aliasname.clone());
            let scope = relation_scope(&rel, &alias);
            Ok((Plan::SeqScan { rel: Box::new(rel), needed: None }, scope))
        }
        Some(NodeEnum::RangeFunction(rf)) => plan_function(rf, params),
        Some(NodeEnum::JoinExpr(join)) => plan_join(parts, join, params),
        Some(NodeEnum::RangeSubselect(sub)) => {
            let Some(NodeEnum::SelectStmt(select)) =
                sub.subquery.as_deref().and_then(|n| n.node.as_ref())
            else {
                return Err(SqlError::unsupported("this subquery is not supported yet"));
            };
            let planned = plan_select(parts, select, params)?;
            let alias = sub.alias.as_ref().map(|a| a.aliasname.clone());
            let columns = planned
                .columns
                .iter()
                .map(|c| ScopeColumn {
                    table: alias.clone(),
                    name: c.name.clone(),
                    ty: c.ty,
                    typmod: c.typmod,
                })
                .collect();
            Ok((planned.plan, Scope { columns }))
        }
        _ => Err(SqlError::unsupported("this kind of FROM item is not supported yet")),
    }
}

/// Whether `rv` names a system view computed from live state.
fn is_system_view(rv: &protobuf::RangeVar) -> bool {
    matches!(rv.schemaname.as_str(), "" | "pg_catalog")
        && super::sysviews::SYSTEM_VIEWS.contains(&rv.relname.as_str())
}

/// The scope of a table's columns under `alias`.
pub fn relation_scope(rel: &RelationDesc, alias: &str) -> Scope {
    Scope {
        columns: rel
            .columns
            .iter()
            .map(|c| ScopeColumn {
                table: Some(alias.to_string()),
                name: c.name.clone(),
                ty: c.ty,
                typmod: c.typmod,
            })
            .collect(),
    }
}

/// open_relation -- looks up a table named in a query and locks it in `mode`.
pub fn open_relation(
    parts: &mut ExecParts,
    rv: &protobuf::RangeVar,
    mode: LockMode,
) -> Result<RelationDesc> {
    let namespaces = match rv.schemaname.as_str() {
        "" => vec![
            crate::catalog::schema::PG_CATALOG_NAMESPACE,
            crate::catalog::schema::PUBLIC_NAMESPACE,
        ],
        "public" => vec![crate::catalog::schema::PUBLIC_NAMESPACE],
        "pg_catalog" => vec![crate::catalog::schema::PG_CATALOG_NAMESPACE],
        other => {
            return Err(SqlError::new("3F000", format!("schema \"{other}\" does not exist"))
                .at(position(rv.location)))
        }
    };
    let rel =
        relation::lookup(parts.engine, parts.env.database, parts.txn, &namespaces, &rv.relname)?
            .ok_or_else(|| {
                SqlError::new("42P01", format!("relation \"{}\" does not exist", rv.relname))
                    .at(position(rv.location))
            })?;
    lock_relation_in(parts, rel.oid, mode)?;
    Ok(rel)
}

fn plan_function(
    rf: &protobuf::RangeFunction,
    params: &mut Vec<Option<SqlType>>,
) -> Result<(Plan, Scope)> {
    let call = rf
        .functions
        .first()
        .and_then(|f| match f.node.as_ref()? {
            NodeEnum::List(l) => l.items.first(),
            _ => None,
        })
        .and_then(|n| match n.node.as_ref()? {
            NodeEnum::FuncCall(fc) => Some(fc),
            _ => None,
        })
        .ok_or_else(|| SqlError::unsupported("this function in FROM is not supported yet"))?;
    let name = call.funcname.last().and_then(crate::commands::node_str).unwrap_or_default();
    if name != "generate_series" || !(2..=3).contains(&call.args.len()) {
        return Err(SqlError::unsupported(format!("function {name} in FROM is not supported yet")));
    }
    let empty = Scope { columns: Vec::new() };
    let mut host = PlanHost::new(params);
    let args =
        call.args.iter().map(|a| analyze(a, &empty, &mut host)).collect::<Result<Vec<_>>>()?;
    let ty = match select_common_type(&args, "generate_series")? {
        SqlType::Int2 | SqlType::Int4 | SqlType::Unknown => SqlType::Int4,
        SqlType::Int8 => SqlType::Int8,
        SqlType::Numeric => SqlType::Numeric,
        other => {
            return Err(SqlError::new(
                "42883",
                format!(
                    "function generate_series({0}, {0}) does not exist",
                    sluice_types::format_type(other, -1)
                ),
            ))
        }
    };
    let mut args = args
        .into_iter()
        .map(|a| crate::expr::coerce(a, ty, -1, crate::expr::CoercionContext::Implicit))
        .collect::<Result<Vec<_>>>()?
        .into_iter();
    let (start, stop, step) =
        (args.next().expect("2 args"), args.next().expect("2 args"), args.next());
    let (table, column) = match &rf.alias {
        Some(alias) => {
            let col = alias
                .colnames
                .first()
                .and_then(crate::commands::node_str)
                .unwrap_or_else(|| alias.aliasname.clone());
            (alias.aliasname.clone(), col)
        }
        None => ("generate_series".to_string(), "generate_series".to_string()),
    };
    let scope =
        Scope { columns: vec![ScopeColumn { table: Some(table), name: column, ty, typmod: -1 }] };
    Ok((Plan::GenerateSeries { start, stop, step, ty }, scope))
}

fn plan_join(
    parts: &mut ExecParts,
    join: &protobuf::JoinExpr,
    params: &mut Vec<Option<SqlType>>,
) -> Result<(Plan, Scope)> {
    let kind = match protobuf::JoinType::try_from(join.jointype)
        .unwrap_or(protobuf::JoinType::Undefined)
    {
        protobuf::JoinType::JoinInner => JoinKind::Inner,
        protobuf::JoinType::JoinLeft => JoinKind::Left,
        _ => return Err(SqlError::unsupported("RIGHT and FULL joins are not supported yet")),
    };
    if !join.using_clause.is_empty() || join.is_natural {
        return Err(SqlError::unsupported("JOIN ... USING and NATURAL JOIN are not supported yet"));
    }
    let left = join.larg.as_deref().ok_or_else(|| SqlError::internal("join without left side"))?;
    let right =
        join.rarg.as_deref().ok_or_else(|| SqlError::internal("join without right side"))?;
    let (outer, mut scope) = plan_from_item(parts, left, params)?;
    let (inner, inner_scope) = plan_from_item(parts, right, params)?;
    let inner_width = inner_scope.columns.len();
    scope.columns.extend(inner_scope.columns);
    let qual = match join.quals.as_deref() {
        Some(q) => {
            let mut host = PlanHost::new(params);
            host.agg_clause = Some("JOIN conditions");
            Some(check_boolean(analyze(q, &scope, &mut host)?, "JOIN/ON")?)
        }
        None => None,
    };
    Ok((
        Plan::NestLoop { outer: Box::new(outer), inner: Box::new(inner), kind, qual, inner_width },
        scope,
    ))
}

/// VALUES (...), (...): every row coerced to the columns' common types.
fn plan_values(stmt: &SelectStmt, params: &mut Vec<Option<SqlType>>) -> Result<Planned> {
    let empty = Scope { columns: Vec::new() };
    let mut host = PlanHost::new(params);
    let mut rows = Vec::new();
    for list in &stmt.values_lists {
        let Some(NodeEnum::List(items)) = list.node.as_ref() else { continue };
        rows.push(
            items
                .items
                .iter()
                .map(|i| analyze(i, &empty, &mut host))
                .collect::<Result<Vec<_>>>()?,
        );
    }
    let width = rows.first().map_or(0, Vec::len);
    if rows.iter().any(|r| r.len() != width) {
        return Err(SqlError::syntax("VALUES lists must all be the same length"));
    }
    let mut columns = Vec::new();
    for i in 0..width {
        let column: Vec<Expr> = rows.iter().map(|r| r[i].clone()).collect();
        let ty = match select_common_type(&column, "VALUES")? {
            SqlType::Unknown => SqlType::Text,
            t => t,
        };
        for row in rows.iter_mut() {
            let e = std::mem::replace(
                &mut row[i],
                Expr::constant(sluice_types::Datum::Null, SqlType::Unknown, -1),
            );
            row[i] = crate::expr::coerce(e, ty, -1, crate::expr::CoercionContext::Implicit)?;
        }
        columns.push(OutputColumn::computed(format!("column{}", i + 1), ty, -1));
    }
    Ok(Planned { plan: Plan::Values(rows), columns })
}
