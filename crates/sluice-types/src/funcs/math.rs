//! Mathematical functions over the numeric types: `round`, `trunc`, `ceil`,
//! `floor`, `sqrt`, `power`, `mod`, `sign`, `greatest`/`least`, `random`.
//!
//! Each dispatches on its argument's type as PostgreSQL's overloads do:
//! `numeric` versions keep exact decimal semantics (round half away from
//! zero), `double precision` versions use C's `rint` (half to even) — which
//! is why `round(2.5)` is 3 but `round(2.5::float8)` is 2.

use std::cmp::Ordering;

use rand::Rng;

use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::int::{self, IntOp, IntWidth};
use crate::numeric::Numeric;
use crate::{compare, float};

/// `function f(T) does not exist` (42883) for an argument of the wrong type.
fn no_function(name: &str, d: &Datum) -> TypeError {
    let ty = d.natural_type().map_or("unknown".to_string(), |t| crate::types::format_type(t, -1));
    TypeError::new(ErrorKind::UndefinedFunction, format!("function {name}({ty}) does not exist"))
}

/// A float or integer argument as `f64`.
fn float_arg(d: &Datum) -> Option<f64> {
    match d {
        Datum::Float4(v) => Some(f64::from(*v)),
        Datum::Float8(v) => Some(*v),
        _ => None,
    }
}

/// An integer or numeric argument as numeric.
fn numeric_arg(d: &Datum) -> Option<Numeric> {
    match d {
        Datum::Numeric(n) => Some(n.clone()),
        other => other.as_i64().map(Numeric::from_i64),
    }
}

/// Apply a numeric or float version of a one-argument function.
fn unary(
    name: &str,
    d: &Datum,
    on_numeric: impl Fn(&Numeric) -> Result<Numeric>,
    on_float: impl Fn(f64) -> Result<f64>,
) -> Result<Datum> {
    if d.is_null() {
        return Ok(Datum::Null);
    }
    if let Some(f) = float_arg(d) {
        return on_float(f).map(Datum::Float8);
    }
    match numeric_arg(d) {
        Some(n) => on_numeric(&n).map(Datum::Numeric),
        None => Err(no_function(name, d)),
    }
}

/// `round(x)`: numeric half away from zero, float half to even.
pub fn round(d: &Datum) -> Result<Datum> {
    unary("round", d, |n| Ok(n.round(0)), |f| Ok(float::rint(f)))
}

/// `trunc(x)`.
pub fn trunc(d: &Datum) -> Result<Datum> {
    unary("trunc", d, |n| Ok(n.trunc(0)), |f| Ok(f.trunc()))
}

/// `ceil(x)` / `ceiling(x)`.
pub fn ceil(d: &Datum) -> Result<Datum> {
    unary("ceil", d, |n| Ok(n.ceil()), |f| Ok(f.ceil()))
}

/// `floor(x)`.
pub fn floor(d: &Datum) -> Result<Datum> {
    unary("floor", d, |n| Ok(n.floor()), |f| Ok(f.floor()))
}

/// `sqrt(x)`.
pub fn sqrt(d: &Datum) -> Result<Datum> {
    unary("sqrt", d, Numeric::sqrt, float::sqrt)
}

/// `exp(x)`.
pub fn exp(d: &Datum) -> Result<Datum> {
    unary("exp", d, Numeric::exp, |f| {
        let r = f.exp();
        if r.is_infinite() && f.is_finite() {
            return Err(float::overflow_error());
        }
        Ok(r)
    })
}

/// `ln(x)`.
pub fn ln(d: &Datum) -> Result<Datum> {
    unary("ln", d, Numeric::ln, |f| {
        if f == 0.0 {
            return Err(TypeError::new(
                ErrorKind::InvalidArgumentForLogarithm,
                "cannot take logarithm of zero",
            ));
        }
        if f < 0.0 {
            return Err(TypeError::new(
                ErrorKind::InvalidArgumentForLogarithm,
                "cannot take logarithm of a negative number",
            ));
        }
        Ok(f.ln())
    })
}

/// `power(x, y)` (also `^`): float if either is a float, else numeric.
pub fn power(x: &Datum, y: &Datum) -> Result<Datum> {
    if x.is_null() || y.is_null() {
        return Ok(Datum::Null);
    }
    if float_arg(x).is_some() || float_arg(y).is_some() {
        let as_f = |d: &Datum| float_arg(d).or_else(|| numeric_arg(d).map(|n| n.to_f64()));
        return match (as_f(x), as_f(y)) {
            (Some(a), Some(b)) => float::power(a, b).map(Datum::Float8),
            _ => Err(no_function("power", x)),
        };
    }
    match (numeric_arg(x), numeric_arg(y)) {
        (Some(a), Some(b)) => a.power(&b).map(Datum::Numeric),
        _ => Err(no_function("power", x)),
    }
}

/// `mod(x, y)`: integers keep their (wider) type; otherwise numeric.
pub fn modulo(x: &Datum, y: &Datum) -> Result<Datum> {
    if x.is_null() || y.is_null() {
        return Ok(Datum::Null);
    }
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        let w = if matches!(x, Datum::Int8(_)) || matches!(y, Datum::Int8(_)) {
            IntWidth::I64
        } else if matches!(x, Datum::Int4(_)) || matches!(y, Datum::Int4(_)) {
            IntWidth::I32
        } else {
            IntWidth::I16
        };
        let r = int::arith(IntOp::Mod, a, b, w)?;
        return Ok(match w {
            IntWidth::I16 => Datum::Int2(r as i16),
            IntWidth::I32 => Datum::Int4(r as i32),
            IntWidth::I64 => Datum::Int8(r),
        });
    }
    match (numeric_arg(x), numeric_arg(y)) {
        (Some(a), Some(b)) => a.modulo(&b).map(Datum::Numeric),
        _ => Err(no_function("mod", x)),
    }
}

/// `sign(x)`: -1, 0 or 1 in the argument's type.
pub fn sign(d: &Datum) -> Result<Datum> {
    unary(
        "sign",
        d,
        |n| Ok(n.signum()),
        |f| {
            Ok(if f > 0.0 {
                1.0
            } else if f < 0.0 {
                -1.0
            } else {
                0.0
            })
        },
    )
}

/// `greatest(...)`: the largest non-null argument, NULL if all are NULL.
pub fn greatest(args: &[Datum]) -> Datum {
    pick(args, Ordering::Greater)
}

/// `least(...)`: the smallest non-null argument, NULL if all are NULL.
pub fn least(args: &[Datum]) -> Datum {
    pick(args, Ordering::Less)
}

/// The extreme non-null value in direction `want`.
fn pick(args: &[Datum], want: Ordering) -> Datum {
    let mut best: Option<&Datum> = None;
    for a in args.iter().filter(|a| !a.is_null()) {
        if best.is_none_or(|b| compare::cmp(a, b) == want) {
            best = Some(a);
        }
    }
    best.cloned().unwrap_or(Datum::Null)
}

/// `random()`: uniform in [0, 1) from the session's generator.
pub fn random(rng: &mut impl Rng) -> f64 {
    rng.random::<f64>()
}

/// `gen_random_uuid()`: a version-4 UUID from the session's generator.
pub fn gen_random_uuid(rng: &mut impl Rng) -> [u8; 16] {
    let mut u: [u8; 16] = rng.random();
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    u
}
