//! Coercion: making an expression the type its context needs
//! (PostgreSQL's `parse_coerce.c`).
//!
//! There are three contexts, from `pg_cast`: *implicit* (operator and
//! function arguments, conditional results), *assignment* (values stored into
//! columns) and *explicit* (`CAST`, `::`). A coercion that is allowed becomes
//! an [`Expr::Cast`], except in two cases that analysis settles on the spot:
//! * an **unknown literal** is parsed by the target type's input function now,
//!   so `'x'::int` fails during analysis with the literal's position (literals
//!   whose meaning depends on the session, like `'now'::timestamptz`, are
//!   checked now and converted at evaluation unless the host supplies a
//!   context);
//! * an **untyped parameter** takes the target type, and the host records it.
//!
//! [`select_common_type`] is PostgreSQL's rule for CASE, COALESCE, UNION and
//! friends: the first non-unknown type, replaced by a later one of the same
//! category when that one is preferred or only reachable one way; different
//! categories cannot be matched; all-unknown resolves to `text`.

use pg_query::protobuf::Node;
use sluice_types::{
    cast, io, AggKind, Context, DateOrder, DateStyle, Datum, IntervalStyle, SqlType,
};

use super::datetime::parse_interval_literal;
use super::tree::Expr;
use super::{AnalyzeHost, SubLinkKind};
use crate::{Result, SqlError};

pub use sluice_types::CastContext as CoercionContext;

/// coerce -- converts `expr` to `to(typmod)` in `context`, or fails with
/// 42846 `cannot cast type X to Y`. An untyped parameter simply takes the
/// type; use [`coerce_with`] to have the host record it.
pub fn coerce(expr: Expr, to: SqlType, typmod: i32, context: CoercionContext) -> Result<Expr> {
    coerce_with(&mut Detached, expr, to, typmod, context)
}

/// coerce_with -- [`coerce`], recording inferred parameter types in `host`
/// and folding date/time literals with its context.
pub fn coerce_with(
    host: &mut dyn AnalyzeHost,
    expr: Expr,
    to: SqlType,
    typmod: i32,
    context: CoercionContext,
) -> Result<Expr> {
    let (from, location) = (expr.ty(), expr.location());
    let explicit = context == CoercionContext::Explicit;
    coerce_to_target(host, expr, to, typmod, context, explicit, location)?
        .ok_or_else(|| cannot_cast(from, to).at(location))
}

/// coerce_to_parameter -- coerces EXECUTE's value for parameter `number`
/// (1-based) of a prepared statement: assignment context, with
/// PostgreSQL's 42804 message on failure.
pub fn coerce_to_parameter(
    host: &mut dyn AnalyzeHost,
    expr: Expr,
    to: SqlType,
    number: usize,
) -> Result<Expr> {
    let (from, location) = (expr.ty(), expr.location());
    coerce_to_target(host, expr, to, -1, CoercionContext::Assignment, false, None)?.ok_or_else(
        || {
            SqlError::new(
                "42804",
                format!(
                    "parameter ${number} of type {} cannot be coerced to the expected type {}",
                    type_name(from),
                    type_name(to)
                ),
            )
            .with_hint("You will need to rewrite or cast the expression.")
            .at(location)
        },
    )
}

/// coerce_to_column -- coerces a value stored into column `column` (INSERT,
/// UPDATE): assignment context, with PostgreSQL's 42804 message on failure.
pub fn coerce_to_column(
    host: &mut dyn AnalyzeHost,
    expr: Expr,
    to: SqlType,
    typmod: i32,
    column: &str,
) -> Result<Expr> {
    let (from, location) = (expr.ty(), expr.location());
    coerce_to_target(host, expr, to, typmod, CoercionContext::Assignment, false, None)?.ok_or_else(
        || {
            SqlError::new(
                "42804",
                format!(
                    "column \"{column}\" is of type {} but expression is of type {}",
                    type_name(to),
                    type_name(from)
                ),
            )
            .with_hint("You will need to rewrite or cast the expression.")
            .at(location)
        },
    )
}

/// check_boolean -- requires a condition of `construct` (`WHERE`, `HAVING`,
/// `JOIN/ON`, ...) to be boolean, coercing an unknown literal; PostgreSQL's
/// `coerce_to_boolean`. Use [`check_boolean_with`] to record `WHERE $1`'s type.
pub fn check_boolean(expr: Expr, construct: &str) -> Result<Expr> {
    coerce_to_boolean(&mut Detached, expr, construct)
}

/// check_boolean_with -- [`check_boolean`], recording inferred parameter types.
pub fn check_boolean_with(host: &mut dyn AnalyzeHost, expr: Expr, construct: &str) -> Result<Expr> {
    coerce_to_boolean(host, expr, construct)
}

/// resolve_unknown -- gives a still-unknown expression (a bare string literal
/// or untyped parameter in a target list) the type `text`, as PostgreSQL
/// resolves output columns.
pub fn resolve_unknown(expr: Expr) -> Result<Expr> {
    resolve_unknown_with(&mut Detached, expr)
}

/// resolve_unknown_with -- [`resolve_unknown`], recording that an untyped
/// parameter became `text` (PostgreSQL reports it so in ParameterDescription).
pub fn resolve_unknown_with(host: &mut dyn AnalyzeHost, expr: Expr) -> Result<Expr> {
    if expr.ty() != SqlType::Unknown {
        return Ok(expr);
    }
    coerce_with(host, expr, SqlType::Text, -1, CoercionContext::Implicit)
}

/// select_common_type -- the type all of `exprs` convert to in a construct
/// named `context` (`CASE`, `COALESCE`, `UNION`, `VALUES`, ...).
pub fn select_common_type(exprs: &[Expr], context: &str) -> Result<SqlType> {
    let items: Vec<(SqlType, Option<u32>)> = exprs.iter().map(|e| (e.ty(), e.location())).collect();
    common_type(&items, Some(context)).map(|t| t.unwrap_or(SqlType::Text))
}

/// common_type -- `select_common_type` over (type, position) pairs; without a
/// context a category mismatch yields `None` instead of an error.
pub(super) fn common_type(
    items: &[(SqlType, Option<u32>)],
    context: Option<&str>,
) -> Result<Option<SqlType>> {
    let Some(&(first, _)) = items.first() else {
        return Ok(Some(SqlType::Text));
    };
    if first != SqlType::Unknown && items.iter().all(|(t, _)| *t == first) {
        return Ok(Some(first));
    }
    let mut chosen = first;
    for &(next, position) in &items[1..] {
        if next == SqlType::Unknown || next == chosen {
            continue;
        }
        if chosen == SqlType::Unknown {
            chosen = next;
        } else if next.category() != chosen.category() {
            let Some(context) = context else { return Ok(None) };
            return Err(SqlError::new(
                "42804",
                format!(
                    "{context} types {} and {} cannot be matched",
                    type_name(chosen),
                    type_name(next)
                ),
            )
            .at(position));
        } else if !is_preferred(chosen)
            && can_coerce(chosen, next, CoercionContext::Implicit)
            && !can_coerce(next, chosen, CoercionContext::Implicit)
        {
            chosen = next;
        }
    }
    Ok(Some(if chosen == SqlType::Unknown { SqlType::Text } else { chosen }))
}

/// coerce_to_common -- converts one input of `context` to its common type,
/// failing with PostgreSQL's `CASE could not convert type X to Y`.
pub(super) fn coerce_to_common(
    host: &mut dyn AnalyzeHost,
    expr: Expr,
    ty: SqlType,
    context: &str,
) -> Result<Expr> {
    let (from, location) = (expr.ty(), expr.location());
    if from == ty {
        return Ok(expr);
    }
    coerce_to_target(host, expr, ty, -1, CoercionContext::Implicit, false, None)?.ok_or_else(|| {
        SqlError::new(
            "42846",
            format!("{context} could not convert type {} to {}", type_name(from), type_name(ty)),
        )
        .at(location)
    })
}

/// coerce_to_boolean -- PostgreSQL's check that a condition is boolean.
pub(super) fn coerce_to_boolean(
    host: &mut dyn AnalyzeHost,
    expr: Expr,
    construct: &str,
) -> Result<Expr> {
    let (from, location) = (expr.ty(), expr.location());
    if from == SqlType::Bool {
        return Ok(expr);
    }
    coerce_to_target(host, expr, SqlType::Bool, -1, CoercionContext::Implicit, false, None)?
        .ok_or_else(|| {
            SqlError::new(
                "42804",
                format!(
                    "argument of {construct} must be type boolean, not type {}",
                    type_name(from)
                ),
            )
            .at(location)
        })
}

/// coerce_implicit -- an implicit coercion analysis has already proven
/// possible (an operator or function argument).
pub(super) fn coerce_implicit(host: &mut dyn AnalyzeHost, expr: Expr, to: SqlType) -> Result<Expr> {
    let from = expr.ty();
    coerce_to_target(host, expr, to, -1, CoercionContext::Implicit, false, None)?.ok_or_else(|| {
        SqlError::internal(format!(
            "no implicit coercion from {} to {}",
            type_name(from),
            type_name(to)
        ))
    })
}

/// coerce_to_target -- the coercion itself, or `None` if `context` does not
/// allow it. `explicit` marks a written cast (string truncation instead of
/// an error); `location` is the cast's own position, if written.
pub(super) fn coerce_to_target(
    host: &mut dyn AnalyzeHost,
    expr: Expr,
    to: SqlType,
    typmod: i32,
    context: CoercionContext,
    explicit: bool,
    location: Option<u32>,
) -> Result<Option<Expr>> {
    let from = expr.ty();
    if !can_coerce(from, to, context) {
        return Ok(None);
    }
    if let SqlType::Domain(domain) = to {
        if from != to {
            let base_typmod = if typmod >= 0 { typmod } else { domain.desc().typmod };
            let base = domain.base();
            let Some(arg) =
                coerce_to_target(host, expr, base, base_typmod, context, explicit, location)?
            else {
                return Ok(None);
            };
            return super::domains::coerce_to_domain(host, arg, domain, location).map(Some);
        }
    }
    if let Some(name) = super::regtypes::cast_from_reg(&expr, to, location) {
        return Ok(Some(apply_typmod(name, typmod, explicit, location)));
    }
    let converted = match expr {
        Expr::Const { value, ty: SqlType::Unknown, location: lit, .. } => {
            return literal(host, value, to, typmod, explicit, lit, location).map(Some)
        }
        Expr::Param { index, ty: SqlType::Unknown, location: at } => {
            host.set_param_type(index, to);
            Expr::Param { index, ty: to, location: at }
        }
        other if from == to => other,
        other => Expr::Cast { arg: Box::new(other), ty: to, typmod: -1, explicit, location },
    };
    Ok(Some(apply_typmod(converted, typmod, explicit, location)))
}

/// Length/precision coercion to `typmod` when it differs from the input's.
fn apply_typmod(expr: Expr, typmod: i32, explicit: bool, location: Option<u32>) -> Expr {
    if typmod < 0 || expr.typmod() == typmod {
        return expr;
    }
    match expr {
        Expr::Cast { arg, ty, typmod: -1, explicit: e, location: l } => {
            Expr::Cast { arg, ty, typmod, explicit: e || explicit, location: l }
        }
        other => {
            let ty = other.ty();
            Expr::Cast { arg: Box::new(other), ty, typmod, explicit, location }
        }
    }
}

/// An unknown literal as a value of `to(typmod)`: parsed now, with the
/// literal's position on failure.
fn literal(
    host: &mut dyn AnalyzeHost,
    value: Datum,
    to: SqlType,
    typmod: i32,
    explicit: bool,
    lit_location: Option<u32>,
    cast_location: Option<u32>,
) -> Result<Expr> {
    let text = match &value {
        Datum::Null => {
            return Ok(Expr::Const { value: Datum::Null, ty: to, typmod, location: lit_location })
        }
        Datum::Text(s) => s.clone(),
        other => return Err(SqlError::internal(format!("unknown literal holds {other:?}"))),
    };
    let deferred = host.context().is_none() && depends_on_session(to);
    if deferred {
        check_deferred_literal(to, &text, typmod).map_err(|e| e.at(lit_location))?;
        let arg = Expr::Const { value, ty: SqlType::Unknown, typmod: -1, location: lit_location };
        return Ok(Expr::Cast {
            arg: Box::new(arg),
            ty: to,
            typmod,
            explicit,
            location: cast_location,
        });
    }
    let default_context = Context::default();
    let ctx = host.context().unwrap_or(&default_context);
    let parsed = parse_literal(to, &text, typmod, ctx).map_err(|e| e.at(lit_location))?;
    let value = cast::apply_target_typmod(parsed, to, typmod, explicit)?;
    Ok(Expr::Const { value, ty: to, typmod, location: lit_location.or(cast_location) })
}

/// check_deferred_literal -- fails now for date/time text that no
/// `DateStyle` field order reads, so the error points at the literal; text
/// that some order reads (`13/01/2024` with `DMY`) is left to evaluation,
/// which reads it in the session's order.
fn check_deferred_literal(to: SqlType, text: &str, typmod: i32) -> Result<()> {
    let first = parse_literal(to, text, typmod, &Context::default());
    let Err(error) = first else { return Ok(()) };
    let readable = [DateOrder::Dmy, DateOrder::Ymd].into_iter().any(|order| {
        let style = DateStyle { order, ..DateStyle::default() };
        let ctx = Context::default().with_styles(style, IntervalStyle::default());
        parse_literal(to, text, typmod, &ctx).is_ok()
    });
    if readable {
        Ok(())
    } else {
        Err(error)
    }
}

/// The input function of `to`; intervals take their typmod into account
/// (`interval '1' day`), everything else gets its typmod applied afterwards.
pub(super) fn parse_literal(to: SqlType, text: &str, typmod: i32, ctx: &Context) -> Result<Datum> {
    if to == SqlType::Interval {
        return parse_interval_literal(text, typmod).map(Datum::Interval).map_err(SqlError::from);
    }
    Ok(io::parse(to, text, -1, ctx)?)
}

/// Types whose input reads the session's time zone or clock.
fn depends_on_session(ty: SqlType) -> bool {
    matches!(ty, SqlType::Date | SqlType::Time | SqlType::Timestamp | SqlType::TimestampTz)
}

/// can_coerce -- whether `from` converts to `to` in `context`.
pub(super) fn can_coerce(from: SqlType, to: SqlType, context: CoercionContext) -> bool {
    cast::cast_context(from, to).is_some_and(|c| c <= context)
}

/// Whether `ty` is its category's preferred type (`pg_type.typispreferred`).
pub(super) fn is_preferred(ty: SqlType) -> bool {
    matches!(
        ty,
        SqlType::Float8 | SqlType::Text | SqlType::TimestampTz | SqlType::Interval | SqlType::Bool
    )
}

/// `format_type_be`: the name of a type in messages. Without a typmod,
/// `bpchar` is spelled `character` there.
pub fn type_name(ty: SqlType) -> String {
    match ty {
        SqlType::Bpchar => "character".to_string(),
        other => sluice_types::format_type(other, -1),
    }
}

/// 42846 `cannot cast type X to Y`.
pub(super) fn cannot_cast(from: SqlType, to: SqlType) -> SqlError {
    SqlError::new("42846", format!("cannot cast type {} to {}", type_name(from), type_name(to)))
}

/// A host for coercions requested outside analysis: it records nothing and
/// supplies no context.
pub(super) struct Detached;

impl AnalyzeHost for Detached {
    fn param_type(&mut self, _n: usize) -> Option<SqlType> {
        None
    }

    fn set_param_type(&mut self, _n: usize, _ty: SqlType) {}

    fn aggregate(
        &mut self,
        _kind: AggKind,
        _arg: Option<Expr>,
        _distinct: bool,
        _clauses: super::AggClauses,
        _location: Option<u32>,
    ) -> Result<usize> {
        Err(SqlError::internal("aggregate outside analysis"))
    }

    fn subquery(
        &mut self,
        _kind: SubLinkKind,
        _query: &Node,
        _testexpr: Option<Expr>,
    ) -> Result<(usize, SqlType)> {
        Err(SqlError::internal("subquery outside analysis"))
    }
}
