//! The public helpers (names, coercion, `*`, common types), name
//! resolution across tables, deferred literals, and a fuzz pass.

use sluice_types::datetime::TimeZone;
use sluice_types::{Context, Datum, SqlType};

use super::{analyze_expr, first_target, row, scope, show, TestHost};
use crate::expr::{
    analyze, check_boolean, coerce, coerce_to_column, column_name, eval, expand_star, make_op,
    select_common_type, CoercionContext, Expr, Scope, ScopeColumn,
};

#[test]
fn output_names_follow_figure_colname() {
    // Checked against PostgreSQL 15's RowDescription.
    let cases = [
        ("true", "?column?"),
        ("'a'", "?column?"),
        ("1::int", "int4"),
        ("x::text", "x"),
        ("'1'::int::text", "text"),
        ("CASE WHEN true THEN 1 END", "case"),
        ("CASE WHEN true THEN 'a' ELSE x END", "x"),
        ("(SELECT 1)", "?column?"),
        ("(SELECT x FROM t)", "x"),
        ("(SELECT x AS y FROM t)", "y"),
        ("EXISTS (SELECT 1)", "exists"),
        ("trim(' a')", "btrim"),
        ("substring(x from 2)", "substring"),
        ("extract(year from d)", "extract"),
        ("ts AT TIME ZONE 'UTC'", "timezone"),
        ("x COLLATE \"C\"", "x"),
        ("-i::int", "?column?"),
        ("COALESCE(1)", "coalesce"),
        ("NULLIF(1, 1)", "nullif"),
        ("GREATEST(1, 2)", "greatest"),
        ("LEAST(1, 2)", "least"),
        ("current_user", "current_user"),
        ("current_timestamp(3)", "current_timestamp"),
        ("x IS NULL", "?column?"),
        ("1 IN (1)", "?column?"),
        ("t.i", "i"),
        ("t.*", "t"),
        ("pg_catalog.count(*)", "count"),
        ("date '2020-01-01'", "date"),
        ("interval '1' day", "interval"),
        ("'a'::varchar(3)", "varchar"),
        ("ARRAY[1]", "array"),
        ("ROW(1, 2)", "row"),
    ];
    for (expr, name) in cases {
        let node = first_target(&format!("SELECT {expr} FROM t")).unwrap();
        assert_eq!(column_name(&node), name, "{expr}");
    }
}

/// A scope of `t(i, x)` and `t2(i, y)`.
fn two_tables() -> Scope {
    let col = |table: &str, name: &str, ty| ScopeColumn {
        table: Some(table.to_string()),
        name: name.to_string(),
        ty,
        typmod: -1,
    };
    Scope {
        columns: vec![
            col("t", "i", SqlType::Int4),
            col("t", "x", SqlType::Text),
            col("t2", "i", SqlType::Int8),
            col("t2", "y", SqlType::Text),
        ],
        relations: Vec::new(),
    }
}

#[test]
fn column_references_across_tables() {
    let scope = two_tables();
    let resolve = |expr: &str| {
        let node = first_target(&format!("SELECT {expr} FROM t, t2")).unwrap();
        analyze(&node, &scope, &mut TestHost::new())
    };
    let e = resolve("i").unwrap_err();
    assert_eq!(
        (e.code, e.position, e.message.as_str()),
        ("42702", Some(8), "column reference \"i\" is ambiguous")
    );
    assert!(matches!(resolve("t2.i").unwrap(), Expr::Column { index: 2, ty: SqlType::Int8, .. }));
    assert!(matches!(resolve("public.t2.y").unwrap(), Expr::Column { index: 3, .. }));
    assert!(matches!(resolve("y").unwrap(), Expr::Column { index: 3, .. }));
    let e = resolve("t3.i").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42P01", "missing FROM-clause entry for table \"t3\"")
    );
    let e = resolve("t.y").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), ("42703", "column t.y does not exist"));
    assert_eq!(resolve("a.b.c.d.e").unwrap_err().code, "42601");
    // A table name alone is its whole row.
    let Expr::Row { args, ty: SqlType::Record(rt), .. } = resolve("t2").unwrap() else {
        panic!("t2 is not a whole-row reference")
    };
    assert!(matches!(
        args.as_slice(),
        [Expr::Column { index: 2, .. }, Expr::Column { index: 3, .. }]
    ));
    assert_eq!(rt.fields().iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["i", "y"]);
}

#[test]
fn star_expansion() {
    let scope = two_tables();
    let all = expand_star(&scope, None).unwrap();
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["i", "x", "i", "y"]);
    let t2 = expand_star(&scope, Some("t2")).unwrap();
    assert!(matches!(t2[1].1, Expr::Column { index: 3, .. }));
    let e = expand_star(&scope, Some("t3")).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42P01", "missing FROM-clause entry for table \"t3\"")
    );
    let e = expand_star(&Scope::default(), None).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42601", "SELECT * with no tables specified is not valid")
    );
}

/// Analyze a select-list expression without resolving unknowns.
fn raw(expr: &str) -> Expr {
    let node = first_target(&format!("SELECT {expr} FROM t")).unwrap();
    analyze(&node, &scope(), &mut TestHost::new()).unwrap()
}

/// Evaluate with the test row.
fn eval_show(e: &Expr) -> String {
    show(&eval(e, &row(), &mut TestHost::new()).unwrap())
}

#[test]
fn conditions_must_be_boolean() {
    let e = check_boolean(raw("i + 1"), "WHERE").unwrap_err();
    assert_eq!((e.code, e.position), ("42804", Some(8)));
    assert_eq!(e.message, "argument of WHERE must be type boolean, not type integer");
    let e = check_boolean(raw("'abc'"), "HAVING").unwrap_err();
    assert_eq!((e.code, e.position), ("22P02", Some(8)));
    assert_eq!(eval_show(&check_boolean(raw("'yes'"), "WHERE").unwrap()), "t");
    assert_eq!(check_boolean(raw("NULL"), "WHERE").unwrap().ty(), SqlType::Bool);
}

#[test]
fn assignment_coercion() {
    let mut host = TestHost::new();
    let e = coerce_to_column(&mut host, raw("true"), SqlType::Int4, -1, "i").unwrap_err();
    assert_eq!((e.code, e.position), ("42804", Some(8)));
    assert_eq!(e.message, "column \"i\" is of type integer but expression is of type boolean");
    assert_eq!(e.hint.as_deref(), Some("You will need to rewrite or cast the expression."));
    let e = coerce_to_column(&mut host, raw("'x'"), SqlType::Int4, -1, "i").unwrap_err();
    assert_eq!((e.code, e.position), ("22P02", Some(8)));
    let e = coerce_to_column(&mut host, raw("'abcdefghijklmnop'"), SqlType::Varchar, 14, "v");
    let e = e.unwrap_err();
    assert_eq!(
        (e.code, e.position, e.message.as_str()),
        ("22001", None, "value too long for type character varying(10)")
    );
    // numeric → integer is an assignment cast (rounding); text → integer is not.
    let e = coerce_to_column(&mut host, raw("2.5"), SqlType::Int4, -1, "i").unwrap();
    assert_eq!(eval_show(&e), "3");
    assert!(coerce_to_column(&mut host, raw("x"), SqlType::Int4, -1, "i").is_err());
    let e = coerce_to_column(&mut host, raw("x"), SqlType::Varchar, 7, "v").unwrap();
    assert_eq!((e.ty(), e.typmod()), (SqlType::Varchar, 7));
    // Assignment does not truncate: the cast fails at evaluation.
    let mut host = TestHost::new();
    assert_eq!(eval(&e, &row(), &mut host).unwrap_err().code, "22001");
    // Parameters take the column's type.
    let node = first_target("SELECT $1").unwrap();
    let p = analyze(&node, &scope(), &mut host).unwrap();
    let p = coerce_to_column(&mut host, p, SqlType::Date, -1, "d").unwrap();
    assert!(matches!(p, Expr::Param { index: 1, ty: SqlType::Date, .. }));
    assert_eq!(host.params, vec![Some(SqlType::Date)]);
}

#[test]
fn explicit_coercion_and_common_types() {
    let e = coerce(raw("'abcdef'"), SqlType::Varchar, 7, CoercionContext::Explicit).unwrap();
    assert_eq!(eval_show(&e), "abc");
    let e = coerce(raw("1"), SqlType::Date, -1, CoercionContext::Explicit).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), ("42846", "cannot cast type integer to date"));
    let e = coerce(raw("x"), SqlType::Int4, -1, CoercionContext::Implicit).unwrap_err();
    assert_eq!(e.code, "42846");
    assert_eq!(
        eval_show(&coerce(raw("x"), SqlType::Bytea, -1, CoercionContext::Explicit).unwrap()),
        "\\x68656c6c6f"
    );

    let ty = |exprs: &[&str], ctx| {
        select_common_type(&exprs.iter().map(|e| raw(e)).collect::<Vec<_>>(), ctx)
    };
    assert_eq!(ty(&["1", "2.5"], "UNION").unwrap(), SqlType::Numeric);
    assert_eq!(ty(&["'a'", "NULL"], "VALUES").unwrap(), SqlType::Text);
    assert_eq!(ty(&["v", "x"], "UNION").unwrap(), SqlType::Varchar);
    assert_eq!(ty(&["x", "v"], "UNION").unwrap(), SqlType::Text);
    assert_eq!(ty(&["d", "ts", "tz"], "UNION").unwrap(), SqlType::TimestampTz);
    let e = ty(&["1", "x"], "UNION").unwrap_err();
    assert_eq!(
        (e.code, e.position, e.message.as_str()),
        ("42804", Some(8), "UNION types integer and text cannot be matched")
    );
}

#[test]
fn operators_can_be_built_directly() {
    let e = make_op("<", Some(Expr::column(0, SqlType::Int4, -1)), raw("'100'"), None).unwrap();
    assert_eq!((e.ty(), eval_show(&e).as_str()), (SqlType::Bool, "t"));
    let e = make_op("pg_catalog.-", None, Expr::column(0, SqlType::Int4, -1), None).unwrap();
    assert_eq!(eval_show(&e), "-42");
    let e = make_op("public.+", Some(raw("1")), raw("1"), Some(3)).unwrap_err();
    assert_eq!((e.code, e.position), ("42883", Some(3)));
}

#[test]
fn session_literals_wait_for_the_context() {
    // Without an analysis context a timestamptz literal is checked now and
    // read in the evaluating session's zone.
    let node = first_target("SELECT timestamptz '2024-01-01 00:00' FROM t").unwrap();
    let mut host = TestHost { fold_literals: false, ..TestHost::new() };
    let e = analyze(&node, &scope(), &mut host).unwrap();
    assert!(matches!(e, Expr::Cast { ty: SqlType::TimestampTz, .. }));
    host.ctx = Context { time_zone: TimeZone::fixed(2 * 3600), ..host.ctx.clone() };
    let v = eval(&e, &row(), &mut host).unwrap();
    assert_eq!(
        sluice_types::io::output(&v, &Context::default()).unwrap(),
        "2023-12-31 22:00:00+00"
    );
    let node = first_target("SELECT 'tomorrow'::date, 'junk'::date FROM t").unwrap();
    assert!(analyze(&node, &scope(), &mut host).is_ok());
    let node = first_target("SELECT 'junk'::date FROM t").unwrap();
    let e = analyze(&node, &scope(), &mut host).unwrap_err();
    assert_eq!((e.code, e.position), ("22007", Some(8)));
    // With a context, literals fold to constants.
    let mut host = TestHost::new();
    let e = analyze_expr("'2024-01-01'::date", &mut host).unwrap();
    assert!(matches!(e, Expr::Const { value: Datum::Date(_), .. }));
}

/// A tiny deterministic generator (xorshift) for the fuzz pass.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn fuzzed_expressions_never_panic() {
    const ATOMS: &[&str] = &[
        "i",
        "b",
        "s",
        "n",
        "f",
        "r",
        "x",
        "v",
        "c",
        "d",
        "ts",
        "tz",
        "iv",
        "tm",
        "bo",
        "j",
        "u",
        "by",
        "nu",
        "nt",
        "nb",
        "1",
        "0",
        "-1",
        "2147483647",
        "9223372036854775807",
        "1.5",
        "1e308",
        "'a'",
        "''",
        "'1'",
        "'2024-01-01'",
        "'{\"a\":1}'",
        "NULL",
        "true",
        "$1",
        "'NaN'::float8",
        "'infinity'::date",
        "interval '1' day",
        "now()",
        "current_date",
        "(SELECT 1)",
    ];
    const BINARY: &[&str] = &[
        "+",
        "-",
        "*",
        "/",
        "%",
        "^",
        "||",
        "=",
        "<>",
        "<",
        ">=",
        "AND",
        "OR",
        "LIKE",
        "ILIKE",
        "->",
        "->>",
        "?",
        "@>",
        "&",
        "|",
        "#",
        "<<",
        ">>",
        "IS DISTINCT FROM",
        "~",
        "^@",
    ];
    const WRAP: &[&str] = &[
        "abs({})",
        "-{}",
        "NOT {}",
        "({})::text",
        "({})::int",
        "({})::numeric(5,2)",
        "({})::varchar(2)",
        "({})::date",
        "({})::interval",
        "({})::jsonb",
        "coalesce({}, {})",
        "nullif({}, {})",
        "greatest({}, {})",
        "CASE WHEN {} THEN {} ELSE {} END",
        "CASE {} WHEN {} THEN {} END",
        "{} IN ({}, {})",
        "{} BETWEEN {} AND {}",
        "{} IS NULL",
        "{} IS TRUE",
        "length({})",
        "substr({}, {}, {})",
        "round({}, {})",
        "lpad({}, {})",
        "repeat({}, {})",
        "date_trunc({}, {})",
        "extract(day from {})",
        "concat({}, {})",
        "split_part({}, {}, {})",
        "count({})",
        "sum({})",
        "max({})",
        "pg_size_pretty({})",
        "{} AT TIME ZONE {}",
        "chr({})",
        "to_timestamp({})",
        "jsonb_array_length({})",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    fn expr(rng: &mut Rng, depth: usize) -> String {
        if depth == 0 || rng.below(3) == 0 {
            return ATOMS[rng.below(ATOMS.len())].to_string();
        }
        if rng.below(2) == 0 {
            let op = BINARY[rng.below(BINARY.len())];
            return format!("({} {op} {})", expr(rng, depth - 1), expr(rng, depth - 1));
        }
        let mut out = WRAP[rng.below(WRAP.len())].to_string();
        while let Some(at) = out.find("{}") {
            out.replace_range(at..at + 2, &expr(rng, depth - 1));
        }
        out
    }
    let (mut analyzed, mut evaluated) = (0, 0);
    for _ in 0..4000 {
        let text = expr(&mut rng, 4);
        let mut host = TestHost::new();
        let Ok(node) = first_target(&format!("SELECT {text} FROM t")) else { continue };
        if let Ok(e) = analyze(&node, &scope(), &mut host) {
            analyzed += 1;
            host.values = vec![match host.params.first().copied().flatten() {
                Some(SqlType::Int4) => Datum::Int4(7),
                _ => Datum::Null,
            }];
            if eval(&e, &row(), &mut host).is_ok() {
                evaluated += 1;
            }
        }
        let _ = column_name(&node);
    }
    assert!(analyzed > 200 && evaluated > 100, "analyzed {analyzed}, evaluated {evaluated}");
}
