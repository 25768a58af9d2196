//! The INSERT, UPDATE or DELETE EXPLAIN shows (PostgreSQL's ModifyTable
//! over the plan that finds or makes the rows): the statement through a
//! view rewritten onto its table first, then the SELECT whose plan stands
//! for the one that finds or makes the rows.

use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use pg_query::protobuf::{ExplainStmt, Node, RangeVar, SelectStmt, SetOperation};
use pg_query::NodeEnum;

/// An INSERT, UPDATE or DELETE being explained: PostgreSQL shows a
/// ModifyTable node (`Update on t`) above the plan that finds or makes the
/// rows.
pub(super) struct Modify {
    /// `Insert`, `Update` or `Delete`.
    pub(super) verb: &'static str,
    /// The target table's name.
    pub(super) table: String,
}

/// explained_query -- the SELECT whose plan EXPLAIN shows: the statement
/// itself, or for UPDATE and DELETE a scan of the target with its WHERE
/// clause (selecting the SET expressions), for INSERT its source query.
pub(super) fn explained_query(stmt: &ExplainStmt) -> Result<(SelectStmt, Option<Modify>)> {
    let table = |rv: &Option<RangeVar>| rv.as_ref().map_or(String::new(), |r| r.relname.clone());
    let scan =
        |rv: &Option<RangeVar>, where_clause: &Option<Box<Node>>, targets: &[Node]| SelectStmt {
            target_list: targets.to_vec(),
            from_clause: rv
                .iter()
                .map(|r| Node { node: Some(NodeEnum::RangeVar(r.clone())) })
                .collect(),
            where_clause: where_clause.clone(),
            op: SetOperation::SetopNone as i32,
            ..Default::default()
        };
    match stmt.query.as_deref().and_then(|n| n.node.as_ref()) {
        Some(NodeEnum::SelectStmt(q)) => Ok(((**q).clone(), None)),
        Some(NodeEnum::UpdateStmt(u)) if u.from_clause.is_empty() => Ok((
            scan(&u.relation, &u.where_clause, &u.target_list),
            Some(Modify { verb: "Update", table: table(&u.relation) }),
        )),
        Some(NodeEnum::DeleteStmt(d)) if d.using_clause.is_empty() => Ok((
            scan(&d.relation, &d.where_clause, &[]),
            Some(Modify { verb: "Delete", table: table(&d.relation) }),
        )),
        Some(NodeEnum::InsertStmt(i)) => {
            match i.select_stmt.as_deref().and_then(|n| n.node.as_ref()) {
                Some(NodeEnum::SelectStmt(q)) => {
                    Ok(((**q).clone(), Some(Modify { verb: "Insert", table: table(&i.relation) })))
                }
                _ => Err(SqlError::unsupported(
                    "EXPLAIN of INSERT ... DEFAULT VALUES is not supported yet",
                )),
            }
        }
        _ => Err(SqlError::unsupported("EXPLAIN of this statement is not supported yet")),
    }
}

/// The statement with an INSERT, UPDATE or DELETE through a view
/// rewritten onto the view's table, as it will run.
pub(super) fn through_views(
    cx: &mut dyn BackendContext,
    stmt: &ExplainStmt,
) -> Result<ExplainStmt> {
    let mut stmt = stmt.clone();
    let Some(query) = stmt.query.as_deref_mut().and_then(|n| n.node.as_mut()) else {
        return Ok(stmt);
    };
    if !matches!(query, NodeEnum::InsertStmt(_) | NodeEnum::UpdateStmt(_) | NodeEnum::DeleteStmt(_))
    {
        return Ok(stmt);
    }
    let mut parts = cx.parts()?;
    if let Some(rewritten) = crate::optimizer::modify::rewrite_target_views(&mut parts, query)? {
        *query = rewritten.stmt;
    }
    Ok(stmt)
}
