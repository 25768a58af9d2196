//! Planning INSERT, UPDATE and DELETE (PostgreSQL's `transformInsertStmt`,
//! `transformUpdateStmt` and `transformDeleteStmt`, with the planner's
//! choice of how a ModifyTable finds its rows).
//!
//! A statement becomes a [`ModifyPlan`]: its target table, opened and
//! locked `RowExclusive` as PostgreSQL's parser locks it, what it does, and
//! its RETURNING list, all analysed once. The executor runs it
//! (`executor/modify.rs`); the plan cache keeps it like a SELECT plan, so a
//! prepared statement neither parses nor plans again.
//!
//! UPDATE and DELETE find their rows through the scan the optimizer picks
//! for their WHERE clause; the subqueries of the clause and of the new
//! values are planned into the statement's registry. INSERT's rows come
//! from a VALUES list analysed straight to the target columns' types, or
//! from a query planned like a SELECT (`insert.rs`); ON CONFLICT's arbiter
//! indexes are inferred while planning (`onconflict.rs`).

mod insert;
pub mod onconflict;
mod view_target;

pub(crate) use view_target::{not_auto_updatable, rewrite_target_views, updatable_columns};

use super::choose_scan;
use super::constraint::{
    table_checks, table_generated, view_check, CheckExpr, GeneratedExpr, ViewCheckExpr,
};
use super::context::PlannerContext;
use super::planhost::PlanHost;
use super::plannodes::{IndexPath, Plan, Registry};
use super::select::{
    open_relation, plan_insert_source, relation_scope, with_scan_context, Planned, Planner,
};
use crate::catalog::pg_type::TypeCatalog;
use crate::catalog::relation::RelationDesc;
use crate::error::position;
use crate::error::{Result, SqlError};
use crate::expr::{
    analyze, check_boolean, coerce, coerce_to_column, column_name, CoercionContext, Expr, Scope,
};
use crate::parser::unsupported::refuse;
use crate::sink::OutputColumn;
use insert::plan_insert;
use onconflict::OnConflict;
use pg_query::protobuf::{DeleteStmt, Node, RangeVar, UpdateStmt};
use pg_query::NodeEnum;
use sluice_txn::lmgr::LockMode;
use sluice_types::SqlType;

/// The analysed RETURNING list, if any.
pub(crate) struct Returning {
    /// The expressions, over the changed row.
    pub(crate) exprs: Vec<Expr>,
    /// Their result columns.
    pub(crate) columns: Vec<OutputColumn>,
}

fn analyze_returning(
    list: &[Node],
    scope: &Scope,
    host: &mut PlanHost,
) -> Result<Option<Returning>> {
    if list.is_empty() {
        return Ok(None);
    }
    host.agg_clause = Some("RETURNING");
    let mut exprs = Vec::new();
    let mut columns = Vec::new();
    for node in list {
        let Some(NodeEnum::ResTarget(rt)) = node.node.as_ref() else { continue };
        let Some(val) = rt.val.as_deref() else { continue };
        if let Some(NodeEnum::ColumnRef(cr)) = val.node.as_ref() {
            if matches!(cr.fields.last().and_then(|f| f.node.as_ref()), Some(NodeEnum::AStar(_))) {
                for (name, e) in crate::expr::expand_star(scope, None)? {
                    columns.push(OutputColumn::computed(name, e.ty(), e.typmod()));
                    exprs.push(e);
                }
                continue;
            }
        }
        let e = analyze(val, scope, host)?;
        let name = if rt.name.is_empty() { column_name(val) } else { rt.name.clone() };
        columns.push(OutputColumn::computed(name, e.ty(), e.typmod()));
        exprs.push(e);
    }
    Ok(Some(Returning { exprs, columns }))
}

/// The default expression of each column (NULL where none).
pub(crate) fn column_defaults(
    rel: &RelationDesc,
    params: &mut Vec<Option<SqlType>>,
    types: &TypeCatalog,
) -> Result<Vec<Expr>> {
    rel.columns
        .iter()
        .map(|c| match c.default.as_ref().or(domain_default(c.ty)) {
            Some(stored) => default_expr(stored, c.ty, c.typmod, params, types),
            None => coerce(
                Expr::constant(sluice_types::Datum::Null, SqlType::Unknown, -1),
                c.ty,
                c.typmod,
                CoercionContext::Assignment,
            ),
        })
        .collect()
}

/// The default a column of a domain without one of its own takes.
fn domain_default(ty: SqlType) -> Option<&'static String> {
    match ty {
        SqlType::Domain(d) => d.desc().default.as_ref(),
        _ => None,
    }
}

/// default_expr -- a stored column default (`pg_attrdef` text) analysed
/// and converted to the column's type `ty`/`typmod`.
pub(crate) fn default_expr(
    stored: &str,
    ty: SqlType,
    typmod: i32,
    params: &mut Vec<Option<SqlType>>,
    types: &TypeCatalog,
) -> Result<Expr> {
    let empty = Scope::default();
    let mut host = PlanHost::new(params).with_types(types.clone());
    let text = crate::catalog::relation::evaluable_default(stored);
    let node = crate::parser::parse_expr(&text, "column default")?;
    let expr = analyze(&node, &empty, &mut host)?;
    coerce(expr, ty, typmod, CoercionContext::Assignment)
}

/// An INSERT, UPDATE or DELETE ready to run: its target, what it does and
/// its RETURNING list, analysed and planned once. The session's plan cache
/// keeps it like a SELECT plan (see `plancache.rs`), so a prepared
/// statement neither parses nor plans again.
pub struct ModifyPlan {
    /// The target table.
    pub(crate) rel: RelationDesc,
    /// What the statement does to it.
    pub(crate) action: Action,
    /// The RETURNING list.
    pub(crate) returning: Option<Returning>,
    /// The table's CHECK constraints, which every new row version must
    /// pass (none for a DELETE).
    pub(crate) checks: Vec<CheckExpr>,
    /// The table's generated columns, computed for every new row version
    /// before the checks (none for a DELETE).
    pub(crate) generated: Vec<GeneratedExpr>,
    /// The check options of the views the statement writes through,
    /// innermost first (see `view_target.rs`).
    pub(crate) view_checks: Vec<ViewCheckExpr>,
}

/// What a [`ModifyPlan`] does to its table.
pub(crate) enum Action {
    /// Rows from `source` (VALUES or a query), one value per `targets`
    /// column converted by `conversions`; other columns get `defaults`;
    /// conflicts resolved as `on_conflict` says (see `onconflict.rs`).
    Insert {
        targets: Vec<usize>,
        defaults: Vec<Expr>,
        source: Plan,
        conversions: Vec<Expr>,
        on_conflict: Option<OnConflict>,
    },
    /// New values for the `targets` columns of the rows `scan` finds.
    Update { targets: Vec<(usize, Expr)>, scan: TargetScan },
    /// The rows `scan` finds.
    Delete { scan: TargetScan },
}

/// How an UPDATE or DELETE finds its rows: the WHERE clause, the index
/// path the optimizer chose for it (`None`: a sequential scan), and the
/// subqueries the clause and the new values use.
pub(crate) struct TargetScan {
    pub(crate) qual: Option<Expr>,
    pub(crate) path: Option<IndexPath>,
    pub(crate) registry: Registry,
}

impl ModifyPlan {
    /// A plan doing `action` to `rel`, with the constraints its new rows
    /// must meet.
    pub(crate) fn new(
        rel: RelationDesc,
        action: Action,
        returning: Option<Returning>,
        types: &TypeCatalog,
    ) -> Result<ModifyPlan> {
        let (checks, generated) = match action {
            Action::Delete { .. } => (Vec::new(), Vec::new()),
            _ => (table_checks(&rel, types)?, table_generated(&rel, types)?),
        };
        Ok(ModifyPlan { rel, action, returning, checks, generated, view_checks: Vec::new() })
    }

    /// What the plan's new row versions go through before they are stored.
    pub(crate) fn rules(&self) -> super::constraint::NewRowRules<'_> {
        super::constraint::NewRowRules {
            checks: &self.checks,
            generated: &self.generated,
            view_checks: &self.view_checks,
        }
    }

    /// The RETURNING list's columns, if the statement has one.
    pub fn returning_columns(&self) -> Option<&[OutputColumn]> {
        self.returning.as_ref().map(|r| &r.columns[..])
    }
}

/// plan -- analyses and plans an INSERT, UPDATE or DELETE, inferring
/// parameter types into `param_types`.
pub fn plan(
    parts: &mut dyn PlannerContext,
    node: &NodeEnum,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    let Some(rewritten) = view_target::rewrite_target_views(parts, node)? else {
        return plan_table_target(parts, node, param_types);
    };
    let mut plan = plan_table_target(parts, &rewritten.stmt, param_types)?;
    let alias = match &rewritten.stmt {
        NodeEnum::InsertStmt(s) => s.relation.as_ref(),
        NodeEnum::UpdateStmt(s) => s.relation.as_ref(),
        NodeEnum::DeleteStmt(s) => s.relation.as_ref(),
        _ => None,
    }
    .map_or_else(|| plan.rel.name.clone(), |rv| super::select::refname(rv).to_string());
    let types = parts.planner_parts().type_catalog();
    for check in &rewritten.checks {
        if let Some(qual) = &check.qual {
            plan.view_checks.push(view_check(&plan.rel, &alias, &check.view, qual, &types)?);
        }
    }
    Ok(plan)
}

/// An INSERT, UPDATE or DELETE of a table.
fn plan_table_target(
    parts: &mut dyn PlannerContext,
    node: &NodeEnum,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    match node {
        NodeEnum::InsertStmt(stmt) => plan_insert(parts, stmt, param_types),
        NodeEnum::UpdateStmt(stmt) => plan_update(parts, stmt, param_types),
        NodeEnum::DeleteStmt(stmt) => plan_delete(parts, stmt, param_types),
        _ => Err(SqlError::internal("not a data-modifying statement")),
    }
}

/// The column an INSERT or UPDATE target names: 42703 if `rel` has none.
fn target_column(rel: &RelationDesc, rt: &pg_query::protobuf::ResTarget) -> Result<usize> {
    rel.column_index(&rt.name).ok_or_else(|| {
        SqlError::new(
            "42703",
            format!("column \"{}\" of relation \"{}\" does not exist", rt.name, rel.name),
        )
        .at(position(rt.location))
    })
}

/// The SET list of an UPDATE: (column index, new value expression).
pub(crate) fn update_targets(
    rel: &RelationDesc,
    list: &[Node],
    scope: &Scope,
    host: &mut PlanHost,
    types: &TypeCatalog,
) -> Result<Vec<(usize, Expr)>> {
    let mut targets = Vec::new();
    for node in list {
        let Some(NodeEnum::ResTarget(rt)) = node.node.as_ref() else { continue };
        let index = target_column(rel, rt)?;
        let column = &rel.columns[index];
        if targets.iter().any(|(i, _)| *i == index) {
            return Err(SqlError::syntax(format!(
                "multiple assignments to same column \"{}\"",
                column.name
            )));
        }
        let value = rt.val.as_deref().ok_or_else(|| SqlError::internal("SET without a value"))?;
        let expr = match value.node.as_ref() {
            Some(NodeEnum::SetToDefault(_)) => {
                column_defaults(rel, host.params, types)?.swap_remove(index)
            }
            _ if column.generated.is_some() => {
                return Err(SqlError::new(
                    "428C9",
                    format!("column \"{}\" can only be updated to DEFAULT", column.name),
                )
                .with_detail(insert::generated_column(&column.name)));
            }
            _ if column.identity == Some(crate::catalog::relation::Identity::Always) => {
                return Err(SqlError::new(
                    "428C9",
                    format!("column \"{}\" can only be updated to DEFAULT", column.name),
                )
                .with_detail(insert::generated_always(&column.name)));
            }
            _ => {
                let expr = analyze(value, scope, host)?;
                coerce_to_column(host, expr, column.ty, column.typmod, &column.name)?
            }
        };
        targets.push((index, expr));
    }
    Ok(targets)
}

/// The WHERE clause of an UPDATE/DELETE (true when absent).
fn dml_qual(clause: Option<&Node>, scope: &Scope, host: &mut PlanHost) -> Result<Option<Expr>> {
    host.agg_clause = Some("WHERE");
    let qual =
        clause.map(|w| analyze(w, scope, host).and_then(|e| check_boolean(e, "WHERE"))).transpose();
    host.agg_clause = None;
    qual
}

/// The table an UPDATE/DELETE changes (locked RowExclusive) and its scope.
fn open_target(
    parts: &mut dyn PlannerContext,
    rv: Option<&RangeVar>,
) -> Result<(RelationDesc, Scope)> {
    let rv = rv.ok_or_else(|| SqlError::internal("UPDATE/DELETE without a table"))?;
    let rel = open_relation(parts, rv, LockMode::RowExclusive)?;
    let alias = rv.alias.as_ref().map_or_else(|| rel.name.clone(), |a| a.aliasname.clone());
    let scope = relation_scope(&rel, &alias);
    Ok((rel, scope))
}

/// The WHERE clause and RETURNING list of an UPDATE/DELETE.
fn where_and_returning(
    where_clause: Option<&Node>,
    returning: Option<&pg_query::protobuf::ReturningClause>,
    scope: &Scope,
    host: &mut PlanHost,
) -> Result<(Option<Expr>, Option<Returning>)> {
    let qual = dml_qual(where_clause, scope, host)?;
    let returning = analyze_returning(returning.map_or(&[][..], |r| &r.exprs[..]), scope, host)?;
    Ok((qual, returning))
}

/// target_scan -- how an UPDATE/DELETE of `rel` finds the rows `qual`
/// selects: the optimizer's choice between the table and its indexes.
fn target_scan(
    planner: &mut Planner,
    rel: &RelationDesc,
    qual: Option<Expr>,
) -> Result<(Option<Expr>, Option<IndexPath>)> {
    let path = with_scan_context(planner, |sc| {
        choose_scan(sc, rel, &sc.indexes(rel)?, qual.as_ref(), None)
    })?;
    Ok((qual, path))
}

/// plan_update -- UPDATE: the target, the new values, the WHERE clause and
/// how to find its rows.
fn plan_update(
    parts: &mut dyn PlannerContext,
    stmt: &UpdateStmt,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    if !stmt.from_clause.is_empty() {
        return Err(SqlError::unsupported("UPDATE ... FROM is not supported yet"));
    }
    refuse(stmt.with_clause.is_some(), "WITH in UPDATE is not supported yet")?;
    let (rel, scope) = open_target(parts, stmt.relation.as_ref())?;
    let types = parts.planner_parts().type_catalog();
    let mut planner = Planner::new(parts);
    let mut plan_host = PlanHost::with_planner(param_types, &mut planner, &scope);
    let targets = update_targets(&rel, &stmt.target_list, &scope, &mut plan_host, &types)?;
    let (qual, returning) = where_and_returning(
        stmt.where_clause.as_deref(),
        stmt.returning_clause.as_ref(),
        &scope,
        &mut plan_host,
    )?;
    let (qual, path) = target_scan(&mut planner, &rel, qual)?;
    let scan = TargetScan { qual, path, registry: planner.into_registry() };
    ModifyPlan::new(rel, Action::Update { targets, scan }, returning, &types)
}

/// plan_delete -- DELETE: the target, the WHERE clause and how to find its
/// rows.
fn plan_delete(
    parts: &mut dyn PlannerContext,
    stmt: &DeleteStmt,
    param_types: &mut Vec<Option<SqlType>>,
) -> Result<ModifyPlan> {
    if !stmt.using_clause.is_empty() {
        return Err(SqlError::unsupported("DELETE ... USING is not supported yet"));
    }
    refuse(stmt.with_clause.is_some(), "WITH in DELETE is not supported yet")?;
    let (rel, scope) = open_target(parts, stmt.relation.as_ref())?;
    let types = parts.planner_parts().type_catalog();
    let mut planner = Planner::new(parts);
    let mut plan_host = PlanHost::with_planner(param_types, &mut planner, &scope);
    let (qual, returning) = where_and_returning(
        stmt.where_clause.as_deref(),
        stmt.returning_clause.as_ref(),
        &scope,
        &mut plan_host,
    )?;
    let (qual, path) = target_scan(&mut planner, &rel, qual)?;
    let scan = TargetScan { qual, path, registry: planner.into_registry() };
    ModifyPlan::new(rel, Action::Delete { scan }, returning, &types)
}
