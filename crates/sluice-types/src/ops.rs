//! Operators as functions: arithmetic, comparison, concatenation, negation.
//!
//! The analyzer resolves an operator to argument types; these functions then
//! compute it, dispatching on the values' variants. Mixed operands follow
//! PostgreSQL's operator set: integer widths mix and yield the wider type
//! (`int4 + int8` is `bigint`, overflow says `bigint out of range`); integers
//! with numeric yield numeric; anything with a float yields `double
//! precision` (`real` only when both are `real`); date/time operands combine
//! as PostgreSQL's `date + integer`, `timestamp - timestamp`,
//! `timestamptz + interval` (in the session zone) and so on. NULL in gives
//! NULL out. An operand combination PostgreSQL has no operator for is
//! reported as PostgreSQL's analyzer would (`operator does not exist`).

use std::cmp::Ordering;

use crate::context::Context;
use crate::datetime::arith as dt;
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::float::{self, FloatOp};
use crate::int::{self, IntOp, IntWidth};
use crate::numeric::Numeric;
use crate::types::format_type;

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
}

impl ArithOp {
    /// The operator's SQL symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Mod => "%",
        }
    }
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`.
    Eq,
    /// `<>`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CmpOp {
    /// Every comparison operator.
    pub const ALL: [CmpOp; 6] = [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge];

    /// The operator's SQL symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "<>",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// `operator does not exist: T op U` (42883).
fn no_operator(op: &str, a: &Datum, b: &Datum) -> TypeError {
    let name = |d: &Datum| d.natural_type().map_or("unknown".to_string(), |t| format_type(t, -1));
    TypeError::new(ErrorKind::UndefinedFunction, format!("operator does not exist: {} {op} {}", name(a), name(b)))
        .with_hint("No operator matches the given name and argument types. You might need to add explicit type casts.")
}

/// The width of an integer datum.
fn int_width(d: &Datum) -> Option<IntWidth> {
    match d {
        Datum::Int2(_) => Some(IntWidth::I16),
        Datum::Int4(_) => Some(IntWidth::I32),
        Datum::Int8(_) => Some(IntWidth::I64),
        _ => None,
    }
}

/// An integer result as a datum of the given width.
fn int_datum(v: i64, w: IntWidth) -> Datum {
    match w {
        IntWidth::I16 => Datum::Int2(v as i16),
        IntWidth::I32 => Datum::Int4(v as i32),
        IntWidth::I64 => Datum::Int8(v),
    }
}

/// `a op b`.
pub fn arith(op: ArithOp, a: &Datum, b: &Datum, ctx: &Context) -> Result<Datum> {
    if a.is_null() || b.is_null() {
        return Ok(Datum::Null);
    }
    if let (Some(wa), Some(wb)) = (int_width(a), int_width(b)) {
        let iop = match op {
            ArithOp::Add => IntOp::Add,
            ArithOp::Sub => IntOp::Sub,
            ArithOp::Mul => IntOp::Mul,
            ArithOp::Div => IntOp::Div,
            ArithOp::Mod => IntOp::Mod,
        };
        let w = wa.max(wb);
        return Ok(int_datum(
            int::arith(iop, a.as_i64().unwrap_or(0), b.as_i64().unwrap_or(0), w)?,
            w,
        ));
    }
    if let Some(r) = float_arith(op, a, b)? {
        return Ok(r);
    }
    if let (Some(x), Some(y)) = (as_numeric(a), as_numeric(b)) {
        return numeric_arith(op, &x, &y).map(Datum::Numeric);
    }
    if let Some(r) = crate::pg_lsn::arith(op, a, b)? {
        return Ok(r);
    }
    datetime_arith(op, a, b, ctx)?.ok_or_else(|| no_operator(op.symbol(), a, b))
}

/// An integer or numeric operand as numeric.
fn as_numeric(d: &Datum) -> Option<Numeric> {
    match d {
        Datum::Numeric(n) => Some(n.clone()),
        other => other.as_i64().map(Numeric::from_i64),
    }
}

/// A numeric-typed operand as f64 (for float arithmetic).
fn as_f64(d: &Datum) -> Option<f64> {
    match d {
        Datum::Float4(v) => Some(f64::from(*v)),
        Datum::Float8(v) => Some(*v),
        Datum::Numeric(n) => Some(n.to_f64()),
        other => other.as_i64().map(|v| v as f64),
    }
}

/// Float arithmetic when either operand is a float; `Ok(None)` otherwise.
fn float_arith(op: ArithOp, a: &Datum, b: &Datum) -> Result<Option<Datum>> {
    let is_float = |d: &Datum| matches!(d, Datum::Float4(_) | Datum::Float8(_));
    if !is_float(a) && !is_float(b) {
        return Ok(None);
    }
    let (Some(x), Some(y)) = (as_f64(a), as_f64(b)) else {
        return Ok(None);
    };
    let fop = match op {
        ArithOp::Add => FloatOp::Add,
        ArithOp::Sub => FloatOp::Sub,
        ArithOp::Mul => FloatOp::Mul,
        ArithOp::Div => FloatOp::Div,
        ArithOp::Mod => return Err(no_operator("%", a, b)),
    };
    if let (Datum::Float4(x4), Datum::Float4(y4)) = (a, b) {
        return Ok(Some(Datum::Float4(float::arith_f32(fop, *x4, *y4)?)));
    }
    Ok(Some(Datum::Float8(float::arith_f64(fop, x, y)?)))
}

/// Numeric arithmetic.
fn numeric_arith(op: ArithOp, a: &Numeric, b: &Numeric) -> Result<Numeric> {
    match op {
        ArithOp::Add => a.add(b),
        ArithOp::Sub => a.sub(b),
        ArithOp::Mul => a.mul(b),
        ArithOp::Div => a.div(b),
        ArithOp::Mod => a.modulo(b),
    }
}

/// Date/time arithmetic; `Ok(None)` when no such operator exists.
fn datetime_arith(op: ArithOp, a: &Datum, b: &Datum, ctx: &Context) -> Result<Option<Datum>> {
    use ArithOp::*;
    use Datum::*;
    let r = match (op, a, b) {
        (Add, Date(d), n) | (Add, n, Date(d)) if n.as_i64().is_some() => {
            Date(dt::date_add_days(*d, n.as_i64().unwrap_or(0))?)
        }
        (Sub, Date(d), n) if n.as_i64().is_some() => {
            Date(dt::date_add_days(*d, -n.as_i64().unwrap_or(0))?)
        }
        (Sub, Date(x), Date(y)) => Int4(dt::date_diff(*x, *y)?),
        (Add, Date(d), Interval(iv)) | (Add, Interval(iv), Date(d)) => {
            Timestamp(dt::timestamp_add_interval(dt::date_to_timestamp(*d)?, iv)?)
        }
        (Sub, Date(d), Interval(iv)) => {
            Timestamp(dt::timestamp_add_interval(dt::date_to_timestamp(*d)?, &iv.neg()?)?)
        }
        (Add, Date(d), Time(t)) | (Add, Time(t), Date(d)) => Timestamp(dt::date_add_time(*d, *t)?),
        (Add, Timestamp(t), Interval(iv)) | (Add, Interval(iv), Timestamp(t)) => {
            Timestamp(dt::timestamp_add_interval(*t, iv)?)
        }
        (Sub, Timestamp(t), Interval(iv)) => Timestamp(dt::timestamp_add_interval(*t, &iv.neg()?)?),
        (Add, TimestampTz(t), Interval(iv)) | (Add, Interval(iv), TimestampTz(t)) => {
            TimestampTz(dt::timestamptz_add_interval(*t, iv, ctx)?)
        }
        (Sub, TimestampTz(t), Interval(iv)) => {
            TimestampTz(dt::timestamptz_add_interval(*t, &iv.neg()?, ctx)?)
        }
        (Sub, Timestamp(x), Timestamp(y)) | (Sub, TimestampTz(x), TimestampTz(y)) => {
            Interval(dt::timestamp_diff(*x, *y)?)
        }
        (Add, Time(t), Interval(iv)) | (Add, Interval(iv), Time(t)) => {
            Time(dt::time_add_interval(*t, iv))
        }
        (Sub, Time(t), Interval(iv)) => Time(dt::time_add_interval(*t, &iv.neg()?)),
        (Sub, Time(x), Time(y)) => Interval(dt::time_diff(*x, *y)),
        (Add, Interval(x), Interval(y)) => Interval(x.add(y)?),
        (Sub, Interval(x), Interval(y)) => Interval(x.sub(y)?),
        (Mul, Interval(iv), n) | (Mul, n, Interval(iv)) => match as_f64(n) {
            Some(f) => Interval(iv.mul(f)?),
            None => return Ok(None),
        },
        (Div, Interval(iv), n) => match as_f64(n) {
            Some(f) => Interval(iv.div(f)?),
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    Ok(Some(r))
}

/// `a op b` for comparison operators: a boolean, or NULL if either is NULL.
pub fn compare(op: CmpOp, a: &Datum, b: &Datum) -> Datum {
    if a.is_null() || b.is_null() {
        return Datum::Null;
    }
    let ord = crate::compare::cmp(a, b);
    Datum::Bool(match op {
        CmpOp::Eq => ord == Ordering::Equal,
        CmpOp::Ne => ord != Ordering::Equal,
        CmpOp::Lt => ord == Ordering::Less,
        CmpOp::Le => ord != Ordering::Greater,
        CmpOp::Gt => ord == Ordering::Greater,
        CmpOp::Ge => ord != Ordering::Less,
    })
}

/// `a || b`: text concatenation (non-text operands by their text form, as
/// PostgreSQL's `anytextcat`), or bytea concatenation.
pub fn concat(a: &Datum, b: &Datum, ctx: &Context) -> Datum {
    match (a, b) {
        (Datum::Null, _) | (_, Datum::Null) => Datum::Null,
        (Datum::Bytea(x), Datum::Bytea(y)) => Datum::Bytea([x.as_slice(), y].concat()),
        _ => {
            let text = |d: &Datum| crate::io::output(d, ctx).unwrap_or_default();
            Datum::Text(text(a) + &text(b))
        }
    }
}

/// Unary minus.
pub fn negate(a: &Datum) -> Result<Datum> {
    Ok(match a {
        Datum::Null => Datum::Null,
        Datum::Int2(v) => Datum::Int2(int::negate((*v).into(), IntWidth::I16)? as i16),
        Datum::Int4(v) => Datum::Int4(int::negate((*v).into(), IntWidth::I32)? as i32),
        Datum::Int8(v) => Datum::Int8(int::negate(*v, IntWidth::I64)?),
        Datum::Float4(v) => Datum::Float4(-v),
        Datum::Float8(v) => Datum::Float8(-v),
        Datum::Numeric(n) => Datum::Numeric(n.neg()),
        Datum::Interval(iv) => Datum::Interval(iv.neg()?),
        other => return Err(no_unary("-", other)),
    })
}

/// `abs()`.
pub fn abs(a: &Datum) -> Result<Datum> {
    Ok(match a {
        Datum::Null => Datum::Null,
        Datum::Int2(v) => Datum::Int2(int::abs((*v).into(), IntWidth::I16)? as i16),
        Datum::Int4(v) => Datum::Int4(int::abs((*v).into(), IntWidth::I32)? as i32),
        Datum::Int8(v) => Datum::Int8(int::abs(*v, IntWidth::I64)?),
        Datum::Float4(v) => Datum::Float4(v.abs()),
        Datum::Float8(v) => Datum::Float8(v.abs()),
        Datum::Numeric(n) => Datum::Numeric(n.abs()),
        other => return Err(no_unary("abs", other)),
    })
}

/// `operator does not exist: - T` (42883).
fn no_unary(op: &str, a: &Datum) -> TypeError {
    let name = a.natural_type().map_or("unknown".to_string(), |t| format_type(t, -1));
    TypeError::new(ErrorKind::UndefinedFunction, format!("operator does not exist: {op} {name}"))
}
