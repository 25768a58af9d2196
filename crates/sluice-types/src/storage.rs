//! The on-disk encoding of values inside heap tuples.
//!
//! Fixed-length types are stored in their native little-endian form with
//! PostgreSQL's `typlen`: `bool` 1 byte, `int2` 2, `int4`/`oid`/`date`/
//! `float4` 4, `int8`/`float8`/`time`/`timestamp(tz)` 8, `interval` 16 (time,
//! days, months, as PostgreSQL lays it out), `uuid` 16, `name` 64 (NUL
//! padded). Variable-length types produce only their payload; the heap adds
//! the varlena length header: text types their UTF-8 bytes, `bytea` its
//! bytes, `jsonb` the tree encoding of `jsonb/binary.rs`, arrays the layout
//! of `array/encode.rs`.
//!
//! `numeric` uses PostgreSQL's own packed layout, so its size matches
//! PostgreSQL's (a 2-byte header for typical values, plus 2 bytes per
//! base-10000 digit):
//! * special values: one `u16` — `0xC000` NaN, `0xD000` Infinity,
//!   `0xF000` -Infinity;
//! * short form (dscale ≤ 63, weight in -64..=63): `0x8000 | sign 0x2000 |
//!   dscale << 7 | weight sign 0x40 | weight & 0x3F`;
//! * long form: `u16` sign (`0x4000` negative) | dscale, then `i16` weight;
//!
//! followed by the digits as `u16`s. Decoding checks every length and digit,
//! so damaged bytes give a `data_corrupted` error rather than a panic or a
//! wrong value.

use crate::datetime::Interval;
use crate::datum::Datum;
use crate::error::{ErrorKind, Result, TypeError};
use crate::numeric::{Numeric, NumericKind};
use crate::types::{format_type, SqlType};

/// Header of a NaN numeric.
const NUMERIC_NAN: u16 = 0xC000;
/// Header of +Infinity.
const NUMERIC_PINF: u16 = 0xD000;
/// Header of -Infinity.
const NUMERIC_NINF: u16 = 0xF000;
/// Short-form flag.
const NUMERIC_SHORT: u16 = 0x8000;
/// Negative flag in the long-form header.
const NUMERIC_NEG: u16 = 0x4000;

/// Encode a non-null value of column type `ty` for a heap tuple. NULL has no
/// bytes (the heap records it in the null bitmap) and encodes as empty.
pub fn to_storage(ty: SqlType, d: &Datum) -> Vec<u8> {
    match d {
        Datum::Null => Vec::new(),
        Datum::Bool(b) => vec![u8::from(*b)],
        Datum::Int2(v) => v.to_le_bytes().to_vec(),
        Datum::Int4(v) => v.to_le_bytes().to_vec(),
        Datum::Int8(v) => v.to_le_bytes().to_vec(),
        Datum::Float4(v) => v.to_le_bytes().to_vec(),
        Datum::Float8(v) => v.to_le_bytes().to_vec(),
        Datum::Oid(v) => v.to_le_bytes().to_vec(),
        Datum::Xid(v) | Datum::Xid8(v) => v.to_le_bytes().to_vec(),
        Datum::Date(v) => v.to_le_bytes().to_vec(),
        Datum::Time(v) | Datum::Timestamp(v) | Datum::TimestampTz(v) => v.to_le_bytes().to_vec(),
        Datum::Interval(iv) => {
            let mut out = iv.micros.to_le_bytes().to_vec();
            out.extend(iv.days.to_le_bytes());
            out.extend(iv.months.to_le_bytes());
            out
        }
        Datum::Uuid(u) => u.to_vec(),
        Datum::PgLsn(l) => l.to_le_bytes().to_vec(),
        Datum::Text(s) if ty == SqlType::Name => {
            let mut out = s.as_bytes().to_vec();
            out.resize(64, 0);
            out
        }
        Datum::Text(s) if ty == SqlType::Char => vec![crate::text::char_byte(s)],
        Datum::Text(s) | Datum::Json(s) => s.as_bytes().to_vec(),
        Datum::Bytea(b) => b.clone(),
        Datum::Numeric(n) => numeric_to_storage(n),
        Datum::Jsonb(j) => crate::jsonb::encode(j),
        Datum::Array(a) => crate::array::to_storage(a),
        Datum::Record(r) => crate::record::send(r),
        Datum::Enum(v) => v.label.to_le_bytes().to_vec(),
    }
}

/// Decode stored bytes of column type `ty`.
pub fn from_storage(ty: SqlType, bytes: &[u8]) -> Result<Datum> {
    let fixed = |n: usize| -> Result<&[u8]> {
        if bytes.len() != n {
            return Err(corrupt(format!(
                "invalid stored length {} for type {}",
                bytes.len(),
                format_type(ty, -1)
            )));
        }
        Ok(bytes)
    };
    Ok(match ty {
        SqlType::Bool => Datum::Bool(fixed(1)?[0] != 0),
        SqlType::Char => Datum::Text(crate::text::char_from_byte(fixed(1)?[0])),
        SqlType::Int2 => Datum::Int2(i16::from_le_bytes(arr(fixed(2)?))),
        SqlType::Int4 => Datum::Int4(i32::from_le_bytes(arr(fixed(4)?))),
        SqlType::Int8 => Datum::Int8(i64::from_le_bytes(arr(fixed(8)?))),
        SqlType::Float4 => Datum::Float4(f32::from_le_bytes(arr(fixed(4)?))),
        SqlType::Float8 => Datum::Float8(f64::from_le_bytes(arr(fixed(8)?))),
        SqlType::Oid | SqlType::Reg(_) => Datum::Oid(u32::from_le_bytes(arr(fixed(4)?))),
        SqlType::Xid => Datum::Xid(u64::from_le_bytes(arr(fixed(8)?))),
        SqlType::Xid8 => Datum::Xid8(u64::from_le_bytes(arr(fixed(8)?))),
        SqlType::Date => Datum::Date(i32::from_le_bytes(arr(fixed(4)?))),
        SqlType::Time => Datum::Time(i64::from_le_bytes(arr(fixed(8)?))),
        SqlType::Timestamp => Datum::Timestamp(i64::from_le_bytes(arr(fixed(8)?))),
        SqlType::TimestampTz => Datum::TimestampTz(i64::from_le_bytes(arr(fixed(8)?))),
        SqlType::Interval => {
            let b = fixed(16)?;
            Datum::Interval(Interval::new(
                i32::from_le_bytes(arr(&b[12..16])),
                i32::from_le_bytes(arr(&b[8..12])),
                i64::from_le_bytes(arr(&b[0..8])),
            ))
        }
        SqlType::Uuid => Datum::Uuid(arr(fixed(16)?)),
        SqlType::PgLsn => Datum::PgLsn(u64::from_le_bytes(arr(fixed(8)?))),
        SqlType::Name => {
            let b = fixed(64)?;
            let end = b.iter().position(|&c| c == 0).unwrap_or(64);
            Datum::Text(utf8(&b[..end])?)
        }
        SqlType::Text | SqlType::Varchar | SqlType::Bpchar | SqlType::Unknown => {
            Datum::Text(utf8(bytes)?)
        }
        SqlType::Bytea => Datum::Bytea(bytes.to_vec()),
        SqlType::Numeric => Datum::Numeric(numeric_from_storage(bytes)?),
        SqlType::Jsonb => Datum::Jsonb(Box::new(crate::jsonb::decode(bytes)?)),
        SqlType::Json => Datum::Json(utf8(bytes)?),
        SqlType::Record(r) => Datum::Record(Box::new(crate::record::decode(r, bytes)?)),
        SqlType::Domain(d) => return from_storage(d.base(), bytes),
        SqlType::Enum(e) => {
            Datum::Enum(crate::enums::from_stored(e, u32::from_le_bytes(arr(fixed(4)?)))?)
        }
        SqlType::Array(elem) => Datum::Array(Box::new(crate::array::from_storage(elem, bytes)?)),
    })
}

/// A fixed-size array from a slice of exactly that length.
fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&b[..N]);
    out
}

/// Stored text must be UTF-8.
fn utf8(b: &[u8]) -> Result<String> {
    String::from_utf8(b.to_vec()).map_err(|_| corrupt("invalid UTF-8 in stored text".into()))
}

/// A `data_corrupted` error.
fn corrupt(msg: String) -> TypeError {
    TypeError::new(ErrorKind::DataCorrupted, msg)
}

/// Encode a numeric in PostgreSQL's packed storage layout.
pub fn numeric_to_storage(n: &Numeric) -> Vec<u8> {
    match n.kind() {
        NumericKind::NaN => return NUMERIC_NAN.to_le_bytes().to_vec(),
        NumericKind::PosInf => return NUMERIC_PINF.to_le_bytes().to_vec(),
        NumericKind::NegInf => return NUMERIC_NINF.to_le_bytes().to_vec(),
        NumericKind::Finite => {}
    }
    let digits = n.digits();
    let weight = if digits.is_empty() { 0 } else { n.weight() };
    let dscale = n.dscale();
    let mut out = Vec::with_capacity(4 + digits.len() * 2);
    if (0..=63).contains(&dscale) && (-64..=63).contains(&weight) {
        let mut h = NUMERIC_SHORT | ((dscale as u16) << 7) | (weight as u16 & 0x3F);
        if n.is_negative() {
            h |= 0x2000;
        }
        if weight < 0 {
            h |= 0x40;
        }
        out.extend(h.to_le_bytes());
    } else {
        let h = (dscale as u16 & 0x3FFF) | if n.is_negative() { NUMERIC_NEG } else { 0 };
        out.extend(h.to_le_bytes());
        out.extend((weight as i16).to_le_bytes());
    }
    for d in digits {
        out.extend(d.to_le_bytes());
    }
    out
}

/// Decode a numeric from its storage layout, validating it.
pub fn numeric_from_storage(b: &[u8]) -> Result<Numeric> {
    let bad = || corrupt("invalid numeric storage data".into());
    if b.len() < 2 {
        return Err(bad());
    }
    let h = u16::from_le_bytes([b[0], b[1]]);
    let (neg, weight, dscale, rest) = match h {
        NUMERIC_NAN | NUMERIC_PINF | NUMERIC_NINF if b.len() == 2 => {
            let kind = match h {
                NUMERIC_NAN => NumericKind::NaN,
                NUMERIC_PINF => NumericKind::PosInf,
                _ => NumericKind::NegInf,
            };
            return Ok(Numeric::special(kind));
        }
        _ if h & NUMERIC_SHORT != 0 => {
            let magnitude = i32::from(h & 0x3F);
            let weight = if h & 0x40 != 0 { magnitude - 64 } else { magnitude };
            (h & 0x2000 != 0, weight, i32::from((h >> 7) & 0x3F), &b[2..])
        }
        _ if h & 0xC000 == 0 || h & 0xC000 == NUMERIC_NEG => {
            if b.len() < 4 {
                return Err(bad());
            }
            let weight = i32::from(i16::from_le_bytes([b[2], b[3]]));
            (h & NUMERIC_NEG != 0, weight, i32::from(h & 0x3FFF), &b[4..])
        }
        _ => return Err(bad()),
    };
    if rest.len() % 2 != 0 {
        return Err(bad());
    }
    let digits: Vec<u16> = rest.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    if digits.iter().any(|&d| d >= 10000) {
        return Err(bad());
    }
    Ok(Numeric::from_parts(neg, weight, dscale, &digits))
}
