//! Aggregate results against PostgreSQL 15 (values from psql over the same
//! inputs, e.g. `select avg(g) from generate_series(1, 1000000) g`).

use crate::agg::{AggKind, AggState};
use crate::types::SqlType;
use crate::{io, Context, Datum};

/// Run one aggregate over `values` and print its result (`""` for NULL).
fn run(kind: AggKind, ty: SqlType, values: impl IntoIterator<Item = Datum>) -> String {
    let mut st = AggState::new(kind, ty).expect("aggregate exists");
    let result = values.into_iter().try_for_each(|v| st.advance(&v)).and_then(|()| st.finish());
    match result {
        Ok(d) => io::output(&d, &Context::default()).unwrap_or_default(),
        Err(e) => format!("ERR:{}: {}", e.sqlstate(), e.message),
    }
}

/// 1..=1_000_000 as the given datum constructor.
fn series<F: Fn(i64) -> Datum>(f: F) -> impl Iterator<Item = Datum> {
    (1..=1_000_000).map(f)
}

#[test]
fn integer_aggregates_over_a_million_rows() {
    let int4 = |v: i64| Datum::Int4(v as i32);
    assert_eq!(run(AggKind::Avg, SqlType::Int4, series(int4)), "500000.500000000000");
    assert_eq!(run(AggKind::Sum, SqlType::Int4, series(int4)), "500000500000");
    assert_eq!(run(AggKind::Sum, SqlType::Int8, series(Datum::Int8)), "500000500000");
    assert_eq!(run(AggKind::Count, SqlType::Int4, series(int4)), "1000000");
    assert_eq!(run(AggKind::Min, SqlType::Int4, series(int4)), "1");
    assert_eq!(run(AggKind::Max, SqlType::Int4, series(int4)), "1000000");
}

#[test]
fn float_aggregates_follow_postgres_precision() {
    let f4 = |v: i64| Datum::Float4(v as f32);
    let f8 = |v: i64| Datum::Float8(v as f64);
    assert_eq!(run(AggKind::Sum, SqlType::Float8, series(f8)), "500000500000");
    assert_eq!(run(AggKind::Avg, SqlType::Float4, series(f4)), "500000.5");
    // sum(real) accumulates in single precision, so it is inexact, like PostgreSQL.
    assert_eq!(run(AggKind::Sum, SqlType::Float4, series(f4)), "4.9994138e+11");
    let big = [Datum::Float8(1e308), Datum::Float8(1e308)];
    assert_eq!(run(AggKind::Sum, SqlType::Float8, big), "ERR:22003: value out of range: overflow");
}

#[test]
fn numeric_and_small_aggregates() {
    let num = |s: &str| Datum::Numeric(crate::numeric::parse(s, -1).unwrap());
    assert_eq!(
        run(AggKind::Avg, SqlType::Numeric, [num("1.5"), num("2.25"), Datum::Null]),
        "1.8750000000000000"
    );
    assert_eq!(run(AggKind::Sum, SqlType::Numeric, [num("1.5"), num("2.25"), Datum::Null]), "3.75");
    assert_eq!(
        run(AggKind::Sum, SqlType::Int4, [Datum::Int4(i32::MAX), Datum::Int4(1)]),
        "2147483648"
    );
    assert_eq!(
        run(AggKind::Avg, SqlType::Int4, [Datum::Int4(i32::MAX), Datum::Int4(1)]),
        "1073741824.00000000"
    );
    assert_eq!(
        run(AggKind::Sum, SqlType::Int8, [Datum::Int8(i64::MAX), Datum::Int8(i64::MAX)]),
        "18446744073709551614"
    );
    assert_eq!(
        run(AggKind::Avg, SqlType::Int2, [Datum::Int2(1), Datum::Int2(2)]),
        "1.5000000000000000"
    );
    let iv = |s: &str| Datum::Interval(crate::datetime::interval::parse(s).unwrap());
    assert_eq!(run(AggKind::Avg, SqlType::Interval, [iv("1 day"), iv("2 hours")]), "13:00:00");
    assert_eq!(
        run(AggKind::Sum, SqlType::Interval, [iv("1 day"), iv("2 hours")]),
        "1 day 02:00:00"
    );
    for kind in [AggKind::Sum, AggKind::Avg, AggKind::Min] {
        assert_eq!(run(kind, SqlType::Int4, [Datum::Null]), "");
    }
    assert_eq!(run(AggKind::Count, SqlType::Int4, [Datum::Null]), "0");
    assert_eq!(run(AggKind::CountStar, SqlType::Int4, [Datum::Null, Datum::Null]), "2");
    let text = |s: &str| Datum::Text(s.into());
    assert_eq!(run(AggKind::Max, SqlType::Text, [text("999999"), text("1000000")]), "999999");
    let err = AggState::new(AggKind::Sum, SqlType::Text).unwrap_err();
    assert_eq!(
        (err.sqlstate(), err.message.as_str()),
        ("42883", "function sum(text) does not exist")
    );
}

#[test]
fn array_agg_keeps_nulls_and_order() {
    let text = |s: &str| Datum::Text(s.into());
    // `select array_agg(x) from (values ('b'), (null), ('a b')) v(x)` in PostgreSQL 15.
    assert_eq!(
        run(AggKind::ArrayAgg, SqlType::Text, [text("b"), Datum::Null, text("a b")]),
        "{b,NULL,\"a b\"}"
    );
    assert_eq!(run(AggKind::ArrayAgg, SqlType::Int4, [Datum::Null]), "{NULL}");
    assert_eq!(run(AggKind::ArrayAgg, SqlType::Int4, []), "");
    let st = AggState::new(AggKind::ArrayAgg, SqlType::Int8).unwrap();
    assert_eq!(st.result_type(), SqlType::array_of(SqlType::Int8).unwrap());
    let nested = AggState::new(AggKind::ArrayAgg, st.result_type()).unwrap_err();
    assert_eq!(nested.sqlstate(), "0A000");
    let unknown = AggState::new(AggKind::ArrayAgg, SqlType::Unknown).unwrap_err();
    assert_eq!(unknown.message, "function array_agg(unknown) does not exist");
}
