//! Rows as values: row constructors, row comparison and field selection
//! (PostgreSQL's `transformRowExpr`, `make_row_comparison_op` in
//! `parse_expr.c` and `ParseComplexProjection`/`ExpandRowReference` in
//! `parse_func.c`/`parse_target.c`).
//!
//! * `ROW(a, b)` and `(a, b)` build an [`Expr::Row`] whose type is an
//!   anonymous `record` with fields `f1`, `f2`, ...; a whole-row reference
//!   (`column.rs`) is an `Expr::Row` too, with the columns' names.
//! * `ROW(...) op ROW(...)` is not a comparison of two record values: each
//!   pair of fields gets its own operator, resolved as for scalars. `=` ANDs
//!   the pairs and `<>` ORs them; `<`, `<=`, `>`, `>=` become an
//!   [`Expr::RowCompare`], where the first unequal pair decides. Rows of one
//!   field are just that field's comparison, as in PostgreSQL.
//! * `(x).f` selects a field of a composite-typed expression; of a row
//!   constructor (and so of a whole-row reference) it is the field's own
//!   expression, which is what PostgreSQL's planner reduces it to.
//! * `(x).*` in a select list is one column per field ([`expand_fields`]).

use pg_query::protobuf::{Node, RowExpr};
use sluice_types::ops::CmpOp;
use sluice_types::record::{RecordType, RowField, RowType};
use sluice_types::SqlType;

use super::analyze::Analyzer;
use super::builtin::Builtin;
use super::coerce::{resolve_unknown_with, type_name};
use super::oper::make_op_in;
use super::tree::{BoolOp, Expr};
use super::typename::position_of;
use crate::{Result, SqlError};

/// row_expr -- `ROW(a, b, ...)`: a composite value of an anonymous record
/// type (unknown literals become text, as the value needs a type).
pub(super) fn row_expr(an: &mut Analyzer, r: &RowExpr) -> Result<Expr> {
    let mut args = Vec::with_capacity(r.args.len());
    for arg in &r.args {
        let e = an.expr(arg)?;
        args.push(resolve_unknown_with(an.host, e)?);
    }
    let fields = args
        .iter()
        .enumerate()
        .map(|(i, a)| RowField { name: format!("f{}", i + 1), ty: a.ty(), typmod: a.typmod() })
        .collect();
    let ty = SqlType::Record(RecordType::intern(RowType { fields }));
    Ok(Expr::Row { args, ty, location: position_of(r.location) })
}

/// row_compare -- `ROW(...) op ROW(...)` field pair by field pair.
pub(super) fn row_compare(
    an: &mut Analyzer,
    name: &str,
    left: &RowExpr,
    right: &RowExpr,
    location: Option<u32>,
) -> Result<Expr> {
    let lefts = analyze_all(an, &left.args)?;
    let rights = analyze_all(an, &right.args)?;
    if lefts.len() != rights.len() {
        return Err(SqlError::syntax("unequal number of entries in row expressions").at(location));
    }
    if lefts.is_empty() {
        return Err(SqlError::unsupported("cannot compare rows of zero length").at(location));
    }
    let mut pairs = Vec::with_capacity(lefts.len());
    for (l, r) in lefts.into_iter().zip(rights) {
        let op = make_op_in(an.host, name, Some(l), r, location)?;
        if op.ty() != SqlType::Bool {
            return Err(SqlError::new(
                "42804",
                format!(
                    "row comparison operator must yield type boolean, not type {}",
                    type_name(op.ty())
                ),
            )
            .at(location));
        }
        pairs.push(op);
    }
    if pairs.len() == 1 {
        return Ok(pairs.remove(0));
    }
    combine(name, pairs, location)
}

/// The row comparison the pairwise operators add up to, by the B-tree
/// strategy they share (`=`, `<>`, or an ordering).
fn combine(name: &str, pairs: Vec<Expr>, location: Option<u32>) -> Result<Expr> {
    let mut ops = Vec::with_capacity(pairs.len());
    let mut left = Vec::with_capacity(pairs.len());
    let mut right = Vec::with_capacity(pairs.len());
    for pair in &pairs {
        let Expr::Call { func: Builtin::Compare(op, kind), args, .. } = pair else {
            return Err(no_interpretation(name, location));
        };
        let [l, r] = args.as_slice() else {
            return Err(no_interpretation(name, location));
        };
        ops.push((*op, *kind));
        left.push(l.clone());
        right.push(r.clone());
    }
    let op = ops[0].0;
    if ops.iter().any(|(o, _)| *o != op) {
        return Err(no_interpretation(name, location));
    }
    Ok(match op {
        CmpOp::Eq => Expr::Bool { op: BoolOp::And, args: pairs, location },
        CmpOp::Ne => Expr::Bool { op: BoolOp::Or, args: pairs, location },
        CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge => {
            let kinds = ops.into_iter().map(|(_, k)| k).collect();
            Expr::RowCompare { op, kinds, left, right, location }
        }
    })
}

/// 0A000 for an operator that is no B-tree comparison.
fn no_interpretation(name: &str, location: Option<u32>) -> SqlError {
    let op = name.rsplit('.').next().unwrap_or(name);
    SqlError::unsupported(format!(
        "could not determine interpretation of row comparison operator {op}"
    ))
    .with_hint("Row comparison operators must be associated with btree operator families.")
    .at(location)
}

/// Analyze each node in order.
fn analyze_all(an: &mut Analyzer, nodes: &[Node]) -> Result<Vec<Expr>> {
    nodes.iter().map(|n| an.expr(n)).collect()
}

/// field_select -- `(x).name`.
pub(super) fn field_select(x: Expr, name: &str, location: Option<u32>) -> Result<Expr> {
    let SqlType::Record(rt) = x.ty() else {
        return Err(SqlError::new(
            "42809",
            format!(
                "column notation .{name} applied to type {}, which is not a composite type",
                type_name(x.ty())
            ),
        )
        .at(location));
    };
    let Some(field) = rt.fields().iter().position(|f| f.name == name) else {
        return Err(SqlError::new(
            "42703",
            format!("could not identify column \"{name}\" in record data type"),
        )
        .at(location));
    };
    Ok(select(x, rt, field))
}

/// Field `field` of `x`, whose type is `rt`: the field's own expression for
/// a row constructor, a [`Expr::FieldSelect`] otherwise.
fn select(x: Expr, rt: RecordType, field: usize) -> Expr {
    let f = &rt.fields()[field];
    match x {
        Expr::Row { mut args, .. } => args.swap_remove(field),
        x => Expr::FieldSelect { arg: Box::new(x), field, ty: f.ty, typmod: f.typmod },
    }
}

/// expand_fields -- `(x).*` in a select list: (name, expression) per field.
pub fn expand_fields(x: Expr, location: Option<u32>) -> Result<Vec<(String, Expr)>> {
    let SqlType::Record(rt) = x.ty() else {
        return Err(SqlError::new("42809", format!("type {} is not composite", type_name(x.ty())))
            .at(location));
    };
    Ok(rt
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.clone(), select(x.clone(), rt, i)))
        .collect())
}
