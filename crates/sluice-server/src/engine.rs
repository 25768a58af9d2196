//! The boundary between the wire protocol and the SQL engine: [`Engine`] and [`Session`].
//!
//! The protocol layer (this crate) owns the socket, message framing, the startup
//! handshake, cancel keys, the extended protocol's error recovery (skip until Sync)
//! and when ReadyForQuery is sent. The engine owns everything that needs SQL
//! knowledge: parsing, planning, execution, transactions, settings, and the
//! namespaces of prepared statements and portals (which SQL's `PREPARE`, `EXECUTE`,
//! `DECLARE` and `FETCH` share with the protocol, as in PostgreSQL). The checks on
//! those namespaces that need no SQL knowledge — duplicate names, unknown names,
//! unnamed-object replacement, parameter counts — are written once in
//! `prepared.rs` ([`crate::PreparedStatements`], [`crate::Portals`]) for the engine
//! to use, so every engine reports them with PostgreSQL's exact words.
//!
//! One [`Session`] per connection, created by [`Engine::connect`] on the session's own
//! thread and used only there: `Session` need not be `Send`. Sessions of one engine
//! run concurrently on different threads, so the engine's shared state needs its own
//! locking (never one global lock: DESIGN.md decision 1).
//!
//! # The error contract
//!
//! A method returning an ERROR-level [`PgError`] has already done what PostgreSQL's
//! error recovery in `PostgresMain` does: the statement is abandoned, an explicit
//! transaction block is marked failed (so `transaction_status` says `Failed`), an
//! implicit one is rolled back. The protocol layer then sends the ErrorResponse and,
//! in the extended protocol, skips messages until Sync. A FATAL or PANIC ends the
//! session: the protocol layer sends it and drops the `Session`; dropping a `Session`
//! must roll back whatever transaction is open (as PostgreSQL's `proc_exit` does).
//!
//! # Message to method
//!
//! | message | method | the protocol layer then sends |
//! |---|---|---|
//! | Query | [`Session::simple_query`] | ReadyForQuery |
//! | Parse | [`Session::parse`] | ParseComplete |
//! | Bind | [`Session::bind`] | BindComplete |
//! | Describe 'S' | [`Session::describe_statement`] | ParameterDescription, RowDescription or NoData |
//! | Describe 'P' | [`Session::describe_portal`] | RowDescription or NoData |
//! | Execute | [`Session::execute`] | PortalSuspended if suspended |
//! | Close 'S' / 'P' | [`Session::close_statement`] / [`Session::close_portal`] | CloseComplete |
//! | Sync | [`Session::sync`] | ReadyForQuery |
//! | Flush | (none: the protocol layer flushes its buffer) | |
//!
//! Before every ReadyForQuery (and once after connecting) the protocol layer calls
//! [`Session::report_parameters`] and sends a ParameterStatus for each entry, which is
//! how PostgreSQL 14+ reports `GUC_REPORT` settings changed by SET, RESET or ROLLBACK.

use std::num::NonZeroU32;

use sluice_common::Oid;

use crate::error::PgError;
use crate::interrupts::Interrupts;
use crate::output::{FieldDescription, Format, Output};
use crate::sqlstate::SqlState;
use crate::startup::StartupInfo;

/// The SQL engine as seen by the server: makes a [`Session`] for each connection.
pub trait Engine: Send + Sync + 'static {
    /// The per-connection state.
    type Session: Session;

    /// connect -- start a session for an authenticated client.
    ///
    /// Runs on the new session's thread after AuthenticationOk was sent (trust
    /// authentication). An error here is reported as FATAL (e.g. 3D000 `database "x"
    /// does not exist`) and the connection is closed.
    fn connect(&self, startup: &StartupInfo, ctx: SessionContext)
        -> Result<Self::Session, PgError>;
}

/// What the protocol layer gives a new session.
#[derive(Clone)]
pub struct SessionContext {
    /// This backend's process id as clients see it (`pg_backend_pid()`, BackendKeyData).
    /// Unique among live sessions of the server.
    pub pid: i32,
    /// Cancel and terminate requests for this session; see [`Interrupts::check`].
    pub interrupts: Interrupts,
}

/// The transaction state reported in ReadyForQuery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransactionStatus {
    /// 'I': not in a transaction block.
    Idle,
    /// 'T': in a transaction block (after BEGIN).
    InBlock,
    /// 'E': in a failed transaction block; only ROLLBACK/COMMIT will be accepted.
    Failed,
}

/// One client connection's SQL state; see the module documentation for the contract.
pub trait Session {
    /// Settings the client must be told about that changed since the last call
    /// (all of them on the first call): `server_version`, `server_encoding`,
    /// `client_encoding`, `DateStyle`, `IntervalStyle`, `TimeZone`,
    /// `integer_datetimes`, `standard_conforming_strings`, `application_name`,
    /// `is_superuser`, `session_authorization`, `default_transaction_read_only`,
    /// `in_hot_standby`, as (name, value) pairs.
    fn report_parameters(&mut self) -> Vec<(String, String)>;

    /// The state to report in the next ReadyForQuery.
    fn transaction_status(&self) -> TransactionStatus;

    /// Run a Query message: zero or more statements separated by semicolons, each
    /// reported through `out` ending in `command_complete`; `empty_query` if there is
    /// none. An error stops at the failing statement. PostgreSQL also drops the
    /// unnamed prepared statement here.
    fn simple_query(&mut self, sql: &str, out: &mut dyn Output) -> Result<(), PgError>;

    /// Parse: prepare `sql` (at most one statement) as `statement` ("" = unnamed,
    /// which silently replaces the previous unnamed one). `param_types` are the
    /// client's type OIDs for $1.., 0 meaning "infer".
    fn parse(&mut self, statement: &str, sql: &str, param_types: &[Oid]) -> Result<(), PgError>;

    /// Bind: create a portal from a prepared statement and parameter values.
    fn bind(&mut self, bind: BindRequest) -> Result<(), PgError>;

    /// Describe 'S': the statement's parameter types and result columns (formats
    /// are not known yet: report `Format::Text`).
    fn describe_statement(&mut self, statement: &str) -> Result<StatementDescription, PgError>;

    /// Describe 'P': the portal's result columns in their bound formats, or `None`
    /// if it returns no rows (sent as NoData).
    fn describe_portal(&mut self, portal: &str) -> Result<Option<Vec<FieldDescription>>, PgError>;

    /// Execute: run the portal, sending at most `max_rows` rows (`None` = all).
    /// Ends with `out.command_complete` (or `empty_query`) when the portal is done;
    /// returns [`PortalRun::Suspended`] if it stopped at `max_rows` with rows left.
    fn execute(
        &mut self,
        portal: &str,
        max_rows: Option<NonZeroU32>,
        out: &mut dyn Output,
    ) -> Result<PortalRun, PgError>;

    /// Close 'S': drop a prepared statement; closing one that does not exist is fine.
    fn close_statement(&mut self, statement: &str) -> Result<(), PgError>;

    /// Close 'P': drop a portal; closing one that does not exist is fine.
    fn close_portal(&mut self, portal: &str) -> Result<(), PgError>;

    /// How long the session may wait for the client's next command after
    /// ReadyForQuery, and the FATAL report that ends it when that time passes
    /// (`idle_in_transaction_session_timeout`, `idle_session_timeout`,
    /// `transaction_timeout`); `None` waits forever.
    fn idle_timeout(&mut self) -> Option<(std::time::Duration, PgError)> {
        None
    }

    /// Sync: end of an extended-protocol pipeline. Commits the implicit transaction
    /// if no transaction block is open (which may fail, e.g. a deferred constraint).
    fn sync(&mut self) -> Result<(), PgError>;
}

/// Everything in a Bind message, already checked for protocol-level consistency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindRequest {
    /// Portal to create ("" = unnamed, replacing any previous unnamed portal).
    pub portal: String,
    /// Prepared statement to bind ("" = unnamed).
    pub statement: String,
    /// Parameter values for $1.., each with its own resolved format.
    pub params: Vec<BindParam>,
    /// The requested result column formats.
    pub result_formats: ResultFormats,
}

/// One parameter value of a Bind message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindParam {
    /// The format the value is in (the Bind message's format codes resolved).
    pub format: Format,
    /// The value's bytes; `None` is SQL NULL.
    pub value: Option<Vec<u8>>,
}

/// The result format codes of a Bind message; resolve them with
/// [`ResultFormats::for_columns`] once the number of columns is known.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ResultFormats(pub Vec<Format>);

impl ResultFormats {
    /// The format of each of `columns` result columns: no codes means all text, one
    /// code applies to all, otherwise one per column (08P01 if the counts differ).
    pub fn for_columns(&self, columns: usize) -> Result<Vec<Format>, PgError> {
        match self.0.as_slice() {
            [] => Ok(vec![Format::Text; columns]),
            [one] => Ok(vec![*one; columns]),
            each if each.len() == columns => Ok(each.to_vec()),
            each => Err(PgError::error(
                SqlState::PROTOCOL_VIOLATION,
                format!(
                    "bind message has {} result formats but query has {} columns",
                    each.len(),
                    columns
                ),
            )),
        }
    }
}

/// The answer to Describe 'S'.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementDescription {
    /// Type OID of each parameter $1.., sent as ParameterDescription.
    pub param_types: Vec<Oid>,
    /// Result columns, or `None` for a statement that returns no rows (NoData).
    pub fields: Option<Vec<FieldDescription>>,
}

/// How an Execute ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortalRun {
    /// The portal ran to completion (the engine sent CommandComplete).
    Completed,
    /// `max_rows` rows were sent and more remain; the protocol layer sends
    /// PortalSuspended and a later Execute continues.
    Suspended,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_formats_follow_bind_rules() {
        let none = ResultFormats::default();
        assert_eq!(none.for_columns(2).unwrap(), vec![Format::Text, Format::Text]);
        let one = ResultFormats(vec![Format::Binary]);
        assert_eq!(one.for_columns(3).unwrap(), vec![Format::Binary; 3]);
        let each = ResultFormats(vec![Format::Binary, Format::Text]);
        assert_eq!(each.for_columns(2).unwrap(), vec![Format::Binary, Format::Text]);
        let e = each.for_columns(3).unwrap_err();
        assert_eq!(e.message, "bind message has 2 result formats but query has 3 columns");
        assert_eq!(e.code, SqlState::PROTOCOL_VIOLATION);
    }
}
