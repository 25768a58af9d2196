//! CREATE MATERIALIZED VIEW and REFRESH MATERIALIZED VIEW (PostgreSQL's
//! `commands/matview.c` and the materialized view branch of
//! `commands/createas.c`).
//!
//! # What is stored
//!
//! A materialized view is a table of kind `m`: a heap with the result of
//! its query as of the last refresh, indexable and read like a table, plus
//! the query in a `_RETURN` rule of `pg_rewrite`, stored as a view's is
//! (`view.rs`: relations schema-qualified, `*` spelled out). It is made as
//! CREATE TABLE AS makes a table — columns from the planned query, rows
//! from `INSERT INTO mv query` — then marked a materialized view. `WITH NO
//! DATA` leaves it unpopulated (`relispopulated` false): reading it is
//! 55000 until a refresh fills it.
//!
//! # Refreshing
//!
//! `REFRESH MATERIALIZED VIEW mv` takes ACCESS EXCLUSIVE, gives the heap
//! and its indexes new, empty files (TRUNCATE's way: the old ones come back
//! on abort) and runs the stored query into them. `CONCURRENTLY` takes
//! EXCLUSIVE instead, so readers go on throughout, and replaces the rows
//! inside the heap: it deletes every row and inserts the query's result,
//! in one transaction, so each reader sees all of the old contents or all
//! of the new. PostgreSQL computes the difference and touches only changed
//! rows; sluice rewrites all of them, which leaves one dead version per
//! row for VACUUM where PostgreSQL leaves one per changed row. As in
//! PostgreSQL, CONCURRENTLY needs the view populated and a unique index
//! without a WHERE clause.
//!
//! The rows go in through INSERT and DELETE statements, which refuse a
//! materialized view as their target except inside
//! [`MatViewMaintenance`] (PostgreSQL's
//! OpenMatViewIncrementalMaintenance).

use super::createas;
use super::tablecmds::{lock_for_ddl, update_class_row};
use super::truncate::{reset_indexes, set_new_relfilenode};
use crate::catalog::index::indexes_of;
use crate::catalog::namespace::missing_relation;
use crate::catalog::relation::RelationId;
use crate::catalog::rewrite::{add_rule, view_query};
use crate::catalog::schema::RelKind;
use crate::error::{Result, SqlError};
use crate::executor;
use crate::executor::context::BackendContext;
use crate::executor::modify::MatViewMaintenance;
use crate::parser::{quote_identifier, RawStatement};
use crate::sink::{NestedSink, QuerySink};
use pg_query::protobuf::{CreateTableAsStmt, RefreshMatViewStmt, SelectStmt};
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::ForkNumber;
use sluice_txn::lmgr::LockMode;
use sluice_types::Datum;

/// `pg_class` positions set here.
const RELKIND: usize = 14;
const RELHASRULES: usize = 20;
const RELISPOPULATED: usize = 25;

/// create_matview -- CREATE MATERIALIZED VIEW [IF NOT EXISTS] name
/// [(columns)] [WITH (options)] AS query [WITH [NO] DATA].
pub(crate) fn create_matview(
    cx: &mut dyn BackendContext,
    stmt: &CreateTableAsStmt,
    query: SelectStmt,
    text: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let into = stmt
        .into
        .as_deref()
        .ok_or_else(|| SqlError::internal("CREATE MATERIALIZED VIEW without INTO"))?;
    let rv = into.rel.as_ref().ok_or_else(|| SqlError::internal("INTO without a relation"))?;
    let (stored, relations) = super::view::stored_query(cx, &query, text)?;
    let filled = createas::create_and_fill(cx, into, query, text, &mut NestedSink::new(sink))?;
    let rel = lock_for_ddl(cx, rv, LockMode::AccessExclusive)?
        .ok_or_else(|| missing_relation(&rv.relname))?;
    let (engine, db) = (cx.engine().clone(), cx.database());
    add_rule(&engine, db, cx.txn()?, rel.oid, &stored, &relations)?;
    mark_matview(cx, &rel, !into.skip_data)?;
    match filled {
        Some(rows) => sink.complete(&format!("SELECT {rows}")),
        None => sink.complete("CREATE MATERIALIZED VIEW"),
    }
}

/// Makes the table just created a materialized view, populated or not.
fn mark_matview(cx: &mut dyn BackendContext, rel: &RelationId, populated: bool) -> Result<()> {
    update_class_row(cx, rel.oid, |row| {
        row[RELKIND] = Datum::Text(RelKind::MatView.letter().into());
        row[RELHASRULES] = Datum::Bool(true);
        row[RELISPOPULATED] = Datum::Bool(populated);
    })?;
    cx.txn()?.increment_command();
    Ok(())
}

/// refresh_matview -- REFRESH MATERIALIZED VIEW [CONCURRENTLY] name
/// [WITH [NO] DATA].
pub fn refresh_matview(
    cx: &mut dyn BackendContext,
    stmt: &RefreshMatViewStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if stmt.concurrent && stmt.skip_data {
        return Err(SqlError::syntax(
            "CONCURRENTLY and WITH NO DATA options cannot be used together",
        ));
    }
    let rv = stmt.relation.as_ref().ok_or_else(|| SqlError::internal("REFRESH without a name"))?;
    let mode = if stmt.concurrent { LockMode::Exclusive } else { LockMode::AccessExclusive };
    let rel = lock_for_ddl(cx, rv, mode)?.ok_or_else(|| missing_relation(&rv.relname))?;
    if rel.kind != RelKind::MatView {
        return Err(SqlError::new("42809", format!("\"{}\" is not a materialized view", rel.name)));
    }
    if stmt.concurrent {
        refresh_concurrently(cx, &rel, sink)?;
    } else {
        refresh_by_new_files(cx, &rel, !stmt.skip_data, sink)?;
    }
    sink.complete("REFRESH MATERIALIZED VIEW")
}

/// The heap and its indexes in new files, filled when `fill`.
fn refresh_by_new_files(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    fill: bool,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    set_new_relfilenode(cx, rel, |engine, locator| {
        engine.create_relation_fork(locator, ForkNumber::Main).map_err(Into::into)
    })?;
    reset_indexes(cx, rel)?;
    if fill {
        run_maintenance(cx, rel, "INSERT INTO {} {}", sink)?;
    }
    update_class_row(cx, rel.oid, |row| row[RELISPOPULATED] = Datum::Bool(fill))?;
    cx.txn()?.increment_command();
    Ok(())
}

/// Every row replaced in place, the view's readers going on meanwhile.
fn refresh_concurrently(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let desc = super::tablecmds::describe(cx, rel.oid)?;
    if !desc.populated {
        return Err(SqlError::unsupported(
            "CONCURRENTLY cannot be used when the materialized view is not populated",
        ));
    }
    let (engine, db) = (cx.engine().clone(), cx.database());
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let has_key =
        indexes_of(&engine, db, &ctx, rel.oid)?.iter().any(|i| i.unique && i.predicate.is_none());
    if !has_key {
        let schema = cx.namespace_name(rel.namespace)?;
        return Err(SqlError::new(
            "55000",
            format!(
                "cannot refresh materialized view \"{}.{}\" concurrently",
                quote_identifier(&schema),
                quote_identifier(&rel.name)
            ),
        )
        .with_hint(
            "Create a unique index with no WHERE clause on one or more columns of the materialized view.",
        ));
    }
    run_maintenance(cx, rel, "DELETE FROM {}", sink)?;
    run_maintenance(cx, rel, "INSERT INTO {} {}", sink)
}

/// Runs `template` — its first `{}` the view's qualified name, its second
/// the view's query — with the view open to INSERT and DELETE.
fn run_maintenance(
    cx: &mut dyn BackendContext,
    rel: &RelationId,
    template: &str,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let (engine, db) = (cx.engine().clone(), cx.database());
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let query = view_query(&engine, db, &ctx, rel.oid)?;
    let schema = cx.namespace_name(rel.namespace)?;
    let name = format!("{}.{}", quote_identifier(&schema), quote_identifier(&rel.name));
    let text = template.replacen("{}", &name, 1).replacen("{}", &query, 1);
    let statement = crate::parser::parse(&text)?
        .into_iter()
        .next()
        .ok_or_else(|| SqlError::internal("empty maintenance statement"))?;
    let statement = RawStatement { node: statement.node, location: 0, text };
    let _open = MatViewMaintenance::open();
    executor::run(cx, &statement, &[], &mut NestedSink::muted(sink))?;
    cx.txn()?.increment_command();
    Ok(())
}
