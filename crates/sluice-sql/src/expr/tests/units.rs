//! Aggregates, parameters, subqueries, session functions and evaluation
//! rules that the one-row golden files cannot show. Expected messages and
//! positions are PostgreSQL 15's.

use sluice_types::{AggKind, Datum, SqlType};

use super::{analyze_expr, row, run, show, TestHost};
use crate::expr::{eval, Expr, SessionFunction, SubLinkKind};
use crate::SqlError;

/// Analyze with a fresh host and return the error.
fn error(expr: &str) -> SqlError {
    let mut host = TestHost::new();
    match analyze_expr(expr, &mut host) {
        Ok(e) => match eval(&e, &row(), &mut host) {
            Ok(v) => panic!("{expr} gave {}", show(&v)),
            Err(err) => err,
        },
        Err(err) => err,
    }
}

/// Evaluate and print.
fn value(expr: &str) -> String {
    match run(expr) {
        Ok((_, v)) => show(&v),
        Err(e) => panic!("{expr}: {} {}", e.code, e.message),
    }
}

#[test]
fn aggregates_are_reported_to_the_host() {
    let mut host = TestHost::new();
    let e = analyze_expr("count(*)", &mut host).unwrap();
    assert!(matches!(e, Expr::AggRef { index: 0, ty: SqlType::Int8, .. }));
    assert!(matches!(host.aggregates[0], (AggKind::CountStar, None, false, _)));
    assert_eq!(show(&eval(&e, &row(), &mut host).unwrap()), "7");

    let e = analyze_expr("count(DISTINCT x) + sum(s)", &mut host).unwrap();
    assert_eq!(e.ty(), SqlType::Int8);
    let (kind, arg, distinct, _) = &host.aggregates[1];
    assert_eq!((*kind, *distinct), (AggKind::Count, true));
    assert!(matches!(arg, Some(Expr::Column { index: 6, .. })));
    assert!(matches!(
        host.aggregates[2],
        (AggKind::Sum, Some(Expr::Column { index: 2, .. }), false, _)
    ));
    assert_eq!(show(&eval(&e, &row(), &mut host).unwrap()), "14");

    // max(varchar) is max(text): the argument is coerced, the result is text.
    let e = analyze_expr("max(v)", &mut host).unwrap();
    assert_eq!(e.ty(), SqlType::Text);
    assert_eq!(host.aggregates[3].1.as_ref().map(Expr::ty), Some(SqlType::Text));
    for (expr, ty) in [
        ("avg(i)", SqlType::Numeric),
        ("sum(b)", SqlType::Numeric),
        ("sum(r)", SqlType::Float4),
        ("avg(iv)", SqlType::Interval),
        ("min(c)", SqlType::Bpchar),
        ("max('a')", SqlType::Text),
    ] {
        assert_eq!(analyze_expr(expr, &mut host).unwrap().ty(), ty, "{expr}");
    }
}

#[test]
fn aggregate_errors() {
    let cases = [
        ("count(sum(i))", "42803", Some(14), "aggregate function calls cannot be nested"),
        ("sum(x)", "42883", Some(8), "function sum(text) does not exist"),
        ("sum('1')", "42725", Some(8), "function sum(unknown) is not unique"),
        ("sum(*)", "42883", Some(8), "function sum() does not exist"),
        ("min(u)", "42883", Some(8), "function min(uuid) does not exist"),
        (
            "count(i) FILTER (WHERE i)",
            "42804",
            Some(31),
            "argument of FILTER must be type boolean, not type integer",
        ),
        (
            "count(DISTINCT i ORDER BY i + 1)",
            "42P10",
            Some(34),
            "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
        ),
        ("sum(i) OVER ()", "0A000", Some(8), "window functions are not supported"),
        ("stddev(i)", "0A000", Some(8), "function stddev is not supported"),
    ];
    for (expr, code, position, message) in cases {
        let e = error(expr);
        assert_eq!((e.code, e.position, e.message.as_str()), (code, position, message), "{expr}");
    }
    let mut host = TestHost { no_aggregates: true, ..TestHost::new() };
    let e = analyze_expr("1 + sum(i)", &mut host).unwrap_err();
    assert_eq!((e.code, e.position), ("42803", Some(12)));
}

#[test]
fn parameter_types_are_inferred() {
    let mut host = TestHost::new();
    let e = analyze_expr("i = $1", &mut host).unwrap();
    assert_eq!(host.params, vec![Some(SqlType::Int4)]);
    host.values = vec![Datum::Int4(42)];
    assert_eq!(show(&eval(&e, &row(), &mut host).unwrap()), "t");

    // Later occurrences see the inferred type.
    let e = analyze_expr("$1 + 1.5", &mut host).unwrap();
    assert_eq!(e.ty(), SqlType::Numeric);

    let mut host = TestHost::new();
    analyze_expr("x LIKE $2 AND $1::int8 > 0 AND d > $3", &mut host).unwrap();
    let want = vec![Some(SqlType::Int8), Some(SqlType::Text), Some(SqlType::Date)];
    assert_eq!(host.params, want);

    let mut host = TestHost::new();
    analyze_expr("i IN ($1, $2)", &mut host).unwrap();
    assert_eq!(host.params, vec![Some(SqlType::Int4), Some(SqlType::Int4)]);

    // A preset type is used as is: int4 = int8 is a cross-type operator.
    let mut host = TestHost { params: vec![Some(SqlType::Int8)], ..TestHost::new() };
    host.values = vec![Datum::Int8(42)];
    let e = analyze_expr("i = $1", &mut host).unwrap();
    assert_eq!(show(&eval(&e, &row(), &mut host).unwrap()), "t");

    let e = error("$1 + $2");
    assert_eq!((e.code, e.position), ("42725", Some(11)));
    assert_eq!(e.message, "operator is not unique: unknown + unknown");
    assert_eq!(
        e.hint.as_deref(),
        Some("Could not choose a best candidate operator. You might need to add explicit type casts.")
    );
    let e = error("$0");
    assert_eq!(
        (e.code, e.position, e.message.as_str()),
        ("42P02", Some(8), "there is no parameter $0")
    );

    // An untyped parameter in the select list resolves to text; in WHERE, to bool.
    let mut host = TestHost::new();
    assert_eq!(analyze_expr("$1", &mut host).unwrap().ty(), SqlType::Text);
    assert_eq!(host.params, vec![Some(SqlType::Text)]);
    let mut host = TestHost::new();
    let node = super::first_target("SELECT $1").unwrap();
    let e = crate::expr::analyze(&node, &super::scope(), &mut host).unwrap();
    assert!(crate::expr::check_boolean_with(&mut host, e, "WHERE").is_ok());
    assert_eq!(host.params, vec![Some(SqlType::Bool)]);
}

#[test]
fn hints_name_the_way_out() {
    let cases = [
        ("i + x", "No operator matches the given name and argument types. You might need to add explicit type casts."),
        ("-x", "No operator matches the given name and argument type. You might need to add an explicit type cast."),
        ("foo(1)", "No function matches the given name and argument types. You might need to add explicit type casts."),
        ("pg_size_pretty(1)", "Could not choose a best candidate function. You might need to add explicit type casts."),
        ("'a' LIKE 'b' ESCAPE 'cd'", "Escape string must be empty or one character."),
    ];
    for (expr, hint) in cases {
        assert_eq!(error(expr).hint.as_deref(), Some(hint), "{expr}");
    }
}

#[test]
fn subqueries_go_through_the_host() {
    assert_eq!(value("(SELECT 1) + 1"), "6");
    assert_eq!(value("EXISTS (SELECT 1)"), "t");
    let mut host = TestHost::new();
    let e = analyze_expr("i IN (SELECT 1)", &mut host).unwrap();
    match e {
        Expr::SubLink { kind: SubLinkKind::Any { operator }, ty: SqlType::Bool, .. } => {
            assert_eq!(operator, "=")
        }
        other => panic!("{other:?}"),
    }
    let e = analyze_expr("i < ALL (SELECT 1)", &mut host).unwrap();
    assert!(
        matches!(e, Expr::SubLink { kind: SubLinkKind::All { ref operator }, .. } if operator == "<")
    );
    let e = error("x IN (SELECT 1)");
    assert_eq!((e.code, e.position), ("0A000", Some(10)));
}

#[test]
fn session_functions_go_through_the_host() {
    let mut host = TestHost::new();
    let e = analyze_expr("current_user", &mut host).unwrap();
    assert!(matches!(e, Expr::Call { ty: SqlType::Name, .. }));
    assert_eq!(value("current_user"), "postgres");
    assert_eq!(value("version()"), "Version");
    assert_eq!(value("current_setting('work_mem')"), "CurrentSetting");
    // regclass arguments: names as text, OIDs as oid.
    assert_eq!(value("pg_relation_size('t')"), "8192");
    assert_eq!(value("pg_relation_size('t', 'main')"), "16384");
    for expr in ["pg_relation_size('t')", "pg_total_relation_size(x)", "pg_table_size(16384)"] {
        let e = analyze_expr(expr, &mut host).unwrap();
        let Expr::Call { func: crate::expr::Builtin::Session(_), args, ty: SqlType::Int8, .. } = e
        else {
            panic!("{expr}: {e:?}");
        };
        assert!(matches!(args[0].ty(), SqlType::Text | SqlType::Oid), "{expr}");
    }
    let e = error("pg_relation_size(true)");
    assert_eq!(e.message, "function pg_relation_size(boolean) does not exist");
    let e = analyze_expr("pg_sleep(1)", &mut host).unwrap();
    assert!(matches!(
        e,
        Expr::Call { func: crate::expr::Builtin::Session(SessionFunction::PgSleep), .. }
    ));
}

#[test]
fn current_time_functions_read_the_context() {
    assert_eq!(value("now()"), "2024-06-01 12:00:00+00");
    assert_eq!(value("current_timestamp"), "2024-06-01 12:00:00+00");
    assert_eq!(value("current_date"), "2024-06-01");
    assert_eq!(value("localtimestamp"), "2024-06-01 12:00:00");
    assert_eq!(value("localtime"), "12:00:00");
    assert_eq!(value("age(timestamp '2024-05-01')"), "1 mon");
    let (e, _) = run("current_timestamp(2)").unwrap();
    assert_eq!((e.ty(), e.typmod()), (SqlType::TimestampTz, 2));
    assert_eq!(error("current_time").code, "0A000");
}

#[test]
fn three_valued_logic() {
    let values = [("true", Some(true)), ("false", Some(false)), ("NULL::bool", None)];
    let show3 = |v: Option<bool>| match v {
        Some(true) => "t",
        Some(false) => "f",
        None => "<null>",
    };
    for (a, va) in values {
        assert_eq!(value(&format!("NOT {a}")), show3(va.map(|x| !x)));
        for (b, vb) in values {
            let and = match (va, vb) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
            let or = match (va, vb) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            };
            assert_eq!(value(&format!("{a} AND {b}")), show3(and), "{a} AND {b}");
            assert_eq!(value(&format!("{a} OR {b}")), show3(or), "{a} OR {b}");
        }
    }
}

#[test]
fn evaluation_is_lazy_where_postgres_is() {
    // CASE, COALESCE and AND/OR do not evaluate what they do not need.
    assert_eq!(value("CASE WHEN i = 42 THEN 0 ELSE 1 / 0 END"), "0");
    assert_eq!(value("COALESCE(i, 1 / 0)"), "42");
    assert_eq!(value("i = 42 OR 1 / 0 = 1"), "t");
    assert_eq!(value("CASE i WHEN 42 THEN 'x' WHEN 1 / 0 THEN 'y' END"), "x");
    // IN lists build their whole list first.
    assert_eq!(error("i IN (42, 1 / 0)").code, "22012");
    // Division by zero is an evaluation error, never an analysis error.
    let mut host = TestHost::new();
    assert!(analyze_expr("1 / 0", &mut host).is_ok());
}

#[test]
fn in_lists_and_nested_case() {
    let mut host = TestHost::new();
    let e = analyze_expr("i IN (1, 2, 42)", &mut host).unwrap();
    assert!(matches!(e, Expr::ScalarArrayOp { use_or: true, ref items, .. } if items.len() == 3));
    // Items that read columns become separate comparisons.
    let e = analyze_expr("i IN (1, 2, s, b)", &mut host).unwrap();
    assert!(matches!(e, Expr::Bool { .. }));
    assert_eq!(value("i IN (1, 2, s, b)"), "f");
    assert_eq!(value("i NOT IN (1, s)"), "t");
    assert_eq!(
        value(
            "CASE i WHEN 42 THEN CASE x WHEN 'hello' THEN 'both' ELSE 'outer' END ELSE 'none' END"
        ),
        "both"
    );
    assert_eq!(value("CASE CASE i WHEN 42 THEN 1 END WHEN 1 THEN 'one' END"), "one");
}

#[test]
fn volatile_functions_use_the_host_generator() {
    let r: f64 = value("random()").parse().unwrap();
    assert!((0.0..1.0).contains(&r));
    let u = value("gen_random_uuid()");
    assert_eq!((u.len(), &u[14..15]), (36, "4"));
    assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "{u}");
    assert!(crate::expr::Builtin::Random.is_volatile());
    assert!(!crate::expr::Builtin::Abs.is_volatile());
}
