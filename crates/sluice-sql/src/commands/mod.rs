//! Utility statements (PostgreSQL's `commands/` and `tcop/utility.c`):
//! transaction control, settings, and table DDL.

pub mod analyze;
pub mod cluster;
pub mod copy;
pub mod dbcommands;
pub mod extension;
pub mod indexcmds;
pub mod sequence;
pub mod tablecmds;
pub mod truncate;
pub mod vacuum;
pub mod variable;

use pg_query::protobuf::{a_const, Node};
use pg_query::NodeEnum;

/// The string value of a `String` or `A_Const` node (option values, names).
pub(crate) fn node_str(node: &Node) -> Option<String> {
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
