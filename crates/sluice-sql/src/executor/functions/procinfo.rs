//! What psql's `\df` asks of a function in `pg_proc` (PostgreSQL's
//! `namespace.c` FunctionIsVisible and `ruleutils.c`'s
//! pg_get_function_result / pg_get_function_arguments).
//!
//! Each reads the function's `pg_proc` row under the statement's snapshot
//! and is NULL for an OID that names no function, as in PostgreSQL. Until
//! the function catalog lists the built-in functions and CREATE FUNCTION
//! exists, `pg_proc` has no rows, so `\df` answers with an empty list.

use super::regproc::{format_type, search_path};
use super::ExecHost;
use crate::catalog::relation::oid_of;
use crate::catalog::scan_as;
use crate::catalog::unfilled::PG_PROC;
use crate::error::Result;
use sluice_common::Oid;
use sluice_types::Datum;

/// `pg_proc` columns by position.
const PRONAME: usize = 1;
const PRONAMESPACE: usize = 2;
const PRORETSET: usize = 13;
const PRORETTYPE: usize = 18;
const PROARGTYPES: usize = 19;
const PROARGNAMES: usize = 22;

/// The `pg_proc` rows `keep` selects.
fn proc_rows(host: &mut ExecHost, keep: impl FnMut(&[Datum]) -> bool) -> Result<Vec<Vec<Datum>>> {
    let (engine, db) = (host.env().engine.clone(), host.env().database);
    let rows = scan_as(&engine, db, &PG_PROC, host.visibility(), keep)?;
    Ok(rows.into_iter().map(|(_, row)| row).collect())
}

/// The `pg_proc` row of function `oid`.
fn proc_row(host: &mut ExecHost, args: &[Datum]) -> Result<Option<Vec<Datum>>> {
    let Some(Datum::Oid(oid)) = args.first() else { return Ok(None) };
    let key = Datum::Oid(*oid);
    Ok(proc_rows(host, |r| r[0] == key)?.into_iter().next())
}

/// `pg_function_is_visible(oid)`: whether the function is the first of its
/// name and argument types along the search path.
pub(super) fn function_is_visible(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(row) = proc_row(host, args)? else { return Ok(Datum::Null) };
    let (name, arg_types) = (row[PRONAME].clone(), row[PROARGTYPES].clone());
    let same = proc_rows(host, |r| r[PRONAME] == name && r[PROARGTYPES] == arg_types)?;
    let schemas: Vec<Oid> = same.iter().map(|r| oid_of(&r[PRONAMESPACE])).collect();
    let first = search_path(host)?.schemas().iter().copied().find(|s| schemas.contains(s));
    Ok(Datum::Bool(first == Some(oid_of(&row[PRONAMESPACE]))))
}

/// `pg_get_function_result(oid)`: the result type, `SETOF` for a set.
pub(super) fn function_result(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(row) = proc_row(host, args)? else { return Ok(Datum::Null) };
    let Datum::Text(ty) = format_type(host, &[row[PRORETTYPE].clone(), Datum::Null])? else {
        return Ok(Datum::Null);
    };
    let set = if row[PRORETSET] == Datum::Bool(true) { "SETOF " } else { "" };
    Ok(Datum::Text(format!("{set}{ty}")))
}

/// `pg_get_function_arguments(oid)`: the arguments as CREATE FUNCTION
/// declares them (name and type).
pub(super) fn function_arguments(host: &mut ExecHost, args: &[Datum]) -> Result<Datum> {
    let Some(row) = proc_row(host, args)? else { return Ok(Datum::Null) };
    let types = row[PROARGTYPES].as_array().map(|a| a.elements().to_vec()).unwrap_or_default();
    let names = row[PROARGNAMES].as_array().map(|a| a.elements().to_vec()).unwrap_or_default();
    let mut declared = Vec::with_capacity(types.len());
    for (i, ty) in types.into_iter().enumerate() {
        let Datum::Text(ty) = format_type(host, &[ty, Datum::Null])? else { continue };
        match names.get(i).and_then(Datum::as_str).filter(|n| !n.is_empty()) {
            Some(name) => declared.push(format!("{} {ty}", crate::parser::quote_identifier(name))),
            None => declared.push(ty),
        }
    }
    Ok(Datum::Text(declared.join(", ")))
}
