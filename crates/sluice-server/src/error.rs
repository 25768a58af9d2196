//! `PgError`: one report type for errors and notices, as PostgreSQL's `ereport`.
//!
//! PostgreSQL has one reporting path for every level (`ereport(ERROR, ...)`,
//! `ereport(NOTICE, ...)`), and the wire carries both as the same list of fields
//! (ErrorResponse and NoticeResponse differ only in the message type byte). sluice
//! mirrors that: a [`PgError`] carries a [`Severity`], a [`SqlState`], the one-line
//! message, and the optional DETAIL, HINT, cursor position and the rest.
//!
//! What the severity means to the protocol layer (see `tcop.rs`):
//! - `Error`: the statement (and, in the extended protocol, the rest of the pipeline
//!   up to Sync) is abandoned; the session goes on.
//! - `Fatal` / `Panic`: the report is sent and the session ends. PostgreSQL's PANIC
//!   would restart the whole server; sluice ends only the session that raised it and
//!   leaves it to the engine to stop the rest if shared state is damaged.
//! - `Warning`, `Notice`, `Info`, `Log`, `Debug`: only ever sent as NoticeResponse.
//!
//! The field order on the wire is PostgreSQL's (`send_message_to_frontend`): S, V,
//! C, M, D, H, P, p, q, W, s, t, c, d, n. The F/L/R fields (C source file, line,
//! routine) are never sent: they would name sluice's Rust code, not PostgreSQL's.

use std::fmt;
use std::ops::{Deref, DerefMut};

use pgwire::messages::response::{ErrorResponse, NoticeResponse};

use crate::sqlstate::SqlState;

/// How serious a report is; decides ErrorResponse vs NoticeResponse and what the
/// session does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The current statement fails; the session continues.
    Error,
    /// The session ends after the report is sent.
    Fatal,
    /// The session ends after the report is sent (PostgreSQL would restart the server).
    Panic,
    /// A notice that something is probably wrong (NoticeResponse).
    Warning,
    /// A notice the user may want to know about (NoticeResponse).
    Notice,
    /// A notice the user asked for, e.g. VACUUM VERBOSE output (NoticeResponse).
    Info,
    /// A server-log-level message forwarded to the client (NoticeResponse).
    Log,
    /// Debugging output (NoticeResponse); PostgreSQL's DEBUG1..DEBUG5 all print "DEBUG".
    Debug,
}

impl Severity {
    /// The non-localized name sent in the S and V fields.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
            Severity::Panic => "PANIC",
            Severity::Warning => "WARNING",
            Severity::Notice => "NOTICE",
            Severity::Info => "INFO",
            Severity::Log => "LOG",
            Severity::Debug => "DEBUG",
        }
    }

    /// Whether a report of this severity ends the session.
    pub fn ends_session(self) -> bool {
        matches!(self, Severity::Fatal | Severity::Panic)
    }
}

/// An error or notice report; its fields are in [`ErrorFields`], reached through
/// `Deref` (`err.code`, `err.message`).
///
/// The fields live behind a `Box` so that `Result<T, PgError>` stays one pointer
/// wide: every row sent returns such a result, errors are rare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgError {
    /// The report itself.
    fields: Box<ErrorFields>,
}

/// The fields of a [`PgError`], named after PostgreSQL's ErrorResponse fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorFields {
    /// How serious the report is.
    pub severity: Severity,
    /// The SQLSTATE code.
    pub code: SqlState,
    /// The primary, one-line message (M).
    pub message: String,
    /// Facts about the failure (D).
    pub detail: Option<String>,
    /// What the user could do about it (H).
    pub hint: Option<String>,
    /// 1-based character index into the client's query text (P).
    pub position: Option<u32>,
    /// 1-based character index into `internal_query` (p).
    pub internal_position: Option<u32>,
    /// Text of an internally generated query that failed (q).
    pub internal_query: Option<String>,
    /// Context lines, innermost first, e.g. PL/pgSQL call stack (W).
    pub context: Option<String>,
    /// Schema of the object the error is about (s).
    pub schema_name: Option<String>,
    /// Table of the object the error is about (t).
    pub table_name: Option<String>,
    /// Column the error is about (c).
    pub column_name: Option<String>,
    /// Data type the error is about (d).
    pub datatype_name: Option<String>,
    /// Constraint the error is about (n).
    pub constraint_name: Option<String>,
}

impl Deref for PgError {
    type Target = ErrorFields;

    fn deref(&self) -> &ErrorFields {
        &self.fields
    }
}

impl DerefMut for PgError {
    fn deref_mut(&mut self) -> &mut ErrorFields {
        &mut self.fields
    }
}

impl PgError {
    /// A report of any severity with only code and message set.
    pub fn new(severity: Severity, code: SqlState, message: impl Into<String>) -> PgError {
        let fields = ErrorFields {
            severity,
            code,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
            internal_position: None,
            internal_query: None,
            context: None,
            schema_name: None,
            table_name: None,
            column_name: None,
            datatype_name: None,
            constraint_name: None,
        };
        PgError { fields: Box::new(fields) }
    }

    /// An ERROR: the statement fails, the session goes on.
    pub fn error(code: SqlState, message: impl Into<String>) -> PgError {
        PgError::new(Severity::Error, code, message)
    }

    /// A FATAL error: the session ends after it is reported.
    pub fn fatal(code: SqlState, message: impl Into<String>) -> PgError {
        PgError::new(Severity::Fatal, code, message)
    }

    /// A NOTICE; PostgreSQL's notices usually carry SQLSTATE 00000.
    pub fn notice(code: SqlState, message: impl Into<String>) -> PgError {
        PgError::new(Severity::Notice, code, message)
    }

    /// Set DETAIL.
    pub fn with_detail(mut self, detail: impl Into<String>) -> PgError {
        self.detail = Some(detail.into());
        self
    }

    /// Set HINT.
    pub fn with_hint(mut self, hint: impl Into<String>) -> PgError {
        self.hint = Some(hint.into());
        self
    }

    /// Set the cursor position (1-based, in characters of the query text).
    pub fn with_position(mut self, position: u32) -> PgError {
        self.position = Some(position);
        self
    }

    /// The same report raised to FATAL (errors at connection time end the session,
    /// whatever level the engine chose).
    pub fn into_fatal(mut self) -> PgError {
        if !self.severity.ends_session() {
            self.severity = Severity::Fatal;
        }
        self
    }

    /// The (field code, value) list PostgreSQL sends for this report, in its order.
    fn wire_fields(&self) -> Vec<(u8, String)> {
        let severity = self.severity.as_str().to_string();
        let mut fields = vec![
            (b'S', severity.clone()),
            (b'V', severity),
            (b'C', self.code.as_str().to_string()),
            (b'M', self.message.clone()),
        ];
        let optional = [
            (b'D', self.detail.clone()),
            (b'H', self.hint.clone()),
            (b'P', self.position.map(|p| p.to_string())),
            (b'p', self.internal_position.map(|p| p.to_string())),
            (b'q', self.internal_query.clone()),
            (b'W', self.context.clone()),
            (b's', self.schema_name.clone()),
            (b't', self.table_name.clone()),
            (b'c', self.column_name.clone()),
            (b'd', self.datatype_name.clone()),
            (b'n', self.constraint_name.clone()),
        ];
        fields.extend(optional.into_iter().filter_map(|(code, v)| v.map(|v| (code, v))));
        fields
    }

    /// This report as an ErrorResponse message.
    pub(crate) fn to_error_response(&self) -> ErrorResponse {
        ErrorResponse::new(self.wire_fields())
    }

    /// This report as a NoticeResponse message.
    pub(crate) fn to_notice_response(&self) -> NoticeResponse {
        NoticeResponse::new(self.wire_fields())
    }
}

impl fmt::Display for PgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:  {} ({})", self.severity.as_str(), self.message, self.code)
    }
}

impl std::error::Error for PgError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_follow_postgres_order_and_skip_absent_ones() {
        let e = PgError::error(SqlState::UNDEFINED_CURSOR, "portal \"p\" does not exist")
            .with_hint("h")
            .with_detail("d")
            .with_position(7);
        let codes: Vec<u8> = e.wire_fields().iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, b"SVCMDHP".to_vec());
        assert_eq!(e.wire_fields()[2].1, "34000");
        assert_eq!(e.wire_fields()[6].1, "7");
    }

    #[test]
    fn into_fatal_keeps_panic_and_raises_error() {
        let e = PgError::error(SqlState::INTERNAL_ERROR, "x").into_fatal();
        assert_eq!(e.severity, Severity::Fatal);
        let p = PgError::new(Severity::Panic, SqlState::INTERNAL_ERROR, "x").into_fatal();
        assert_eq!(p.severity, Severity::Panic);
    }
}
