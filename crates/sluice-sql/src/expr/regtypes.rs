//! Casts to and from the object-identifier types `regclass`, `regtype` and
//! `regnamespace` (PostgreSQL's `regproc.c`), without those types.
//!
//! In PostgreSQL `'t'::regclass` is an OID whose input function looks the
//! name up and whose output function prints the name back, so clients write
//! `c.oid::regclass::text` to get a relation's name and `'t'::regclass` to
//! get its OID. sluice has no such types (a type whose output needs the
//! catalogs would have to reach past `sluice_types`), so analysis rewrites
//! the casts instead:
//!
//! ```text
//!   'x'::regclass            → RegIn(Class)('x')           : oid (looked up)
//!   c.oid::regclass          → RegIn(Class)(c.oid)         : oid (unchanged)
//!   <RegIn(Class)(..)>::text → RegOut(Class)(RegIn(..))    : text (the name)
//! ```
//!
//! So comparisons, function arguments and `::text` behave as in PostgreSQL;
//! the one visible difference is a bare `SELECT c.oid::regclass`, which
//! shows the OID (its column is of type `oid`) where PostgreSQL shows the
//! name. The lookups themselves are session functions
//! (`executor/functions/regproc.rs`).

use pg_query::protobuf::TypeName;
use sluice_types::SqlType;

use super::builtin::Builtin;
use super::coerce::{coerce_to_target, type_name, CoercionContext};
use super::tree::Expr;
use super::typename::string_of;
use super::{AnalyzeHost, RegKind, SessionFunction};
use crate::{Result, SqlError};

/// The `reg*` type a type name names, if it names one without modifiers or
/// array bounds.
pub(super) fn reg_kind(tn: &TypeName) -> Option<RegKind> {
    if !tn.array_bounds.is_empty() || !tn.typmods.is_empty() {
        return None;
    }
    let names: Vec<&str> = tn.names.iter().filter_map(string_of).collect();
    match names.as_slice() {
        [name] | ["pg_catalog", name] => match *name {
            "regclass" => Some(RegKind::Class),
            "regtype" => Some(RegKind::Type),
            "regnamespace" => Some(RegKind::Namespace),
            _ => None,
        },
        _ => None,
    }
}

/// cast_to_reg -- `arg::regclass` (or another `reg*` type): an OID passes
/// through, a string is looked up when evaluated.
pub(super) fn cast_to_reg(
    host: &mut dyn AnalyzeHost,
    arg: Expr,
    kind: RegKind,
    location: Option<u32>,
) -> Result<Expr> {
    if reg_of(&arg) == Some(kind) {
        return Ok(arg);
    }
    let from = arg.ty();
    let input = match from {
        SqlType::Int2 | SqlType::Int4 | SqlType::Int8 | SqlType::Oid => SqlType::Oid,
        SqlType::Unknown | SqlType::Text | SqlType::Name | SqlType::Varchar | SqlType::Bpchar => {
            SqlType::Text
        }
        _ => return Err(cannot_cast_to(from, kind).at(location)),
    };
    // A literal's lookup errors point at the literal, as PostgreSQL's do.
    let at = match arg {
        Expr::Const { location: literal, .. } => literal.or(location),
        _ => location,
    };
    let arg = coerce_to_target(host, arg, input, -1, CoercionContext::Explicit, true, location)?
        .ok_or_else(|| cannot_cast_to(from, kind).at(location))?;
    Ok(call(SessionFunction::RegIn(kind), arg, SqlType::Oid, at))
}

/// cast_from_reg -- `x::regclass::text`: the name, for a cast of a `reg*`
/// value to a string type; `None` for any other cast.
pub(super) fn cast_from_reg(arg: &Expr, to: SqlType, location: Option<u32>) -> Option<Expr> {
    let kind = reg_of(arg)?;
    if !matches!(to, SqlType::Text | SqlType::Name | SqlType::Varchar) {
        return None;
    }
    let name = call(SessionFunction::RegOut(kind), arg.clone(), SqlType::Text, location);
    Some(match to {
        SqlType::Text => name,
        _ => Expr::Cast { arg: Box::new(name), ty: to, typmod: -1, explicit: true, location },
    })
}

/// The `reg*` type an expression stands for, if it is such a cast.
fn reg_of(e: &Expr) -> Option<RegKind> {
    match e {
        Expr::Call {
            func: Builtin::Session(SessionFunction::RegIn(kind) | SessionFunction::ToReg(kind)),
            ..
        } => Some(*kind),
        _ => None,
    }
}

/// A one-argument session function call.
fn call(f: SessionFunction, arg: Expr, ty: SqlType, location: Option<u32>) -> Expr {
    Expr::Call { func: Builtin::Session(f), args: vec![arg], ty, location }
}

/// 42846 `cannot cast type X to regclass`.
fn cannot_cast_to(from: SqlType, kind: RegKind) -> SqlError {
    let to = match kind {
        RegKind::Class => "regclass",
        RegKind::Type => "regtype",
        RegKind::Namespace => "regnamespace",
    };
    SqlError::new("42846", format!("cannot cast type {} to {to}", type_name(from)))
}
