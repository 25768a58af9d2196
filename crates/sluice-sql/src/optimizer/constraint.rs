//! CHECK constraints as expressions (PostgreSQL's `cookConstraint` in
//! `catalog/heap.c` for new ones, and the executor's ExecRelCheck input).
//!
//! A new CHECK expression is analysed over the table's columns the way
//! PostgreSQL's parser does it for a constraint: no subqueries, aggregates
//! or parameters, a boolean result. What the catalog stores is the analysed
//! expression written back in deparsed form ([`crate::expr::deparse`]), so
//! reading it again ([`table_checks`]) gives the same expression, and
//! renaming a column rewrites the text through the same two steps.

use super::planhost::PlanHost;
use crate::catalog::relation::RelationDesc;
use crate::error::{Result, SqlError};
use crate::expr::{analyze, check_boolean, relation_scope, Expr};
use pg_query::protobuf::Node;

/// A CHECK constraint ready to be tested against new rows.
pub struct CheckExpr {
    /// The constraint's name.
    pub name: String,
    /// The expression over the table's row (NULL passes, as in SQL).
    pub expr: Expr,
}

/// A new CHECK constraint's expression, analysed and deparsed.
pub struct CookedCheck {
    /// The deparsed text `pg_constraint.conbin` keeps.
    pub text: String,
    /// The columns it reads, as attnums (`conkey`).
    pub columns: Vec<i16>,
    /// The analysed expression.
    pub expr: Expr,
}

/// cook_check -- analyses the raw expression of a new CHECK constraint on
/// `table`.
pub fn cook_check(table: &RelationDesc, raw: &Node) -> Result<CookedCheck> {
    let expr = analyze_check(table, raw)?;
    let names: Vec<String> = table.columns.iter().map(|c| c.name.clone()).collect();
    let text = crate::expr::deparse::expr(&expr, &names);
    let columns = expr.columns_read().iter().map(|&c| c as i16 + 1).collect();
    Ok(CookedCheck { text, columns, expr })
}

/// analyze_check -- a CHECK expression over `table`'s row.
fn analyze_check(table: &RelationDesc, raw: &Node) -> Result<Expr> {
    let scope = relation_scope(table, &table.name);
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params);
    host.agg_clause = Some("check constraints");
    host.sublink_clause = Some("check constraint");
    let expr = analyze(raw, &scope, &mut host)?;
    if !params.is_empty() {
        return Err(SqlError::new("42P02", "there is no parameter $1"));
    }
    check_boolean(expr, "CHECK")
}

/// stored_check -- the expression of a stored CHECK constraint (text in
/// deparsed form over `table`'s columns).
pub fn stored_check(table: &RelationDesc, text: &str) -> Result<Expr> {
    let parsed = crate::parser::parse(&format!("SELECT 1 WHERE {text}"))?;
    let Some(pg_query::NodeEnum::SelectStmt(select)) = parsed.first().map(|s| &s.node) else {
        return Err(SqlError::internal(format!("invalid check constraint text {text}")));
    };
    let node = select
        .where_clause
        .as_deref()
        .ok_or_else(|| SqlError::internal(format!("invalid check constraint text {text}")))?;
    analyze_check(table, node)
}

/// table_checks -- every CHECK constraint of `table`, in the order they
/// are tested (by name).
pub fn table_checks(table: &RelationDesc) -> Result<Vec<CheckExpr>> {
    table
        .checks
        .iter()
        .map(|c| Ok(CheckExpr { name: c.name.clone(), expr: stored_check(table, &c.expr)? }))
        .collect()
}
