//! `Output`: where an executing statement sends its results (PostgreSQL's DestReceiver).
//!
//! The engine never sees the socket. While it runs a statement it is handed an
//! `&mut dyn Output` and reports, in order, what the statement produced:
//!
//! ```text
//!   row_description(fields)        once, before the first row (if the statement returns rows)
//!   data_row(values)               per row, values already encoded in the column's format
//!   notice(report)                 any time (flushed at once, as PostgreSQL does)
//!   copy_in(format) / copy_out(format)   for COPY FROM STDIN / COPY TO STDOUT
//!   command_complete(tag)          once, when the statement is done ("SELECT 3", "INSERT 0 1")
//!   empty_query()                  instead of all of the above, for a query string with no statements
//! ```
//!
//! The protocol layer implements it (`dest.rs`) and, like PostgreSQL's `dest.c`,
//! decides what actually goes on the wire: in the simple query protocol the
//! RowDescription is sent, in the extended protocol's Execute it is not (the client
//! got it from Describe). So the engine runs a statement the same way in both.
//!
//! Every method returns `Result<(), PgError>` because writing can fail: output is
//! buffered and sent whenever the buffer grows large, and if the client has gone the
//! call returns FATAL 08006 and the session's cancel flag is set. The engine must
//! propagate such an error (`?`) and stop the statement.

use sluice_common::Oid;

use crate::error::PgError;

/// The format of a value on the wire: PostgreSQL's format codes 0 and 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Format code 0: the type's text output (`typoutput`).
    #[default]
    Text,
    /// Format code 1: the type's binary send format (`typsend`).
    Binary,
}

impl Format {
    /// The wire format code.
    pub fn code(self) -> i16 {
        match self {
            Format::Text => 0,
            Format::Binary => 1,
        }
    }
}

/// One column of a RowDescription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDescription {
    /// Column name as the client shows it (`?column?` when it has none).
    pub name: String,
    /// OID of the table the column comes from, or 0.
    pub table_oid: Oid,
    /// Attribute number within that table, or 0.
    pub column_number: i16,
    /// OID of the column's data type (`pg_type.oid`).
    pub type_oid: Oid,
    /// `pg_type.typlen`: fixed width in bytes, or -1 (varlena) / -2 (cstring).
    pub type_len: i16,
    /// Type modifier (`atttypmod`), -1 when none.
    pub type_modifier: i32,
    /// The format the values of this column are sent in.
    pub format: Format,
}

/// The formats announced by CopyInResponse / CopyOutResponse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyFormat {
    /// The overall format: text/csv are `Text`, `FORMAT binary` is `Binary`.
    pub overall: Format,
    /// Per column format; PostgreSQL sends all equal to `overall`.
    pub columns: Vec<Format>,
}

/// The sink for one statement's results; see the module documentation.
pub trait Output {
    /// Announce the result columns (sent in the simple protocol only).
    fn row_description(&mut self, fields: &[FieldDescription]) -> Result<(), PgError>;

    /// Send one row; `None` is SQL NULL. Values are already in the column's format.
    fn data_row(&mut self, values: &[Option<&[u8]>]) -> Result<(), PgError>;

    /// The statement finished; `tag` is its command tag, e.g. `"SELECT 3"`.
    fn command_complete(&mut self, tag: &str) -> Result<(), PgError>;

    /// The query string contained no statement at all.
    fn empty_query(&mut self) -> Result<(), PgError>;

    /// Send a NoticeResponse (severity NOTICE, WARNING, INFO, ...) and flush it.
    fn notice(&mut self, notice: &PgError) -> Result<(), PgError>;

    /// Start COPY FROM STDIN: sends CopyInResponse and returns the client's data.
    ///
    /// The reader must be drained until it returns `Ok(None)` (CopyDone) or an
    /// error; messages of an abandoned COPY are skipped by the protocol layer.
    fn copy_in(&mut self, format: &CopyFormat) -> Result<Box<dyn CopyIn + '_>, PgError>;

    /// Start COPY TO STDOUT: sends CopyOutResponse and returns the data sink, whose
    /// [`CopyOut::finish`] sends CopyDone. Call `command_complete` afterwards.
    fn copy_out(&mut self, format: &CopyFormat) -> Result<Box<dyn CopyOut + '_>, PgError>;
}

/// The client's side of COPY FROM STDIN.
pub trait CopyIn {
    /// The next CopyData payload; `Ok(None)` at CopyDone. A CopyFail from the client
    /// is ERROR 57014 `COPY from stdin failed: <client's message>`.
    fn read_data(&mut self) -> Result<Option<Vec<u8>>, PgError>;
}

/// The client's side of COPY TO STDOUT.
pub trait CopyOut {
    /// Send one CopyData message (conventionally one row).
    fn write_data(&mut self, data: &[u8]) -> Result<(), PgError>;

    /// Send CopyDone. Dropping without `finish` (after an error) sends nothing: the
    /// ErrorResponse that follows ends the COPY for the client.
    fn finish(self: Box<Self>) -> Result<(), PgError>;
}
