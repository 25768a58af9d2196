//! SQLSTATE codes: the five-character error class every PostgreSQL error carries.
//!
//! Clients branch on these (psycopg maps them to exception classes, JDBC to
//! `SQLState`, psql prints them with `\set VERBOSITY verbose`), so sluice reports
//! exactly PostgreSQL's code for every condition PostgreSQL has (see PostgreSQL's
//! `src/backend/utils/errcodes.txt`). A code is five characters from `[0-9A-Z]`; the
//! first two name the class (`08` connection exception, `57` operator intervention...).
//!
//! Only the codes the protocol layer itself raises are named here; the SQL engine
//! builds its own with [`SqlState::parse`] or defines further constants next to the
//! code that raises them. Codes are plain `Copy` values: no allocation, no locking.

use std::fmt;

/// A validated SQLSTATE code (five characters from `[0-9A-Z]`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SqlState([u8; 5]);

impl SqlState {
    /// 08P01: the client broke the wire protocol (bad length, unknown message...).
    pub const PROTOCOL_VIOLATION: SqlState = SqlState::from_static(b"08P01");
    /// 08006: the connection to the client is gone.
    pub const CONNECTION_FAILURE: SqlState = SqlState::from_static(b"08006");
    /// 0A000: a request sluice understands but does not support.
    pub const FEATURE_NOT_SUPPORTED: SqlState = SqlState::from_static(b"0A000");
    /// 22021: text that is not valid in the server encoding (UTF8).
    pub const CHARACTER_NOT_IN_REPERTOIRE: SqlState = SqlState::from_static(b"22021");
    /// 22023: a protocol-level parameter with an impossible value (format codes).
    pub const INVALID_PARAMETER_VALUE: SqlState = SqlState::from_static(b"22023");
    /// 26000: Bind or Describe names a prepared statement that does not exist.
    pub const UNDEFINED_PSTATEMENT: SqlState = SqlState::from_static(b"26000");
    /// 28000: the startup packet names no user.
    pub const INVALID_AUTHORIZATION_SPECIFICATION: SqlState = SqlState::from_static(b"28000");
    /// 34000: Execute or Describe names a portal that does not exist.
    pub const UNDEFINED_CURSOR: SqlState = SqlState::from_static(b"34000");
    /// 42601: a startup packet's `options` holds a switch a client cannot give.
    pub const SYNTAX_ERROR: SqlState = SqlState::from_static(b"42601");
    /// 42P03: Bind would create a named portal that already exists.
    pub const DUPLICATE_CURSOR: SqlState = SqlState::from_static(b"42P03");
    /// 42P05: Parse would create a named statement that already exists.
    pub const DUPLICATE_PSTATEMENT: SqlState = SqlState::from_static(b"42P05");
    /// 57014: the statement was cancelled (CancelRequest, or COPY aborted by the client).
    pub const QUERY_CANCELED: SqlState = SqlState::from_static(b"57014");
    /// 57P01: the server is shutting down and terminates the session.
    pub const ADMIN_SHUTDOWN: SqlState = SqlState::from_static(b"57P01");
    /// 57P03: a connection arrived while the server is shutting down.
    pub const CANNOT_CONNECT_NOW: SqlState = SqlState::from_static(b"57P03");
    /// XX000: an internal error (a bug), such as a panic in engine code.
    pub const INTERNAL_ERROR: SqlState = SqlState::from_static(b"XX000");

    /// from_static -- build a constant, checked at compile time.
    const fn from_static(code: &[u8; 5]) -> SqlState {
        let mut i = 0;
        while i < 5 {
            assert!(is_sqlstate_char(code[i]), "SQLSTATE characters are [0-9A-Z]");
            i += 1;
        }
        SqlState(*code)
    }

    /// Parse a code such as `"22012"`; `None` unless it is five characters of `[0-9A-Z]`.
    pub fn parse(code: &str) -> Option<SqlState> {
        let bytes: [u8; 5] = code.as_bytes().try_into().ok()?;
        bytes.iter().all(|&b| is_sqlstate_char(b)).then_some(SqlState(bytes))
    }

    /// The code as text, e.g. `"08P01"`.
    pub fn as_str(&self) -> &str {
        // Every constructor admits only ASCII, so this cannot fail; the fallback
        // keeps the function total without an unwrap.
        std::str::from_utf8(&self.0).unwrap_or("XX000")
    }
}

/// is_sqlstate_char -- the alphabet of SQLSTATE codes.
const fn is_sqlstate_char(b: u8) -> bool {
    b.is_ascii_digit() || b.is_ascii_uppercase()
}

impl fmt::Display for SqlState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for SqlState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SqlState({})", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_only_valid_codes() {
        assert_eq!(SqlState::parse("22012").map(|s| s.to_string()), Some("22012".into()));
        assert_eq!(SqlState::parse("08P01"), Some(SqlState::PROTOCOL_VIOLATION));
        assert_eq!(SqlState::parse("2201"), None);
        assert_eq!(SqlState::parse("220122"), None);
        assert_eq!(SqlState::parse("22a12"), None);
        assert_eq!(SqlState::parse("2201é"), None);
    }
}
