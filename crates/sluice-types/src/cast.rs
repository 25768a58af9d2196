//! Casts between types: which exist (`pg_cast`) and how they convert.
//!
//! [`cast_context`] answers the analyzer's question "may this value become
//! that type here?" with PostgreSQL's three contexts: *implicit* casts apply
//! anywhere (`int4` → `int8` in `1 + 2::bigint`), *assignment* casts also when
//! storing into a column (`numeric` → `int4` in `INSERT`), *explicit* ones only
//! when written as `CAST`/`::`. Besides `pg_cast`'s entries, every type casts
//! to the string types through its output function (assignment) and from
//! them through its input function (explicit), as PostgreSQL's I/O casts do.
//!
//! [`cast`] performs a conversion and then applies the target typmod, with the
//! `explicit` flag deciding whether an over-long string is truncated (explicit
//! cast) or rejected (assignment), as in PostgreSQL's length coercions.
//!
//! Arrays follow PostgreSQL's `ArrayCoerceExpr`: one array type casts to
//! another in whatever context its element type casts to the other's
//! (`int4[]` → `int8[]` implicitly, `text[]` → `int4[]` only explicitly), by
//! casting each element, typmod included. Like every type, an array casts
//! to text by its output function and from text (or an unknown literal) by
//! its input function.

use crate::array::Array;
use crate::context::Context;
use crate::datetime::{arith, calendar, Interval};
use crate::datum::Datum;
use crate::error::{Result, TypeError};
use crate::int::IntWidth;
use crate::jsonb::JsonbValue;
use crate::numeric::{apply_typmod, Numeric};
use crate::types::{format_type, ElemType, SqlType, TypeCategory};
use crate::{float, io, text};

/// When a cast may be applied without being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CastContext {
    /// Anywhere, silently.
    Implicit,
    /// When assigning to a column (and explicitly).
    Assignment,
    /// Only when written as `CAST(x AS t)` or `x::t`.
    Explicit,
}

/// The context in which `from` may be cast to `to`, or `None` if it cannot.
pub fn cast_context(from: SqlType, to: SqlType) -> Option<CastContext> {
    use CastContext::*;
    use SqlType::*;
    if from == to || from == Unknown {
        return Some(Implicit);
    }
    // A domain casts as its base type does (to its base type: binary).
    if matches!(from, Domain(_)) || matches!(to, Domain(_)) {
        return cast_context(from.base(), to.base());
    }
    if let (Array(f), Array(t)) = (from, to) {
        // A vector reads as an array, but an array is no vector.
        if t.is_vector() && !f.is_vector() {
            return None;
        }
        return cast_context(f.get(), t.get());
    }
    let from_string = from.category() == TypeCategory::String;
    let to_string = to.category() == TypeCategory::String;
    let ctx = match (from, to) {
        (Int2, Int4 | Int8 | Float4 | Float8 | Numeric | Oid) => Implicit,
        (Int4, Int8 | Float4 | Float8 | Numeric | Oid) => Implicit,
        (Int8, Float4 | Float8 | Numeric | Oid) => Implicit,
        (Int4, Int2) | (Int8, Int2 | Int4) => Assignment,
        (Int4, Bool) | (Bool, Int4) => Explicit,
        (Float4, Float8) => Implicit,
        (Float4 | Float8, Int2 | Int4 | Int8 | Numeric) | (Float8, Float4) => Assignment,
        (Numeric, Float4 | Float8) => Implicit,
        (Numeric, Int2 | Int4 | Int8) => Assignment,
        (Oid, Int4 | Int8) => Assignment,
        // The `reg*` types are `oid` with a different text form.
        (Reg(_), Oid) | (Oid | Int2 | Int4 | Int8, Reg(_)) => Implicit,
        (Reg(_), Int4 | Int8) => Assignment,
        (Xid8, Xid) => Explicit,
        (Date, Timestamp | TimestampTz) | (Timestamp, TimestampTz) | (Time, Interval) => Implicit,
        (Timestamp, Date | Time) | (TimestampTz, Date | Time | Timestamp) | (Interval, Time) => {
            Assignment
        }
        (Jsonb, Bool | Numeric | Int2 | Int4 | Int8 | Float4 | Float8) => Explicit,
        (Json, Jsonb) | (Jsonb, Json) => Assignment,
        (Text | Varchar | Bpchar | Name, Text | Varchar | Bpchar | Name) => Implicit,
        (Char, Text) => Implicit,
        (Text | Varchar | Bpchar, Char) | (Char, Varchar | Bpchar) => Assignment,
        (Int4, Char) | (Char, Int4) => Explicit,
        (Bool, Text | Varchar | Bpchar) => Assignment,
        _ if to_string => Assignment,
        _ if from_string => Explicit,
        _ => return None,
    };
    Some(ctx)
}

/// Convert `d` from type `from` to type `to` with modifier `typmod`.
pub fn cast(
    d: &Datum,
    from: SqlType,
    to: SqlType,
    typmod: i32,
    explicit: bool,
    ctx: &Context,
) -> Result<Datum> {
    if d.is_null() {
        return Ok(Datum::Null);
    }
    if cast_context(from, to).is_none() {
        return Err(TypeError::cannot_cast(&format_type(from, -1), &format_type(to, -1)));
    }
    let converted = convert(d, from, to, ctx)?;
    apply_target_typmod(converted, to, typmod, explicit)
}

/// Apply the target type's modifier (length, precision, scale).
pub fn apply_target_typmod(d: Datum, to: SqlType, typmod: i32, explicit: bool) -> Result<Datum> {
    Ok(match (to, d) {
        (SqlType::Domain(domain), d) => {
            let typmod = if typmod >= 0 { typmod } else { domain.desc().typmod };
            return apply_target_typmod(d, domain.base(), typmod, explicit);
        }
        (SqlType::Varchar, Datum::Text(s)) => {
            Datum::Text(text::varchar_coerce(s, typmod, explicit)?)
        }
        (SqlType::Bpchar, Datum::Text(s)) => Datum::Text(text::bpchar_coerce(s, typmod, explicit)?),
        (SqlType::Name, Datum::Text(s)) => Datum::Text(text::name_coerce(s)),
        (SqlType::Numeric, Datum::Numeric(n)) => Datum::Numeric(apply_typmod(n, typmod)?),
        (SqlType::Timestamp, Datum::Timestamp(t)) => {
            Datum::Timestamp(crate::datetime::input::adjust_timestamp_typmod(t, typmod)?)
        }
        (SqlType::TimestampTz, Datum::TimestampTz(t)) => {
            Datum::TimestampTz(crate::datetime::input::adjust_timestamp_typmod(t, typmod)?)
        }
        (SqlType::Time, Datum::Time(t)) => {
            Datum::Time(crate::datetime::input::adjust_time_typmod(t, typmod))
        }
        (SqlType::Interval, Datum::Interval(iv)) => {
            Datum::Interval(io::adjust_interval_typmod(iv, typmod))
        }
        (SqlType::Array(elem), Datum::Array(a)) if typmod >= 0 => {
            let lower = a.lower_bound();
            let elems = a
                .into_elements()
                .into_iter()
                .map(|e| apply_target_typmod(e, elem.get(), typmod, explicit))
                .collect::<Result<Vec<Datum>>>()?;
            Datum::Array(Box::new(Array::with_lower_bound(elem, lower, elems)?))
        }
        (_, other) => other,
    })
}

/// The conversion proper, before typmod coercion.
fn convert(d: &Datum, from: SqlType, to: SqlType, ctx: &Context) -> Result<Datum> {
    use SqlType::*;
    if from == to {
        return Ok(d.clone());
    }
    if let Domain(domain) = to {
        let converted = convert(d, from.base(), domain.base(), ctx)?;
        return apply_target_typmod(converted, domain.base(), domain.desc().typmod, true);
    }
    if let Domain(_) = from {
        return convert(d, from.base(), to, ctx);
    }
    if let (Datum::Array(a), SqlType::Array(elem)) = (d, to) {
        return convert_array(a, elem, ctx);
    }
    if from == Char || to == Char {
        return convert_char(d, from, to, ctx);
    }
    if to.category() == TypeCategory::String {
        return Ok(Datum::Text(to_text(d, from, ctx)));
    }
    match (d, to) {
        (Datum::Jsonb(j), Json) => return Ok(Datum::Json(crate::jsonb::output(j))),
        (Datum::Json(s), _) => return io::parse(to, s, -1, ctx),
        _ => {}
    }
    if matches!(from, Text | Varchar | Bpchar | Name | Unknown) {
        let s = d.as_str().unwrap_or_default();
        return io::parse(to, s, -1, ctx);
    }
    if let Datum::Jsonb(j) = d {
        return from_jsonb(j, to);
    }
    if let Some(v) = d.as_i64() {
        return from_int(v, to);
    }
    match (d, to) {
        (Datum::Bool(b), Int4) => Ok(Datum::Int4(i32::from(*b))),
        (Datum::Float4(v), _) => from_float(f64::from(*v), true, to),
        (Datum::Float8(v), _) => from_float(*v, false, to),
        (Datum::Numeric(n), _) => from_numeric(n, to),
        (Datum::Oid(v), Oid | Reg(_)) => Ok(Datum::Oid(*v)),
        (Datum::Oid(v), Int4) => Ok(Datum::Int4(*v as i32)),
        (Datum::Oid(v), Int8) => Ok(Datum::Int8(i64::from(*v))),
        (Datum::Xid8(v), Xid) => Ok(Datum::Xid(*v)),
        _ => convert_datetime(d, to, ctx),
    }
}

/// Casts to and from `"char"`: a string gives its first byte (no escapes,
/// unlike `"char"`'s input function), `int4` the byte's signed value.
fn convert_char(d: &Datum, from: SqlType, to: SqlType, ctx: &Context) -> Result<Datum> {
    use SqlType::*;
    match (d, from, to) {
        (Datum::Text(s), Char, Int4) => Ok(Datum::Int4(i32::from(text::char_byte(s) as i8))),
        (Datum::Text(s), Char, _) => Ok(Datum::Text(s.clone())),
        (Datum::Int4(v), Int4, Char) => i8::try_from(*v)
            .map(|b| Datum::Text(text::char_from_byte(b as u8)))
            .map_err(|_| TypeError::out_of_range("\"char\" out of range")),
        (Datum::Text(s), Text | Varchar | Bpchar | Name, Char) => {
            Ok(Datum::Text(text::char_from_byte(s.bytes().next().unwrap_or(0))))
        }
        _ => io::parse(to, &to_text(d, from, ctx), -1, ctx),
    }
}

/// convert_array -- cast every element of `a` to `elem`, keeping the bounds.
fn convert_array(a: &Array, elem: ElemType, ctx: &Context) -> Result<Datum> {
    let from = a.elem_type().get();
    let elems = a
        .elements()
        .iter()
        .map(|e| if e.is_null() { Ok(Datum::Null) } else { convert(e, from, elem.get(), ctx) })
        .collect::<Result<Vec<Datum>>>()?;
    Ok(Datum::Array(Box::new(Array::with_lower_bound(elem, a.lower_bound(), elems)?)))
}

/// The text form used by casts to string types.
fn to_text(d: &Datum, from: SqlType, ctx: &Context) -> String {
    match (d, from) {
        (Datum::Bool(b), _) => if *b { "true" } else { "false" }.to_string(),
        (Datum::Text(s), SqlType::Bpchar) => text::bpchar_trim(s).to_string(),
        _ => io::output(d, ctx).unwrap_or_default(),
    }
}

/// Casts from an integer type.
fn from_int(v: i64, to: SqlType) -> Result<Datum> {
    Ok(match to {
        SqlType::Int2 => Datum::Int2(IntWidth::I16.check(v.into())? as i16),
        SqlType::Int4 => Datum::Int4(IntWidth::I32.check(v.into())? as i32),
        SqlType::Int8 => Datum::Int8(v),
        SqlType::Float4 => Datum::Float4(v as f32),
        SqlType::Float8 => Datum::Float8(v as f64),
        SqlType::Numeric => Datum::Numeric(Numeric::from_i64(v)),
        SqlType::Bool => Datum::Bool(v != 0),
        SqlType::Oid | SqlType::Reg(_)
            if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v) =>
        {
            Datum::Oid(v as u32)
        }
        SqlType::Oid | SqlType::Reg(_) => return Err(TypeError::out_of_range("OID out of range")),
        other => return Err(TypeError::cannot_cast("integer", &format_type(other, -1))),
    })
}

/// Casts from `real` (`single`) or `double precision`.
fn from_float(v: f64, single: bool, to: SqlType) -> Result<Datum> {
    Ok(match to {
        SqlType::Int2 => Datum::Int2(float::to_int(v, IntWidth::I16)? as i16),
        SqlType::Int4 => Datum::Int4(float::to_int(v, IntWidth::I32)? as i32),
        SqlType::Int8 => Datum::Int8(float::to_int(v, IntWidth::I64)?),
        SqlType::Float4 => Datum::Float4(float::f64_to_f32(v)?),
        SqlType::Float8 => Datum::Float8(v),
        SqlType::Numeric if single => Datum::Numeric(Numeric::from_f32(v as f32)),
        SqlType::Numeric => Datum::Numeric(Numeric::from_f64(v)),
        other => return Err(TypeError::cannot_cast("double precision", &format_type(other, -1))),
    })
}

/// Casts from `numeric`.
fn from_numeric(n: &Numeric, to: SqlType) -> Result<Datum> {
    let int = |w: IntWidth| n.to_int_checked(w.min_value(), w.max_value(), w.sql_name());
    Ok(match to {
        SqlType::Int2 => Datum::Int2(int(IntWidth::I16)? as i16),
        SqlType::Int4 => Datum::Int4(int(IntWidth::I32)? as i32),
        SqlType::Int8 => Datum::Int8(int(IntWidth::I64)?),
        SqlType::Float4 => Datum::Float4(n.to_f32_checked()?),
        SqlType::Float8 => Datum::Float8(n.to_f64_checked()?),
        other => return Err(TypeError::cannot_cast("numeric", &format_type(other, -1))),
    })
}

/// Casts from `jsonb` to scalar types; the JSON value must be of the right kind.
fn from_jsonb(j: &JsonbValue, to: SqlType) -> Result<Datum> {
    let kind = match j {
        JsonbValue::Null => "null",
        JsonbValue::String(_) => "string",
        JsonbValue::Number(_) => "numeric",
        JsonbValue::Bool(_) => "boolean",
        JsonbValue::Array(_) => "array",
        JsonbValue::Object(_) => "object",
    };
    let wrong = || {
        TypeError::invalid_parameter(format!(
            "cannot cast jsonb {kind} to type {}",
            format_type(to, -1)
        ))
    };
    match (j, to) {
        (JsonbValue::Bool(b), SqlType::Bool) => Ok(Datum::Bool(*b)),
        (JsonbValue::Number(n), SqlType::Numeric) => Ok(Datum::Numeric(n.clone())),
        (JsonbValue::Number(n), _) if to != SqlType::Bool => from_numeric(n, to),
        _ => Err(wrong()),
    }
}

/// Casts among the date/time types.
fn convert_datetime(d: &Datum, to: SqlType, ctx: &Context) -> Result<Datum> {
    use SqlType::*;
    Ok(match (d, to) {
        (Datum::Date(v), Timestamp) => Datum::Timestamp(arith::date_to_timestamp(*v)?),
        (Datum::Date(v), TimestampTz) => Datum::TimestampTz(arith::date_to_timestamptz(*v, ctx)?),
        (Datum::Timestamp(v), Date) => Datum::Date(arith::timestamp_to_date(*v)),
        (Datum::Timestamp(v), Time) => time_or_null(arith::timestamp_to_time(*v)),
        (Datum::Timestamp(v), TimestampTz) => {
            Datum::TimestampTz(arith::timestamp_to_timestamptz(*v, ctx)?)
        }
        (Datum::TimestampTz(v), Date) => Datum::Date(arith::timestamptz_to_date(*v, ctx)),
        (Datum::TimestampTz(v), Timestamp) => {
            Datum::Timestamp(arith::timestamptz_to_timestamp(*v, ctx)?)
        }
        (Datum::TimestampTz(v), Time) => {
            time_or_null(arith::timestamp_to_time(arith::timestamptz_to_timestamp(*v, ctx)?))
        }
        (Datum::Time(v), Interval) => Datum::Interval(crate::datetime::Interval::new(0, 0, *v)),
        (Datum::Interval(iv), Time) => Datum::Time(interval_to_time(iv)),
        (other, to) => {
            let from = other.natural_type().unwrap_or(SqlType::Unknown);
            return Err(TypeError::cannot_cast(&format_type(from, -1), &format_type(to, -1)));
        }
    })
}

/// An infinite timestamp has no time of day: the cast yields NULL.
fn time_or_null(t: Option<i64>) -> Datum {
    t.map_or(Datum::Null, Datum::Time)
}

/// `interval::time`: the time part modulo a day, made non-negative.
fn interval_to_time(iv: &Interval) -> i64 {
    iv.micros.rem_euclid(calendar::USECS_PER_DAY)
}
