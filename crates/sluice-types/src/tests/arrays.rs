//! Arrays against PostgreSQL 15: text input/output (every `DETAIL` line
//! included), comparisons, functions, the binary wire format (checked
//! byte for byte against `array_send` and, for malformed values, against
//! what `COPY ... (FORMAT binary)` reported), heap storage, type names and
//! `op ANY/ALL`. Rows where sluice deviates on purpose say so.

use super::{cast_literal, check_all, type_spec};
use crate::array::{self, Array};
use crate::error::TypeError;
use crate::funcs::array as funcs;
use crate::ops::{self, CmpOp};
use crate::types::{format_type, ElemType, SqlType};
use crate::{binary, io, storage, Context, Datum};

/// An error as the tables spell it: `ERR:SQLSTATE: message[ DETAIL: detail]`.
fn render(e: &TypeError) -> String {
    let detail = e.detail.as_ref().map_or(String::new(), |d| format!(" DETAIL: {d}"));
    format!("ERR:{}: {}{detail}", e.sqlstate(), e.message)
}

/// Parse a `type:value` argument.
fn arg(spec: &str) -> Datum {
    let (ty, value) = spec.split_once(':').expect("type:value");
    let (ty, typmod) = type_spec(ty);
    io::parse(ty, value, typmod, &Context::default())
        .unwrap_or_else(|e| panic!("bad argument {spec}: {e}"))
}

/// The array inside an array argument.
fn array_arg(spec: &str) -> Array {
    match arg(spec) {
        Datum::Array(a) => *a,
        other => panic!("{spec} is not an array: {other:?}"),
    }
}

/// The element type of `int4[]`.
fn int4() -> ElemType {
    ElemType::new(SqlType::Int4).expect("int4 has an array type")
}

#[test]
fn text_io_matches_postgres() {
    check_all(IO.iter().map(|&(spec, input, want)| {
        let got = cast_literal(spec, input).unwrap_or_else(|e| render(&e));
        (format!("{input:?}::{spec}"), got, want.to_string())
    }));
}

#[test]
fn output_reads_back_as_itself() {
    let ctx = Context::default();
    for &(spec, _, want) in IO.iter().filter(|r| !r.2.starts_with("ERR")) {
        let (ty, typmod) = type_spec(spec);
        let again = io::parse(ty, want, typmod, &ctx).expect("output parses");
        assert_eq!(io::output(&again, &ctx).as_deref(), Some(want), "{spec}");
    }
}

#[test]
fn comparisons_match_postgres() {
    let ops = [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge];
    check_all(CMP.iter().map(|&(ty, a, b, want)| {
        let (a, b) = (arg(&format!("{ty}:{a}")), arg(&format!("{ty}:{b}")));
        let got: Vec<String> = ops
            .iter()
            .map(|&op| match ops::compare(op, &a, &b) {
                Datum::Bool(v) => if v { "t" } else { "f" }.to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        (format!("{a:?} vs {b:?}"), got.join("|"), want.to_string())
    }));
}

#[test]
fn equal_arrays_hash_alike() {
    let hash = |s: &str| crate::compare::hash(&arg(s));
    assert_eq!(hash("integer[]:{1,NULL,3}"), hash("bigint[]:{1,NULL,3}"));
    assert_eq!(hash("numeric[]:{1.0}"), hash("numeric[]:{1}"));
    assert_eq!(hash("integer[]:{}"), hash("integer[]:{ }"));
    assert_ne!(hash("integer[]:{1,2}"), hash("integer[]:{2,1}"));
    assert_ne!(hash("integer[]:[0:1]={1,2}"), hash("integer[]:{1,2}"));
    let padded = |s: &str| crate::compare::hash_typed(SqlType::Bpchar, &arg(s));
    assert_eq!(padded("character(3)[]:{a}"), padded("character(3)[]:{\"a \"}"));
}

#[test]
fn functions_match_postgres() {
    let ctx = Context::default();
    check_all(FUNCS.iter().map(|&(name, array, extra, want)| {
        let a = array_arg(array);
        let args = sql_args(extra);
        let int = |i: usize| args[i].as_i64().expect("integer argument") as i32;
        let text = |i: usize| args.get(i).and_then(Datum::as_str);
        let number = |v: Option<i32>| v.map_or("<NULL>".to_string(), |v| v.to_string());
        let got = match name {
            "array_length" => number(funcs::array_length(&a, int(0))),
            "array_lower" => number(funcs::array_lower(&a, int(0))),
            "array_upper" => number(funcs::array_upper(&a, int(0))),
            "array_ndims" => number(funcs::array_ndims(&a)),
            "cardinality" => funcs::cardinality(&a).to_string(),
            "array_dims" => funcs::array_dims(&a).unwrap_or("<NULL>".into()),
            "array_to_string" => {
                funcs::array_to_string(&a, text(0).expect("delimiter"), text(1), &ctx)
            }
            "array_position" => match funcs::array_position(&a, &args[0], args.get(1)) {
                Ok(v) => number(v),
                Err(e) => format!("ERR:{}", e.message),
            },
            other => panic!("no function {other}"),
        };
        (format!("{name}({array}, {extra})"), got, want.to_string())
    }));
}

/// SQL arguments as the tables write them: `'text'` (no quotes inside),
/// `NULL` or an integer, separated by `, `.
fn sql_args(mut s: &str) -> Vec<Datum> {
    let mut args = Vec::new();
    while !s.is_empty() {
        let (arg, rest) = match s.strip_prefix('\'') {
            Some(quoted) => {
                let (text, rest) = quoted.split_once('\'').expect("closing quote");
                (Datum::Text(text.to_string()), rest)
            }
            None => {
                let (word, rest) = s.split_once(',').unwrap_or((s, ""));
                let d =
                    if word == "NULL" { Datum::Null } else { Datum::Int4(word.parse().unwrap()) };
                (d, rest)
            }
        };
        args.push(arg);
        s = rest.trim_start_matches(',').trim_start();
    }
    args
}

#[test]
fn any_and_all_follow_three_valued_logic() {
    let eq = |x: &Datum, y: &Datum| -> crate::Result<Option<bool>> {
        Ok(Some(crate::compare::cmp(x, y).is_eq()))
    };
    let run = |lhs: Datum, array: &str, all: bool| {
        let array = if array == "NULL" { Datum::Null } else { arg(array) };
        let got = funcs::scalar_array_op(&lhs, &array, all, eq).expect("no error");
        io::output(&got, &Context::default()).unwrap_or("<NULL>".into())
    };
    let one = || Datum::Int4(1);
    // Each expectation is PostgreSQL 15's `1 = ANY ('...'::int[])` and `ALL`.
    assert_eq!(run(one(), "integer[]:{1,2}", false), "t");
    assert_eq!(run(one(), "integer[]:{2,3}", false), "f");
    assert_eq!(run(one(), "integer[]:{2,NULL}", false), "<NULL>");
    assert_eq!(run(one(), "integer[]:{NULL,1}", false), "t");
    assert_eq!(run(one(), "integer[]:{}", false), "f");
    assert_eq!(run(Datum::Null, "integer[]:{}", false), "f");
    assert_eq!(run(Datum::Null, "integer[]:{1}", false), "<NULL>");
    assert_eq!(run(one(), "NULL", false), "<NULL>");
    assert_eq!(run(one(), "integer[]:{1,1}", true), "t");
    assert_eq!(run(one(), "integer[]:{1,NULL}", true), "<NULL>");
    assert_eq!(run(one(), "integer[]:{2,NULL}", true), "f");
    assert_eq!(run(Datum::Null, "integer[]:{}", true), "t");
}

#[test]
fn binary_format_is_postgres_wire_format() {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    // `select encode(array_send(...), 'hex')` in PostgreSQL 15.
    let sent = [
        (
            "integer[]:{1,NULL,3}",
            "00000001000000010000001700000003000000010000000400000001ffffffff0000000400000003",
        ),
        ("integer[]:{}", "000000000000000000000017"),
        ("text[]:[0:1]={a,b}", "000000010000000000000019000000020000000000000001610000000162"),
        (
            "numeric[]:{1.5}",
            "0000000100000000000006a400000001000000010000000c000200000000000100011388",
        ),
    ];
    for (spec, want) in sent {
        let d = arg(spec);
        assert_eq!(hex(&binary::send(&d)), want, "{spec}");
        let ty = d.natural_type().expect("not null");
        let back = binary::recv(ty, &binary::send(&d), -1).expect("receives");
        assert_eq!(io::output(&back, &Context::default()), io::output(&d, &Context::default()));
    }
}

#[test]
fn malformed_binary_arrays_fail_as_in_postgres() {
    let words = |v: &[i32]| v.iter().flat_map(|w| w.to_be_bytes()).collect::<Vec<u8>>();
    let ty = SqlType::Array(int4());
    let recv = |bytes: Vec<u8>| match binary::recv(ty, &bytes, -1) {
        Ok(d) => io::output(&d, &Context::default()).unwrap_or_default(),
        Err(e) => render(&e),
    };
    // What PostgreSQL 15 reported for the same bytes in a binary COPY.
    let with = |mut b: Vec<u8>, extra: &[u8]| {
        b.extend(extra);
        b
    };
    let cases = [
        (words(&[1, 0, 23, 2, 1, 4, 5, 4, 6]), "{5,6}"),
        (words(&[-1, 0, 23]), "ERR:22P03: invalid number of dimensions: -1"),
        (words(&[7, 0, 23]), "ERR:54000: number of array dimensions (7) exceeds the maximum allowed (6)"),
        (words(&[1, 2, 23, 1, 1]), "ERR:22P03: invalid array flags"),
        (
            with(words(&[1, 0, 20, 1, 1, 8]), &5i64.to_be_bytes()),
            "ERR:42804: binary data has array element type 20 (bigint) instead of expected 23 (integer)",
        ),
        (words(&[1, 0, 70000, 1, 1, 4, 5]), "{5}"),
        (words(&[1, 0, 23, 1, 1, 4]), "ERR:22P03: insufficient data left in message"),
        (words(&[1, 0]), "ERR:22P03: insufficient data left in message"),
        (words(&[1, 0, 23, 1, 1, -2]), "ERR:22P03: insufficient data left in message"),
        (words(&[1, 0, 23, -1, 1]), "ERR:54000: array size exceeds the maximum allowed (134217727)"),
        (words(&[1, 0, 23, 200_000_000, 1]), "ERR:54000: array size exceeds the maximum allowed (134217727)"),
        (words(&[1, 0, 23, 1, i32::MAX, 4, 5]), "ERR:54000: array lower bound is too large: 2147483647"),
        (with(words(&[1, 0, 23, 1, 1, 5]), &[0; 5]), "ERR:22P03: improper binary format in array element 1"),
        (with(words(&[1, 0, 23, 1, 1, 2]), &[0; 2]), "ERR:22P03: insufficient data left in message"),
        (words(&[0, 0, 23]), "{}"),
        (words(&[1, 0, 23, 0, 1]), "{}"),
        (words(&[2, 0, 23, 0, 1, 3, 1]), "{}"),
        (words(&[1, 1, 23, 2, 0, -1, 4, 9]), "[0:1]={NULL,9}"),
        (with(words(&[1, 0, 23, 1, 1, 4, 5]), &[0]), "ERR:22P03: incorrect binary data format"),
        // PostgreSQL: {{5}}
        (words(&[2, 0, 23, 1, 1, 1, 1, 4, 5]), "ERR:0A000: multidimensional arrays are not supported"),
    ];
    check_all(
        cases.into_iter().map(|(bytes, want)| (format!("{bytes:?}"), recv(bytes), want.into())),
    );
}

#[test]
fn storage_round_trips_and_rejects_damage() {
    let ctx = Context::default();
    for spec in [
        "integer[]:{1,NULL,3}",
        "integer[]:{}",
        "integer[]:[-3:-1]={NULL,NULL,NULL}",
        "text[]:{\"\",NULL,\"a b\",é}",
        "name[]:{pg_class,NULL}",
        "numeric[]:{1.50,NaN,NULL,-1e100}",
        "jsonb[]:{\"{\\\"a\\\": [1, 2]}\"}",
        "interval[]:{\"1 day 2 hours\",NULL}",
        "boolean[]:{t,f,NULL,t,f,t,t,t,f,NULL}",
    ] {
        let d = arg(spec);
        let ty = d.natural_type().expect("not null");
        let bytes = storage::to_storage(ty, &d);
        let back = storage::from_storage(ty, &bytes).expect("decodes");
        assert_eq!(io::output(&back, &ctx), io::output(&d, &ctx), "{spec}");
        // Every truncation and every flipped header byte is caught.
        for cut in 0..bytes.len() {
            assert!(storage::from_storage(ty, &bytes[..cut]).is_err(), "{spec} cut at {cut}");
        }
        for i in 0..bytes.len().min(14) {
            let mut bad = bytes.clone();
            bad[i] ^= 0x80;
            if let Ok(d) = storage::from_storage(ty, &bad) {
                // A lower bound byte may change into another valid bound.
                assert!((10..14).contains(&i), "{spec}: byte {i} flipped decodes as {d:?}");
            }
        }
    }
    // The payload is as compact as PostgreSQL's: a 14-byte header and the elements.
    let ints = arg("integer[]:{1,2,3}");
    assert_eq!(storage::to_storage(SqlType::Array(int4()), &ints).len(), 14 + 3 * 4);
    let text = SqlType::array_of(SqlType::Text).unwrap();
    let wrong = storage::from_storage(text, &storage::to_storage(SqlType::Array(int4()), &ints));
    assert_eq!(wrong.unwrap_err().sqlstate(), "XX001");
}

#[test]
fn type_names_and_oids_follow_pg_type() {
    let int4_array = SqlType::Array(int4());
    assert_eq!(int4_array.oid(), 1007);
    assert_eq!(int4_array.typname(), "_int4");
    assert_eq!(int4_array.element(), Some(SqlType::Int4));
    assert_eq!(SqlType::Int4.array_oid(), Some(1007));
    assert_eq!(SqlType::Unknown.array_oid(), None);
    assert_eq!(int4_array.array_oid(), None);
    assert_eq!(SqlType::array_of(int4_array), None);
    for name in ["int[]", "integer[]", "INT4[]", "_int4", "integer[][]", " int4 [] "] {
        assert_eq!(SqlType::from_name(name), Some(int4_array), "{name}");
    }
    assert_eq!(SqlType::from_name("unknown[]"), None);
    assert_eq!(SqlType::from_oid(1231), SqlType::array_of(SqlType::Numeric));
    assert_eq!(format_type(int4_array, -1), "integer[]");
    let (varchar_array, typmod) = type_spec("character varying(10)[]");
    assert_eq!(format_type(varchar_array, typmod), "character varying(10)[]");
    let (tstz, typmod) = type_spec("timestamp(3) with time zone[]");
    assert_eq!(format_type(tstz, typmod), "timestamp(3) with time zone[]");
    // `select typname, oid, typalign, format_type(oid, -1) from pg_type
    // where typcategory = 'A'` for the element types sluice has.
    let pg_type: Vec<String> = SqlType::array_types()
        .map(|t| format!("{}|{}|{}|{}", t.typname(), t.oid(), t.typalign(), format_type(t, -1)))
        .collect();
    assert_eq!(pg_type, PG_TYPE);
    for t in SqlType::array_types() {
        assert_eq!((t.typlen(), t.typbyval()), (-1, false));
        assert_eq!(t.element().and_then(SqlType::array_of), Some(t));
    }
}

#[test]
fn lower_bounds_are_checked() {
    let one = || vec![Datum::Int4(1)];
    assert!(Array::with_lower_bound(int4(), i32::MAX - 1, one()).is_ok());
    let e = Array::with_lower_bound(int4(), i32::MAX, one()).unwrap_err();
    assert_eq!(render(&e), "ERR:54000: array lower bound is too large: 2147483647");
    // An empty array has no bounds at all.
    let empty = Array::with_lower_bound(int4(), i32::MAX, Vec::new()).unwrap();
    assert_eq!((empty.lower_bound(), empty.upper_bound()), (1, 0));
    let a = Array::with_lower_bound(int4(), -1, vec![Datum::Int4(7), Datum::Null]).unwrap();
    assert_eq!((a.get(-1), a.get(0), a.get(1)), (Some(&Datum::Int4(7)), Some(&Datum::Null), None));
    assert!(array::cmp(&a, &a).is_eq());
}

/// `select typname, oid, typalign, format_type(oid, -1)` of each array type
/// (typalign as bytes), PostgreSQL 15.
const PG_TYPE: &[&str] = &[
    "_bool|1000|4|boolean[]",
    "_bytea|1001|4|bytea[]",
    "_char|1002|4|\"char\"[]",
    "_name|1003|4|name[]",
    "_int8|1016|8|bigint[]",
    "_int2|1005|4|smallint[]",
    "_int4|1007|4|integer[]",
    "_text|1009|4|text[]",
    "_oid|1028|4|oid[]",
    // sluice's xid is 64 bits wide, so 8-aligned (PostgreSQL's: 4, `i`).
    "_xid|1011|8|xid[]",
    "_float4|1021|4|real[]",
    "_float8|1022|8|double precision[]",
    "_bpchar|1014|4|bpchar[]",
    "_varchar|1015|4|character varying[]",
    "_date|1182|4|date[]",
    "_time|1183|8|time without time zone[]",
    "_timestamp|1115|8|timestamp without time zone[]",
    "_timestamptz|1185|8|timestamp with time zone[]",
    "_interval|1187|8|interval[]",
    "_numeric|1231|4|numeric[]",
    "_uuid|2951|4|uuid[]",
    "_pg_lsn|3221|8|pg_lsn[]",
    "_jsonb|3807|4|jsonb[]",
    "_xid8|271|8|xid8[]",
    "_json|199|4|json[]",
];

/// (type, left, right, PostgreSQL 15's `= <> < <= > >=` results).
const CMP: &[(&str, &str, &str, &str)] = &[
    ("integer[]", "{1,2}", "{1,2}", "t|f|f|t|f|t"),
    ("integer[]", "{1,NULL}", "{1,NULL}", "t|f|f|t|f|t"),
    ("integer[]", "{1,2}", "{1,2,3}", "f|t|t|t|f|f"),
    ("integer[]", "{1,NULL}", "{1,2}", "f|t|f|f|t|t"),
    ("integer[]", "[0:1]={1,2}", "{1,2}", "f|t|t|t|f|f"),
    ("integer[]", "{}", "{NULL}", "f|t|t|t|f|f"),
    ("integer[]", "{2}", "{1,5}", "f|t|f|f|t|t"),
    ("integer[]", "[2:3]={1,2}", "[1:2]={1,2}", "f|t|f|f|t|t"),
    ("integer[]", "{}", "{}", "t|f|f|t|f|t"),
    ("integer[]", "{NULL}", "{NULL}", "t|f|f|t|f|t"),
    ("integer[]", "{1}", "{}", "f|t|f|f|t|t"),
    ("integer[]", "{-1}", "{NULL}", "f|t|t|t|f|f"),
    ("text[]", "{a,b}", "{a,c}", "f|t|t|t|f|f"),
    ("text[]", "{b}", "{a,z}", "f|t|f|f|t|t"),
    ("text[]", "{\"a \"}", "{a}", "f|t|f|f|t|t"),
    ("character(3)[]", "{a}", "{\"a \"}", "t|f|f|t|f|t"),
    ("numeric[]", "{1.0}", "{1}", "t|f|f|t|f|t"),
    ("double precision[]", "{NaN}", "{NaN}", "t|f|f|t|f|t"),
    ("double precision[]", "{NaN}", "{Infinity}", "f|t|f|f|t|t"),
];

/// (function, array argument, further SQL arguments, PostgreSQL 15's result).
const FUNCS: &[(&str, &str, &str, &str)] = &[
    ("array_length", "integer[]:{}", "1", "<NULL>"),
    ("array_length", "integer[]:{1,2}", "1", "2"),
    ("array_length", "integer[]:{1,2}", "2", "<NULL>"),
    ("array_length", "integer[]:{1,2}", "0", "<NULL>"),
    ("array_length", "integer[]:[5:7]={1,NULL,3}", "1", "3"),
    ("cardinality", "integer[]:{}", "", "0"),
    ("cardinality", "integer[]:{1,NULL}", "", "2"),
    ("array_lower", "integer[]:[3:4]={1,2}", "1", "3"),
    ("array_upper", "integer[]:[3:4]={1,2}", "1", "4"),
    ("array_upper", "integer[]:{}", "1", "<NULL>"),
    ("array_lower", "integer[]:{1}", "2", "<NULL>"),
    ("array_ndims", "integer[]:{}", "", "<NULL>"),
    ("array_ndims", "integer[]:{1}", "", "1"),
    ("array_dims", "integer[]:[3:4]={1,2}", "", "[3:4]"),
    ("array_dims", "integer[]:{}", "", "<NULL>"),
    ("array_dims", "text[]:{a}", "", "[1:1]"),
    ("array_to_string", "integer[]:{1,NULL,3}", "','", "1,3"),
    ("array_to_string", "integer[]:{1,NULL,3}", "',', '*'", "1,*,3"),
    ("array_to_string", "integer[]:{}", "','", ""),
    ("array_to_string", "text[]:{\"\",NULL,x}", "'-', ''", "--x"),
    ("array_to_string", "boolean[]:{t,f}", "' and '", "t and f"),
    ("array_to_string", "text[]:{\"a b\",\"c,d\"}", "', '", "a b, c,d"),
    ("array_to_string", "double precision[]:{1.5,NaN}", "''", "1.5NaN"),
    ("array_to_string", "character(2)[]:{a}", "'|'", "a "),
    ("array_position", "integer[]:{1,NULL,3,1}", "1", "1"),
    ("array_position", "integer[]:{1,NULL,3,1}", "NULL", "2"),
    ("array_position", "integer[]:{1,NULL,3,1}", "1, 2", "4"),
    ("array_position", "integer[]:[0:2]={5,6,7}", "7", "2"),
    ("array_position", "integer[]:{1}", "9", "<NULL>"),
    ("array_position", "integer[]:{1}", "1, NULL", "ERR:initial position must not be null"),
    ("array_position", "integer[]:[-5:-4]={1,1}", "1, -4", "-4"),
    ("array_position", "text[]:{a,b}", "'b'", "2"),
    ("array_position", "integer[]:{1,2}", "1, 5", "<NULL>"),
];

/// (type, input text, PostgreSQL 15's output or `ERR:SQLSTATE: message[ DETAIL: ...]`).
const IO: &[(&str, &str, &str)] = &[
    ("integer[]", "{1,2,NULL}", "{1,2,NULL}"),
    ("integer[]", "  {1,2", "ERR:22P02: malformed array literal: \"{1,2\" DETAIL: Unexpected end of input."),
    ("integer[]", "{1", "ERR:22P02: malformed array literal: \"{1\" DETAIL: Unexpected end of input."),
    ("integer[]", "{", "ERR:22P02: malformed array literal: \"{\" DETAIL: Unexpected end of input."),
    ("integer[]", "", "ERR:22P02: malformed array literal: \"\" DETAIL: Array value must start with \"{\" or dimension information."),
    ("integer[]", "1", "ERR:22P02: malformed array literal: \"1\" DETAIL: Array value must start with \"{\" or dimension information."),
    ("integer[]", "{}", "{}"),
    ("integer[]", "{ }", "{}"),
    ("integer[]", "{{}}", "ERR:22P02: malformed array literal: \"{{}}\" DETAIL: Unexpected \"}\" character."),
    ("integer[]", "{{1,2},{3}}", "ERR:22P02: malformed array literal: \"{{1,2},{3}}\" DETAIL: Multidimensional arrays must have sub-arrays with matching dimensions."),
    ("integer[]", "{{1},{1,2}}", "ERR:22P02: malformed array literal: \"{{1},{1,2}}\" DETAIL: Multidimensional arrays must have sub-arrays with matching dimensions."),
    // PostgreSQL: {{1,2},{3,4}}
    ("integer[]", "{{1,2},{3,4}}", "ERR:0A000: multidimensional arrays are not supported"),
    ("integer[]", "{1,}", "ERR:22P02: malformed array literal: \"{1,}\" DETAIL: Unexpected \"}\" character."),
    ("integer[]", "{,1}", "ERR:22P02: malformed array literal: \"{,1}\" DETAIL: Unexpected \",\" character."),
    ("integer[]", "{1}x", "ERR:22P02: malformed array literal: \"{1}x\" DETAIL: Junk after closing right brace."),
    ("integer[]", "{1} ", "{1}"),
    ("integer[]", "[0:1]={1,2}", "[0:1]={1,2}"),
    ("integer[]", "[1:2]={1}", "ERR:22P02: malformed array literal: \"[1:2]={1}\" DETAIL: Specified array dimensions do not match array contents."),
    ("integer[]", "[2:1]={}", "ERR:2202E: upper bound cannot be less than lower bound"),
    ("integer[]", "[1:1]", "ERR:22P02: malformed array literal: \"[1:1]\" DETAIL: Missing \"=\" after array dimensions."),
    ("integer[]", "[a]={1}", "ERR:22P02: malformed array literal: \"[a]={1}\" DETAIL: \"[\" must introduce explicitly-specified array dimensions."),
    ("integer[]", "[1:]={1}", "ERR:22P02: malformed array literal: \"[1:]={1}\" DETAIL: Missing array dimension value."),
    ("integer[]", "[1={1}", "ERR:22P02: malformed array literal: \"[1={1}\" DETAIL: Missing \"]\" after array dimensions."),
    ("integer[]", "[1]{1}", "ERR:22P02: malformed array literal: \"[1]{1}\" DETAIL: Missing \"=\" after array dimensions."),
    ("integer[]", "[1]=1", "ERR:22P02: malformed array literal: \"[1]=1\" DETAIL: Array contents must start with \"{\"."),
    ("integer[]", "{1}}", "ERR:22P02: malformed array literal: \"{1}}\" DETAIL: Junk after closing right brace."),
    ("integer[]", "{{1}", "ERR:22P02: malformed array literal: \"{{1}\" DETAIL: Unexpected end of input."),
    ("integer[]", "{1\\", "ERR:22P02: malformed array literal: \"{1\\\" DETAIL: Unexpected end of input."),
    ("integer[]", "{\"1}", "ERR:22P02: malformed array literal: \"{\"1}\" DETAIL: Unexpected end of input."),
    ("integer[]", "{\\\\1}", "ERR:22P02: invalid input syntax for type integer: \"\\1\""),
    ("integer[]", "{ 1 , 2 }", "{1,2}"),
    ("integer[]", "{x}", "ERR:22P02: invalid input syntax for type integer: \"x\""),
    ("integer[]", "{null,NULL,\"NULL\",Null}", "ERR:22P02: invalid input syntax for type integer: \"NULL\""),
    ("integer[]", "{NULL,nUlL}", "{NULL,NULL}"),
    ("integer[]", "{{{{{{{1}}}}}}}", "ERR:54000: number of array dimensions (7) exceeds the maximum allowed (6)"),
    ("integer[]", "[-2147483648:2147483647]={1}", "ERR:22P02: malformed array literal: \"[-2147483648:2147483647]={1}\" DETAIL: Specified array dimensions do not match array contents."),
    ("integer[]", "[2147483647:2147483647]={1}", "ERR:54000: array lower bound is too large: 2147483647"),
    ("integer[]", "[2147483646:2147483646]={1}", "[2147483646:2147483646]={1}"),
    ("integer[]", " [1:2] = {1,2}", "{1,2}"),
    ("integer[]", "[1][1][1][1][1][1][1]={1}", "ERR:54000: number of array dimensions (7) exceeds the maximum allowed (6)"),
    ("integer[]", "[1:2][1:2]={{1}}", "ERR:22P02: malformed array literal: \"[1:2][1:2]={{1}}\" DETAIL: Specified array dimensions do not match array contents."),
    ("integer[]", "[1:1]={{1}}", "ERR:22P02: malformed array literal: \"[1:1]={{1}}\" DETAIL: Specified array dimensions do not match array contents."),
    ("integer[]", "[1:2]={}", "ERR:22P02: malformed array literal: \"[1:2]={}\" DETAIL: Specified array dimensions do not match array contents."),
    ("integer[]", "[0]={}", "ERR:2202E: upper bound cannot be less than lower bound"),
    ("integer[]", "[+1:+1]={1}", "{1}"),
    ("integer[]", "[1-2:1]={1}", "{1}"),
    ("integer[]", "[99999999999:99999999999]={1}", "[1215752191:1215752191]={1}"),
    ("integer[]", "[-1:-1]={7}", "[-1:-1]={7}"),
    ("integer[]", "[-3:-2]={7,8}", "[-3:-2]={7,8}"),
    ("integer[]", "{{1}{2}}", "ERR:22P02: malformed array literal: \"{{1}{2}}\" DETAIL: Unexpected \"{\" character."),
    ("integer[]", "{{1},,{2}}", "ERR:22P02: malformed array literal: \"{{1},,{2}}\" DETAIL: Unexpected \",\" character."),
    ("integer[]", " { 1 } ", "{1}"),
    ("integer[]", "{1,2147483648}", "ERR:22003: value \"2147483648\" is out of range for type integer"),
    ("integer[]", "{\"\"}", "ERR:22P02: invalid input syntax for type integer: \"\""),
    ("integer[]", "{\" 1 \"}", "{1}"),
    ("integer[]", "{+1,-0, 3 }", "{1,0,3}"),
    ("integer[]", "{1 2}", "ERR:22P02: invalid input syntax for type integer: \"1 2\""),
    ("integer[]", "[1:1]=   {1}", "{1}"),
    ("integer[]", "[1:1]  ={1}", "{1}"),
    // PostgreSQL: {{1},{2}}
    ("integer[]", "{{1},{2}}", "ERR:0A000: multidimensional arrays are not supported"),
    // PostgreSQL: {{1}}
    ("integer[]", "[1:1][1:1]={{1}}", "ERR:0A000: multidimensional arrays are not supported"),
    ("integer[]", "{\"a\"b}", "ERR:22P02: malformed array literal: \"{\"a\"b}\" DETAIL: Unexpected array element."),
    ("integer[]", "{a\"b\"}", "ERR:22P02: malformed array literal: \"{a\"b\"}\" DETAIL: Unexpected array element."),
    ("integer[]", "{}}", "ERR:22P02: malformed array literal: \"{}}\" DETAIL: Junk after closing right brace."),
    ("integer[]", "{}x", "ERR:22P02: malformed array literal: \"{}x\" DETAIL: Junk after closing right brace."),
    ("integer[]", "{\\}", "ERR:22P02: malformed array literal: \"{\\}\" DETAIL: Unexpected end of input."),
    ("integer[]", "{\"\\\"}", "ERR:22P02: malformed array literal: \"{\"\\\"}\" DETAIL: Unexpected end of input."),
    ("text[]", "{a,\"b c\",NULL}", "{a,\"b c\",NULL}"),
    ("text[]", "{\"\",a}", "{\"\",a}"),
    ("text[]", "{\"NULL\",null}", "{\"NULL\",NULL}"),
    ("text[]", "{\" a \",b}", "{\" a \",b}"),
    ("text[]", "{ a b , c }", "{\"a b\",c}"),
    ("text[]", "{a\\,b}", "{\"a,b\"}"),
    ("text[]", "{a\\\"b}", "{\"a\\\"b\"}"),
    ("text[]", "{\"a\\\\b\"}", "{\"a\\\\b\"}"),
    ("text[]", "{\\ a\\ }", "{\" a \"}"),
    ("text[]", "{\"{}\"}", "{\"{}\"}"),
    ("text[]", "{x{y}", "ERR:22P02: malformed array literal: \"{x{y}\" DETAIL: Unexpected \"{\" character."),
    ("text[]", "{x}y}", "ERR:22P02: malformed array literal: \"{x}y}\" DETAIL: Junk after closing right brace."),
    ("text[]", "{\"a,b\"}", "{\"a,b\"}"),
    ("text[]", "{a b\\ }", "{\"a b \"}"),
    ("text[]", "{\"\\a\"}", "{a}"),
    ("text[]", "{é,ü ö}", "{é,\"ü ö\"}"),
    ("text[]", "{\"\t\"}", "{\"\t\"}"),
    ("text[]", "{nULl}", "{NULL}"),
    ("text[]", "{NULLx}", "{NULLx}"),
    ("text[]", "{\"\",\"\"}", "{\"\",\"\"}"),
    ("text[]", "{\"\",NULL}", "{\"\",NULL}"),
    ("text[]", "{a\tb}", "{\"a\tb\"}"),
    ("text[]", "{a,,b}", "ERR:22P02: malformed array literal: \"{a,,b}\" DETAIL: Unexpected \",\" character."),
    ("text[]", "{  }", "{}"),
    ("text[]", "{\"\" }", "{\"\"}"),
    ("text[]", "{\\{}", "{\"{\"}"),
    ("text[]", "{\"a\"  ,  \"b\"}", "{a,b}"),
    ("text[]", "{ \"a\" }", "{a}"),
    ("text[]", "{a}   ", "{a}"),
    ("text[]", "\t{a}", "{a}"),
    ("text[]", "{a,b}x ", "ERR:22P02: malformed array literal: \"{a,b}x \" DETAIL: Junk after closing right brace."),
    // PostgreSQL: {{a},{b}}
    ("text[]", "{{a},{b}}", "ERR:0A000: multidimensional arrays are not supported"),
    ("text[]", "{{a},b}", "ERR:22P02: malformed array literal: \"{{a},b}\" DETAIL: Unexpected array element."),
    ("text[]", "{a,{b}}", "ERR:22P02: malformed array literal: \"{a,{b}}\" DETAIL: Unexpected \"{\" character."),
    ("text[]", "{\"a\"{}", "ERR:22P02: malformed array literal: \"{\"a\"{}\" DETAIL: Unexpected \"{\" character."),
    ("text[]", "{a\"}", "ERR:22P02: malformed array literal: \"{a\"}\" DETAIL: Unexpected array element."),
    // PostgreSQL: {{1}}
    ("text[]", "{ {1}}", "ERR:0A000: multidimensional arrays are not supported"),
    ("text[]", "{\\\"}", "{\"\\\"\"}"),
    ("text[]", "{\"\\\"}", "ERR:22P02: malformed array literal: \"{\"\\\"}\" DETAIL: Unexpected end of input."),
    ("text[]", "{\"x\\\"y\\\\z\"}", "{\"x\\\"y\\\\z\"}"),
    ("text[]", "{a\nb}", "{\"a\nb\"}"),
    ("text[]", "{\"a\nb\"}", "{\"a\nb\"}"),
    ("text[]", "{\\NULL}", "{\"NULL\"}"),
    ("text[]", "{\"NULL\"}", "{\"NULL\"}"),
    ("text[]", "{ NULL }", "{NULL}"),
    ("text[]", "{\\ }", "{\" \"}"),
    ("text[]", "{ \\ }", "{\" \"}"),
    ("text[]", "{\"}\"}", "{\"}\"}"),
    ("text[]", "{\"\\\"}", "ERR:22P02: malformed array literal: \"{\"\\\"}\" DETAIL: Unexpected end of input."),
    ("text[]", "[0:0]={\"\"}", "[0:0]={\"\"}"),
    ("text[]", "{a b  c  }", "{\"a b  c\"}"),
    ("text[]", "{\\,}", "{\",\"}"),
    ("text[]", "{ \"a\" b}", "ERR:22P02: malformed array literal: \"{ \"a\" b}\" DETAIL: Unexpected array element."),
    ("text[]", "{a  , b}", "{a,b}"),
    ("text[]", "{}  ", "{}"),
    ("text[]", "{\"a\"\\b}", "ERR:22P02: malformed array literal: \"{\"a\"\\b}\" DETAIL: Unexpected \"\\\" character."),
    ("smallint[]", "{1,70000}", "ERR:22003: value \"70000\" is out of range for type smallint"),
    ("smallint[]", "{-32768,32767}", "{-32768,32767}"),
    ("bigint[]", "{1,9223372036854775807}", "{1,9223372036854775807}"),
    ("bigint[]", "{9223372036854775808}", "ERR:22003: value \"9223372036854775808\" is out of range for type bigint"),
    ("double precision[]", "{1.5,NaN,Infinity,-Infinity,1e300}", "{1.5,NaN,Infinity,-Infinity,1e+300}"),
    ("double precision[]", "{0.1, -0}", "{0.1,-0}"),
    ("real[]", "{1.5,NaN,1e-5}", "{1.5,NaN,1e-05}"),
    ("numeric[]", "{1.50,NaN,-Infinity}", "{1.50,NaN,-Infinity}"),
    ("numeric[]", "{abc}", "ERR:22P02: invalid input syntax for type numeric: \"abc\""),
    ("numeric(3,1)[]", "{1.234, 5}", "{1.2,5.0}"),
    ("numeric(3,1)[]", "{123}", "ERR:22003: numeric field overflow DETAIL: A field with precision 3, scale 1 must round to an absolute value less than 10^2."),
    ("character varying(2)[]", "{abc,d}", "{ab,d}"),
    ("character varying(2)[]", "{ab,NULL}", "{ab,NULL}"),
    ("character(2)[]", "{abc,d}", "{ab,\"d \"}"),
    ("character(3)[]", "{a}", "{\"a  \"}"),
    ("boolean[]", "{t,false,yes,NULL}", "{t,f,t,NULL}"),
    ("boolean[]", "{maybe}", "ERR:22P02: invalid input syntax for type boolean: \"maybe\""),
    ("bytea[]", "{\"\\\\x0102\",abc}", "{\"\\\\x0102\",\"\\\\x616263\"}"),
    ("jsonb[]", "{\"{\\\"a\\\": 1}\",null,\"[1, 2]\"}", "{\"{\\\"a\\\": 1}\",NULL,\"[1, 2]\"}"),
    ("jsonb[]", "{\"{\"}", "ERR:22P02: invalid input syntax for type json DETAIL: The input string ended unexpectedly."),
    ("interval[]", "{\"1 day\",P1Y}", "{\"1 day\",\"1 year\"}"),
    ("date[]", "{2024-01-01,infinity}", "{2024-01-01,infinity}"),
    ("date[]", "{2024-02-30}", "ERR:22008: date/time field value out of range: \"2024-02-30\""),
    ("timestamp without time zone[]", "{\"2024-01-01 10:00\"}", "{\"2024-01-01 10:00:00\"}"),
    ("timestamp(2) without time zone[]", "{\"2024-01-01 10:00:00.123456789\"}", "{\"2024-01-01 10:00:00.12\"}"),
    ("timestamp with time zone[]", "{\"2024-01-01 10:00+02\"}", "{\"2024-01-01 08:00:00+00\"}"),
    ("time without time zone[]", "{10:00}", "{10:00:00}"),
    ("uuid[]", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}"),
    ("name[]", "{pg_class,\"x y\"}", "{pg_class,\"x y\"}"),
    ("oid[]", "{1,4294967295,-1}", "{1,4294967295,4294967295}"),
    ("oid[]", "{4294967296}", "ERR:22003: value \"4294967296\" is out of range for type oid"),
];
