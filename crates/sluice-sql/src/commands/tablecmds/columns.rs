//! ALTER TABLE's column subcommands (PostgreSQL's ATExecAddColumn,
//! ATExecColumnDefault, ATExecSetNotNull and ATExecDropNotNull in
//! `tablecmds.c`).
//!
//! A column's default is its `pg_attrdef` row (with `atthasdef` on the
//! column); NOT NULL is `pg_attribute.attnotnull`. Both change as new
//! catalog row versions under the statement's AccessExclusive lock. Setting
//! NOT NULL first proves that no row holds a NULL there; dropping it is
//! refused for a primary key column, whose index relies on it.
//!
//! DROP COLUMN writes no page either: the attribute stays in `pg_attribute`
//! marked `attisdropped` and renamed `........pg.dropped.N........`, so
//! stored tuples keep their layout, queries can no longer name it, and new
//! rows store NULL there. What depended on the column goes with it: its
//! default, the sequence it owns, its statistics, the CHECK constraints
//! reading it and the indexes on it (a PRIMARY KEY or UNIQUE constraint
//! with its index).
//!
//! ADD COLUMN writes no page, as in PostgreSQL 11 and later: rows stored
//! before the column existed have fewer attributes, and reading them gives
//! the column's `attmissingval` — its default evaluated once, when the
//! column was added — or NULL. A value per row (a volatile default such as
//! `random()`, a serial or identity column's sequence, a generated column)
//! rewrites the table instead (`rewrite.rs`), as PostgreSQL does.

use super::rewrite::rewrite_table;
use super::{create_serial_sequences, new_column, record_serial_dependencies};
use crate::catalog::depend::{self, ATTRDEF_CLASS, CONSTRAINT_CLASS};
use crate::catalog::index::indexes_of;
use crate::catalog::relation::{
    oid_of, RelationDesc, ATT_HASMISSING, ATT_IDENTITY, ATT_ISDROPPED, ATT_MISSINGVAL,
};
use crate::catalog::schema::{PG_ATTRDEF, PG_ATTRIBUTE, PG_CLASS, PG_STATISTIC};
use crate::catalog::{delete, insert, replace, scan};
use crate::commands::dependency::{dependents_error, report_cascade};
use crate::commands::indexcmds::require_not_null;
use crate::error::{Result, SqlError};
use crate::executor::context::BackendContext;
use crate::executor::host::ExecHost;
use crate::expr::{eval, Expr};
use crate::optimizer::indxpath::analyze_predicate;
use crate::optimizer::modify::{column_defaults, default_expr};
use crate::parser::deparse_expr;
use crate::sink::QuerySink;
use pg_query::protobuf::{ColumnDef, Node};
use sluice_access::heap::scan::HeapScan;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::Oid;
use sluice_types::storage::to_storage;
use sluice_types::Datum;

/// `pg_attribute` positions changed here.
const ATT_NOTNULL: usize = 6;
const ATT_HASDEF: usize = 7;

/// The attnum of `table`'s column `name`: 42703 if it has none.
pub(super) fn attnum(table: &RelationDesc, name: &str) -> Result<i16> {
    match table.column_index(name) {
        Some(i) => Ok(i as i16 + 1),
        None => Err(SqlError::new(
            "42703",
            format!("column \"{name}\" of relation \"{}\" does not exist", table.name),
        )),
    }
}

/// set_default -- ALTER COLUMN name SET DEFAULT expr (`raw`) or, without
/// one, DROP DEFAULT. The new default is analysed before the command ends,
/// so an expression that cannot be evaluated for the column fails here
/// rather than at the next INSERT.
pub(crate) fn set_default(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
    raw: Option<&Node>,
) -> Result<()> {
    let attnum = attnum(table, column)?;
    let text = raw.map(deparse_expr).transpose()?;
    let cooked = match &text {
        Some(text) => {
            let desc = &table.columns[attnum as usize - 1];
            Some(cook_default(text, desc.ty, desc.typmod, &cx.type_catalog()?)?)
        }
        None => None,
    };
    remove_default(cx, table, attnum)?;
    if let (Some(text), Some(cooked)) = (&text, &cooked) {
        let attrdef = super::insert_attrdef(cx, table.oid, attnum, text)?;
        super::default_refs::record_default_references(cx, attrdef, cooked)?;
    }
    let has_default = text.is_some();
    update_attribute(cx, table, attnum, |row| row[ATT_HASDEF] = Datum::Bool(has_default))
}

/// cook_default -- a default's stored text analysed for a column of type
/// `ty`/`typmod`, so one that cannot be evaluated for it fails when it is
/// set rather than at the next INSERT.
pub(super) fn cook_default(
    text: &str,
    ty: sluice_types::SqlType,
    typmod: i32,
    types: &crate::catalog::pg_type::TypeCatalog,
) -> Result<Expr> {
    // The text is analysed on its own: a position in it would point into
    // the wrong statement.
    default_expr(text, ty, typmod, &mut Vec::new(), types).map_err(|mut e| {
        e.position = None;
        e
    })
}

/// Deletes column `attnum`'s default and what the default depended on.
fn remove_default(cx: &mut dyn BackendContext, table: &RelationDesc, attnum: i16) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let at = Datum::Int2(attnum);
    let rows = scan(&engine, db, &PG_ATTRDEF, txn, |r| oid_of(&r[1]) == table.oid && r[2] == at)?;
    for (tid, row) in rows {
        let attrdef = oid_of(&row[0]);
        delete(&engine, db, &PG_ATTRDEF, txn, tid)?;
        depend::remove(&engine, db, txn, |d| {
            d.object.classid == ATTRDEF_CLASS && d.object.objid == attrdef
        })?;
    }
    Ok(())
}

/// update_attribute -- rewrites the `pg_attribute` row of column `attnum`
/// of `table` with `change` (a new row version only if it changed).
pub(super) fn update_attribute(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    attnum: i16,
    change: impl Fn(&mut [Datum]),
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let at = Datum::Int2(attnum);
    let rows = scan(&engine, db, &PG_ATTRIBUTE, txn, |r| oid_of(&r[0]) == table.oid && r[4] == at)?;
    for (tid, mut row) in rows {
        let before = row.clone();
        change(&mut row);
        if row != before {
            replace(&engine, db, &PG_ATTRIBUTE, txn, tid, &row)?;
        }
    }
    txn.increment_command();
    Ok(())
}

/// set_not_null -- ALTER COLUMN name SET NOT NULL (23502 if a row has a NULL).
pub(crate) fn set_not_null(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
) -> Result<()> {
    let attnum = attnum(table, column)?;
    if table.columns[attnum as usize - 1].not_null {
        return Ok(());
    }
    require_not_null(cx, table, &[attnum])
}

/// drop_not_null -- ALTER COLUMN name DROP NOT NULL (42P16 for a primary
/// key column).
pub(crate) fn drop_not_null(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
) -> Result<()> {
    let attnum = attnum(table, column)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let indexes = indexes_of(&engine, db, &ctx, table.oid)?;
    if indexes.iter().any(|i| i.primary && i.keys.contains(&attnum)) {
        return Err(SqlError::new("42P16", format!("column \"{column}\" is in a primary key")));
    }
    update_attribute(cx, table, attnum, |row| row[ATT_NOTNULL] = Datum::Bool(false))
}

/// add_column -- ADD [COLUMN] [IF NOT EXISTS] definition. Returns the
/// column's constraints other than NOT NULL and DEFAULT, which the caller
/// adds once the column exists.
pub(crate) fn add_column(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    def: &ColumnDef,
    if_not_exists: bool,
    sink: &mut dyn QuerySink,
) -> Result<Option<super::NewColumn>> {
    let types = cx.type_catalog()?;
    let mut column = new_column(def, &table.name, &types)?;
    if table.column_index(&column.name).is_some() {
        let message =
            format!("column \"{}\" of relation \"{}\" already exists", column.name, table.name);
        if if_not_exists {
            sink.notice(&SqlError::new("42701", format!("{message}, skipping")))?;
            return Ok(None);
        }
        return Err(SqlError::new("42701", message));
    }
    let has_rows = has_rows(cx, table)?;
    let serials = create_serial_sequences(
        cx,
        &table.name,
        table.namespace,
        std::slice::from_mut(&mut column),
    )?;
    // A value per row (a sequence's, a volatile default's, a generated
    // column's) needs the table rewritten; a constant one is stored once.
    let cooked = match &column.default {
        Some(text) => Some(cook_default(text, column.ty, column.typmod, &types)?),
        None => None,
    };
    let volatile = cooked.as_ref().is_some_and(Expr::is_volatile);
    let per_row = has_rows
        && (volatile || column.generated.is_some() || column.identity.is_some() || column.serial);
    let missing = match (&cooked, has_rows && !per_row) {
        (Some(expr), true) => missing_value(cx, expr)?,
        _ => Datum::Null,
    };
    if has_rows && !per_row && column.not_null && missing.is_null() {
        return Err(SqlError::new(
            "23502",
            format!(
                "column \"{}\" of relation \"{}\" contains null values",
                column.name, table.name
            ),
        ));
    }
    let attnum = table.columns.len() as i16 + 1;
    let attrdef = insert_column(cx, table, &column, attnum, missing)?;
    // A serial default's sequence is recorded with the sequence below.
    if let (Some(attrdef), Some(cooked), false) = (attrdef, &cooked, column.serial) {
        super::default_refs::record_default_references(cx, attrdef, cooked)?;
    }
    for (_, seq) in serials {
        let identity = column.identity.is_some();
        record_serial_dependencies(cx, (table.oid, attnum), attrdef, seq, identity)?;
    }
    set_relnatts(cx, table.oid, attnum)?;
    cx.txn()?.increment_command();
    if column.generated.is_some() {
        super::cook_generated(cx, table.oid).map_err(super::rewrite::unplaced)?;
    }
    if per_row {
        fill_new_column(cx, table)?;
    }
    Ok(Some(column))
}

/// fill_new_column -- rewrites `table` (as it was before its last column
/// was added) with the new column's default, or generated value, computed
/// for each row.
fn fill_new_column(cx: &mut dyn BackendContext, table: &RelationDesc) -> Result<()> {
    let new = super::describe(cx, table.oid)?;
    let types = cx.type_catalog()?;
    let value = match new.columns.last() {
        Some(c) if c.generated.is_some() => None,
        _ => column_defaults(&new, &mut Vec::new(), &types)?.pop(),
    };
    rewrite_table(cx, table, &mut |mut row, host| {
        row.push(value.as_ref().map_or(Ok(Datum::Null), |v| eval(v, &[], host))?);
        Ok(row)
    })
}

/// Whether `table` has a row the command's snapshot sees.
fn has_rows(cx: &mut dyn BackendContext, table: &RelationDesc) -> Result<bool> {
    let parts = cx.parts()?;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let mut scan = HeapScan::begin(parts.engine, &table.heap(), ctx)?;
    Ok(scan.next_tuple()?.is_some())
}

/// The value rows older than the column get: its cooked default,
/// evaluated once.
fn missing_value(cx: &mut dyn BackendContext, expr: &Expr) -> Result<Datum> {
    let mut parts = cx.parts()?;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let mut host = ExecHost::new(&mut parts.env, Vec::new(), ctx);
    eval(expr, &[], &mut host)
}

/// Writes the new column's `pg_attribute` row (with its missing value) and
/// `pg_attrdef` row; returns the default's OID.
fn insert_column(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &super::NewColumn,
    attnum: i16,
    missing: Datum,
) -> Result<Option<Oid>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let ty = column.ty;
    let mut row = column.attribute_row(table.oid, attnum);
    if !missing.is_null() {
        row[ATT_HASMISSING] = Datum::Bool(true);
        row[ATT_MISSINGVAL] = Datum::Bytea(to_storage(ty, &missing));
    }
    insert(&engine, db, &PG_ATTRIBUTE, txn, &row)?;
    let Some(default) = column.default.as_ref().or(column.generated.as_ref()) else {
        return Ok(None);
    };
    super::insert_attrdef(cx, table.oid, attnum, default).map(Some)
}

/// Sets `pg_class.relnatts` of table `oid`.
fn set_relnatts(cx: &mut dyn BackendContext, oid: Oid, natts: i16) -> Result<()> {
    super::update_class_row(cx, oid, |row| row[15] = Datum::Int2(natts))
}

/// drop_column -- DROP [COLUMN] [IF EXISTS] name. Nothing else refers to a
/// column by a dependency that would need CASCADE yet (views and foreign
/// keys do in PostgreSQL), so RESTRICT and CASCADE drop the same objects.
pub(crate) fn drop_column(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    name: &str,
    missing_ok: bool,
    cascade: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let Some(index) = table.column_index(name) else {
        let message = format!("column \"{name}\" of relation \"{}\" does not exist", table.name);
        if missing_ok {
            return sink.notice(&SqlError::new("00000", format!("{message}, skipping")));
        }
        return Err(SqlError::new("42703", message));
    };
    let attnum = index as i16 + 1;
    drop_dependent_generated(cx, table, index, cascade, sink)?;
    drop_dependent_indexes(cx, table, index)?;
    drop_dependent_checks(cx, table, attnum)?;
    drop_owned_sequences(cx, table, attnum)?;
    remove_default(cx, table, attnum)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let txn = cx.txn()?;
    let at = Datum::Int2(attnum);
    for (tid, _) in
        scan(&engine, db, &PG_STATISTIC, txn, |r| oid_of(&r[0]) == table.oid && r[1] == at)?
    {
        delete(&engine, db, &PG_STATISTIC, txn, tid)?;
    }
    let column = Some(i32::from(attnum));
    crate::catalog::comment::remove_comments(&engine, db, txn, PG_CLASS.oid, table.oid, column)?;
    update_attribute(cx, table, attnum, |row| {
        row[1] = Datum::Text(format!("........pg.dropped.{attnum}........"));
        row[ATT_NOTNULL] = Datum::Bool(false);
        row[ATT_HASDEF] = Datum::Bool(false);
        row[ATT_ISDROPPED] = Datum::Bool(true);
    })?;
    cx.txn()?.increment_command();
    crate::commands::view::views_without_column(cx, table, name, cascade, sink)
}

/// The generated columns computed from column `index`: without `cascade`
/// they make its drop fail (2BP01), with it they are dropped first.
fn drop_dependent_generated(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    index: usize,
    cascade: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let readers: Vec<String> =
        crate::optimizer::constraint::table_generated(table, &cx.type_catalog()?)?
            .into_iter()
            .filter(|g| g.column != index && g.expr.columns_read().contains(&index))
            .map(|g| table.columns[g.column].name.clone())
            .collect();
    let (column, name) = (&table.columns[index].name, &table.name);
    for reader in readers {
        let dependent = format!("column {reader} of table {name}");
        if !cascade {
            let line = format!("{dependent} depends on column {column} of table {name}");
            return Err(dependents_error(&format!("column {column} of table {name}"), &[line]));
        }
        report_cascade(&[dependent], sink)?;
        let current = super::describe(cx, table.oid)?;
        drop_column(cx, &current, &reader, false, true, sink)?;
    }
    Ok(())
}

/// Drops the indexes whose keys or predicate use column `index`.
fn drop_dependent_indexes(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    index: usize,
) -> Result<()> {
    let types = cx.type_catalog()?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let attnum = index as i16 + 1;
    let mut doomed = Vec::new();
    for idx in indexes_of(&engine, db, &ctx, table.oid)? {
        let in_predicate = match &idx.predicate {
            Some(text) => analyze_predicate(table, text, &types)?.columns_read().contains(&index),
            None => false,
        };
        if idx.keys.contains(&attnum) || in_predicate {
            doomed.push(idx.oid);
        }
    }
    for oid in doomed {
        super::lock_relation(cx, oid, sluice_txn::lmgr::LockMode::AccessExclusive)?;
        crate::commands::indexcmds::remove_index(cx, oid)?;
    }
    Ok(())
}

/// The OIDs of the objects that depend on column `attnum` of `table` and
/// that `keep` accepts.
fn column_dependents(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    attnum: i16,
    keep: impl Fn(&depend::Dependency) -> bool,
) -> Result<Vec<Oid>> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let me = depend::ObjectAddress::column(table.oid, attnum);
    let found = depend::find(&engine, db, cx.txn()?, |d| d.referenced == me && keep(d))?;
    Ok(found.into_iter().map(|(_, d)| d.object.objid).collect())
}

/// Drops the CHECK constraints that read column `attnum`.
fn drop_dependent_checks(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    attnum: i16,
) -> Result<()> {
    let is_check = |d: &depend::Dependency| d.object.classid == CONSTRAINT_CLASS;
    for oid in column_dependents(cx, table, attnum, is_check)? {
        super::constraints::remove_check_by_oid(cx, table, oid)?;
    }
    Ok(())
}

/// Drops the sequences column `attnum` owns (a serial column's).
fn drop_owned_sequences(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    attnum: i16,
) -> Result<()> {
    for seq in column_sequences(cx, table, attnum)? {
        super::lock_relation(cx, seq.oid, sluice_txn::lmgr::LockMode::AccessExclusive)?;
        super::remove_relation(cx, &seq)?;
    }
    Ok(())
}

/// column_sequences -- the sequences column `attnum` of `table` owns (a
/// serial's or an identity's).
pub(super) fn column_sequences(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    attnum: i16,
) -> Result<Vec<crate::catalog::relation::RelationId>> {
    let owned = |d: &depend::Dependency| {
        matches!(d.kind, depend::DepType::Auto | depend::DepType::Internal)
            && d.object.classid == depend::RELATION_CLASS
    };
    let engine = cx.engine().clone();
    let db = cx.database();
    let mut sequences = Vec::new();
    for oid in column_dependents(cx, table, attnum, owned)? {
        let txn = cx.txn()?;
        sequences.extend(crate::catalog::relation::find_by_oid(&engine, db, txn, oid)?);
    }
    Ok(sequences)
}

/// 55000 about `table`'s column `column`.
fn column_state_error(table: &RelationDesc, column: &str, what: &str) -> SqlError {
    SqlError::new("55000", format!("column \"{column}\" of relation \"{}\" {what}", table.name))
}

/// add_identity -- ALTER COLUMN name ADD GENERATED { ALWAYS | BY DEFAULT }
/// AS IDENTITY [(options)]: the column must be NOT NULL, without a default
/// and not yet an identity; it gets its sequence (PostgreSQL's
/// ATExecAddIdentity).
pub(crate) fn add_identity(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
    def: Option<&Node>,
) -> Result<()> {
    let Some(pg_query::NodeEnum::Constraint(c)) = def.and_then(|d| d.node.as_ref()) else {
        return Err(SqlError::internal("ADD GENERATED without an identity"));
    };
    let attnum = attnum(table, column)?;
    let desc = &table.columns[attnum as usize - 1];
    let mut new = super::NewColumn {
        name: desc.name.clone(),
        ty: desc.ty,
        typmod: desc.typmod,
        not_null: desc.not_null,
        default: None,
        serial: false,
        constraints: Vec::new(),
        checks: Vec::new(),
        foreign_keys: Vec::new(),
        identity: None,
        generated: None,
    };
    super::set_identity(&mut new, c, &table.name)?;
    if !desc.not_null {
        return Err(column_state_error(
            table,
            column,
            "must be declared NOT NULL before identity can be added",
        ));
    }
    if desc.identity.is_some() {
        return Err(column_state_error(table, column, "is already an identity column"));
    }
    if desc.default.is_some() {
        return Err(column_state_error(table, column, "already has a default value"));
    }
    let kind = new.identity.as_ref().map(|(k, _)| *k);
    let sequences =
        create_serial_sequences(cx, &table.name, table.namespace, std::slice::from_mut(&mut new))?;
    for (_, seq) in sequences {
        record_serial_dependencies(cx, (table.oid, attnum), None, seq, true)?;
    }
    let letter = kind.map_or("", |k| k.letter());
    update_attribute(cx, table, attnum, |row| row[ATT_IDENTITY] = Datum::Text(letter.into()))
}

/// drop_identity -- ALTER COLUMN name DROP IDENTITY [IF EXISTS]: the column
/// keeps its values and loses its sequence.
pub(crate) fn drop_identity(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    column: &str,
    missing_ok: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let attnum = attnum(table, column)?;
    if table.columns[attnum as usize - 1].identity.is_none() {
        let error = column_state_error(table, column, "is not an identity column");
        if missing_ok {
            let message = format!("{}, skipping", error.message);
            return sink.notice(&SqlError::new("00000", message));
        }
        return Err(error);
    }
    update_attribute(cx, table, attnum, |row| row[ATT_IDENTITY] = Datum::Text(String::new()))?;
    drop_owned_sequences(cx, table, attnum)
}
