//! COPY (PostgreSQL's `commands/copy.c`, `copyfrom.c`, `copyfromparse.c`,
//! `copyto.c`): bulk rows between a table or query and a data stream.
//!
//! ```text
//!   COPY t [(cols)] FROM STDIN|'file' [WITH (...)] [WHERE ...]
//!       options.rs   the WITH options, checked as PostgreSQL checks them
//!       input.rs     the client's CopyData (sink.copy_in) or a file, buffered
//!       text.rs      lines and fields of text and CSV      } the data stream
//!       binary.rs    rows of the binary format             }
//!       from.rs      fields -> typed values -> DEFAULTs, WHERE, NOT NULL -> heap
//!   COPY t [(cols)] | (query) TO STDOUT|'file' [WITH (...)]
//!       to.rs        rows -> text, CSV or binary -> sink.copy_out or a file
//! ```
//!
//! # Design
//!
//! The statement is analysed completely before the data moves: the table is
//! opened and locked (RowExclusiveLock for FROM, like INSERT; AccessShareLock
//! for TO), options checked, column lists resolved, DEFAULTs and WHERE
//! analysed once, the query planned. Only then does the client hear
//! CopyInResponse/CopyOutResponse — so errors in the statement come before
//! any data, in PostgreSQL's order, and the per-row loop does no analysis.
//!
//! COPY FROM streams: the input is parsed in the chunks the client sends,
//! each row is inserted as soon as it is formed (through `heap_insert`, the
//! path INSERT takes, under the statement's command id), and nothing per row
//! is allocated by the parsers. An error stops the statement and the
//! transaction rolls back as for any error, so an aborted COPY (bad data or
//! the client's CopyFail) leaves no rows; CopyData still in flight is
//! skipped by the protocol layer. Errors about the data carry PostgreSQL's
//! CONTEXT line (`COPY t, line 2, column a: "x"`, see `from.rs`).
//!
//! # Files and programs
//!
//! `COPY ... FROM/TO 'file'` reads or writes a file as the server (sluice's
//! single role is a superuser, who may); relative paths are relative to the
//! data directory for reading and refused for writing, as in PostgreSQL.
//! `PROGRAM` is not supported.
//!
//! # FREEZE
//!
//! As in PostgreSQL, FREEZE is allowed only for a table created or truncated
//! in the current transaction — recognised by its `pg_class` row having been
//! written by this transaction (a new table, or a new relfilenode). The rows
//! are then inserted like any others: sluice does not pre-freeze them, which
//! is always safe (frozen rows would only become visible to other snapshots
//! earlier).

mod binary;
mod from;
mod input;
mod options;
mod text;
mod to;

use crate::catalog::relation::{self, RelationDesc};
use crate::catalog::schema::RelKind;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::context::ExecParts;
use crate::executor::functions::RegColumns;
use crate::executor::host::{ExecHost, PlanHost};
use crate::executor::modify;
use crate::executor::plan::{self, Plan};
use crate::expr::{analyze, check_boolean};
use crate::optimizer::modify::column_defaults;
use crate::optimizer::select::{open_relation, plan_select, relation_scope};
use crate::sink::{CopyFormat, OutputColumn, QuerySink};
use from::{Reader, Target};
use input::{Input, Source};
use options::{parse_options, ColumnChoice, CopyOptions, Format};
use pg_query::protobuf::{CopyStmt, Node, RangeVar};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_txn::lmgr::LockMode;
use sluice_types::{Datum, SqlType};
use std::path::{Path, PathBuf};
use text::{Dialect, TextReader};
use to::{Dest, RowWriter};

/// copy -- runs a COPY statement; its command tag is `COPY n`.
pub fn copy(cx: &mut dyn BackendContext, stmt: &CopyStmt, sink: &mut dyn QuerySink) -> Result<()> {
    if stmt.is_program {
        return Err(SqlError::unsupported("COPY to or from an external program is not supported"));
    }
    let mut parts = cx.parts()?;
    let count = if stmt.is_from {
        copy_from(&mut parts, stmt, sink)?
    } else {
        copy_to(&mut parts, stmt, sink)?
    };
    sink.complete(&format!("COPY {count}"))
}

/// Opens the COPY's table, locked in `mode`. COPY names no position in
/// errors about its table, unlike queries.
fn open_table(parts: &mut ExecParts, rv: &RangeVar, mode: LockMode) -> Result<RelationDesc> {
    let rel = open_relation(parts, rv, mode).map_err(|mut e| {
        e.position = None;
        e
    })?;
    if rel.kind == RelKind::View {
        // COPY FROM writes (RowExclusive); COPY TO reads.
        return Err(if mode == LockMode::RowExclusive {
            SqlError::new("42809", format!("cannot copy to view \"{}\"", rel.name))
                .with_hint("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
        } else {
            SqlError::new("42809", format!("cannot copy from view \"{}\"", rel.name))
                .with_hint("Try the COPY (SELECT ...) TO variant.")
        });
    }
    Ok(rel)
}

/// The names in a list of `String` nodes (a column list).
fn names(list: &[Node]) -> Vec<String> {
    list.iter().filter_map(crate::parser::node_str).collect()
}

/// copied_columns -- the columns a COPY of `rel` moves: those listed, or all
/// (PostgreSQL's CopyGetAttnums).
fn copied_columns(rel: &RelationDesc, list: &[Node]) -> Result<Vec<usize>> {
    if list.is_empty() {
        // Generated columns are computed, never copied (PostgreSQL 15).
        return Ok(rel.live_columns().filter(|&i| rel.columns[i].generated.is_none()).collect());
    }
    let mut columns = Vec::new();
    for name in names(list) {
        let index = rel.column_index(&name).ok_or_else(|| {
            SqlError::new(
                "42703",
                format!("column \"{name}\" of relation \"{}\" does not exist", rel.name),
            )
        })?;
        if columns.contains(&index) {
            return Err(SqlError::new(
                "42701",
                format!("column \"{name}\" specified more than once"),
            ));
        }
        if rel.columns[index].generated.is_some() {
            return Err(SqlError::new("42P10", format!("column \"{name}\" is a generated column"))
                .with_detail("Generated columns cannot be used in COPY."));
        }
        columns.push(index);
    }
    Ok(columns)
}

/// force_flags -- for a FORCE_* option naming `list`, a flag per copied
/// column. `lookup` finds a name among all columns (with the error for an
/// unknown one); the column must also be among those `copied`.
fn force_flags(
    list: Option<&[String]>,
    option: &str,
    copied: &[usize],
    lookup: &dyn Fn(&str) -> Result<usize>,
) -> Result<Vec<bool>> {
    let mut flags = vec![false; copied.len()];
    let mut seen = Vec::new();
    for name in list.unwrap_or_default() {
        let column = lookup(name)?;
        if seen.contains(&column) {
            return Err(SqlError::new(
                "42701",
                format!("column \"{name}\" specified more than once"),
            ));
        }
        seen.push(column);
        let field = copied.iter().position(|&c| c == column).ok_or_else(|| {
            SqlError::new("42P10", format!("{option} column \"{name}\" not referenced by COPY"))
        })?;
        flags[field] = true;
    }
    Ok(flags)
}

/// The lookup of a column of `rel` by name for FORCE_* options.
fn table_lookup(rel: &RelationDesc) -> impl Fn(&str) -> Result<usize> + '_ {
    move |name| {
        rel.column_index(name).ok_or_else(|| {
            SqlError::new(
                "42703",
                format!("column \"{name}\" of relation \"{}\" does not exist", rel.name),
            )
        })
    }
}

/// The format the protocol announces.
fn wire_format(options: &CopyOptions) -> CopyFormat {
    match options.format {
        Format::Binary => CopyFormat::Binary,
        Format::Text | Format::Csv => CopyFormat::Text,
    }
}

/// copy_from -- COPY FROM: analyses, then streams the data into the table.
fn copy_from(parts: &mut ExecParts, stmt: &CopyStmt, sink: &mut dyn QuerySink) -> Result<u64> {
    let rv =
        stmt.relation.as_ref().ok_or_else(|| SqlError::internal("COPY FROM without a table"))?;
    let rel = open_table(parts, rv, LockMode::RowExclusive)?;
    let types = parts.type_catalog();
    let mut param_types: Vec<Option<SqlType>> = Vec::new();
    let qual = match stmt.where_clause.as_deref() {
        Some(clause) => {
            let scope = relation_scope(&rel, &rel.name);
            let mut host = PlanHost::new(&mut param_types).with_types(types.clone());
            host.agg_clause = Some("WHERE");
            Some(check_boolean(analyze(clause, &scope, &mut host)?, "WHERE")?)
        }
        None => None,
    };
    let options = parse_options(&stmt.options, true)?;
    let fields = copied_columns(&rel, &stmt.attlist)?;
    let lookup = table_lookup(&rel);
    let force_not_null =
        force_flags(options.force_not_null.as_deref(), "FORCE_NOT_NULL", &fields, &lookup)?;
    let force_null = force_flags(options.force_null.as_deref(), "FORCE_NULL", &fields, &lookup)?;
    let defaults = column_defaults(&rel, &mut param_types, &types)?
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !fields.contains(i) && rel.columns[*i].default.is_some())
        .collect();
    let target = Target { rel: &rel, fields, force_not_null, force_null, defaults, qual };
    let source = match stmt.filename.as_str() {
        "" => Source::Client(sink.copy_in(wire_format(&options), target.fields.len())?),
        name => Source::File(open_for_reading(parts.engine.data_dir(), name)?),
    };
    if options.freeze {
        check_freeze(parts, &rel)?;
    }
    let input = Input::new(source, options.encoding);
    let reader = match options.format {
        Format::Binary => {
            let mut reader = binary::BinaryReader::new(input);
            reader.read_header()?;
            Reader::Binary(reader)
        }
        Format::Text | Format::Csv => {
            Reader::Text(Box::new(TextReader::new(input, Dialect::new(&options))))
        }
    };
    crate::executor::in_query_level(parts, |parts| {
        from::insert_rows(parts, &target, &options, reader)
    })
}

/// check_freeze -- COPY FREEZE needs a table this transaction created or
/// truncated, i.e. whose current `pg_class` row this transaction wrote.
fn check_freeze(parts: &mut ExecParts, rel: &RelationDesc) -> Result<()> {
    let written_here = match parts.txn.xid() {
        Some(xid) => {
            let db = parts.env.database;
            let row = relation::class_row_xids(parts.engine, db, parts.txn, rel.oid)?;
            row.is_some_and(|(xmin, _)| xmin == xid)
        }
        None => false,
    };
    if !written_here {
        return Err(SqlError::new(
            "55000",
            "cannot perform COPY FREEZE because the table was not created or truncated in the current subtransaction",
        ));
    }
    Ok(())
}

/// open_for_reading -- the file COPY FROM reads (relative to the data
/// directory, like PostgreSQL's, whose working directory that is).
fn open_for_reading(data_dir: &Path, name: &str) -> Result<std::fs::File> {
    let path = data_dir.join(name);
    let file = std::fs::File::open(&path).map_err(|e| {
        open_error(&e, format!("could not open file \"{name}\" for reading"), "COPY FROM instructs the PostgreSQL server process to read a file. You may want a client-side facility such as psql's \\copy.")
    })?;
    check_not_directory(&file, name)?;
    Ok(file)
}

/// open_for_writing -- the file COPY TO writes: an absolute path only, since
/// a relative one could overwrite the server's own files.
fn open_for_writing(name: &str) -> Result<std::fs::File> {
    let path = PathBuf::from(name);
    if !path.is_absolute() {
        return Err(SqlError::new("42602", "relative path not allowed for COPY to file"));
    }
    let file = std::fs::File::create(&path).map_err(|e| {
        open_error(&e, format!("could not open file \"{name}\" for writing"), "COPY TO instructs the PostgreSQL server process to write a file. You may want a client-side facility such as psql's \\copy.")
    })?;
    check_not_directory(&file, name)?;
    Ok(file)
}

/// A failure to open a COPY file, with PostgreSQL's hint when the file is
/// missing or forbidden (the user probably meant a client-side file).
fn open_error(e: &std::io::Error, message: String, hint: &str) -> SqlError {
    let err = file_error(e, message);
    match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => err.with_hint(hint),
        _ => err,
    }
}

/// Refuses a directory where a file is needed.
fn check_not_directory(file: &std::fs::File, name: &str) -> Result<()> {
    let meta =
        file.metadata().map_err(|e| file_error(&e, format!("could not stat file \"{name}\"")))?;
    if meta.is_dir() {
        return Err(SqlError::new("42809", format!("\"{name}\" is a directory")));
    }
    Ok(())
}

/// file_error -- `message: <system error>` with the SQLSTATE PostgreSQL's
/// errcode_for_file_access gives the error.
pub(crate) fn file_error(e: &std::io::Error, message: String) -> SqlError {
    let code = match e.raw_os_error() {
        Some(1 | 13 | 30) => "42501",  // EPERM, EACCES, EROFS
        Some(2) => "58P01",            // ENOENT
        Some(17) => "42P07",           // EEXIST
        Some(20 | 21 | 39) => "42809", // ENOTDIR, EISDIR, ENOTEMPTY
        Some(28) => "53100",           // ENOSPC
        Some(5) => "58030",            // EIO
        _ => "XX000",
    };
    // Rust appends " (os error N)" to strerror's text; PostgreSQL's %m is the text alone.
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text).to_string();
    SqlError::new(code, format!("{message}: {text}"))
}

/// copy_to -- COPY TO: analyses, then streams the rows out.
fn copy_to(parts: &mut ExecParts, stmt: &CopyStmt, sink: &mut dyn QuerySink) -> Result<u64> {
    if let Some(rv) = &stmt.relation {
        let rel = open_table(parts, rv, LockMode::AccessShare)?;
        let options = parse_options(&stmt.options, false)?;
        let columns = copied_columns(&rel, &stmt.attlist)?;
        return copy_table_to(parts, stmt, sink, options, rel, columns);
    }
    let options = parse_options(&stmt.options, false)?;
    match stmt.query.as_deref().and_then(|q| q.node.as_ref()) {
        Some(NodeEnum::SelectStmt(select)) => copy_select_to(parts, stmt, sink, options, select),
        Some(
            node @ (NodeEnum::InsertStmt(_) | NodeEnum::UpdateStmt(_) | NodeEnum::DeleteStmt(_)),
        ) => copy_modify_to(parts, stmt, sink, options, node),
        _ => Err(SqlError::syntax("COPY query must not be a utility command")),
    }
}

/// The output destination: the client (after CopyOutResponse) or a file.
fn open_dest<'s>(
    stmt: &CopyStmt,
    sink: &'s mut dyn QuerySink,
    options: &CopyOptions,
    columns: usize,
) -> Result<Dest<'s>> {
    Ok(match stmt.filename.as_str() {
        "" => Dest::Client(sink.copy_out(wire_format(options), columns)?),
        name => Dest::File(std::io::BufWriter::new(open_for_writing(name)?)),
    })
}

/// FORCE_QUOTE as a flag per output column of a query (`names`); a name
/// that is no column is PostgreSQL's "column does not exist".
fn query_force_quote(options: &CopyOptions, names: &[String]) -> Result<Vec<bool>> {
    let all: Vec<usize> = (0..names.len()).collect();
    match &options.force_quote {
        None => Ok(vec![false; names.len()]),
        Some(ColumnChoice::All) => Ok(vec![true; names.len()]),
        Some(ColumnChoice::Named(list)) => {
            let lookup = |name: &str| {
                names.iter().position(|n| n == name).ok_or_else(|| {
                    SqlError::new("42703", format!("column \"{name}\" does not exist"))
                })
            };
            force_flags(Some(list), "FORCE_QUOTE", &all, &lookup)
        }
    }
}

/// copy_table_to -- COPY table TO: a sequential scan of the copied columns.
fn copy_table_to(
    parts: &mut ExecParts,
    stmt: &CopyStmt,
    sink: &mut dyn QuerySink,
    options: CopyOptions,
    rel: RelationDesc,
    columns: Vec<usize>,
) -> Result<u64> {
    let force_quote = match &options.force_quote {
        None => vec![false; columns.len()],
        Some(ColumnChoice::All) => vec![true; columns.len()],
        Some(ColumnChoice::Named(list)) => {
            force_flags(Some(list), "FORCE_QUOTE", &columns, &table_lookup(&rel))?
        }
    };
    let names: Vec<String> = columns.iter().map(|&c| rel.columns[c].name.clone()).collect();
    let mut needed = vec![false; rel.columns.len()];
    for &c in &columns {
        needed[c] = true;
    }
    let plan = Plan::SeqScan { rel: Box::new(rel), needed: Some(needed), alias: None, ctid: false };
    let dest = open_dest(stmt, sink, &options, columns.len())?;
    let ExecParts { engine, txn, env, .. } = parts;
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let mut host = ExecHost::new(env, Vec::new(), ctx.clone());
    let mut writer = RowWriter::start(options, force_quote, &names, host_context(&host), dest)?;
    let mut rows = plan::open(&plan, engine, &ctx)?;
    let mut values = Vec::with_capacity(columns.len());
    while let Some(row) = rows.next(&mut host)? {
        values.clear();
        values.extend(columns.iter().map(|&c| row[c].clone()));
        writer.row(&values)?;
    }
    writer.finish()
}

/// The value output settings of the statement (TimeZone for timestamptz).
fn host_context(host: &ExecHost) -> sluice_types::Context {
    use crate::expr::EvalHost;
    host.context().clone()
}

/// copy_select_to -- COPY (SELECT ...) TO: the query's rows.
fn copy_select_to(
    parts: &mut ExecParts,
    stmt: &CopyStmt,
    sink: &mut dyn QuerySink,
    options: CopyOptions,
    select: &pg_query::protobuf::SelectStmt,
) -> Result<u64> {
    let mut param_types = Vec::new();
    let planned = plan_select(parts, select, &mut param_types)?;
    let names: Vec<String> = planned.columns.iter().map(|c| c.name.clone()).collect();
    let force_quote = query_force_quote(&options, &names)?;
    let text = options.format != Format::Binary;
    let dest = open_dest(stmt, sink, &options, names.len())?;
    let ExecParts { engine, txn, env, .. } = parts;
    let ctx = VisibilityContext::for_transaction(txn, engine.txns());
    let mut host = ExecHost::new(env, Vec::new(), ctx.clone());
    let mut writer = RowWriter::start(options, force_quote, &names, host_context(&host), dest)?;
    let mut rows = plan::open(&planned.plan, engine, &ctx)?;
    let names = RegColumns::of(planned.columns.iter().map(|c| c.ty), |_| text);
    while let Some(mut row) = rows.next(&mut host)? {
        names.name(&mut host, &mut row)?;
        writer.row(&row)?;
    }
    writer.finish()
}

/// copy_modify_to -- COPY (INSERT/UPDATE/DELETE ... RETURNING) TO: the
/// statement runs with its RETURNING rows going out as COPY data. It is
/// described first, to learn the columns before CopyOutResponse.
fn copy_modify_to(
    parts: &mut ExecParts,
    stmt: &CopyStmt,
    sink: &mut dyn QuerySink,
    options: CopyOptions,
    node: &NodeEnum,
) -> Result<u64> {
    let mut described = Returning::default();
    run_modify(parts, node, None, &mut described)?;
    let Some(columns) = described.columns else {
        return Err(SqlError::unsupported("COPY query must have a RETURNING clause"));
    };
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let force_quote = query_force_quote(&options, &names)?;
    let dest = open_dest(stmt, sink, &options, names.len())?;
    let context = {
        let ExecParts { engine, txn, env, .. } = &mut *parts;
        let ctx = VisibilityContext::for_transaction(txn, engine.txns());
        host_context(&ExecHost::new(env, Vec::new(), ctx))
    };
    let mut rows = RowsOut(RowWriter::start(options, force_quote, &names, context, dest)?);
    run_modify(parts, node, Some(Vec::new()), &mut rows)?;
    rows.0.finish()
}

/// Runs an INSERT/UPDATE/DELETE into `sink` (`params` None: describe only).
fn run_modify(
    parts: &mut ExecParts,
    node: &NodeEnum,
    params: Option<Vec<Datum>>,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    modify::run(parts, node, params, &mut Vec::new(), sink)
}

/// Learns a statement's RETURNING columns.
#[derive(Default)]
struct Returning {
    columns: Option<Vec<OutputColumn>>,
}

impl QuerySink for Returning {
    fn columns(&mut self, columns: &[OutputColumn]) -> Result<()> {
        self.columns = Some(columns.to_vec());
        Ok(())
    }

    fn row(&mut self, _values: &[Datum]) -> Result<()> {
        Ok(())
    }

    fn complete(&mut self, _tag: &str) -> Result<()> {
        Ok(())
    }

    fn notice(&mut self, _notice: &SqlError) -> Result<()> {
        Ok(())
    }
}

/// Sends a statement's RETURNING rows as COPY data.
struct RowsOut<'a>(RowWriter<'a>);

impl QuerySink for RowsOut<'_> {
    fn columns(&mut self, _columns: &[OutputColumn]) -> Result<()> {
        Ok(())
    }

    fn row(&mut self, values: &[Datum]) -> Result<()> {
        self.0.row(values)
    }

    fn complete(&mut self, _tag: &str) -> Result<()> {
        Ok(())
    }

    fn notice(&mut self, _notice: &SqlError) -> Result<()> {
        Ok(())
    }
}
