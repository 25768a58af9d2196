//! Binary send/receive: the wire protocol's binary format of each type.
//!
//! Exactly PostgreSQL's `typsend`/`typreceive` formats, so binary-mode
//! clients (JDBC, psycopg, tokio-postgres) interoperate: integers and floats
//! big-endian; `numeric` as `ndigits, weight, sign, dscale` (16 bits each)
//! then base-10000 digits; `date` as days and `timestamp` as microseconds
//! since 2000-01-01; `interval` as microseconds, days, months; text types
//! as raw UTF-8; `jsonb` as version byte 1 plus its text; arrays as
//! described in `array/wire.rs`.
//!
//! Receiving validates like PostgreSQL: wrong lengths, bad numeric headers
//! and digits, out-of-range dates and invalid UTF-8 are errors with
//! PostgreSQL's messages, and typmods are applied.

use crate::datetime::{calendar, input, Interval};
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::numeric::{apply_typmod, Numeric, NumericKind};
use crate::types::SqlType;
use crate::{array, jsonb, text};

/// Wire sign words of numeric.
const SIGN_POS: u16 = 0x0000;
const SIGN_NEG: u16 = 0x4000;
const SIGN_NAN: u16 = 0xC000;
const SIGN_PINF: u16 = 0xD000;
const SIGN_NINF: u16 = 0xF000;

/// send_typed -- [`send`] for a value known to be of type `ty`: a
/// `"char"` goes out as its one byte (its datum is its text form).
pub fn send_typed(ty: SqlType, d: &Datum) -> Vec<u8> {
    match (ty.base(), d) {
        (SqlType::Char, Datum::Text(s)) => vec![text::char_byte(s)],
        _ => send(d),
    }
}

/// The binary wire form of a non-null value (NULL sends no bytes; the
/// protocol marks it with length -1).
pub fn send(d: &Datum) -> Vec<u8> {
    match d {
        Datum::Null => Vec::new(),
        Datum::Bool(b) => vec![u8::from(*b)],
        Datum::Int2(v) => v.to_be_bytes().to_vec(),
        Datum::Int4(v) => v.to_be_bytes().to_vec(),
        Datum::Int8(v) => v.to_be_bytes().to_vec(),
        Datum::Float4(v) => v.to_bits().to_be_bytes().to_vec(),
        Datum::Float8(v) => v.to_bits().to_be_bytes().to_vec(),
        Datum::Oid(v) => v.to_be_bytes().to_vec(),
        // Clients read an xid as four bytes: its low 32 bits (crate::xid).
        Datum::Xid(v) => (*v as u32).to_be_bytes().to_vec(),
        Datum::Xid8(v) => v.to_be_bytes().to_vec(),
        Datum::Date(v) => v.to_be_bytes().to_vec(),
        Datum::Time(v) | Datum::Timestamp(v) | Datum::TimestampTz(v) => v.to_be_bytes().to_vec(),
        Datum::Interval(iv) => {
            let mut out = iv.micros.to_be_bytes().to_vec();
            out.extend(iv.days.to_be_bytes());
            out.extend(iv.months.to_be_bytes());
            out
        }
        Datum::Uuid(u) => u.to_vec(),
        Datum::PgLsn(l) => l.to_be_bytes().to_vec(),
        Datum::Text(s) | Datum::Json(s) => s.as_bytes().to_vec(),
        Datum::Bytea(b) => b.clone(),
        Datum::Numeric(n) => numeric_send(n),
        Datum::Jsonb(j) => {
            let mut out = vec![1u8];
            out.extend(jsonb::output(j).into_bytes());
            out
        }
        Datum::Array(a) => array::send(a),
        Datum::Record(r) => crate::record::send(r),
        // `enum_send`: the label's text.
        Datum::Enum(v) => v.text().as_bytes().to_vec(),
    }
}

/// `numeric_send`.
fn numeric_send(n: &Numeric) -> Vec<u8> {
    let (sign, digits): (u16, &[u16]) = match n.kind() {
        NumericKind::NaN => (SIGN_NAN, &[]),
        NumericKind::PosInf => (SIGN_PINF, &[]),
        NumericKind::NegInf => (SIGN_NINF, &[]),
        NumericKind::Finite if n.is_negative() => (SIGN_NEG, n.digits()),
        NumericKind::Finite => (SIGN_POS, n.digits()),
    };
    let weight = if digits.is_empty() { 0 } else { n.weight() as i16 };
    let dscale = if n.is_finite() { n.dscale() as u16 } else { 0 };
    let mut out = Vec::with_capacity(8 + digits.len() * 2);
    out.extend((digits.len() as u16).to_be_bytes());
    out.extend(weight.to_be_bytes());
    out.extend(sign.to_be_bytes());
    out.extend(dscale.to_be_bytes());
    for d in digits {
        out.extend(d.to_be_bytes());
    }
    out
}

/// Parse a binary wire value of type `ty` with modifier `typmod`.
pub fn recv(ty: SqlType, b: &[u8], typmod: i32) -> Result<Datum> {
    Ok(match ty {
        SqlType::Bool => Datum::Bool(fixed::<1>(b)?[0] != 0),
        SqlType::Int2 => Datum::Int2(i16::from_be_bytes(fixed(b)?)),
        SqlType::Int4 => Datum::Int4(i32::from_be_bytes(fixed(b)?)),
        SqlType::Int8 => Datum::Int8(i64::from_be_bytes(fixed(b)?)),
        SqlType::Float4 => Datum::Float4(f32::from_bits(u32::from_be_bytes(fixed(b)?))),
        SqlType::Float8 => Datum::Float8(f64::from_bits(u64::from_be_bytes(fixed(b)?))),
        SqlType::Oid | SqlType::Reg(_) => Datum::Oid(u32::from_be_bytes(fixed(b)?)),
        SqlType::Xid => Datum::Xid(u32::from_be_bytes(fixed(b)?).into()),
        SqlType::Xid8 => Datum::Xid8(u64::from_be_bytes(fixed(b)?)),
        SqlType::Date => Datum::Date(date_recv(i32::from_be_bytes(fixed(b)?))?),
        SqlType::Time => Datum::Time(time_recv(i64::from_be_bytes(fixed(b)?), typmod)?),
        SqlType::Timestamp => {
            Datum::Timestamp(input::adjust_timestamp_typmod(timestamp_recv(b)?, typmod)?)
        }
        SqlType::TimestampTz => {
            Datum::TimestampTz(input::adjust_timestamp_typmod(timestamp_recv(b)?, typmod)?)
        }
        SqlType::Interval => {
            let raw: [u8; 16] = fixed(b)?;
            let iv = Interval::new(
                i32::from_be_bytes([raw[12], raw[13], raw[14], raw[15]]),
                i32::from_be_bytes([raw[8], raw[9], raw[10], raw[11]]),
                i64::from_be_bytes([
                    raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                ]),
            );
            Datum::Interval(crate::io::adjust_interval_typmod(iv, typmod))
        }
        SqlType::Uuid => Datum::Uuid(fixed(b)?),
        SqlType::PgLsn => Datum::PgLsn(u64::from_be_bytes(fixed(b)?)),
        SqlType::Text | SqlType::Unknown => Datum::Text(text::verify_utf8(b)?),
        SqlType::Varchar => {
            Datum::Text(text::varchar_coerce(text::verify_utf8(b)?, typmod, false)?)
        }
        SqlType::Bpchar => Datum::Text(text::bpchar_coerce(text::verify_utf8(b)?, typmod, false)?),
        SqlType::Name => Datum::Text(text::name_coerce(text::verify_utf8(b)?)),
        SqlType::Char => Datum::Text(text::char_from_byte(b.first().copied().unwrap_or(0))),
        SqlType::Bytea => Datum::Bytea(b.to_vec()),
        SqlType::Numeric => Datum::Numeric(apply_typmod(numeric_recv(b)?, typmod)?),
        SqlType::Jsonb => Datum::Jsonb(Box::new(jsonb_recv(b)?)),
        // json's binary form is its text (`json_recv`).
        SqlType::Json => {
            let text = text::verify_utf8(b)?;
            crate::json::validate(&text)?;
            Datum::Json(text)
        }
        SqlType::Record(_) => return Err(crate::record::input_not_implemented()),
        SqlType::Enum(e) => Datum::Enum(crate::enums::parse(e, &text::verify_utf8(b)?)?),
        SqlType::Domain(d) => return recv(d.base(), b, d.desc().typmod),
        SqlType::Array(elem) => Datum::Array(Box::new(array::recv(elem, b, typmod)?)),
    })
}

/// Exactly `N` bytes, or PostgreSQL's binary format error.
fn fixed<const N: usize>(b: &[u8]) -> Result<[u8; N]> {
    b.try_into().map_err(|_| TypeError::bad_binary("incorrect binary data format"))
}

/// `date_recv`: finite dates must be in range.
fn date_recv(days: i32) -> Result<i32> {
    let jd = i64::from(days) + calendar::POSTGRES_EPOCH_JDATE;
    if days != i32::MIN && days != i32::MAX && !calendar::is_valid_julian_date(jd) {
        return Err(TypeError::new(ErrorKind::DatetimeFieldOverflow, "date out of range"));
    }
    Ok(days)
}

/// `time_recv`: 00:00:00 to 24:00:00.
fn time_recv(time: i64, typmod: i32) -> Result<i64> {
    if !(0..=calendar::USECS_PER_DAY).contains(&time) {
        return Err(TypeError::new(ErrorKind::DatetimeFieldOverflow, "time out of range"));
    }
    Ok(input::adjust_time_typmod(time, typmod))
}

/// `timestamp_recv`: finite timestamps must be in range.
fn timestamp_recv(b: &[u8]) -> Result<i64> {
    let ts = i64::from_be_bytes(fixed(b)?);
    if ts != i64::MIN && ts != i64::MAX && !calendar::is_valid_timestamp(ts) {
        return Err(TypeError::new(ErrorKind::DatetimeFieldOverflow, "timestamp out of range"));
    }
    Ok(ts)
}

/// `numeric_recv` with PostgreSQL's validation.
fn numeric_recv(b: &[u8]) -> Result<Numeric> {
    let err =
        |what: &str| TypeError::bad_binary(format!("invalid {what} in external \"numeric\" value"));
    if b.len() < 8 {
        return Err(TypeError::bad_binary("insufficient data left in message"));
    }
    let word = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
    let ndigits = usize::from(word(0));
    let weight = i32::from(word(2) as i16);
    let sign = word(4);
    let dscale = word(6);
    if ndigits > 3000 {
        return Err(err("length"));
    }
    if b.len() != 8 + 2 * ndigits {
        return Err(TypeError::bad_binary("incorrect binary data format"));
    }
    let kind = match sign {
        SIGN_POS | SIGN_NEG => NumericKind::Finite,
        SIGN_NAN => NumericKind::NaN,
        SIGN_PINF => NumericKind::PosInf,
        SIGN_NINF => NumericKind::NegInf,
        _ => return Err(err("sign")),
    };
    if kind != NumericKind::Finite {
        return Ok(Numeric::special(kind));
    }
    if dscale & 0x3FFF != dscale {
        return Err(err("scale"));
    }
    let digits: Vec<u16> = (0..ndigits).map(|i| word(8 + 2 * i)).collect();
    if digits.iter().any(|&d| d >= 10000) {
        return Err(err("digit"));
    }
    let n = Numeric::from_parts(sign == SIGN_NEG, weight, i32::from(dscale), &digits);
    // Digits beyond the display scale are dropped, as PostgreSQL's trunc_var.
    Ok(n.trunc(i32::from(dscale)))
}

/// `jsonb_recv`: version 1, then JSON text.
fn jsonb_recv(b: &[u8]) -> Result<jsonb::JsonbValue> {
    match b.split_first() {
        Some((1, rest)) => jsonb::parse(&text::verify_utf8(rest)?),
        Some((v, _)) => Err(TypeError::bad_binary(format!("unsupported jsonb version number {v}"))),
        None => Err(TypeError::bad_binary("insufficient data left in message")),
    }
}
