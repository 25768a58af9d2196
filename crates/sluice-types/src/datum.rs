//! [`Datum`]: one SQL value of a built-in type.
//!
//! PostgreSQL passes values around as a machine word that is either the value
//! itself or a pointer to it, and relies on the caller knowing the type. sluice
//! uses a Rust enum instead: each variant holds its value in the representation
//! PostgreSQL uses internally (integers as themselves, dates as days since
//! 2000-01-01, timestamps as microseconds since 2000-01-01 00:00, numerics as
//! base-10000 digits), so that arithmetic, comparison and the binary wire format
//! are PostgreSQL's bit for bit.
//!
//! Some PostgreSQL types share a variant because they share a representation:
//! `text`, `varchar`, `bpchar` and `name` are all [`Datum::Text`]. The few places
//! where they differ (blank-padded comparison of `char(n)`, the 64-byte `name`
//! storage slot) take the [`SqlType`] as a parameter, as PostgreSQL's functions
//! are chosen by type too.
//!
//! A composite value is [`Datum::Record`] (see [`crate::record`]).
//!
//! An array is [`Datum::Array`]: its element type and its elements, each a
//! `Datum` of that type or `Null` (see [`crate::array`]).

use crate::array::Array;
use crate::datetime::Interval;
use crate::enums::EnumValue;
use crate::jsonb::JsonbValue;
use crate::numeric::Numeric;
use crate::record::Record;
use crate::types::{ElemType, SqlType};

/// One SQL value. `Null` is SQL NULL of any type.
#[derive(Clone, Debug)]
pub enum Datum {
    /// SQL NULL.
    Null,
    /// `boolean`.
    Bool(bool),
    /// `smallint`.
    Int2(i16),
    /// `integer`.
    Int4(i32),
    /// `bigint`.
    Int8(i64),
    /// `real`.
    Float4(f32),
    /// `double precision`.
    Float8(f64),
    /// `numeric`.
    Numeric(Numeric),
    /// `text`, `varchar`, `bpchar` (already blank-padded) and `name`.
    Text(String),
    /// `bytea`.
    Bytea(Vec<u8>),
    /// `date`: days since 2000-01-01; `i32::MIN`/`i32::MAX` are -infinity/infinity.
    Date(i32),
    /// `time`: microseconds since midnight, 0 ..= 86 400 000 000.
    Time(i64),
    /// `timestamp`: microseconds since 2000-01-01 00:00:00; `i64::MIN`/`MAX` are
    /// -infinity/infinity.
    Timestamp(i64),
    /// `timestamptz`: microseconds since 2000-01-01 00:00:00 UTC.
    TimestampTz(i64),
    /// `interval`.
    Interval(Interval),
    /// `jsonb`.
    Jsonb(Box<JsonbValue>),
    /// `json`: the JSON text as the client wrote it. A variant of its own,
    /// not `Text`, because a value must tell its type (bound parameters
    /// are typed by their values, and text does not convert to json
    /// implicitly).
    Json(String),
    /// `oid`.
    Oid(u32),
    /// `xid` (64-bit, see [`crate::xid`]).
    Xid(u64),
    /// `xid8`.
    Xid8(u64),
    /// `uuid`, 16 bytes in network order.
    Uuid([u8; 16]),
    /// `pg_lsn`, a WAL byte position.
    PgLsn(u64),
    /// Any array type (boxed: arrays are rare and `Datum` stays small).
    Array(Box<Array>),
    /// A composite value (a row as a value), boxed like arrays.
    Record(Box<Record>),
    /// A value of an enum type (see [`crate::enums`]).
    Enum(EnumValue),
}

impl Datum {
    /// Whether this is SQL NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Datum::Null)
    }

    /// The natural type of this value (`Text` for all string types), or `None`
    /// for NULL, whose type only its context knows.
    pub fn natural_type(&self) -> Option<SqlType> {
        let t = match self {
            Datum::Null => return None,
            Datum::Bool(_) => SqlType::Bool,
            Datum::Int2(_) => SqlType::Int2,
            Datum::Int4(_) => SqlType::Int4,
            Datum::Int8(_) => SqlType::Int8,
            Datum::Float4(_) => SqlType::Float4,
            Datum::Float8(_) => SqlType::Float8,
            Datum::Numeric(_) => SqlType::Numeric,
            Datum::Text(_) => SqlType::Text,
            Datum::Bytea(_) => SqlType::Bytea,
            Datum::Date(_) => SqlType::Date,
            Datum::Time(_) => SqlType::Time,
            Datum::Timestamp(_) => SqlType::Timestamp,
            Datum::TimestampTz(_) => SqlType::TimestampTz,
            Datum::Interval(_) => SqlType::Interval,
            Datum::Jsonb(_) => SqlType::Jsonb,
            Datum::Json(_) => SqlType::Json,
            Datum::Oid(_) => SqlType::Oid,
            Datum::Xid(_) => SqlType::Xid,
            Datum::Xid8(_) => SqlType::Xid8,
            Datum::Uuid(_) => SqlType::Uuid,
            Datum::PgLsn(_) => SqlType::PgLsn,
            Datum::Array(a) => SqlType::Array(a.elem_type()),
            Datum::Record(r) => SqlType::Record(r.ty),
            Datum::Enum(v) => SqlType::Enum(v.ty),
        };
        Some(t)
    }

    /// A one-dimensional array of `elems` (each of type `elem`, or `Null`)
    /// with lower bound 1.
    pub fn array(elem: ElemType, elems: Vec<Datum>) -> Datum {
        Datum::Array(Box::new(Array::new(elem, elems)))
    }

    /// The array inside an `Array` datum.
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Datum::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The string inside a `Text` datum.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Datum::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The value of any integer datum widened to `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Datum::Int2(v) => Some(v.into()),
            Datum::Int4(v) => Some(v.into()),
            Datum::Int8(v) => Some(v),
            _ => None,
        }
    }
}

impl PartialEq for Datum {
    /// SQL-style equality of two non-null values of comparable types
    /// (`Null == Null` here, unlike SQL, so tests can compare rows).
    fn eq(&self, other: &Datum) -> bool {
        match (self, other) {
            (Datum::Null, Datum::Null) => true,
            (Datum::Null, _) | (_, Datum::Null) => false,
            _ => crate::compare::cmp(self, other) == std::cmp::Ordering::Equal,
        }
    }
}
