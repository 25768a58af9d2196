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
mod from_functions;
mod joins;
mod planner;
mod relations;
mod rowmarks;
mod setop;
mod targets;
mod view;

pub use crate::expr::relation_scope;
use crate::optimizer::{
    choose_hashed_agg, choose_ordered_scan, choose_scan, covers, LimitEstimate, OrderRequest,
    ScanContext,
};
use crate::parser::unsupported::refuse;
use planner::LateralRefs;
pub(crate) use planner::Planner;
pub(crate) use relations::catalog_moved_on;
use relations::is_system_view;
pub use relations::open_relation;
use rowmarks::{FromKind, LockRequest};
use sluice_access::heap::visibility::VisibilityContext;
use targets::*;
pub(crate) use view::stored_select;

use super::context::PlannerContext;
use super::planhost::PlanHost;
use super::plannodes::{JoinKind, LockRowsSpec, Plan, RowMark, ScanMethod, SortKey};
use crate::catalog::namespace::{self, missing_relation};
use crate::catalog::relation::{self, RelationDesc};
use crate::catalog::schema::RelKind;
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::expr::{
    analyze, check_boolean, column_name, expand_star, resolve_unknown_with, select_common_type,
    star_indirection, Expr, Scope, ScopeColumn,
};
use crate::optimizer::prune::{prune_scan_columns, single_scan};
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
    parts: &mut dyn PlannerContext,
    stmt: &SelectStmt,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Planned> {
    plan_statement(parts, stmt, params, true)
}

/// plan_insert_source -- plans the SELECT of INSERT ... SELECT: untyped
/// output columns stay `unknown`, for the INSERT to coerce to its columns'
/// types (`INSERT INTO t (n) SELECT $1` makes `$1` the column's type).
pub fn plan_insert_source(
    parts: &mut dyn PlannerContext,
    stmt: &SelectStmt,
    params: &mut Vec<Option<SqlType>>,
) -> Result<Planned> {
    plan_statement(parts, stmt, params, false)
}

/// A whole statement's query, with the registry of its subplans.
fn plan_statement(
    parts: &mut dyn PlannerContext,
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
    refuse_nested_set_functions(&targets)?;
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

/// The projection expands set-returning calls at the top of a select-list
/// item only (`executor/plan/project_set.rs`); one inside an expression
/// (`unnest(a) + 1`) is 0A000 for now.
fn refuse_nested_set_functions(targets: &[Target]) -> Result<()> {
    fn nested(e: &Expr) -> Option<Option<u32>> {
        e.children().into_iter().find_map(|c| match c {
            Expr::Call { func: crate::expr::Builtin::Unnest, location, .. } => Some(*location),
            c => nested(c),
        })
    }
    match targets.iter().find_map(|t| nested(&t.expr)) {
        Some(location) => Err(SqlError::unsupported(
            "set-returning functions inside expressions are not supported yet",
        )
        .at(location)),
        None => Ok(()),
    }
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
    let mut parts = pl.parts().planner_parts();
    let types = parts.type_catalog();
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    choose(&ScanContext::new(parts.engine, parts.database, parts.settings, &ctx, types))
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
    Ok(result.map_or((Plan::Result, Scope::default()), |r| (r.plan, r.scope)))
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
    scope.relations.extend(right.scope.relations);
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
        Some(NodeEnum::RangeVar(rv)) => plan_range_var(pl, rv, params),
        Some(NodeEnum::RangeFunction(rf)) => from_functions::plan_function(pl, rf, params, lateral),
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
) -> Result<FromItem> {
    let mut hidden_cte = false;
    if rv.schemaname.is_empty() {
        match cte::lookup(pl, params, &rv.relname, position(rv.location))? {
            cte::Lookup::Found(plan, columns) => {
                let scope = alias_scope(columns, rv.alias.as_ref(), &rv.relname)?;
                pl.row_mark_for(refname(rv), FromKind::Cte);
                return Ok(FromItem::plain(*plan, scope));
            }
            cte::Lookup::Hidden => hidden_cte = true,
            cte::Lookup::Missing => {}
        }
    }
    if is_system_view(rv) {
        let view = pl.parts().system_view_rows(&rv.relname)?;
        let scope = alias_scope(view.columns, rv.alias.as_ref(), &rv.relname)?;
        return Ok(FromItem::plain(Plan::Rows(view.rows), scope));
    }
    let marked = pl.marks_table(refname(rv));
    let mode = if marked { LockMode::RowShare } else { LockMode::AccessShare };
    let rel = match open_relation(pl.parts(), rv, mode) {
        Err(e) if hidden_cte && e.code == "42P01" => return Err(cte::hidden_error(e, &rv.relname)),
        other => other?,
    };
    if rel.kind == RelKind::View {
        return view::plan_view(pl, rv, &rel, params);
    }
    if !rel.populated {
        return Err(SqlError::new(
            "55000",
            format!("materialized view \"{}\" has not been populated", rel.name),
        )
        .with_hint("Use the REFRESH MATERIALIZED VIEW command."));
    }
    let mark = pl.row_mark_for(refname(rv), FromKind::Relation);
    let mut scope =
        alias_scope(relation_scope(&rel, &rel.name).columns, rv.alias.as_ref(), &rel.name)?;
    scope.relations = vec![(refname(rv).to_string(), rel.oid)];
    if let Some(spec) = mark {
        scope.columns.push(rowmarks::junk_column(refname(rv)));
        pl.note_marked(&rel, spec);
    }
    let alias = rv.alias.as_ref().map(|a| a.aliasname.clone()).filter(|a| *a != rel.name);
    let scan = Plan::SeqScan { rel: Box::new(rel), needed: None, alias, ctid: mark.is_some() };
    Ok(FromItem::plain(scan, scope))
}

/// The name a FROM table goes by: its alias, else its name.
pub(crate) fn refname(rv: &protobuf::RangeVar) -> &str {
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
    // Hidden columns (dropped ones, row-address junk) take no alias.
    let visible = columns.iter().filter(|c| !c.name.starts_with('\0')).count();
    if names.len() > visible {
        return Err(SqlError::new(
            "42P10",
            format!(
                "table \"{name}\" has {visible} columns available but {} columns specified",
                names.len()
            ),
        ));
    }
    let named = columns.iter_mut().filter(|c| !c.name.starts_with('\0'));
    for (column, new_name) in named.zip(names) {
        column.name = new_name;
    }
    for column in &mut columns {
        column.table = Some(name.to_string());
    }
    Ok(Scope { columns, relations: Vec::new() })
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
    scope.relations.extend(inner.scope.relations.iter().cloned());
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
    let empty = Scope::default();
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
