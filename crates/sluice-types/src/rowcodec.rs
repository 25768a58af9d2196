//! A self-describing binary form of a row of values, for the executor's
//! temporary files (what PostgreSQL's tuplestore and tuplesort write as
//! minimal tuples).
//!
//! Heap tuples ([`crate::storage`]) leave the type of each column to the
//! catalog, and [`Datum::Text`] stands for four types, so a value's bytes
//! alone do not say which `Datum` they were. An executor node that spills
//! rows knows no column types either, so here every value carries a one-byte
//! tag naming its `Datum` variant; arrays add their element type's OID and
//! records their field list. Decoding rebuilds exactly the `Datum` that was
//! encoded (same variant, same bits: `-0.0`, NaN payloads, numeric display
//! scale, an array's lower bound).
//!
//! ```text
//!   row    := varint(count) value*
//!   value  := tag payload
//!   payload: fixed-size types  little-endian bytes (bool 1, int2 2, int4/oid/date/float4 4,
//!                              int8/float8/xid/xid8/time/timestamp[tz]/pg_lsn 8,
//!                              interval/uuid 16)
//!            text/json/bytea   varint(len) bytes
//!            numeric, jsonb    varint(len) storage bytes (`storage.rs`, `jsonb/binary.rs`)
//!            array             u32 array type OID, i32 lower bound, varint(n) value*
//!            record            rowtype value*  (one value per field)
//!   rowtype := varint(n) (varint(len) name, type, i32 typmod)*
//!   type    := 0 u32 OID (scalar or array) | 1 rowtype
//! ```
//!
//! The format is private to one server process: files written with it are
//! read back by the statement that wrote them and never outlive it, so it has
//! no version. Decoding still checks every length and tag, so damaged bytes
//! give a `data_corrupted` error, never a panic.
//!
//! [`heap_size`] estimates the memory a decoded value holds, which is what
//! the executor compares against `work_mem` before it spills.

use crate::array::Array;
use crate::datetime::Interval;
use crate::datum::Datum;
use crate::enums::{EnumDesc, EnumLabel, EnumType, SortOrder};
use crate::error::{ErrorKind, Result, TypeError};
use crate::jsonb::JsonbValue;
use crate::record::{Record, RecordType, RowField, RowType};
use crate::storage::{numeric_from_storage, numeric_to_storage};
use crate::types::{ElemType, SqlType};

/// The tag of each `Datum` variant.
mod tag {
    pub const NULL: u8 = 0;
    pub const BOOL: u8 = 1;
    pub const INT2: u8 = 2;
    pub const INT4: u8 = 3;
    pub const INT8: u8 = 4;
    pub const FLOAT4: u8 = 5;
    pub const FLOAT8: u8 = 6;
    pub const NUMERIC: u8 = 7;
    pub const TEXT: u8 = 8;
    pub const BYTEA: u8 = 9;
    pub const DATE: u8 = 10;
    pub const TIME: u8 = 11;
    pub const TIMESTAMP: u8 = 12;
    pub const TIMESTAMPTZ: u8 = 13;
    pub const INTERVAL: u8 = 14;
    pub const JSONB: u8 = 15;
    pub const JSON: u8 = 16;
    pub const OID: u8 = 17;
    pub const XID: u8 = 18;
    pub const XID8: u8 = 19;
    pub const UUID: u8 = 20;
    pub const PG_LSN: u8 = 21;
    pub const ARRAY: u8 = 22;
    pub const RECORD: u8 = 23;
    pub const ENUM: u8 = 24;
}

/// encode_row -- appends the encoding of `row` to `out`.
pub fn encode_row(row: &[Datum], out: &mut Vec<u8>) {
    put_varint(out, row.len() as u64);
    for value in row {
        encode_value(value, out);
    }
}

/// decode_row -- the row [`encode_row`] wrote as exactly `bytes`.
pub fn decode_row(bytes: &[u8]) -> Result<Vec<Datum>> {
    let mut reader = Reader { bytes, at: 0 };
    let row = reader.values()?;
    if reader.at != bytes.len() {
        return Err(corrupt("trailing bytes after a spilled row"));
    }
    Ok(row)
}

/// heap_size -- an estimate of the bytes `value` keeps outside its own
/// `Datum` slot (string and digit buffers, boxed trees), for memory limits.
pub fn heap_size(value: &Datum) -> usize {
    match value {
        Datum::Text(s) | Datum::Json(s) => s.capacity(),
        Datum::Bytea(b) => b.capacity(),
        Datum::Numeric(n) => n.digits.capacity() * 2,
        Datum::Jsonb(j) => jsonb_size(j),
        Datum::Array(a) => {
            std::mem::size_of::<Array>()
                + a.elements()
                    .iter()
                    .map(|e| std::mem::size_of::<Datum>() + heap_size(e))
                    .sum::<usize>()
        }
        Datum::Record(r) => {
            std::mem::size_of::<Record>()
                + r.values
                    .iter()
                    .map(|v| std::mem::size_of::<Datum>() + heap_size(v))
                    .sum::<usize>()
        }
        _ => 0,
    }
}

/// The memory of a jsonb tree: its nodes and their strings and digits.
fn jsonb_size(j: &JsonbValue) -> usize {
    let node = std::mem::size_of::<JsonbValue>();
    node + match j {
        JsonbValue::Number(n) => n.digits.capacity() * 2,
        JsonbValue::String(s) => s.capacity(),
        JsonbValue::Array(items) => items.iter().map(jsonb_size).sum(),
        JsonbValue::Object(pairs) => pairs.iter().map(|(k, v)| k.capacity() + jsonb_size(v)).sum(),
        _ => 0,
    }
}

fn encode_value(value: &Datum, out: &mut Vec<u8>) {
    match value {
        Datum::Null => out.push(tag::NULL),
        Datum::Bool(b) => {
            out.push(tag::BOOL);
            out.push(u8::from(*b));
        }
        Datum::Int2(v) => fixed(out, tag::INT2, &v.to_le_bytes()),
        Datum::Int4(v) => fixed(out, tag::INT4, &v.to_le_bytes()),
        Datum::Int8(v) => fixed(out, tag::INT8, &v.to_le_bytes()),
        Datum::Float4(v) => fixed(out, tag::FLOAT4, &v.to_bits().to_le_bytes()),
        Datum::Float8(v) => fixed(out, tag::FLOAT8, &v.to_bits().to_le_bytes()),
        Datum::Numeric(n) => counted(out, tag::NUMERIC, &numeric_to_storage(n)),
        Datum::Text(s) => counted(out, tag::TEXT, s.as_bytes()),
        Datum::Bytea(b) => counted(out, tag::BYTEA, b),
        Datum::Date(v) => fixed(out, tag::DATE, &v.to_le_bytes()),
        Datum::Time(v) => fixed(out, tag::TIME, &v.to_le_bytes()),
        Datum::Timestamp(v) => fixed(out, tag::TIMESTAMP, &v.to_le_bytes()),
        Datum::TimestampTz(v) => fixed(out, tag::TIMESTAMPTZ, &v.to_le_bytes()),
        Datum::Interval(iv) => {
            out.push(tag::INTERVAL);
            out.extend(iv.micros.to_le_bytes());
            out.extend(iv.days.to_le_bytes());
            out.extend(iv.months.to_le_bytes());
        }
        Datum::Jsonb(j) => counted(out, tag::JSONB, &crate::jsonb::encode(j)),
        Datum::Json(s) => counted(out, tag::JSON, s.as_bytes()),
        Datum::Oid(v) => fixed(out, tag::OID, &v.to_le_bytes()),
        Datum::Xid(v) => fixed(out, tag::XID, &v.to_le_bytes()),
        Datum::Xid8(v) => fixed(out, tag::XID8, &v.to_le_bytes()),
        Datum::Uuid(u) => fixed(out, tag::UUID, u),
        Datum::PgLsn(v) => fixed(out, tag::PG_LSN, &v.to_le_bytes()),
        Datum::Array(a) => {
            out.push(tag::ARRAY);
            encode_type(a.elem_type().get(), out);
            out.extend(a.lower_bound().to_le_bytes());
            encode_row(a.elements(), out);
        }
        Datum::Record(r) => {
            out.push(tag::RECORD);
            encode_row_type(r.ty.fields(), out);
            for value in &r.values {
                encode_value(value, out);
            }
        }
        Datum::Enum(v) => {
            out.push(tag::ENUM);
            encode_type(SqlType::Enum(v.ty), out);
            out.extend(v.label.to_le_bytes());
        }
    }
}

/// A tag and fixed-size bytes.
fn fixed(out: &mut Vec<u8>, tag: u8, bytes: &[u8]) {
    out.push(tag);
    out.extend_from_slice(bytes);
}

/// A tag, a length and the bytes.
fn counted(out: &mut Vec<u8>, tag: u8, bytes: &[u8]) {
    out.push(tag);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn encode_row_type(fields: &[RowField], out: &mut Vec<u8>) {
    put_varint(out, fields.len() as u64);
    for field in fields {
        put_varint(out, field.name.len() as u64);
        out.extend_from_slice(field.name.as_bytes());
        encode_type(field.ty, out);
        out.extend(field.typmod.to_le_bytes());
    }
}

fn encode_type(ty: SqlType, out: &mut Vec<u8>) {
    match ty {
        SqlType::Record(r) => {
            out.push(1);
            encode_row_type(r.fields(), out);
        }
        SqlType::Enum(e) => {
            out.push(2);
            encode_enum_type(e.desc(), out);
        }
        // A domain's values are its base type's; what reads them back
        // needs no more (its constraints were checked going in).
        SqlType::Domain(d) => encode_type(d.base(), out),
        other => {
            out.push(0);
            out.extend(other.oid().to_le_bytes());
        }
    }
}

/// An enum type travels whole, as a record type does: the reader may not
/// see the catalogs, and a type's labels can change while a query spills.
fn encode_enum_type(desc: &EnumDesc, out: &mut Vec<u8>) {
    out.extend(desc.oid.to_le_bytes());
    out.extend(desc.array_oid.to_le_bytes());
    for name in [&desc.typname, &desc.sql_name] {
        put_varint(out, name.len() as u64);
        out.extend_from_slice(name.as_bytes());
    }
    put_varint(out, desc.labels.len() as u64);
    for label in &desc.labels {
        out.extend(label.oid.to_le_bytes());
        out.extend(label.sort_order.0.to_bits().to_le_bytes());
        out.push(u8::from(label.uncommitted));
        put_varint(out, label.label.len() as u64);
        out.extend_from_slice(label.label.as_bytes());
    }
}

/// put_varint -- LEB128: seven bits a byte, low first, high bit = more.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A position in encoded bytes.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| corrupt("spilled row ends early"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.array::<1>()?[0];
            value |= u64::from(byte & 0x7F) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(corrupt("bad length in a spilled row"))
    }

    /// A count of items still to come; each takes at least one byte, so a
    /// count beyond the bytes left is damage (and must not size a Vec).
    fn count(&mut self) -> Result<usize> {
        let n = self.varint()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.bytes.len() - self.at)
            .ok_or_else(|| corrupt("bad count in a spilled row"))
    }

    fn counted(&mut self) -> Result<&'b [u8]> {
        let n = self.count()?;
        self.take(n)
    }

    fn string(&mut self) -> Result<String> {
        String::from_utf8(self.counted()?.to_vec())
            .map_err(|_| corrupt("invalid UTF-8 in a spilled row"))
    }

    fn values(&mut self) -> Result<Vec<Datum>> {
        let n = self.count()?;
        (0..n).map(|_| self.value()).collect()
    }

    fn value(&mut self) -> Result<Datum> {
        Ok(match self.array::<1>()?[0] {
            tag::NULL => Datum::Null,
            tag::BOOL => Datum::Bool(self.array::<1>()?[0] != 0),
            tag::INT2 => Datum::Int2(i16::from_le_bytes(self.array()?)),
            tag::INT4 => Datum::Int4(i32::from_le_bytes(self.array()?)),
            tag::INT8 => Datum::Int8(i64::from_le_bytes(self.array()?)),
            tag::FLOAT4 => Datum::Float4(f32::from_bits(u32::from_le_bytes(self.array()?))),
            tag::FLOAT8 => Datum::Float8(f64::from_bits(u64::from_le_bytes(self.array()?))),
            tag::NUMERIC => Datum::Numeric(numeric_from_storage(self.counted()?)?),
            tag::TEXT => Datum::Text(self.string()?),
            tag::BYTEA => Datum::Bytea(self.counted()?.to_vec()),
            tag::DATE => Datum::Date(i32::from_le_bytes(self.array()?)),
            tag::TIME => Datum::Time(i64::from_le_bytes(self.array()?)),
            tag::TIMESTAMP => Datum::Timestamp(i64::from_le_bytes(self.array()?)),
            tag::TIMESTAMPTZ => Datum::TimestampTz(i64::from_le_bytes(self.array()?)),
            tag::INTERVAL => {
                let micros = i64::from_le_bytes(self.array()?);
                let days = i32::from_le_bytes(self.array()?);
                let months = i32::from_le_bytes(self.array()?);
                Datum::Interval(Interval::new(months, days, micros))
            }
            tag::JSONB => Datum::Jsonb(Box::new(crate::jsonb::decode(self.counted()?)?)),
            tag::JSON => Datum::Json(self.string()?),
            tag::OID => Datum::Oid(u32::from_le_bytes(self.array()?)),
            tag::XID => Datum::Xid(u64::from_le_bytes(self.array()?)),
            tag::XID8 => Datum::Xid8(u64::from_le_bytes(self.array()?)),
            tag::UUID => Datum::Uuid(self.array()?),
            tag::PG_LSN => Datum::PgLsn(u64::from_le_bytes(self.array()?)),
            tag::ARRAY => self.array_value()?,
            tag::RECORD => {
                let ty = self.row_type()?;
                let values = (0..ty.fields().len()).map(|_| self.value()).collect::<Result<_>>()?;
                Datum::Record(Box::new(Record { ty, values }))
            }
            tag::ENUM => {
                let SqlType::Enum(ty) = self.sql_type()? else {
                    return Err(corrupt("enum value without an enum type in a spilled row"));
                };
                Datum::Enum(crate::enums::from_stored(ty, u32::from_le_bytes(self.array()?))?)
            }
            other => return Err(corrupt(format!("unknown value tag {other} in a spilled row"))),
        })
    }

    fn array_value(&mut self) -> Result<Datum> {
        let elem = self.sql_type()?;
        let Some(elem) = ElemType::new(elem) else {
            return Err(corrupt(format!("no array type of {elem:?} in a spilled row")));
        };
        let lower = i32::from_le_bytes(self.array()?);
        let elems = self.values()?;
        Ok(Datum::Array(Box::new(Array::with_lower_bound(elem, lower, elems)?)))
    }

    fn row_type(&mut self) -> Result<RecordType> {
        let n = self.count()?;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.string()?;
            let ty = self.sql_type()?;
            let typmod = i32::from_le_bytes(self.array()?);
            fields.push(RowField { name, ty, typmod });
        }
        Ok(RecordType::intern(RowType { fields }))
    }

    fn enum_type(&mut self) -> Result<EnumType> {
        let oid = u32::from_le_bytes(self.array()?);
        let array_oid = u32::from_le_bytes(self.array()?);
        let typname = self.string()?;
        let sql_name = self.string()?;
        let n = self.count()?;
        let mut labels = Vec::with_capacity(n);
        for _ in 0..n {
            let oid = u32::from_le_bytes(self.array()?);
            let sort_order = SortOrder(f32::from_bits(u32::from_le_bytes(self.array()?)));
            let uncommitted = self.array::<1>()?[0] != 0;
            labels.push(EnumLabel { oid, sort_order, label: self.string()?, uncommitted });
        }
        Ok(EnumType::intern(EnumDesc { oid, array_oid, typname, sql_name, labels }))
    }

    fn sql_type(&mut self) -> Result<SqlType> {
        match self.array::<1>()?[0] {
            0 => {
                let oid = u32::from_le_bytes(self.array()?);
                SqlType::from_oid(oid)
                    .ok_or_else(|| corrupt(format!("unknown type {oid} in a spilled row")))
            }
            1 => Ok(SqlType::Record(self.row_type()?)),
            2 => Ok(SqlType::Enum(self.enum_type()?)),
            other => Err(corrupt(format!("unknown type tag {other} in a spilled row"))),
        }
    }
}

/// A `data_corrupted` error.
fn corrupt(message: impl Into<String>) -> TypeError {
    TypeError::new(ErrorKind::DataCorrupted, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One value of every `Datum` variant, with awkward bits where a type
    /// has them.
    fn every_kind() -> Vec<Datum> {
        let num = |s: &str| crate::numeric::parse(s, -1).expect("numeric");
        let int4_array = Array::with_lower_bound(
            SqlType::array_of(SqlType::Int4)
                .and_then(|t| match t {
                    SqlType::Array(e) => Some(e),
                    _ => None,
                })
                .expect("int4[]"),
            -3,
            vec![Datum::Int4(7), Datum::Null, Datum::Int4(-1)],
        )
        .expect("array");
        let inner = RecordType::intern(RowType {
            fields: vec![RowField { name: "x".into(), ty: SqlType::Int8, typmod: -1 }],
        });
        let outer = RecordType::intern(RowType {
            fields: vec![
                RowField { name: "a".into(), ty: SqlType::Varchar, typmod: 14 },
                RowField { name: "r".into(), ty: SqlType::Record(inner), typmod: -1 },
            ],
        });
        let record = Record {
            ty: outer,
            values: vec![
                Datum::Text("é".into()),
                Datum::Record(Box::new(Record { ty: inner, values: vec![Datum::Int8(9)] })),
            ],
        };
        vec![
            Datum::Null,
            Datum::Bool(true),
            Datum::Int2(i16::MIN),
            Datum::Int4(-42),
            Datum::Int8(i64::MAX),
            Datum::Float4(-0.0),
            Datum::Float8(f64::NAN),
            Datum::Numeric(num("-1234.5000")),
            Datum::Numeric(num("NaN")),
            Datum::Text(String::new()),
            Datum::Text("x".repeat(300)),
            Datum::Bytea(vec![0, 255, 1]),
            Datum::Date(i32::MIN),
            Datum::Time(86_400_000_000),
            Datum::Timestamp(i64::MAX),
            Datum::TimestampTz(-1),
            Datum::Interval(Interval::new(-1, 2, 3)),
            Datum::Jsonb(Box::new(
                crate::jsonb::parse(r#"{"k": [1, "two", null, 3.50]}"#).expect("jsonb"),
            )),
            Datum::Json(" [1 , 2] ".into()),
            Datum::Oid(u32::MAX),
            Datum::Xid(1 << 40),
            Datum::Xid8(3),
            Datum::Uuid([0xAB; 16]),
            Datum::PgLsn(0x1_0000_0028),
            Datum::Array(Box::new(int4_array)),
            Datum::Record(Box::new(record)),
        ]
    }

    #[test]
    fn every_kind_of_value_round_trips_exactly() {
        let row = every_kind();
        let mut bytes = Vec::new();
        encode_row(&row, &mut bytes);
        let back = decode_row(&bytes).expect("decodes");
        // Debug shows the variant and the exact bits (NaN, -0.0, scale,
        // lower bound, record type), which `==` (SQL equality) would not.
        assert_eq!(format!("{back:?}"), format!("{row:?}"));
        assert_eq!(back.len(), row.len());
    }

    #[test]
    fn the_empty_row_and_small_values_are_compact() {
        let mut bytes = Vec::new();
        encode_row(&[], &mut bytes);
        assert_eq!(bytes, [0]);
        bytes.clear();
        encode_row(&[Datum::Int4(1), Datum::Null], &mut bytes);
        assert_eq!(bytes.len(), 1 + 5 + 1);
        assert!(decode_row(&bytes).is_ok());
    }

    #[test]
    fn damaged_bytes_are_errors_not_panics() {
        let mut bytes = Vec::new();
        encode_row(&every_kind(), &mut bytes);
        for cut in 0..bytes.len() {
            assert!(decode_row(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert!(decode_row(&[1, 99]).is_err(), "unknown tag");
        assert!(decode_row(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]).is_err(), "huge count");
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert!(decode_row(&trailing).is_err());
    }

    #[test]
    fn heap_size_counts_buffers() {
        assert_eq!(heap_size(&Datum::Int8(1)), 0);
        assert!(heap_size(&Datum::Text("x".repeat(1000))) >= 1000);
        let nested = every_kind().pop().expect("record");
        assert!(heap_size(&nested) > 0);
    }
}
