//! Where statement results go. The protocol layer implements [`QuerySink`] and
//! turns each call into wire messages (RowDescription, DataRow,
//! CommandComplete, NoticeResponse), encoding values in the format the client
//! asked for; the SQL layer only produces typed values.
//!
//! COPY FROM STDIN and COPY TO STDOUT need the client itself rather than
//! rows: [`QuerySink::copy_in`] announces the data stream (CopyInResponse)
//! and hands back the client's bytes as they arrive, [`QuerySink::copy_out`]
//! announces (CopyOutResponse) and takes bytes to send. The bytes are the
//! COPY data format (`commands/copy.rs` parses and produces it); the sink only
//! moves them. Sinks that have no client (describing a statement) keep the
//! default methods, which refuse like PostgreSQL does where no client is
//! reachable.

use crate::error::{Result, SqlError};
use sluice_common::Oid;
use sluice_types::{Context, Datum, SqlType};

/// One result column, as RowDescription describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputColumn {
    /// Column name.
    pub name: String,
    /// Type.
    pub ty: SqlType,
    /// Type modifier (-1 for none).
    pub typmod: i32,
    /// OID of the table the column comes from, or 0.
    pub table_oid: Oid,
    /// The column's attnum in that table, or 0.
    pub column_number: i16,
}

impl OutputColumn {
    /// A computed column (no source table).
    pub fn computed(name: impl Into<String>, ty: SqlType, typmod: i32) -> OutputColumn {
        OutputColumn { name: name.into(), ty, typmod, table_oid: 0, column_number: 0 }
    }
}

/// The overall format of a COPY data stream, as CopyInResponse and
/// CopyOutResponse announce it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyFormat {
    /// `FORMAT text` and `FORMAT csv`: lines of characters.
    Text,
    /// `FORMAT binary`: PostgreSQL's binary COPY file format.
    Binary,
}

/// The client's data for COPY FROM STDIN.
pub trait CopySource {
    /// The next chunk of data (one CopyData message; chunks need not align
    /// with rows), or `None` once the client has sent CopyDone. A client that
    /// gives up (CopyFail) makes this an error.
    fn read(&mut self) -> Result<Option<Vec<u8>>>;
}

/// Where COPY TO STDOUT sends its data.
pub trait CopyTarget {
    /// Sends one chunk (one CopyData message; COPY sends one per row).
    fn write(&mut self, data: &[u8]) -> Result<()>;
    /// Ends the data (CopyDone). Dropping a target without finishing it
    /// leaves the ending to the error that follows.
    fn finish(self: Box<Self>) -> Result<()>;
}

/// The error of a sink that cannot reach the client.
fn no_client() -> SqlError {
    SqlError::unsupported("cannot COPY to/from client in this context")
}

/// The receiver of a statement's results.
pub trait QuerySink {
    /// The statement returns rows with these columns.
    fn columns(&mut self, columns: &[OutputColumn]) -> Result<()>;
    /// One row (values in column order, of the announced types).
    fn row(&mut self, values: &[Datum]) -> Result<()>;
    /// The statement finished with this command tag (`SELECT 3`, `INSERT 0 1`).
    fn complete(&mut self, tag: &str) -> Result<()>;
    /// A NOTICE or WARNING for the client.
    fn notice(&mut self, notice: &SqlError) -> Result<()>;

    /// The settings the next statement's values print in (`TimeZone`,
    /// `DateStyle`, `IntervalStyle`), given before it runs; sinks that
    /// turn values into text keep it, others ignore it.
    fn output_context(&mut self, _context: &Context) {}

    /// Whether the client reads result column `column` (of the columns
    /// last announced) as text rather than in binary.
    fn reads_as_text(&self, _column: usize) -> bool {
        true
    }

    /// An INFO message (ANALYZE VERBOSE's progress lines). Its SQLSTATE
    /// (00000) is a NOTICE's too, so the level needs its own call; sinks that
    /// do not tell levels apart send it as a notice.
    fn info(&mut self, info: &SqlError) -> Result<()> {
        self.notice(info)
    }

    /// A WARNING whose SQLSTATE is not of a warning class (ANALYZE
    /// SKIP_LOCKED's 55P03 "skipping ... --- lock not available"); sinks
    /// that do not tell levels apart send it as a notice.
    fn warning(&mut self, warning: &SqlError) -> Result<()> {
        self.notice(warning)
    }

    /// Starts COPY FROM STDIN of `columns` columns in `format`: the client is
    /// told to send, and its data comes back through the returned source,
    /// which must be read until it ends or fails.
    fn copy_in(
        &mut self,
        _format: CopyFormat,
        _columns: usize,
    ) -> Result<Box<dyn CopySource + '_>> {
        Err(no_client())
    }

    /// Starts COPY TO STDOUT of `columns` columns in `format`; the data goes
    /// through the returned target, then [`QuerySink::complete`] follows.
    fn copy_out(
        &mut self,
        _format: CopyFormat,
        _columns: usize,
    ) -> Result<Box<dyn CopyTarget + '_>> {
        Err(no_client())
    }
}

/// A sink for statements a command runs on its own behalf (CREATE SCHEMA's
/// elements, CREATE TABLE AS's insert, the members DROP SCHEMA takes
/// along): their rows and command tags do not reach the client — the
/// command answers with its own tag — but the last tag is kept for the
/// caller; notices pass on unless muted.
pub struct NestedSink<'s> {
    outer: &'s mut dyn QuerySink,
    notices: bool,
    tag: Option<String>,
}

impl<'s> NestedSink<'s> {
    /// A nested sink that passes notices on.
    pub fn new(outer: &'s mut dyn QuerySink) -> NestedSink<'s> {
        NestedSink { outer, notices: true, tag: None }
    }

    /// A nested sink that drops notices too (the caller reports for all).
    pub fn muted(outer: &'s mut dyn QuerySink) -> NestedSink<'s> {
        NestedSink { outer, notices: false, tag: None }
    }

    /// The command tag the nested statement completed with, if any.
    pub fn last_tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }
}

impl QuerySink for NestedSink<'_> {
    fn columns(&mut self, _: &[OutputColumn]) -> Result<()> {
        Ok(())
    }

    fn row(&mut self, _: &[Datum]) -> Result<()> {
        Ok(())
    }

    fn complete(&mut self, tag: &str) -> Result<()> {
        self.tag = Some(tag.to_string());
        Ok(())
    }

    fn notice(&mut self, notice: &SqlError) -> Result<()> {
        if self.notices {
            self.outer.notice(notice)?;
        }
        Ok(())
    }
}
