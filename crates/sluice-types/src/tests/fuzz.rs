//! No input may panic: random and mutated byte strings through every text
//! parser, binary receiver and storage decoder, for every type and a few
//! typmods. Errors are fine; panics, hangs and huge allocations are not.

use super::roundtrip::Prng;
use crate::types::{char_typmod, numeric_typmod, SqlType, ALL_TYPES};
use crate::{binary, io, jsonb, storage, Context};

/// Seeds for mutation: valid inputs of many types, so mutations reach deep
/// into each parser rather than failing at the first byte.
const SEEDS: &[&str] = &[
    "12345",
    "-1.5e-3",
    "NaN",
    "2024-01-15 10:30:00+02",
    "Jan 8 1999 BC",
    "J2451545",
    "1 year 2 mons -3 days 04:05:06.7 ago",
    "P1Y2M3DT4H5M6S",
    "{\"a\": [1, 2.5, {\"b\": null}], \"c\": \"\\u00e9\"}",
    "\\x0102ff",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "true",
    "10:30:00.123456 PM",
    "2024-03-10 02:30 America/New_York",
    "{1,\"a b\",NULL,{}}",
    "[0:2]={a,\\\"b, \"c\\\\\" }",
];

/// Characters that matter to the parsers.
const ALPHABET: &[u8] = b"0123456789.-+eE:/ ,{}[]\"\\atTZPJbBc\x00\xff\xc3\xa9uU%";

/// Produce a mutated or random input.
fn input(r: &mut Prng) -> String {
    let mut bytes: Vec<u8> = if r.below(4) == 0 {
        (0..r.below(40)).map(|_| r.next() as u8).collect()
    } else {
        r.pick(SEEDS).as_bytes().to_vec()
    };
    for _ in 0..1 + r.below(4) {
        let pos = r.below(bytes.len() as u64 + 1) as usize;
        match r.below(3) {
            0 => bytes.insert(pos, *r.pick(ALPHABET)),
            1 if pos < bytes.len() => {
                bytes.remove(pos);
            }
            _ if pos < bytes.len() => bytes[pos] = *r.pick(ALPHABET),
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn text_parsers_never_panic() {
    let ctx = Context::default();
    let mut r = Prng::new(0xf022);
    let typmods = |ty: SqlType| match ty {
        SqlType::Numeric => vec![-1, numeric_typmod(5, 2), numeric_typmod(3, -2)],
        SqlType::Varchar | SqlType::Bpchar => vec![-1, char_typmod(3)],
        SqlType::Timestamp | SqlType::TimestampTz | SqlType::Time => vec![-1, 0, 3],
        _ => vec![-1],
    };
    for _ in 0..3000 {
        let text = input(&mut r);
        for ty in ALL_TYPES.into_iter().chain(SqlType::array_types()) {
            for typmod in typmods(ty) {
                let _ = io::parse(ty, &text, typmod, &ctx);
            }
        }
    }
}

#[test]
fn binary_and_storage_decoders_never_panic() {
    let mut r = Prng::new(0xb17e);
    for _ in 0..5000 {
        let len = r.below(24) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| r.next() as u8).collect();
        for ty in ALL_TYPES.into_iter().chain(SqlType::array_types()) {
            let _ = binary::recv(ty, &bytes, -1);
            let _ = storage::from_storage(ty, &bytes);
        }
        let _ = jsonb::decode(&bytes);
    }
}

#[test]
fn mutated_array_encodings_never_panic() {
    let ctx = Context::default();
    let mut r = Prng::new(0xa77a);
    let ty = SqlType::from_name("text[]").expect("text[]");
    let value = io::parse(ty, "[-2:1]={a,NULL,\"b c\",\"\"}", -1, &ctx).expect("parses");
    let ints = SqlType::from_name("int4[]").expect("int4[]");
    let int_value = io::parse(ints, "{1,NULL,3}", -1, &ctx).expect("parses");
    let encodings = [
        (ty, binary::send(&value), true),
        (ty, storage::to_storage(ty, &value), false),
        (ints, binary::send(&int_value), true),
        (ints, storage::to_storage(ints, &int_value), false),
    ];
    for _ in 0..5000 {
        let (ty, valid, wire) = r.pick(&encodings);
        let mut bytes = valid.clone();
        for _ in 0..1 + r.below(3) {
            let pos = r.below(bytes.len() as u64) as usize;
            bytes[pos] = r.next() as u8;
        }
        bytes.truncate(bytes.len() - r.below(3) as usize);
        let _ =
            if *wire { binary::recv(*ty, &bytes, -1) } else { storage::from_storage(*ty, &bytes) };
    }
}

#[test]
fn huge_and_deep_inputs_fail_cleanly() {
    let ctx = Context::default();
    let deep = "[".repeat(100_000);
    let err = io::parse(SqlType::Jsonb, &deep, -1, &ctx).unwrap_err();
    assert_eq!(err.sqlstate(), "54001");
    let long_number = "9".repeat(200_000);
    assert!(io::parse(SqlType::Int8, &long_number, -1, &ctx).is_err());
    // numeric holds up to 131072 digits before the point, like PostgreSQL.
    assert!(io::parse(SqlType::Numeric, &"9".repeat(131_072), -1, &ctx).is_ok());
    let err = io::parse(SqlType::Numeric, &long_number, -1, &ctx).unwrap_err();
    assert_eq!(err.message, "value overflows numeric format");
    assert!(io::parse(SqlType::Numeric, &format!("1e{long_number}"), -1, &ctx).is_err());
    assert!(io::parse(SqlType::Float8, &long_number, -1, &ctx).is_err());
    assert!(io::parse(SqlType::Interval, &format!("{long_number} days"), -1, &ctx).is_err());
    assert!(io::parse(SqlType::Date, &long_number, -1, &ctx).is_err());
    let deep_array = "{".repeat(100_000);
    let int_array = SqlType::from_name("int[]").expect("int[]");
    let err = io::parse(int_array, &deep_array, -1, &ctx).unwrap_err();
    assert_eq!(err.sqlstate(), "54000");
    let long_array = format!("{{{}1}}", "1,".repeat(100_000));
    assert!(io::parse(int_array, &long_array, -1, &ctx).is_ok());
    // A stored jsonb claiming four billion elements must not allocate them.
    assert!(jsonb::decode(&[5, 0xff, 0xff, 0xff, 0xff]).is_err());
}
