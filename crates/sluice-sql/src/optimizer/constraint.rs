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
use crate::catalog::pg_type::TypeCatalog;
use crate::catalog::relation::RelationDesc;
use crate::error::{Result, SqlError};
use crate::expr::{analyze, check_boolean, coerce, relation_scope, CoercionContext, Expr};
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
pub fn cook_check(table: &RelationDesc, raw: &Node, types: &TypeCatalog) -> Result<CookedCheck> {
    let expr = analyze_check(table, raw, types)?;
    let names: Vec<String> = table.columns.iter().map(|c| c.name.clone()).collect();
    let text = crate::expr::deparse::expr(&expr, &names);
    let columns = expr.columns_read().iter().map(|&c| c as i16 + 1).collect();
    Ok(CookedCheck { text, columns, expr })
}

/// analyze_check -- a CHECK expression over `table`'s row.
fn analyze_check(table: &RelationDesc, raw: &Node, types: &TypeCatalog) -> Result<Expr> {
    let scope = relation_scope(table, &table.name);
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params).with_types(types.clone());
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
pub fn stored_check(table: &RelationDesc, text: &str, types: &TypeCatalog) -> Result<Expr> {
    let node = crate::parser::parse_expr(text, "check constraint text")?;
    analyze_check(table, &node, types)
}

/// table_checks -- every CHECK constraint of `table`, in the order they
/// are tested (by name).
pub fn table_checks(table: &RelationDesc, types: &TypeCatalog) -> Result<Vec<CheckExpr>> {
    table
        .checks
        .iter()
        .map(|c| Ok(CheckExpr { name: c.name.clone(), expr: stored_check(table, &c.expr, types)? }))
        .collect()
}

/// A generated column's expression, computing the column of new rows.
pub struct GeneratedExpr {
    /// The column's index in the row.
    pub column: usize,
    /// The expression over the row, of the column's type.
    pub expr: Expr,
}

/// analyze_generation -- the generation expression of a column of `table`
/// (PostgreSQL's cookDefault for a generated column): over the table's
/// row, without subqueries, aggregates, parameters, volatile functions or
/// other generated columns; of its own type (see [`table_generated`]).
pub fn analyze_generation(table: &RelationDesc, raw: &Node, types: &TypeCatalog) -> Result<Expr> {
    let scope = relation_scope(table, &table.name);
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params).with_types(types.clone());
    host.agg_clause = Some("column generation expressions");
    host.sublink_clause = Some("column generation expression");
    let expr = analyze(raw, &scope, &mut host)?;
    if !params.is_empty() {
        return Err(SqlError::new("42P02", "there is no parameter $1"));
    }
    for read in expr.columns_read() {
        if table.columns.get(read).is_some_and(|c| c.generated.is_some()) {
            return Err(SqlError::new(
                "42P17",
                format!(
                    "cannot use generated column \"{}\" in column generation expression",
                    table.columns[read].name
                ),
            )
            .with_detail("A generated column cannot reference another generated column."));
        }
    }
    if expr.is_volatile() {
        return Err(SqlError::new("42P17", "generation expression is not immutable"));
    }
    Ok(expr)
}

/// stored_generation -- the expression of a stored generation expression
/// (`pg_attrdef` text over `table`'s columns), of its own type.
pub fn stored_generation(table: &RelationDesc, text: &str, types: &TypeCatalog) -> Result<Expr> {
    let node = crate::parser::parse_expr(text, "generation expression")?;
    analyze_generation(table, &node, types)
}

/// table_generated -- the generated columns of `table` with their
/// expressions converted to the columns' types, in column order.
pub fn table_generated(table: &RelationDesc, types: &TypeCatalog) -> Result<Vec<GeneratedExpr>> {
    let mut generated = Vec::new();
    for (column, desc) in table.columns.iter().enumerate() {
        let Some(text) = &desc.generated else { continue };
        let expr = stored_generation(table, text, types)?;
        let expr = coerce(expr, desc.ty, desc.typmod, CoercionContext::Assignment)?;
        generated.push(GeneratedExpr { column, expr });
    }
    Ok(generated)
}

/// The check option of a view a row is written through (see
/// `modify/view_target.rs`).
pub struct ViewCheckExpr {
    /// The view's name.
    pub view: String,
    /// Its WHERE clause over the table's row: the row must make it true.
    pub expr: Expr,
}

/// view_check -- a view's WHERE clause `qual` over `table`, which the
/// statement names `alias`, as a check option.
pub(crate) fn view_check(
    table: &RelationDesc,
    alias: &str,
    view: &str,
    qual: &Node,
    types: &TypeCatalog,
) -> Result<ViewCheckExpr> {
    let scope = relation_scope(table, alias);
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params).with_types(types.clone());
    host.sublink_clause = Some("the check option of a view");
    let expr = check_boolean(analyze(qual, &scope, &mut host)?, "WHERE")?;
    Ok(ViewCheckExpr { view: view.to_string(), expr })
}

/// A table's rules for new row versions: its generated columns, its CHECK
/// constraints and the check options of the views it is written through.
#[derive(Clone, Copy)]
pub struct NewRowRules<'a> {
    /// CHECK constraints, in the order they are tested.
    pub checks: &'a [CheckExpr],
    /// Generated columns, computed before the checks.
    pub generated: &'a [GeneratedExpr],
    /// Check options of views, innermost first, tested after the CHECKs.
    pub view_checks: &'a [ViewCheckExpr],
}
