//! Results to wire messages: the SQL layer's [`QuerySink`] over the protocol
//! layer's [`Output`], encoding each value in the format the client asked for
//! (text through the types' output functions, binary through their send
//! functions).
//!
//! COPY passes straight through: [`copy_in`] and [`copy_out`] announce the
//! stream with the protocol layer's CopyInResponse/CopyOutResponse and adapt
//! its CopyData streams to the SQL layer's [`CopySource`]/[`CopyTarget`]. Both
//! the simple-protocol sink and the extended protocol's portal runner
//! (`backend.rs`) use them, so COPY behaves the same through Parse/Bind/Execute.

use sluice_server::{
    CopyFormat as WireCopyFormat, CopyIn, CopyOut, FieldDescription, Format, Output, PgError,
    Severity, SqlState,
};
use sluice_sql::sink::{CopyFormat, CopySource, CopyTarget};
use sluice_sql::{OutputColumn, QuerySink, SqlError};
use sluice_types::{binary, io, Context, Datum};

/// Converts an SQL-layer error to a protocol error of `severity`.
pub fn pg_error(e: &SqlError, severity: Severity) -> PgError {
    let code = SqlState::parse(e.code).unwrap_or(SqlState::parse("XX000").expect("valid code"));
    let mut err = PgError::new(severity, code, e.message.clone());
    if let Some(d) = &e.detail {
        err = err.with_detail(d.clone());
    }
    if let Some(h) = &e.hint {
        err = err.with_hint(h.clone());
    }
    if let Some(p) = e.position {
        err = err.with_position(p);
    }
    err.context = e.context.clone();
    err
}

/// Converts a protocol error back (for interrupts raised by the protocol layer).
pub fn sql_error(e: &PgError) -> SqlError {
    let code: &'static str = match e.code.as_str() {
        "57014" => "57014",
        "57P01" => "57P01",
        "08006" => "08006",
        "25P03" => "25P03",
        "57P05" => "57P05",
        "08P01" => "08P01",
        _ => "XX000",
    };
    SqlError::new(code, e.message.clone())
}

/// A sink writing to the protocol output with per-column formats.
pub struct WireSink<'o> {
    out: &'o mut dyn Output,
    /// Formats requested at Bind (empty: all text).
    requested: Vec<Format>,
    formats: Vec<Format>,
    context: Context,
    /// Whether RowDescription is sent (not for Execute: Describe sent it).
    describe: bool,
    /// Rows left before the portal suspends (None: unlimited).
    pub rows_sent: u64,
}

impl<'o> WireSink<'o> {
    /// A sink for the simple protocol (text, RowDescription included).
    pub fn simple(out: &'o mut dyn Output) -> WireSink<'o> {
        WireSink {
            out,
            requested: Vec::new(),
            formats: Vec::new(),
            context: Context::default(),
            describe: true,
            rows_sent: 0,
        }
    }

    /// A sink for Execute: formats from Bind, no RowDescription.
    pub fn execute(out: &'o mut dyn Output, requested: Vec<Format>) -> WireSink<'o> {
        WireSink {
            out,
            requested,
            formats: Vec::new(),
            context: Context::default(),
            describe: false,
            rows_sent: 0,
        }
    }
}

/// RowDescription fields for `columns` in `formats`. A domain's column is
/// described as its base type, with the domain's typmod when the column
/// has none, as PostgreSQL's printtup does (getBaseTypeAndTypmod).
pub fn field_descriptions(columns: &[OutputColumn], formats: &[Format]) -> Vec<FieldDescription> {
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| FieldDescription {
            name: c.name.clone(),
            table_oid: c.table_oid,
            column_number: c.column_number,
            type_oid: c.ty.base().oid(),
            type_len: c.ty.typlen(),
            type_modifier: match c.ty {
                sluice_types::SqlType::Domain(d) if c.typmod < 0 => d.desc().typmod,
                _ => c.typmod,
            },
            format: formats.get(i).copied().unwrap_or(Format::Text),
        })
        .collect()
}

/// Formats per column from what Bind asked for (none, one for all, or one each).
pub fn formats_for(requested: &[Format], columns: usize) -> Vec<Format> {
    match requested {
        [] => vec![Format::Text; columns],
        [one] => vec![*one; columns],
        each => each.to_vec(),
    }
}

fn wire(e: PgError) -> SqlError {
    sql_error(&e)
}

/// The protocol's announcement of a COPY stream of `columns` columns, all in
/// the overall format (as PostgreSQL sends it).
fn wire_copy_format(format: CopyFormat, columns: usize) -> WireCopyFormat {
    let overall = match format {
        CopyFormat::Text => Format::Text,
        CopyFormat::Binary => Format::Binary,
    };
    WireCopyFormat { overall, columns: vec![overall; columns] }
}

/// The client's CopyData stream as the SQL layer reads it.
struct WireCopySource<'o>(Box<dyn CopyIn + 'o>);

impl CopySource for WireCopySource<'_> {
    fn read(&mut self) -> sluice_sql::Result<Option<Vec<u8>>> {
        self.0.read_data().map_err(wire)
    }
}

/// The CopyData stream to the client as the SQL layer writes it.
struct WireCopyTarget<'o>(Box<dyn CopyOut + 'o>);

impl CopyTarget for WireCopyTarget<'_> {
    fn write(&mut self, data: &[u8]) -> sluice_sql::Result<()> {
        self.0.write_data(data).map_err(wire)
    }

    fn finish(self: Box<Self>) -> sluice_sql::Result<()> {
        self.0.finish().map_err(wire)
    }
}

/// copy_in -- sends CopyInResponse on `out` and returns the client's data.
pub fn copy_in<'o>(
    out: &'o mut dyn Output,
    format: CopyFormat,
    columns: usize,
) -> sluice_sql::Result<Box<dyn CopySource + 'o>> {
    let stream = out.copy_in(&wire_copy_format(format, columns)).map_err(wire)?;
    Ok(Box::new(WireCopySource(stream)))
}

/// copy_out -- sends CopyOutResponse on `out` and returns the data's way there.
pub fn copy_out<'o>(
    out: &'o mut dyn Output,
    format: CopyFormat,
    columns: usize,
) -> sluice_sql::Result<Box<dyn CopyTarget + 'o>> {
    let stream = out.copy_out(&wire_copy_format(format, columns)).map_err(wire)?;
    Ok(Box::new(WireCopyTarget(stream)))
}

/// notice -- a NOTICE or WARNING (by its SQLSTATE class) for the client.
pub fn notice(out: &mut dyn Output, notice: &SqlError) -> sluice_sql::Result<()> {
    let severity = if notice.code.starts_with("01") || notice.code.starts_with("25") {
        Severity::Warning
    } else {
        Severity::Notice
    };
    out.notice(&pg_error(notice, severity)).map_err(wire)
}

impl QuerySink for WireSink<'_> {
    fn columns(&mut self, columns: &[OutputColumn]) -> sluice_sql::Result<()> {
        self.formats = formats_for(&self.requested, columns.len());
        if self.describe {
            self.out.row_description(&field_descriptions(columns, &self.formats)).map_err(wire)?;
        }
        Ok(())
    }

    fn row(&mut self, values: &[Datum]) -> sluice_sql::Result<()> {
        let encoded: Vec<Option<Vec<u8>>> = values
            .iter()
            .enumerate()
            .map(|(i, v)| match self.formats.get(i).copied().unwrap_or(Format::Text) {
                Format::Binary => (!v.is_null()).then(|| binary::send(v)),
                Format::Text => io::output(v, &self.context).map(String::into_bytes),
            })
            .collect();
        let refs: Vec<Option<&[u8]>> = encoded.iter().map(|v| v.as_deref()).collect();
        self.rows_sent += 1;
        self.out.data_row(&refs).map_err(wire)
    }

    fn complete(&mut self, tag: &str) -> sluice_sql::Result<()> {
        self.out.command_complete(tag).map_err(wire)
    }

    fn notice(&mut self, notice: &SqlError) -> sluice_sql::Result<()> {
        self::notice(self.out, notice)
    }

    fn output_context(&mut self, context: &Context) {
        self.context = context.clone();
    }

    fn reads_as_text(&self, column: usize) -> bool {
        self.formats.get(column) != Some(&Format::Binary)
    }

    fn info(&mut self, info: &SqlError) -> sluice_sql::Result<()> {
        self.out.notice(&pg_error(info, Severity::Info)).map_err(wire)
    }

    fn warning(&mut self, warning: &SqlError) -> sluice_sql::Result<()> {
        self.out.notice(&pg_error(warning, Severity::Warning)).map_err(wire)
    }

    fn copy_in(
        &mut self,
        format: CopyFormat,
        columns: usize,
    ) -> sluice_sql::Result<Box<dyn CopySource + '_>> {
        copy_in(self.out, format, columns)
    }

    fn copy_out(
        &mut self,
        format: CopyFormat,
        columns: usize,
    ) -> sluice_sql::Result<Box<dyn CopyTarget + '_>> {
        copy_out(self.out, format, columns)
    }
}
