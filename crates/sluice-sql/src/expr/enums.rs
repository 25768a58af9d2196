//! The enum support functions `enum_first`, `enum_last` and `enum_range`
//! (PostgreSQL's `utils/adt/enum.c`).
//!
//! PostgreSQL declares them on the pseudo-type `anyenum` and reads the
//! type from the call's resolved argument types, since the arguments are
//! usually NULLs that only carry a type (`enum_first(NULL::rainbow)`).
//! sluice does the same at analysis: the call becomes a
//! [`Builtin::EnumSupport`] holding the enum type, so evaluation needs no
//! catalog. A label the running transaction added and has not committed is
//! refused (55P04), as PostgreSQL's check_safe_enum_use does.

use sluice_types::enums::{check_safe, EnumType, EnumValue};
use sluice_types::{Datum, SqlType};

use super::builtin::Builtin;
use super::coerce::type_name;
use super::tree::Expr;
use crate::{Result, SqlError};

/// Which support function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnumFunc {
    /// `enum_first(anyenum)`: the first label.
    First,
    /// `enum_last(anyenum)`: the last label.
    Last,
    /// `enum_range(anyenum)`: every label, in order.
    Range,
    /// `enum_range(anyenum, anyenum)`: the labels between two, inclusive,
    /// NULL meaning the type's first or last.
    RangeBetween,
}

/// The support function `name` with `nargs` arguments, if it is one.
pub(super) fn support_function(name: &str, nargs: usize) -> Option<EnumFunc> {
    match (name, nargs) {
        ("enum_first", 1) => Some(EnumFunc::First),
        ("enum_last", 1) => Some(EnumFunc::Last),
        ("enum_range", 1) => Some(EnumFunc::Range),
        ("enum_range", 2) => Some(EnumFunc::RangeBetween),
        _ => None,
    }
}

/// support_call -- the call `name(args)` of support function `func`; 42883
/// when its arguments are not of one enum type.
pub(super) fn support_call(
    name: &str,
    func: EnumFunc,
    args: Vec<Expr>,
    location: Option<u32>,
) -> Result<Expr> {
    let known: Vec<SqlType> =
        args.iter().map(Expr::ty).filter(|t| *t != SqlType::Unknown).collect();
    let ty = match known.as_slice() {
        [SqlType::Enum(e)] => *e,
        [SqlType::Enum(a), SqlType::Enum(b)] if a.desc().oid == b.desc().oid => *a,
        _ => {
            let types: Vec<String> = args.iter().map(|a| type_name(a.ty())).collect();
            return Err(SqlError::new(
                "42883",
                format!("function {name}({}) does not exist", types.join(", ")),
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
            .at(location));
        }
    };
    let scalar = SqlType::Enum(ty);
    let args = args
        .into_iter()
        .map(|a| super::coerce::coerce(a, scalar, -1, super::CoercionContext::Implicit))
        .collect::<Result<Vec<_>>>()?;
    let result = match func {
        EnumFunc::First | EnumFunc::Last => scalar,
        EnumFunc::Range | EnumFunc::RangeBetween => SqlType::array_of(scalar)
            .ok_or_else(|| SqlError::internal("enum type without an array type"))?,
    };
    Ok(Expr::Call { func: Builtin::EnumSupport(func, ty), args, ty: result, location })
}

/// call -- evaluates support function `func` of enum type `ty`.
pub(super) fn call(func: EnumFunc, ty: EnumType, args: &[Datum]) -> Result<Datum> {
    let values: Vec<EnumValue> = ty.values().collect();
    let checked = |v: EnumValue| check_safe(v).map(|()| Datum::Enum(v));
    let end = match func {
        EnumFunc::First => values.first(),
        _ => values.last(),
    };
    Ok(match func {
        EnumFunc::First | EnumFunc::Last => match end {
            Some(value) => checked(*value)?,
            None => {
                let name = &ty.desc().sql_name;
                return Err(SqlError::new("55000", format!("enum {name} contains no values")));
            }
        },
        EnumFunc::Range => range(ty, &values)?,
        EnumFunc::RangeBetween => {
            let bound = |i: usize| match args.get(i) {
                Some(Datum::Enum(v)) => values.iter().position(|x| x.label == v.label),
                _ => None,
            };
            let lower = bound(0).unwrap_or(0);
            let upper = bound(1).map_or(values.len(), |u| u + 1);
            range(ty, values.get(lower..upper).unwrap_or_default())?
        }
    })
}

/// The array of `values`, each checked for safety.
fn range(ty: EnumType, values: &[EnumValue]) -> Result<Datum> {
    let elem = sluice_types::types::ElemType::new(SqlType::Enum(ty))
        .ok_or_else(|| SqlError::internal("enum type without an array type"))?;
    let elems = values
        .iter()
        .map(|v| check_safe(*v).map(|()| Datum::Enum(*v)))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(Datum::array(elem, elems))
}
