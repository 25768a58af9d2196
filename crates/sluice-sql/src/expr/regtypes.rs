//! Casts to and from the object-identifier alias types `regclass`,
//! `regtype`, `regnamespace`, `regrole`, `regproc` and `regprocedure`
//! (PostgreSQL's `regproc.c`), and the function OIDs the last two need.
//!
//! In PostgreSQL `'t'::regclass` is an OID whose input function looks the
//! name up and whose output function prints the name back, so clients write
//! `c.oid::regclass` to show a relation's name and `'t'::regclass` to get
//! its OID. sluice has these types ([`SqlType::Reg`]), but their values are
//! plain OIDs in `sluice_types`, which cannot see the catalogs; the lookups
//! are session functions (`executor/functions/regproc.rs`) that analysis
//! puts where PostgreSQL would call the input or output function:
//!
//! ```text
//!   'x'::regclass            → RegIn(Class)('x')       : regclass (looked up)
//!   c.oid::regclass          → RegIn(Class)(c.oid)     : regclass (unchanged)
//!   <regclass value>::text   → RegOut(Class)(value)    : text (the name)
//! ```
//!
//! A `reg*` column of a result is printed by name when it leaves the
//! executor for a client that reads it as text (`regproc::RegColumns`);
//! in binary it stays the OID, as PostgreSQL sends it. Comparisons use the
//! OID (the types are binary-coercible to `oid`), as PostgreSQL's do.

use pg_query::protobuf::TypeName;
use sluice_types::SqlType;

use super::builtin::Builtin;
use super::coerce::{coerce_to_target, type_name, CoercionContext};
use super::proc_oids::{OVERLOADS, PROC_OIDS};
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
            "regrole" => Some(RegKind::Role),
            "regproc" => Some(RegKind::Proc),
            "regprocedure" => Some(RegKind::Procedure),
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
    Ok(call(SessionFunction::RegIn(kind), arg, SqlType::Reg(kind), at))
}

/// cast_from_reg -- `x::regclass::text`: the name, for a coercion of a
/// `reg*` value to a string type; `None` for any other.
pub(super) fn cast_from_reg(arg: &Expr, to: SqlType, location: Option<u32>) -> Option<Expr> {
    let kind = reg_of(arg)?;
    if !matches!(to, SqlType::Text | SqlType::Name | SqlType::Varchar | SqlType::Bpchar) {
        return None;
    }
    let name = call(SessionFunction::RegOut(kind), arg.clone(), SqlType::Text, location);
    Some(match to {
        SqlType::Text => name,
        _ => Expr::Cast { arg: Box::new(name), ty: to, typmod: -1, explicit: true, location },
    })
}

/// The `reg*` type of an expression, if it has one.
fn reg_of(e: &Expr) -> Option<RegKind> {
    match e.ty() {
        SqlType::Reg(kind) => Some(kind),
        _ => None,
    }
}

/// A one-argument session function call.
fn call(f: SessionFunction, arg: Expr, ty: SqlType, location: Option<u32>) -> Expr {
    Expr::Call { func: Builtin::Session(f), args: vec![arg], ty, location }
}

/// 42846 `cannot cast type X to regclass`.
fn cannot_cast_to(from: SqlType, kind: RegKind) -> SqlError {
    SqlError::new("42846", format!("cannot cast type {} to {}", type_name(from), kind.typname()))
}

/// What a function name finds among the built-in functions (`regproc`
/// input): PostgreSQL's answer, since sluice's functions carry PostgreSQL's
/// OIDs (`proc_oids.rs`) and a name PostgreSQL overloads is ambiguous even
/// where sluice implements only one of its functions.
pub enum FunctionNamed {
    /// The one function of that name.
    Unique(u32),
    /// More than one function has the name.
    Ambiguous,
    /// No function sluice implements has it.
    Missing,
}

/// function_named -- the function `name` (unqualified or `pg_catalog.`).
pub fn function_named(name: &str) -> FunctionNamed {
    let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
    let overloads = OVERLOADS.iter().find(|(n, _)| *n == name).map_or(0, |&(_, count)| count);
    match PROC_OIDS.iter().find(|p| p.name == name) {
        Some(p) if overloads == 1 => FunctionNamed::Unique(p.oid),
        Some(_) => FunctionNamed::Ambiguous,
        None => FunctionNamed::Missing,
    }
}

/// function_with_args -- the OID of function `name` whose argument types
/// are `args` (`pg_type.typname`s), if sluice implements it (`regprocedure`
/// input).
pub fn function_with_args(name: &str, args: &[&str]) -> Option<u32> {
    let name = name.strip_prefix("pg_catalog.").unwrap_or(name);
    PROC_OIDS.iter().find(|p| p.name == name && p.args == args).map(|p| p.oid)
}

/// function_signature -- the name and argument types (`pg_type.typname`s)
/// of the function with OID `oid`, if it is one sluice implements.
pub fn function_signature(oid: u32) -> Option<(&'static str, &'static [&'static str])> {
    PROC_OIDS.iter().find(|p| p.oid == oid).map(|p| (p.name, p.args))
}
