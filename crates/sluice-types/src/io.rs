//! Text input and output of every type: the `typinput`/`typoutput` functions.
//!
//! [`parse`] turns the text a client sends (or a literal in a query) into a
//! value of a given type and typmod — including the typmod's coercion, as
//! PostgreSQL's input functions do (`'abc'::varchar(2)` fails, `12.345::
//! numeric(4,2)` rounds). [`output`] is the text PostgreSQL 15 would send
//! with the session's settings in the [`Context`]. Both are pure apart from the [`Context`] needed by
//! the date/time types.

use crate::context::Context;
use crate::datetime::{format, input, interval};
use crate::datum::Datum;
use crate::error::Result;
use crate::int::IntWidth;
use crate::types::SqlType;
use crate::{array, bool as boolean, bytea, float, int, jsonb, numeric, oid, text, uuid, xid};

/// Parse `input` as a value of type `ty` with modifier `typmod` (-1 for none).
pub fn parse(ty: SqlType, input: &str, typmod: i32, ctx: &Context) -> Result<Datum> {
    Ok(match ty {
        SqlType::Bool => Datum::Bool(boolean::parse(input)?),
        SqlType::Int2 => Datum::Int2(int::parse(input, IntWidth::I16)? as i16),
        SqlType::Int4 => Datum::Int4(int::parse(input, IntWidth::I32)? as i32),
        SqlType::Int8 => Datum::Int8(int::parse(input, IntWidth::I64)?),
        SqlType::Float4 => Datum::Float4(float::parse_f32(input)?),
        SqlType::Float8 => Datum::Float8(float::parse_f64(input)?),
        SqlType::Numeric => Datum::Numeric(numeric::parse(input, typmod)?),
        SqlType::Text | SqlType::Unknown => Datum::Text(input.to_string()),
        SqlType::Varchar => Datum::Text(text::varchar_coerce(input.to_string(), typmod, false)?),
        SqlType::Bpchar => Datum::Text(text::bpchar_coerce(input.to_string(), typmod, false)?),
        SqlType::Name => Datum::Text(text::name_coerce(input.to_string())),
        SqlType::Char => Datum::Text(text::char_in(input)),
        SqlType::Bytea => Datum::Bytea(bytea::parse(input)?),
        SqlType::Date => Datum::Date(input::parse_date(input, ctx)?),
        SqlType::Time => Datum::Time(input::parse_time(input, typmod, ctx)?),
        SqlType::Timestamp => Datum::Timestamp(input::parse_timestamp(input, typmod, ctx)?),
        SqlType::TimestampTz => Datum::TimestampTz(input::parse_timestamptz(input, typmod, ctx)?),
        SqlType::Interval => {
            Datum::Interval(adjust_interval_typmod(interval::parse(input)?, typmod))
        }
        SqlType::Jsonb => Datum::Jsonb(Box::new(jsonb::parse(input)?)),
        SqlType::Json => {
            crate::json::validate(input)?;
            Datum::Json(input.to_string())
        }
        SqlType::Record(_) => return Err(crate::record::input_not_implemented()),
        SqlType::Enum(e) => Datum::Enum(crate::enums::parse(e, input)?),
        // The base type's input with the domain's modifier; the domain's
        // constraints are the SQL layer's to check.
        SqlType::Domain(d) => return parse(d.base(), input, d.desc().typmod, ctx),
        // A name needs the catalogs: the SQL layer looks names up before
        // a `reg*` value gets here, so only the numeric form is left.
        SqlType::Oid | SqlType::Reg(_) => Datum::Oid(oid::parse(input)?),
        SqlType::Uuid => Datum::Uuid(uuid::parse(input)?),
        SqlType::PgLsn => Datum::PgLsn(crate::pg_lsn::parse(input)?),
        SqlType::Xid => Datum::Xid(xid::parse(input, "xid")?),
        SqlType::Xid8 => Datum::Xid8(xid::parse(input, "xid8")?),
        SqlType::Array(elem) => Datum::Array(Box::new(array::parse(elem, input, typmod, ctx)?)),
    })
}

/// Round an interval's microseconds to `interval(p)` precision.
pub fn adjust_interval_typmod(
    mut iv: crate::datetime::Interval,
    typmod: i32,
) -> crate::datetime::Interval {
    if typmod >= 0 {
        iv.micros = input::adjust_time_typmod(iv.micros, typmod & 0xFFFF);
    }
    iv
}

/// The text PostgreSQL 15 prints for a value (`None` for NULL).
pub fn output(d: &Datum, ctx: &Context) -> Option<String> {
    Some(match d {
        Datum::Null => return None,
        Datum::Bool(b) => boolean::output(*b).to_string(),
        Datum::Int2(v) => v.to_string(),
        Datum::Int4(v) => v.to_string(),
        Datum::Int8(v) => v.to_string(),
        Datum::Float4(v) => float::output_f32(*v),
        Datum::Float8(v) => float::output_f64(*v),
        Datum::Numeric(n) => n.to_string(),
        Datum::Text(s) | Datum::Json(s) => s.clone(),
        Datum::Bytea(b) => bytea::output(b),
        Datum::Date(v) => format::date_out(*v, ctx.date_style),
        Datum::Time(v) => format::time_out(*v),
        Datum::Timestamp(v) => format::timestamp_out(*v, ctx.date_style),
        Datum::TimestampTz(v) => timestamptz_out(*v, ctx),
        Datum::Interval(iv) => interval::output(iv, ctx.interval_style),
        Datum::Jsonb(j) => jsonb::output(j),
        Datum::Oid(v) => v.to_string(),
        Datum::Xid(v) | Datum::Xid8(v) => v.to_string(),
        Datum::Uuid(u) => uuid::output(u),
        Datum::PgLsn(l) => crate::pg_lsn::output(*l),
        Datum::Array(a) => array::output(a, ctx),
        Datum::Record(r) => crate::record::output(r, ctx),
        Datum::Enum(v) => v.text().to_string(),
    })
}

/// `timestamptz` text in the session zone.
fn timestamptz_out(ts: i64, ctx: &Context) -> String {
    let secs = ts.div_euclid(1_000_000);
    let offset_secs = ctx.time_zone.offset_at_utc(secs);
    // Only the non-ISO styles print the abbreviation; ISO needs no lookup.
    let abbrev = match ctx.date_style.format {
        crate::DateFormat::Iso => None,
        _ => ctx.time_zone.abbreviation_at_utc(secs),
    };
    let zone = format::Zone { offset_secs, abbrev: abbrev.as_deref() };
    format::timestamptz_out(ts, &zone, ctx.date_style)
}
