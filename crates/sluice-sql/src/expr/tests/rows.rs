//! Rows as values over the one-row table `t`: row comparison with
//! PostgreSQL's RowCompareExpr semantics, whole-row references and field
//! selection, composite output, and json's field access. Expected values,
//! messages and positions are PostgreSQL 15's (positions count from the
//! `SELECT ` of `SELECT <expr> FROM t`).

use sluice_types::SqlType;

use super::{run, show};
use crate::expr::Expr;

/// Evaluate and print.
fn value(expr: &str) -> String {
    match run(expr) {
        Ok((_, v)) => show(&v),
        Err(e) => panic!("{expr}: {} {}", e.code, e.message),
    }
}

#[test]
fn row_comparison_decides_at_the_first_unequal_pair() {
    for (expr, want) in [
        ("(i, x) < (42, 'hell')", "f"),
        ("(i, x) < (42, 'hey')", "t"),
        ("(i, x) <= (42, 'hello')", "t"),
        ("(i, x) > (42, 'hello')", "f"),
        ("(i, x) >= (41, 'zzz')", "t"),
        // A NULL before the deciding pair makes the result NULL ...
        ("(i, nu, x) < (42, 1, 'z')", "<null>"),
        // ... but not after it.
        ("(i, nu) < (43, 1)", "t"),
        // = ANDs the pairs, <> ORs them.
        ("(i, nu) = (41, 1)", "f"),
        ("(i, nu) = (42, 1)", "<null>"),
        ("(i, nu) <> (41, 1)", "t"),
        ("(i, x) <> (42, 'hello')", "f"),
        // Pairs of different types use the cross-type operators.
        ("(s, b, d) < (7, 9000000001, ts)", "t"),
        ("(c, tz) = ('ab   ', d)", "f"),
        ("ROW(i) = ROW(42)", "t"),
    ] {
        assert_eq!(value(expr), want, "{expr}");
    }
    let (e, _) = run("(i, x) < (1, 'a')").unwrap();
    assert!(matches!(e, Expr::RowCompare { .. }), "{e:?}");
    let (e, _) = run("(i, x) = (1, 'a')").unwrap();
    assert!(matches!(e, Expr::Bool { .. }), "{e:?}");
}

#[test]
fn row_comparison_errors() {
    for (expr, code, position, message) in [
        ("(i, x) < (1, 2, 3)", "42601", Some(15), "unequal number of entries in row expressions"),
        ("ROW() = ROW()", "0A000", Some(14), "cannot compare rows of zero length"),
        (
            "(x, v) ~~ ('a', 'b')",
            "0A000",
            Some(15),
            "could not determine interpretation of row comparison operator ~~",
        ),
        ("(i, x) < (1, 2)", "42883", Some(15), "operator does not exist: text < integer"),
        ("(i, x) < (1, j)", "42883", Some(15), "operator does not exist: text < jsonb"),
    ] {
        let err = run(expr).map(|(_, v)| show(&v)).unwrap_err();
        assert_eq!((err.code, err.position, err.message.as_str()), (code, position, message));
    }
}

#[test]
fn whole_rows_and_fields() {
    assert_eq!(value("ROW(i, x, nu, c, '')"), r#"(42,hello,,"ab   ","")"#);
    assert_eq!(value("(ROW(i, x)).f2"), "hello");
    assert_eq!(value("(t).x"), "hello");
    assert_eq!(value("(t.*).i + 1"), "43");
    let (e, _) = run("t").unwrap();
    let SqlType::Record(rt) = e.ty() else { panic!("{e:?}") };
    assert_eq!(rt.fields().len(), 21);
    assert_eq!((rt.fields()[3].name.as_str(), rt.fields()[3].typmod), ("n", 655_366));
    assert_eq!(e.ty().oid(), 2249);
    assert_eq!(value("ROW(NULL, NULL) IS NULL"), "t");
    assert_eq!(value("ROW(i, nu) IS NULL"), "f");
    assert_eq!(value("ROW(i, nu) IS NOT NULL"), "f");
    for (expr, code, message) in [
        ("(ROW(1, 2)).f3", "42703", "could not identify column \"f3\" in record data type"),
        (
            "(i).x",
            "42809",
            "column notation .x applied to type integer, which is not a composite type",
        ),
        ("(t).*", "0A000", "row expansion via \"*\" is not supported here"),
        ("nosuch", "42703", "column \"nosuch\" does not exist"),
    ] {
        let err = run(expr).map(|(_, v)| show(&v)).unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (code, message), "{expr}");
    }
}

#[test]
fn json_keeps_its_text_and_has_field_access() {
    assert_eq!(value(r#"'{"a" :  [1,2], "a": 3}'::json"#), r#"{"a" :  [1,2], "a": 3}"#);
    assert_eq!(value(r#"'{"a" :  [1,  2]}'::json -> 'a'"#), "[1,  2]");
    assert_eq!(value(r#"'{"a": {"b": "x\"y"}}'::json -> 'a' ->> 'b'"#), "x\"y");
    assert_eq!(value(r#"'[1, 2]'::json ->> -1"#), "2");
    assert_eq!(value(r#"'{"b": 1, "a": 2}'::json::jsonb"#), r#"{"a": 2, "b": 1}"#);
    assert_eq!(value(r#"j::json -> 'b'"#), r#"[1, 2, "x"]"#);
    let (e, _) = run(r#"'[1]'::json -> 0"#).unwrap();
    assert_eq!((e.ty(), e.ty().oid()), (SqlType::Json, 114));
    let err = run("'{\"a\" 1}'::json").map(|(_, v)| show(&v)).unwrap_err();
    assert_eq!((err.code, err.message.as_str()), ("22P02", "invalid input syntax for type json"));
    assert_eq!(err.detail.as_deref(), Some("Expected \":\", but found \"1\"."));
    let err = run("'1'::json = '1'::json").map(|(_, v)| show(&v)).unwrap_err();
    assert_eq!(err.message, "operator does not exist: json = json");
}
