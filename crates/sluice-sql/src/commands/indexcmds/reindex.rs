//! Rebuilding indexes into new files (PostgreSQL's `reindex_index` and
//! `reindex_relation` in `catalog/index.c`).
//!
//! # The idea
//!
//! An index is rebuilt the way TRUNCATE empties a table: its `pg_class` row
//! is replaced by one naming a brand-new file (a new relfilenode), the new
//! file is built from the heap as CREATE INDEX builds one (every tuple an
//! index must hold, sorted, pages written bottom-up and logged whole), and
//! the old file is removed when the transaction commits — or the new one
//! when it aborts, leaving the old index as it was.
//!
//! VACUUM FULL and CLUSTER rebuild every index of the table they rewrote
//! (the old entries point into the old heap file).
//!
//! `REINDEX [(VERBOSE)] {INDEX | TABLE} name` rebuilds one index or every
//! index of a table this way.
//!
//! # Locking
//!
//! The table is locked so that writers stay out (SHARE for REINDEX, ACCESS
//! EXCLUSIVE for VACUUM FULL and CLUSTER), so the heap the build reads does
//! not change under it; each index being rebuilt is locked ACCESS EXCLUSIVE,
//! so no query reads it while its `pg_class` row is replaced. Readers of the
//! table that do not use the index go on.
//!
//! # Not yet
//! CONCURRENTLY, SCHEMA, DATABASE and SYSTEM are refused (0A000), and so
//! are system catalogs; VERBOSE's DETAIL (resource usage) is not printed.

use super::{build_index_from, table_of_index, BuildScan};
use crate::catalog::index::{indexes_of, IndexDesc};
use crate::catalog::relation::{self, RelationDesc, RelationId};
use crate::catalog::schema::{RelKind, PG_CATALOG_NAMESPACE};
use crate::catalog::statistic::latest_view;
use crate::commands::analyze::{def_boolean, update_relstats};
use crate::commands::sequence::namespaces_for;
use crate::commands::tablecmds::{lock_relation, position};
use crate::commands::truncate::set_new_relfilenode;
use crate::error::{Result, SqlError};
use crate::session::Session;
use crate::sink::QuerySink;
use pg_query::protobuf::{RangeVar, ReindexObjectType, ReindexStmt};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::{ForkNumber, Oid};
use sluice_txn::lmgr::LockMode;

/// rebuild_index -- gives `index` of `table` a new file built from the
/// heap, and records its size in `pg_class`.
pub(crate) fn rebuild_index(
    session: &mut Session,
    table: &RelationDesc,
    index: &IndexDesc,
) -> Result<()> {
    let id = RelationId {
        oid: index.oid,
        name: index.name.clone(),
        namespace: table.namespace,
        locator: index.locator,
        kind: RelKind::Index,
    };
    let locator = set_new_relfilenode(session, &id, |engine, locator| {
        Ok(engine.create_relation_fork(locator, ForkNumber::Main)?)
    })?;
    session.keep_until_unseen(index.locator)?;
    // The build reads the index's new pg_class row (the command counter
    // moved on), so it writes the new file.
    let entries = build_index_from(session, table, index.oid, &index.name, BuildScan::Locked)?;
    let pages = session.engine().pool().nblocks(locator, ForkNumber::Main)?;
    let mut parts = session.parts()?;
    update_relstats(&mut parts, index.oid, pages, entries as f64, None)?;
    parts.txn.increment_command();
    Ok(())
}

/// rebuild_table_indexes -- rebuilds every index of table `table_oid`, as
/// the current transaction now sees the table (PostgreSQL's
/// reindex_relation), calling `rebuilt` after each.
pub(crate) fn rebuild_table_indexes(
    session: &mut Session,
    table_oid: Oid,
    rebuilt: &mut dyn FnMut(),
) -> Result<()> {
    let engine = session.engine().clone();
    let db = session.database();
    let ctx = VisibilityContext::for_transaction(session.txn()?, engine.txns());
    let table = relation::by_oid(&engine, db, &ctx, table_oid)?
        .ok_or_else(|| SqlError::internal("the table of the indexes to rebuild disappeared"))?;
    let indexes = indexes_of(&engine, db, &ctx, table_oid)?;
    for index in &indexes {
        rebuild_index(session, &table, index)?;
        rebuilt();
    }
    Ok(())
}

/// REINDEX's options.
#[derive(Clone, Copy, Debug, Default)]
struct ReindexOptions {
    /// VERBOSE: an INFO message per index.
    verbose: bool,
    /// CONCURRENTLY.
    concurrently: bool,
}

/// reindex -- `REINDEX [(VERBOSE)] {INDEX | TABLE} [CONCURRENTLY] name`
/// (PostgreSQL's ExecReindex): locks the table SHARE (writers wait, readers
/// go on), each index to rebuild ACCESS EXCLUSIVE, and rebuilds them.
pub fn reindex(session: &mut Session, stmt: &ReindexStmt, sink: &mut dyn QuerySink) -> Result<()> {
    let options = parse_options(stmt)?;
    let kind = ReindexObjectType::try_from(stmt.kind).unwrap_or(ReindexObjectType::Undefined);
    let Some(rv) = stmt.relation.as_ref() else {
        return Err(SqlError::unsupported(format!(
            "REINDEX {} is not supported yet",
            if kind == ReindexObjectType::ReindexObjectSchema { "SCHEMA" } else { "DATABASE" }
        )));
    };
    if options.concurrently {
        session.prevent_transaction_block("REINDEX CONCURRENTLY")?;
        return Err(SqlError::unsupported("REINDEX CONCURRENTLY is not supported yet"));
    }
    let target = find_relation(session, rv)?;
    match kind {
        ReindexObjectType::ReindexObjectIndex => {
            reindex_one_index(session, &target, options, sink)?
        }
        _ => reindex_table(session, &target, options, sink)?,
    }
    sink.complete("REINDEX")
}

/// parse_options -- VERBOSE and CONCURRENTLY (PostgreSQL 15's errors for the
/// rest; TABLESPACE is not supported).
fn parse_options(stmt: &ReindexStmt) -> Result<ReindexOptions> {
    let mut options = ReindexOptions::default();
    for node in &stmt.params {
        let Some(NodeEnum::DefElem(def)) = node.node.as_ref() else { continue };
        match def.defname.as_str() {
            "verbose" => options.verbose = def_boolean(def)?,
            "concurrently" => options.concurrently = def_boolean(def)?,
            "tablespace" => {
                return Err(SqlError::unsupported("REINDEX TABLESPACE is not supported"))
            }
            other => {
                return Err(SqlError::syntax(format!("unrecognized REINDEX option \"{other}\""))
                    .at(position(def.location)))
            }
        }
    }
    Ok(options)
}

/// The relation `rv` names (42P01 if none), refusing system catalogs.
fn find_relation(session: &mut Session, rv: &RangeVar) -> Result<RelationId> {
    let namespaces = namespaces_for(session, rv)?;
    let engine = session.engine().clone();
    let db = session.database();
    let rel = relation::find(&engine, db, session.txn()?, &namespaces, &rv.relname)?.ok_or_else(
        || SqlError::new("42P01", format!("relation \"{}\" does not exist", rv.relname)),
    )?;
    if rel.namespace == PG_CATALOG_NAMESPACE {
        return Err(SqlError::unsupported(format!(
            "REINDEX of system catalog \"{}\" is not supported yet",
            rel.name
        )));
    }
    Ok(rel)
}

/// reindex_one_index -- REINDEX INDEX: SHARE on its table, ACCESS
/// EXCLUSIVE on the index (PostgreSQL's ReindexIndex).
fn reindex_one_index(
    session: &mut Session,
    index: &RelationId,
    options: ReindexOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if index.kind != RelKind::Index {
        return Err(SqlError::new("42809", format!("\"{}\" is not an index", index.name)));
    }
    let table_oid = table_of_index(session, index.oid)?;
    lock_relation(session, table_oid, LockMode::Share)?;
    lock_relation(session, index.oid, LockMode::AccessExclusive)?;
    let (table, indexes) = current_table(session, table_oid)?;
    let Some(desc) = indexes.iter().find(|i| i.oid == index.oid) else {
        return Err(SqlError::new("42P01", format!("relation \"{}\" does not exist", index.name)));
    };
    rebuild_index(session, &table, desc)?;
    report(sink, options, desc)
}

/// reindex_table -- REINDEX TABLE: SHARE on the table, then every index
/// in turn (PostgreSQL's ReindexTable and reindex_relation).
fn reindex_table(
    session: &mut Session,
    table: &RelationId,
    options: ReindexOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if table.kind != RelKind::Table {
        return Err(SqlError::new(
            "42809",
            format!("\"{}\" is not a table or materialized view", table.name),
        ));
    }
    lock_relation(session, table.oid, LockMode::Share)?;
    let (desc, indexes) = current_table(session, table.oid)?;
    if indexes.is_empty() {
        let message = format!("table \"{}\" has no indexes to reindex", table.name);
        return sink.notice(&SqlError::new("00000", message));
    }
    for index in &indexes {
        lock_relation(session, index.oid, LockMode::AccessExclusive)?;
        rebuild_index(session, &desc, index)?;
        report(sink, options, index)?;
    }
    Ok(())
}

/// The table `oid` and its indexes as they are now that it is locked.
fn current_table(session: &mut Session, oid: Oid) -> Result<(RelationDesc, Vec<IndexDesc>)> {
    let engine = session.engine().clone();
    let db = session.database();
    let ctx = latest_view(session.txn()?, engine.txns());
    let table = relation::by_oid(&engine, db, &ctx, oid)?
        .ok_or_else(|| SqlError::new("42P01", format!("relation with OID {oid} does not exist")))?;
    let indexes = indexes_of(&engine, db, &ctx, oid)?;
    Ok((table, indexes))
}

/// VERBOSE's line for a rebuilt index (its DETAIL, the resource usage, is
/// left out: sluice does not measure it).
fn report(sink: &mut dyn QuerySink, options: ReindexOptions, index: &IndexDesc) -> Result<()> {
    if !options.verbose {
        return Ok(());
    }
    sink.info(&SqlError::new("00000", format!("index \"{}\" was reindexed", index.name)))
}
