//! Which conditions can bound an index scan (PostgreSQL's
//! `optimizer/path/indxpath.c`: match_clause_to_indexcol, and
//! predicate_implied_by's common case for partial indexes).
//!
//! A condition bounds a scan when it is one of the WHERE clause's top-level
//! AND-ed terms and compares the leading column of an ascending B-tree with
//! a value that does not depend on the row (a constant or a parameter): `=`
//! bounds both ends, `>`/`>=` the start and `<`/`<=` the end;
//! `column = ANY (array)` bounds it with one equality range per element.
//! The executor (`executor/indexscan.rs`) turns the chosen quals into scan
//! keys; the whole WHERE clause is still evaluated on every row returned, so
//! the bounds only have to be conservative.
//!
//! A partial index is usable only when the query's WHERE clause implies its
//! predicate, which is stored as SQL text and analysed here
//! ([`analyze_predicate`]).

use super::planhost::PlanHost;
use super::plannodes::IndexQual;
use crate::catalog::index::IndexDesc;
use crate::catalog::pg_type::TypeCatalog;
use crate::catalog::relation::RelationDesc;
use crate::error::Result;
use crate::expr::{analyze, coerce, relation_scope, BoolOp, Builtin, CoercionContext, Expr};
use sluice_types::ops::CmpOp;
use sluice_types::{Datum, SqlType};

/// analyze_predicate -- the WHERE clause of a partial index (stored as SQL
/// text) as an expression over the table's columns.
pub fn analyze_predicate(table: &RelationDesc, text: &str, types: &TypeCatalog) -> Result<Expr> {
    let node = crate::parser::parse_expr(text, "index predicate")?;
    let scope = relation_scope(table, &table.name);
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params).with_types(types.clone());
    let expr = analyze(&node, &scope, &mut host)?;
    coerce(expr, SqlType::Bool, -1, CoercionContext::Assignment)
}

/// The top-level AND-ed conditions of `qual`.
pub fn conjuncts(qual: &Expr) -> Vec<&Expr> {
    match qual {
        Expr::Bool { op: BoolOp::And, args, .. } => args.iter().flat_map(conjuncts).collect(),
        other => vec![other],
    }
}

/// predicate_terms -- the AND-ed terms of a partial index's predicate (SQL
/// text over `rel`'s columns), in deparsed form; empty if it cannot be read.
///
/// A query may use a partial index only when its WHERE clause implies the
/// predicate. PostgreSQL proves that with predicate_implied_by's operator
/// reasoning; sluice recognises the common case the seeds use — every term
/// of the predicate written among the WHERE clause's terms (`WHERE
/// finished_at IS NULL AND ...` for an index `WHERE finished_at IS NULL`).
pub fn predicate_terms(rel: &RelationDesc, predicate: &str, types: &TypeCatalog) -> Vec<String> {
    match analyze_predicate(rel, predicate, types) {
        Ok(expr) => conjuncts(&expr).iter().map(|c| term_text(rel, c)).collect(),
        Err(_) => Vec::new(),
    }
}

/// A condition over `rel`'s columns in deparsed form, for comparing terms.
pub fn term_text(rel: &RelationDesc, term: &Expr) -> String {
    let names: Vec<String> = rel.columns.iter().map(|c| c.name.clone()).collect();
    crate::expr::deparse::expr(term, &names)
}

/// Whether `e` has the same value for every row (constants, parameters).
fn row_independent(e: &Expr) -> bool {
    match e {
        Expr::Const { .. } | Expr::Param { .. } => true,
        Expr::Cast { arg, .. } => row_independent(arg),
        _ => false,
    }
}

/// The operator seen from the other side (`5 < x` is `x > 5`).
pub(crate) fn commute(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// index_qual -- `cond` as a condition on column `column` (of type `ty`).
pub fn index_qual(cond: &Expr, column: usize, ty: SqlType) -> Option<IndexQual> {
    let is_key =
        |e: &Expr| matches!(e, Expr::Column { index, ty: t, .. } if *index == column && *t == ty);
    let (op, args) = match cond {
        Expr::Call { func: Builtin::Compare(op, _), args, .. } => (*op, args),
        Expr::Call {
            func: Builtin::AnyAll { op: Builtin::Compare(CmpOp::Eq, _), all: false },
            args,
            ..
        } => {
            let [key, array] = args.as_slice() else { return None };
            let fits = array.ty().element().is_some_and(|elem| fits_key(elem, ty));
            return (is_key(key) && row_independent(array) && fits).then(|| IndexQual {
                op: CmpOp::Eq,
                value: array.clone(),
                any: true,
            });
        }
        _ => return None,
    };
    if op == CmpOp::Ne || args.len() != 2 {
        return None;
    }
    if is_key(&args[0]) && row_independent(&args[1]) {
        return bound_value(&args[1], ty).map(|value| IndexQual { op, value, any: false });
    }
    if is_key(&args[1]) && row_independent(&args[0]) {
        return bound_value(&args[0], ty).map(|value| IndexQual {
            op: commute(op),
            value,
            any: false,
        });
    }
    None
}

/// bound_value -- `value` if it can bound a key of type `ty` ([`fits_key`]).
fn bound_value(value: &Expr, ty: SqlType) -> Option<Expr> {
    fits_key(value.ty(), ty).then(|| value.clone())
}

/// Whether a value of type `value` can bound a key of type `key`: the same
/// type, or a narrower integer (`bigint_col > 5`, which PostgreSQL's
/// cross-type integer operators serve; [`widen`] converts the value when
/// the scan starts).
fn fits_key(value: SqlType, key: SqlType) -> bool {
    let narrower = matches!(
        (value, key),
        (SqlType::Int2, SqlType::Int4 | SqlType::Int8) | (SqlType::Int4, SqlType::Int8)
    );
    value == key || narrower
}

/// widen -- a bound's value in the key's integer type (see [`bound_value`]).
pub fn widen(value: Datum, ty: SqlType) -> Datum {
    match (value, ty) {
        (Datum::Int2(v), SqlType::Int4) => Datum::Int4(i32::from(v)),
        (Datum::Int2(v), SqlType::Int8) => Datum::Int8(i64::from(v)),
        (Datum::Int4(v), SqlType::Int8) => Datum::Int8(i64::from(v)),
        (other, _) => other,
    }
}

/// index_quals -- the conditions of `qual` that bound `index`'s leading
/// column, or `None` if the index cannot serve the scan (a DESC leading
/// column, or a partial index whose predicate `qual` does not imply). An
/// empty list means a scan of the whole index.
pub fn index_quals(
    rel: &RelationDesc,
    index: &IndexDesc,
    qual: Option<&Expr>,
    types: &TypeCatalog,
) -> Option<Vec<IndexQual>> {
    let (Some(&first), Some(order)) = (index.keys.first(), index.orders.first()) else {
        return None;
    };
    if order.descending {
        return None;
    }
    if let Some(predicate) = &index.predicate {
        let terms = predicate_terms(rel, predicate, types);
        let have: Vec<String> =
            qual.map(conjuncts).unwrap_or_default().iter().map(|c| term_text(rel, c)).collect();
        if terms.is_empty() || !terms.iter().all(|t| have.contains(t)) {
            return None;
        }
    }
    let column = first as usize - 1;
    let ty = rel.columns[column].ty;
    let conds = qual.map(conjuncts).unwrap_or_default();
    Some(conds.iter().filter_map(|c| index_qual(c, column, ty)).collect())
}

/// The stored form of a partial index's WHERE clause: the analysed
/// condition written back as PostgreSQL's deparser writes it (every operator
/// parenthesised, constants with their types: `((b > 0) AND (c = 'x'::text))`),
/// so `pg_get_expr` and `pg_get_indexdef` show what PostgreSQL shows.
pub(crate) fn predicate_text(
    table: &RelationDesc,
    node: &pg_query::protobuf::Node,
    types: &TypeCatalog,
) -> Result<String> {
    let text = crate::parser::deparse_expr(node)?;
    let analysed = analyze_predicate(table, &text, types)?;
    let names: Vec<String> = table.columns.iter().map(|c| c.name.clone()).collect();
    Ok(crate::expr::deparse::expr(&analysed, &names))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrower_integer_bounds_are_widened_and_others_refused() {
        let int4 = Expr::constant(Datum::Int4(5), SqlType::Int4, -1);
        let int8 = Expr::constant(Datum::Int8(5), SqlType::Int8, -1);
        assert!(bound_value(&int4, SqlType::Int8).is_some());
        assert!(bound_value(&int8, SqlType::Int8).is_some());
        assert!(bound_value(&int8, SqlType::Int4).is_none(), "could overflow the key type");
        assert!(bound_value(&int4, SqlType::Text).is_none());
        assert_eq!(widen(Datum::Int4(-7), SqlType::Int8), Datum::Int8(-7));
        assert_eq!(widen(Datum::Int2(3), SqlType::Int4), Datum::Int4(3));
        assert_eq!(widen(Datum::Null, SqlType::Int8), Datum::Null);
    }
}
