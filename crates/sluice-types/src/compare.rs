//! Ordering and hashing of values, as PostgreSQL's B-tree and hash opclasses.
//!
//! [`cmp`] is the total order that sorting, B-trees, `min`/`max` and
//! `greatest`/`least` use. Within a type it is PostgreSQL's: NaN is the
//! largest float and numeric (and equal to itself); `-0.0 = 0.0`; text
//! compares bytewise (the C collation, the only one sluice has); intervals
//! compare by their 30-day-month total. Across the integer widths, and
//! between integers and numeric or floats, values compare by their numeric
//! value, as PostgreSQL's cross-type operators (or its implicit casts) do.
//! SQL NULL sorts after every value (`NULLS LAST`, the default for `ASC`).
//! Arrays compare element by element, as PostgreSQL's `array_cmp`
//! ([`crate::array::cmp`]).
//!
//! [`hash`] agrees with equality wherever PostgreSQL's hash operator families
//! put types together: `smallint`, `integer` and `bigint` of equal value hash
//! alike (`integer_ops`), as do `real` and `double precision` (`float_ops`);
//! numerics hash by value regardless of display scale. The hash function is
//! FNV-1a with a final avalanche step — stable across releases, which
//! on-disk hash structures need.

use std::cmp::Ordering;

use crate::datum::Datum;
use crate::numeric::Numeric;
use crate::text::bpchar_cmp;
use crate::types::SqlType;

/// Compare two values of comparable types (NULL last).
pub fn cmp(a: &Datum, b: &Datum) -> Ordering {
    use Datum::*;
    match (a, b) {
        (Null, Null) => Ordering::Equal,
        (Null, _) => Ordering::Greater,
        (_, Null) => Ordering::Less,
        (Bool(x), Bool(y)) => x.cmp(y),
        // json has no order in PostgreSQL; bytewise keeps `cmp` total.
        (Text(x), Text(y)) | (Json(x), Json(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Bytea(x), Bytea(y)) => x.cmp(y),
        (Numeric(x), Numeric(y)) => x.cmp_total(y),
        (Date(x), Date(y)) => x.cmp(y),
        (Time(x), Time(y)) | (Timestamp(x), Timestamp(y)) | (TimestampTz(x), TimestampTz(y)) => {
            x.cmp(y)
        }
        (Date(d), Timestamp(t)) => date_vs_timestamp(*d, *t),
        (Timestamp(t), Date(d)) => date_vs_timestamp(*d, *t).reverse(),
        (Interval(x), Interval(y)) => x.cmp_key().cmp(&y.cmp_key()),
        (Jsonb(x), Jsonb(y)) => x.cmp_jsonb(y),
        (Oid(x), Oid(y)) => x.cmp(y),
        (Xid(x), Xid(y)) | (Xid8(x), Xid8(y)) => x.cmp(y),
        // `xideqint4`: a negative integer is no xid.
        (Xid(x), Int4(y)) => i128::from(*x).cmp(&i128::from(*y)),
        (Uuid(x), Uuid(y)) => x.cmp(y),
        (PgLsn(x), PgLsn(y)) => x.cmp(y),
        (Array(x), Array(y)) => crate::array::cmp(x, y),
        (Record(x), Record(y)) => crate::record::cmp(x, y),
        (Enum(x), Enum(y)) => x.order(*y),
        _ => cmp_numbers(a, b).unwrap_or_else(|| kind_rank(a).cmp(&kind_rank(b))),
    }
}

/// Compare as the column type `ty` orders: like [`cmp`], except that
/// `char(n)` ignores trailing spaces.
pub fn cmp_typed(ty: SqlType, a: &Datum, b: &Datum) -> Ordering {
    match (ty, a, b) {
        (SqlType::Bpchar, Datum::Text(x), Datum::Text(y)) => bpchar_cmp(x, y),
        _ => cmp(a, b),
    }
}

/// A date against a timestamp: the date is its midnight (computed wide: a
/// date past the timestamp range still compares, as beyond every timestamp).
fn date_vs_timestamp(d: i32, t: i64) -> Ordering {
    let as_ts = match d {
        i32::MIN => i128::from(i64::MIN),
        i32::MAX => i128::from(i64::MAX),
        _ => i128::from(d) * i128::from(crate::datetime::calendar::USECS_PER_DAY),
    };
    as_ts.cmp(&i128::from(t))
}

/// Compare two numbers of different numeric types, if both are numbers.
fn cmp_numbers(a: &Datum, b: &Datum) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    let is_float = |d: &Datum| matches!(d, Datum::Float4(_) | Datum::Float8(_));
    if is_float(a) || is_float(b) {
        return Some(cmp_f64(as_f64(a)?, as_f64(b)?));
    }
    Some(as_numeric(a)?.cmp_total(&as_numeric(b)?))
}

/// A numeric-typed datum as `f64`.
fn as_f64(d: &Datum) -> Option<f64> {
    match d {
        Datum::Float4(v) => Some(f64::from(*v)),
        Datum::Float8(v) => Some(*v),
        Datum::Numeric(n) => Some(n.to_f64()),
        other => other.as_i64().map(|v| v as f64),
    }
}

/// An integer or numeric datum as numeric.
fn as_numeric(d: &Datum) -> Option<Numeric> {
    match d {
        Datum::Numeric(n) => Some(n.clone()),
        other => other.as_i64().map(Numeric::from_i64),
    }
}

/// PostgreSQL's float order: NaN above everything and equal to itself.
pub fn cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// An arbitrary but fixed order between unrelated kinds (never used by
/// well-typed queries; it keeps `cmp` total).
fn kind_rank(d: &Datum) -> u8 {
    match d {
        Datum::Null => 255,
        Datum::Bool(_) => 0,
        Datum::Int2(_) | Datum::Int4(_) | Datum::Int8(_) => 1,
        Datum::Float4(_) | Datum::Float8(_) => 2,
        Datum::Numeric(_) => 3,
        Datum::Text(_) => 4,
        Datum::Bytea(_) => 5,
        Datum::Date(_) => 6,
        Datum::Time(_) => 7,
        Datum::Timestamp(_) => 8,
        Datum::TimestampTz(_) => 9,
        Datum::Interval(_) => 10,
        Datum::Jsonb(_) => 11,
        Datum::Oid(_) => 12,
        Datum::Uuid(_) => 13,
        Datum::Array(_) => 14,
        Datum::PgLsn(_) => 15,
        Datum::Xid(_) => 16,
        Datum::Xid8(_) => 17,
        Datum::Record(_) => 18,
        Datum::Json(_) => 19,
        Datum::Enum(_) => 20,
    }
}

/// FNV-1a, 64-bit: a small, stable hash state.
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Mix in bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Mix in a string and its length (so concatenations differ).
    pub fn write_str(&mut self, s: &str) {
        self.write(&(s.len() as u64).to_le_bytes());
        self.write(s.as_bytes());
    }

    /// The final hash, with an avalanche step so low bits are well mixed.
    pub fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}

/// Mix a numeric in by value: sign, weight and digits, not display scale.
pub fn hash_numeric_into(n: &Numeric, h: &mut Fnv) {
    h.write(&[n.kind() as u8, u8::from(n.is_negative())]);
    if n.is_finite() && !n.is_zero() {
        h.write(&n.weight().to_le_bytes());
        for d in n.digits() {
            h.write(&d.to_le_bytes());
        }
    }
}

/// Hash a value consistently with [`cmp`] equality within a hash family.
pub fn hash(d: &Datum) -> u64 {
    let mut h = Fnv::default();
    hash_into(d, &mut h);
    h.finish()
}

/// Hash as the column type `ty` compares (trailing-space-insensitive `char(n)`).
pub fn hash_typed(ty: SqlType, d: &Datum) -> u64 {
    match (ty, d) {
        (SqlType::Bpchar, Datum::Text(s)) => {
            hash(&Datum::Text(crate::text::bpchar_trim(s).to_string()))
        }
        _ => hash(d),
    }
}

/// Mix a value into `h`.
fn hash_into(d: &Datum, h: &mut Fnv) {
    h.write(&[kind_rank(d)]);
    match d {
        Datum::Null => {}
        Datum::Bool(b) => h.write(&[u8::from(*b)]),
        Datum::Int2(_) | Datum::Int4(_) | Datum::Int8(_) => {
            h.write(&d.as_i64().unwrap_or(0).to_le_bytes())
        }
        Datum::Float4(v) => hash_f64(f64::from(*v), h),
        Datum::Float8(v) => hash_f64(*v, h),
        Datum::Numeric(n) => hash_numeric_into(n, h),
        Datum::Text(s) | Datum::Json(s) => h.write(s.as_bytes()),
        Datum::Bytea(b) => h.write(b),
        Datum::Date(v) => h.write(&v.to_le_bytes()),
        Datum::Time(v) | Datum::Timestamp(v) | Datum::TimestampTz(v) => h.write(&v.to_le_bytes()),
        Datum::Interval(iv) => h.write(&iv.cmp_key().to_le_bytes()),
        Datum::Jsonb(j) => j.hash_into(h),
        Datum::Oid(v) => h.write(&v.to_le_bytes()),
        Datum::Xid(v) | Datum::Xid8(v) => h.write(&v.to_le_bytes()),
        Datum::Uuid(u) => h.write(u),
        Datum::PgLsn(l) => h.write(&l.to_le_bytes()),
        Datum::Array(a) => crate::array::hash_into(a, h),
        Datum::Record(r) => crate::record::hash_into(r, h),
        Datum::Enum(v) => h.write(&v.label.to_le_bytes()),
    }
}

/// Floats hash by value: -0 as 0 and every NaN alike.
fn hash_f64(v: f64, h: &mut Fnv) {
    let canonical = if v == 0.0 {
        0.0f64
    } else if v.is_nan() {
        f64::NAN
    } else {
        v
    };
    h.write(&canonical.to_bits().to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_past_the_timestamp_range_sorts_after_every_timestamp() {
        // '2202020-10-05'::date > some timestamp, from PostgreSQL's horology test.
        assert_eq!(date_vs_timestamp(2_202_020 * 365, i64::MAX - 1), Ordering::Greater);
        assert_eq!(date_vs_timestamp(-2_202_020 * 365, i64::MIN + 1), Ordering::Less);
        assert_eq!(date_vs_timestamp(1, crate::datetime::calendar::USECS_PER_DAY), Ordering::Equal);
    }
}
