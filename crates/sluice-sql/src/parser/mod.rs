//! Parsing: PostgreSQL's own grammar through `pg_query` (libpg_query, the
//! PostgreSQL 18 parser compiled as a library).
//!
//! A query string may hold several statements (the simple query protocol sends
//! them together); [`parse`] splits it into [`RawStatement`]s, each with its own
//! text and position, so errors point at the right place and
//! `pg_stat_activity.query` can show the statement.
//!
//! `pg_query`'s Rust API drops the error's cursor position, which psql needs to
//! print its `LINE 1: ...` pointer; `ffi.rs` asks libpg_query again for just that,
//! only on the error path.

mod ffi;
mod nodes;
pub(crate) mod unsupported;

pub use nodes::node_str;
pub(crate) use nodes::{
    def_arg_string, deparse_expr, parse_expr, quote_identifier, quoted_len, raw_location,
};

use crate::error::{Result, SqlError};
use pg_query::NodeEnum;

/// One statement of a query string.
#[derive(Clone, Debug)]
pub struct RawStatement {
    /// The parse tree.
    pub node: NodeEnum,
    /// Byte offset of the statement in the query string.
    pub location: usize,
    /// The statement's own text (without the separating semicolon).
    pub text: String,
}

/// parse -- parses `sql` into its statements. An empty string (or only
/// comments/semicolons) gives an empty list, which the protocol answers with
/// EmptyQueryResponse.
pub fn parse(sql: &str) -> Result<Vec<RawStatement>> {
    if sql.contains('\0') {
        return Err(SqlError::new("22021", "invalid byte sequence for encoding \"UTF8\": 0x00"));
    }
    let parsed = pg_query::parse(sql, pg_query::ParserOptions::default())
        .map_err(|e| parse_error(sql, e))?;
    let mut statements = Vec::new();
    for raw in parsed.protobuf.stmts {
        let Some(node) = raw.stmt.and_then(|n| n.node) else { continue };
        let location = raw.stmt_location.max(0) as usize;
        let text = statement_text(sql, location, raw.stmt_len.max(0) as usize);
        statements.push(RawStatement { node, location, text });
    }
    Ok(statements)
}

/// The text of the statement at `location`; a length of 0 means "to the end".
fn statement_text(sql: &str, location: usize, len: usize) -> String {
    let end = if len == 0 { sql.len() } else { (location + len).min(sql.len()) };
    sql.get(location..end).unwrap_or("").trim().to_string()
}

fn parse_error(sql: &str, e: pg_query::Error) -> SqlError {
    let message = match e {
        pg_query::Error::Parse(m) => m,
        other => other.to_string(),
    };
    let code = if message.starts_with("syntax error") || message.starts_with("unterminated") {
        "42601"
    } else if message.contains("invalid byte sequence") {
        "22021"
    } else {
        "42601"
    };
    SqlError::new(code, message).at(ffi::error_position(sql))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_statements_with_their_text() {
        let stmts = parse("SELECT 1; INSERT INTO t VALUES (2) ;; SELECT 'a;b'").unwrap();
        assert_eq!(stmts.len(), 3);
        assert_eq!(stmts[0].text, "SELECT 1");
        assert_eq!(stmts[1].text, "INSERT INTO t VALUES (2)");
        assert_eq!(stmts[2].text, "SELECT 'a;b'");
        assert!(matches!(stmts[1].node, NodeEnum::InsertStmt(_)));
        assert!(parse("  -- nothing\n ; ").unwrap().is_empty());
    }

    #[test]
    fn syntax_errors_carry_postgres_text_and_position() {
        let err = parse("SELECT * FORM t").unwrap_err();
        assert_eq!(err.code, "42601");
        assert_eq!(err.message, "syntax error at or near \"FORM\"");
        assert_eq!(err.position, Some(10));
        let err = parse("SELECT 1 FROM t WHERE").unwrap_err();
        assert_eq!(err.message, "syntax error at end of input");
        assert_eq!(err.position, Some(22));
        let err = parse("SELECT 'abc").unwrap_err();
        assert_eq!(err.message, "unterminated quoted string at or near \"'abc\"");
        assert_eq!(err.position, Some(8));
    }
}
