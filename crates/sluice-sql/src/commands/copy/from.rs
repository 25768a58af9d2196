//! COPY FROM: rows from a data stream into a table (PostgreSQL's
//! `copyfrom.c` and `NextCopyFrom`).
//!
//! Each line (text, CSV) or row (binary) becomes a full table row the way
//! INSERT forms one: listed columns get the field's value through the
//! column type's input function (text) or receive function (binary), the
//! others their DEFAULT (analysed once, evaluated per row) or NULL; the row
//! must pass the WHERE clause, then the NOT NULL checks, and goes to the heap
//! with `heap_insert` under the statement's command id — so a failed COPY
//! leaves nothing behind once its transaction rolls back.
//!
//! # Errors
//!
//! Every error raised while a row is handled carries PostgreSQL's CONTEXT
//! line saying where in the data it happened:
//!
//! ```text
//!   COPY t, line 3                      reading the data itself failed
//!   COPY t, line 3: "1\tx\t..."         the line was read (text as received)
//!   COPY t, line 3, column a: "x"       converting one field
//!   COPY t, line 3, column a: null input
//!   COPY t, line 3, column a            binary data (never shown)
//! ```
//!
//! Shown data is cut to 100 bytes (at a character boundary) plus "...".

use super::binary::BinaryReader;
use super::options::CopyOptions;
use super::text::{bad_format, TextReader};
use crate::catalog::relation::RelationDesc;
use crate::catalog::rows::form_row;
use crate::error::{Result, SqlError};
use crate::executor::constraints::{prepare_row, RowSource};
use crate::executor::context::ExecParts;
use crate::executor::host::ExecHost;
use crate::executor::indexing::IndexSet;
use crate::executor::ri_triggers::RowEvents;
use crate::expr::domains::DomainColumns;
use crate::expr::{eval, eval_qual, EvalHost, Expr};
use crate::optimizer::constraint::{table_checks, table_generated, NewRowRules};
use sluice_access::heap::heapam::heap_insert;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_types::{binary, io, Datum};

/// Where the rows come from.
pub(crate) enum Reader<'a> {
    /// Text or CSV lines.
    Text(Box<TextReader<'a>>),
    /// Binary rows (the header already read).
    Binary(BinaryReader<'a>),
}

/// What COPY FROM inserts into, analysed before the data starts.
pub(crate) struct Target<'r> {
    /// The table.
    pub rel: &'r RelationDesc,
    /// The column (index into `rel.columns`) of each field, in order.
    pub fields: Vec<usize>,
    /// Per field: FORCE_NOT_NULL (a NULL string reads as that string).
    pub force_not_null: Vec<bool>,
    /// Per field: FORCE_NULL (a quoted NULL string reads as NULL too).
    pub force_null: Vec<bool>,
    /// The columns without a field that have a DEFAULT, with it.
    pub defaults: Vec<(usize, Expr)>,
    /// The WHERE clause.
    pub qual: Option<Expr>,
}

/// The most of a value or line an error context shows (MAX_COPY_DATA_DISPLAY).
const MAX_DISPLAY: usize = 100;

/// `text` as an error context shows it: at most 100 bytes, cut at a
/// character boundary, with "..." when cut (PostgreSQL's limit_printout_length).
fn limit_printout(text: &str) -> String {
    if text.len() <= MAX_DISPLAY {
        return text.to_string();
    }
    let mut end = MAX_DISPLAY;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// The CONTEXT of an error about line `lineno` of the data for table `rel`,
/// showing the line if it was read.
fn line_context(rel: &str, lineno: u64, line: Option<&[u8]>) -> String {
    match line.map(String::from_utf8_lossy) {
        Some(text) => format!("COPY {rel}, line {lineno}: \"{}\"", limit_printout(&text)),
        None => format!("COPY {rel}, line {lineno}"),
    }
}

/// The CONTEXT of an error converting `value` (text data; `None`: NULL)
/// for `column`.
fn column_context(rel: &str, lineno: u64, column: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("COPY {rel}, line {lineno}, column {column}: \"{}\"", limit_printout(v)),
        None => format!("COPY {rel}, line {lineno}, column {column}: null input"),
    }
}

/// insert_rows -- reads every row of `reader` into `target`'s table and
/// returns how many were inserted (some may fail the WHERE clause).
pub(crate) fn insert_rows(
    parts: &mut ExecParts,
    target: &Target,
    options: &CopyOptions,
    mut reader: Reader,
) -> Result<u64> {
    let rel = target.rel;
    let (desc, types, heap) = (rel.tuple_desc(), rel.types(), rel.heap());
    let ExecParts { engine, txn, env, .. } = parts;
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let mut host = ExecHost::new(env, Vec::new(), ctx);
    let indexes = IndexSet::open(&host, rel)?;
    let catalog = host.type_catalog();
    let (checks, generated) = (table_checks(rel, &catalog)?, table_generated(rel, &catalog)?);
    let rules = NewRowRules { checks: &checks, generated: &generated, view_checks: &[] };
    let mut no_params = Vec::new();
    let mut analysis =
        crate::optimizer::planhost::PlanHost::new(&mut no_params).with_types(catalog);
    let domains = DomainColumns::of(&target.fields, &types, &mut analysis)?;
    let mut row = vec![Datum::Null; rel.columns.len()];
    let mut count = 0u64;
    let mut events = RowEvents::for_table(rel);
    if let Reader::Text(text) = &mut reader {
        if !read_header(text, target, options)? {
            return Ok(0);
        }
    }
    loop {
        host.check_interrupts()?;
        let (more, lineno) = match &mut reader {
            Reader::Text(text) => {
                (text_row(text, target, options, &domains, &mut host, &mut row)?, text.lineno)
            }
            Reader::Binary(bin) => {
                (binary_row(bin, target, &domains, &mut host, &mut row)?, bin.lineno)
            }
        };
        if !more {
            drop(host);
            if let Some(events) = events {
                events.queue(txn);
            }
            return Ok(count);
        }
        let line = match &reader {
            Reader::Text(text) => Some(text.line()),
            Reader::Binary(_) => None,
        };
        let mut finish = || -> Result<bool> {
            for (column, default) in &target.defaults {
                row[*column] = eval(default, &[], &mut host)?;
            }
            if let Some(qual) = &target.qual {
                if !eval_qual(qual, &row, &mut host)? {
                    return Ok(false);
                }
            }
            prepare_row(rel, rules, &mut row, &mut host, RowSource::New)?;
            let tid = heap_insert(engine, &heap, txn, &form_row(&desc, &types, &row))?;
            let depth = txn.savepoint_depth();
            host.env().stats.count_insert(rel.oid, depth, 1);
            indexes.insert(txn, &mut host, &row, tid)?;
            events.iter_mut().for_each(|e| e.inserted(tid, &row, depth));
            Ok(true)
        };
        if finish().map_err(|e| e.with_context(line_context(&rel.name, lineno, line)))? {
            count += 1;
        }
    }
}

/// read_header -- the header line of text or CSV data: skipped, or (HEADER
/// MATCH) compared with the copied columns' names. False if the data ended.
fn read_header(text: &mut TextReader, target: &Target, options: &CopyOptions) -> Result<bool> {
    use super::options::Header;
    if options.header == Header::Off {
        return Ok(true);
    }
    let rel = &target.rel.name;
    let more = text.read_line().map_err(|e| e.with_context(line_context(rel, 1, None)))?;
    if options.header == Header::Match {
        let check = |text: &mut TextReader| -> Result<()> {
            text.split()?;
            if text.field_count() != target.fields.len() {
                return Err(bad_format(format!(
                    "wrong number of fields in header line: got {}, expected {}",
                    text.field_count(),
                    target.fields.len()
                )));
            }
            for (i, &column) in target.fields.iter().enumerate() {
                let expected = &target.rel.columns[column].name;
                match text.field(i)? {
                    None => {
                        return Err(bad_format(format!(
                            "column name mismatch in header line field {}: got null value (\"{}\"), expected \"{expected}\"",
                            i + 1,
                            options.null
                        )))
                    }
                    Some(name) if name != expected => {
                        return Err(bad_format(format!(
                            "column name mismatch in header line field {}: got \"{name}\", expected \"{expected}\"",
                            i + 1
                        )))
                    }
                    Some(_) => {}
                }
            }
            Ok(())
        };
        check(text).map_err(|e| e.with_context(line_context(rel, 1, Some(text.line()))))?;
    }
    Ok(more)
}

/// text_row -- reads the next line into the listed columns of `row`; false
/// at the end of the data.
fn text_row(
    text: &mut TextReader,
    target: &Target,
    options: &CopyOptions,
    domains: &DomainColumns,
    host: &mut ExecHost,
    row: &mut [Datum],
) -> Result<bool> {
    let rel = target.rel;
    if !text.read_line().map_err(|e| e.with_context(line_context(&rel.name, text.lineno, None)))? {
        return Ok(false);
    }
    let lineno = text.lineno;
    let split = |text: &mut TextReader| -> Result<()> {
        if target.fields.is_empty() {
            // A table copied without columns takes empty lines only.
            return match text.line().is_empty() {
                true => Ok(()),
                false => Err(bad_format("extra data after last expected column")),
            };
        }
        text.split()?;
        if text.field_count() > target.fields.len() {
            return Err(bad_format("extra data after last expected column"));
        }
        Ok(())
    };
    let line_error = |e: SqlError, text: &TextReader| {
        e.with_context(line_context(&rel.name, lineno, Some(text.line())))
    };
    split(text).map_err(|e| line_error(e, text))?;
    let null = options.null.as_str();
    for (i, &column) in target.fields.iter().enumerate() {
        // Fields are converted in order, so a bad value before the missing
        // one is reported first, as PostgreSQL does.
        if i >= text.field_count() {
            let missing = format!("missing data for column \"{}\"", rel.columns[column].name);
            return Err(line_error(bad_format(missing), text));
        }
        let mut value = text.field(i)?;
        if value.is_none() && target.force_not_null[i] {
            value = Some(null);
        } else if value == Some(null) && target.force_null[i] {
            value = None;
        }
        let desc = &rel.columns[column];
        let context = || column_context(&rel.name, lineno, &desc.name, value);
        row[column] = match value {
            None => Datum::Null,
            Some(v) => io::parse(desc.ty, v, desc.typmod, host.context())
                .map_err(|e| SqlError::from(e).with_context(context()))?,
        };
        domains.check_column(column, &row[column], host).map_err(|e| e.with_context(context()))?;
    }
    Ok(true)
}

/// binary_row -- reads the next binary row into the listed columns of
/// `row`; false at the end of the data.
fn binary_row(
    bin: &mut BinaryReader,
    target: &Target,
    domains: &DomainColumns,
    host: &mut ExecHost,
    row: &mut [Datum],
) -> Result<bool> {
    let rel = target.rel;
    let more = bin
        .begin_row(target.fields.len())
        .map_err(|e| e.with_context(line_context(&rel.name, bin.lineno, None)))?;
    if !more {
        return Ok(false);
    }
    for &column in &target.fields {
        let desc = &rel.columns[column];
        let value = bin.read_field().and_then(|bytes| match bytes {
            None => Ok(Datum::Null),
            Some(b) => Ok(binary::recv(desc.ty, b, desc.typmod)?),
        });
        let value = value.and_then(|v| domains.check_column(column, &v, host).map(|()| v));
        let lineno = bin.lineno;
        row[column] = value.map_err(|e| {
            e.with_context(format!("COPY {}, line {lineno}, column {}", rel.name, desc.name))
        })?;
    }
    Ok(true)
}
