//! `ARRAY(SELECT ...)`: a subquery's single column collected into an array
//! (PostgreSQL's `ARRAY_SUBLINK`).
//!
//! The planner knows scalar, EXISTS and ANY/ALL subqueries; an ARRAY
//! subquery is the scalar subquery that aggregates the original's rows,
//!
//! ```text
//!   ARRAY(q)  ≡  COALESCE((SELECT array_agg("?column?") FROM (q) AS "?array?"("?column?")),
//!                         '{}')
//! ```
//!
//! because `array_agg` keeps its input's order (so `ORDER BY` inside `q`
//! orders the array) and yields NULL for no rows where ARRAY gives an empty
//! array. `q` stays a subquery in FROM, so its references to the enclosing
//! queries still resolve there. One difference: a `q` of several columns is
//! not refused (PostgreSQL: "subquery must return only one column"); its
//! first column is collected.

use pg_query::protobuf::node::Node as NodeEnum;
use pg_query::protobuf::{
    Alias, ColumnRef, FuncCall, LimitOption, Node, RangeSubselect, ResTarget, SelectStmt,
    SetOperation,
};
use sluice_types::Datum;

use super::tree::Expr;
use super::{AnalyzeHost, SubLinkKind};
use crate::{Result, SqlError};

/// The names the wrapper gives the subquery and its column; not valid
/// unquoted identifiers, so no user query can mean them.
const ALIAS: &str = "?array?";
const COLUMN: &str = "?column?";

/// array_sublink -- `ARRAY(query)` as an expression of the array type.
pub(super) fn array_sublink(
    host: &mut dyn AnalyzeHost,
    query: &Node,
    location: Option<u32>,
) -> Result<Expr> {
    let (id, ty) = host.subquery(SubLinkKind::Scalar, &wrapper(query.clone()), None)?;
    let elem = ty.element().ok_or_else(|| SqlError::internal("array_agg gave no array"))?;
    let elem = sluice_types::ElemType::new(elem).ok_or_else(|| SqlError::internal("no array"))?;
    let collected = Expr::SubLink { id, kind: SubLinkKind::Scalar, ty, location };
    let empty = Expr::Const { value: Datum::array(elem, Vec::new()), ty, typmod: -1, location };
    Ok(Expr::Coalesce { args: vec![collected, empty], ty, typmod: -1, location })
}

/// `SELECT array_agg(column) FROM (query) AS alias(column)`.
fn wrapper(query: Node) -> Node {
    let column = node(NodeEnum::ColumnRef(ColumnRef {
        fields: vec![string(ALIAS), string(COLUMN)],
        location: -1,
    }));
    let call = node(NodeEnum::FuncCall(Box::new(FuncCall {
        funcname: vec![string("array_agg")],
        args: vec![column],
        location: -1,
        ..FuncCall::default()
    })));
    let target = node(NodeEnum::ResTarget(Box::new(ResTarget {
        val: Some(Box::new(call)),
        location: -1,
        ..ResTarget::default()
    })));
    let from = node(NodeEnum::RangeSubselect(Box::new(RangeSubselect {
        lateral: false,
        subquery: Some(Box::new(query)),
        alias: Some(Alias { aliasname: ALIAS.into(), colnames: vec![string(COLUMN)] }),
    })));
    node(NodeEnum::SelectStmt(Box::new(SelectStmt {
        target_list: vec![target],
        from_clause: vec![from],
        limit_option: LimitOption::Default as i32,
        op: SetOperation::SetopNone as i32,
        ..SelectStmt::default()
    })))
}

fn node(n: NodeEnum) -> Node {
    Node { node: Some(n) }
}

fn string(s: &str) -> Node {
    node(NodeEnum::String(pg_query::protobuf::String { sval: s.into() }))
}
