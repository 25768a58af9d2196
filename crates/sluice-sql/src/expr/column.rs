//! Column references and `*` (PostgreSQL's `transformColumnRef` and
//! `ExpandColumnRefStar`).
//!
//! Names are matched exactly: the parser has already folded unquoted
//! identifiers to lower case. An unqualified name must match exactly one
//! column of the scope (42703 if none, 42702 if several); `t.x` first
//! requires some column to belong to `t` (42P01 otherwise), then `x` among
//! them. A schema or database prefix (`s.t.x`) is accepted and ignored: the
//! scope only knows table aliases.

use pg_query::protobuf::node::Node as NodeEnum;
use pg_query::protobuf::ColumnRef;

use super::tree::Expr;
use super::typename::position_of;
use super::{Scope, ScopeColumn};
use crate::{Result, SqlError};

/// column_ref -- resolves a column reference in `scope`.
pub(super) fn column_ref(scope: &Scope, c: &ColumnRef) -> Result<Expr> {
    let location = position_of(c.location);
    let mut parts = Vec::with_capacity(c.fields.len());
    for field in &c.fields {
        match field.node.as_ref() {
            Some(NodeEnum::String(s)) => parts.push(s.sval.as_str()),
            Some(NodeEnum::AStar(_)) => {
                return Err(SqlError::unsupported("row expansion via \"*\" is not supported here")
                    .at(location))
            }
            _ => return Err(SqlError::internal("unexpected column reference field")),
        }
    }
    let (table, name) = match parts.as_slice() {
        [name] => (None, *name),
        [.., table, name] if parts.len() <= 4 => (Some(*table), *name),
        _ => {
            return Err(SqlError::syntax(format!(
                "improper qualified name (too many dotted names): {}",
                parts.join(".")
            ))
            .at(location))
        }
    };
    let (index, col) = find(scope, table, name).map_err(|e| e.at(location))?;
    Ok(Expr::Column { index, ty: col.ty, typmod: col.typmod, location })
}

/// The one column `table.name` (or unqualified `name`) denotes.
fn find<'s>(scope: &'s Scope, table: Option<&str>, name: &str) -> Result<(usize, &'s ScopeColumn)> {
    if let Some(t) = table {
        if !scope.columns.iter().any(|c| c.table.as_deref() == Some(t)) {
            return Err(missing_table(t));
        }
    }
    let mut matches = scope
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.name == name && (table.is_none() || c.table.as_deref() == table));
    let first = matches.next();
    if matches.next().is_some() {
        return Err(SqlError::new("42702", format!("column reference \"{name}\" is ambiguous")));
    }
    match (first, table) {
        (Some(found), _) => Ok(found),
        (None, Some(t)) => Err(SqlError::new("42703", format!("column {t}.{name} does not exist"))),
        (None, None) if scope.columns.iter().any(|c| c.table.as_deref() == Some(name)) => {
            Err(SqlError::unsupported("whole-row references are not supported"))
        }
        (None, None) => Err(SqlError::new("42703", format!("column \"{name}\" does not exist"))),
    }
}

/// expand_star -- the columns of `*` (all of the scope) or `table.*`, as
/// (output name, column expression) pairs, with PostgreSQL's errors.
pub fn expand_star(scope: &Scope, table: Option<&str>) -> Result<Vec<(String, Expr)>> {
    match table {
        None if scope.columns.is_empty() => {
            Err(SqlError::syntax("SELECT * with no tables specified is not valid"))
        }
        Some(t) if !scope.columns.iter().any(|c| c.table.as_deref() == Some(t)) => {
            Err(missing_table(t))
        }
        _ => Ok(scope
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| table.is_none() || c.table.as_deref() == table)
            .filter(|(_, c)| !c.name.starts_with('\0')) // row-address junk (rowmarks.rs)
            .map(|(i, c)| (c.name.clone(), Expr::column(i, c.ty, c.typmod)))
            .collect()),
    }
}

/// 42P01 `missing FROM-clause entry for table "t"`.
fn missing_table(t: &str) -> SqlError {
    SqlError::new("42P01", format!("missing FROM-clause entry for table \"{t}\""))
}
