//! Property-style round trips with a tiny deterministic PRNG: for random
//! values of every type, text output → input, binary send → receive and
//! storage encode → decode all give back an equal value (and the same text).

use crate::datetime::{calendar, Interval};
use crate::domains::{DomainDesc, DomainType};
use crate::enums::{EnumDesc, EnumLabel, EnumType, SortOrder};
use crate::jsonb::JsonbValue;
use crate::numeric::Numeric;
use crate::types::{ElemType, SqlType, ALL_TYPES};
use crate::{binary, compare, io, storage, Context, Datum};

/// xorshift64*: small, deterministic, good enough to explore value space.
pub struct Prng(u64);

impl Prng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Prng {
        Prng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A random element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// A random finite numeric with up to 40 digits and scale up to 20.
fn random_numeric(r: &mut Prng) -> Numeric {
    let digits: String =
        (0..1 + r.below(40)).map(|_| char::from(b'0' + r.below(10) as u8)).collect();
    let scale = r.below(21) as usize;
    let text = if scale > 0 && scale < digits.len() {
        format!("{}.{}", &digits[..digits.len() - scale], &digits[digits.len() - scale..])
    } else {
        digits
    };
    let sign = if r.below(2) == 0 { "-" } else { "" };
    crate::numeric::parse(&format!("{sign}{text}"), -1).expect("generated numeric parses")
}

/// A random jsonb tree of bounded depth.
fn random_jsonb(r: &mut Prng, depth: u32) -> JsonbValue {
    match r.below(if depth > 2 { 4 } else { 6 }) {
        0 => JsonbValue::Null,
        1 => JsonbValue::Bool(r.below(2) == 0),
        2 => JsonbValue::Number(random_numeric(r)),
        3 => JsonbValue::String(random_text(r)),
        4 => JsonbValue::Array((0..r.below(4)).map(|_| random_jsonb(r, depth + 1)).collect()),
        _ => JsonbValue::object(
            (0..r.below(4)).map(|_| (random_text(r), random_jsonb(r, depth + 1))).collect(),
        ),
    }
}

/// Random text including multi-byte characters and JSON-escaped ones.
fn random_text(r: &mut Prng) -> String {
    const CHARS: &[char] =
        &['a', 'Z', '0', ' ', '"', '\\', '\n', '\t', 'é', '€', '😀', '\u{1}', '/'];
    (0..r.below(12)).map(|_| *r.pick(CHARS)).collect()
}

/// A random value of type `ty`.
fn random_value(ty: SqlType, r: &mut Prng) -> Datum {
    let micros_range =
        (calendar::END_TIMESTAMP as u64).wrapping_sub(calendar::MIN_TIMESTAMP as u64);
    match ty {
        SqlType::Bool => Datum::Bool(r.below(2) == 0),
        SqlType::Int2 => Datum::Int2(r.next() as i16),
        SqlType::Int4 => Datum::Int4(r.next() as i32),
        SqlType::Int8 => Datum::Int8(r.next() as i64),
        SqlType::Float4 => Datum::Float4(f32::from_bits(r.next() as u32)),
        SqlType::Float8 => Datum::Float8(f64::from_bits(r.next())),
        SqlType::Numeric => Datum::Numeric(random_numeric(r)),
        SqlType::Text | SqlType::Varchar | SqlType::Bpchar | SqlType::Unknown => {
            Datum::Text(random_text(r))
        }
        SqlType::Name => Datum::Text(random_text(r).chars().take(10).collect()),
        // ASCII: a high-bit byte's binary form is its `\ooo` text (text.rs).
        SqlType::Char => Datum::Text(crate::text::char_from_byte(r.below(128) as u8)),
        SqlType::Bytea => Datum::Bytea((0..r.below(20)).map(|_| r.next() as u8).collect()),
        SqlType::Date => Datum::Date(
            (r.below(calendar::DATE_END_JULIAN as u64) as i64 - calendar::POSTGRES_EPOCH_JDATE)
                as i32,
        ),
        SqlType::Time => Datum::Time(r.below(calendar::USECS_PER_DAY as u64 + 1) as i64),
        SqlType::Timestamp => {
            Datum::Timestamp(calendar::MIN_TIMESTAMP.wrapping_add(r.below(micros_range) as i64))
        }
        SqlType::TimestampTz => {
            Datum::TimestampTz(calendar::MIN_TIMESTAMP.wrapping_add(r.below(micros_range) as i64))
        }
        SqlType::Interval => Datum::Interval(Interval::new(
            r.next() as i32 % 100_000,
            r.next() as i32 % 100_000,
            r.next() as i64 % 1_000_000_000_000_000,
        )),
        SqlType::Jsonb => Datum::Jsonb(Box::new(random_jsonb(r, 0))),
        SqlType::Json => Datum::Json(crate::jsonb::output(&random_jsonb(r, 0))),
        SqlType::Oid | SqlType::Reg(_) => Datum::Oid(r.next() as u32),
        SqlType::Uuid => Datum::Uuid(std::array::from_fn(|_| r.next() as u8)),
        // `xid`'s binary form is PostgreSQL's four bytes (see xid.rs).
        SqlType::Xid => Datum::Xid(u64::from(r.next() as u32)),
        SqlType::Xid8 => Datum::Xid8(r.next()),
        SqlType::PgLsn => Datum::PgLsn(r.next()),
        SqlType::Array(elem) => random_array(elem, r),
        SqlType::Record(rt) => Datum::Record(Box::new(crate::Record {
            ty: rt,
            values: rt.fields().iter().map(|f| random_value(f.ty, r)).collect(),
        })),
        SqlType::Enum(e) => {
            let labels: Vec<_> = e.values().collect();
            Datum::Enum(*r.pick(&labels))
        }
        SqlType::Domain(d) => random_value(d.base(), r),
    }
}

/// A domain over `numeric` (values are the base type's; constraints are
/// the SQL layer's to test).
fn celsius() -> SqlType {
    SqlType::Domain(DomainType::intern(DomainDesc {
        oid: 80_010,
        array_oid: 80_011,
        typname: "celsius".into(),
        sql_name: "celsius".into(),
        base: SqlType::Numeric,
        typmod: -1,
        not_null: false,
        default: None,
        checks: Vec::new(),
    }))
}

/// An enum type whose labels need quoting in arrays and records.
fn weather() -> SqlType {
    let label = |oid, sort, text: &str| EnumLabel {
        oid,
        sort_order: SortOrder(sort),
        label: text.into(),
        uncommitted: false,
    };
    SqlType::Enum(EnumType::intern(EnumDesc {
        oid: 80_000,
        array_oid: 80_001,
        typname: "weather".into(),
        sql_name: "weather".into(),
        labels: vec![
            label(80_002, 1.0, "rain"),
            label(80_003, 2.0, "sun, wind"),
            label(80_004, 0.5, ""),
        ],
    }))
}

/// A random array of up to five elements, some NULL, mostly with lower bound 1.
fn random_array(elem: ElemType, r: &mut Prng) -> Datum {
    let elems = (0..r.below(6))
        .map(|_| if r.below(4) == 0 { Datum::Null } else { random_value(elem.get(), r) })
        .collect();
    let lower = if r.below(3) == 0 { r.below(11) as i32 - 5 } else { 1 };
    let a = crate::array::Array::with_lower_bound(elem, lower, elems).expect("small bounds");
    Datum::Array(Box::new(a))
}

/// Whether two values are the same for round-trip purposes (NaN = NaN,
/// and equal text output so display scale and -0 are preserved too).
fn same(a: &Datum, b: &Datum, ctx: &Context) -> bool {
    compare::cmp(a, b).is_eq() && io::output(a, ctx) == io::output(b, ctx)
}

#[test]
fn every_type_round_trips_through_text_binary_and_storage() {
    let ctx = Context::default();
    let mut r = Prng::new(0x5eed);
    let made = [
        weather(),
        SqlType::array_of(weather()).expect("enum arrays exist"),
        celsius(),
        SqlType::array_of(celsius()).expect("domain arrays exist"),
    ];
    for ty in ALL_TYPES.into_iter().chain(SqlType::array_types()).chain(made) {
        for _ in 0..300 {
            let v = random_value(ty, &mut r);
            let text = io::output(&v, &ctx).expect("non-null");
            let back = io::parse(ty, &text, -1, &ctx)
                .unwrap_or_else(|e| panic!("{ty:?} text {text:?}: {e}"));
            assert!(same(&v, &back, &ctx), "{ty:?} text round trip of {text:?} gave {back:?}");
            let wire = binary::send_typed(ty, &v);
            let back = binary::recv(ty, &wire, -1)
                .unwrap_or_else(|e| panic!("{ty:?} binary {text:?}: {e}"));
            assert!(same(&v, &back, &ctx), "{ty:?} binary round trip of {text:?}");
            let bytes = storage::to_storage(ty, &v);
            let back = storage::from_storage(ty, &bytes)
                .unwrap_or_else(|e| panic!("{ty:?} storage {text:?}: {e}"));
            assert!(same(&v, &back, &ctx), "{ty:?} storage round trip of {text:?}");
        }
    }
}

#[test]
fn fixed_storage_widths_match_typlen() {
    let mut r = Prng::new(7);
    for ty in ALL_TYPES.into_iter().chain([weather()]).filter(|t| t.typlen() > 0) {
        let v = random_value(ty, &mut r);
        assert_eq!(storage::to_storage(ty, &v).len(), ty.typlen() as usize, "{ty:?}");
    }
}

#[test]
fn numeric_storage_is_as_compact_as_postgres() {
    // PostgreSQL's short numeric: 2-byte header plus 2 bytes per base-10000 digit.
    let n = |s: &str| crate::numeric::parse(s, -1).unwrap();
    assert_eq!(storage::numeric_to_storage(&n("0")).len(), 2);
    assert_eq!(storage::numeric_to_storage(&n("12345.67")).len(), 2 + 3 * 2);
    assert_eq!(storage::numeric_to_storage(&n("NaN")).len(), 2);
    assert_eq!(storage::numeric_to_storage(&n("1e300")).len(), 4 + 2);
}

#[test]
fn binary_formats_are_postgres_wire_formats() {
    let n = |s: &str| Datum::Numeric(crate::numeric::parse(s, -1).unwrap());
    // ndigits=2, weight=1, sign=0x4000, dscale=2, digits 1, 2345 0000? -> 12345.67 is [1, 2345, 6700]
    assert_eq!(
        binary::send(&n("-12345.67")),
        vec![0, 3, 0, 1, 0x40, 0, 0, 2, 0, 1, 0x09, 0x29, 0x1a, 0x2c]
    );
    assert_eq!(binary::send(&Datum::Date(1)), vec![0, 0, 0, 1]);
    assert_eq!(binary::send(&Datum::Jsonb(Box::new(JsonbValue::Null))), b"\x01null".to_vec());
    let iv = Datum::Interval(Interval::new(2, 3, 4));
    assert_eq!(binary::send(&iv), vec![0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 2]);
    let bad =
        binary::recv(SqlType::Numeric, &[0, 1, 0, 0, 0x12, 0x34, 0, 0, 0, 1], -1).unwrap_err();
    assert_eq!(bad.message, "invalid sign in external \"numeric\" value");
    let bad =
        binary::recv(SqlType::Numeric, &[0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10], -1).unwrap_err();
    assert_eq!(bad.message, "invalid digit in external \"numeric\" value");
    let bad = binary::recv(SqlType::Text, &[0x61, 0xff], -1).unwrap_err();
    assert_eq!(
        (bad.sqlstate(), bad.message.as_str()),
        ("22021", "invalid byte sequence for encoding \"UTF8\": 0xff")
    );
    let bad = binary::recv(SqlType::Int4, &[0, 1], -1).unwrap_err();
    assert_eq!(bad.sqlstate(), "22P03");
}
