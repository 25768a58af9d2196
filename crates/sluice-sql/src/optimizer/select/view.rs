//! A view in FROM (PostgreSQL's rewriter, `rewrite/rewriteHandler.c`,
//! which replaces a view's range table entry by its `_RETURN` rule's query).
//!
//! The view's stored query (`catalog/rewrite.rs`: SQL text with every
//! relation schema-qualified) is parsed and planned as a subquery in FROM,
//! named as the view is named in the query and with the view's column
//! names (the alias's column list, where given, renames them further). Its
//! relations are locked as any subquery's. FOR UPDATE of a view locks the
//! rows of its tables, as a subquery's does. A view met again while its own
//! query is expanded (views made to read each other by CREATE OR REPLACE)
//! is PostgreSQL's 42P17 "infinite recursion detected in rules". The plan's columns must be the
//! view's: a `*` over a subquery that a later change widened makes the view
//! unreadable rather than shift its columns (see `commands/view.rs`).

use super::*;
use crate::catalog::rewrite::view_select;
use pg_query::protobuf::{Alias, RangeSubselect};

/// plan_view -- view `rel`, named by `rv`, as a subquery.
pub(super) fn plan_view(
    pl: &mut Planner,
    rv: &protobuf::RangeVar,
    rel: &RelationDesc,
    params: &mut Vec<Option<SqlType>>,
) -> Result<FromItem> {
    let query = stored_select(pl.parts(), rel)?;
    let names: Vec<&str> = rel.live_columns().map(|i| rel.columns[i].name.as_str()).collect();
    let given: Vec<String> = rv
        .alias
        .as_ref()
        .map(|a| a.colnames.iter().filter_map(crate::parser::node_str).collect())
        .unwrap_or_default();
    if given.len() > names.len() {
        return Err(SqlError::new(
            "42P10",
            format!(
                "table \"{}\" has {} columns available but {} columns specified",
                refname(rv),
                names.len(),
                given.len()
            ),
        ));
    }
    let colnames = names
        .iter()
        .enumerate()
        .map(|(i, name)| given.get(i).cloned().unwrap_or_else(|| name.to_string()))
        .map(|name| Node { node: Some(NodeEnum::String(protobuf::String { sval: name })) })
        .collect();
    let alias = Alias { aliasname: refname(rv).to_string(), colnames };
    let sub = RangeSubselect {
        lateral: false,
        subquery: Some(Box::new(Node { node: Some(NodeEnum::SelectStmt(Box::new(query))) })),
        alias: Some(alias),
    };
    if pl.views.contains(&rel.oid) {
        return Err(SqlError::new(
            "42P17",
            format!("infinite recursion detected in rules for relation \"{}\"", rel.name),
        ));
    }
    pl.views.push(rel.oid);
    let item = plan_subselect(pl, &sub, params, &Scope::default());
    pl.views.pop();
    let item = item?;
    check_columns(rel, &item.scope)?;
    Ok(item)
}

/// The view's stored query, parsed.
pub(crate) fn stored_select(
    parts: &mut dyn PlannerContext,
    rel: &RelationDesc,
) -> Result<SelectStmt> {
    let parts = parts.planner_parts();
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    view_select(parts.engine, parts.database, &ctx, rel.oid)
}

/// 55000 when the planned query no longer returns the view's columns.
fn check_columns(rel: &RelationDesc, scope: &Scope) -> Result<()> {
    let planned: Vec<_> = scope.columns.iter().filter(|c| !c.name.starts_with('\0')).collect();
    let expected: Vec<_> = rel.live_columns().map(|i| &rel.columns[i]).collect();
    let same =
        planned.len() == expected.len() && planned.iter().zip(&expected).all(|(p, e)| p.ty == e.ty);
    if same {
        return Ok(());
    }
    Err(SqlError::new(
        "55000",
        format!("the query of view \"{}\" no longer returns the view's columns", rel.name),
    )
    .with_detail(
        "A \"*\" in the view's query stands for other columns than when the view was created.",
    )
    .with_hint("Recreate the view."))
}
