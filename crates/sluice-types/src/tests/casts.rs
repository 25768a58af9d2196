//! Cast golden table (explicit `::` casts and assignment through `INSERT`
//! into a typed column, as PostgreSQL 15 did them) and `pg_cast` contexts.

use super::{check_all, render_err, type_spec};
use crate::cast::{cast, cast_context, CastContext};
use crate::types::SqlType;
use crate::{io, Context};

#[test]
fn casts_match_postgres() {
    let ctx = Context::default();
    check_all(CASTS.iter().map(|&(src, to, how, want)| {
        let (from_spec, value) = src.split_once(':').expect("type:value");
        let (from, from_typmod) = type_spec(from_spec);
        let (to_ty, typmod) = type_spec(to);
        let d = io::parse(from, value, from_typmod, &ctx).expect("source value parses");
        let got = match cast(&d, from, to_ty, typmod, how == "explicit", &ctx) {
            Ok(r) => io::output(&r, &ctx).unwrap_or_default(),
            Err(e) => render_err(&e),
        };
        (format!("{src} -> {to} ({how})"), got, want.to_string())
    }));
}

#[test]
fn cast_contexts_mirror_pg_cast() {
    use CastContext::*;
    use SqlType::*;
    let cases = [
        (Int4, Int8, Some(Implicit)),
        (Int8, Int4, Some(Assignment)),
        (Int4, Numeric, Some(Implicit)),
        (Numeric, Int4, Some(Assignment)),
        (Numeric, Float8, Some(Implicit)),
        (Float8, Numeric, Some(Assignment)),
        (Int4, Bool, Some(Explicit)),
        (Date, Timestamp, Some(Implicit)),
        (TimestampTz, Date, Some(Assignment)),
        (Int4, Text, Some(Assignment)),
        (Text, Int4, Some(Explicit)),
        (Text, Varchar, Some(Implicit)),
        (Unknown, Date, Some(Implicit)),
        (Jsonb, Int4, Some(Explicit)),
        (Date, Int4, None),
        (Bytea, Int4, None),
        (Numeric, Bool, None),
    ];
    for (from, to, want) in cases {
        assert_eq!(cast_context(from, to), want, "{from:?} -> {to:?}");
    }
    // Arrays cast as their elements do, and through text like every type.
    let array = |t| SqlType::array_of(t).expect("array type");
    let cases = [
        (array(Int4), array(Int8), Some(Implicit)),
        (array(Int8), array(Int4), Some(Assignment)),
        (array(Text), array(Int4), Some(Explicit)),
        (array(Int4), array(Varchar), Some(Assignment)),
        (array(Int4), Text, Some(Assignment)),
        (Text, array(Int4), Some(Explicit)),
        (Unknown, array(Int4), Some(Implicit)),
        (Int4, array(Int4), None),
        (array(Int4), Int4, None),
        (array(Int4), array(Date), None),
    ];
    for (from, to, want) in cases {
        assert_eq!(cast_context(from, to), want, "{from:?} -> {to:?}");
    }
}

/// (source `type:value`, target type, context, PostgreSQL 15's result).
const CASTS: &[(&str, &str, &str, &str)] = &[
    ("integer:70000", "smallint", "explicit", "ERR:22003: smallint out of range"),
    ("bigint:5000000000", "integer", "explicit", "ERR:22003: integer out of range"),
    ("integer:-5", "bigint", "explicit", "-5"),
    ("integer:7", "numeric", "explicit", "7"),
    ("integer:7", "double precision", "explicit", "7"),
    ("integer:16777217", "real", "explicit", "1.6777216e+07"),
    ("integer:0", "boolean", "explicit", "f"),
    ("integer:-3", "boolean", "explicit", "t"),
    ("boolean:true", "integer", "explicit", "1"),
    ("integer:-1", "oid", "explicit", "4294967295"),
    ("bigint:5000000000", "oid", "explicit", "ERR:22003: OID out of range"),
    ("oid:4294967295", "bigint", "explicit", "4294967295"),
    ("oid:4294967295", "integer", "explicit", "-1"),
    ("double precision:1.5", "integer", "explicit", "2"),
    ("double precision:2.5", "integer", "explicit", "2"),
    ("double precision:-2.5", "smallint", "explicit", "-2"),
    ("double precision:2147483647.5", "integer", "explicit", "ERR:22003: integer out of range"),
    ("double precision:NaN", "integer", "explicit", "ERR:22003: integer out of range"),
    ("double precision:1e300", "real", "explicit", "ERR:22003: value out of range: overflow"),
    ("double precision:1e-50", "real", "explicit", "ERR:22003: value out of range: underflow"),
    ("double precision:0.1", "numeric", "explicit", "0.1"),
    ("double precision:1e20", "numeric", "explicit", "100000000000000000000"),
    ("double precision:1e-7", "numeric", "explicit", "0.0000001"),
    ("double precision:Infinity", "numeric", "explicit", "Infinity"),
    ("double precision:NaN", "numeric", "explicit", "NaN"),
    ("double precision:123.456", "numeric(5,1)", "explicit", "123.5"),
    ("real:0.1", "numeric", "explicit", "0.1"),
    ("real:0.1", "double precision", "explicit", "0.10000000149011612"),
    ("real:1.5", "bigint", "explicit", "2"),
    ("numeric:2.5", "integer", "explicit", "3"),
    ("numeric:-2.5", "integer", "explicit", "-3"),
    ("numeric:1e10", "integer", "explicit", "ERR:22003: integer out of range"),
    ("numeric:NaN", "integer", "explicit", "ERR:0A000: cannot convert NaN to integer"),
    ("numeric:Infinity", "bigint", "explicit", "ERR:0A000: cannot convert infinity to bigint"),
    ("numeric:32767.4", "smallint", "explicit", "32767"),
    ("numeric:1e400", "double precision", "explicit", "ERR:22003: \"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\" is out of range for type double precision"),
    ("numeric:0.1", "real", "explicit", "0.1"),
    ("numeric:123.456", "numeric(4,1)", "explicit", "123.5"),
    ("numeric:99.99", "numeric(3,1)", "explicit", "ERR:22003: numeric field overflow"),
    ("numeric:NaN", "double precision", "explicit", "NaN"),
    ("text:abcdef", "character varying(3)", "explicit", "abc"),
    ("text:ab", "character(4)", "explicit", "ab  "),
    ("character(5):abc", "text", "explicit", "abc"),
    ("character(5):abc", "character varying(10)", "explicit", "abc"),
    ("text:123", "integer", "explicit", "123"),
    ("text:abc", "integer", "explicit", "ERR:22P02: invalid input syntax for type integer: \"abc\""),
    ("text: 2024-01-15 ", "date", "explicit", "2024-01-15"),
    ("boolean:false", "text", "explicit", "false"),
    ("numeric:1.50", "text", "explicit", "1.50"),
    ("date:2024-01-15", "text", "explicit", "2024-01-15"),
    ("integer:42", "character varying(1)", "explicit", "4"),
    ("text:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "name", "explicit", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("date:2024-01-15", "timestamp", "explicit", "2024-01-15 00:00:00"),
    ("date:2024-01-15", "timestamp with time zone", "explicit", "2024-01-15 00:00:00+00"),
    ("date:infinity", "timestamp", "explicit", "infinity"),
    ("timestamp:2024-01-15 10:30", "date", "explicit", "2024-01-15"),
    ("timestamp:2024-01-15 10:30:45.5", "time", "explicit", "10:30:45.5"),
    ("timestamp:2024-01-15 10:30", "timestamp with time zone", "explicit", "2024-01-15 10:30:00+00"),
    ("timestamp with time zone:2024-01-15 10:30+02", "timestamp", "explicit", "2024-01-15 08:30:00"),
    ("timestamp with time zone:2024-01-15 23:30-05", "date", "explicit", "2024-01-16"),
    ("time:10:30", "interval", "explicit", "10:30:00"),
    ("interval:-1 hour", "time", "explicit", "23:00:00"),
    ("interval:1 day 25:00", "time", "explicit", "01:00:00"),
    ("timestamp:infinity", "time", "explicit", ""),
    ("timestamp:2024-01-15 10:30:45.5678", "timestamp(2)", "explicit", "2024-01-15 10:30:45.57"),
    ("jsonb:1.5", "integer", "explicit", "2"),
    ("jsonb:2.5", "bigint", "explicit", "3"),
    ("jsonb:true", "boolean", "explicit", "t"),
    ("jsonb:1e3", "double precision", "explicit", "1000"),
    ("jsonb:\"x\"", "integer", "explicit", "ERR:22023: cannot cast jsonb string to type integer"),
    ("jsonb:null", "integer", "explicit", "ERR:22023: cannot cast jsonb null to type integer"),
    ("jsonb:[1]", "numeric", "explicit", "ERR:22023: cannot cast jsonb array to type numeric"),
    ("jsonb:{}", "boolean", "explicit", "ERR:22023: cannot cast jsonb object to type boolean"),
    ("jsonb:12.5", "numeric", "explicit", "12.5"),
    ("jsonb:1", "boolean", "explicit", "ERR:22023: cannot cast jsonb numeric to type boolean"),
    ("date:2024-01-01", "integer", "explicit", "ERR:42846: cannot cast type date to integer"),
    ("integer:1", "date", "explicit", "ERR:42846: cannot cast type integer to date"),
    ("numeric:1.0", "boolean", "explicit", "ERR:42846: cannot cast type numeric to boolean"),
    ("bytea:\\x01", "integer", "explicit", "ERR:42846: cannot cast type bytea to integer"),
    ("uuid:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "text", "explicit", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
    ("interval:1 day", "date", "explicit", "ERR:42846: cannot cast type interval to date"),
    ("text:abcd", "character varying(3)", "assignment", "ERR:22001: value too long for type character varying(3)"),
    ("text:abc   ", "character varying(3)", "assignment", "abc"),
    ("numeric:2.5", "integer", "assignment", "3"),
    ("double precision:1e10", "integer", "assignment", "ERR:22003: integer out of range"),
    ("text:abcd", "character(3)", "assignment", "ERR:22001: value too long for type character(3)"),
    ("numeric:123.456", "numeric(4,1)", "assignment", "123.5"),
    ("bigint:70000", "smallint", "assignment", "ERR:22003: smallint out of range"),
    ("integer:42", "character varying(1)", "assignment", "ERR:22001: value too long for type character varying(1)"),
    ("integer:42", "text", "assignment", "42"),
    ("integer[]:{1,2}", "bigint[]", "explicit", "{1,2}"),
    ("numeric[]:{1.7,2}", "integer[]", "explicit", "{2,2}"),
    ("numeric[]:[0:1]={1.5,NULL}", "double precision[]", "explicit", "[0:1]={1.5,NULL}"),
    ("text[]:{abc,d}", "character varying(2)[]", "explicit", "{ab,d}"),
    (
        "text[]:{abc}",
        "character varying(2)[]",
        "assignment",
        "ERR:22001: value too long for type character varying(2)",
    ),
    ("integer[]:{1,2}", "text", "explicit", "{1,2}"),
    ("text:{a,\"b c\"}", "text[]", "explicit", "{a,\"b c\"}"),
    ("boolean[]:{t,f}", "text[]", "explicit", "{true,false}"),
    ("text[]:{1,x}", "integer[]", "explicit", "ERR:22P02: invalid input syntax for type integer: \"x\""),
    ("integer[]:{70000}", "smallint[]", "explicit", "ERR:22003: smallint out of range"),
    ("integer[]:{1}", "date[]", "explicit", "ERR:42846: cannot cast type integer[] to date[]"),
    ("integer:1", "integer[]", "explicit", "ERR:42846: cannot cast type integer to integer[]"),
    ("integer[]:{1}", "integer", "explicit", "ERR:42846: cannot cast type integer[] to integer"),
];
