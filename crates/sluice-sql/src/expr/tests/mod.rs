//! Tests of expression analysis and evaluation.
//!
//! The golden files in `golden/` hold one expression per line with what
//! PostgreSQL 15 answered for `SELECT <expr> FROM t` over the one-row table
//! below: `expr => type = output` or `expr => ERROR sqlstate [@position]
//! message`. They were produced by running the expressions against a real
//! server (`oracle.py` regenerates a file); `golden.rs` replays them through
//! sluice and reports every difference at once. `units.rs` covers what a single row cannot show:
//! aggregates, parameters, output names, hints, subqueries, fuzzing.
//!
//! ```sql
//! CREATE TABLE t (i int4, b int8, s int2, n numeric(10,2), f float8,
//!   r float4, x text, v varchar(10), c char(5), d date, ts timestamp,
//!   tz timestamptz, iv interval, tm time, bo bool, j jsonb, u uuid,
//!   by bytea, nu int4, nt text, nb bool);
//! INSERT INTO t VALUES (42, 9000000000, 7, 12.50, 1.5, 2.5, 'hello', 'abc',
//!   'ab', '2024-02-29', '2024-01-15 10:30:00', '2024-01-15 10:30:00+00',
//!   '1 day 02:00:00', '12:34:56', true, '{"a": 1, "b": [1, 2, "x"], "c": null}',
//!   'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\xdeadbeef', NULL, NULL, NULL);
//! ```

mod api;
mod golden;
mod rows;
mod units;

use pg_query::protobuf::node::Node as NodeEnum;
use pg_query::protobuf::Node;
use sluice_types::{io, AggKind, Context, Datum, SqlType};

use super::{AnalyzeHost, EvalHost, Expr, Scope, ScopeColumn, SessionFunction, SubLinkKind};
use crate::{Result, SqlError};

/// The columns of `t`: name, type, typmod, value as text (`None`: NULL).
const TABLE: [(&str, SqlType, i32, Option<&str>); 21] = [
    ("i", SqlType::Int4, -1, Some("42")),
    ("b", SqlType::Int8, -1, Some("9000000000")),
    ("s", SqlType::Int2, -1, Some("7")),
    ("n", SqlType::Numeric, 655_366, Some("12.50")),
    ("f", SqlType::Float8, -1, Some("1.5")),
    ("r", SqlType::Float4, -1, Some("2.5")),
    ("x", SqlType::Text, -1, Some("hello")),
    ("v", SqlType::Varchar, 14, Some("abc")),
    ("c", SqlType::Bpchar, 9, Some("ab")),
    ("d", SqlType::Date, -1, Some("2024-02-29")),
    ("ts", SqlType::Timestamp, -1, Some("2024-01-15 10:30:00")),
    ("tz", SqlType::TimestampTz, -1, Some("2024-01-15 10:30:00+00")),
    ("iv", SqlType::Interval, -1, Some("1 day 02:00:00")),
    ("tm", SqlType::Time, -1, Some("12:34:56")),
    ("bo", SqlType::Bool, -1, Some("true")),
    ("j", SqlType::Jsonb, -1, Some(r#"{"a": 1, "b": [1, 2, "x"], "c": null}"#)),
    ("u", SqlType::Uuid, -1, Some("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
    ("by", SqlType::Bytea, -1, Some("\\xdeadbeef")),
    ("nu", SqlType::Int4, -1, None),
    ("nt", SqlType::Text, -1, None),
    ("nb", SqlType::Bool, -1, None),
];

/// The scope of `t`.
fn scope() -> Scope {
    let columns = TABLE
        .iter()
        .map(|(name, ty, typmod, _)| ScopeColumn {
            table: Some("t".to_string()),
            name: name.to_string(),
            ty: *ty,
            typmod: *typmod,
        })
        .collect();
    Scope { columns, relations: Vec::new() }
}

/// The one row of `t`.
fn row() -> Vec<Datum> {
    let ctx = Context::default();
    TABLE
        .iter()
        .map(|(_, ty, typmod, text)| match text {
            Some(t) => io::parse(*ty, t, *typmod, &ctx).expect("test row value"),
            None => Datum::Null,
        })
        .collect()
}

/// The analysis and evaluation host of the tests: records parameter types
/// and aggregates, answers session functions with fixed values.
#[derive(Default)]
struct TestHost {
    /// Inferred or preset parameter types, by number - 1.
    params: Vec<Option<SqlType>>,
    /// Bound parameter values, by number - 1.
    values: Vec<Datum>,
    /// Aggregates reported by analysis, with their value for evaluation.
    aggregates: Vec<(AggKind, Option<Expr>, bool, Datum)>,
    /// Whether aggregates are allowed (SELECT list) or not (WHERE).
    no_aggregates: bool,
    /// Whether analysis sees the context (folds date/time literals).
    fold_literals: bool,
    /// The evaluation context (UTC, `now` = 2024-06-01 12:00 UTC).
    ctx: Context,
    /// The next "random" number.
    seed: f64,
}

impl TestHost {
    /// A host whose transaction started at 2024-06-01 12:00:00 UTC.
    fn new() -> TestHost {
        let now = match io::parse(
            SqlType::TimestampTz,
            "2024-06-01 12:00:00+00",
            -1,
            &Context::default(),
        ) {
            Ok(Datum::TimestampTz(t)) => t,
            other => panic!("test clock: {other:?}"),
        };
        let ctx = Context { now, ..Context::default() };
        TestHost { ctx, seed: 0.25, fold_literals: true, ..TestHost::default() }
    }
}

impl AnalyzeHost for TestHost {
    fn param_type(&mut self, n: usize) -> Option<SqlType> {
        self.params.get(n - 1).copied().flatten()
    }

    fn set_param_type(&mut self, n: usize, ty: SqlType) {
        if self.params.len() < n {
            self.params.resize(n, None);
        }
        self.params[n - 1] = Some(ty);
    }

    fn aggregate(
        &mut self,
        kind: AggKind,
        arg: Option<Expr>,
        distinct: bool,
        _clauses: crate::expr::AggClauses,
        _location: Option<u32>,
    ) -> Result<usize> {
        if self.no_aggregates {
            return Err(SqlError::new("42803", "aggregate functions are not allowed in WHERE"));
        }
        self.aggregates.push((kind, arg, distinct, Datum::Int8(7)));
        Ok(self.aggregates.len() - 1)
    }

    fn subquery(
        &mut self,
        kind: SubLinkKind,
        _query: &Node,
        testexpr: Option<Expr>,
    ) -> Result<(usize, SqlType)> {
        match kind {
            SubLinkKind::Scalar => Ok((10, SqlType::Int4)),
            _ if testexpr.as_ref().is_some_and(|t| t.ty() == SqlType::Text) => {
                Err(SqlError::unsupported("test host: text IN subquery"))
            }
            _ => Ok((11, SqlType::Bool)),
        }
    }

    fn context(&self) -> Option<&Context> {
        self.fold_literals.then_some(&self.ctx)
    }
}

impl EvalHost for TestHost {
    fn context(&self) -> &Context {
        &self.ctx
    }

    fn param(&self, n: usize) -> &Datum {
        self.values.get(n - 1).unwrap_or(&Datum::Null)
    }

    fn aggregate_value(&self, index: usize) -> &Datum {
        self.aggregates.get(index).map_or(&Datum::Null, |a| &a.3)
    }

    fn subquery(&mut self, id: usize, _row: &[Datum]) -> Result<Datum> {
        Ok(if id == 10 { Datum::Int4(5) } else { Datum::Bool(true) })
    }

    fn session_function(&mut self, f: SessionFunction, args: &[Datum]) -> Result<Datum> {
        Ok(match f {
            SessionFunction::CurrentUser => Datum::Text("postgres".into()),
            SessionFunction::RelationSize => Datum::Int8(8192 * args.len() as i64),
            _ => Datum::Text(format!("{f:?}")),
        })
    }

    fn random(&mut self) -> f64 {
        self.seed = (self.seed * 7.0 + 0.13) % 1.0;
        self.seed
    }

    fn check_interrupts(&self) -> Result<()> {
        Ok(())
    }
}

/// The first select-list expression of `sql` (a `SELECT`).
fn first_target(sql: &str) -> Result<Node> {
    let stmts = crate::parser::parse(sql)?;
    let Some(NodeEnum::SelectStmt(select)) = stmts.into_iter().next().map(|s| s.node) else {
        return Err(SqlError::internal("not a SELECT"));
    };
    let target = select.target_list.into_iter().next().and_then(|t| t.node);
    match target {
        Some(NodeEnum::ResTarget(rt)) => {
            rt.val.map(|v| *v).ok_or_else(|| SqlError::internal("no value"))
        }
        _ => Err(SqlError::internal("no target")),
    }
}

/// Analyze `SELECT <expr> FROM t` as a select-list item: unknown results
/// become text, as PostgreSQL resolves output columns.
fn analyze_expr(expr: &str, host: &mut TestHost) -> Result<Expr> {
    let node = first_target(&format!("SELECT {expr} FROM t"))?;
    let analyzed = super::analyze(&node, &scope(), host)?;
    super::resolve_unknown_with(host, analyzed)
}

/// Analyze and evaluate `expr` against the row of `t`.
fn run(expr: &str) -> Result<(Expr, Datum)> {
    let mut host = TestHost::new();
    let e = analyze_expr(expr, &mut host)?;
    let value = super::eval(&e, &row(), &mut host)?;
    Ok((e, value))
}

/// A value as the golden files print it.
fn show(value: &Datum) -> String {
    io::output(value, &Context::default()).unwrap_or_else(|| "<null>".to_string())
}

/// A type with modifier as PostgreSQL's `format_type` prints it, including
/// interval field ranges (`interval day`), which `sluice_types` prints as a
/// precision.
fn show_type(ty: SqlType, typmod: i32) -> String {
    if ty == SqlType::Bpchar && typmod < 0 {
        return "character".to_string();
    }
    if ty != SqlType::Interval || typmod < 0 {
        return sluice_types::format_type(ty, typmod);
    }
    let fields = match (typmod >> 16) & 0x7FFF {
        0x7FFF => "",
        4 => " year",
        2 => " month",
        8 => " day",
        1024 => " hour",
        2048 => " minute",
        4096 => " second",
        6 => " year to month",
        1032 => " day to hour",
        3080 => " day to minute",
        7176 => " day to second",
        3072 => " hour to minute",
        7168 => " hour to second",
        6144 => " minute to second",
        _ => " ?",
    };
    match typmod & 0xFFFF {
        0xFFFF => format!("interval{fields}"),
        p => format!("interval{fields}({p})"),
    }
}
