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
//! CONCURRENTLY builds a copy of each index beside running writers and then
//! swaps the files (see [`reindex_concurrently`]).
//!
//! # Not yet
//! SCHEMA, DATABASE and SYSTEM are refused (0A000), and so are system
//! catalogs; VERBOSE's DETAIL (resource usage) is not printed.

use crate::analyze::{def_boolean, update_relstats};
use pg_query::protobuf::{RangeVar, ReindexObjectType, ReindexStmt};
use pg_query::NodeEnum;
use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::{ForkNumber, Oid, Xid};
use sluice_sql::catalog::index::{indexes_of, IndexDesc};
use sluice_sql::catalog::namespace::missing_relation;
use sluice_sql::catalog::relation::oid_of;
use sluice_sql::catalog::relation::{self, RelationDesc, RelationId};
use sluice_sql::catalog::schema::{
    RelKind, PG_ATTRIBUTE, PG_CATALOG_NAMESPACE, PG_CLASS, PG_INDEX,
};
use sluice_sql::catalog::statistic::{latest_view, namespace_names};
use sluice_sql::catalog::{delete, replace, scan};
use sluice_sql::commands::indexcmds::concurrently::{
    index_of, set_index_flag, validate_index, wait_for_lockers, wait_for_older_snapshots,
    SessionLock, INDISREADY, INDISVALID,
};
use sluice_sql::commands::indexcmds::{
    build_index_from, create_index_entry, table_of_index, BuildScan, CreatedIndex, IndexState,
    NewIndex,
};
use sluice_sql::commands::tablecmds::lock_relation;
use sluice_sql::commands::truncate::set_new_relfilenode;
use sluice_sql::error::position;
use sluice_sql::error::{Result, SqlError};
use sluice_sql::executor::context::BackendContext;
use sluice_sql::sink::QuerySink;
use sluice_txn::lmgr::{LockMode, LockTag};
use sluice_types::Datum;

/// `pg_class` columns the swap sets (as in `truncate.rs`).
const RELFILENODE: usize = 6;
const RELPAGES: usize = 8;

/// rebuild_index -- gives `index` of `table` a new file built from the
/// heap, and records its size in `pg_class`.
pub(crate) fn rebuild_index(
    cx: &mut dyn BackendContext,
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
    let locator = set_new_relfilenode(cx, &id, |engine, locator| {
        Ok(engine.create_relation_fork(locator, ForkNumber::Main)?)
    })?;
    cx.xact()?.keep_until_unseen(index.locator);
    // The build reads the index's new pg_class row (the command counter
    // moved on), so it writes the new file.
    let entries = build_index_from(cx, table, index.oid, &index.name, BuildScan::Locked)?;
    // A complete build makes an index left invalid by a failed CREATE
    // INDEX CONCURRENTLY usable (PostgreSQL's reindex_index).
    for (set, column) in [(index.ready, INDISREADY), (index.valid, INDISVALID)] {
        if !set {
            set_index_flag(cx, index.oid, column, true)?;
            cx.txn()?.increment_command();
        }
    }
    let pages = cx.engine().pool().nblocks(locator, ForkNumber::Main)?;
    let mut parts = cx.parts()?;
    update_relstats(&mut parts, index.oid, pages, entries as f64, None)?;
    parts.txn.increment_command();
    Ok(())
}

/// rebuild_table_indexes -- rebuilds every index of table `table_oid`, as
/// the current transaction now sees the table (PostgreSQL's
/// reindex_relation), calling `rebuilt` after each.
pub(crate) fn rebuild_table_indexes(
    cx: &mut dyn BackendContext,
    table_oid: Oid,
    rebuilt: &mut dyn FnMut(),
) -> Result<()> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = VisibilityContext::for_transaction(cx.txn()?, engine.txns());
    let table = relation::by_oid(&engine, db, &ctx, table_oid)?
        .ok_or_else(|| SqlError::internal("the table of the indexes to rebuild disappeared"))?;
    let indexes = indexes_of(&engine, db, &ctx, table_oid)?;
    for index in &indexes {
        rebuild_index(cx, &table, index)?;
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
pub fn reindex(
    cx: &mut dyn BackendContext,
    stmt: &ReindexStmt,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let options = parse_options(stmt)?;
    let kind = ReindexObjectType::try_from(stmt.kind).unwrap_or(ReindexObjectType::Undefined);
    let Some(rv) = stmt.relation.as_ref() else {
        return Err(SqlError::unsupported(format!(
            "REINDEX {} is not supported yet",
            if kind == ReindexObjectType::ReindexObjectSchema { "SCHEMA" } else { "DATABASE" }
        )));
    };
    if options.concurrently {
        cx.prevent_transaction_block("REINDEX CONCURRENTLY")?;
    }
    let target = find_relation(cx, rv)?;
    if options.concurrently {
        reindex_concurrently(cx, &target, kind, options, sink)?;
        return sink.complete("REINDEX");
    }
    match kind {
        ReindexObjectType::ReindexObjectIndex => reindex_one_index(cx, &target, options, sink)?,
        _ => reindex_table(cx, &target, options, sink)?,
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
fn find_relation(cx: &mut dyn BackendContext, rv: &RangeVar) -> Result<RelationId> {
    let rel = cx.find_named(rv)?;
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
    cx: &mut dyn BackendContext,
    index: &RelationId,
    options: ReindexOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if index.kind != RelKind::Index {
        return Err(SqlError::new("42809", format!("\"{}\" is not an index", index.name)));
    }
    let table_oid = table_of_index(cx, index.oid)?;
    lock_relation(cx, table_oid, LockMode::Share)?;
    lock_relation(cx, index.oid, LockMode::AccessExclusive)?;
    let (table, indexes) = current_table(cx, table_oid)?;
    let Some(desc) = indexes.iter().find(|i| i.oid == index.oid) else {
        return Err(missing_relation(&index.name));
    };
    rebuild_index(cx, &table, desc)?;
    report(sink, options, desc)
}

/// reindex_table -- REINDEX TABLE: SHARE on the table, then every index
/// in turn (PostgreSQL's ReindexTable and reindex_relation).
fn reindex_table(
    cx: &mut dyn BackendContext,
    table: &RelationId,
    options: ReindexOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    if !table.kind.has_heap() {
        return Err(SqlError::new(
            "42809",
            format!("\"{}\" is not a table or materialized view", table.name),
        ));
    }
    lock_relation(cx, table.oid, LockMode::Share)?;
    let (desc, indexes) = current_table(cx, table.oid)?;
    if indexes.is_empty() {
        let message = format!("table \"{}\" has no indexes to reindex", table.name);
        return sink.notice(&SqlError::new("00000", message));
    }
    for index in &indexes {
        lock_relation(cx, index.oid, LockMode::AccessExclusive)?;
        rebuild_index(cx, &desc, index)?;
        report(sink, options, index)?;
    }
    Ok(())
}

/// The table `oid` and its indexes as they are now that it is locked.
fn current_table(cx: &mut dyn BackendContext, oid: Oid) -> Result<(RelationDesc, Vec<IndexDesc>)> {
    let engine = cx.engine().clone();
    let db = cx.database();
    let ctx = latest_view(cx.txn()?, engine.txns());
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

/// One index rebuilt CONCURRENTLY: the original and its `_ccnew` copy.
struct Rebuild {
    old: IndexDesc,
    new: CreatedIndex,
}

/// reindex_concurrently -- REINDEX ... CONCURRENTLY (PostgreSQL's
/// ReindexRelationConcurrently): writers go on throughout.
///
/// 1. For each index, a copy named `<name>_ccnew` is created invalid and
///    not ready, with an empty file; commit.
/// 2. Once every writer that may not know of the copies has ended, each is
///    built from a snapshot and marked ready (writers maintain it); commit.
/// 3. After waiting out the writers again, each is validated (the rows
///    written between its build snapshot and its readiness are added);
///    commit; then every snapshot older than the validation's is waited
///    out, as CREATE INDEX CONCURRENTLY does (`concurrently.rs`).
/// 4. The swap: each original's `pg_class` row takes its copy's file
///    (relfilenode and size), and the copy's catalog rows go. The original
///    keeps its OID, name, constraint and dependencies; its old file is
///    removed once no snapshot that may still read it remains. Writers
///    maintained both files until the swap committed, so whichever
///    catalog view a writer had, the new file holds its entries.
/// 5. The swap commits, and the command waits out the table's users
///    (`outlast_old_users`).
///
/// The table is held SHARE UPDATE EXCLUSIVE across the transactions by a
/// session lock, so no other DDL or VACUUM touches it meanwhile. A failure
/// leaves the `_ccnew` copies behind as invalid indexes, as in PostgreSQL.
fn reindex_concurrently(
    cx: &mut dyn BackendContext,
    target: &RelationId,
    kind: ReindexObjectType,
    options: ReindexOptions,
    sink: &mut dyn QuerySink,
) -> Result<()> {
    let table_oid = concurrent_table(cx, target, kind)?;
    let held = SessionLock::on_table(cx, table_oid)?;
    let tag = held.tag;
    let (table, indexes) = current_table(cx, table_oid)?;
    let chosen = concurrent_candidates(cx, &table, indexes, target, kind, sink)?;
    if chosen.is_empty() {
        let message =
            format!("table \"{}\" has no indexes that can be reindexed concurrently", table.name);
        return sink.notice(&SqlError::new("00000", message));
    }
    let rebuilds = create_copies(cx, &table, chosen, sink)?;
    cx.restart_transaction()?;

    wait_for_lockers(cx, tag, LockMode::Share)?;
    for rebuild in &rebuilds {
        build_index_from(cx, &table, rebuild.new.oid, &rebuild.new.name, BuildScan::Snapshot)?;
        set_index_flag(cx, rebuild.new.oid, INDISREADY, true)?;
    }
    cx.restart_transaction()?;

    wait_for_lockers(cx, tag, LockMode::Share)?;
    let mut limit = None;
    for rebuild in &rebuilds {
        let xmin = validate_index(cx, &table, &rebuild.new)?;
        limit = Some(limit.map_or(xmin, |l: Xid| l.min(xmin)));
    }
    cx.restart_transaction()?;
    if let Some(limit) = limit {
        wait_for_older_snapshots(cx, limit)?;
    }
    for rebuild in &rebuilds {
        swap_files(cx, &table, rebuild)?;
        report(sink, options, &rebuild.old)?;
    }
    cx.restart_transaction()?;
    outlast_old_users(cx, tag)
}

/// outlast_old_users -- after the swap: returns once every transaction
/// that used the table while the old files were current has ended, and
/// then every one that started using it meanwhile. PostgreSQL waits twice
/// here (before marking the old indexes dead, and before dropping them),
/// so a REINDEX CONCURRENTLY ends only after the transactions that ran
/// beside it; clients and PostgreSQL's own tests rely on that order. The
/// old files themselves go once no snapshot may read them (`swap_files`).
fn outlast_old_users(cx: &mut dyn BackendContext, tag: LockTag) -> Result<()> {
    wait_for_lockers(cx, tag, LockMode::AccessExclusive)?;
    wait_for_lockers(cx, tag, LockMode::AccessExclusive)
}

/// The indexes REINDEX CONCURRENTLY rebuilds: the one named, or every
/// valid index of the table (an invalid one, such as a failed build's, is
/// skipped with a warning, as in PostgreSQL).
fn concurrent_candidates(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    indexes: Vec<IndexDesc>,
    target: &RelationId,
    kind: ReindexObjectType,
    sink: &mut dyn QuerySink,
) -> Result<Vec<IndexDesc>> {
    if kind == ReindexObjectType::ReindexObjectIndex {
        return Ok(indexes.into_iter().filter(|i| i.oid == target.oid).collect());
    }
    let engine = cx.engine().clone();
    let ctx = latest_view(cx.txn()?, engine.txns());
    let names = namespace_names(&engine, cx.database(), &ctx)?;
    let schema = names.get(&table.namespace).cloned().unwrap_or_default();
    let mut chosen = Vec::new();
    for index in indexes {
        if index.valid {
            chosen.push(index);
            continue;
        }
        let message = format!(
            "cannot reindex invalid index \"{schema}.{}\" concurrently, skipping",
            index.name
        );
        sink.warning(&SqlError::new("0A000", message))?;
    }
    Ok(chosen)
}

/// The table whose indexes `target` (an index or a table, as `kind` says)
/// names, checked as PostgreSQL's REINDEX checks it.
fn concurrent_table(
    cx: &mut dyn BackendContext,
    target: &RelationId,
    kind: ReindexObjectType,
) -> Result<Oid> {
    match kind {
        ReindexObjectType::ReindexObjectIndex if target.kind != RelKind::Index => {
            Err(SqlError::new("42809", format!("\"{}\" is not an index", target.name)))
        }
        ReindexObjectType::ReindexObjectIndex => table_of_index(cx, target.oid),
        _ if !target.kind.has_heap() => Err(SqlError::new(
            "42809",
            format!("\"{}\" is not a table or materialized view", target.name),
        )),
        _ => Ok(target.oid),
    }
}

/// create_copies -- the `_ccnew` copy of each of `indexes`: same columns,
/// order, uniqueness, predicate and fillfactor, not ready and not valid,
/// with a file of no pages (the build writes it whole).
fn create_copies(
    cx: &mut dyn BackendContext,
    table: &RelationDesc,
    indexes: Vec<IndexDesc>,
    sink: &mut dyn QuerySink,
) -> Result<Vec<Rebuild>> {
    let mut rebuilds = Vec::with_capacity(indexes.len());
    for old in indexes {
        let spec = NewIndex::copy_of(&old, table, Some(format!("{}_ccnew", old.name)), None)?;
        let Some(new) = create_index_entry(cx, table, &spec, IndexState::Building, sink)? else {
            return Err(SqlError::internal("the _ccnew index was not created"));
        };
        rebuilds.push(Rebuild { old, new });
    }
    Ok(rebuilds)
}

/// swap_files -- the original index takes its copy's file and size; the
/// copy's catalog rows go (its file now belongs to the original).
fn swap_files(cx: &mut dyn BackendContext, table: &RelationDesc, rebuild: &Rebuild) -> Result<()> {
    let (new_btree, _) = index_of(cx, table, rebuild.new.oid)?;
    let engine = cx.engine().clone();
    let db = cx.database();
    let new_locator = new_btree.locator;
    let pages = engine.pool().nblocks(new_locator, ForkNumber::Main)?;
    let txn = cx.txn()?;
    let old_oid = rebuild.old.oid;
    for (tid, mut row) in scan(&engine, db, &PG_CLASS, txn, |r| oid_of(&r[0]) == old_oid)? {
        row[RELFILENODE] = Datum::Oid(new_locator.rel_number);
        row[RELPAGES] = Datum::Int4(i32::try_from(pages).unwrap_or(i32::MAX));
        replace(&engine, db, &PG_CLASS, txn, tid, &row)?;
    }
    let is_new = |d: &Datum| matches!(d, Datum::Oid(o) if *o == rebuild.new.oid);
    for def in [&PG_CLASS, &PG_ATTRIBUTE, &PG_INDEX] {
        for (tid, _) in scan(&engine, db, def, txn, |r| is_new(&r[0]))? {
            delete(&engine, db, def, txn, tid)?;
        }
    }
    txn.increment_command();
    let xact = cx.xact()?;
    xact.delete_on_commit(rebuild.old.locator);
    xact.keep_until_unseen(rebuild.old.locator);
    Ok(())
}
