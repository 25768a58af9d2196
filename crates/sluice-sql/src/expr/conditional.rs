//! Conditional and comparison constructs: CASE, COALESCE, GREATEST/LEAST,
//! NULLIF, IS [NOT] DISTINCT FROM, IN lists and BETWEEN (PostgreSQL's
//! `transformCaseExpr`, `transformAExprIn`, `transformAExprBetween`, ...).
//!
//! The result-typed constructs pick one type for all their branches with
//! `select_common_type` (CASE considers its ELSE first, as PostgreSQL does)
//! and coerce every branch to it, so `CASE WHEN c THEN 1 ELSE 2.5 END` is
//! numeric and `COALESCE(1, 'x')` fails on `'x'`. The comparison constructs
//! are built from the ordinary `=`, `<`, ... operators: `a BETWEEN b AND c`
//! is `a >= b AND a <= c`; an IN list of constants becomes one
//! `a = ANY(list)` over the list's common type, while list items that read
//! columns get an `=` each, OR-ed together; a row on the left is compared
//! with each row of the list as a row comparison.

use pg_query::protobuf::node::Node as NodeEnum;
use pg_query::protobuf::{
    AExpr, AExprKind, CaseExpr, CoalesceExpr, MinMaxExpr, MinMaxOp, Node, RowExpr,
};
use sluice_types::{Datum, SqlType};

use super::analyze::{operator_name, Analyzer};
use super::coerce::{
    can_coerce, coerce_implicit, coerce_to_boolean, coerce_to_common, common_type, CoercionContext,
};
use super::oper::make_op_in;
use super::rowtypes::{row_compare, row_expr};
use super::tree::{BoolOp, CaseWhen, Expr};
use super::typename::position_of;
use crate::{Result, SqlError};

/// `CASE [arg] WHEN ... THEN ... [ELSE ...] END`.
pub(super) fn case(a: &mut Analyzer, c: &CaseExpr) -> Result<Expr> {
    let arg = match c.arg.as_deref().map(|n| a.expr(n)).transpose()? {
        Some(e) if e.ty() == SqlType::Unknown => {
            Some(coerce_to_common(a.host, e, SqlType::Text, "CASE")?)
        }
        other => other,
    };
    let test = arg.as_ref().map(|e| Expr::CaseTest { ty: e.ty(), typmod: e.typmod() });
    let mut whens = Vec::with_capacity(c.args.len());
    for w in &c.args {
        let Some(NodeEnum::CaseWhen(w)) = w.node.as_ref() else {
            return Err(SqlError::internal("CASE arm is not a WHEN clause"));
        };
        let value = a.child(w.expr.as_deref())?;
        let condition = match &test {
            Some(t) => make_op_in(a.host, "=", Some(t.clone()), value, position_of(w.location))?,
            None => value,
        };
        let condition = coerce_to_boolean(a.host, condition, "CASE/WHEN")?;
        whens.push(CaseWhen { condition, result: a.child(w.result.as_deref())? });
    }
    let default = match c.defresult.as_deref() {
        Some(d) => a.expr(d)?,
        None => {
            Expr::Const { value: Datum::Null, ty: SqlType::Unknown, typmod: -1, location: None }
        }
    };
    let items: Vec<(SqlType, Option<u32>)> = std::iter::once(&default)
        .chain(whens.iter().map(|w| &w.result))
        .map(|e| (e.ty(), e.location()))
        .collect();
    let ty = common_type(&items, Some("CASE"))?.unwrap_or(SqlType::Text);
    let default = coerce_to_common(a.host, default, ty, "CASE")?;
    for w in &mut whens {
        let result = std::mem::replace(&mut w.result, Expr::CaseTest { ty, typmod: -1 });
        w.result = coerce_to_common(a.host, result, ty, "CASE")?;
    }
    let typmod = shared_typmod(std::iter::once(&default).chain(whens.iter().map(|w| &w.result)));
    let location = position_of(c.location);
    Ok(Expr::Case {
        arg: arg.map(Box::new),
        whens,
        default: Box::new(default),
        ty,
        typmod,
        location,
    })
}

/// `COALESCE(...)`.
pub(super) fn coalesce(a: &mut Analyzer, c: &CoalesceExpr) -> Result<Expr> {
    let (args, ty) = common_args(a, &c.args, "COALESCE")?;
    let typmod = shared_typmod(args.iter());
    Ok(Expr::Coalesce { args, ty, typmod, location: position_of(c.location) })
}

/// `GREATEST(...)` / `LEAST(...)`.
pub(super) fn min_max(a: &mut Analyzer, m: &MinMaxExpr) -> Result<Expr> {
    let greatest = MinMaxOp::try_from(m.op) == Ok(MinMaxOp::IsGreatest);
    let context = if greatest { "GREATEST" } else { "LEAST" };
    let (args, ty) = common_args(a, &m.args, context)?;
    Ok(Expr::MinMax { greatest, args, ty, location: position_of(m.location) })
}

/// Analyze `nodes` and coerce them to their common type.
fn common_args(a: &mut Analyzer, nodes: &[Node], context: &str) -> Result<(Vec<Expr>, SqlType)> {
    let exprs = nodes.iter().map(|n| a.expr(n)).collect::<Result<Vec<_>>>()?;
    let items: Vec<_> = exprs.iter().map(|e| (e.ty(), e.location())).collect();
    let ty = common_type(&items, Some(context))?.unwrap_or(SqlType::Text);
    let args = exprs
        .into_iter()
        .map(|e| coerce_to_common(a.host, e, ty, context))
        .collect::<Result<_>>()?;
    Ok((args, ty))
}

/// The typmod all of `exprs` share, or -1 (PostgreSQL's `exprTypmod` rule
/// for CASE and COALESCE).
fn shared_typmod<'e>(mut exprs: impl Iterator<Item = &'e Expr>) -> i32 {
    let Some(first) = exprs.next() else { return -1 };
    let typmod = first.typmod();
    if exprs.all(|e| e.typmod() == typmod) {
        typmod
    } else {
        -1
    }
}

/// `NULLIF(a, b)`: `=` on the two, yielding `a`'s (coerced) type.
pub(super) fn nullif(a: &mut Analyzer, x: &AExpr) -> Result<Expr> {
    let location = position_of(x.location);
    let (eq, left, right) = comparison(a, x, "NULLIF requires = operator to yield boolean")?;
    let ty = left.ty();
    Ok(Expr::NullIf { left: Box::new(left), right: Box::new(right), eq, ty, location })
}

/// `a IS [NOT] DISTINCT FROM b`.
pub(super) fn distinct(a: &mut Analyzer, x: &AExpr, negated: bool) -> Result<Expr> {
    let location = position_of(x.location);
    let (eq, left, right) =
        comparison(a, x, "IS DISTINCT FROM requires = operator to yield boolean")?;
    Ok(Expr::Distinct { left: Box::new(left), right: Box::new(right), eq, negated, location })
}

/// Resolve the `A_Expr`'s operator over its two operands and split the
/// result into (operator, coerced left, coerced right).
fn comparison(
    a: &mut Analyzer,
    x: &AExpr,
    not_boolean: &str,
) -> Result<(super::Builtin, Expr, Expr)> {
    let location = position_of(x.location);
    let left = a.child(x.lexpr.as_deref())?;
    let right = a.child(x.rexpr.as_deref())?;
    let op = make_op_in(a.host, &operator_name(&x.name), Some(left), right, location)?;
    split_boolean_op(op, not_boolean, location)
}

/// (operator, left, right) of a resolved boolean binary operator.
fn split_boolean_op(
    op: Expr,
    not_boolean: &str,
    location: Option<u32>,
) -> Result<(super::Builtin, Expr, Expr)> {
    match op {
        Expr::Call { func, args, ty: SqlType::Bool, .. } if args.len() == 2 => {
            let mut args = args.into_iter();
            match (args.next(), args.next()) {
                (Some(l), Some(r)) => Ok((func, l, r)),
                _ => Err(SqlError::internal("binary operator without operands")),
            }
        }
        _ => Err(SqlError::new("42804", not_boolean).at(location)),
    }
}

/// `a [NOT] IN (list)`.
pub(super) fn in_list(a: &mut Analyzer, x: &AExpr) -> Result<Expr> {
    let location = position_of(x.location);
    let name = operator_name(&x.name);
    let use_or = name != "<>";
    let Some(NodeEnum::List(list)) = x.rexpr.as_deref().and_then(|n| n.node.as_ref()) else {
        return Err(SqlError::internal("IN without a list"));
    };
    if let Some(NodeEnum::RowExpr(row)) = x.lexpr.as_deref().and_then(|n| n.node.as_ref()) {
        return row_in_list(a, &name, use_or, row, &list.items, location);
    }
    let left = a.child(x.lexpr.as_deref())?;
    let items = list.items.iter().map(|n| a.expr(n)).collect::<Result<Vec<_>>>()?;
    let constants: Vec<&Expr> = items.iter().filter(|e| !e.contains_column()).collect();
    let (mut result, rest): (Option<Expr>, Vec<Expr>) =
        match array_op(a, &name, use_or, &left, &constants, location)? {
            Some(op) => (Some(op), items.into_iter().filter(Expr::contains_column).collect()),
            None => (None, items),
        };
    for item in rest {
        let cmp = make_op_in(a.host, &name, Some(left.clone()), item, location)?;
        let cmp = coerce_to_boolean(a.host, cmp, "IN")?;
        result = Some(match result {
            None => cmp,
            Some(prev) => {
                let op = if use_or { BoolOp::Or } else { BoolOp::And };
                Expr::Bool { op, args: vec![prev, cmp], location }
            }
        });
    }
    result.ok_or_else(|| SqlError::internal("empty IN list"))
}

/// `ROW(...) [NOT] IN (ROW(...), ...)`: a row comparison per item, OR-ed
/// (AND-ed for NOT IN), as PostgreSQL builds it when the left side is a row;
/// an item that is not a row constructor is compared as a record value.
fn row_in_list(
    a: &mut Analyzer,
    name: &str,
    use_or: bool,
    left: &RowExpr,
    items: &[Node],
    location: Option<u32>,
) -> Result<Expr> {
    let mut terms = Vec::with_capacity(items.len());
    for item in items {
        let cmp = match item.node.as_ref() {
            Some(NodeEnum::RowExpr(right)) => row_compare(a, name, left, right, location)?,
            _ => {
                let l = row_expr(a, left)?;
                let r = a.expr(item)?;
                make_op_in(a.host, name, Some(l), r, location)?
            }
        };
        terms.push(coerce_to_boolean(a.host, cmp, "IN")?);
    }
    let op = if use_or { BoolOp::Or } else { BoolOp::And };
    Ok(match terms.len() {
        1 => terms.remove(0),
        _ => Expr::Bool { op, args: terms, location },
    })
}

/// The `left op ANY/ALL (constants)` form, when there are at least two
/// constants with a usable common type.
fn array_op(
    a: &mut Analyzer,
    name: &str,
    use_or: bool,
    left: &Expr,
    constants: &[&Expr],
    location: Option<u32>,
) -> Result<Option<Expr>> {
    if constants.len() < 2 {
        return Ok(None);
    }
    let items: Vec<_> = std::iter::once(left)
        .chain(constants.iter().copied())
        .map(|e| (e.ty(), e.location()))
        .collect();
    let scalar = match common_type(&items, None)? {
        Some(t) if items.iter().all(|(ty, _)| can_coerce(*ty, t, CoercionContext::Implicit)) => t,
        _ => return Ok(None),
    };
    let mut coerced = Vec::with_capacity(constants.len());
    for c in constants {
        coerced.push(coerce_to_common(a.host, (*c).clone(), scalar, "IN")?);
    }
    // Resolve `left op element` with a stand-in for the list's elements.
    let element = Expr::CaseTest { ty: scalar, typmod: -1 };
    let op = make_op_in(a.host, name, Some(left.clone()), element, location)?;
    let not_boolean = "op ANY/ALL (array) requires operator to yield boolean";
    let (op, left, element) = split_boolean_op(op, not_boolean, location)?;
    let items = coerced
        .into_iter()
        .map(|c| coerce_implicit(a.host, c, element.ty()))
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(Expr::ScalarArrayOp { left: Box::new(left), op, items, use_or, location }))
}

/// `a [NOT] BETWEEN [SYMMETRIC] b AND c`, as comparisons.
pub(super) fn between(a: &mut Analyzer, x: &AExpr) -> Result<Expr> {
    let location = position_of(x.location);
    let value = a.child(x.lexpr.as_deref())?;
    let bounds = match x.rexpr.as_deref().and_then(|n| n.node.as_ref()) {
        Some(NodeEnum::List(list)) if list.items.len() == 2 => list.items.clone(),
        _ => return Err(SqlError::internal("BETWEEN without two bounds")),
    };
    let low = a.expr(&bounds[0])?;
    let high = a.expr(&bounds[1])?;
    let kind = AExprKind::try_from(x.kind).unwrap_or(AExprKind::AexprBetween);
    let negated = matches!(kind, AExprKind::AexprNotBetween | AExprKind::AexprNotBetweenSym);
    let symmetric = matches!(kind, AExprKind::AexprBetweenSym | AExprKind::AexprNotBetweenSym);
    let (ge, le, join) = if negated { ("<", ">", BoolOp::Or) } else { (">=", "<=", BoolOp::And) };
    let mut range = |lo: &Expr, hi: &Expr| -> Result<Expr> {
        let first = make_op_in(a.host, ge, Some(value.clone()), lo.clone(), location)?;
        let second = make_op_in(a.host, le, Some(value.clone()), hi.clone(), location)?;
        Ok(Expr::Bool { op: join, args: vec![first, second], location })
    };
    let forward = range(&low, &high)?;
    if !symmetric {
        return Ok(forward);
    }
    let backward = range(&high, &low)?;
    let outer = if negated { BoolOp::And } else { BoolOp::Or };
    Ok(Expr::Bool { op: outer, args: vec![forward, backward], location })
}
