//! Planning SELECT (PostgreSQL's analyze.c transformSelectStmt and the
//! planner): the FROM list is built as nested loops in writing order, then
//! `joins.rs` places the WHERE clause and orders and costs the joins
//! (`optimizer/joinpath.rs`); scans, grouping strategy and ORDER BY ...
//! LIMIT paths are chosen by cost (`optimizer/`).
//!
//! One [`Planner`] serves a whole statement: it plans the subqueries found
//! in expressions (`planner.rs`), WITH queries (`cte.rs`) and set operations
//! (`setop.rs`) into the statement's subplan registry, and
//! [`plan_select`] puts the registry at the plan's root.

mod cte;
mod joins;
mod planner;
mod rowmarks;
mod setop;

use crate::optimizer::{
    choose_hashed_agg, choose_ordered_scan, choose_scan, covers, LimitEstimate, OrderRequest,
    ScanContext,
};
use crate::parser::unsupported::refuse;
use planner::LateralRefs;
pub(crate) use planner::Planner;
pub use rowmarks::RowLockSpec;
use rowmarks::{FromKind, LockRequest};
use sluice_access::heap::visibility::VisibilityContext;

use super::host::PlanHost;
use super::indexscan::ScanMethod;
use super::plan::lockrows::{LockRowsSpec, RowMark};
use super::plan::{prune_scan_columns, single_scan, JoinKind, Plan, SortKey};
use crate::catalog::namespace::missing_relation;
use crate::catalog::relation::{self, RelationDesc};
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::executor::context::ExecParts;
use crate::executor::lmgr::lock_relation_in;
use crate::expr::{
    analyze, check_boolean, column_name, expand_star, resolve_unknown_with, select_common_type,
    star_indirection, Expr, Scope, ScopeColumn,
};
use crate::sink::OutputColumn;
use pg_query::protobuf::{self, Node, SelectStmt, SortBy, SortByDir, SortByNulls};
use pg_query::NodeEnum;
use sluice_common::Oid;
use sluice_txn::lmgr::LockMode;
use sluice_txn::IsolationLevel;
use sluice_types::{format_type, SqlType};

/// A planned query: the plan and the columns it returns.
#[derive(Debug)]
pub struct Planned {
    /// The plan.
    pub plan: Plan,
    /// Result columns.
    pub columns: Vec<OutputColumn>,
}

/// plan_select -- plans a SELECT (or VALUES) statement whose rows go to the
/// client (or COPY, or EXPLAIN). Output columns that are still untyped —
/// literals, and parameters the client sent without a type (`SELECT $1`) —
/// become `text`, as PostgreSQL's `resolveTargetListUnknowns` makes them,
/// so Parse's ParameterDescription and RowDescription agree with the rows
/// an execution returns.
pub fn plan_select(
    parts: &mut ExecParts,
    stmt: &SelectStmt,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Planned> {
    plan_statement(parts, stmt, params, true)
}

/// plan_insert_source -- plans the SELECT of INSERT ... SELECT: untyped
/// output columns stay `unknown`, for the INSERT to coerce to its columns'
/// types (`INSERT INTO t (n) SELECT $1` makes `$1` the column's type).
pub fn plan_insert_source(
    parts: &mut ExecParts,
    stmt: &SelectStmt,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Planned> {
    plan_statement(parts, stmt, params, false)
}

/// A whole statement's query, with the registry of its subplans.
fn plan_statement(
    parts: &mut ExecParts,
    stmt: &SelectStmt,
    params: &mut Vec<Option<SqlType>>,
    resolve_unknowns: bool,
) -> Result<Planned> {
    let mut planner = Planner::new(parts);
    let planned = plan_query(&mut planner, params, stmt, resolve_unknowns)?;
    Ok(planner.finish(planned))
}

/// plan_query -- plans one query of a statement: its WITH list, then its
/// body. `resolve_unknowns` gives untyped output columns the type `text`, as
/// PostgreSQL does for subqueries.
fn plan_query(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    stmt: &SelectStmt,
    resolve_unknowns: bool,
) -> Result<Planned> {
    match &stmt.with_clause {
        Some(with) => cte::with_ctes(pl, params, with, |pl, params| {
            plan_body(pl, params, stmt, resolve_unknowns)
        }),
        None => plan_body(pl, params, stmt, resolve_unknowns),
    }
}

/// A query without its WITH list: VALUES, a set operation or a SELECT.
fn plan_body(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    stmt: &SelectStmt,
    resolve_unknowns: bool,
) -> Result<Planned> {
    refuse_select_clauses(stmt)?;
    if !stmt.values_lists.is_empty() {
        return plan_values(pl, stmt, params);
    }
    if stmt.op != protobuf::SetOperation::SetopNone as i32 {
        rowmarks::set_operation_error(stmt, pl.inherited_lock.take())?;
        return setop::plan_set_operation(pl, params, stmt);
    }
    plan_simple(pl, params, stmt, resolve_unknowns)
}

/// refuse_select_clauses -- 0A000 for the clauses of a SELECT that sluice
/// does not implement (see `parser/unsupported.rs`). WINDOW definitions are
/// refused here even when no window function uses them (those calls are
/// refused in `expr/func.rs`).
fn refuse_select_clauses(stmt: &SelectStmt) -> Result<()> {
    refuse(stmt.into_clause.is_some(), "SELECT ... INTO is not supported yet")?;
    refuse(stmt.group_distinct, "GROUP BY DISTINCT is not supported yet")?;
    refuse(!stmt.window_clause.is_empty(), "WINDOW clauses are not supported yet")?;
    refuse(
        stmt.limit_option == protobuf::LimitOption::WithTies as i32,
        "FETCH ... WITH TIES is not supported yet",
    )
}

/// A SELECT without set operations.
fn plan_simple(
    pl: &mut Planner,
    params: &mut Vec<Option<SqlType>>,
    stmt: &SelectStmt,
    resolve_unknowns: bool,
) -> Result<Planned> {
    let request = LockRequest::from_clauses(&stmt.locking_clause, pl.inherited_lock.take())?;
    let outer_request = std::mem::replace(&mut pl.locking, request);
    let (mut plan, scope) = plan_from(pl, &stmt.from_clause, params)?;
    let request = std::mem::replace(&mut pl.locking, outer_request);
    let mut host = PlanHost::with_planner(params, pl, &scope);
    let mut qual = None;
    if let Some(where_clause) = stmt.where_clause.as_deref() {
        host.agg_clause = Some("WHERE");
        qual = Some(check_boolean(analyze(where_clause, &scope, &mut host)?, "WHERE")?);
    }
    drop(host);
    let recheck = request.as_ref().and(qual.clone());
    if matches!(plan, Plan::NestLoop { .. }) {
        let types: Vec<joins::ColumnType> =
            scope.columns.iter().map(|c| (c.ty, c.typmod)).collect();
        plan = joins::plan_joins(pl, plan, qual, &types)?;
    } else {
        plan = choose_table_scan(pl, plan, qual.as_ref())?;
        if let Some(qual) = qual {
            plan = Plan::Filter { input: Box::new(plan), qual, agg_offset: None };
        }
    }
    let mut host = PlanHost::with_planner(params, pl, &scope);
    host.agg_clause = None;
    let mut targets = analyze_targets(&stmt.target_list, &scope, &mut host)?;
    if resolve_unknowns {
        for t in &mut targets {
            let expr = std::mem::replace(
                &mut t.expr,
                Expr::constant(sluice_types::Datum::Null, SqlType::Unknown, -1),
            );
            t.expr = resolve_unknown_with(&mut host, expr)?;
            t.column = output_column(&t.column.name, &t.expr, &scope);
        }
    }
    let group_keys = analyze_group_by(&stmt.group_clause, &scope, &targets, &mut host)?;
    let having = match stmt.having_clause.as_deref() {
        Some(h) => Some(check_boolean(analyze(h, &scope, &mut host)?, "HAVING")?),
        None => None,
    };
    let sort = analyze_sort(&stmt.sort_clause, &scope, &targets, &mut host)?;
    if let Some(request) = &request {
        rowmarks::check_select_locking(request.first_clause(), stmt, !host.aggs.is_empty())?;
        request.check_names()?;
    }
    let aggregating = !host.aggs.is_empty() || !group_keys.is_empty() || having.is_some();
    let mut agg_offset = None;
    if aggregating {
        agg_offset = Some(scope.columns.len());
        let aggs = std::mem::take(&mut host.aggs);
        drop(host);
        let hashed = !group_keys.is_empty()
            && aggs.iter().all(|a| !a.distinct)
            && with_scan_context(pl, |sc| choose_hashed_agg(sc, &plan, &group_keys, aggs.len()))?;
        host = PlanHost::with_planner(params, pl, &scope);
        plan = Plan::Aggregate {
            input: Box::new(plan),
            keys: group_keys,
            aggs,
            input_width: scope.columns.len(),
            hashed,
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
    let marks = row_marks(request, &scope);
    let locked = (!marks.is_empty()).then(|| LockRowsSpec {
        marks,
        from: exprs.len(),
        recheck,
        exprs: exprs.clone(),
    });
    if locked.is_some() {
        // The whole FROM row rides along for LockRows' re-check.
        exprs
            .extend(scope.columns.iter().enumerate().map(|(i, c)| Expr::column(i, c.ty, c.typmod)));
    }
    plan = Plan::Project { input: Box::new(plan), exprs, agg_offset };
    if !stmt.distinct_clause.is_empty() {
        plan = Plan::Distinct { input: Box::new(plan), width };
    }
    drop(host);
    let presorted = match (keys.as_slice(), limit_estimate(stmt)) {
        ([key], Some(limit)) if !aggregating && stmt.distinct_clause.is_empty() => {
            use_index_order(pl, &mut plan, key, limit)?
        }
        _ => false,
    };
    if !keys.is_empty() && !presorted {
        plan = Plan::Sort { input: Box::new(plan), keys };
    }
    if let Some(spec) = locked {
        plan = Plan::LockRows { input: Box::new(plan), spec: Box::new(spec) };
    }
    let mut host = PlanHost::with_planner(params, pl, &scope);
    plan = plan_limit(stmt, plan, &mut host)?;
    if columns.len() < plan_width(&plan, width) {
        plan = Plan::Truncate { input: Box::new(plan), width };
    }
    if let Some(needed) = prune_scan_columns(&mut plan, pl.registry()) {
        reconsider_scan(pl, &mut plan, &needed, presorted)?;
    }
    Ok(Planned { plan, columns })
}

/// What is known of the LIMIT of `stmt` when planning (what costing a
/// presorted path needs): an integer constant, or a parameter whose value
/// comes only with execution.
fn limit_estimate(stmt: &SelectStmt) -> Option<LimitEstimate> {
    let node = stmt.limit_count.as_deref()?;
    match node.node.as_ref()? {
        NodeEnum::AConst(c) => match c.val.as_ref()? {
            protobuf::a_const::Val::Ival(i) => Some(LimitEstimate::Rows(f64::from(i.ival))),
            _ => None,
        },
        NodeEnum::ParamRef(_) => Some(LimitEstimate::Fraction(0.1)),
        _ => None,
    }
}

/// use_index_order -- for `ORDER BY column LIMIT n` over a single table
/// (`plan` is its projection), replaces the table's scan by an index scan
/// that returns the rows already in that order, if the optimizer prices it
/// cheaper than sorting (PostgreSQL's presorted index path). Returns whether
/// it did, so the caller adds no Sort.
fn use_index_order(
    pl: &mut Planner,
    plan: &mut Plan,
    key: &SortKey,
    limit: LimitEstimate,
) -> Result<bool> {
    let Plan::Project { input, exprs, .. } = plan else { return Ok(false) };
    let Some(Expr::Column { index: column, .. }) = exprs.get(key.column) else {
        return Ok(false);
    };
    if key.nulls_first != key.descending {
        return Ok(false); // an ASC index gives NULLS LAST forward, NULLS FIRST backward
    }
    let column = *column;
    let (slot, qual) = match &mut **input {
        Plan::Filter { input: scan, qual, agg_offset: None } => (scan, Some(qual.clone())),
        _ => (input, None),
    };
    let (rel, alias, ctid) = match &**slot {
        Plan::SeqScan { rel, alias, ctid, .. } | Plan::IndexScan { rel, alias, ctid, .. } => {
            (rel.clone(), alias.clone(), *ctid)
        }
        _ => return Ok(false),
    };
    let order = OrderRequest { column, descending: key.descending, limit };
    let chosen = with_scan_context(pl, |sc| {
        choose_ordered_scan(sc, &rel, &sc.indexes(&rel)?, qual.as_ref(), order)
    })?;
    match chosen {
        Some(path) => {
            **slot = Plan::IndexScan { rel, path: Box::new(path), alias, ctid };
            Ok(true)
        }
        None => Ok(false),
    }
}

/// OFFSET / LIMIT over `plan`, if the statement has them.
fn plan_limit(stmt: &SelectStmt, plan: Plan, host: &mut PlanHost) -> Result<Plan> {
    let (offset, limit) = (stmt.limit_offset.as_deref(), stmt.limit_count.as_deref());
    if offset.is_none() && limit.is_none() {
        return Ok(plan);
    }
    let empty = Scope::default();
    host.set_scope(&empty);
    let offset = offset.map(|o| analyze(o, &empty, host)).transpose()?;
    let limit = limit.map(|l| analyze(l, &empty, host)).transpose()?;
    Ok(Plan::Limit { input: Box::new(plan), offset, limit })
}

/// Columns the projected plan produces (targets plus hidden sort keys).
fn plan_width(plan: &Plan, targets: usize) -> usize {
    match plan {
        Plan::Project { exprs, .. } => exprs.len(),
        Plan::Distinct { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. }
        | Plan::LockRows { input, .. } => plan_width(input, targets),
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
fn reference_location(node: &Node) -> Option<u32> {
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
fn check_operator(ty: SqlType, kind: &str, location: Option<u32>) -> Result<()> {
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
fn sort_key(sort: &SortBy, column: usize) -> SortKey {
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
fn output_columns(targets: &[Target]) -> Vec<OutputColumn> {
    targets.iter().map(|t| t.column.clone()).collect()
}

/// An integer constant (position) or a bare name matching an output column.
fn output_reference(node: &Node, targets: &[OutputColumn], clause: &str) -> Result<Option<usize>> {
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

/// choose_table_scan -- `plan` read through an index instead, if it is a
/// sequential scan and the optimizer prices an index scan cheaper for
/// `qual`.
fn choose_table_scan(pl: &mut Planner, plan: Plan, qual: Option<&Expr>) -> Result<Plan> {
    let Plan::SeqScan { rel, needed, alias, ctid } = plan else { return Ok(plan) };
    Ok(match with_scan_context(pl, |sc| choose_scan(sc, &rel, &sc.indexes(&rel)?, qual, None))? {
        Some(path) => Plan::IndexScan { rel, path: Box::new(path), alias, ctid },
        None => Plan::SeqScan { rel, needed, alias, ctid },
    })
}

/// reconsider_scan -- once the columns the query reads from its one table
/// are known (`needed`), chooses its scan again if an index holds them all,
/// so that index-only scans compete too. PostgreSQL knows these columns
/// before it builds any path; sluice learns them only after planning the
/// select list. A scan chosen for its order (`presorted`) keeps its index
/// and only turns index-only.
fn reconsider_scan(
    pl: &mut Planner,
    plan: &mut Plan,
    needed: &[bool],
    presorted: bool,
) -> Result<()> {
    let Some((scan, qual)) = single_scan(plan) else { return Ok(()) };
    let qual = qual.cloned();
    let (Plan::SeqScan { rel, alias, .. } | Plan::IndexScan { rel, alias, .. }) = &*scan else {
        return Ok(());
    };
    let (rel, alias) = (rel.clone(), alias.clone());
    let (indexes, index_only) =
        with_scan_context(pl, |sc| Ok((sc.indexes(&rel)?, sc.params.enable_indexonlyscan)))?;
    if !index_only || !indexes.iter().any(|i| covers(i, Some(needed))) {
        return Ok(());
    }
    if let Plan::IndexScan { path, .. } = scan {
        if presorted {
            if path.method == ScanMethod::Plain && covers(&path.index, Some(needed)) {
                path.method = ScanMethod::IndexOnly;
            }
            return Ok(());
        }
    }
    let chosen =
        with_scan_context(pl, |sc| choose_scan(sc, &rel, &indexes, qual.as_ref(), Some(needed)))?;
    *scan = match chosen {
        Some(path) => Plan::IndexScan { rel, path: Box::new(path), alias, ctid: false },
        None => Plan::SeqScan { rel, needed: Some(needed.to_vec()), alias, ctid: false },
    };
    Ok(())
}

/// with_scan_context -- runs `choose` with the optimizer's view of the
/// statement (cost settings, the catalogs as its snapshot sees them).
pub(super) fn with_scan_context<T>(
    pl: &mut Planner,
    choose: impl FnOnce(&ScanContext) -> Result<T>,
) -> Result<T> {
    let parts = pl.parts();
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    choose(&ScanContext::new(parts.engine, &parts.env, &ctx))
}

/// A planned FROM item: its plan, its columns, and what it reads from the
/// FROM items to its left (only a LATERAL item, or a join containing one,
/// reads anything there).
struct FromItem {
    plan: Plan,
    scope: Scope,
    lateral: LateralRefs,
}

impl FromItem {
    /// An item that reads nothing from its left.
    fn plain(plan: Plan, scope: Scope) -> FromItem {
        FromItem { plan, scope, lateral: LateralRefs::default() }
    }
}

/// Plans the FROM list (a cross join of its items; each item may read the
/// columns of those before it if it is LATERAL).
fn plan_from(
    pl: &mut Planner,
    from: &[Node],
    params: &mut Vec<Option<SqlType>>,
) -> Result<(Plan, Scope)> {
    let mut result: Option<FromItem> = None;
    for item in from {
        let left_scope = result.as_ref().map(|r| r.scope.clone()).unwrap_or_default();
        let right = plan_from_item(pl, item, params, &left_scope)?;
        result = Some(match result {
            None => right,
            Some(left) => join_items(left, right, JoinKind::Inner, None, 0),
        });
    }
    Ok(result.map_or((Plan::Result, Scope { columns: Vec::new() }), |r| (r.plan, r.scope)))
}

/// join_items -- the nested loop joining `left` (outer) and `right` (inner).
/// `lateral_width` is how many columns of the lateral scope lie before
/// `left`'s (those of the FROM items left of the whole join): what `right`
/// reads from `left` becomes the loop's params, what it reads from further
/// left is passed on, with `left`'s own reads, for an enclosing loop to set.
fn join_items(
    left: FromItem,
    right: FromItem,
    kind: JoinKind,
    qual: Option<Expr>,
    lateral_width: usize,
) -> FromItem {
    let inner_width = right.scope.columns.len();
    let mut scope = left.scope;
    scope.columns.extend(right.scope.columns);
    let (own, further): (Vec<_>, Vec<_>) =
        right.lateral.args.into_iter().partition(|(_, e)| column_index(e) >= lateral_width);
    let params: Vec<(usize, Expr)> =
        own.into_iter().map(|(slot, e)| (slot, shift_column(e, lateral_width))).collect();
    let rescan_ctes = if params.is_empty() { Vec::new() } else { right.lateral.ctes.clone() };
    let mut lateral = left.lateral;
    if !further.is_empty() {
        lateral.ctes.extend(right.lateral.ctes);
    }
    lateral.args.extend(further);
    let plan = Plan::NestLoop {
        outer: Box::new(left.plan),
        inner: Box::new(right.plan),
        kind,
        qual,
        inner_width,
        params,
        rescan_ctes,
    };
    FromItem { plan, scope, lateral }
}

/// The column a lateral reference reads (a [`LateralRefs`] arg).
fn column_index(e: &Expr) -> usize {
    match e {
        Expr::Column { index, .. } => *index,
        _ => usize::MAX,
    }
}

/// A lateral reference to column `index` read, from a row that starts at
/// lateral scope column `by`, as column `index - by`.
fn shift_column(e: Expr, by: usize) -> Expr {
    match e {
        Expr::Column { index, ty, typmod, location } => {
            Expr::Column { index: index - by, ty, typmod, location }
        }
        other => other,
    }
}

/// plan_from_item -- one FROM item; `lateral` holds the columns of the FROM
/// items to its left, which a LATERAL subquery or a function may read.
fn plan_from_item(
    pl: &mut Planner,
    item: &Node,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<FromItem> {
    match item.node.as_ref() {
        Some(NodeEnum::RangeVar(rv)) => {
            plan_range_var(pl, rv, params).map(|(plan, scope)| FromItem::plain(plan, scope))
        }
        Some(NodeEnum::RangeFunction(rf)) => plan_function(pl, rf, params, lateral),
        Some(NodeEnum::JoinExpr(join)) => plan_join(pl, join, params, lateral),
        Some(NodeEnum::RangeSubselect(sub)) => plan_subselect(pl, sub, params, lateral),
        _ => Err(SqlError::unsupported("this kind of FROM item is not supported yet")),
    }
}

/// A name in FROM: a WITH query in scope, a system view or a table.
fn plan_range_var(
    pl: &mut Planner,
    rv: &protobuf::RangeVar,
    params: &mut Vec<Option<SqlType>>,
) -> Result<(Plan, Scope)> {
    let mut hidden_cte = false;
    if rv.schemaname.is_empty() {
        match cte::lookup(pl, params, &rv.relname, position(rv.location))? {
            cte::Lookup::Found(plan, columns) => {
                let scope = alias_scope(columns, rv.alias.as_ref(), &rv.relname)?;
                pl.row_mark_for(refname(rv), FromKind::Cte);
                return Ok((*plan, scope));
            }
            cte::Lookup::Hidden => hidden_cte = true,
            cte::Lookup::Missing => {}
        }
    }
    if is_system_view(rv) {
        let parts = pl.parts();
        let view = super::sysviews::lookup(&rv.relname, parts)?.expect("checked");
        let scope = alias_scope(view.columns, rv.alias.as_ref(), &rv.relname)?;
        return Ok((Plan::Rows(view.rows), scope));
    }
    let mark = pl.row_mark_for(refname(rv), FromKind::Relation);
    let mode = if mark.is_some() { LockMode::RowShare } else { LockMode::AccessShare };
    let rel = match open_relation(pl.parts(), rv, mode) {
        Err(e) if hidden_cte && e.code == "42P01" => return Err(cte::hidden_error(e, &rv.relname)),
        other => other?,
    };
    let mut scope =
        alias_scope(relation_scope(&rel, &rel.name).columns, rv.alias.as_ref(), &rel.name)?;
    if let Some(spec) = mark {
        scope.columns.push(rowmarks::junk_column(refname(rv)));
        pl.note_marked(&rel, spec);
    }
    let alias = rv.alias.as_ref().map(|a| a.aliasname.clone()).filter(|a| *a != rel.name);
    Ok((Plan::SeqScan { rel: Box::new(rel), needed: None, alias, ctid: mark.is_some() }, scope))
}

/// The name a FROM table goes by: its alias, else its name.
fn refname(rv: &protobuf::RangeVar) -> &str {
    rv.alias.as_ref().map_or(rv.relname.as_str(), |a| a.aliasname.as_str())
}

/// row_marks -- the tables `request` locks in a FROM list whose columns are
/// `scope`: each one's junk row-address column follows its columns, in the
/// order the tables were planned (the order of `scope`).
fn row_marks(request: Option<LockRequest>, scope: &Scope) -> Vec<RowMark> {
    let Some(request) = request else { return Vec::new() };
    let junk = scope.columns.iter().enumerate().filter(|(_, c)| rowmarks::is_junk(c));
    junk.zip(request.into_marked())
        .map(|((tid, _), (rel, spec))| RowMark {
            first: tid - rel.columns.len(),
            tid,
            rel: Box::new(rel),
            spec,
        })
        .collect()
}

/// `[LATERAL] (SELECT ...) AS alias(columns)`; only a LATERAL one sees the
/// columns in `lateral`.
fn plan_subselect(
    pl: &mut Planner,
    sub: &protobuf::RangeSubselect,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<FromItem> {
    let Some(NodeEnum::SelectStmt(select)) = sub.subquery.as_deref().and_then(|n| n.node.as_ref())
    else {
        return Err(SqlError::unsupported("this subquery is not supported yet"));
    };
    // PostgreSQL 16's grammar made the alias optional; 15 requires it.
    let alias = sub.alias.as_ref().ok_or_else(|| {
        SqlError::syntax("subquery in FROM must have an alias")
            .with_hint("For example, FROM (SELECT ...) [AS] foo.")
    })?;
    pl.inherited_lock = pl.row_mark_for(&alias.aliasname, FromKind::Subquery);
    let (planned, refs) = if sub.lateral {
        pl.lateral(lateral, |pl| plan_query(pl, params, select, true))?
    } else {
        (plan_query(pl, params, select, true)?, LateralRefs::default())
    };
    pl.inherited_lock = None;
    let columns = planned.columns.iter().map(|c| scope_column(None, c)).collect();
    let scope = alias_scope(columns, Some(alias), &alias.aliasname)?;
    Ok(FromItem { plan: planned.plan, scope, lateral: refs })
}

/// A scope column for an output column, qualified by `table`.
fn scope_column(table: Option<&str>, c: &OutputColumn) -> ScopeColumn {
    ScopeColumn {
        table: table.map(str::to_string),
        name: c.name.clone(),
        ty: c.ty,
        typmod: c.typmod,
    }
}

/// alias_scope -- `columns` qualified by the alias's name (else `table`) and
/// renamed by its column list (42P10 if that list is longer).
fn alias_scope(
    mut columns: Vec<ScopeColumn>,
    alias: Option<&protobuf::Alias>,
    table: &str,
) -> Result<Scope> {
    let name = alias.map_or(table, |a| a.aliasname.as_str());
    let names: Vec<String> = alias
        .map(|a| a.colnames.iter().filter_map(crate::parser::node_str).collect())
        .unwrap_or_default();
    if names.len() > columns.len() {
        return Err(SqlError::new(
            "42P10",
            format!(
                "table \"{name}\" has {} columns available but {} columns specified",
                columns.len(),
                names.len()
            ),
        ));
    }
    for (column, new_name) in columns.iter_mut().zip(names) {
        column.name = new_name;
    }
    for column in &mut columns {
        column.table = Some(name.to_string());
    }
    Ok(Scope { columns })
}

/// Whether `rv` names a system view computed from live state.
fn is_system_view(rv: &protobuf::RangeVar) -> bool {
    matches!(rv.schemaname.as_str(), "" | "pg_catalog")
        && (super::sysviews::SYSTEM_VIEWS.contains(&rv.relname.as_str())
            || super::pgstat_views::VIEWS.contains(&rv.relname.as_str()))
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

/// open_relation -- looks up a table named in a query and locks it in
/// `mode`. The name is looked up before the lock is granted; if a
/// transaction that held a conflicting lock meanwhile committed a change to
/// the table's catalog row (a TRUNCATE's new file, a DROP), the lookup is
/// repeated with a fresh snapshot (see [`catalog_moved_on`]), so rows are
/// never read from, or written to, a file the table no longer has.
pub fn open_relation(
    parts: &mut ExecParts,
    rv: &protobuf::RangeVar,
    mode: LockMode,
) -> Result<RelationDesc> {
    loop {
        let rel = lookup_relation(parts, rv)?;
        lock_relation_in(parts, rel.oid, mode)?;
        if !catalog_moved_on(parts, rel.oid, mode >= LockMode::RowExclusive)? {
            return Ok(rel);
        }
    }
}

/// catalog_moved_on -- after locking relation `oid`: whether its `pg_class`
/// row as this statement read it was replaced by a transaction that
/// committed since the statement's snapshot (PostgreSQL would have received
/// an invalidation). Under READ COMMITTED the statement then drops its
/// snapshot, so that looking the relation up again finds the current row
/// (and later reads use the newer snapshot, as PostgreSQL's would, taken
/// after locking) — the caller looks it up again. Under REPEATABLE READ the
/// snapshot cannot move: a statement about to write (`writing`) fails with
/// 40001 rather than write through a stale description; a reader carries on.
pub(crate) fn catalog_moved_on(parts: &mut ExecParts, oid: Oid, writing: bool) -> Result<bool> {
    if !relation::superseded(parts.engine, parts.env.database, parts.txn, oid)? {
        return Ok(false);
    }
    if parts.txn.isolation() == IsolationLevel::ReadCommitted {
        parts.txn.end_statement();
        return Ok(true);
    }
    if writing {
        return Err(SqlError::new("40001", "could not serialize access due to concurrent update"));
    }
    Ok(false)
}

/// The table `rv` names, as the statement's snapshot sees the catalogs.
fn lookup_relation(parts: &mut ExecParts, rv: &protobuf::RangeVar) -> Result<RelationDesc> {
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
    relation::lookup(parts.engine, parts.env.database, parts.txn, &namespaces, &rv.relname)?
        .ok_or_else(|| missing_relation(&rv.relname).at(position(rv.location)))
}

/// A function in FROM (so far generate_series). Like PostgreSQL's, its
/// arguments may read the columns of the FROM items to its left (`lateral`)
/// with or without the LATERAL keyword.
fn plan_function(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<FromItem> {
    refuse(rf.ordinality, "WITH ORDINALITY is not supported yet")?;
    refuse(rf.is_rowsfrom, "ROWS FROM is not supported yet")?;
    refuse(!rf.coldeflist.is_empty(), "column definition lists are not supported yet")?;
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
    let name = call.funcname.last().and_then(crate::parser::node_str).unwrap_or_default();
    if super::backend_status::is_backend_function(&name) {
        return plan_backend_function(pl, rf, call, &name, params);
    }
    if let Some(function) = crate::expr::StatField::function(&name) {
        return plan_stat_function(pl, rf, call, function, params);
    }
    if name != "generate_series" || !(2..=3).contains(&call.args.len()) {
        return Err(SqlError::unsupported(format!("function {name} in FROM is not supported yet")));
    }
    let (args, refs) = pl.lateral(lateral, |pl| {
        let empty = Scope { columns: Vec::new() };
        let mut host = PlanHost::with_planner(params, pl, &empty);
        call.args.iter().map(|a| analyze(a, &empty, &mut host)).collect::<Result<Vec<_>>>()
    })?;
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
    let refname = rf.alias.as_ref().map_or(name.as_str(), |a| a.aliasname.as_str());
    pl.row_mark_for(refname, FromKind::Function);
    let (table, column) = match &rf.alias {
        Some(alias) => {
            let col = alias
                .colnames
                .first()
                .and_then(crate::parser::node_str)
                .unwrap_or_else(|| alias.aliasname.clone());
            (alias.aliasname.clone(), col)
        }
        None => ("generate_series".to_string(), "generate_series".to_string()),
    };
    let scope =
        Scope { columns: vec![ScopeColumn { table: Some(table), name: column, ty, typmod: -1 }] };
    Ok(FromItem { plan: Plan::GenerateSeries { start, stop, step, ty }, scope, lateral: refs })
}

/// A backend statistics function in FROM (`backend_status.rs`): its rows
/// are computed now, from constant arguments.
fn plan_backend_function(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    call: &protobuf::FuncCall,
    name: &str,
    params: &mut Vec<Option<SqlType>>,
) -> Result<FromItem> {
    let args = constant_args(pl, call, params)?
        .into_iter()
        .map(|a| crate::expr::coerce(a, SqlType::Int4, -1, crate::expr::CoercionContext::Implicit))
        .collect::<Result<Vec<_>>>()?;
    let mut view = super::backend_status::function_rows(name, &args, pl.parts())?;
    // A function returning a scalar names its column after the alias.
    if let ([column], Some(alias)) = (view.columns.as_mut_slice(), rf.alias.as_ref()) {
        column.name = alias.aliasname.clone();
    }
    let scope = alias_scope(view.columns, rf.alias.as_ref(), name)?;
    Ok(FromItem { plan: Plan::Rows(view.rows), scope, lateral: LateralRefs::default() })
}

/// The arguments of a function in FROM that is computed at planning time,
/// analyzed with no columns in scope (they must not depend on a row).
fn constant_args(
    pl: &mut Planner,
    call: &protobuf::FuncCall,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Vec<Expr>> {
    let empty = Scope { columns: Vec::new() };
    let mut host = PlanHost::with_planner(params, pl, &empty);
    call.args.iter().map(|a| analyze(a, &empty, &mut host)).collect()
}

/// `pgstattuple(rel)` or `pgstatindex(rel)` in FROM (the `pgstattuple`
/// extension, `functions/pgstattuple.rs`): one row, computed now from a
/// constant argument, like the backend functions above. Before CREATE
/// EXTENSION the function does not exist (42883, as PostgreSQL).
fn plan_stat_function(
    pl: &mut Planner,
    rf: &protobuf::RangeFunction,
    call: &protobuf::FuncCall,
    function: crate::expr::StatField,
    params: &mut Vec<Option<SqlType>>,
) -> Result<FromItem> {
    use super::functions::pgstattuple;
    let args = constant_args(pl, call, params)?;
    let types: Vec<String> = args.iter().map(|a| sluice_types::format_type(a.ty(), -1)).collect();
    let regclass = matches!(
        args.iter().map(|a| a.ty()).collect::<Vec<_>>().as_slice(),
        [SqlType::Unknown
            | SqlType::Text
            | SqlType::Varchar
            | SqlType::Oid
            | SqlType::Int4
            | SqlType::Reg(sluice_types::RegKind::Class)]
    );
    let name = function.name();
    if !regclass || !extension_installed(pl.parts(), pgstattuple::EXTENSION)? {
        return Err(SqlError::new(
            "42883",
            format!("function {name}({}) does not exist", types.join(", ")),
        )
        .with_hint(
            "No function matches the given name and argument types. You might need to add \
             explicit type casts.",
        )
        .at(position(call.location)));
    }
    let arg = args.into_iter().next().expect("one argument");
    let target = if matches!(arg.ty(), SqlType::Oid | SqlType::Int4 | SqlType::Reg(_)) {
        SqlType::Oid
    } else {
        SqlType::Text
    };
    let arg = crate::expr::coerce(arg, target, -1, crate::expr::CoercionContext::Implicit)?;
    let Expr::Const { value, .. } = &arg else {
        return Err(SqlError::unsupported(format!(
            "{name} in FROM is supported with a constant argument only"
        )));
    };
    let parts = pl.parts();
    parts.plan_log.reads_live_state = true;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let rel = super::functions::resolve_in(parts.engine, parts.env.database, &ctx, value)?;
    let rows = match rel {
        Some(rel) => {
            // Read like a scan: the relation cannot be dropped or rewritten.
            lock_relation_in(parts, rel.oid, LockMode::AccessShare)?;
            let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
            vec![pgstattuple::stat_row(parts.engine, function, &rel, &ctx)?]
        }
        None => Vec::new(),
    };
    let columns = function
        .result_columns()
        .iter()
        .map(|(column, ty)| ScopeColumn {
            table: Some(name.to_string()),
            name: column.to_string(),
            ty: *ty,
            typmod: -1,
        })
        .collect();
    let scope = alias_scope(columns, rf.alias.as_ref(), name)?;
    Ok(FromItem { plan: Plan::Rows(rows), scope, lateral: LateralRefs::default() })
}

/// `left [INNER|LEFT] JOIN right ON ...`: `right` may also read `left`'s
/// columns if it is LATERAL, after those of `lateral`.
fn plan_join(
    pl: &mut Planner,
    join: &protobuf::JoinExpr,
    params: &mut Vec<Option<SqlType>>,
    lateral: &Scope,
) -> Result<FromItem> {
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
    if let Some(alias) = &join.alias {
        pl.row_mark_for(&alias.aliasname, FromKind::Join);
    }
    let outer = plan_from_item(pl, left, params, lateral)?;
    let mut right_lateral = lateral.clone();
    right_lateral.columns.extend(outer.scope.columns.iter().cloned());
    let inner = plan_from_item(pl, right, params, &right_lateral)?;
    let mut scope = outer.scope.clone();
    scope.columns.extend(inner.scope.columns.iter().cloned());
    let qual = match join.quals.as_deref() {
        Some(q) => {
            let mut host = PlanHost::with_planner(params, pl, &scope);
            host.agg_clause = Some("JOIN conditions");
            Some(check_boolean(analyze(q, &scope, &mut host)?, "JOIN/ON")?)
        }
        None => None,
    };
    Ok(join_items(outer, inner, kind, qual, lateral.columns.len()))
}

/// VALUES (...), (...): every row coerced to the columns' common types.
fn plan_values(
    pl: &mut Planner,
    stmt: &SelectStmt,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Planned> {
    let empty = Scope { columns: Vec::new() };
    let mut host = PlanHost::with_planner(params, pl, &empty);
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

/// Whether extension `name` is installed, under the planned statement's snapshot.
fn extension_installed(parts: &mut ExecParts, name: &str) -> Result<bool> {
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    crate::catalog::extension::installed(parts.engine, parts.env.database, &ctx, name)
}
