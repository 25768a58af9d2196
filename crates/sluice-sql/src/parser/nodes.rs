//! Helpers over pg_query's parse trees: the string a node spells, an
//! identifier quoted the way PostgreSQL's `quote_identifier` quotes it, and
//! an expression node written back as SQL text (libpg_query's deparser).
//! Every layer above the parser reads raw parse trees through these.

use crate::error::{Result, SqlError};
use pg_query::protobuf::{a_const, Node};
use pg_query::NodeEnum;

/// The string value of a `String` or `A_Const` node (option values, names).
pub fn node_str(node: &Node) -> Option<String> {
    match node.node.as_ref()? {
        NodeEnum::String(s) => Some(s.sval.clone()),
        NodeEnum::AConst(c) => match c.val.as_ref()? {
            a_const::Val::Sval(s) => Some(s.sval.clone()),
            a_const::Val::Ival(i) => Some(i.ival.to_string()),
            a_const::Val::Fval(f) => Some(f.fval.clone()),
            a_const::Val::Boolval(b) => Some(if b.boolval { "true" } else { "false" }.to_string()),
            a_const::Val::Bsval(b) => Some(b.bsval.clone()),
        },
        NodeEnum::Integer(i) => Some(i.ival.to_string()),
        NodeEnum::Float(f) => Some(f.fval.clone()),
        _ => None,
    }
}

/// The value of an option as text (PostgreSQL's defGetString): a string,
/// a number, or a word the grammar took for a type name (`= foo`); `true`
/// when no value is given.
pub(crate) fn def_arg_string(def: &pg_query::protobuf::DefElem) -> String {
    let Some(arg) = def.arg.as_deref() else { return "true".to_string() };
    match arg.node.as_ref() {
        Some(NodeEnum::TypeName(t)) => t.names.last().and_then(node_str).unwrap_or_default(),
        Some(NodeEnum::Boolean(b)) => if b.boolval { "true" } else { "false" }.to_string(),
        _ => node_str(arg).unwrap_or_default(),
    }
}

/// raw_location -- the 1-based position of a raw expression, for the
/// node kinds errors point at.
pub(crate) fn raw_location(node: &Node) -> Option<u32> {
    let location = match node.node.as_ref()? {
        NodeEnum::SortBy(s) => return s.node.as_deref().and_then(raw_location),
        NodeEnum::ResTarget(r) => r.location,
        NodeEnum::AConst(c) => c.location,
        NodeEnum::ColumnRef(c) => c.location,
        NodeEnum::AExpr(a) => a.location,
        NodeEnum::FuncCall(f) => f.location,
        NodeEnum::ParamRef(p) => p.location,
        NodeEnum::TypeCast(t) => t.location,
        NodeEnum::SetToDefault(d) => d.location,
        NodeEnum::RowExpr(r) => r.location,
        NodeEnum::AArrayExpr(a) => a.location,
        NodeEnum::CaseExpr(c) => c.location,
        NodeEnum::SubLink(s) => s.location,
        NodeEnum::BoolExpr(b) => b.location,
        _ => return None,
    };
    crate::error::position(location)
}

/// quote_identifier -- `ident` as SQL shows it: bare if it is a plain
/// lower-case identifier, else in double quotes (PostgreSQL's quote_identifier,
/// without the keyword check).
pub(crate) fn quote_identifier(ident: &str) -> String {
    let plain = ident.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && ident.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        ident.to_string()
    } else {
        format!("\"{}\"", ident.replace('"', "\"\""))
    }
}

/// SQL text of an expression node (stored in `pg_attrdef.adbin`).
pub(crate) fn deparse_expr(expr: &pg_query::protobuf::Node) -> Result<String> {
    let target = pg_query::protobuf::ResTarget {
        name: String::new(),
        indirection: vec![],
        val: Some(Box::new(expr.clone())),
        location: -1,
    };
    // Every enum field must hold a valid value: libpg_query asserts on
    // protobuf's "undefined" zeros when it converts the tree back.
    let select = pg_query::protobuf::SelectStmt {
        target_list: vec![pg_query::protobuf::Node {
            node: Some(NodeEnum::ResTarget(Box::new(target))),
        }],
        op: pg_query::protobuf::SetOperation::SetopNone as i32,
        limit_option: pg_query::protobuf::LimitOption::Default as i32,
        ..Default::default()
    };
    let text = NodeEnum::SelectStmt(Box::new(select))
        .deparse(pg_query::DeparseOptions::default())
        .map_err(|e| SqlError::internal(format!("could not deparse expression: {e}")))?;
    Ok(text.strip_prefix("SELECT ").unwrap_or(&text).to_string())
}

/// parse_expr -- the expression node of SQL text that [`deparse_expr`]
/// (or the expression deparser) wrote: a stored default, CHECK, generation
/// expression or index predicate. Text that is no lone expression is an
/// internal error naming `what` it was stored as.
pub(crate) fn parse_expr(text: &str, what: &str) -> Result<pg_query::protobuf::Node> {
    let invalid = || SqlError::internal(format!("invalid {what} {text}"));
    let parsed = super::parse(&format!("SELECT {text}"))?;
    let Some(NodeEnum::SelectStmt(select)) = parsed.first().map(|s| &s.node) else {
        return Err(invalid());
    };
    let Some(NodeEnum::ResTarget(target)) =
        select.target_list.first().and_then(|t| t.node.as_ref())
    else {
        return Err(invalid());
    };
    target.val.as_deref().cloned().ok_or_else(invalid)
}

/// quoted_len -- the length of the quoted token `text` starts with, both
/// `quote` characters included (a doubled quote inside stands for one, as
/// in SQL string literals and quoted identifiers); all of `text` if it is
/// not closed.
pub(crate) fn quoted_len(text: &str, quote: u8) -> usize {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    text.len()
}
