//! Column references and `*` (PostgreSQL's `transformColumnRef` and
//! `ExpandColumnRefStar`).
//!
//! Names are matched exactly: the parser has already folded unquoted
//! identifiers to lower case. An unqualified name must match exactly one
//! column of the scope (42703 if none, 42702 if several); `t.x` first
//! requires some column to belong to `t` (42P01 otherwise), then `x` among
//! them. A schema or database prefix (`s.t.x`) is accepted and ignored: the
//! scope only knows table aliases. A lone name that is no column but names a
//! FROM item, and `t.*` used as a value, are whole-row references: a
//! [`Expr::Row`] of the item's columns (PostgreSQL's whole-row `Var`).
//! Of the system columns only `tableoid` exists so far, for FROM items
//! that are tables: the table's OID, what clients' catalog queries ask
//! (`pg_description.classoid = c.tableoid`).

use pg_query::protobuf::node::Node as NodeEnum;
use pg_query::protobuf::ColumnRef;

use sluice_types::record::{RecordType, RowField, RowType};
use sluice_types::SqlType;

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
                // `t.*` as a value is a whole-row reference to `t`.
                return match parts.as_slice() {
                    [.., table] => whole_row(scope, table, location)
                        .ok_or_else(|| missing_table(table).at(location)),
                    [] => {
                        Err(SqlError::unsupported("row expansion via \"*\" is not supported here")
                            .at(location))
                    }
                };
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
    match find(scope, table, name) {
        Ok((index, col)) => Ok(Expr::Column { index, ty: col.ty, typmod: col.typmod, location }),
        Err(e) if e.code == "42703" && name == "tableoid" => {
            table_oid(scope, table).map_err(|e| e.at(location))?.ok_or_else(|| e.at(location))
        }
        // A lone name that is no column but a FROM item is the whole row.
        Err(e) if table.is_none() && e.code == "42703" => {
            whole_row(scope, name, location).ok_or_else(|| e.at(location))
        }
        Err(e) => Err(e.at(location)),
    }
}

/// The system column `tableoid` of FROM item `table` (or of the one table
/// in scope): the table's OID, a constant for a plain scan. `None` when the
/// scope has no such table (the caller's 42703 stands); 42702 when an
/// unqualified reference could mean several.
fn table_oid(scope: &Scope, table: Option<&str>) -> Result<Option<Expr>> {
    let mut found = scope.relations.iter().filter(|(name, _)| table.is_none_or(|t| t == name));
    let Some((_, oid)) = found.next() else { return Ok(None) };
    if found.next().is_some() {
        return Err(SqlError::new("42702", "column reference \"tableoid\" is ambiguous"));
    }
    Ok(Some(Expr::constant(sluice_types::Datum::Oid(*oid), SqlType::Oid, -1)))
}

/// whole_row -- the row of FROM item `table` as a composite value (a
/// `record` whose fields are its columns), `None` if no item has that name.
fn whole_row(scope: &Scope, table: &str, location: Option<u32>) -> Option<Expr> {
    let (fields, args): (Vec<RowField>, Vec<Expr>) = scope
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.table.as_deref() == Some(table) && !c.name.starts_with('\0'))
        .map(|(i, c)| {
            let field = RowField { name: c.name.clone(), ty: c.ty, typmod: c.typmod };
            (field, Expr::column(i, c.ty, c.typmod))
        })
        .unzip();
    if args.is_empty() {
        return None;
    }
    let ty = SqlType::Record(RecordType::intern(RowType { fields }));
    Some(Expr::Row { args, ty, location })
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
