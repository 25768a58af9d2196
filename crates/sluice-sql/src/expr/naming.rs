//! Output column names for unnamed select-list items (PostgreSQL's
//! `FigureColname` in `parse_target.c`).
//!
//! A name is found with a *strength*: a column or function name is strong,
//! a type name (`'1'::int` → `int4`) or `case` is weak and yields to a
//! strong name found inside (`x::text` is `x`, `CASE ... ELSE y END` is `y`).
//! Anything else is `?column?`.

use pg_query::protobuf::node::Node as NodeEnum;
use pg_query::protobuf::{AExprKind, MinMaxOp, Node, SqlValueFunctionOp, SubLinkType};

use super::typename::string_of;

/// How sure a name is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    /// A fallback (`case`, a cast's type name).
    Weak,
    /// A real name (column, function, construct).
    Strong,
}

/// column_name -- the name PostgreSQL gives a select-list expression
/// written without `AS`.
pub fn column_name(node: &Node) -> String {
    figure(node).map_or_else(|| "?column?".to_string(), |(name, _)| name)
}

/// FigureColnameInternal.
fn figure(node: &Node) -> Option<(String, Strength)> {
    let strong = |s: &str| Some((s.to_string(), Strength::Strong));
    match node.node.as_ref()? {
        NodeEnum::ColumnRef(c) => {
            c.fields.iter().filter_map(string_of).next_back().and_then(strong)
        }
        NodeEnum::AIndirection(i) => match i.indirection.iter().filter_map(string_of).next_back() {
            Some(name) => strong(name),
            None => i.arg.as_deref().and_then(figure),
        },
        NodeEnum::FuncCall(f) => f.funcname.last().and_then(string_of).and_then(strong),
        NodeEnum::AExpr(a) if a.kind == AExprKind::AexprNullif as i32 => strong("nullif"),
        NodeEnum::TypeCast(t) => match t.arg.as_deref().and_then(figure) {
            Some(found @ (_, Strength::Strong)) => Some(found),
            weak => t
                .type_name
                .as_ref()
                .and_then(|tn| tn.names.last())
                .and_then(string_of)
                .map(|n| (n.to_string(), Strength::Weak))
                .or(weak),
        },
        NodeEnum::CollateClause(c) => c.arg.as_deref().and_then(figure),
        NodeEnum::SubLink(s) => sublink_name(s),
        NodeEnum::CaseExpr(c) => match c.defresult.as_deref().and_then(figure) {
            Some(found @ (_, Strength::Strong)) => Some(found),
            _ => Some(("case".to_string(), Strength::Weak)),
        },
        NodeEnum::AArrayExpr(_) => strong("array"),
        NodeEnum::RowExpr(_) => strong("row"),
        NodeEnum::CoalesceExpr(_) => strong("coalesce"),
        NodeEnum::MinMaxExpr(m) if m.op == MinMaxOp::IsGreatest as i32 => strong("greatest"),
        NodeEnum::MinMaxExpr(_) => strong("least"),
        NodeEnum::SqlvalueFunction(f) => strong(sql_value_function_name(f.op)),
        _ => None,
    }
}

/// `exists`, `array`, or a scalar subquery's single column name.
fn sublink_name(s: &pg_query::protobuf::SubLink) -> Option<(String, Strength)> {
    let kind = SubLinkType::try_from(s.sub_link_type).ok()?;
    match kind {
        SubLinkType::ExistsSublink => Some(("exists".to_string(), Strength::Strong)),
        SubLinkType::ArraySublink => Some(("array".to_string(), Strength::Strong)),
        SubLinkType::ExprSublink => {
            let Some(NodeEnum::SelectStmt(select)) = s.subselect.as_deref()?.node.as_ref() else {
                return None;
            };
            let Some(NodeEnum::ResTarget(target)) = select.target_list.first()?.node.as_ref()
            else {
                return None;
            };
            let name = match (&target.name, target.val.as_deref()) {
                (name, _) if !name.is_empty() => name.clone(),
                (_, Some(val)) => column_name(val),
                (_, None) => return None,
            };
            Some((name, Strength::Strong))
        }
        _ => None,
    }
}

/// The names of `CURRENT_DATE` and friends.
fn sql_value_function_name(op: i32) -> &'static str {
    use SqlValueFunctionOp as Op;
    match Op::try_from(op).unwrap_or(Op::SqlvalueFunctionOpUndefined) {
        Op::SvfopCurrentDate => "current_date",
        Op::SvfopCurrentTime | Op::SvfopCurrentTimeN => "current_time",
        Op::SvfopCurrentTimestamp | Op::SvfopCurrentTimestampN => "current_timestamp",
        Op::SvfopLocaltime | Op::SvfopLocaltimeN => "localtime",
        Op::SvfopLocaltimestamp | Op::SvfopLocaltimestampN => "localtimestamp",
        Op::SvfopCurrentRole => "current_role",
        Op::SvfopCurrentUser => "current_user",
        Op::SvfopUser => "user",
        Op::SvfopSessionUser => "session_user",
        Op::SvfopCurrentCatalog => "current_catalog",
        Op::SvfopCurrentSchema => "current_schema",
        Op::SqlvalueFunctionOpUndefined => "?column?",
    }
}
